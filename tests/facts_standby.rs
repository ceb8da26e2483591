//! Issue 23: the standby-pool and instance-mix facts held against their sources (the dated
//! excerpts in `tests/fixtures/sources/standby-pools.json`, the built-in roles table and the type
//! data of the conformance kit), never against the code's own constants; the refusals; and the
//! rendered pool (ARM and Bicep).

mod sources;

use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::emit;
use gpuform::facts::standby as facts;
use gpuform::spec::{self, Policy};
use regex::Regex;
use serde_json::Value;

fn excerpts() -> Value {
    sources::read_json(&sources::root().join("tests/fixtures/sources/standby-pools.json"))
}

/// Every excerpt of one page, joined.
fn page(doc: &Value, key: &str) -> String {
    doc[key]["excerpts"]
        .as_array()
        .unwrap_or_else(|| panic!("{key}: no excerpts"))
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_pool_size_formula_follows_the_overviews_example() {
    let doc = excerpts();
    let text = page(&doc, "overview");
    assert!(text.contains("Standby pool size = `maxReadyCapacity`– `instanceCount`"));
    // "maximum ready capacity of 20 and [...] 10 instances [...] the pool size would equal 10.
    // If your scale set scales down to 5, the pool size would increase to 15."
    let re = Regex::new(r"maximum ready capacity of (\d+) and you currently have (\d+) instances in your scale set, the pool size would equal (\d+)\. If your scale set scales down to (\d+), the pool size would increase to (\d+)").unwrap();
    let c = re.captures(&text).expect("the overview's example");
    let n = |i: usize| c[i].parse::<u32>().unwrap();
    // the example runs on Azure's default minimum, which the page says is zero
    assert!(text.contains("the minimum ready capacity for any new standby pool is zero"));
    assert_eq!(facts::AZURE_DEFAULT_MIN_READY, 0);
    assert_eq!(facts::pool_size(n(1), 0, n(2)), n(3));
    assert_eq!(facts::pool_size(n(1), 0, n(4)), n(5));
}

#[test]
fn scaling_and_zones_follow_the_overview() {
    let doc = excerpts();
    let text = page(&doc, "overview");
    // a scale-out takes ready pooled VMs, then creates; nothing being built is given out
    assert_eq!(
        text.contains("available instance in the standby pool that has completed all provisioning steps, the scale set by default uses that instance when scaling up")
            && text.contains("defaults to standard scale-out methods and creates new instances")
            && text.contains("in a creating, failed or any other state than the expected state the scale set defaults to new virtual machine creation"),
        facts::SCALE_OUT_TAKES_READY_POOLED_VMS
    );
    // a scale-in deletes and the pool refills (a removed VM is not returned to it)
    assert_eq!(
        text.contains("the instances are deleted from your scale set")
            && text.contains("the standby pool refills to meet the max ready capacity"),
        !facts::SCALE_IN_RETURNS_TO_POOL
    );
    // zones: a pooled VM serves a scale-out in its own zone only
    assert_eq!(
        text.contains("a virtual machine in the pool in that same zone is used")
            && text
                .contains("the scale set creates a new virtual machine directly in the scale set"),
        facts::POOLED_VM_SERVES_ITS_ZONE_ONLY
    );
    assert!(text.contains("spread across the same zones"));
    // how it spreads them is not written: an assumption
    assert!(facts::POOL_ZONE_SPREAD.assumption);
}

#[test]
fn limits_and_unsupported_combinations_follow_the_pages() {
    let doc = excerpts();
    let overview = page(&doc, "overview");
    let faq = page(&doc, "faq");
    let spot = page(&doc, "spot");
    assert_eq!(
        overview.contains(
            "Standby Pools in a running VM state with autoscale enabled is not yet supported"
        ),
        !facts::RUNNING_WITH_AUTOSCALE_SUPPORTED
    );
    assert!(
        overview.contains(
            "only supported with Virtual Machine Scale Sets using Flexible Orchestration"
        )
    );
    assert!(
        faq.contains("only supported on Virtual Machine Scale Sets with Flexible Orchestration")
    );
    assert!(overview.contains("fault domain count greater than 1"));
    assert_eq!(facts::MAX_FAULT_DOMAINS, 1);
    assert_eq!(
        overview.contains("don't support the deallocated state"),
        !facts::EPHEMERAL_OS_DISK_DEALLOCATES
    );
    // "The maximum number of virtual machines between a scale set and a standby pool is 1,000."
    let re = Regex::new(r"between a scale set and a standby pool is ([\d,]+)\.").unwrap();
    let limit: u32 = re.captures(&faq).unwrap()[1]
        .replace(',', "")
        .parse()
        .unwrap();
    assert_eq!(facts::MAX_VMS_WITH_POOL, limit);
    // "anywhere between 3 and 24 characters", and the type data's pattern
    let re = Regex::new(r"between (\d+) and (\d+) characters").unwrap();
    let c = re.captures(&faq).unwrap();
    assert_eq!(
        (facts::NAME_MIN, facts::NAME_MAX),
        (c[1].parse().unwrap(), c[2].parse().unwrap())
    );
    // quota: the pooled VMs are created, so they need quota
    assert_eq!(
        faq.contains("Insufficient quota results in the platform attempting to create the virtual machines in the standby pool"),
        facts::POOLED_VMS_COUNT_AGAINST_QUOTA
    );
    assert!(spot.contains("currently in preview") && facts::SPOT_PREVIEW);
    assert!(spot.contains("not a mix of Spot and regular instances"));
    assert!(spot.contains("Deallocate eviction policy isn't currently supported"));
    // registration
    assert!(overview.contains(&format!("-ProviderNamespace {}", facts::PROVIDER)));
    assert!(overview.contains(&format!("up to {} minutes", facts::REGISTRATION_MINUTES)));
}

#[test]
fn states_bill_and_reserve_as_the_pages_say() {
    use facts::VmState::*;
    let doc = excerpts();
    let overview = page(&doc, "overview");
    let faq = page(&doc, "faq");
    let hib = page(&doc, "hibernation");
    assert!(overview.contains("running state incur compute") && Running.bills_compute());
    assert!(
        overview.contains("deallocated state doesn't incur any compute costs")
            && !Deallocated.bills_compute()
    );
    assert!(hib.contains("you aren't billed for the VM usage") && !Hibernated.bills_compute());
    assert!(
        faq.contains("deallocated instances doesn't guarantee capacity")
            && !Deallocated.reserves_capacity()
    );
    assert!(
        faq.contains("already allocated and consuming compute capacity")
            && Running.reserves_capacity()
    );
    assert!(hib.contains("no capacity guarantee") && !Hibernated.reserves_capacity());
}

#[test]
fn hibernation_sizes_follow_the_hibernation_page() {
    let doc = excerpts();
    let hib = page(&doc, "hibernation");
    let re = Regex::new(r"up to (\d+)-GB RAM from the following GPU VM series").unwrap();
    let max: f64 = re.captures(&hib).unwrap()[1].parse().unwrap();
    assert_eq!(facts::HIBERNATION_MAX_MEMORY_GB, max);
    // the GPU list: the bullets after that sentence
    let after = hib
        .split("GPU VM series support hibernation.")
        .nth(1)
        .unwrap();
    let series: Vec<String> = Regex::new(r"\[([A-Za-z0-9]+)-series\]")
        .unwrap()
        .captures_iter(after)
        .map(|c| facts::series_key(&c[1]))
        .collect();
    let mut ours: Vec<String> = facts::HIBERNATION_GPU_SERIES
        .iter()
        .map(|s| facts::series_key(s))
        .collect();
    let mut theirs = series.clone();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
    // and they name catalog series
    for key in &series {
        assert!(
            gpuform::catalog::sizes()
                .iter()
                .any(|z| facts::series_key(&z.series) == *key),
            "{key} is not a catalog series"
        );
    }
    assert!(hib.contains("Spot VMs") && !facts::HIBERNATION_WITH_SPOT);
    let linux = page(&doc, "hibernationLinux");
    assert!(linux.contains("isn't supported with Trusted Launch for Linux VMs"));
}

#[test]
fn instance_mix_families_follow_the_overview() {
    let doc = excerpts();
    let mix = page(&doc, "instanceMix");
    let re = Regex::new(r"supported in `skuProfile`: ([A-Z, and]+) families only").unwrap();
    let families: Vec<char> = re.captures(&mix).unwrap()[1]
        .split([',', ' '])
        .filter(|w| w.len() == 1)
        .map(|w| w.chars().next().unwrap())
        .collect();
    assert_eq!(facts::INSTANCE_MIX_FAMILIES, families.as_slice());
    assert!(mix.contains("up to five VM sizes") && facts::INSTANCE_MIX_MAX_SIZES == 5);
    assert_eq!(
        mix.contains("Instance mix doesn't support: Standby Pools"),
        !facts::INSTANCE_MIX_WITH_STANDBY
    );
    // no catalog size (every one a GPU size) belongs to those families
    for z in gpuform::catalog::sizes() {
        assert!(!facts::instance_mix_family(&z.name), "{}", z.name);
    }
}

#[test]
fn the_start_time_is_an_assumption_because_no_page_gives_one() {
    let doc = excerpts();
    assert!(
        doc["startTime"]["found"]
            .as_str()
            .unwrap()
            .starts_with("no start time")
    );
    assert!(facts::DEALLOCATED_START.assumption);
    for key in ["overview", "faq", "hibernation"] {
        let text = page(&doc, key);
        assert!(
            !Regex::new(r"start(s|ed)? (in|within) \d")
                .unwrap()
                .is_match(&text),
            "{key}"
        );
    }
}

#[test]
fn provider_roles_are_the_pages_roles_with_builtin_guids() {
    let doc = excerpts();
    let perms = page(&doc, "permissions");
    assert!(perms.contains(&format!("**{}**", facts::PROVIDER_PRINCIPAL_NAME)));
    let table = sources::read_json(&sources::source_path(
        "azure/builtin-roles.json",
        "builtin-roles.json",
    ));
    let builtin: Vec<(String, String)> = ["roles", "supplementalRoles"]
        .iter()
        .flat_map(|k| table[*k].as_array().cloned().unwrap_or_default())
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["id"].as_str().unwrap().to_ascii_lowercase(),
            )
        })
        .collect();
    for r in facts::PROVIDER_ROLES {
        assert!(
            perms.contains(&format!("**{}**", r.name)),
            "{} not on the page",
            r.name
        );
        let found = builtin.iter().find(|(n, _)| n == r.name);
        assert_eq!(
            found.map(|(_, id)| id.as_str()),
            Some(r.id),
            "{}: GUID differs from the built-in roles table",
            r.name
        );
    }
    for g in facts::GALLERY_ROLES {
        assert!(perms.contains(&format!("**{}**", g.name)), "{}", g.name);
    }
    // every role gpuform asks for, on any scope, is a built-in role of that GUID
    for r in facts::PROVIDER_ROLES
        .iter()
        .chain(facts::GALLERY_ROLES)
        .chain([&facts::SUBNET_ROLE, &facts::DISK_ENCRYPTION_SET_ROLE])
    {
        let found = builtin.iter().find(|(n, _)| n == r.name);
        assert_eq!(found.map(|(_, id)| id.as_str()), Some(r.id), "{}", r.name);
    }
    // Virtual Machine Contributor cannot read a disk encryption set; the role asked for can
    let actions = |name: &str| -> Vec<String> {
        ["roles", "supplementalRoles"]
            .iter()
            .flat_map(|k| table[*k].as_array().cloned().unwrap_or_default())
            .find(|r| r["name"] == name)
            .map(|r| {
                r["actions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_default()
    };
    let grants = |acts: &[String], action: &str| {
        acts.iter().any(|a| {
            let a = a.trim_end_matches('*');
            action.to_ascii_lowercase().starts_with(a)
                || (a.starts_with("*/") && action.to_ascii_lowercase().ends_with(&a[1..]))
        })
    };
    let read = "Microsoft.Compute/diskEncryptionSets/read";
    assert!(!grants(&actions("Virtual Machine Contributor"), read));
    assert!(grants(&actions(facts::DISK_ENCRYPTION_SET_ROLE.name), read));
    // and the page names the cases: gallery images in another subscription, subnets
    assert!(perms.contains("compute gallery images in other subscriptions"));
}

/// The type data: the shared kit's file when beside the checkout, else the vendored summary.
#[test]
fn the_rendered_body_fits_the_type_data() {
    let shared = sources::root().join("../shared/conformance/types/microsoft.standbypool.json");
    let key = format!("{}@{}", facts::RESOURCE_TYPE, facts::API_VERSION);
    let (props, elasticity, states): (Vec<String>, Vec<String>, Vec<String>) = if shared.is_file() {
        let d = sources::read_json(&shared);
        let t = d["types"].as_array().unwrap();
        let at = |r: &Value| -> &Value {
            let s = r["$ref"].as_str().unwrap();
            &t[s.trim_start_matches("#/").parse::<usize>().unwrap()]
        };
        // the resource's body is a type index, properties refer to types by `$ref`
        let body = &t[d["resources"][&key]["body"].as_u64().unwrap() as usize];
        let p = at(&body["properties"]["properties"]["type"]);
        let e = at(&p["properties"]["elasticityProfile"]["type"]);
        let u = at(&p["properties"]["virtualMachineState"]["type"]);
        let names = |o: &Value| {
            o["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        let states = u["elements"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| at(e)["value"].as_str().map(str::to_string))
            .collect();
        (names(p), names(e), states)
    } else {
        let d = &excerpts()["typeData"];
        assert_eq!(d["resource"].as_str(), Some(key.as_str()));
        let list = |k: &str| {
            d[k].as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        (
            list("properties"),
            list("elasticityProfile"),
            list("virtualMachineState"),
        )
    };
    for p in [
        "elasticityProfile",
        "virtualMachineState",
        "attachedVirtualMachineScaleSetId",
    ] {
        assert!(props.contains(&p.to_string()), "{p}");
    }
    for p in ["maxReadyCapacity", "minReadyCapacity"] {
        assert!(elasticity.contains(&p.to_string()), "{p}");
    }
    for s in [
        facts::VmState::Running,
        facts::VmState::Deallocated,
        facts::VmState::Hibernated,
    ] {
        assert!(states.contains(&s.azure_name().to_string()), "{s:?}");
    }
    // the newest GA version of the type
    assert_eq!(facts::API_VERSION, newest_ga());
}

/// The newest GA API version of the pool's type in the type data (the source).
fn newest_ga() -> String {
    let all = sources::read_json(&sources::source_path(
        "conformance/types/all-versions.json",
        "api-versions.json",
    ));
    all["types"]["Microsoft.StandbyPool/standbyVirtualMachinePools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|v| !v.contains("preview"))
        .max()
        .unwrap()
        .to_string()
}

/// The roles the permissions page's steps assign to the provider (typed from the page, each
/// held against its excerpt) with their GUIDs from the built-in roles table: the source of what
/// the templates must grant, never `facts::PROVIDER_ROLES`.
fn page_roles() -> Vec<(String, String)> {
    let perms = page(&excerpts(), "permissions");
    let table = sources::read_json(&sources::source_path(
        "azure/builtin-roles.json",
        "builtin-roles.json",
    ));
    [
        "Virtual Machine Contributor",
        "Network Contributor",
        "Managed Identity Operator",
    ]
    .iter()
    .map(|name| {
        assert!(
            perms.contains(&format!("**{name}**")),
            "{name} not on the page"
        );
        let id = ["roles", "supplementalRoles"]
            .iter()
            .flat_map(|k| table[*k].as_array().cloned().unwrap_or_default())
            .find(|r| r["name"] == *name)
            .and_then(|r| r["id"].as_str().map(str::to_ascii_lowercase))
            .unwrap_or_else(|| panic!("{name} not in the built-in roles table"));
        (name.to_string(), id)
    })
    .collect()
}

fn check(path: &Path) -> spec::Checked {
    gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded())
}

fn check_text(text: &str) -> spec::Checked {
    gpuform::check::check_source(
        text.to_string(),
        "t.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

fn example_text() -> String {
    std::fs::read_to_string(sources::root().join("examples/batch-inference-standby.yaml")).unwrap()
}

fn rules(c: &spec::Checked) -> Vec<String> {
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.rule.clone())
        .collect()
}

#[test]
fn what_azure_does_not_support_is_refused_with_its_source() {
    let base = example_text();
    let cases = [
        (
            "      state: deallocated",
            "      state: running",
            "standby-running-autoscale",
            "standby-pools-overview",
        ),
        (
            "      state: deallocated",
            "      state: hibernated",
            "standby-hibernation-unsupported",
            "hibernate-resume",
        ),
        (
            "    orchestration: flexible",
            "    orchestration: uniform",
            "standby-needs-flexible",
            "standby-pools-overview",
        ),
        (
            "      maxReady: 2",
            "      maxReady: 2\n      minReady: 5",
            "standby-ready-order",
            "elasticityprofileminreadycapacity",
        ),
        (
            "    regularPercentAboveBase: 100",
            "    regularPercentAboveBase: 50",
            "standby-spot",
            "standby-pools-spot-instances",
        ),
        (
            "    max: 8\n",
            "    max: 999\n",
            "standby-vm-limit",
            "standby-pools-faq",
        ),
    ];
    for (from, to, rule, url) in cases {
        assert!(base.contains(from), "{from}");
        let mut text = base.replace(from, to);
        if rule == "standby-spot" {
            text = text.replace(
                "    precision: fp16\n",
                "    precision: fp16\n    interruptible: true\n",
            );
        }
        let c = check_text(&text);
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.rule == rule)
            .unwrap_or_else(|| panic!("{rule}: {:#?}", c.diagnostics));
        assert!(d.is_error(), "{rule}");
        assert!(d.location.is_some(), "{rule}: no position");
        assert!(d.help.is_some(), "{rule}: no fix");
        assert!(
            d.notes.iter().any(|n| n.contains(url)),
            "{rule}: {:?}",
            d.notes
        );
        assert!(emit::render(&c).is_err(), "{rule}: rendered anyway");
    }
    // the example itself is clean and tells about the provider's roles
    let c = check_text(&base);
    assert!(rules(&c).is_empty(), "{:#?}", c.diagnostics);
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "standby-provider-roles")
    );
}

#[test]
fn a_hibernated_pool_on_a_hibernation_size_is_accepted_and_auto_picks_one() {
    let base = example_text().replace("      state: deallocated", "      state: hibernated");
    let c = check_text(
        &base
            .replace("Standard_NC8as_T4_v3", "Standard_NV12ads_A10_v5")
            .replace("gpuMemoryGiB: 12", "gpuMemoryGiB: 6"),
    );
    assert!(rules(&c).is_empty(), "{:#?}", c.diagnostics);
    // vmSize: auto only offers sizes that can hibernate
    let c = check_text(
        &base
            .replace("Standard_NC8as_T4_v3", "auto")
            .replace("gpuMemoryGiB: 12", "gpuMemoryGiB: 6"),
    );
    let size = c.size().expect("auto found a size");
    assert!(
        facts::hibernation_supported(&size.series, size.memory_gib),
        "{}",
        size.name
    );
}

#[test]
fn several_gpu_sizes_for_one_scale_set_are_refused_as_instance_mix() {
    let base = example_text();
    for (to, pointer) in [
        (
            "    vmSize: [Standard_NC8as_T4_v3, Standard_NC16as_T4_v3]",
            "/spec/compute/vmSize",
        ),
        (
            "    vmSize: Standard_NC8as_T4_v3\n    skuProfile: {vmSizes: [{name: Standard_NC8as_T4_v3}, {name: Standard_NC16as_T4_v3}], allocationStrategy: lowestPrice}",
            "/spec/compute/skuProfile",
        ),
    ] {
        let c = check_text(&base.replace("    vmSize: Standard_NC8as_T4_v3", to));
        let mix: Vec<_> = c
            .diagnostics
            .iter()
            .filter(|d| d.rule == "instance-mix-gpu")
            .collect();
        assert_eq!(mix.len(), 1, "{to}: {:#?}", c.diagnostics);
        let d = mix[0];
        assert_eq!(d.pointer.as_deref(), Some(pointer));
        assert!(d.label.as_deref().unwrap().contains("A, B, D, E, F"));
        assert!(d.notes.iter().any(|n| n.contains("instance-mix-overview")));
        // the generic schema error at that place is replaced, not repeated
        assert!(
            !c.diagnostics
                .iter()
                .any(|e| e.rule != "instance-mix-gpu" && e.pointer.as_deref() == Some(pointer)),
            "{:#?}",
            c.diagnostics
        );
        assert!(c.spec.is_none());
    }
    // a one-element list is not a mix: the ordinary type error
    let c = check_text(&base.replace(
        "    vmSize: Standard_NC8as_T4_v3",
        "    vmSize: [Standard_NC8as_T4_v3]",
    ));
    assert!(c.diagnostics.iter().any(|d| d.rule == "invalid-type"));
    assert!(!c.diagnostics.iter().any(|d| d.rule == "instance-mix-gpu"));
}

fn render(path: &Path) -> (Value, String) {
    let c = check(path);
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let r = emit::render(&c).unwrap();
    let file = |n: &str| r.files.iter().find(|(f, _)| *f == n).unwrap().1.clone();
    (
        serde_json::from_str(&file("azuredeploy.json")).unwrap(),
        file("main.bicep"),
    )
}

#[test]
fn the_pool_is_rendered_attached_to_the_flexible_scale_set() {
    let (arm, bicep) = render(&sources::root().join("examples/batch-inference-standby.yaml"));
    let res = arm["resources"].as_array().unwrap();
    let pool = res
        .iter()
        .find(|r| r["type"] == facts::RESOURCE_TYPE)
        .expect("a standby pool");
    assert_eq!(pool["apiVersion"], newest_ga().as_str());
    let name = pool["name"].as_str().unwrap();
    assert!(Regex::new(r"^[a-zA-Z0-9-]{3,24}$").unwrap().is_match(name));
    let vmss = res
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .unwrap();
    assert_eq!(vmss["properties"]["orchestrationMode"], "Flexible");
    let vmss_id = format!(
        "[resourceId('Microsoft.Compute/virtualMachineScaleSets', '{}')]",
        vmss["name"].as_str().unwrap()
    );
    assert_eq!(
        pool["properties"]["attachedVirtualMachineScaleSetId"],
        vmss_id.as_str()
    );
    assert!(
        pool["dependsOn"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == vmss_id.as_str())
    );
    assert_eq!(pool["tags"], "[variables('tags')]");
    // minReady = maxReady when the spec gives none
    let e = &pool["properties"]["elasticityProfile"];
    assert_eq!(e["maxReadyCapacity"], 2);
    assert_eq!(e["minReadyCapacity"], 2);
    assert_eq!(pool["properties"]["virtualMachineState"], "Deallocated");
    // no principal: no role assignment for the provider, and the template says what to grant
    assert!(!res.iter().any(|r| {
        r["type"] == "Microsoft.Authorization/roleAssignments"
            && r["properties"]["description"]
                .as_str()
                .unwrap_or("")
                .contains("Standby Pool")
    }));
    assert!(bicep.contains("attachedVirtualMachineScaleSetId: vmss.id"));
    assert!(bicep.contains("Grant them before deploying"));
    for (name, id) in page_roles() {
        assert!(bicep.contains(&name) && bicep.contains(&id), "{name}");
    }
    assert!(!bicep.contains("hibernationEnabled"));
}

#[test]
fn a_hibernated_pool_with_the_principal_grants_the_roles_and_enables_hibernation() {
    let (arm, bicep) =
        render(&sources::root().join("tests/fixtures/render/variants/standby-hibernated.yaml"));
    let res = arm["resources"].as_array().unwrap();
    let pool = res
        .iter()
        .find(|r| r["type"] == facts::RESOURCE_TYPE)
        .unwrap();
    assert_eq!(pool["properties"]["virtualMachineState"], "Hibernated");
    assert_eq!(
        pool["properties"]["elasticityProfile"]["minReadyCapacity"],
        1
    );
    let vmss = res
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .unwrap();
    assert_eq!(
        vmss["properties"]["additionalCapabilities"]["hibernationEnabled"],
        true
    );
    let granted: Vec<&Value> = res
        .iter()
        .filter(|r| {
            r["type"] == "Microsoft.Authorization/roleAssignments"
                && r["properties"]["principalId"] == "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        })
        .collect();
    let roles = page_roles();
    assert_eq!(granted.len(), roles.len());
    for (name, id) in &roles {
        assert!(
            granted.iter().any(|g| {
                g["properties"]["roleDefinitionId"]
                    .as_str()
                    .unwrap()
                    .contains(id.as_str())
            }),
            "{name}"
        );
    }
    // the pool waits for each of its roles (and for the telemetry policy: tests/standby_render.rs)
    let waits: Vec<&str> = pool["dependsOn"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for (name, id) in &roles {
        assert!(
            waits
                .iter()
                .any(|d| d.contains("roleAssignments") && d.contains(id.as_str())),
            "{name}: {waits:?}"
        );
    }
    assert_eq!(pool["apiVersion"], newest_ga().as_str());
    assert!(bicep.contains("hibernationEnabled: true"));
    assert!(bicep.contains("standbyProviderRole0"));
}

#[test]
fn the_provider_app_id_is_the_sources_and_an_assumption() {
    let doc = excerpts();
    let a = &doc["providerAppId"];
    assert_eq!(a["assumption"], true);
    let id = a["appId"].as_str().unwrap();
    assert!(a["excerpt"].as_str().unwrap().contains(id));
    assert_eq!(facts::PROVIDER_APP_ID, id);
    assert!(facts::PROVIDER_APP_ID_SOURCE.assumption);
    assert!(facts::PROVIDER_APP_ID_SOURCE.what.contains(id));
    // the role-assignment filter and the Graph list the preflight uses are the documented ones
    let f = doc["roleAssignmentsList"]["filter"].as_str().unwrap();
    assert!(f.contains("principalId eq {id}"), "{f}");
    let g = doc["graphServicePrincipals"]["request"].as_str().unwrap();
    assert!(g.starts_with(&format!(
        "GET /{}",
        facts::GRAPH_SERVICE_PRINCIPALS_PATH
            .trim_start_matches("v1.0")
            .trim_start_matches('/')
    )));
}

#[test]
fn graph_endpoints_are_the_azure_clis() {
    let doc =
        sources::read_json(&sources::root().join("tests/fixtures/sources/graph-endpoints.json"));
    for c in gpuform::azure::Cloud::ALL {
        let want = doc["clouds"][c.name()].as_str().unwrap();
        let want = format!("{}/", want.trim_end_matches('/'));
        assert_eq!(c.graph_endpoint(), want, "{c}");
        assert_eq!(c.graph_scope(), format!("{want}.default"), "{c}");
    }
}

/// `postProvisioningDelay`: documented (one sentence) in the versions the type data has from
/// 2025-10-01 on, so rendered when the spec gives it; `dynamicSizing`'s effect is not documented,
/// so it is neither rendered nor modelled.
#[test]
fn post_provisioning_delay_is_in_the_rendered_version_and_dynamic_sizing_is_not_used() {
    let d = &excerpts()["postProvisioningDelay"];
    let text = d["postProvisioningDelay"].as_str().unwrap();
    assert!(text.contains("before the virtual machine becomes available for use"));
    assert!(text.contains("ISO 8601"));
    assert!(
        facts::POST_PROVISIONING_DELAY
            .what
            .contains("postProvisioningDelay")
    );
    assert!(facts::POST_PROVISIONING_DELAY_RUNS.assumption);
    let with: Vec<&str> = d["versionsWith"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let without: Vec<&str> = d["versionsWithout"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(with.contains(&facts::API_VERSION));
    assert_eq!(
        with.iter().min(),
        Some(&facts::POST_PROVISIONING_DELAY_SINCE)
    );
    assert!(
        without
            .iter()
            .all(|v| *v < facts::POST_PROVISIONING_DELAY_SINCE)
    );
    // the excerpt's version lists, against the type data itself when the kit is beside the checkout
    let shared = sources::root().join("../shared/conformance/types/microsoft.standbypool.json");
    if shared.is_file() {
        let t = sources::read_json(&shared);
        let types = t["types"].as_array().unwrap();
        let at = |r: &Value| -> Value {
            let s = r["$ref"].as_str().unwrap();
            types[s.trim_start_matches("#/").parse::<usize>().unwrap()].clone()
        };
        let has = |version: &str| -> bool {
            let key = format!("{}@{version}", facts::RESOURCE_TYPE);
            let body = &types[t["resources"][&key]["body"].as_u64().unwrap() as usize];
            let p = at(&body["properties"]["properties"]["type"]);
            let e = at(&p["properties"]["elasticityProfile"]["type"]);
            e["properties"].get("postProvisioningDelay").is_some()
        };
        for v in &with {
            assert!(has(v), "{v}");
        }
        for v in &without {
            assert!(!has(v), "{v}");
        }
    }
    let sizing = d["dynamicSizingEnabled"].as_str().unwrap();
    assert!(sizing.contains("Indicates whether dynamic sizing is enabled"));
    assert!(!facts::DYNAMIC_SIZING_DOCUMENTED);

    // rendered only when the spec gives it, in both files
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sb.yaml");
    std::fs::write(
        &path,
        example_text().replace(
            "      state: deallocated\n",
            "      state: deallocated\n      postProvisioningDelay: PT2M\n",
        ),
    )
    .unwrap();
    let (arm, bicep) = render(&path);
    let pool = arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == facts::RESOURCE_TYPE)
        .unwrap()
        .clone();
    let e = &pool["properties"]["elasticityProfile"];
    assert_eq!(e["postProvisioningDelay"], "PT2M");
    assert!(e.get("dynamicSizing").is_none());
    assert!(bicep.contains("postProvisioningDelay: 'PT2M'"), "{bicep}");
    let (arm, bicep) = render(&sources::root().join("examples/batch-inference-standby.yaml"));
    assert!(!arm.to_string().contains("postProvisioningDelay"));
    assert!(!bicep.contains("postProvisioningDelay"));
    // not a duration: refused by the schema
    let bad = check_text(&example_text().replace(
        "      state: deallocated\n",
        "      state: deallocated\n      postProvisioningDelay: 2 minutes\n",
    ));
    assert!(bad.has_errors());
}

/// The runtime view and the state update deploy uses (issue 38), against the dated copies of the
/// REST specs' examples (`tests/fixtures/sources/standby-runtime-view.json`).
#[test]
fn the_runtime_view_and_the_update_follow_the_rest_examples() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sources/standby-runtime-view.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let view = &doc["runtimeView"];
    // the view's path under the pool, from the example's id
    let id = view["body"]["id"].as_str().unwrap();
    let pool = id.split("/runtimeViews/").next().unwrap();
    assert_eq!(&id[pool.len() + 1..], facts::RUNTIME_VIEW_PATH);
    assert!(
        view["path"]
            .as_str()
            .unwrap()
            .ends_with(facts::RUNTIME_VIEW_PATH)
    );
    // every state of the example, and only those
    let mut example: Vec<String> =
        view["body"]["properties"]["instanceCountSummary"][0]["instanceCountsByState"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["state"].as_str().unwrap().to_ascii_lowercase())
            .collect();
    let mut ours: Vec<String> = facts::RUNTIME_STATES
        .iter()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    example.sort();
    ours.sort();
    assert_eq!(ours, example);
    // the update is a PATCH of virtualMachineState, with a state the type data knows
    let u = &doc["update"];
    assert_eq!(u["method"], "PATCH");
    let state = u["request"]["properties"]["virtualMachineState"]
        .as_str()
        .unwrap();
    assert_eq!(state, facts::VmState::Running.azure_name());
    // the sources named in the facts are the copies' sources
    for (fact, copy) in [
        (facts::RUNTIME_VIEW.what, view["source"].as_str().unwrap()),
        (facts::UPDATE.what, u["source"].as_str().unwrap()),
    ] {
        let commit = copy.split('@').nth(1).unwrap().split(' ').next().unwrap();
        assert!(fact.contains(commit), "{fact} does not name {commit}");
    }
    // no figure for the fill: an assumption, said so
    assert!(facts::FILL_TIME.assumption);
}

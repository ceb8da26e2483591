//! Property-level contract tests of the rendered infrastructure: for every example and render
//! variant, each class of deploy-time defect found by reading the Azure REST API descriptions
//! (issue 9) is checked on the rendered ARM template (the Bicep/ARM equivalence test in
//! tests/render.rs keeps main.bicep in step), so a new spec or a template change cannot
//! reintroduce it. Each check also has a negative test: a mutated template must be caught.
//!
//! `GPUFORM_CONTRACT_GOLDEN=1` runs the checks on the committed golden files instead of a fresh
//! render (how the checks were seen to fail on the output before the fixes).

mod support;

use std::path::{Path, PathBuf};

use gpuform::azure::cloud::Cloud;
use gpuform::catalog::prices::PriceTable;
use gpuform::emit;
use gpuform::plan::{log_entry, roles};
use gpuform::spec::Policy;
use gpuform::spec::model::{DnsZoneMode, Outbound};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every spec the render covers: examples, the adversarial fixture and the variants.
fn specs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["examples", "tests/fixtures/render/variants"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                v.push(p);
            }
        }
    }
    v.push(root().join("tests/fixtures/render/adversarial.yaml"));
    v.sort();
    if golden_mode() {
        v.retain(|p| {
            root()
                .join("tests/golden/render")
                .join(p.file_stem().unwrap())
                .is_dir()
        });
        return v;
    }
    assert!(v.len() >= 9, "{v:?}");
    v
}

fn golden_mode() -> bool {
    std::env::var("GPUFORM_CONTRACT_GOLDEN").is_ok_and(|v| v == "1")
}

struct Out {
    at: String,
    region: String,
    bicep: String,
    arm: Value,
    /// Every rendered file, for the host-name scan.
    files: Vec<(String, String)>,
    /// Landing zones (issue 13): the pool joins an existing subnet (no VNet of its own).
    existing_subnet: bool,
    outbound: Outbound,
    dns_mode: DnsZoneMode,
    /// Resource ids the spec gives (zone ids, route table id): written as the spec wrote them,
    /// so their host-like names are the spec's, not the template's.
    spec_ids: Vec<String>,
}

fn render(path: &Path) -> Out {
    let checked = gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded());
    assert!(!checked.has_errors(), "{}", path.display());
    let region = checked.spec.as_ref().unwrap().spec.region.clone();
    let net = checked.spec.as_ref().unwrap().spec.network.clone();
    let z = &net.private_dns_zones.zones;
    let spec_ids: Vec<String> = [
        &z.key_vault,
        &z.storage_queue,
        &z.storage_blob,
        &z.service_bus,
    ]
    .into_iter()
    .flatten()
    .cloned()
    .chain(net.route_table.as_ref().and_then(|r| r.id.clone()))
    .collect();
    let files: Vec<(String, String)> = if golden_mode() {
        let dir = root()
            .join("tests/golden/render")
            .join(path.file_stem().unwrap());
        emit::FILES
            .iter()
            .map(|f| {
                (
                    f.to_string(),
                    std::fs::read_to_string(dir.join(f)).unwrap_or_default(),
                )
            })
            .collect()
    } else {
        emit::render(&checked)
            .unwrap()
            .files
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect()
    };
    let get = |n: &str| files.iter().find(|(f, _)| f == n).unwrap().1.clone();
    Out {
        at: path.file_name().unwrap().to_string_lossy().into_owned(),
        region,
        bicep: get(emit::MAIN_BICEP),
        arm: serde_json::from_str(&get(emit::ARM_TEMPLATE)).unwrap(),
        files,
        existing_subnet: net.existing_subnet.is_some(),
        outbound: net.outbound,
        dns_mode: net.private_dns_zones.mode,
        spec_ids,
    }
}

fn all() -> Vec<Out> {
    specs().iter().map(|p| render(p)).collect()
}

fn of<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["type"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case(ty))
        })
        .collect()
}

fn assert_clean(problems: Vec<String>) {
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Run `check` on a fresh render of `spec` after `mutate`, and expect a problem with `needle`.
fn caught(spec: &str, mutate: impl Fn(&mut Out), check: fn(&Out) -> Vec<String>, needle: &str) {
    let path = if spec.contains('/') {
        root().join(spec)
    } else {
        root().join("examples").join(spec)
    };
    let mut o = render(&path);
    assert!(
        check(&o).is_empty(),
        "{spec} is not clean before the mutation"
    );
    mutate(&mut o);
    let p = check(&o);
    assert!(
        p.iter().any(|x| x.contains(needle)),
        "expected a problem mentioning {needle:?}, got {p:#?}"
    );
}

fn resource_mut<'a>(o: &'a mut Out, ty: &str) -> &'a mut Value {
    o.arm["resources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["type"] == ty)
        .unwrap()
}

// ------------------------------------------------------------------ 1. versioned key URLs

/// KeyForDiskEncryptionSet.keyUrl (Microsoft.Compute 2025-01-02): "fully versioned Key Url ...
/// required regardless of rotationToLatestKeyVersionEnabled"; the Key Vault key's versioned URL
/// is `keyUriWithVersion` (`keyUri` has no version).
fn des_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    for des in of(&o.arm, "Microsoft.Compute/diskEncryptionSets") {
        let url = des["properties"]["activeKey"]["keyUrl"]
            .as_str()
            .unwrap_or("");
        if !url.ends_with(".keyUriWithVersion]") {
            p.push(format!(
                "{}: keyUrl {url} is not the versioned key URL",
                o.at
            ));
        }
        if des["properties"]["rotationToLatestKeyVersionEnabled"] != true {
            p.push(format!("{}: key rotation is off", o.at));
        }
    }
    for line in o
        .bicep
        .lines()
        .filter(|l| l.trim_start().starts_with("keyUrl:"))
    {
        if !line.trim_end().ends_with(".properties.keyUriWithVersion") {
            p.push(format!("{}: main.bicep {}", o.at, line.trim()));
        }
    }
    p
}

#[test]
fn disk_encryption_sets_use_the_versioned_key_url() {
    let outs = all();
    assert!(
        outs.iter()
            .any(|o| !of(&o.arm, "Microsoft.Compute/diskEncryptionSets").is_empty())
    );
    assert_clean(outs.iter().flat_map(des_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let des = resource_mut(o, "Microsoft.Compute/diskEncryptionSets");
            let url = des["properties"]["activeKey"]["keyUrl"].as_str().unwrap();
            des["properties"]["activeKey"]["keyUrl"] =
                Value::String(url.replace(".keyUriWithVersion]", ".keyUri]"));
        },
        des_problems,
        "not the versioned key URL",
    );
}

// ------------------------------------------------------------------ 5. egress zones

fn zones(v: &Value) -> Vec<String> {
    v["zones"]
        .as_array()
        .map(|a| a.iter().map(|z| z.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// A zonal pool's egress shares its zone; a pool across zones gets zone-redundant egress
/// (StandardV2 NAT gateway and public IP); a regional pool a regional gateway.
/// The pool's scale set, or the dev box's VM (issue 9 item 6).
fn compute_resource(o: &Out) -> &Value {
    of(&o.arm, "Microsoft.Compute/virtualMachineScaleSets")
        .into_iter()
        .chain(of(&o.arm, "Microsoft.Compute/virtualMachines"))
        .next()
        .unwrap_or_else(|| panic!("{}: no scale set and no VM", o.at))
}

/// Regions without StandardV2 NAT gateways, as Microsoft's "Azure NAT Gateway SKUs" page lists
/// them ("Known limitations": Canada East, Indonesia Central, Israel Northwest, Qatar Central,
/// Sweden South, West India; MicrosoftDocs/azure-docs articles/nat-gateway/nat-sku.md
/// @0b8729eaf7eb0aabc6390cb17348d19761285f12, page 2026-07-27, read 2026-12-03).
const NO_STANDARD_V2_NAT: &[&str] = &[
    "canadaeast",
    "indonesiacentral",
    "israelnorthwest",
    "qatarcentral",
    "swedensouth",
    "westindia",
];

fn egress_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    let compute = zones(compute_resource(o));
    let nats = of(&o.arm, "Microsoft.Network/natGateways");
    let pips = of(&o.arm, "Microsoft.Network/publicIPAddresses");
    for (nat, pip) in nats.iter().zip(pips.iter()) {
        let (nz, pz) = (zones(nat), zones(pip));
        let (nsku, psku) = (
            nat["sku"]["name"].as_str().unwrap_or(""),
            pip["sku"]["name"].as_str().unwrap_or(""),
        );
        if nsku != psku {
            p.push(format!(
                "{}: NAT gateway {nsku} with a {psku} public IP",
                o.at
            ));
        }
        if nz != pz {
            p.push(format!("{}: NAT zones {nz:?} but its IP's {pz:?}", o.at));
        }
        match compute.len() {
            0 => {
                if !nz.is_empty() {
                    p.push(format!("{}: regional pool with a zonal NAT {nz:?}", o.at));
                }
            }
            1 => {
                if nz != compute || nsku != "Standard" {
                    p.push(format!(
                        "{}: egress zones {nz:?} ({nsku}) do not align with the pool's zone {compute:?}",
                        o.at
                    ));
                }
            }
            // the SKU page lists public-cloud regions only: no page lists StandardV2 in Azure
            // Government or Azure operated by 21Vianet (facts::nat::SOVEREIGN)
            _ if NO_STANDARD_V2_NAT.contains(&o.region.as_str())
                || ["china", "usgov", "usdod"]
                    .iter()
                    .any(|c| o.region.starts_with(c)) =>
            {
                // no StandardV2 in the region: one Standard gateway without a zone (a subnet
                // takes one NAT gateway)
                if nsku != "Standard" || !nz.is_empty() {
                    p.push(format!(
                        "{}: {} has no StandardV2 NAT gateway, but the egress is {nsku} in zones {nz:?}",
                        o.at, o.region
                    ));
                }
            }
            _ => {
                if nsku != "StandardV2" || !compute.iter().all(|z| nz.contains(z)) {
                    p.push(format!(
                        "{}: egress zones {nz:?} ({nsku}) are not zone-redundant over the pool's zones {compute:?}",
                        o.at
                    ));
                }
            }
        }
    }
    if nats.len() != pips.len() {
        p.push(format!(
            "{}: {} NAT gateways, {} public IPs",
            o.at,
            nats.len(),
            pips.len()
        ));
    }
    p
}

#[test]
fn egress_zones_align_with_compute_zones() {
    let outs = all();
    // the examples and variants reach all three shapes
    let shapes: std::collections::BTreeSet<usize> = outs
        .iter()
        .filter(|o| !of(&o.arm, "Microsoft.Network/natGateways").is_empty())
        .map(|o| zones(compute_resource(o)).len().min(2))
        .collect();
    assert_eq!(shapes.len(), 3, "{shapes:?}");
    assert_clean(outs.iter().flat_map(egress_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            for ty in [
                "Microsoft.Network/natGateways",
                "Microsoft.Network/publicIPAddresses",
            ] {
                let r = resource_mut(o, ty);
                r["sku"]["name"] = "Standard".into();
                r.as_object_mut().unwrap().remove("zones");
            }
        },
        egress_problems,
        "not zone-redundant",
    );
    caught(
        "tests/fixtures/render/variants/cloud-usgov.yaml",
        |o| {
            let r = resource_mut(o, "Microsoft.Network/natGateways");
            r["zones"] = serde_json::json!(["1"]);
        },
        egress_problems,
        "zones",
    );
}

/// Issue 19: a pool across zones in a region without StandardV2 NAT gateways (Qatar Central
/// has zones) renders one Standard gateway without a zone, which validation warns about;
/// StandardV2 there would fail the deployment.
#[test]
fn a_pool_across_zones_where_standard_v2_nat_is_not_offered_gets_a_standard_gateway() {
    let text = std::fs::read_to_string(root().join("examples/shortvideo-transcode.yaml"))
        .unwrap()
        .lines()
        .filter(|l| {
            !l.contains("alternateRegions")
                && !l.contains("allowedRegions")
                && !l.contains("cloudInit")
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("region: eastus2", "region: qatarcentral");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qatar.yaml");
    std::fs::write(&path, text).unwrap();
    let checked = gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
    assert!(
        checked
            .diagnostics
            .iter()
            .any(|d| d.rule == "nat-standardv2-unavailable"
                && d.pointer.as_deref() == Some("/spec/compute/zones")),
        "{:#?}",
        checked.diagnostics
    );
    let o = render(&path);
    assert_eq!(o.region, "qatarcentral");
    assert_eq!(zones(compute_resource(&o)).len(), 3);
    let nat = of(&o.arm, "Microsoft.Network/natGateways");
    assert_eq!(nat.len(), 1);
    assert_eq!(nat[0]["sku"]["name"], "Standard");
    assert!(zones(nat[0]).is_empty());
    assert_clean(egress_problems(&o));
}

/// Issue 19: a data collection endpoint's logs ingestion must be in the destination
/// workspace's region, and Azure Monitor Agent needs no DCE without Private Link (Learn, "Data
/// collection endpoints in Azure Monitor", azure-monitor-docs data-collection-endpoint-overview.md
/// @8ba52bdda15423cf3ee8fb9170f885b16f3aca6a, page 2026-08-07, read 2026-12-03): with an existing
/// workspace (whose region may not be the pool's) no DCE is rendered and the DCR names none.
fn dce_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    let own_workspace = !of(&o.arm, "Microsoft.OperationalInsights/workspaces").is_empty();
    let dces = of(&o.arm, "Microsoft.Insights/dataCollectionEndpoints");
    for dcr in of(&o.arm, "Microsoft.Insights/dataCollectionRules") {
        let names_dce = dcr["properties"].get("dataCollectionEndpointId").is_some();
        if !own_workspace && (names_dce || !dces.is_empty()) {
            p.push(format!(
                "{}: a data collection endpoint in the pool's region sends to an existing workspace (its region may differ)",
                o.at
            ));
        }
        if names_dce && dces.is_empty() {
            p.push(format!(
                "{}: the DCR names a DCE the template does not create",
                o.at
            ));
        }
    }
    p
}

#[test]
fn no_data_collection_endpoint_with_an_existing_workspace() {
    let outs = all();
    let existing = outs
        .iter()
        .filter(|o| {
            of(&o.arm, "Microsoft.OperationalInsights/workspaces").is_empty()
                && !of(&o.arm, "Microsoft.Insights/dataCollectionRules").is_empty()
        })
        .count();
    assert!(
        existing > 0,
        "no example or variant joins an existing workspace with GPU monitoring"
    );
    assert_clean(outs.iter().flat_map(dce_problems).collect());
}

// ------------------------------------------------------------------ 7. security type

/// `securityProfile.securityType` is explicit (Trusted Launch by default turns Secure Boot on);
/// `Standard` needs Compute API 2025-11-01+; Trusted Launch under a GPU driver extension keeps
/// Secure Boot off.
fn security_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    // the scale set's VM profile, or the dev box VM's properties with its extension resources
    let vm_driver = of(&o.arm, "Microsoft.Compute/virtualMachines/extensions")
        .iter()
        .any(|x| x["properties"]["publisher"] == "Microsoft.HpcCompute");
    let computes = of(&o.arm, "Microsoft.Compute/virtualMachineScaleSets")
        .into_iter()
        .map(|r| (r, &r["properties"]["virtualMachineProfile"]))
        .chain(
            of(&o.arm, "Microsoft.Compute/virtualMachines")
                .into_iter()
                .map(|r| (r, &r["properties"])),
        );
    for (vmss, vm) in computes {
        let st = vm["securityProfile"]["securityType"].as_str();
        let driver = vm_driver
            || vm["extensionProfile"]["extensions"]
                .as_array()
                .is_some_and(|e| {
                    e.iter()
                        .any(|x| x["properties"]["publisher"] == "Microsoft.HpcCompute")
                });
        match st {
            Some("Standard") => {
                if vmss["apiVersion"].as_str().unwrap_or("") < "2025-11-01" {
                    p.push(format!(
                        "{}: securityType Standard before API 2025-11-01",
                        o.at
                    ));
                }
            }
            Some("TrustedLaunch") => {
                if driver && vm["securityProfile"]["uefiSettings"]["secureBootEnabled"] != false {
                    p.push(format!(
                        "{}: Secure Boot may be on under the GPU driver extension",
                        o.at
                    ));
                }
            }
            other => p.push(format!("{}: securityType {other:?} is not explicit", o.at)),
        }
    }
    p
}

#[test]
fn scale_sets_set_an_explicit_security_type() {
    assert_clean(all().iter().flat_map(security_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let v = resource_mut(o, "Microsoft.Compute/virtualMachineScaleSets");
            v["properties"]["virtualMachineProfile"]["securityProfile"]
                .as_object_mut()
                .unwrap()
                .remove("securityType");
        },
        security_problems,
        "not explicit",
    );
    // the dev box VM (issue 9 item 6)
    caught(
        "dev-notebook-t4.yaml",
        |o| {
            let v = resource_mut(o, "Microsoft.Compute/virtualMachines");
            v["properties"]["securityProfile"]
                .as_object_mut()
                .unwrap()
                .remove("securityType");
        },
        security_problems,
        "not explicit",
    );
}

// ------------------------------------------------------------------ 8. cloud-neutral host names

/// Host-name suffixes of the public and sovereign clouds.
const CLOUD_HOSTS: &[&str] = &[
    "azure.net",
    "windows.net",
    "azure.com",
    "azure.cn",
    "chinacloudapi.cn",
    "usgovcloudapi.net",
    "azure.us",
];

/// The documented exception: the ARM template and parameter file `$schema` URLs.
fn host_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    for (name, text) in &o.files {
        let scan: String = if name.ends_with(".json") {
            let mut v: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(_) => continue,
            };
            if let Some(m) = v.as_object_mut() {
                m.remove("$schema");
            }
            v.to_string()
        } else {
            text.clone()
        };
        // the spec's own resource ids (a platform team's zone `privatelink.vaultcore.azure.net`)
        let scan = o
            .spec_ids
            .iter()
            .fold(scan, |acc, id| acc.replace(id.as_str(), ""));
        for h in CLOUD_HOSTS {
            if scan.contains(h) {
                p.push(format!("{}: {name} names the cloud host {h}", o.at));
            }
        }
    }
    p
}

#[test]
fn no_rendered_string_names_a_cloud_host() {
    assert_clean(all().iter().flat_map(host_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let z = resource_mut(o, "Microsoft.Network/privateDnsZones");
            z["name"] = "privatelink.vaultcore.azure.net".into();
            let text = o.arm.to_string();
            o.files.push(("azuredeploy.json".into(), text));
        },
        host_problems,
        "azure.net",
    );
}

/// Evaluate the ARM expression forms the render uses for DNS zone names in `cloud`:
/// `format(...)`, `replace(...)`, string literals and `environment().suffixes.*`.
fn eval(expr: &str, cloud: Cloud) -> String {
    let e = expr.trim();
    let sfx = cloud.suffixes();
    if let Some(lit) = e.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return lit.replace("''", "'");
    }
    if e == "environment().suffixes.keyvaultDns" {
        return sfx.keyvault_dns.into();
    }
    if e == "environment().suffixes.storage" {
        return sfx.storage.into();
    }
    let (f, rest) = e
        .split_once('(')
        .unwrap_or_else(|| panic!("cannot evaluate {e}"));
    let args = split_args(rest.strip_suffix(')').unwrap());
    let a: Vec<String> = args.iter().map(|x| eval(x, cloud)).collect();
    match f {
        "format" => {
            let mut s = a[0].clone();
            for (i, v) in a[1..].iter().enumerate() {
                s = s.replace(&format!("{{{i}}}"), v);
            }
            s
        }
        "replace" => a[0].replace(&a[1], &a[2]),
        "concat" => a.concat(),
        _ => panic!("cannot evaluate {f}"),
    }
}

fn split_args(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0, false);
    for c in s.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

/// The zone Learn lists per cloud ("Azure Private Endpoint private DNS zone values").
fn expected_zone(group: &str, cloud: Cloud) -> &'static str {
    match (group, cloud) {
        ("vault", Cloud::AzureCloud) => "privatelink.vaultcore.azure.net",
        ("vault", Cloud::AzureChinaCloud) => "privatelink.vaultcore.azure.cn",
        ("vault", Cloud::AzureUSGovernment) => "privatelink.vaultcore.usgovcloudapi.net",
        ("queue", Cloud::AzureCloud) => "privatelink.queue.core.windows.net",
        ("queue", Cloud::AzureChinaCloud) => "privatelink.queue.core.chinacloudapi.cn",
        ("queue", Cloud::AzureUSGovernment) => "privatelink.queue.core.usgovcloudapi.net",
        _ => panic!("no zone for {group}"),
    }
}

/// Each private endpoint's zone resolves to the zone Learn lists, in every cloud; and in the
/// cloud the spec's region belongs to.
#[test]
fn private_dns_zones_resolve_in_every_cloud() {
    let mut seen = std::collections::BTreeSet::new();
    for o in all() {
        let zones = of(&o.arm, "Microsoft.Network/privateDnsZones");
        for pe in of(&o.arm, "Microsoft.Network/privateEndpoints") {
            let group =
                pe["properties"]["privateLinkServiceConnections"][0]["properties"]["groupIds"][0]
                    .as_str()
                    .unwrap()
                    .to_string();
            let region_cloud = Cloud::for_region(&o.region);
            match o.dns_mode {
                // the platform team's zone, by id: it must be the zone of the region's cloud
                DnsZoneMode::Existing => {
                    let name = pe["name"].as_str().unwrap();
                    let id = of(
                        &o.arm,
                        "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
                    )
                    .iter()
                    .find(|g| g["name"].as_str().is_some_and(|n| n.contains(name)))
                    .and_then(|g| {
                        g["properties"]["privateDnsZoneConfigs"][0]["properties"]
                                ["privateDnsZoneId"]
                                .as_str()
                    })
                    .unwrap_or_else(|| panic!("{}: {name} has no zone group", o.at))
                    .to_string();
                    let want = format!(
                        "/providers/Microsoft.Network/privateDnsZones/{}",
                        expected_zone(&group, region_cloud)
                    );
                    assert!(
                        id.to_ascii_lowercase()
                            .ends_with(&want.to_ascii_lowercase()),
                        "{}: {name} points at {id}, not at {want}",
                        o.at
                    );
                    continue;
                }
                // Policy adds the records: nothing to resolve in the template
                DnsZoneMode::Policy => continue,
                DnsZoneMode::Create => {}
            }
            seen.insert((group.clone(), region_cloud.name()));
            let matching: Vec<&&Value> = zones
                .iter()
                .filter(|z| {
                    let n = z["name"].as_str().unwrap();
                    let expr = n.strip_prefix('[').and_then(|x| x.strip_suffix(']'));
                    let expr = expr.unwrap_or_else(|| {
                        panic!(
                            "{}: zone name {n} is a literal, not derived from environment()",
                            o.at
                        )
                    });
                    Cloud::ALL
                        .iter()
                        .all(|c| eval(expr, *c) == expected_zone(&group, *c))
                })
                .collect();
            assert_eq!(matching.len(), 1, "{}: zone of the {group} endpoint", o.at);
        }
    }
    for want in [
        ("vault", "AzureChinaCloud"),
        ("queue", "AzureChinaCloud"),
        ("vault", "AzureUSGovernment"),
        ("vault", "AzureCloud"),
        ("queue", "AzureCloud"),
    ] {
        assert!(
            seen.contains(&(want.0.to_string(), want.1)),
            "no spec renders a {} endpoint in {}",
            want.0,
            want.1
        );
    }
    assert_eq!(
        eval(
            "format('privatelink{0}', replace(environment().suffixes.keyvaultDns, 'vault', 'vaultcore'))",
            Cloud::AzureChinaCloud
        ),
        "privatelink.vaultcore.azure.cn"
    );
}

// ------------------------------------------------------------------ 10. metrics and logs

/// A metric as the source publishes it: Microsoft's "Supported metrics" reference pages
/// (`../shared/azure/metrics.json`, its vendored dated copy `tests/fixtures/sources/metrics.json`
/// when `../shared` is absent), never the code's own table.
struct SourceMetric {
    aggregations: Vec<String>,
    dimensions: Vec<String>,
}

fn source_metric(ns: &str, name: &str) -> Option<SourceMetric> {
    static M: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let m = M.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let shared = root.join("../shared/azure/metrics.json");
        let p = if shared.exists() {
            shared
        } else {
            root.join("tests/fixtures/sources/metrics.json")
        };
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    });
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    m["metrics"].as_array()?.iter().find_map(|r| {
        (r["resourceType"]
            .as_str()
            .is_some_and(|t| t.eq_ignore_ascii_case(ns))
            && r["name"].as_str() == Some(name))
        .then(|| SourceMetric {
            aggregations: strs(&r["aggregations"]),
            dimensions: strs(&r["dimensions"]),
        })
    })
}

/// Every metric alert (and autoscale rule on an Azure Monitor metric) uses a metric, an
/// aggregation and dimensions the supported-metrics source lists ([`source_metric`]).
fn metric_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    // Learn, "Create or edit a metric alert rule": check every 1, 5, 15, 30 minutes or hour;
    // a lookback period of 1 minute to 1 day, at least the frequency.
    const FREQ: &[&str] = &["PT1M", "PT5M", "PT15M", "PT30M", "PT1H"];
    const WINDOW: &[&str] = &[
        "PT1M", "PT5M", "PT15M", "PT30M", "PT1H", "PT6H", "PT12H", "P1D",
    ];
    for al in of(&o.arm, "Microsoft.Insights/metricAlerts") {
        let f = al["properties"]["evaluationFrequency"]
            .as_str()
            .unwrap_or("");
        let w = al["properties"]["windowSize"].as_str().unwrap_or("");
        let (fi, wi) = (
            FREQ.iter().position(|x| *x == f),
            WINDOW.iter().position(|x| *x == w),
        );
        match (fi, wi) {
            (Some(fi), Some(wi)) if wi >= fi => {}
            _ => p.push(format!("{}: alert frequency {f} / window {w}", o.at)),
        }
        for c in al["properties"]["criteria"]["allOf"].as_array().unwrap() {
            let (ns, m, agg) = (
                c["metricNamespace"].as_str().unwrap_or(""),
                c["metricName"].as_str().unwrap_or(""),
                c["timeAggregation"].as_str().unwrap_or(""),
            );
            match source_metric(ns, m) {
                None => p.push(format!("{}: metric {ns}/{m} is not in the source", o.at)),
                Some(e) => {
                    if !e.aggregations.iter().any(|a| a == agg) {
                        p.push(format!("{}: {m} does not list the aggregation {agg}", o.at));
                    }
                    for d in c["dimensions"].as_array().into_iter().flatten() {
                        let d = d["name"].as_str().unwrap_or("");
                        if !e.dimensions.iter().any(|x| x == d) {
                            p.push(format!("{}: {m} has no dimension {d}", o.at));
                        }
                    }
                }
            }
        }
    }
    for a in of(&o.arm, "Microsoft.Insights/autoscaleSettings") {
        for prof in a["properties"]["profiles"].as_array().unwrap() {
            for r in prof["rules"].as_array().into_iter().flatten() {
                let t = &r["metricTrigger"];
                let ns = t["metricNamespace"].as_str().unwrap_or("");
                if ns.is_empty() {
                    continue; // the storage queue's ApproximateMessageCount: autoscale's own
                }
                // an Application Insights custom metric (a serving pool's GPU utilisation, issue
                // 36): in a namespace autoscale reads custom metrics in (the page's note); its
                // name is the collector's (tests/serving_gpu.rs)
                if t["metricResourceUri"]
                    .as_str()
                    .is_some_and(|u| u.contains("Microsoft.Insights/components"))
                {
                    if !app_insights_autoscale_namespaces().iter().any(|n| n == ns) {
                        p.push(format!(
                            "{}: autoscale reads no Application Insights custom metric in {ns}",
                            o.at
                        ));
                    }
                    continue;
                }
                let m = t["metricName"].as_str().unwrap_or("");
                match source_metric(ns, m) {
                    None => p.push(format!(
                        "{}: autoscale metric {ns}/{m} not in the source",
                        o.at
                    )),
                    Some(e) => {
                        let agg = t["timeAggregation"].as_str().unwrap_or("");
                        if !e.aggregations.iter().any(|a| a == agg) {
                            p.push(format!("{}: autoscale {m} with {agg}", o.at));
                        }
                    }
                }
            }
        }
    }
    p
}

/// The namespaces autoscale reads Application Insights custom metrics in, from the note of
/// Learn's autoscale-custom-metric page (tests/fixtures/sources/app-insights.json).
fn app_insights_autoscale_namespaces() -> Vec<String> {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/sources/app-insights.json")).unwrap(),
    )
    .unwrap();
    let note = doc["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "autoscale-namespaces")
        .and_then(|e| e["text"].as_str())
        .unwrap()
        .replace('*', "");
    let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
    note.split("published to ")
        .nth(1)
        .unwrap()
        .split(" namespaces")
        .next()
        .unwrap()
        .split(" and ")
        .map(str::to_string)
        .collect()
}

#[test]
fn metric_alerts_use_documented_metric_aggregation_pairs() {
    assert_clean(all().iter().flat_map(metric_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let al = o.arm["resources"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|r| {
                    r["name"]
                        .as_str()
                        .is_some_and(|n| n.contains("capacity-at-max"))
                })
                .unwrap();
            al["properties"]["criteria"]["allOf"][0]["timeAggregation"] = "Minimum".into();
        },
        metric_problems,
        "does not list the aggregation Minimum",
    );
}

/// The resource type of a `scope` (`Microsoft.KeyVault/vaults/{0}` or a format() of it).
fn scope_type(scope: &str) -> String {
    let path = scope
        .trim_start_matches("[format('")
        .split('\'')
        .next()
        .unwrap();
    let seg: Vec<&str> = path.split('/').collect();
    let mut t = format!("{}/{}", seg[0], seg[1]);
    let mut i = 3;
    while i < seg.len() {
        t.push('/');
        t.push_str(seg[i]);
        i += 2;
    }
    t
}

/// Diagnostic settings name explicit log categories of their resource type, from the table.
fn diagnostic_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    for d in of(&o.arm, "Microsoft.Insights/diagnosticSettings") {
        let ty = scope_type(d["scope"].as_str().unwrap());
        let Some(e) = log_entry(&ty) else {
            p.push(format!("{}: no log table entry for {ty}", o.at));
            continue;
        };
        for l in d["properties"]["logs"].as_array().unwrap() {
            match l["category"].as_str() {
                Some(c) if e.log_categories.contains(&c) => {}
                _ => p.push(format!(
                    "{}: {ty} log setting {l} is not a documented category",
                    o.at
                )),
            }
        }
        for m in d["properties"]["metrics"].as_array().unwrap() {
            let c = m["category"].as_str().unwrap_or("");
            if !e.metric_categories.contains(&c) {
                p.push(format!("{}: {ty} metric category {c}", o.at));
            }
        }
    }
    p
}

#[test]
fn diagnostic_settings_use_documented_log_categories() {
    assert_clean(all().iter().flat_map(diagnostic_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let d = o.arm["resources"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|r| {
                    r["type"] == "Microsoft.Insights/diagnosticSettings"
                        && r["scope"].as_str().unwrap().contains("autoscaleSettings")
                })
                .unwrap();
            d["properties"]["logs"] =
                serde_json::json!([{"categoryGroup": "allLogs", "enabled": true}]);
        },
        diagnostic_problems,
        "not a documented category",
    );
}

// ------------------------------------------------------------------ beyond the list

/// Role assignments: each role only on the one resource type it is meant for (least
/// privilege), at that resource (never a group or subscription), to a service principal.
fn role_problems(o: &Out) -> Vec<String> {
    let allowed = [
        (roles::KEY_VAULT_SECRETS_USER, "Microsoft.KeyVault/vaults"),
        (
            roles::KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER,
            "Microsoft.KeyVault/vaults/keys",
        ),
        (
            roles::SERVICE_BUS_DATA_RECEIVER,
            "Microsoft.ServiceBus/namespaces/queues",
        ),
        (
            roles::STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR,
            "Microsoft.Storage/storageAccounts/queueServices/queues",
        ),
        // GPU monitoring (issue 12): publish through the pool's data collection rule only
        (
            gpuform::plan::gpu_monitoring::MONITORING_METRICS_PUBLISHER,
            "Microsoft.Insights/dataCollectionRules",
        ),
        // a serving pool's GPU scale metric (issue 36): publish to its Application Insights
        // component only (Microsoft Entra authenticated ingestion)
        (
            gpuform::plan::gpu_monitoring::MONITORING_METRICS_PUBLISHER,
            "Microsoft.Insights/components",
        ),
        // the dev box's start workflow: start and read, on the VM only
        (
            gpuform::plan::devbox::POWER_ON_CONTRIBUTOR,
            "Microsoft.Compute/virtualMachines",
        ),
    ];
    let mut p = Vec::new();
    for ra in of(&o.arm, "Microsoft.Authorization/roleAssignments") {
        let scope = ra["scope"].as_str().unwrap_or("");
        let role = ra["properties"]["roleDefinitionId"].as_str().unwrap_or("");
        // the DCR-association policy's identity (Flexible pools, issue 20): the two roles its
        // built-in definition names (roleDefinitionIds), on the resource group it acts in
        let principal = ra["properties"]["principalId"].as_str().unwrap_or("");
        if scope.is_empty()
            && principal.contains("Microsoft.Authorization/policyAssignments")
            && (role.contains(gpuform::facts::roles::MONITORING_CONTRIBUTOR.id)
                || role.contains(gpuform::facts::roles::LOG_ANALYTICS_CONTRIBUTOR.id))
        {
            continue;
        }
        // the Standby Pool resource provider's principal (issue 23), when the spec names it: the
        // roles Microsoft's standby-pools-configure-permissions page lists, on the resource group
        // the pool creates its VMs, NICs and disks in
        let standby = !of(&o.arm, gpuform::facts::standby::RESOURCE_TYPE).is_empty();
        if scope.is_empty()
            && standby
            && gpuform::facts::standby::PROVIDER_ROLES
                .iter()
                .any(|r| role.contains(r.id))
        {
            continue;
        }
        let ty = if scope.is_empty() {
            String::new()
        } else {
            scope_type(scope)
        };
        if !allowed
            .iter()
            .any(|(id, t)| role.contains(id) && t.eq_ignore_ascii_case(&ty))
        {
            p.push(format!("{}: role {role} at scope {scope:?} ({ty})", o.at));
        }
        if ra["properties"]["principalType"] != "ServicePrincipal" {
            p.push(format!("{}: principalType is not ServicePrincipal", o.at));
        }
        if !ra["name"].as_str().unwrap_or("").starts_with("[guid(") {
            p.push(format!("{}: role assignment name is not a guid()", o.at));
        }
    }
    p
}

#[test]
fn role_assignments_are_least_privilege_on_one_resource() {
    assert_clean(all().iter().flat_map(role_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let ra = o.arm["resources"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|r| {
                    r["type"] == "Microsoft.Authorization/roleAssignments"
                        && r["scope"].as_str().unwrap().contains("/queues/")
                })
                .unwrap();
            ra["scope"] = "Microsoft.ServiceBus/namespaces/sb-shortvideo-prod".into();
        },
        role_problems,
        "Microsoft.ServiceBus/namespaces)",
    );
}

/// NSG rules: inbound allows only, never from the Internet, unique priorities in 100-4096,
/// only to the workload subnet.
fn nsg_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    let Some(vnet) = of(&o.arm, "Microsoft.Network/virtualNetworks")
        .first()
        .copied()
    else {
        // a landing-zone spoke: the platform team's NSG applies, gpuform creates none
        if !of(&o.arm, "Microsoft.Network/networkSecurityGroups").is_empty() {
            p.push(format!("{}: an NSG without a VNet of its own", o.at));
        }
        return p;
    };
    let subnets = vnet["properties"]["subnets"].as_array().unwrap();
    for nsg in of(&o.arm, "Microsoft.Network/networkSecurityGroups") {
        // the subnet this NSG is attached to: its rules are scoped to it (the workload
        // subnet's, or a serving gateway's own subnet)
        let name = nsg["name"].as_str().unwrap();
        let subnet = subnets
            .iter()
            .find(|s| {
                s["properties"]["networkSecurityGroup"]["id"]
                    .as_str()
                    .is_some_and(|id| id.contains(&format!("'{name}'")))
            })
            .map(|s| s["properties"]["addressPrefix"].clone())
            .unwrap_or_else(|| subnets[0]["properties"]["addressPrefix"].clone());
        let mut prios = std::collections::BTreeSet::new();
        for r in nsg["properties"]["securityRules"].as_array().unwrap() {
            let pr = &r["properties"];
            let prio = pr["priority"].as_u64().unwrap_or(0);
            if !(100..=4096).contains(&prio) || !prios.insert(prio) {
                p.push(format!(
                    "{}: priority {prio} out of range or repeated",
                    o.at
                ));
            }
            // inbound allows; serving's denies close the model server's ports to the rest of
            // the VNet (they can only take access away)
            let deny_vnet = pr["access"] == "Deny" && pr["sourceAddressPrefix"] == "VirtualNetwork";
            if pr["direction"] != "Inbound" || (pr["access"] != "Allow" && !deny_vnet) {
                p.push(format!(
                    "{}: rule {} is not an inbound allow",
                    o.at, r["name"]
                ));
            }
            let mut sources: Vec<&str> = pr["sourceAddressPrefixes"]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_str()).collect())
                .unwrap_or_default();
            sources.extend(pr["sourceAddressPrefix"].as_str());
            for s in sources {
                if ["*", "Internet", "0.0.0.0/0", "Any", "::/0"]
                    .iter()
                    .any(|x| x.eq_ignore_ascii_case(s))
                {
                    p.push(format!("{}: rule {} allows from {s}", o.at, r["name"]));
                }
            }
            if pr["destinationAddressPrefix"] != subnet {
                p.push(format!(
                    "{}: rule {} is not scoped to the subnet of its NSG",
                    o.at, r["name"]
                ));
            }
        }
    }
    p
}

#[test]
fn nsg_rules_never_open_the_pool_to_the_internet() {
    assert_clean(all().iter().flat_map(nsg_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let nsg = resource_mut(o, "Microsoft.Network/networkSecurityGroups");
            nsg["properties"]["securityRules"][0]["properties"]["sourceAddressPrefix"] =
                "Internet".into();
        },
        nsg_problems,
        "allows from Internet",
    );
}

/// Private endpoints: a DNS zone group pointing at a deployed zone, that zone linked to the
/// VNet without registration, and the group id the target type offers.
fn pe_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    let groups = of(
        &o.arm,
        "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
    );
    let links = of(
        &o.arm,
        "Microsoft.Network/privateDnsZones/virtualNetworkLinks",
    );
    for pe in of(&o.arm, "Microsoft.Network/privateEndpoints") {
        let conn = &pe["properties"]["privateLinkServiceConnections"][0]["properties"];
        let target = conn["privateLinkServiceId"].as_str().unwrap_or("");
        let group = conn["groupIds"][0].as_str().unwrap_or("");
        let ok = (target.contains("Microsoft.KeyVault/vaults") && group == "vault")
            || (target.contains("Microsoft.Storage/storageAccounts") && group == "queue");
        if !ok {
            p.push(format!("{}: group id {group} for {target}", o.at));
        }
        let pe_name = pe["name"].as_str().unwrap();
        if o.dns_mode == DnsZoneMode::Policy {
            // the landing zone's DeployIfNotExists policy adds the zone group
            if groups
                .iter()
                .any(|g| g["name"].as_str().is_some_and(|n| n.contains(pe_name)))
            {
                p.push(format!(
                    "{}: {pe_name} has a zone group, but privateDnsZones.mode is policy",
                    o.at
                ));
            }
            continue;
        }
        if !groups.iter().any(|g| {
            g["name"].as_str().is_some_and(|n| n.contains(pe_name))
                && g["properties"]["privateDnsZoneConfigs"][0]["properties"]["privateDnsZoneId"]
                    .as_str()
                    .is_some_and(|z| z.contains("Microsoft.Network/privateDnsZones"))
        }) {
            p.push(format!("{}: {pe_name} has no DNS zone group", o.at));
        }
    }
    let zones = of(&o.arm, "Microsoft.Network/privateDnsZones");
    if o.dns_mode != DnsZoneMode::Create && !(zones.is_empty() && links.is_empty()) {
        p.push(format!(
            "{}: privateDnsZones.mode is {} but the template creates {} zones and {} VNet links",
            o.at,
            o.dns_mode.as_str(),
            zones.len(),
            links.len()
        ));
    }
    if zones.len() != links.len() {
        p.push(format!(
            "{}: {} zones, {} VNet links",
            o.at,
            zones.len(),
            links.len()
        ));
    }
    for l in links {
        if l["properties"]["registrationEnabled"] != false
            || !l["properties"]["virtualNetwork"]["id"]
                .as_str()
                .is_some_and(|v| v.contains("Microsoft.Network/virtualNetworks"))
        {
            p.push(format!("{}: VNet link {}", o.at, l["name"]));
        }
    }
    p
}

#[test]
fn private_endpoints_have_a_zone_group_and_a_linked_zone() {
    assert_clean(all().iter().flat_map(pe_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            o.arm["resources"]
                .as_array_mut()
                .unwrap()
                .retain(|r| r["type"] != "Microsoft.Network/privateEndpoints/privateDnsZoneGroups")
        },
        pe_problems,
        "no DNS zone group",
    );
    // a spoke whose DNS records Azure Policy creates renders no zone group and no zone
    caught(
        "landing-zone-spoke.yaml",
        |o| {
            let group = serde_json::json!({
                "type": "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
                "name": "[format('{0}/{1}', 'pep-spoke-batch-vault', 'default')]",
            });
            o.arm["resources"].as_array_mut().unwrap().push(group);
        },
        pe_problems,
        "has a zone group, but privateDnsZones.mode is policy",
    );
}

/// Key Vault: RBAC, soft delete, and purge protection wherever a disk encryption set uses a
/// key ("the Key Vault must have soft delete and purge protection", Learn, disk encryption).
fn vault_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    let des = !of(&o.arm, "Microsoft.Compute/diskEncryptionSets").is_empty();
    for v in of(&o.arm, "Microsoft.KeyVault/vaults") {
        let pr = &v["properties"];
        if pr["enableRbacAuthorization"] != true || pr["enableSoftDelete"] != true {
            p.push(format!("{}: vault without RBAC or soft delete", o.at));
        }
        if des && pr["enablePurgeProtection"] != true {
            p.push(format!(
                "{}: a disk encryption set's vault without purge protection",
                o.at
            ));
        }
        if pr["networkAcls"]["defaultAction"] != "Deny" {
            p.push(format!("{}: vault firewall does not deny by default", o.at));
        }
    }
    p
}

#[test]
fn key_vaults_fit_their_keys() {
    assert_clean(all().iter().flat_map(vault_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let v = resource_mut(o, "Microsoft.KeyVault/vaults");
            v["properties"]
                .as_object_mut()
                .unwrap()
                .remove("enablePurgeProtection");
        },
        vault_problems,
        "without purge protection",
    );
}

/// Budgets (Microsoft.Consumption 2024-08-01): every notification has contactEmails (required
/// by the REST description, at most 50), at most 5 notifications, thresholds in (0, 1000].
/// Action groups: a short name of at most 12 characters, location global.
fn governance_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    for b in of(&o.arm, "Microsoft.Consumption/budgets") {
        let n = b["properties"]["notifications"].as_object().unwrap();
        if n.len() > 5 {
            p.push(format!(
                "{}: {} budget notifications (at most 5)",
                o.at,
                n.len()
            ));
        }
        for (k, v) in n {
            // contactEmails is required; at resource-group scope "Must have at least one
            // contact email or contact group" (bicep-types-az, Microsoft.Consumption budgets,
            // Notification); contactGroups are fully qualified action group ids
            let groups = v["contactGroups"].as_array().map_or(0, |g| g.len());
            match v["contactEmails"].as_array() {
                Some(e) if e.len() <= 50 && (!e.is_empty() || groups > 0) => {}
                Some(_) => p.push(format!(
                    "{}: budget notification {k} has no contact email and no contact group",
                    o.at
                )),
                None => p.push(format!(
                    "{}: budget notification {k} without contactEmails (required, at most 50)",
                    o.at
                )),
            }
            for g in v["contactGroups"].as_array().into_iter().flatten() {
                let ok = g.as_str().is_some_and(|g| {
                    g.starts_with("[resourceId(")
                        || g.to_ascii_lowercase()
                            .contains("/providers/microsoft.insights/actiongroups/")
                });
                if !ok {
                    p.push(format!(
                        "{}: budget contact group {g} is not an action group id",
                        o.at
                    ));
                }
            }
            let t = v["threshold"].as_f64().unwrap_or(0.0);
            if !(t > 0.0 && t <= 1000.0) {
                p.push(format!("{}: threshold {t}", o.at));
            }
        }
    }
    for ag in of(&o.arm, "Microsoft.Insights/actionGroups") {
        let sn = ag["properties"]["groupShortName"].as_str().unwrap_or("");
        if sn.is_empty() || sn.chars().count() > 12 || ag["location"] != "global" {
            p.push(format!(
                "{}: action group short name {sn:?} / location",
                o.at
            ));
        }
    }
    p
}

#[test]
fn budgets_and_action_groups_fit_their_rest_contract() {
    assert_clean(all().iter().flat_map(governance_problems).collect());
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            let b = resource_mut(o, "Microsoft.Consumption/budgets");
            for (_, v) in b["properties"]["notifications"].as_object_mut().unwrap() {
                v.as_object_mut().unwrap().remove("contactEmails");
            }
        },
        governance_problems,
        "without contactEmails",
    );
    // landing zones: the platform's action group alone is a contact
    caught(
        "tests/fixtures/render/variants/shared-services.yaml",
        |o| {
            let b = resource_mut(o, "Microsoft.Consumption/budgets");
            for (_, v) in b["properties"]["notifications"].as_object_mut().unwrap() {
                v.as_object_mut().unwrap().remove("contactGroups");
            }
        },
        governance_problems,
        "no contact email and no contact group",
    );
}

/// A budget needs contactEmails (required by Microsoft.Consumption/budgets 2024-08-01 at
/// resource-group scope): a spec with a budget and no alert e-mails is refused, not rendered
/// into a budget Azure rejects (it used to be a warning, rendered with contactRoles only).
#[test]
fn a_budget_without_contact_emails_is_refused_before_render() {
    let path = root().join("tests/fixtures/invalid/budget-no-contacts.yaml");
    let checked = gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
    assert!(
        checked
            .diagnostics
            .iter()
            .any(|d| d.rule == "budget-no-contacts"),
        "{:?}",
        checked.diagnostics
    );
    assert!(checked.has_errors(), "rendered a budget Azure refuses");
    assert!(emit::render(&checked).is_err());
}

// ------------------------------------------------------------------ landing zones (issue 13)

/// A spoke (existing subnet) creates no network of its own: no VNet, subnet, NSG, NAT gateway,
/// public IP or route table; the scale set's (or VM's) subnet is the spec's, by
/// `resourceId(subscription, group, …)`. `outbound: userDefinedRouting` on an own VNet puts a
/// route table on the workload subnet whose default route goes to a virtual appliance, and no
/// NAT gateway.
fn landing_zone_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    const OWN_NETWORK: [&str; 6] = [
        "Microsoft.Network/virtualNetworks",
        "Microsoft.Network/virtualNetworks/subnets",
        "Microsoft.Network/networkSecurityGroups",
        "Microsoft.Network/natGateways",
        "Microsoft.Network/publicIPAddresses",
        "Microsoft.Network/routeTables",
    ];
    let vnets = of(&o.arm, "Microsoft.Network/virtualNetworks");
    if o.existing_subnet {
        for ty in OWN_NETWORK {
            if !of(&o.arm, ty).is_empty() {
                p.push(format!("{}: a spoke creates a {ty}", o.at));
            }
        }
        // every subnet reference (scale set or dev box NIC, private endpoints) is the existing
        // subnet, by subscription, group, VNet and name
        fn subnet_ids<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
            match v {
                Value::Object(m) => {
                    for (k, x) in m {
                        match (k.as_str(), x["id"].as_str()) {
                            ("subnet", Some(id)) => out.push(id),
                            _ => subnet_ids(x, out),
                        }
                    }
                }
                Value::Array(a) => a.iter().for_each(|x| subnet_ids(x, out)),
                _ => {}
            }
        }
        let mut ids = Vec::new();
        subnet_ids(&o.arm["resources"], &mut ids);
        if ids.is_empty() {
            p.push(format!("{}: nothing joins a subnet", o.at));
        }
        for id in ids {
            let args: Vec<&str> = id
                .strip_prefix("[resourceId(")
                .unwrap_or("")
                .split(", ")
                .collect();
            if args.len() != 5 || args[2] != "'Microsoft.Network/virtualNetworks/subnets'" {
                p.push(format!(
                    "{}: the subnet {id} is not an existing subnet by subscription and group",
                    o.at
                ));
            }
        }
    } else if o.outbound == Outbound::UserDefinedRouting {
        let subnet = &vnets[0]["properties"]["subnets"][0]["properties"];
        if subnet.get("natGateway").is_some()
            || !of(&o.arm, "Microsoft.Network/natGateways").is_empty()
        {
            p.push(format!("{}: userDefinedRouting with a NAT gateway", o.at));
        }
        match subnet["routeTable"]["id"].as_str() {
            None => p.push(format!(
                "{}: userDefinedRouting without a route table on the workload subnet",
                o.at
            )),
            Some(id) if id.contains("Microsoft.Network/routeTables") => {
                for rt in of(&o.arm, "Microsoft.Network/routeTables") {
                    let routes = rt["properties"]["routes"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    let default = routes
                        .iter()
                        .find(|r| r["properties"]["addressPrefix"] == "0.0.0.0/0");
                    match default {
                        Some(r)
                            if r["properties"]["nextHopType"] == "VirtualAppliance"
                                && r["properties"]["nextHopIpAddress"]
                                    .as_str()
                                    .is_some_and(|ip| ip.parse::<std::net::Ipv4Addr>().is_ok_and(|a| a.is_private())) => {}
                        _ => p.push(format!("{}: route table {} has no default route to a private virtual appliance", o.at, rt["name"])),
                    }
                }
            }
            Some(id) => p.push(format!("{}: workload subnet's route table {id}", o.at)),
        }
    }
    p
}

#[test]
fn landing_zone_spokes_create_no_network_and_udr_routes_to_the_firewall() {
    let outs = all();
    assert!(outs.iter().any(|o| o.existing_subnet), "no spoke spec");
    assert!(
        outs.iter()
            .any(|o| !o.existing_subnet && o.outbound == Outbound::UserDefinedRouting),
        "no own-VNet UDR spec"
    );
    assert_clean(outs.iter().flat_map(landing_zone_problems).collect());
    caught(
        "landing-zone-spoke.yaml",
        |o| {
            let mut extra =
                serde_json::json!({"type": "Microsoft.Network/natGateways", "name": "ng-x"});
            extra["apiVersion"] = "2025-05-01".into();
            o.arm["resources"].as_array_mut().unwrap().push(extra);
        },
        landing_zone_problems,
        "a spoke creates a Microsoft.Network/natGateways",
    );
    caught(
        "tests/fixtures/render/variants/lz-udr-next-hop.yaml",
        |o| {
            let rt = resource_mut(o, "Microsoft.Network/routeTables");
            rt["properties"]["routes"][0]["properties"]["nextHopType"] = "Internet".into();
        },
        landing_zone_problems,
        "no default route to a private virtual appliance",
    );
}

// ------------------------------------------------------------------ GPU monitoring wiring

/// GPU monitoring (issue 12), scale sets and dev boxes alike: the data collection rule is
/// associated with the compute resource itself (an extension resource scoped to the scale set,
/// or to the dev box VM: Learn, "Microsoft.Insights dataCollectionRuleAssociations"), the Azure
/// Monitor Agent runs on it and signs in with the pool's identity (`mi_res_id`). A VM's
/// extension resources have no `provisionAfterExtensions` (a scale set property): their order is
/// `dependsOn`, the collector after the GPU driver (which may reboot the VM) and the health probe
/// after the collector it probes. A dev box has no automatic repairs (a scale set feature).
fn gpu_wiring_problems(o: &Out) -> Vec<String> {
    let mut p = Vec::new();
    if of(&o.arm, "Microsoft.Insights/dataCollectionRules").is_empty() {
        return p;
    }
    let vmss = of(&o.arm, "Microsoft.Compute/virtualMachineScaleSets");
    let vms = of(&o.arm, "Microsoft.Compute/virtualMachines");
    let (scope, agents): (String, Vec<&Value>) = match (vmss.first(), vms.first()) {
        (Some(s), None) => (
            format!(
                "Microsoft.Compute/virtualMachineScaleSets/{}",
                s["name"].as_str().unwrap()
            ),
            s["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
                .as_array()
                .into_iter()
                .flatten()
                .collect(),
        ),
        (None, Some(v)) => (
            format!(
                "Microsoft.Compute/virtualMachines/{}",
                v["name"].as_str().unwrap()
            ),
            of(&o.arm, "Microsoft.Compute/virtualMachines/extensions"),
        ),
        _ => {
            p.push(format!(
                "{}: GPU monitoring without one compute resource",
                o.at
            ));
            return p;
        }
    };
    let assoc = of(&o.arm, "Microsoft.Insights/dataCollectionRuleAssociations");
    // the Logs Ingestion path (issue 20): the collector posts itself, its custom data carries the
    // DCE's endpoint and the rule's immutable id; no association, policy or agent
    // (tests/gpu_ingestion.rs holds the rest)
    let ingestion = vmss.first().is_some_and(|s| {
        s["properties"]["virtualMachineProfile"]["osProfile"]["customData"]
            .as_str()
            .is_some_and(|c| c.contains("logsIngestion.endpoint") && c.contains("immutableId"))
    });
    if ingestion {
        if !assoc.is_empty()
            || !of(&o.arm, "Microsoft.Authorization/policyAssignments").is_empty()
            || agents.iter().any(|e| {
                e["properties"]["type"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("AzureMonitor"))
            })
            || of(&o.arm, "Microsoft.Insights/dataCollectionEndpoints").len() != 1
        {
            p.push(format!(
                "{}: the Logs Ingestion path has a DCE and no association, policy or agent",
                o.at
            ));
        }
        return p;
    }
    // a Flexible scale set: the built-in DCR-association policy associates each VM (issue 20;
    // tests/gpu_monitoring.rs assert_delivery holds its definition, roles and remediation)
    let flexible = vmss
        .first()
        .is_some_and(|s| s["properties"]["orchestrationMode"] == "Flexible");
    if flexible {
        if !assoc.is_empty() || of(&o.arm, "Microsoft.Authorization/policyAssignments").len() != 1 {
            p.push(format!(
                "{}: a Flexible scale set needs the per-VM association policy, not an association on the scale set",
                o.at
            ));
        }
    } else if assoc.len() != 1 || assoc[0]["scope"] != scope.as_str() {
        p.push(format!(
            "{}: the data collection rule association is not scoped to {scope}: {:?}",
            o.at,
            assoc.iter().map(|a| &a["scope"]).collect::<Vec<_>>()
        ));
    }
    let ama: Vec<&&Value> = agents
        .iter()
        .filter(|e| {
            e["properties"]["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("AzureMonitor"))
        })
        .collect();
    if ama.len() != 1
        || ama[0]["properties"]["settings"]["authentication"]["managedIdentity"]["identifier-name"]
            != "mi_res_id"
    {
        p.push(format!(
            "{}: no Azure Monitor Agent signing in with mi_res_id on {scope}",
            o.at
        ));
    }
    if vms.is_empty() {
        return p;
    }
    // the dev box VM
    let vm = vms[0]["name"].as_str().unwrap();
    let id = |name: &str| {
        format!("[resourceId('Microsoft.Compute/virtualMachines/extensions', '{vm}', '{name}')]")
    };
    let waits = |e: &Value, name: &str| {
        e["dependsOn"]
            .as_array()
            .is_some_and(|d| d.iter().any(|x| x.as_str() == Some(id(name).as_str())))
    };
    let named = |n: &str| {
        agents
            .iter()
            .find(|e| e["name"].as_str() == Some(format!("{vm}/{n}").as_str()))
            .copied()
    };
    let driver = agents
        .iter()
        .find(|e| e["properties"]["publisher"] == "Microsoft.HpcCompute")
        .map(|e| {
            e["name"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        });
    for e in &agents {
        if e["properties"].get("provisionAfterExtensions").is_some() {
            p.push(format!(
                "{}: {} has provisionAfterExtensions, which VM extensions do not take",
                o.at, e["name"]
            ));
        }
    }
    match named("GpuCollector") {
        Some(c) => {
            if let Some(d) = &driver
                && !waits(c, d)
            {
                p.push(format!(
                    "{}: the collector does not wait for the driver {d}",
                    o.at
                ));
            }
        }
        None => p.push(format!("{}: no GpuCollector extension on {vm}", o.at)),
    }
    match named("HealthExtension") {
        Some(h) if !waits(h, "GpuCollector") => p.push(format!(
            "{}: the health probe does not wait for the collector it probes",
            o.at
        )),
        Some(_) => {}
        None => p.push(format!("{}: no health extension on {vm}", o.at)),
    }
    if o.arm.to_string().contains("automaticRepairsPolicy") {
        p.push(format!("{}: a dev box VM has no automatic repairs", o.at));
    }
    p
}

#[test]
fn gpu_monitoring_is_wired_to_the_scale_set_or_the_dev_box_vm() {
    let outs = all();
    // both shapes are covered: scale sets and dev boxes with GPU monitoring
    for ty in [
        "Microsoft.Compute/virtualMachineScaleSets",
        "Microsoft.Compute/virtualMachines",
    ] {
        assert!(
            outs.iter().any(|o| !of(&o.arm, ty).is_empty()
                && !of(&o.arm, "Microsoft.Insights/dataCollectionRules").is_empty()),
            "no output with GPU monitoring on a {ty}"
        );
    }
    assert_clean(outs.iter().flat_map(gpu_wiring_problems).collect());
    caught(
        "dev-notebook-t4.yaml",
        |o| {
            resource_mut(o, "Microsoft.Insights/dataCollectionRuleAssociations")["scope"] =
                "Microsoft.Compute/virtualMachineScaleSets/vmss-dev-notebook".into();
        },
        gpu_wiring_problems,
        "not scoped to Microsoft.Compute/virtualMachines/vm-dev-notebook",
    );
    caught(
        "dev-notebook-t4.yaml",
        |o| {
            for r in o.arm["resources"].as_array_mut().unwrap() {
                if r["name"] == "vm-dev-notebook/GpuCollector" {
                    r["dependsOn"] = serde_json::json!([
                        "[resourceId('Microsoft.Compute/virtualMachines', 'vm-dev-notebook')]"
                    ]);
                }
            }
        },
        gpu_wiring_problems,
        "does not wait for the driver",
    );
    caught(
        "tests/fixtures/render/variants/devbox-windows.yaml",
        |o| {
            for r in o.arm["resources"].as_array_mut().unwrap() {
                if r["name"] == "vm-variant-devbox-windows/HealthExtension" {
                    r["properties"]["provisionAfterExtensions"] =
                        serde_json::json!(["GpuCollector"]);
                }
            }
        },
        gpu_wiring_problems,
        "provisionAfterExtensions",
    );
    // a Uniform scale set's association (a Flexible one has the per-VM policy instead)
    caught(
        "pretrain-nd-h100.yaml",
        |o| {
            resource_mut(o, "Microsoft.Insights/dataCollectionRuleAssociations")["scope"] =
                "Microsoft.Compute/virtualMachines/vm-x".into();
        },
        gpu_wiring_problems,
        "not scoped",
    );
    caught(
        "shortvideo-transcode.yaml",
        |o| {
            o.arm["resources"]
                .as_array_mut()
                .unwrap()
                .retain(|r| r["type"] != "Microsoft.Authorization/policyAssignments");
        },
        gpu_wiring_problems,
        "per-VM association policy",
    );
}

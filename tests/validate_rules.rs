//! Every invalid fixture fails with the rule id and on the line its header announces;
//! every example validates clean.
//!
//! Fixture header lines: `# expect: <rule-id>@<line> (<text the message or help contains>)`;
//! line 0 means "no position" (the file has no YAML to point into).

use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::diag::Severity;
use gpuform::spec::Policy;

struct Expect {
    rule: String,
    line: usize,
    text: Option<String>,
}

fn expectations(path: &Path) -> Vec<Expect> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .map(|e| {
            let (head, text) = match e.split_once(" (") {
                Some((h, t)) => (h, Some(t.trim_end_matches(')').to_string())),
                None => (e.trim(), None),
            };
            let (rule, line) = head.split_once('@').expect("rule@line");
            Expect {
                rule: rule.to_string(),
                line: line.trim().parse().unwrap(),
                text,
            }
        })
        .collect()
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir("tests/fixtures/invalid")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_invalid_fixture_fails_with_its_rule_on_its_line() {
    let policy = Policy::default();
    let mut failures = Vec::new();
    let files = fixtures();
    assert!(
        files.len() >= 30,
        "expected a fixture per rule family, found {}",
        files.len()
    );
    for f in files {
        let expects = expectations(&f);
        assert!(
            !expects.is_empty(),
            "{} has no `# expect:` header",
            f.display()
        );
        let checked = check_file(&f, &policy, PriceTable::embedded());
        for e in &expects {
            let found = checked
                .diagnostics
                .iter()
                .find(|d| d.rule == e.rule && d.location.map_or(0, |l| l.line) == e.line);
            match found {
                None => failures.push(format!(
                    "{}: expected {}@{}, got [{}]",
                    f.display(),
                    e.rule,
                    e.line,
                    checked
                        .diagnostics
                        .iter()
                        .map(|d| format!("{}@{}", d.rule, d.location.map_or(0, |l| l.line)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Some(d) => {
                    if let Some(t) = &e.text {
                        let all = format!(
                            "{} {} {} {}",
                            d.message,
                            d.help.clone().unwrap_or_default(),
                            d.label.clone().unwrap_or_default(),
                            d.notes.join(" ")
                        );
                        if !all.contains(t.as_str()) {
                            failures.push(format!(
                                "{}: {} does not mention `{t}`: {all}",
                                f.display(),
                                e.rule
                            ));
                        }
                    }
                    assert_eq!(d.file, f.display().to_string());
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The warnings an example keeps on purpose, with why: (file, rule).
/// - batch-inference-standby.yaml, standby-provider-roles: the Standby Pool provider's principal
///   differs per tenant, so the example cannot name it; its missing roles are a warning (issue 38).
const EXAMPLE_WARNINGS: &[(&str, &str)] =
    &[("batch-inference-standby.yaml", "standby-provider-roles")];

#[test]
fn every_example_validates_clean() {
    let policy = Policy::default();
    let mut n = 0;
    for entry in std::fs::read_dir("examples").unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "yaml") {
            n += 1;
            let c = check_file(&p, &policy, PriceTable::embedded());
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            let bad: Vec<_> = c
                .diagnostics
                .iter()
                .filter(|d| d.severity >= Severity::Warning)
                .filter(|d| !EXAMPLE_WARNINGS.contains(&(file.as_str(), d.rule.as_str())))
                .collect();
            assert!(bad.is_empty(), "{}: {:#?}", p.display(), bad);
            assert!(c.spec.is_some());
        }
    }
    assert!(n >= 5, "at least five examples");
}

#[test]
fn auto_sizing_resolves_and_explains() {
    let c = check_file(
        Path::new("examples/dev-notebook-t4.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let spec = c.spec.as_ref().unwrap();
    assert_eq!(spec.spec.compute.vm_size, "Standard_NC4as_T4_v3");
    let sel = c.sizing.as_ref().unwrap();
    assert_eq!(sel.chosen, Some("Standard_NC4as_T4_v3"));
    assert_eq!(sel.price_region, "westeurope");
    // every rejected size says why
    assert!(
        sel.candidates
            .iter()
            .filter(|c| c.rejected.is_some())
            .all(|c| !c.rejected.as_ref().unwrap().is_empty())
    );
}

#[test]
fn policy_changes_required_tags_and_severities() {
    let f = Path::new("tests/fixtures/invalid/tag-missing.yaml");
    let p = Policy {
        required_tags: vec!["project".into()],
        ..Policy::default()
    };
    let c = check_file(f, &p, PriceTable::embedded());
    assert!(!c.diagnostics.iter().any(|d| d.rule == "tag-missing"));
    let p = Policy::from_yaml("rules:\n  tag-missing: warning\n").unwrap();
    let c = check_file(f, &p, PriceTable::embedded());
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "tag-missing")
        .unwrap();
    assert_eq!(d.severity, Severity::Warning);
    // silencing the advice to turn encryption at host on keeps the error that it cannot be
    let f = Path::new("tests/fixtures/invalid/encryption-at-host-unsupported.yaml");
    let p = Policy::from_yaml("rules:\n  encryption-at-host-off: off\n").unwrap();
    let c = check_file(f, &p, PriceTable::embedded());
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "encryption-at-host-unsupported" && d.is_error()),
        "{:#?}",
        c.diagnostics
    );
}

/// How many schema defaults a minimal spec `text` resolves as the schema says.
fn defaults_compared(name: &str, text: &str) -> usize {
    let dir = std::env::temp_dir().join(format!("gpuform-defaults-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("minimal.yaml");
    std::fs::write(&f, text).unwrap();
    let c = check_file(&f, &Policy::default(), PriceTable::embedded());
    let resolved = serde_json::to_value(c.spec.as_ref().unwrap()).unwrap();
    let schema = gpuform::spec::schema::schema_json();
    let mut checked = 0;
    walk_defaults(schema, schema, "", &resolved, &mut checked);
    std::fs::remove_dir_all(dir).ok();
    checked
}

#[test]
fn schema_defaults_match_the_model_defaults() {
    // A minimal spec: every default the schema announces must be what the model applies.
    let checked = defaults_compared(
        "minimal",
        "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: minimal}\nspec:\n  region: eastus\n  workload: {type: inference, gpuMemoryGiB: 10}\n  capacity: {max: 2}\n  autoscale: {schedules: []}\n",
    );
    assert!(checked >= 25, "only {checked} defaults compared");
}

#[test]
fn schema_defaults_of_serving_match_the_model_defaults() {
    // the serving block and autoscale.requests with every default left out (issue 36)
    let all = defaults_compared(
        "serving",
        "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: minimal}\nspec:\n  region: eastus\n  workload: {type: inference, gpuMemoryGiB: 10}\n  capacity: {max: 2}\n  serving: {server: vllm}\n  autoscale: {requests: {targetPerInstance: 100}}\n",
    );
    let without = defaults_compared(
        "serving-none",
        "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: minimal}\nspec:\n  region: eastus\n  workload: {type: inference, gpuMemoryGiB: 10}\n  capacity: {max: 2}\n  autoscale: {schedules: []}\n",
    );
    // protocol, frontend kind/privateLink/min/max/delegateSubnet, modelLoadTime,
    // requestTimeout, upgrade mode/maxSurge, richHealthStates, requests.scaleOutAggregation
    // is written only when given (Option): at least the eleven of serving
    assert!(all >= without + 11, "{all} vs {without}");
}

/// Compare each `default` in the schema with the resolved spec at the same place.
fn walk_defaults(
    root: &serde_json::Value,
    node: &serde_json::Value,
    ptr: &str,
    resolved: &serde_json::Value,
    checked: &mut usize,
) {
    let node = match node.get("$ref").and_then(|r| r.as_str()) {
        Some(r) => {
            // keep a sibling default when the $ref target has none
            let target = root.pointer(&r[1..]).unwrap();
            if let Some(d) = node.get("default") {
                compare(ptr, d, resolved, checked);
            }
            target
        }
        None => node,
    };
    if let Some(d) = node.get("default") {
        compare(ptr, d, resolved, checked);
    }
    if let Some(props) = node.get("properties").and_then(|p| p.as_object()) {
        for (k, v) in props {
            walk_defaults(root, v, &format!("{ptr}/{k}"), resolved, checked);
        }
    }
}

fn compare(
    ptr: &str,
    default: &serde_json::Value,
    resolved: &serde_json::Value,
    checked: &mut usize,
) {
    // image: auto resolves to a concrete alias; vmSize: auto to a size (both by design)
    if ptr.ends_with("/image") || ptr.ends_with("/vmSize") || default.is_object() {
        return;
    }
    if let Some(actual) = resolved.pointer(ptr) {
        let same = match (default.as_f64(), actual.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            _ => default == actual,
        };
        assert!(
            same,
            "{ptr}: schema default {default} but the model applied {actual}"
        );
        *checked += 1;
    }
}

/// The dev notebook example with its `network:` block replaced.
fn with_network(network: &str) -> gpuform::spec::Checked {
    let text = std::fs::read_to_string("examples/dev-notebook-t4.yaml").unwrap();
    let start = text.find("  network:\n").unwrap();
    let end = text.find("    inbound:\n").unwrap();
    let text = format!("{}  network:\n{network}{}", &text[..start], &text[end..]);
    gpuform::check::check_source(
        text,
        "net.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

#[test]
fn a_derived_subnet_never_overlaps_the_given_one() {
    for (network, workload, pe) in [
        (
            "    addressSpace: 10.43.0.0/16\n    workloadSubnet: 10.43.0.0/22\n",
            "10.43.0.0/22",
            "10.43.4.0/27",
        ),
        (
            "    addressSpace: 10.43.0.0/16\n    privateEndpointSubnet: 10.43.0.0/27\n",
            "10.43.1.0/24",
            "10.43.0.0/27",
        ),
    ] {
        let c = with_network(network);
        assert!(
            c.diagnostics.iter().all(|d| d.severity < Severity::Error),
            "{:#?}",
            c.diagnostics
        );
        let n = &c.spec.as_ref().unwrap().spec.network;
        assert_eq!(n.workload_subnet.as_deref(), Some(workload));
        assert_eq!(n.private_endpoint_subnet.as_deref(), Some(pe));
    }
}

#[test]
fn auto_sizing_never_picks_a_size_whose_driver_fails() {
    let text = std::fs::read_to_string("examples/dev-notebook-t4.yaml")
        .unwrap()
        .replace("type: training", "type: inference")
        .replace(
            "    vmSize: auto\n",
            "    vmSize: auto\n    image: ubuntu-24.04\n",
        );
    let c = gpuform::check::check_source(
        text,
        "noble.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    assert_ne!(c.size().unwrap().name, "Standard_NC4as_T4_v3");
}

#[test]
fn a_service_bus_namespace_needs_no_private_endpoint_subnet() {
    // Standard-tier Service Bus gets no private endpoint; with a public vault nothing needs one
    let text = std::fs::read_to_string("tests/fixtures/invalid/private-endpoint-subnet-missing.yaml")
        .unwrap()
        .replace(
            "  monitoring:",
            "  autoscale:\n    queue:\n      serviceBus: {namespace: sb-jobs-test, queue: jobs, create: true}\n      targetPerInstance: 10\n  security: {keyVault: {publicNetworkAccess: true}}\n  monitoring:",
        );
    let c = gpuform::check::check_source(
        text,
        "sb.yaml",
        PathBuf::from("tests/fixtures/invalid"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(c.spec.is_some(), "{:#?}", c.diagnostics);
    assert!(
        !c.diagnostics
            .iter()
            .any(|d| d.rule == "private-endpoint-subnet-missing"),
        "{:#?}",
        c.diagnostics
    );
}

/// Rules no fixture in tests/fixtures/invalid can trigger, and where they are covered instead.
const NOT_IN_FIXTURES: &[(&str, &str)] = &[
    (
        "gpu-scaling-needs-serving",
        "a variant edited in place: tests/serving_gpu.rs refused_where_it_cannot_work_with_where_and_why",
    ),
    (
        "gpu-scaling-cloud",
        "a variant edited in place: tests/serving_gpu.rs refused_where_it_cannot_work_with_where_and_why",
    ),
    (
        "gpu-scaling-thresholds",
        "a variant edited in place: tests/serving_gpu.rs refused_where_it_cannot_work_with_where_and_why",
    ),
    (
        "gpu-scaling-flap",
        "a variant edited in place: tests/serving_gpu.rs refused_where_it_cannot_work_with_where_and_why",
    ),
    (
        "gpu-scaling",
        "an info on the valid variant: tests/serving_gpu.rs refused_where_it_cannot_work_with_where_and_why",
    ),
    (
        "standby-provider-scopes",
        "a warning on a landing-zone spec: tests/standby_live.rs validate_prints_the_grants_beyond_the_group_with_their_az_lines",
    ),
    (
        "autoscale-storage-queue-locked",
        "an info on the examples: a_locked_down_storage_queue_is_an_assumption_printed_at_validate below",
    ),
    (
        "io-error",
        "no file to hold it: io_errors_are_diagnostics below",
    ),
    (
        "not-utf8",
        "fixture headers are UTF-8: tests/validate_cli.rs bad_input_never_panics",
    ),
    (
        "file-too-large",
        "a 1 MiB fixture: tests/validate_cli.rs bad_input_never_panics",
    ),
    (
        "autoscale-rule-limit",
        "holds by construction: src/check/rules/tests.rs rendered_profiles_stay_within_the_rule_limit",
    ),
    (
        "size-retiring",
        "no catalog size is retiring today; catalog_has_no_retiring_size below",
    ),
];

#[test]
fn every_rule_has_a_fixture_or_a_reason() {
    let mut covered = std::collections::BTreeSet::new();
    for f in fixtures() {
        for e in expectations(&f) {
            covered.insert(e.rule);
        }
    }
    let mut missing = Vec::new();
    for r in gpuform::diag::RULES {
        let listed = NOT_IN_FIXTURES.iter().any(|(id, _)| *id == r.id);
        match (covered.contains(r.id), listed) {
            (false, false) => missing.push(format!("{}: no fixture and no reason", r.id)),
            (true, true) => missing.push(format!(
                "{}: has a fixture, drop it from NOT_IN_FIXTURES",
                r.id
            )),
            _ => {}
        }
    }
    for (id, _) in NOT_IN_FIXTURES {
        if gpuform::diag::rules::find(id).is_none() {
            missing.push(format!("{id}: not a rule"));
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

#[test]
fn io_errors_are_diagnostics() {
    for path in ["tests/fixtures/no-such-spec.yaml", "tests/fixtures/invalid"] {
        let c = check_file(Path::new(path), &Policy::default(), PriceTable::embedded());
        assert_eq!(c.diagnostics.len(), 1, "{path}");
        assert_eq!(c.diagnostics[0].rule, "io-error", "{path}");
        assert!(c.has_errors());
    }
}

/// When a size becomes retiring, give size-retiring a fixture and drop it from NOT_IN_FIXTURES.
#[test]
fn catalog_has_no_retiring_size() {
    assert!(
        gpuform::catalog::sizes()
            .iter()
            .all(|s| s.status != gpuform::catalog::SizeStatus::Retiring)
    );
}

/// A spec in `region` with `vmSize: auto` (issue 13, sovereign clouds).
fn auto_in(region: &str) -> gpuform::spec::Checked {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("auto.yaml");
    std::fs::write(
        &p,
        format!(
            "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata:\n  name: auto-sovereign\n  tags: {{project: p, team: t, env: prod, costCenter: c}}\nspec:\n  region: {region}\n  compute: {{sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com\"}}\n  workload: {{type: inference, gpuMemoryGiB: 10, precision: fp16}}\n  capacity: {{max: 2}}\n  monitoring: {{alertEmails: [a@example.com]}}\n"
        ),
    )
    .unwrap();
    check_file(&p, &Policy::default(), PriceTable::embedded())
}

#[test]
fn auto_sizing_in_a_sovereign_cloud_picks_only_sizes_its_source_lists() {
    // Azure Government: the T4 sizes are listed in usgovvirginia only (ga4gh-tes, 2024-03-05)
    let c = auto_in("usgovvirginia");
    let spec = c.spec.as_ref().unwrap();
    assert_eq!(spec.spec.compute.vm_size, "Standard_NC4as_T4_v3");
    assert!(
        !c.diagnostics
            .iter()
            .any(|d| d.rule == "size-not-offered-in-cloud")
    );
    // usgovtexas: the list names no GPU size there, so auto finds none and says why
    let c = auto_in("usgovtexas");
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "no-size-fits")
        .expect("no size");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("size-not-offered-in-cloud")),
        "{d:?}"
    );
    // Azure China: no public list, so auto does not guess
    let c = auto_in("chinanorth3");
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "no-size-fits")
        .expect("no size");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("size-availability-unpublished")),
        "{d:?}"
    );
}

#[test]
fn the_cloud_follows_the_region_unless_the_spec_names_it() {
    for (region, cloud) in [
        ("usgovvirginia", gpuform::azure::Cloud::AzureUSGovernment),
        ("chinanorth3", gpuform::azure::Cloud::AzureChinaCloud),
        ("westeurope", gpuform::azure::Cloud::AzureCloud),
    ] {
        let c = auto_in(region);
        let spec = c.spec.as_ref().unwrap();
        assert_eq!(spec.spec.cloud, None);
        assert_eq!(spec.spec.effective_cloud(), cloud, "{region}");
    }
}

#[test]
fn a_locked_down_storage_queue_is_an_assumption_printed_at_validate() {
    let policy = Policy::default();
    let at = |file: &str| {
        check_file(Path::new(file), &policy, PriceTable::embedded())
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == "autoscale-storage-queue-locked")
            .collect::<Vec<_>>()
    };
    // the example's queue lives in an account the template creates without shared keys or
    // public network access: autoscale's special metric there is gpuform's assumption
    let d = at("examples/batch-inference-standby.yaml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].message.starts_with("ASSUMPTION: "), "{}", d[0].message);
    assert!(
        d[0].message.contains("stcatalogaiprod/infer-jobs"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].message.contains("`capacity.min: 0`"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].help
            .as_deref()
            .unwrap()
            .contains("autoscale.queue.serviceBus"),
        "{:?}",
        d[0].help
    );
    assert!(
        d[0].notes
            .iter()
            .any(|n| n.contains("no Microsoft page says")),
        "{:?}",
        d[0].notes
    );
    // a Service Bus queue (the documented path) is not an assumption
    assert!(at("examples/shortvideo-transcode.yaml").is_empty());
}

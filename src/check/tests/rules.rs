//! Tests of the rules on whole specs and plans (`check_file`/`check_source`, `Plan::build`).
//! They live here, not in the rule files, so `check::rules` never imports `check/mod.rs` (which
//! runs the rules): nothing imports this file.

// from check/rules/capacity.rs
use crate::catalog::prices::PriceTable;
use crate::check::check_file;
use crate::plan::Plan;
use crate::spec::Policy;

/// Azure's limit on the rules of one autoscale profile.
const MAX_RULES_PER_PROFILE: usize = 10;

/// A dev box is never scaled in, so deallocation on eviction is what keeps its disks: the
/// rule against deallocated Spot VMs in autoscaled pools does not apply to it.
#[test]
fn a_spot_dev_box_may_deallocate_on_eviction() {
    let text = |max: u32| {
        format!(
            "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {{name: spotbox, tags: {{project: p, team: t, env: dev, costCenter: c}}}}\nspec:\n  region: eastus\n  workload: {{type: batch, gpuMemoryGiB: 10, precision: fp16, interruptible: true}}\n  capacity: {{min: 1, max: {max}, regularPercentAboveBase: 0, evictionPolicy: Deallocate}}\n  compute: {{sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com\"}}\n  monitoring: {{alertEmails: [a@example.com]}}\n  autoShutdown: {{time: \"19:00\", timeZone: UTC}}\n"
        )
    };
    let ids = |max: u32| -> Vec<String> {
        crate::check::check_source(
            text(max),
            "t.yaml",
            std::path::PathBuf::from("."),
            &Policy::default(),
            PriceTable::embedded(),
        )
        .diagnostics
        .iter()
        .map(|d| d.rule.to_string())
        .collect()
    };
    assert!(
        !ids(1).contains(&"spot-eviction-deallocate".to_string()),
        "{:?}",
        ids(1)
    );
    assert!(
        ids(4).contains(&"spot-eviction-deallocate".to_string()),
        "{:?}",
        ids(4)
    );
}

/// `autoscale-rule-limit` holds by construction; this keeps it so.
#[test]
fn rendered_profiles_stay_within_the_rule_limit() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut with_rules = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let checked = check_file(&path, &Policy::default(), PriceTable::embedded());
        let plan = Plan::build(&checked).unwrap();
        if let Some(a) = plan.autoscale {
            assert!(a.rules.len() <= MAX_RULES_PER_PROFILE, "{}", path.display());
            if !a.rules.is_empty() {
                with_rules += 1;
            }
        }
    }
    assert!(with_rules > 0, "no example renders queue rules");
}

//! Issue 23: `simulate --tune` searches the standby pool's size and the policy together.
//!
//! Each case runs the binary on a deterministic trace (written here) against a copy of
//! `examples/batch-inference-standby.yaml` (Standard_NC8as_T4_v3, max 8, a pool of 2).

use assert_cmd::Command;

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("GPUFORM_TODAY", "2026-12-01").env("NO_COLOR", "1");
    c
}

/// A trace of `days` days from Monday 2026-11-02 00:00 UTC with `rate(hour)` jobs per minute,
/// spread evenly (no randomness).
fn trace(dir: &std::path::Path, days: usize, rate: impl Fn(usize) -> f64) -> std::path::PathBuf {
    let mut s = String::from("timestamp,arrivals\n");
    let mut acc = 0.0;
    for m in 0..days * 1440 {
        acc += rate((m / 60) % 24);
        let a = (acc + 1e-9).floor();
        acc -= a;
        s.push_str(&format!(
            "2026-11-{:02}T{:02}:{:02}:00Z,{}\n",
            2 + m / 1440,
            (m / 60) % 24,
            m % 60,
            a as u32
        ));
    }
    let p = dir.join("trace.csv");
    std::fs::write(&p, s).unwrap();
    p
}

fn spec(dir: &std::path::Path, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let text = std::fs::read_to_string("examples/batch-inference-standby.yaml").unwrap();
    let p = dir.join("batch-inference-standby.yaml");
    std::fs::write(&p, edit(text)).unwrap();
    p
}

/// 0.1 jobs a minute, 1.5 from 18:00 to 20:00 UTC, over `days` days.
fn evening_ramp(dir: &std::path::Path, days: usize) -> std::path::PathBuf {
    trace(dir, days, |h| if (18..20).contains(&h) { 1.5 } else { 0.1 })
}

/// `simulate SPEC --trace TRACE --tune --write` (JSON), which must succeed.
fn tune(spec: &std::path::Path, trace: &std::path::Path, wait: &str) -> serde_json::Value {
    tune_with(spec, trace, wait, &[])
}

/// [`tune`] with more arguments (e.g. `--policy FILE`).
fn tune_with(
    spec: &std::path::Path,
    trace: &std::path::Path,
    wait: &str,
    more: &[&std::ffi::OsStr],
) -> serde_json::Value {
    let out = gpuform()
        .arg("simulate")
        .arg(spec)
        .arg("--trace")
        .arg(trace)
        .args(["--job-duration", "PT2M", "--tune", "--wait-p95", wait])
        .args(["--write", "--format", "json"])
        .args(more)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A line of `text` (not a comment) starts with `key`.
fn yaml_key(text: &str, key: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with(key))
}

fn rows(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["poolSearch"]["rows"].as_array().unwrap().clone()
}

#[test]
fn an_evening_ramp_takes_a_pool_where_it_is_cheaper_than_headroom() {
    let dir = tempfile::tempdir().unwrap();
    // without a pool, the evening ramp waits for VMs that take 8 minutes to provision
    let t = evening_ramp(dir.path(), 2);
    let s = spec(dir.path(), |x| x);
    let v = tune(&s, &t, "7m");
    let p = &v["poolSearch"];
    let chosen = p["chosenMaxReady"].as_u64().unwrap();
    assert!(chosen > 0, "a pool pays for itself on a ramp: {p}");
    let rows = rows(&v);
    // one row per size from no pool to the scale set's maximum
    let sizes: Vec<u64> = rows
        .iter()
        .map(|r| r["maxReady"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, (0..=8).collect::<Vec<_>>());
    let row = |m: u64| rows.iter().find(|r| r["maxReady"] == m).unwrap();
    let c = row(chosen);
    assert!(c["meets"].as_bool().unwrap());
    assert!(c["worstP95"].as_f64().unwrap() <= 7.0, "{c}");
    // cheaper than the cheapest policy without a pool (or that one misses the target)
    let none = row(0);
    if none["meets"].as_bool().unwrap() {
        assert!(
            c["monthly"].as_f64().unwrap() < none["monthly"].as_f64().unwrap(),
            "{c} vs {none}"
        );
    }
    // the pool (disks, builds) is counted: the ratio with it is above the one without
    assert!(c["ratioWithStandby"].as_f64().unwrap() > c["ratio"].as_f64().unwrap());
    assert!(c["standbyMonthly"].as_f64().unwrap() > 0.0);
    // the proposal carries the size into the spec, which validates
    assert_eq!(v["standby"]["chosen"]["maxReady"].as_u64(), Some(chosen));
    let written = std::fs::read_to_string(&s).unwrap();
    assert!(
        written.contains(&format!("maxReady: {chosen}")),
        "{written}"
    );
    assert!(
        !yaml_key(&written, "minReady:"),
        "minReady stays at its default"
    );
    gpuform().arg("validate").arg(&s).assert().success();
    // the sensitivity to the assumed start time: 2 and 4 minutes
    let sens = v["standby"]["sensitivity"].as_array().unwrap();
    assert_eq!(sens.len(), 2);
    assert_eq!(sens[0][0], 120);
    assert_eq!(sens[1][0], 240);
    // JSON keys: the existing ones stay, the joint search adds its own
    for k in [
        "candidates",
        "meetingTarget",
        "elapsedMs",
        "before",
        "after",
        "afterPolicy",
        "diff",
        "reason",
        "robust",
        "worstCaseP95",
        "beforeWorstCaseP95",
        "standby",
        "poolSearch",
        "boundRatioWithStandby",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    for k in [
        "rows",
        "chosenMaxReady",
        "largest",
        "limits",
        "policies",
        "runs",
        "elapsedMs",
        "pruning",
    ] {
        assert!(p.get(k).is_some(), "poolSearch.{k}");
    }
    for k in [
        "maxReady",
        "minReady",
        "p95",
        "worstP95",
        "monthly",
        "meets",
        "standbyMonthly",
        "ratio",
        "ratioWithStandby",
        "costOfRobustness",
        "simulated",
        "policy",
    ] {
        assert!(c.get(k).is_some(), "poolSearch.rows[].{k}");
    }
    for k in [
        "startSeconds",
        "startSource",
        "tried",
        "chosen",
        "sensitivity",
    ] {
        assert!(v["standby"].get(k).is_some(), "standby.{k}");
    }
}

#[test]
fn a_flat_load_takes_no_pool_and_the_block_goes() {
    let dir = tempfile::tempdir().unwrap();
    // 0.4 jobs a minute, two minutes each: one VM serves them all, a pool only adds disks
    let t = trace(dir.path(), 2, |_| 0.4);
    let s = spec(dir.path(), |x| x);
    let v = tune(&s, &t, "10m");
    assert_eq!(v["poolSearch"]["chosenMaxReady"].as_u64(), Some(0), "{v}");
    let written = std::fs::read_to_string(&s).unwrap();
    assert!(!yaml_key(&written, "standby:"), "{written}");
    assert!(!yaml_key(&written, "maxReady:"), "{written}");
    // the rest of the autoscale block is still there
    assert!(yaml_key(&written, "scaleOutCooldown:"), "{written}");
    assert!(yaml_key(&written, "network:"), "{written}");
    gpuform().arg("validate").arg(&s).assert().success();
    // the simulated spec after the change has no pool to pay for
    assert!(
        v["after"]["cost"]["standbyMonthly"].is_null(),
        "{}",
        v["after"]["cost"]
    );
}

#[test]
fn pool_sizes_stay_within_azures_vm_limit() {
    let dir = tempfile::tempdir().unwrap();
    // max 999: Azure allows 1,000 VMs between the scale set and its pool, so a pool of 1 at most
    let t = trace(dir.path(), 1, |h| if h == 18 { 2.0 } else { 0.2 });
    let s = spec(dir.path(), |x| {
        x.replace("    max: 8\n", "    max: 999\n")
            .replace("      maxReady: 2\n", "      maxReady: 1\n")
            // room for 1,000 VMs
            .replace("10.44.0.0/24", "10.44.0.0/16")
            .replace("10.44.0.0/26", "10.44.0.0/21")
            .replace("10.44.0.64/27", "10.44.8.0/27")
    });
    gpuform().arg("validate").arg(&s).assert().success();
    let out = gpuform()
        .arg("simulate")
        .arg(&s)
        .arg("--trace")
        .arg(&t)
        .args(["--job-duration", "PT2M", "--tune", "--wait-p95", "10m"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["poolSearch"]["largest"].as_u64(),
        Some(1),
        "{}",
        v["poolSearch"]
    );
    let sizes: Vec<u64> = rows(&v)
        .iter()
        .map(|r| r["maxReady"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, vec![0, 1]);
    assert!(
        v["poolSearch"]["limits"]
            .as_str()
            .unwrap()
            .contains("standby-vm-limit")
    );
}

#[test]
fn a_missing_price_compares_pool_sizes_by_the_vm_hours_billed() {
    let dir = tempfile::tempdir().unwrap();
    // all Spot in westeurope: the sourced price table has no westeurope Spot price, so no size's
    // monthly cost is known (a 100 % Spot pool is Azure's preview: the policy lets it through)
    let t = evening_ramp(dir.path(), 2);
    let s = spec(dir.path(), |x| {
        x.replace(
            "    regularPercentAboveBase: 100\n",
            "    regularPercentAboveBase: 0\n",
        )
        .replace(
            "    jobDuration: PT10M\n",
            "    jobDuration: PT10M\n    interruptible: true\n",
        )
    });
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, "rules:\n  standby-spot: warning\n").unwrap();
    let v = tune_with(&s, &t, "10m", &["--policy".as_ref(), policy.as_os_str()]);
    let rows = rows(&v);
    assert!(
        rows.iter().all(|r| r["monthly"].is_null()),
        "the premise: no price: {rows:?}"
    );
    assert_eq!(v["standby"]["comparedByVmHours"], true, "{}", v["standby"]);
    // before, every size tied at "no price" and the first (no pool) won; now the size with
    // fewer VM-hours does: on this ramp a pool saves the headroom no pool needs
    let chosen = v["poolSearch"]["chosenMaxReady"].as_u64().unwrap();
    let ratio = |m: u64| {
        rows.iter()
            .find(|r| r["maxReady"].as_u64() == Some(m))
            .and_then(|r| r["ratio"].as_f64())
            .unwrap()
    };
    assert!(chosen > 0, "{}", v["poolSearch"]);
    assert!(ratio(chosen) < ratio(0), "{rows:?}");
}

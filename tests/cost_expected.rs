//! The expected cost is a real expectation (issue 24, item 2): a pool that scales from zero with
//! nothing to say how long it runs has an *unknown* expected cost (JSON `totals.expectedKnown:
//! false`), and `--fail-above` is undecided (exit 2) unless the lower bound already exceeds it
//! (exit 1); a load (`--expected-utilization`, `--trace`) makes it known. A pool without
//! autoscale prints one figure per line.

mod common;

use common::{clean_command, examples, texts};

fn cost(spec: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = clean_command()
        .env("GPUFORM_TODAY", "2026-12-01")
        .arg("cost")
        .arg(spec)
        .args(args)
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

#[test]
fn scale_from_zero_without_a_load_is_unknown_and_the_gate_undecided() {
    let spec = examples("llm-finetune-a100.yaml");
    let (code, o, e) = cost(&spec, &["--output", "json"]);
    assert_eq!(code, 0, "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["totals"]["expectedKnown"], false, "{}", v["totals"]);
    assert!(
        v["totals"]["expectedUnknown"]
            .as_str()
            .unwrap()
            .contains("scales from zero")
    );
    assert_eq!(v["budget"]["status"], "undecided", "{}", v["budget"]);
    let floor = v["totals"]["expected"].as_f64().unwrap();

    // the text says unknown, never "(ok)"
    let (_, text, _) = cost(&spec, &[]);
    assert!(text.contains("unknown"), "{text}");
    assert!(!text.contains("(ok)"), "{text}");

    // a limit above the lower bound: undecided, exit 2, and what decides it
    let (code, _, e) = cost(&spec, &["--fail-above", "1000"]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("expected cost is unknown") && e.contains("--trace"),
        "{e}"
    );
    // a limit the lower bound already exceeds: failed, exit 1
    let below = format!("{}", (floor / 2.0).floor());
    let (code, _, e) = cost(&spec, &["--fail-above", &below]);
    assert_eq!(code, 1, "{e}");

    // a load makes it known: half the headroom of 4 H100s is far above $1,000
    let (code, o, e) = cost(
        &spec,
        &[
            "--expected-utilization",
            "50",
            "--fail-above",
            "1000",
            "--output",
            "json",
        ],
    );
    assert_eq!(code, 1, "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["totals"]["expectedKnown"], true);
    assert!(
        v["totals"]["expected"].as_f64().unwrap() > 5_000.0,
        "{}",
        v["totals"]
    );
}

#[test]
fn a_pool_without_autoscale_prints_one_figure() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("fixed.yaml");
    let out = clean_command()
        .current_dir(dir.path())
        .args([
            "init",
            "fixed.yaml",
            "--name",
            "fixedpool",
            "--workload",
            "inference",
            "--vram",
            "12",
            "--region",
            "eastus2",
            "--ssh-public-key",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja a@b",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, o, e) = cost(&spec, &["--output", "json"]);
    assert_eq!(code, 0, "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    let t = &v["totals"];
    assert_eq!(t["low"], t["expected"], "{t}");
    assert_eq!(t["high"], t["expected"], "{t}");
    assert_eq!(t["expectedKnown"], true);
    let (_, text, _) = cost(&spec, &[]);
    assert!(text.contains("monthly  line"), "{text}");
    assert!(!text.contains("low     expected"), "{text}");
    assert!(
        text.contains("one figure: the count does not scale"),
        "{text}"
    );
    // one count, not the capacity's range (the starter writes min 0, max 4, default 1)
    for p in v["profiles"].as_array().unwrap() {
        assert_eq!(p["min"], p["max"], "{p}");
        assert_eq!(p["min"], 1, "{p}");
    }
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("default"))
        .unwrap_or_else(|| panic!("no default profile row: {text}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[2..5], ["1", "1", "1"], "{row}");
}

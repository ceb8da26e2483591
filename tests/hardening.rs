//! Issue 10, items 1–7, through the real binary: files a pull request can name (specs, policies,
//! usages, prices, baselines, cloud-init), what a hostile spec can make gpuform read or print,
//! and specs that validated but would not deploy safely.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        // a FIFO must fail at once; a hang is a failure, not a stuck suite
        .timeout(Duration::from_secs(30));
    c
}

fn mkfifo(p: &Path) {
    assert!(
        std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .unwrap()
            .success()
    );
}

const SHORTVIDEO: &str = "examples/shortvideo-transcode.yaml";

/// A git repository holding `spec.yaml` in `sub/` (a copy of the shortvideo example with
/// `cloudInit` replaced) and `outside.yaml` next to the repository.
fn repo_with_cloud_init(cloud_init: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::create_dir_all(repo.join("cloud-init")).unwrap();
    std::fs::write(
        repo.join("cloud-init/ok.yaml"),
        "#cloud-config\npackages: [ffmpeg]\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("outside.yaml"),
        "#cloud-config\n# AZURE_CLIENT_SECRET=hunter2\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(SHORTVIDEO).unwrap();
    let start = text.find("cloudInit: ").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    let text = format!("{}cloudInit: {cloud_init}{}", &text[..start], &text[end..]);
    let spec = repo.join("sub/spec.yaml");
    std::fs::write(&spec, text).unwrap();
    (d, spec)
}

#[test]
fn cloud_init_is_confined_to_the_specs_repository() {
    // inside the repository (above the spec's directory) is fine
    let (_d, spec) = repo_with_cloud_init("../cloud-init/ok.yaml");
    gpuform().arg("validate").arg(&spec).assert().success();
    for bad in [
        "/proc/self/environ",
        "/etc/passwd",
        "../../outside.yaml",
        "/dev/zero",
    ] {
        let (_d, spec) = repo_with_cloud_init(bad);
        let out = gpuform().arg("validate").arg(&spec).assert().code(1);
        let o = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert!(o.contains("error[cloud-init]"), "{bad}: {o}");
        assert!(
            o.contains("leads outside the spec's repository"),
            "{bad}: {o}"
        );
        // located at the cloudInit value
        assert!(o.contains("spec.yaml:32:16"), "{bad}: {o}");
        // render refuses too, and prints nothing of the file
        let outdir = tempfile::tempdir().unwrap();
        let r = gpuform()
            .arg("render")
            .arg(&spec)
            .arg("-o")
            .arg(outdir.path().join("out"))
            .assert()
            .code(1);
        let all = format!("{:?}", r.get_output());
        assert!(!all.contains("hunter2") && !all.contains("root:x"), "{all}");
    }
    // a symlink inside the repository pointing out of it, and a FIFO
    let (d, spec) = repo_with_cloud_init("link.yaml");
    std::os::unix::fs::symlink(
        d.path().join("outside.yaml"),
        spec.with_file_name("link.yaml"),
    )
    .unwrap();
    gpuform()
        .arg("validate")
        .arg(&spec)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "leads outside the spec's repository",
        ));
    let (_d, spec) = repo_with_cloud_init("pipe.yaml");
    mkfifo(&spec.with_file_name("pipe.yaml"));
    gpuform()
        .arg("validate")
        .arg(&spec)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "is a FIFO (named pipe), not a regular file",
        ));
}

#[test]
fn render_check_never_prints_custom_data() {
    let (_d, spec) = repo_with_cloud_init("../cloud-init/ok.yaml");
    let out = spec.parent().unwrap().join("infra");
    gpuform()
        .arg("render")
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    // the cloud-init file changes: the committed output is stale
    std::fs::write(
        spec.parent().unwrap().join("../cloud-init/ok.yaml"),
        "#cloud-config\nruncmd: [echo TOPSECRET]\n",
    )
    .unwrap();
    let a = gpuform()
        .arg("render")
        .arg(&spec)
        .arg("--check")
        .arg(&out)
        .assert()
        .code(1);
    let o = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    use std::io::Write;
    let _ = std::io::stderr().write_all(o.as_bytes());
    assert!(o.contains("base64 characters, sha256 "), "{o}");
    // neither the old nor the new contents, in any encoding
    for needle in ["I2Nsb3VkLWNvbmZpZw", "TOPSECRET", "ffmpeg"] {
        assert!(!o.contains(needle), "{needle}: {o}");
    }
}

#[test]
fn special_files_are_refused_at_once_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe.yaml");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    // the spec itself, for every command that reads one
    let out = d.path().join("out");
    for cmd in ["validate", "show", "render", "cost"] {
        let mut c = gpuform();
        c.arg(cmd).arg(f);
        if cmd == "render" {
            c.arg("-o").arg(&out);
        }
        let o = c.output().unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(2), "{cmd}: {all}");
        assert!(
            all.contains("FIFO (named pipe), not a spec file"),
            "{cmd}: {all}"
        );
        assert!(!all.contains("panicked"), "{cmd}: {all}");
    }
    // files given with flags
    for args in [
        vec!["validate", "--policy", f, SHORTVIDEO],
        vec!["cost", "--prices", f, SHORTVIDEO],
        vec!["cost", "--baseline", f, SHORTVIDEO],
        vec!["preflight", "--usages", f, SHORTVIDEO],
        vec!["preflight", "--skus", f, SHORTVIDEO],
        // the readers simulate, cost --trace and gpu-report added go through the same reader
        vec![
            "simulate",
            SHORTVIDEO,
            "--trace",
            f,
            "--job-duration",
            "PT2M",
        ],
        vec!["cost", SHORTVIDEO, "--trace", f, "--job-duration", "PT2M"],
        vec!["gpu-report", SHORTVIDEO, "--export", f],
    ] {
        gpuform()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "FIFO (named pipe), not a regular file",
            ));
    }
    // /dev/zero directly, and as a symlink named x.yaml inside a directory given to validate
    gpuform()
        .args(["validate", "/dev/zero"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("not a spec file"));
    let dir = d.path().join("specs");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("x.yaml")).unwrap();
    std::fs::copy(SHORTVIDEO, dir.join("ok.yaml")).unwrap();
    std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
    std::fs::copy(
        "examples/cloud-init/transcode.yaml",
        dir.join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    gpuform()
        .arg("validate")
        .arg(&dir)
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "x.yaml: it is a device, not a spec file",
        ))
        .stdout(predicate::str::contains("ok "));
}

#[test]
fn a_spec_with_a_byte_order_mark_validates_and_show_re_validates() {
    let d = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir("examples").unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("yaml") {
            continue;
        }
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend(std::fs::read(&p).unwrap());
        // in examples/ so the relative cloudInit resolves
        let bom = PathBuf::from("examples").join(format!(
            ".bom-{}-{}",
            std::process::id(),
            p.file_name().unwrap().to_str().unwrap()
        ));
        std::fs::write(&bom, &bytes).unwrap();
        let shown = gpuform().arg("show").arg(&bom).assert().success();
        let _ = std::fs::remove_file(&bom);
        let text = shown.get_output().stdout.clone();
        assert!(!text.starts_with(b"\xef\xbb\xbf"));
        let again = d.path().join(p.file_name().unwrap());
        std::fs::write(&again, &text).unwrap();
        // re-validates clean (cloudInit aside, which is relative to examples/)
        let o = gpuform().arg("validate").arg(&again).output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.lines()
                .filter(|l| l.starts_with("error["))
                .all(|l| l.starts_with("error[cloud-init]")),
            "{}: {out}",
            p.display()
        );
    }
    // a value with a byte-order mark and C1 controls inside: show escapes them
    let text = std::fs::read_to_string("examples/dev-notebook-t4.yaml")
        .unwrap()
        .replacen(
            "  name: ",
            "  description: \"a\\uFEFFb\\u0085c\"\n  name: ",
            1,
        );
    let spec = d.path().join("desc.yaml");
    std::fs::write(&spec, text).unwrap();
    let shown = gpuform().arg("show").arg(&spec).assert().success();
    let out = String::from_utf8(shown.get_output().stdout.clone()).unwrap();
    assert!(out.contains("\"a\\uFEFFb\\u0085c\""), "{out}");
    let again = d.path().join("again.yaml");
    std::fs::write(&again, out).unwrap();
    gpuform().arg("validate").arg(&again).assert().success();
}

fn cost_json(args: &[&str]) -> (i32, String, String) {
    let o = gpuform().arg("cost").args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn prices_and_baselines_from_others_are_checked() {
    let d = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("tests/fixtures/cost/prices-westeurope-nv.json").unwrap();
    for bad in ["1e308", "1e7", "-5"] {
        let p = d.path().join("p.json");
        std::fs::write(
            &p,
            good.replacen(
                "\"retailPrice\": 1.18",
                &format!("\"retailPrice\": {bad}"),
                1,
            ),
        )
        .unwrap();
        let (code, o, e) = cost_json(&[
            "examples/windows-viz-nv.yaml",
            "--prices",
            p.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(code, 2, "{bad}: {o}{e}");
        assert!(e.contains("is not a plausible price"), "{bad}: {e}");
        assert!(o.is_empty(), "{o}");
    }
    // a byte-order mark is accepted by every JSON reader
    let p = d.path().join("bom.json");
    std::fs::write(&p, format!("\u{feff}{good}")).unwrap();
    let (code, base, e) = cost_json(&[
        "examples/windows-viz-nv.yaml",
        "--prices",
        p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{e}");
    let b = d.path().join("baseline.json");
    std::fs::write(&b, format!("\u{feff}{base}")).unwrap();
    let (code, _, e) = cost_json(&[
        "examples/windows-viz-nv.yaml",
        "--baseline",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{e}");
    // a baseline with an amount no estimate has
    let v: serde_json::Value = serde_json::from_str(&base).unwrap();
    let mut v = v;
    v["totals"] = serde_json::json!({"monthly": {"expected": 1e300}});
    std::fs::write(&b, v.to_string()).unwrap();
    let (code, _, e) = cost_json(&[
        "examples/windows-viz-nv.yaml",
        "--baseline",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("/totals/monthly/expected"), "{e}");
}

#[test]
fn offline_usages_refuse_negative_huge_and_conflicting_values() {
    let good =
        std::fs::read_to_string("tests/fixtures/preflight/az-vm-list-usage-eastus2.json").unwrap();
    let d = tempfile::tempdir().unwrap();
    let cases = [
        (
            good.replacen("\"currentValue\": \"9\"", "\"currentValue\": \"-9\"", 1),
            "is negative",
        ),
        (
            good.replacen("\"limit\": \"100\"", "\"limit\": 99999999999999999999", 1),
            "i64::MAX",
        ),
        (
            {
                // the regional vCPU entry again, with another limit (first-wins would pick one)
                let dup = "  {\n    \"currentValue\": \"9\",\n    \"limit\": \"5000\",\n    \"name\": {\"value\": \"cores\"}\n  },\n";
                good.replacen("[\n", &format!("[\n{dup}"), 1)
            },
            "both give the quota `cores`",
        ),
    ];
    for (text, why) in cases {
        assert_ne!(text, good);
        let p = d.path().join("u.json");
        std::fs::write(&p, text).unwrap();
        gpuform()
            .args(["preflight", SHORTVIDEO, "--usages"])
            .arg(&p)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is not a usage list: item"))
            .stderr(predicate::str::contains(why));
    }
}

fn validate_text(text: &str) -> (i32, String) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.yaml");
    std::fs::write(&p, text).unwrap();
    let o = gpuform().arg("validate").arg(&p).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
    )
}

#[test]
fn accepted_but_insecure_or_undeployable_specs_are_refused() {
    let base = std::fs::read_to_string("examples/windows-viz-nv.yaml").unwrap();
    // the Internet in two halves, and public space in /8 pieces
    for sources in [
        "[0.0.0.0/1, 128.0.0.0/1]",
        "[20.0.0.0/9, 20.128.0.0/9]",
        "[1.0.0.0/8]",
    ] {
        let t = base.replacen("sources: [10.80.0.0/16]", &format!("sources: {sources}"), 1);
        let (code, o) = validate_text(&t);
        assert_eq!(code, 1, "{sources}: {o}");
        assert!(
            o.contains("error[inbound-from-internet]") && o.contains("public addresses"),
            "{sources}: {o}"
        );
    }
    let t = base.replacen(
        "sources: [10.80.0.0/16]",
        "sources: [20.0.0.0/9, 203.0.113.0/24]",
        1,
    );
    assert_eq!(validate_text(&t).0, 0);
    // address spaces Azure refuses
    for space in [
        "224.0.0.0/4",
        "127.0.0.0/16",
        "169.254.0.0/16",
        "0.0.0.0/0",
        "240.0.0.0/8",
    ] {
        let t = base.replacen(
            "addressSpace: 10.44.0.0/16",
            &format!("addressSpace: {space}"),
            1,
        );
        let (code, o) = validate_text(&t);
        assert_eq!(code, 1, "{space}: {o}");
        assert!(
            o.contains("error[cidr-invalid]") && o.contains("Azure refuses"),
            "{space}: {o}"
        );
    }
    // spotMaxPricePerHour: -1 or above 0
    let spot = std::fs::read_to_string("tests/fixtures/cost/spot-mix.yaml").unwrap();
    assert!(spot.contains("regularPercentAboveBase: 50}"));
    for price in ["0", "-0.5"] {
        let t = spot.replacen(
            "regularPercentAboveBase: 50}",
            &format!("regularPercentAboveBase: 50, spotMaxPricePerHour: {price}}}"),
            1,
        );
        let (code, o) = validate_text(&t);
        assert_eq!(code, 1, "{price}: {o}");
        assert!(o.contains("spotMaxPricePerHour"), "{price}: {o}");
    }
    for price in ["-1", "0.5"] {
        let t = spot.replacen(
            "regularPercentAboveBase: 50}",
            &format!("regularPercentAboveBase: 50, spotMaxPricePerHour: {price}}}"),
            1,
        );
        assert_ne!(validate_text(&t).0, 1, "{price}");
    }
}

#[test]
fn a_budget_without_emails_renders_without_notifications() {
    let text = std::fs::read_to_string("examples/windows-viz-nv.yaml")
        .unwrap()
        .replacen("    alertEmails: [eng-it@example.com]\n", "", 1);
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("s.yaml");
    std::fs::write(&spec, text).unwrap();
    // an error by default (main's choice: Azure refuses such a notification) ...
    gpuform()
        .arg("validate")
        .arg(&spec)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error[budget-no-contacts]"));
    // ... and where a policy downgrades it, what renders is still deployable: no notifications
    let policy = d.path().join("policy.yaml");
    std::fs::write(&policy, "rules:\n  budget-no-contacts: warning\n").unwrap();
    gpuform()
        .arg("validate")
        .arg("--policy")
        .arg(&policy)
        .arg(&spec)
        .assert()
        .success()
        .stdout(predicate::str::contains("warning[budget-no-contacts]"))
        .stdout(predicate::str::contains("rendered without notifications"));
    let out = d.path().join("out");
    gpuform()
        .arg("render")
        .arg("--policy")
        .arg(&policy)
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let bicep = std::fs::read_to_string(out.join("main.bicep")).unwrap();
    let arm = std::fs::read_to_string(out.join("azuredeploy.json")).unwrap();
    let budget = &bicep[bicep.find("Microsoft.Consumption/budgets").unwrap()..];
    let budget = &budget[..budget.find("\n}\n").unwrap()];
    assert!(!budget.contains("notifications"), "{budget}");
    let v: serde_json::Value = serde_json::from_str(&arm).unwrap();
    let b = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Consumption/budgets")
        .unwrap();
    assert!(b["properties"].get("notifications").is_none(), "{b}");
    for t in [&bicep, &arm] {
        assert!(!t.contains("contactRoles"));
    }
}

//! Validate passes only what Azure takes (issue 39, item 5): on the Logs Ingestion path the
//! template replaces gpuform's placeholders in the whole custom data; a cloud-init file holding
//! them would change and grow at deployment, past Azure's limit on custom data
//! (`tests/fixtures/sources/custom-data-limit.md`), after validate and render said yes. Now the
//! file may not hold them there, and validate and render measure the custom data as Azure
//! receives it, agreeing to the byte.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const ENDPOINT: &str = "@@GPUFORM_INGEST_ENDPOINT@@";

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// Azure's limit, from the dated copy of the source (not from gpuform's constant).
fn azure_limit() -> usize {
    let text = std::fs::read_to_string("tests/fixtures/sources/custom-data-limit.md").unwrap();
    let at = text.find("maximum length of the binary array is ").unwrap();
    text[at..]
        .split_whitespace()
        .nth(7)
        .unwrap()
        .parse()
        .unwrap()
}

/// The shortvideo example with `monitoring.gpu.delivery` and a cloud-init file of `#cloud-config`
/// then `body`; the spec's path.
fn spec(dir: &Path, delivery: &str, body: &str) -> PathBuf {
    let text = std::fs::read_to_string("examples/shortvideo-transcode.yaml")
        .unwrap()
        .replace(
            "  monitoring:\n    logRetentionDays: 30\n",
            &format!(
                "  monitoring:\n    logRetentionDays: 30\n    gpu: {{delivery: {delivery}}}\n"
            ),
        );
    std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
    std::fs::write(
        dir.join("cloud-init/transcode.yaml"),
        format!("#cloud-config\n{body}"),
    )
    .unwrap();
    let p = dir.join("pool.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn validate(spec: &Path) -> (bool, String) {
    let out = gpuform().arg("validate").arg(spec).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Render; the custom data (decoded) and the template's substitution, if it rendered.
fn render(spec: &Path, dir: &Path) -> Option<(Vec<u8>, bool)> {
    let out_dir = dir.join("out");
    let out = gpuform()
        .arg("render")
        .arg(spec)
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    if !out.status.success() {
        return None;
    }
    let arm: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("azuredeploy.json")).unwrap())
            .unwrap();
    let b64 = arm["variables"]["customData"].as_str().unwrap();
    let bytes = decode(b64);
    let replaced = std::fs::read_to_string(out_dir.join("azuredeploy.json"))
        .unwrap()
        .contains(&format!("'{ENDPOINT}', reference("));
    Some((bytes, replaced))
}

fn decode(b64: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let mut out = Vec::new();
    for chunk in b64.trim_end_matches('=').as_bytes().chunks(4) {
        let v: Vec<u8> = chunk.iter().map(|c| val(*c)).collect();
        out.push((v[0] << 2) | (v.get(1).unwrap_or(&0) >> 4));
        if v.len() > 2 {
            out.push((v[1] << 4) | (v[2] >> 2));
        }
        if v.len() > 3 {
            out.push((v[2] << 6) | v[3]);
        }
    }
    out
}

/// What Azure receives: the template's substitutions made with the longest values they can take
/// (an endpoint URL of 120 characters, `dcr-` and 32 hex digits, a GUID).
fn received(custom: &[u8]) -> usize {
    String::from_utf8_lossy(custom)
        .replace(ENDPOINT, &"e".repeat(120))
        .replace("@@GPUFORM_INGEST_DCR@@", &"d".repeat(36))
        .replace("@@GPUFORM_INGEST_CLIENT_ID@@", &"c".repeat(36))
        .len()
}

#[test]
fn placeholders_in_the_users_file_are_refused_on_the_ingestion_path_only() {
    // the file: a note repeating the endpoint placeholder 900 times (31 KB, which the
    // deployment would turn into ~135 KB; the 1,000 no longer fit beside the collector,
    // which grew with GPU-utilisation scaling)
    let body = format!(
        "write_files:\n  - path: /etc/notes\n    content: |\n{}",
        format!("      {ENDPOINT}\n").repeat(900)
    );
    let dir = tempfile::tempdir().unwrap();
    let s = spec(dir.path(), "ingestion", &body);
    let (ok, out) = validate(&s);
    assert!(!ok, "{out}");
    assert!(
        out.contains("error[cloud-init]") && out.contains("contains gpuform's placeholder"),
        "{out}"
    );
    assert!(render(&s, dir.path()).is_none(), "render wrote it");
    // through the agent nothing is replaced: the text is the user's, and stays as written
    let dir = tempfile::tempdir().unwrap();
    let s = spec(dir.path(), "agent", &body);
    assert!(validate(&s).0);
    let (custom, replaced) = render(&s, dir.path()).unwrap();
    assert!(!replaced);
    assert_eq!(
        String::from_utf8_lossy(&custom).matches(ENDPOINT).count(),
        900
    );
}

#[test]
fn validate_and_render_measure_what_azure_receives_and_agree_at_the_limit() {
    let limit = azure_limit();
    for delivery in ["ingestion", "agent"] {
        // the collector's share, from a small file
        let dir = tempfile::tempdir().unwrap();
        let s = spec(dir.path(), delivery, "# x\n");
        let (small, _) = render(&s, dir.path()).unwrap();
        let overhead = received(&small) - "#cloud-config\n# x\n".len();
        // the largest file Azure still takes with the collector, as Azure receives it
        let fits = limit - overhead;
        for user_len in [fits, fits + 1] {
            let filler = user_len - "#cloud-config\n".len() - "# \n".len();
            let body = format!("# {}\n", "x".repeat(filler));
            let dir = tempfile::tempdir().unwrap();
            let s = spec(dir.path(), delivery, &body);
            let (ok, out) = validate(&s);
            let rendered = render(&s, dir.path());
            assert_eq!(
                ok,
                rendered.is_some(),
                "{delivery} {user_len}: validate and render disagree\n{out}"
            );
            if user_len == fits {
                assert!(ok, "{delivery}: a file Azure takes was refused\n{out}");
                assert_eq!(received(&rendered.unwrap().0), limit, "{delivery}");
            } else {
                assert!(!ok, "{delivery}: a file Azure refuses passed");
                assert!(out.contains("as Azure receives them"), "{out}");
            }
        }
    }
}

//! Messages that pointed the wrong way (issue 24, item 7).

mod common;

use common::{clean_command, examples, texts};

fn run(args: &[&str], path: Option<&str>) -> (i32, String, String) {
    let mut c = clean_command();
    if let Some(p) = path {
        c.env("PATH", p);
    }
    let out = c.args(args).output().unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

#[test]
fn auth_cli_without_az_says_az_is_missing() {
    let spec = examples("shortvideo-transcode.yaml");
    let (code, _, e) = run(
        &["preflight", spec.to_str().unwrap(), "--auth", "cli"],
        Some("/nonexistent"),
    );
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("`az`) is not on PATH"), "{e}");
    assert!(!e.contains("no default subscription"), "{e}");
}

#[test]
fn a_missing_tag_reads_as_a_sentence_and_inference_is_not_told_to_distribute() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.yaml");
    std::fs::write(
        &p,
        "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: serve, tags: {project: a}}\nspec:\n  region: eastus\n  workload: {type: inference, gpuMemoryGiB: 2000, precision: fp16}\n  compute: {vmSize: auto, sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja a@b\"}\n  capacity: {min: 1, max: 2}\n",
    )
    .unwrap();
    let (_, o, _) = run(
        &["validate", p.to_str().unwrap(), "--required-tags", "owner"],
        None,
    );
    assert!(o.contains("required tag `owner` is missing"), "{o}");
    assert!(o.contains("no-size-fits"), "{o}");
    assert!(!o.contains("distributed training"), "{o}");
}

const OK_SPEC: &str = "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: serve, tags: {project: a, team: b, env: prod, costCenter: c}}\nspec:\n  region: eastus\n  workload: {type: inference, gpuMemoryGiB: 12, precision: fp16}\n  compute: {vmSize: auto, sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja a@b\"}\n  capacity: {min: 1, max: 2}\n";

fn validate_text(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.yaml");
    std::fs::write(&p, text).unwrap();
    let (code, o, _) = run(&["validate", p.to_str().unwrap()], None);
    (code, o)
}

#[test]
fn a_region_as_the_portal_spells_it_gets_a_did_you_mean() {
    let (code, o) = validate_text(&OK_SPEC.replace("region: eastus", "region: West Europe"));
    assert_eq!(code, 1, "{o}");
    assert!(o.contains("did you mean `westeurope`?"), "{o}");
    // the typo still gets its own
    let (_, o) = validate_text(&OK_SPEC.replace("region: eastus", "region: westeuorpe"));
    assert!(o.contains("did you mean `westeurope`?"), "{o}");
}

#[test]
fn a_wrong_kind_is_a_wrong_value_not_an_unsupported_version() {
    let (code, o) = validate_text(&OK_SPEC.replace("kind: GpuWorkload", "kind: GpuWorkloads"));
    assert_eq!(code, 1, "{o}");
    assert!(!o.contains("unsupported-version"), "{o}");
    assert!(
        o.contains("invalid-value") && o.contains("GpuWorkload"),
        "{o}"
    );
    // a wrong apiVersion still is one
    let (_, o) = validate_text(&OK_SPEC.replace("gpuform/v1", "gpuform/v2"));
    assert!(o.contains("unsupported-version"), "{o}");
}

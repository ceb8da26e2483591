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

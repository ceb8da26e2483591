//! Hostile and careless input, second round (issue 26), through the real binary: the gaps between
//! `validate` and the stages after it, and what the human output echoes.

use std::path::PathBuf;

use assert_cmd::Command;

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1").env_remove("CLICOLOR_FORCE");
    c
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpuform-h2-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn example_value(file: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap();
    gpuform::spec::yaml::parse(&text).unwrap().value
}

#[test]
fn validate_dir_checks_json_style_specs() {
    // a spec written as JSON (valid YAML, which render reads): min 5 > max 1, SSH open to the world
    let mut v = example_value("examples/llm-finetune-a100.yaml");
    v["spec"]["capacity"]["min"] = 5.into();
    v["spec"]["capacity"]["max"] = 1.into();
    let dir = tmp("json-spec");
    std::fs::write(
        dir.join("pool.yaml"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    // and a pipeline file, which is still skipped
    std::fs::write(
        dir.join("ci.yml"),
        "trigger: [main]\nsteps: [{script: make}]\n",
    )
    .unwrap();
    let out = gpuform()
        .args(["validate", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stdout}\n{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("validated 1 spec: 1 error"), "{all}");
    assert!(all.contains("(1 YAML file skipped: not specs)"), "{all}");
    assert!(all.contains("skipped") && all.contains("ci.yml"), "{all}");
    assert!(all.contains("error[capacity-order]"), "{all}");
}

#[test]
fn a_private_key_pasted_as_ssh_public_key_is_not_printed() {
    let body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";
    let text = std::fs::read_to_string("examples/llm-finetune-a100.yaml").unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("sshPublicKey:"))
        .unwrap();
    let dir = tmp("private-key");
    for (name, value) in [
        (
            "quoted.yaml",
            format!(
                "sshPublicKey: \"-----BEGIN OPENSSH PRIVATE KEY-----\\n{body}\\n-----END OPENSSH PRIVATE KEY-----\\n\""
            ),
        ),
        (
            "block.yaml",
            format!(
                "sshPublicKey: |\n      -----BEGIN OPENSSH PRIVATE KEY-----\n      {body}\n      -----END OPENSSH PRIVATE KEY-----"
            ),
        ),
    ] {
        let spec = text.replace(line.trim_start(), &value);
        let f = dir.join(name);
        std::fs::write(&f, spec).unwrap();
        for format in ["human", "json", "sarif"] {
            let out = gpuform()
                .args(["validate", f.to_str().unwrap(), "--format", format])
                .output()
                .unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!out.status.success(), "{name} {format}: {all}");
            assert!(all.contains("private key"), "{name} {format}: {all}");
            assert!(
                !all.contains(&body[..16]),
                "{name} {format} prints the key: {all}"
            );
        }
    }
}

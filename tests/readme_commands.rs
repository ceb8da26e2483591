//! Every `gpuform` command in the ```sh blocks of README.md and of every `docs/src/*.md` (the
//! book, including chapters SUMMARY.md does not list yet) that needs no Azure runs as pasted and
//! exits as the page says (issue 24, item 5; issue 37, item 8). A metavariable (`SPEC`, `specs/`,
//! `spec.yaml`) stands for the bundled transcoding example. A command is skipped only for a
//! reason this test names: it talks to Azure (or reads a file only Azure produces), downloads,
//! or builds. `deploy ... --what-if` (without `--fail-on-delete`) runs against the fake ARM of
//! tests/common: the README's tour goes from `init` to `deploy --what-if`.
//!
//! The commands of one file run in order, in one temporary directory with `examples/` beside
//! them and a `HOME` holding `~/.ssh/id_ed25519.pub`, through `sh -c` with the built binary first
//! on PATH (pipes and redirections as pasted). Files run concurrently, each in its own directory.
//! `GPUFORM_TEST_SHOW=1` prints every command's output.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{FakeArm, FakeAzure, SUB};
use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, ResponseTemplate};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every chapter of the book, by path relative to the repository.
fn doc_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    let mut chapters: Vec<String> = std::fs::read_dir(root().join("docs/src"))
        .expect("the book's chapters in docs/src")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "SUMMARY.md")
        .map(|n| format!("docs/src/{n}"))
        .collect();
    chapters.sort();
    files.extend(chapters);
    files
}

/// The shell commands of a Markdown text, continuation lines joined, with their trailing comment.
fn commands_in(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_block = !in_block && matches!(t, "```sh" | "```bash" | "```shell");
            continue;
        }
        if !in_block || t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        let full = format!("{pending}{line}");
        pending.clear();
        // a trailing comment: `  # ...` outside quotes (the pages align them)
        let (cmd, comment) = match full.find("  # ") {
            Some(i) => (
                full[..i].trim().to_string(),
                full[i + 4..].trim().to_string(),
            ),
            None => (full.trim().to_string(), String::new()),
        };
        out.push((cmd, comment));
    }
    out
}

fn commands(file: &str) -> Vec<(String, String)> {
    commands_in(&std::fs::read_to_string(root().join(file)).unwrap())
}

/// A `deploy --what-if` the test runs against the fake ARM (it changes nothing; the fake answers
/// what preflight and what-if ask).
fn runs_against_the_fake(words: &[&str]) -> bool {
    words.get(1) == Some(&"deploy")
        && (words.contains(&"--what-if") || words.contains(&"--dry-run"))
        && !words.contains(&"--fail-on-delete")
}

/// Why a command cannot run here, or `None`.
fn skip(cmd: &str) -> Option<&'static str> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let first = words.first().copied().unwrap_or_default();
    if first == "az" || cmd.contains("curl ") {
        return Some("Azure CLI or a download");
    }
    if first == "cargo" || cmd.contains("cargo build") {
        return Some("builds the project (the test suite itself)");
    }
    if first.starts_with("V=") || first == "sha256sum" || first == "tar" {
        return Some("the prebuilt archive (a download)");
    }
    if first != "gpuform" {
        return Some("not a gpuform command");
    }
    let sub = words.get(1).copied().unwrap_or_default();
    if runs_against_the_fake(&words) {
        return None;
    }
    if matches!(sub, "deploy" | "status" | "destroy" | "quota") {
        return Some("talks to Azure");
    }
    if sub == "preflight" && !cmd.contains("--usages") {
        return Some("talks to Azure (live preflight)");
    }
    if sub == "simulate" && (words.contains(&"-g") || words.contains(&"--resource-group")) {
        return Some("talks to Azure (reads the queue's metrics)");
    }
    if cmd.contains("--refresh-prices") {
        return Some("the Azure Retail Prices API");
    }
    // inputs only Azure (or an earlier run in CI) produces
    for f in [
        "metrics.json",
        "gpu.json",
        "vram.json",
        "arrivals.csv",
        "retail-prices.json",
        "main-cost.json",
        "main.json",
        "policy.yaml",
    ] {
        if words.contains(&f) {
            return Some("reads a file Azure (or an earlier pipeline run) produces");
        }
    }
    None
}

fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures/preflight")
        .join(name)
        .display()
        .to_string()
}

/// A public key in `HOME/.ssh/id_ed25519.pub`, as on the machine of someone taking the tour.
const PUBLIC_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";

fn prepare(dir: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("examples"), dir.join("examples")).unwrap();
    #[cfg(not(unix))]
    panic!("the docs test needs symlinks");
    let ssh = dir.join("home/.ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519.pub"), format!("{PUBLIC_KEY}\n")).unwrap();
}

/// What one file's commands did.
#[derive(Default)]
struct Outcome {
    ran: usize,
    skipped: usize,
    simulated: usize,
    against_the_fake: usize,
    failures: Vec<String>,
}

/// The fake ARM a file's `deploy --what-if` lines talk to: a healthy subscription in the regions
/// the examples use, the group `-g` names, and a what-if that creates every resource of the
/// spec's template.
fn fake_for(spec: &Path, group: &str, bin: &Path) -> FakeAzure {
    let fake = FakeArm::new()
        .subscription(&[
            ("eastus2", 1000),
            ("westus3", 1000),
            ("southcentralus", 1000),
            ("eastus", 1000),
            ("centralus", 1000),
        ])
        .resource_group(group, "eastus2")
        .start();
    let out = tempfile::tempdir().unwrap();
    let rendered = Command::new(bin)
        .arg("render")
        .arg(spec)
        .arg("-o")
        .arg(out.path().join("r"))
        .output()
        .unwrap();
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let template: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("r/azuredeploy.json")).unwrap())
            .unwrap();
    let changes: Vec<Value> = template["resources"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let ty = r["type"].as_str().unwrap_or("Microsoft.Unknown/things");
            let name = r["name"]
                .as_str()
                .filter(|n| !n.starts_with('['))
                .map(str::to_string)
                .unwrap_or_else(|| format!("resource-{i}"));
            json!({
                "resourceId": format!("/subscriptions/{SUB}/resourceGroups/{group}/providers/{ty}/{name}"),
                "changeType": "Create",
                "after": {"apiVersion": r["apiVersion"], "name": name}
            })
        })
        .collect();
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(
                r"/providers/Microsoft\.Resources/deployments/[^/]+/whatIf$",
            ))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(
                    json!({"status": "Succeeded", "properties": {"changes": changes}}),
                ),
            ),
    );
    fake
}

fn run_file(file: &str, bin: &Path) -> Outcome {
    let mut outcome = Outcome::default();
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let home = dir.path().join("home");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let summary = dir.path().join("step-summary.md");
    for (cmd, comment) in commands(file) {
        if skip(&cmd).is_some() {
            outcome.skipped += 1;
            continue;
        }
        let mut pasted = cmd
            .replace("specs/dev.yaml", "examples/shortvideo-transcode.yaml")
            .replace("specs/", "examples/")
            .replace("SPEC", "examples/shortvideo-transcode.yaml")
            .replace(" spec.yaml", " examples/shortvideo-transcode.yaml")
            // what the pages' `az vm list-usage` / `az vm list-skus` lines write, recorded
            .replace(
                " usage.json",
                &format!(" {}", fixture("az-vm-list-usage-eastus2.json")),
            )
            .replace(
                " skus.json",
                &format!(" {}", fixture("az-vm-list-skus-eastus2-all.json")),
            );
        // "exit N" in the comment is the code the page promises; --check right after a render is
        // up to date (0)
        let want = match comment.strip_prefix("exit ") {
            Some(rest) if !cmd.contains("--check") => rest[..1].parse::<i32>().unwrap_or(0),
            _ => 0,
        };
        // a simulation whose comment states its p95 is run for JSON and held to that figure
        let claimed = claimed_p95(&cmd, &comment);
        if claimed.is_some() {
            pasted.push_str(" --output json");
        }
        let mut sh = Command::new("sh");
        sh.arg("-c").current_dir(dir.path());
        let words: Vec<String> = pasted.split_whitespace().map(str::to_string).collect();
        let fake = if runs_against_the_fake(&words.iter().map(String::as_str).collect::<Vec<_>>()) {
            let group = words
                .iter()
                .position(|w| w == "-g" || w == "--resource-group")
                .and_then(|i| words.get(i + 1))
                .expect("a deploy line names its group")
                .clone();
            let fake = fake_for(&dir.path().join(&words[2]), &group, bin);
            fake.set_env(&mut sh);
            pasted.push_str(&format!(
                " --arm-endpoint {}/ --retry-delay-ms 50",
                fake.base
            ));
            outcome.against_the_fake += 1;
            Some(fake)
        } else {
            sh.env_remove("AZURE_CLIENT_ID")
                .env_remove("AZURE_SUBSCRIPTION_ID");
            None
        };
        let out = sh
            .arg(&pasted)
            .env("PATH", &path)
            .env("HOME", &home)
            .env("NO_COLOR", "1")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        drop(fake);
        if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
            let _ = writeln!(
                std::io::stderr(),
                "---- {file}: {pasted} (exit {:?})\n{}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        outcome.ran += 1;
        if let Some(p95) = claimed {
            outcome.simulated += 1;
            if let Err(e) = check_claimed_p95(&cmd, p95, &out.stdout) {
                outcome.failures.push(format!("{file}: `{cmd}`: {e}"));
            }
        }
        let code = out.status.code().unwrap_or(-1);
        if code != want {
            outcome.failures.push(format!(
                "{file}: `{cmd}` exited {code} (the page: {want})\n{}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    outcome
}

#[test]
fn every_command_of_the_readme_and_the_book_that_needs_no_azure_runs_as_pasted() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_gpuform"));
    let files = doc_files();
    let outcomes: Vec<(String, Outcome)> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|f| {
                let bin = &bin;
                (f.clone(), s.spawn(move || run_file(f, bin)))
            })
            .collect();
        handles
            .into_iter()
            .map(|(f, h)| (f, h.join().expect("a file's run panicked")))
            .collect()
    });
    let ran: usize = outcomes.iter().map(|(_, o)| o.ran).sum();
    let skipped: usize = outcomes.iter().map(|(_, o)| o.skipped).sum();
    let simulated: usize = outcomes.iter().map(|(_, o)| o.simulated).sum();
    let failures: Vec<&String> = outcomes.iter().flat_map(|(_, o)| &o.failures).collect();
    assert!(
        ran >= 15,
        "only {ran} commands of the README and the book ran ({skipped} skipped)"
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // the simulate chapter's example states its figures (issue 24: they were not what it printed)
    assert!(
        simulated >= 2,
        "the simulate chapter's example and its --tune line state their p95 ({simulated} found)"
    );
    // the tour ends with a what-if against the fake
    let readme = &outcomes.iter().find(|(f, _)| f == "README.md").unwrap().1;
    assert!(
        readme.against_the_fake >= 1,
        "the README's tour runs no deploy --what-if"
    );
}

/// `p95 N min` at the start of a simulate command's comment (`as shipped: p95 58 min, ...`,
/// `tuned: p95 9 min ...`).
fn claimed_p95(cmd: &str, comment: &str) -> Option<f64> {
    if !cmd.starts_with("gpuform simulate") || !cmd.contains("--synthetic") {
        return None;
    }
    let i = comment.find("p95 ")? + 4;
    let rest = &comment[i..];
    let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    rest[n.len()..]
        .starts_with(" min")
        .then(|| n.parse().ok())
        .flatten()
}

/// What the page claims against what the command printed (JSON): the p95 it states; for
/// `--tune --wait-p95 T`, that the proposal meets T and that the chart the simulate chapter shows
/// below the commands is that proposal's.
fn check_claimed_p95(cmd: &str, claimed: f64, stdout: &[u8]) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_slice(stdout).map_err(|e| format!("no JSON on stdout ({e})"))?;
    let tuned = cmd.contains("--tune");
    let results = if tuned { &v["after"] } else { &v };
    let p95 = results["waitMinutes"]["p95"]
        .as_f64()
        .ok_or("no waitMinutes.p95 in the output")?;
    if p95.round() != claimed {
        return Err(format!(
            "the page says p95 {claimed} min, the command prints {p95}"
        ));
    }
    if tuned {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let target = words
            .iter()
            .position(|w| *w == "--wait-p95")
            .and_then(|i| words.get(i + 1))
            .and_then(|t| t.strip_suffix('m'))
            .and_then(|t| t.parse::<f64>().ok())
            .ok_or("a --tune line names --wait-p95 Nm")?;
        let worst = v["worstCaseP95"].as_f64().unwrap_or(f64::INFINITY);
        if p95 > target || worst > target {
            return Err(format!(
                "the proposal misses the page's target of {target} min (p95 {p95}, worst case {worst})"
            ));
        }
        let svg =
            std::fs::read_to_string(root().join("examples/simulate/shortvideo-transcode.svg"))
                .map_err(|e| e.to_string())?;
        if !svg.contains(&format!("p95 wait {claimed} min,")) {
            return Err(format!(
                "the simulate chapter's chart is not the tuned policy's (its title does not say p95 wait {claimed} min)"
            ));
        }
    }
    Ok(())
}

#[test]
fn the_skipped_commands_are_the_azure_ones() {
    // the reasons above are not a way to hide a broken command: every skip is one of them, and
    // every offline command family of the README and the book runs
    let all: Vec<(String, String)> = doc_files().iter().flat_map(|f| commands(f)).collect();
    let ran: Vec<&String> = all
        .iter()
        .filter(|(c, _)| skip(c).is_none())
        .map(|(c, _)| c)
        .collect();
    for family in [
        "gpuform validate",
        "gpuform render",
        "gpuform cost",
        "gpuform simulate",
        "gpuform preflight",
        "gpuform --version",
        "gpuform deploy",
    ] {
        assert!(
            ran.iter().any(|c| c.starts_with(family)),
            "no `{family}` command of the README or the book runs: {ran:?}"
        );
    }
}

#[test]
fn the_readme_tour_goes_from_init_to_deploy_what_if() {
    // issue 37, item 8: the front page's tour, in order, every step run by the test above
    let readme: Vec<String> = commands("README.md")
        .into_iter()
        .map(|(c, _)| c)
        .filter(|c| skip(c).is_none() && c.starts_with("gpuform "))
        .collect();
    let steps = [
        "gpuform init ",
        "gpuform validate ",
        "gpuform render ",
        "gpuform cost ",
        "gpuform simulate ",
        "gpuform preflight ",
        "gpuform deploy ",
    ];
    let mut at = 0;
    for step in steps {
        let found = readme[at..]
            .iter()
            .position(|c| c.starts_with(step))
            .unwrap_or_else(|| panic!("the tour has no `{step}` after step {at}: {readme:?}"));
        at += found + 1;
    }
    let tune = readme
        .iter()
        .find(|c| c.starts_with("gpuform simulate "))
        .unwrap();
    assert!(tune.contains("--tune"), "{tune}");
    let what_if = readme.last().unwrap();
    assert!(what_if.contains("--what-if"), "{what_if}");
    // the front page stays a front page
    let lines = std::fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move reference into docs/src/"
    );
}

#[test]
fn a_chapter_that_summary_does_not_list_is_still_run() {
    // other branches add docs/src/<topic>.md: the test picks them up without an edit here
    let files = doc_files();
    let on_disk = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            let n = n.to_string_lossy();
            n.ends_with(".md") && n != "SUMMARY.md"
        })
        .count();
    assert_eq!(files.len(), on_disk + 1, "{files:?}");
    assert_eq!(files[0], "README.md");
}

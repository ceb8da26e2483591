//! The GitHub Action (`action.yml`) and the Azure Pipelines template
//! (`ci/azure-pipelines/gpuform.yml`) dry-run here (issue 37, item 7): their shell steps run as
//! the runner runs them (inputs through the environment, the runner's variables and files), in
//! a temporary "infrastructure repository" that is not this one, against a release archive and
//! its `.sha256` laid out as `.github/workflows/release.yml` publishes them (served from a
//! `file://` release URL) and holding the real gpuform binary; a fake `cargo` stands in for the
//! build from the tag. `act` needs Docker, which these machines do not run. That both files pass
//! their schemas (GitHub action metadata, Azure Pipelines) is `.ci/pipelines`' job.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const VERSION: &str = "v9.9.9";
const REPO: &str = "OWNER/gpuform";
const TARGET: &str = "x86_64-unknown-linux-gnu";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    gpuform::spec::yaml::parse(&text)
        .unwrap_or_else(|d| panic!("{path} is not valid YAML: {}", d.message))
        .value
}

/// A shell step: its script, its environment (expressions unresolved), its working directory.
struct Step {
    script: String,
    env: BTreeMap<String, String>,
    working_dir: Option<String>,
}

fn steps_of(doc: &Value, list: &Value, key: &str) -> Vec<Step> {
    let _ = doc;
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|s| {
            let script = s[key].as_str()?.to_string();
            let env = s["env"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| {
                            let v = match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            };
                            (k.clone(), v)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let working_dir = s["working-directory"]
                .as_str()
                .or(s["workingDirectory"].as_str())
                .map(str::to_string);
            Some(Step {
                script,
                env,
                working_dir,
            })
        })
        .collect()
}

/// `${{ a.b }}` in `text` resolved from `values` (an unknown expression is a test failure).
fn resolve(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").expect("closed expression") + i;
        let expr = rest[i + 3..end].trim();
        let v = values
            .get(expr)
            .unwrap_or_else(|| panic!("the test has no value for `{expr}`"));
        out.push_str(v);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The release as the release workflow publishes it, holding the real binary.
fn release(dir: &Path, version: &str) -> PathBuf {
    let base = dir.join(format!("{REPO}/releases/download/{version}"));
    let name = format!("gpuform-{version}-{TARGET}");
    let stage = base.join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_gpuform"), stage.join("gpuform")).unwrap();
    std::fs::write(stage.join("README.md"), "gpuform\n").unwrap();
    let ok = Command::new("tar")
        .args(["-czf", &format!("{name}.tar.gz"), &name])
        .current_dir(&base)
        .status()
        .unwrap();
    assert!(ok.success());
    let sum = Command::new("sha256sum")
        .arg(format!("{name}.tar.gz"))
        .current_dir(&base)
        .output()
        .unwrap();
    assert!(sum.status.success());
    std::fs::write(base.join(format!("{name}.tar.gz.sha256")), &sum.stdout).unwrap();
    std::fs::remove_dir_all(&stage).unwrap();
    base.join(format!("{name}.tar.gz"))
}

/// An infrastructure repository with one spec among other YAML, not gpuform's checkout.
fn consumer(dir: &Path) -> PathBuf {
    let repo = dir.join("infra-repo");
    std::fs::create_dir_all(repo.join("infra/pools")).unwrap();
    std::fs::create_dir_all(repo.join(".github/workflows")).unwrap();
    std::fs::copy(
        root().join("examples/dev-notebook-t4.yaml"),
        repo.join("infra/pools/notebook.yaml"),
    )
    .unwrap();
    std::fs::write(
        repo.join(".github/workflows/ci.yml"),
        "name: ci\non: push\njobs: {}\n",
    )
    .unwrap();
    repo
}

/// A fake `cargo` that records its arguments and "builds" gpuform into `--root`.
fn fake_cargo(bin: &Path) {
    std::fs::create_dir_all(bin).unwrap();
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> \"{log}\"\nroot=\"\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\nmkdir -p \"$root/bin\" && cp \"{real}\" \"$root/bin/gpuform\"\n",
        log = bin.join("cargo.log").display(),
        real = env!("CARGO_BIN_EXE_gpuform")
    );
    let path = bin.join("cargo");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run one step as the runner would: `bash` with the step's environment (resolved), the
/// runner's variables, PATH = `path_dirs` + the system's.
fn run_step(
    step: &Step,
    values: &BTreeMap<String, String>,
    runner: &[(&str, String)],
    cwd: &Path,
    path_dirs: &[PathBuf],
) -> Run {
    assert!(
        !step.script.contains("${{"),
        "a script splices an expression into its text (inputs go through env):\n{}",
        step.script
    );
    let mut c = Command::new("bash");
    c.arg("-c").arg(&step.script).env_clear();
    let mut path: Vec<PathBuf> = path_dirs.to_vec();
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    c.env("PATH", std::env::join_paths(path).unwrap());
    c.env("HOME", cwd);
    for (k, v) in &step.env {
        c.env(k, resolve(v, values));
    }
    for (k, v) in runner {
        c.env(k, v);
    }
    let dir = match &step.working_dir {
        Some(w) => cwd.join(resolve(w, values)),
        None => cwd.to_path_buf(),
    };
    let out = c.current_dir(dir).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

// ---- the GitHub Action ---------------------------------------------------------------------

struct Gh {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    repo: PathBuf,
    releases: PathBuf,
    steps: Vec<Step>,
    defaults: BTreeMap<String, String>,
}

impl Gh {
    fn new() -> Gh {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let releases = dir.join("releases");
        release(&releases, VERSION);
        let repo = consumer(&dir);
        let action = load("action.yml");
        let steps = steps_of(&action, &action["runs"]["steps"], "run");
        let mut defaults = BTreeMap::new();
        for (k, v) in action["inputs"].as_object().unwrap() {
            defaults.insert(
                format!("inputs.{k}"),
                v["default"].as_str().unwrap_or_default().to_string(),
            );
        }
        defaults.insert("github.action_ref".into(), VERSION.into());
        defaults.insert("github.action_repository".into(), REPO.into());
        defaults.insert(
            "inputs.release-url".into(),
            format!("file://{}", releases.display()),
        );
        Gh {
            _tmp: tmp,
            dir,
            repo,
            releases,
            steps,
            defaults,
        }
    }

    fn runner(&self) -> Vec<(&'static str, String)> {
        let f = |n: &str| self.dir.join(n).display().to_string();
        vec![
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_ARCH", "X64".into()),
            ("RUNNER_TEMP", f("runner-temp")),
            ("GITHUB_PATH", f("github-path")),
            ("GITHUB_OUTPUT", f("github-output")),
            ("GITHUB_STEP_SUMMARY", f("step-summary.md")),
            ("CI", "true".into()),
        ]
    }

    fn with(&self, overrides: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut v = self.defaults.clone();
        for (k, val) in overrides {
            v.insert(k.to_string(), val.to_string());
        }
        v
    }

    fn install(&self, overrides: &[(&str, &str)], path: &[PathBuf]) -> Run {
        std::fs::create_dir_all(self.dir.join("runner-temp")).unwrap();
        run_step(
            &self.steps[0],
            &self.with(overrides),
            &self.runner(),
            &self.repo,
            path,
        )
    }

    /// The run step with what the install step put on GITHUB_PATH.
    fn run(&self, overrides: &[(&str, &str)]) -> Run {
        let path: Vec<PathBuf> = self
            .read("github-path")
            .lines()
            .map(PathBuf::from)
            .collect();
        assert!(!path.is_empty(), "install first");
        run_step(
            &self.steps[1],
            &self.with(overrides),
            &self.runner(),
            &self.repo,
            &path,
        )
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

#[test]
fn the_action_installs_the_pinned_release_archive_after_checking_it() {
    let gh = Gh::new();
    let r = gh.install(&[], &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("gpuform "), "--version ran: {}", r.stdout);
    let bin = gh.read("github-path");
    assert!(
        bin.trim().ends_with(&format!("gpuform-{VERSION}/bin")),
        "{bin}"
    );
    assert!(Path::new(bin.trim()).join("gpuform").is_file());
    assert!(
        gh.read("github-output")
            .contains(&format!("version={VERSION}"))
    );
    // a pinned checksum that matches
    let archive = gh.releases.join(format!(
        "{REPO}/releases/download/{VERSION}/gpuform-{VERSION}-{TARGET}.tar.gz"
    ));
    let sum = Command::new("sha256sum").arg(&archive).output().unwrap();
    let sum = String::from_utf8_lossy(&sum.stdout);
    let sum = sum.split_whitespace().next().unwrap();
    let r = gh.install(&[("inputs.sha256", sum)], &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // one that does not: nothing installed, an annotation says why
    let r = gh.install(&[("inputs.sha256", &"0".repeat(64))], &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("::error title=gpuform install::") && r.stdout.contains("not the pinned"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_tampered_archive_is_refused() {
    let gh = Gh::new();
    let archive = gh.releases.join(format!(
        "{REPO}/releases/download/{VERSION}/gpuform-{VERSION}-{TARGET}.tar.gz"
    ));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.push(0);
    std::fs::write(&archive, bytes).unwrap();
    let r = gh.install(&[], &[]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("does not match its published SHA-256"),
        "{}",
        r.stdout
    );
    assert!(gh.read("github-path").is_empty(), "nothing put on PATH");
}

#[test]
fn without_an_archive_the_action_builds_the_tag_or_says_why_not() {
    let gh = Gh::new();
    let tools = gh.dir.join("tools");
    fake_cargo(&tools);
    let r = gh.install(&[("github.action_ref", "v9.9.8")], &[tools.clone()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("::notice title=gpuform install::no release archive")
    );
    let log = std::fs::read_to_string(tools.join("cargo.log")).unwrap();
    assert!(
        log.contains(&format!(
            "install --locked --git file://{}/{REPO} --tag v9.9.8 gpuform --root",
            gh.releases.display()
        )),
        "{log}"
    );
    let r = gh.install(
        &[
            ("github.action_ref", "v9.9.8"),
            ("inputs.build-from-source", "false"),
        ],
        &[tools],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("build-from-source is off"),
        "{}",
        r.stdout
    );
    // a branch is not a release: pin the action to a tag
    let r = gh.install(&[("github.action_ref", "main")], &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("is not a gpuform release tag"),
        "{}",
        r.stdout
    );
}

#[test]
fn the_action_validates_prices_and_gates_a_repository_that_is_not_gpuforms() {
    let gh = Gh::new();
    assert_eq!(gh.install(&[], &[]).code, 0);
    // the defaults: validate and cost of every spec below `.`; the workflow file is skipped
    let r = gh.run(&[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("::error"), "{}", r.stdout);
    let summary = gh.read("step-summary.md");
    assert!(summary.contains("### gpuform validate"), "{summary}");
    assert!(summary.contains("infra/pools/notebook.yaml"), "{summary}");
    assert!(
        summary.contains("dev-notebook"),
        "the cost table: {summary}"
    );
    assert!(!summary.contains("ci.yml"), "{summary}");
    // the budget gate: an annotation names the spec, the step fails
    let r = gh.run(&[("inputs.specs", "infra/**/*.yaml"), ("inputs.budget", "1")]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "::error title=gpuform cost::infra/pools/notebook.yaml: the budget gate failed (budget 1"
        ),
        "{}",
        r.stdout
    );
    let r = gh.run(&[
        ("inputs.specs", "infra/**/*.yaml"),
        ("inputs.budget", "1000000"),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

#[test]
fn findings_are_annotations_without_advanced_security_and_sarif_only_when_asked() {
    let gh = Gh::new();
    assert_eq!(gh.install(&[], &[]).code, 0);
    let spec = gh.repo.join("infra/pools/notebook.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(
        &spec,
        text.replacen(
            "  region: westeurope",
            "  region: westeurope\n  regoin: westeurope",
            1,
        ),
    )
    .unwrap();
    let r = gh.run(&[("inputs.commands", "validate")]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("::error file=infra/pools/notebook.yaml,line="),
        "gpuform's own annotations: {}",
        r.stdout
    );
    assert!(
        r.stdout.contains("::error title=gpuform validate::"),
        "{}",
        r.stdout
    );
    assert!(!gh.read("github-output").contains("sarif-file"));
    let r = gh.run(&[("inputs.commands", "validate"), ("inputs.sarif", "true")]);
    assert_eq!(r.code, 1);
    let out = gh.read("github-output");
    let sarif = out
        .lines()
        .find_map(|l| l.strip_prefix("sarif-file="))
        .expect("the SARIF file is an output");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(sarif).unwrap()).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    // the upload step runs only then
    let action = load("action.yml");
    let upload = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload step");
    assert!(
        upload["if"]
            .as_str()
            .unwrap()
            .contains("inputs.sarif == 'true'")
    );
}

#[test]
fn the_actions_own_messages_are_escaped_workflow_commands() {
    let gh = Gh::new();
    assert_eq!(gh.install(&[], &[]).code, 0);
    // a pattern that matches nothing, with the characters a workflow command must escape
    let r = gh.run(&[("inputs.specs", "no%such/*.yaml")]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    let line = r.stdout.lines().find(|l| l.starts_with("::error")).unwrap();
    assert!(line.contains("'no%25such/*.yaml'"), "{line}");
    // an unknown command and a render check without its directory
    let r = gh.run(&[("inputs.commands", "validate,render-check,frobnicate")]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("::error title=gpuform render::render-check needs the input rendered")
    );
    assert!(r.stdout.contains("unknown command 'frobnicate'"));
}

#[test]
fn render_check_compares_the_committed_render() {
    let gh = Gh::new();
    assert_eq!(gh.install(&[], &[]).code, 0);
    let ok = Command::new(env!("CARGO_BIN_EXE_gpuform"))
        .args(["render", "infra/pools/notebook.yaml", "-o", "rendered"])
        .current_dir(&gh.repo)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let over = [
        ("inputs.commands", "render-check"),
        ("inputs.rendered", "rendered"),
        ("inputs.specs", "infra/"),
    ];
    let r = gh.run(&over);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let spec = gh.repo.join("infra/pools/notebook.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replacen("port: 8888", "port: 8889", 1)).unwrap();
    let r = gh.run(&over);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("::error title=gpuform render::rendered is not what the specs render to"),
        "{}",
        r.stdout
    );
}

// ---- the Azure Pipelines template ------------------------------------------------------------

#[test]
fn the_azure_pipelines_template_installs_runs_and_gates_the_same_way() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let releases = dir.join("releases");
    release(&releases, VERSION);
    let repo = consumer(dir);
    let template = load("ci/azure-pipelines/gpuform.yml");
    let steps = steps_of(&template, &template["steps"], "bash");
    assert_eq!(steps.len(), 2);
    let mut values = BTreeMap::new();
    for p in template["parameters"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let v = match &p["default"] {
            Value::String(s) => s.clone(),
            Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        values.insert(format!("parameters.{name}"), v);
    }
    values.insert("parameters.version".into(), VERSION.into());
    values.insert("parameters.repository".into(), REPO.into());
    values.insert(
        "parameters.releaseUrl".into(),
        format!("file://{}", releases.display()),
    );
    values.insert("parameters.workingDirectory".into(), ".".into());
    std::fs::create_dir_all(dir.join("agent-temp")).unwrap();
    std::fs::create_dir_all(dir.join("staging")).unwrap();
    let agent = vec![
        ("AGENT_OS", "Linux".to_string()),
        ("AGENT_OSARCHITECTURE", "X64".to_string()),
        (
            "AGENT_TEMPDIRECTORY",
            dir.join("agent-temp").display().to_string(),
        ),
        (
            "BUILD_ARTIFACTSTAGINGDIRECTORY",
            dir.join("staging").display().to_string(),
        ),
        ("TF_BUILD", "True".to_string()),
    ];
    let r = run_step(&steps[0], &values, &agent, &repo, &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let bin = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("##vso[task.prependpath]"))
        .expect("the binary goes on PATH")
        .to_string();
    assert!(Path::new(&bin).join("gpuform").is_file());
    let path = [PathBuf::from(&bin)];
    let r = run_step(&steps[1], &values, &agent, &repo, &path);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let summaries: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("##vso[task.uploadsummary]"))
        .collect();
    assert_eq!(summaries.len(), 2, "validate and one cost: {}", r.stdout);
    let validate_md = std::fs::read_to_string(summaries[0]).unwrap();
    assert!(
        validate_md.contains("### gpuform validate"),
        "{validate_md}"
    );
    // the budget gate
    values.insert("parameters.budget".into(), "1".into());
    let r = run_step(&steps[1], &values, &agent, &repo, &path);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("##vso[task.logissue type=error]gpuform cost: infra/pools/notebook.yaml: the budget gate failed"),
        "{}",
        r.stdout
    );
    // a tampered archive is refused
    let archive = releases.join(format!(
        "{REPO}/releases/download/{VERSION}/gpuform-{VERSION}-{TARGET}.tar.gz"
    ));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.push(0);
    std::fs::write(&archive, bytes).unwrap();
    let r = run_step(&steps[0], &values, &agent, &repo, &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("##vso[task.logissue type=error]gpuform install:"),
        "{}",
        r.stdout
    );
}

// ---- what ties them to the release workflow and the recipes ------------------------------------

#[test]
fn the_archive_names_are_the_release_workflows() {
    let wf = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(wf.contains("name=\"gpuform-${TAG}-${{ matrix.target }}\""));
    assert!(wf.contains("sha256sum \"$file\" > \"$file.sha256\""));
    for file in ["action.yml", "ci/azure-pipelines/gpuform.yml"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(text.contains("name=\"gpuform-$version-$target\""), "{file}");
        assert!(text.contains("/releases/download/$version"), "{file}");
        // every target the release builds, and no other
        for line in wf.lines().filter(|l| l.contains("target: ")) {
            let target = line
                .split("target: ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .trim();
            assert!(
                text.contains(&format!("target={target}")),
                "{file}: {target}"
            );
        }
    }
}

#[test]
fn the_recipes_use_the_action_and_the_template_from_another_repository() {
    let gh = std::fs::read_to_string(root().join("examples/pipelines/github-actions.yml")).unwrap();
    assert!(
        gh.contains("uses: OWNER/gpuform@v"),
        "the recipe uses the action"
    );
    assert!(
        !gh.contains("--path ."),
        "the recipe does not build gpuform's own checkout"
    );
    assert!(
        !gh.contains("validate examples/"),
        "the recipe does not hard-code gpuform's examples"
    );
    let az =
        std::fs::read_to_string(root().join("examples/pipelines/azure-pipelines.yml")).unwrap();
    assert!(
        az.contains("template: ci/azure-pipelines/gpuform.yml@gpuform"),
        "{az}"
    );
    assert!(az.contains("name: OWNER/gpuform"), "{az}");
    assert!(!az.contains("--path ."));
    // the action's metadata: a composite action whose steps are bash and whose inputs exist
    let action = load("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().unwrap();
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    for (i, _) in text.match_indices("inputs.") {
        let name: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        assert!(
            inputs.contains_key(&name),
            "action.yml uses an input it does not declare: {name}"
        );
    }
    for s in action["runs"]["steps"].as_array().unwrap() {
        if s.get("run").is_some() {
            assert_eq!(s["shell"], "bash");
        }
    }
}

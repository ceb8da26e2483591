//! The CI recipes in examples/pipelines: valid YAML with the structure docs/src/ci.md promises
//! (triggers, OIDC permissions, the jobs/stages), and every `gpuform ...` command line in them
//! parses with the real command-line definition. That both files pass the GitHub workflow /
//! Azure Pipelines schemas is `.ci/pipelines`' job (it installs check-jsonschema).

use std::path::{Path, PathBuf};

use clap::Parser;
use serde_json::Value;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/pipelines")
        .join(name)
}

fn load(name: &str) -> (String, Value) {
    let text = std::fs::read_to_string(file(name)).unwrap();
    let parsed = gpuform::spec::yaml::parse(&text)
        .unwrap_or_else(|d| panic!("{name} is not valid YAML: {}", d.message));
    (text, parsed.value)
}

/// Words of a shell script, with the operators that end a command as their own tokens.
/// Enough shell for these recipes: quotes, `\` line continuations, comments, `$(...)` kept whole.
fn shell_words(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = script.chars().peekable();
    let flush = |cur: &mut String, has: &mut bool, out: &mut Vec<String>| {
        if *has {
            out.push(std::mem::take(cur));
            *has = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'\n') => {
                chars.next();
            }
            '\'' => {
                has = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                has = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                cur.push(e);
                            }
                        }
                        _ => cur.push(d),
                    }
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                // $(...) as one word
                has = true;
                cur.push('$');
                let mut depth = 0;
                for d in chars.by_ref() {
                    cur.push(d);
                    match d {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            '#' if !has => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                flush(&mut cur, &mut has, &mut out);
                out.push(";".into());
            }
            '\n' | ';' => {
                flush(&mut cur, &mut has, &mut out);
                out.push(";".into());
            }
            '|' | '&' | '>' | '<' => {
                // `2>` is a redirection too
                if cur == "2" {
                    cur.clear();
                    has = false;
                }
                flush(&mut cur, &mut has, &mut out);
                let mut op = c.to_string();
                while let Some(&d) = chars.peek() {
                    if matches!(d, '|' | '&' | '>') {
                        op.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(op);
            }
            c if c.is_whitespace() => flush(&mut cur, &mut has, &mut out),
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut has, &mut out);
    out
}

/// Every `gpuform ...` command in a script: the words up to the next operator.
fn gpuform_commands(script: &str) -> Vec<Vec<String>> {
    let words = shell_words(script);
    let mut out = Vec::new();
    let mut at_start = true;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let is_op = matches!(w.as_str(), ";" | "|" | "||" | "&&" | "&");
        if at_start && w == "gpuform" {
            let mut cmd = Vec::new();
            while i < words.len()
                && !matches!(
                    words[i].as_str(),
                    ";" | "|" | "||" | "&&" | "&" | ">" | ">>" | "<"
                )
            {
                cmd.push(words[i].clone());
                i += 1;
            }
            out.push(cmd);
            at_start = false;
            continue;
        }
        // a redirection target is not a command
        if matches!(w.as_str(), ">" | ">>" | "<") {
            i += 2;
            at_start = false;
            continue;
        }
        at_start = is_op;
        i += 1;
    }
    out
}

/// Every script in a pipeline file: `run:` (GitHub), `script:` and AzureCLI@2 `inlineScript:`.
fn scripts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, val) in m {
                if matches!(k.as_str(), "run" | "script" | "inlineScript")
                    && let Some(s) = val.as_str()
                {
                    out.push(s.to_string());
                }
                scripts(val, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| scripts(x, out)),
        _ => {}
    }
}

fn all_commands(v: &Value) -> Vec<Vec<String>> {
    let mut s = Vec::new();
    scripts(v, &mut s);
    s.iter().flat_map(|x| gpuform_commands(x)).collect()
}

/// Every command parses with the real CLI definition (flags exist, values are accepted).
fn assert_commands_parse(name: &str, cmds: &[Vec<String>]) {
    for cmd in cmds {
        if let Err(e) = gpuform::cli::Cli::try_parse_from(cmd) {
            panic!("{name}: `{}` does not parse:\n{e}", cmd.join(" "));
        }
    }
}

fn has_command(cmds: &[Vec<String>], words: &[&str]) -> bool {
    cmds.iter()
        .any(|c| words.iter().all(|w| c.iter().any(|x| x == w)))
}

#[test]
fn the_shell_splitter_handles_what_the_recipes_use() {
    let cmds = gpuform_commands(
        "set -e\n# gpuform in a comment\ngpuform deploy \"$SPEC\" --resource-group \"$RG\" \\\n  --what-if --format markdown >> \"$GITHUB_STEP_SUMMARY\"\nX=\"$(gpuform --version)\" || status=$?; gpuform validate examples/ 2>/dev/null | tee out",
    );
    assert_eq!(
        cmds,
        vec![
            vec![
                "gpuform",
                "deploy",
                "$SPEC",
                "--resource-group",
                "$RG",
                "--what-if",
                "--format",
                "markdown"
            ],
            vec!["gpuform", "validate", "examples/"],
        ]
    );
}

#[test]
fn github_actions_recipe() {
    let (text, v) = load("github-actions.yml");
    // triggers
    assert_eq!(
        v["on"]["pull_request"]["branches"],
        serde_json::json!(["main"])
    );
    assert_eq!(v["on"]["push"]["branches"], serde_json::json!(["main"]));
    // least privilege by default, more per job
    assert_eq!(v["permissions"], serde_json::json!({"contents": "read"}));
    let jobs = v["jobs"].as_object().unwrap();
    for j in ["check", "plan", "deploy"] {
        assert!(jobs.contains_key(j), "job {j} missing");
    }
    // annotations need no Advanced Security: the check job asks for nothing more than reading
    assert_eq!(
        jobs["check"]["permissions"],
        serde_json::json!({"contents": "read"})
    );
    for j in ["plan", "deploy"] {
        assert_eq!(jobs[j]["permissions"]["id-token"], "write", "{j}");
        assert_eq!(jobs[j]["permissions"]["contents"], "read", "{j}");
        assert!(jobs[j]["steps"].as_array().unwrap().iter().any(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("azure/login@"))
        }));
    }
    for j in ["check", "plan"] {
        assert!(
            jobs[j]["if"]
                .as_str()
                .unwrap()
                .contains("github.event_name == 'pull_request'"),
            "{j}"
        );
    }
    let deploy_if = jobs["deploy"]["if"].as_str().unwrap();
    assert!(
        deploy_if.contains("github.event_name == 'push'") && deploy_if.contains("refs/heads/main")
    );
    assert_eq!(jobs["deploy"]["environment"], "production");
    // third-party actions pinned by major version, gpuform's action by release
    let mut uses = Vec::new();
    for job in jobs.values() {
        for s in job["steps"].as_array().unwrap() {
            if let Some(u) = s["uses"].as_str() {
                uses.push((u.to_string(), s["with"].clone()));
            }
        }
    }
    for (u, _) in &uses {
        let (name, version) = u.split_once('@').unwrap();
        let parts: Vec<&str> = version.trim_start_matches('v').split('.').collect();
        let numeric = version.starts_with('v')
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        assert!(numeric, "{u} is not pinned to a version");
        if name == "OWNER/gpuform" {
            assert_eq!(
                parts.len(),
                3,
                "{u}: the action is pinned to a release (vX.Y.Z)"
            );
        }
    }
    // the action: validate and cost with a budget gate, the render check, preflight and what-if
    let gpuform: Vec<&Value> = uses
        .iter()
        .filter(|(u, _)| u.starts_with("OWNER/gpuform@"))
        .map(|(_, w)| w)
        .collect();
    let with_commands = |c: &str| gpuform.iter().find(|w| w["commands"] == c).copied();
    let check = with_commands("validate,cost").expect("validate and cost");
    assert!(!check["budget"].as_str().unwrap_or_default().is_empty());
    assert!(check["specs"].as_str().is_some());
    assert!(
        with_commands("render-check").unwrap()["rendered"]
            .as_str()
            .is_some()
    );
    assert!(
        with_commands("preflight,what-if").unwrap()["resource-group"]
            .as_str()
            .is_some()
    );
    assert!(
        with_commands("").is_some(),
        "the deploy job installs gpuform through the action"
    );
    // the commands the recipe runs itself
    let cmds = all_commands(&v);
    assert_commands_parse("github-actions.yml", &cmds);
    assert!(has_command(&cmds, &["deploy", "--yes"]));
    assert!(text.contains(">> \"$GITHUB_STEP_SUMMARY\""));
}

#[test]
fn azure_pipelines_recipe() {
    let (_, v) = load("azure-pipelines.yml");
    assert_eq!(
        v["trigger"]["branches"]["include"],
        serde_json::json!(["main"])
    );
    assert_eq!(v["pr"]["branches"]["include"], serde_json::json!(["main"]));
    // the template comes from gpuform's repository, pinned to a release tag
    let repo = &v["resources"]["repositories"][0];
    assert_eq!(repo["repository"], "gpuform");
    assert_eq!(repo["name"], "OWNER/gpuform");
    assert!(repo["ref"].as_str().unwrap().starts_with("refs/tags/v"));
    let stages: Vec<&Value> = v["stages"].as_array().unwrap().iter().collect();
    let names: Vec<&str> = stages
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["validate", "deploy"]);
    assert!(
        stages[0]["condition"]
            .as_str()
            .unwrap()
            .contains("'PullRequest'")
    );
    assert!(
        stages[1]["condition"]
            .as_str()
            .unwrap()
            .contains("refs/heads/main")
    );
    let deploy_job = &stages[1]["jobs"][0];
    assert_eq!(deploy_job["deployment"], "deploy");
    assert_eq!(deploy_job["environment"], "production");
    // every Azure step: AzureCLI@2 with the service connection, the SPN in the environment and
    // the job token mapped for --auth pipelines; every install through the template
    let (mut tasks, mut templates) = (Vec::new(), Vec::new());
    fn find<'a>(v: &'a Value, tasks: &mut Vec<&'a Value>, templates: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                if m.get("task").and_then(Value::as_str) == Some("AzureCLI@2") {
                    tasks.push(v);
                }
                if m.get("template").and_then(Value::as_str)
                    == Some("ci/azure-pipelines/gpuform.yml@gpuform")
                {
                    templates.push(v);
                }
                m.values().for_each(|x| find(x, tasks, templates));
            }
            Value::Array(a) => a.iter().for_each(|x| find(x, tasks, templates)),
            _ => {}
        }
    }
    find(&v, &mut tasks, &mut templates);
    assert_eq!(tasks.len(), 2);
    for t in &tasks {
        assert_eq!(t["inputs"]["addSpnToEnvironment"], true);
        assert_eq!(
            t["inputs"]["azureSubscription"],
            "${{ variables.serviceConnection }}"
        );
        assert_eq!(t["env"]["SYSTEM_ACCESSTOKEN"], "$(System.AccessToken)");
        let script = t["inputs"]["inlineScript"].as_str().unwrap();
        for c in gpuform_commands(script) {
            assert!(c.windows(2).any(|w| w == ["--auth", "pipelines"]), "{c:?}");
        }
    }
    let commands: Vec<&str> = templates
        .iter()
        .map(|t| t["parameters"]["commands"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["validate,cost", "render-check", ""]);
    assert!(
        !templates[0]["parameters"]["budget"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let cmds = all_commands(&v);
    assert_commands_parse("azure-pipelines.yml", &cmds);
    assert!(has_command(&cmds, &["preflight", "markdown"]));
    assert!(has_command(
        &cmds,
        &["deploy", "--what-if", "--fail-on-delete"]
    ));
    assert!(has_command(&cmds, &["deploy", "--yes"]));
}

#[test]
fn gpuform_validate_skips_the_recipes() {
    let out = assert_cmd::Command::cargo_bin("gpuform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["validate"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    // not validated as specs ...
    assert!(!stdout.contains("pipelines/"), "{stdout}");
    // ... but skipped out loud (issue 10, item 17: a directory never drops a YAML file silently)
    for recipe in ["github-actions.yml", "azure-pipelines.yml"] {
        assert!(
            stderr.lines().any(|l| l.starts_with("skipped ")
                && l.contains(recipe)
                && l.contains("not a gpuform spec")),
            "{stderr}"
        );
    }
}

/// Issue 22: the weekly recipe reads the load from Azure, tunes, writes, and opens a pull request.
#[test]
fn weekly_tune_recipe() {
    let (text, v) = load("simulate-weekly.yml");
    assert!(v["on"]["schedule"][0]["cron"].as_str().is_some(), "{text}");
    assert_eq!(v["jobs"]["tune"]["permissions"]["id-token"], "write");
    assert_eq!(v["jobs"]["tune"]["permissions"]["pull-requests"], "write");
    let cmds = all_commands(&v);
    assert_commands_parse("simulate-weekly.yml", &cmds);
    assert!(has_command(
        &cmds,
        &["simulate", "-g", "--since", "--tune", "--write", "--svg"]
    ));
    assert!(text.contains("peter-evans/create-pull-request"));
    // the report is the pull request's body, in Markdown; the chart's folder exists first
    assert!(has_command(&cmds, &["simulate", "--output", "markdown"]));
    assert!(text.contains("mkdir -p docs") && text.contains("--svg docs/simulate.svg"));
    assert!(text.contains("body-path: tune.md") && text.contains("docs/simulate.svg\n"));
    // the pull request only when a proposal was written (exit 0), never on 1 or 2
    let steps = v["jobs"]["tune"]["steps"].as_array().unwrap();
    let pr = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("peter-evans/create-pull-request"))
        })
        .unwrap();
    assert_eq!(pr["if"], "steps.tune.outputs.code == '0'");
    assert!(text.contains(r#"echo "code=$code" >> "$GITHUB_OUTPUT""#));
    // OIDC, no secrets: the roles it needs are read-only and named
    assert!(!text.contains("secrets."), "{text}");
    assert_eq!(v["env"]["GPUFORM_AUTH"], "workload");
    assert!(text.contains("Monitoring Reader") && text.contains("Log Analytics Reader"));
    // .ci/pipelines validates it against GitHub's workflow schema
    let ci = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/pipelines"))
        .unwrap();
    assert!(
        ci.lines().any(|l| l.contains("vendor.github-workflows")
            && l.ends_with("examples/pipelines/simulate-weekly.yml")),
        "{ci}"
    );
}

//! `simulate --tune --write` never loses the user's file (issue 39, item 1): the tuned values go
//! where the YAML means them (flow mappings ending in comments, block collections, aliases),
//! line ends and the byte-order mark stay, a symlink is written through, and a change the text
//! cannot carry (an anchor other fields share) is refused with the reason while the proposal is
//! still printed.
//!
//! The property test generates specs in flow and block styles with comments, anchors, CRLF, a BOM
//! and a symlink, asks for random changes, and checks the file written against an oracle built
//! from the generator's own values (not from gpuform's rewriter).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use gpuform::simulate::command::write_spec;
use gpuform::simulate::tune::{Edit, rewrite, set};
use gpuform::spec::yaml;
use proptest::prelude::*;
use serde_json::{Value, json};

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const COMMENTS: [&str; 6] = [
    "# tuned by hand",
    "# don't {touch}",
    "# }",
    "# old: {targetPerInstance: 9}, ]",
    "# \"quoted\" 'both",
    "#x",
];

/// A generated spec: the values, and how they are written.
#[derive(Debug, Clone)]
struct Doc {
    tpi: u32,
    step: Option<u32>,
    out_cd: u32,
    in_cd: Option<u32>,
    cap_min: u32,
    sched_mins: Vec<u32>,
    /// 0 block, 1 flow on one line, 2 flow over lines (comment before the `}`)
    queue_style: u8,
    flow_capacity: bool,
    flow_schedules: bool,
    /// `capacity.min` anchored and reused by the first schedule's `min`
    shared_min: bool,
    comments: Vec<Option<usize>>,
    crlf: bool,
    bom: bool,
    symlink: bool,
}

impl Doc {
    fn comment(&self, i: usize) -> String {
        match self.comments.get(i).copied().flatten() {
            Some(c) => format!("  {}", COMMENTS[c % COMMENTS.len()]),
            None => String::new(),
        }
    }

    fn text(&self) -> String {
        let mut t = String::from("# a generated spec\nspec:\n");
        let min = if self.shared_min {
            format!("&floor {}", self.cap_min)
        } else {
            self.cap_min.to_string()
        };
        if self.flow_capacity {
            t += &format!("  capacity: {{min: {min}, max: 40}}{}\n", self.comment(0));
        } else {
            t += &format!(
                "  capacity:\n    min: {min}{}\n    max: 40\n",
                self.comment(0)
            );
        }
        t += "  autoscale:\n";
        let sb = "serviceBus: {namespace: sb-x, queue: jobs}";
        let step = self.step.map(|s| format!("scaleOutStep: {s}"));
        match self.queue_style {
            0 => {
                t += &format!(
                    "    queue:\n      {sb}\n      targetPerInstance: {}{}\n",
                    self.tpi,
                    self.comment(1)
                );
                if let Some(s) = &step {
                    t += &format!("      {s}{}\n", self.comment(2));
                }
            }
            1 => {
                let s = step.map(|s| format!(", {s}")).unwrap_or_default();
                t += &format!(
                    "    queue: {{{sb}, targetPerInstance: {}{s}}}{}\n",
                    self.tpi,
                    self.comment(1)
                );
            }
            _ => {
                t += &format!("    queue: {{\n      {sb},{}\n", self.comment(2));
                match &step {
                    Some(s) => {
                        t += &format!("      targetPerInstance: {},\n", self.tpi);
                        t += &format!("      {s}{}\n", self.comment(1));
                    }
                    None => {
                        t += &format!("      targetPerInstance: {}{}\n", self.tpi, self.comment(1))
                    }
                }
                t += "    }\n";
            }
        }
        t += &format!(
            "    scaleOutCooldown: PT{}M{}\n",
            self.out_cd,
            self.comment(3)
        );
        if let Some(c) = self.in_cd {
            t += &format!("    scaleInCooldown: PT{c}M\n");
        }
        t += "    schedules:\n";
        for (i, m) in self.sched_mins.iter().enumerate() {
            let m = if i == 0 && self.shared_min {
                "*floor".to_string()
            } else {
                m.to_string()
            };
            if self.flow_schedules {
                t += &format!("      - {{name: s{i}, min: {m}}}{}\n", self.comment(4 + i));
            } else {
                t += &format!(
                    "      - name: s{i}\n        min: {m}{}\n",
                    self.comment(4 + i)
                );
            }
        }
        t += "  network: {outbound: natGateway}  # the end\n";
        if self.crlf {
            t.replace('\n', "\r\n")
        } else {
            t
        }
    }

    /// The document the values mean (the oracle: built from the values, not from the text).
    fn value(&self) -> Value {
        let mut q = json!({"serviceBus": {"namespace": "sb-x", "queue": "jobs"}, "targetPerInstance": self.tpi});
        if let Some(s) = self.step {
            q["scaleOutStep"] = s.into();
        }
        let mut a = json!({"queue": q, "scaleOutCooldown": format!("PT{}M", self.out_cd)});
        if let Some(c) = self.in_cd {
            a["scaleInCooldown"] = format!("PT{c}M").into();
        }
        a["schedules"] = self
            .sched_mins
            .iter()
            .enumerate()
            .map(|(i, m)| json!({"name": format!("s{i}"), "min": m}))
            .collect();
        json!({"spec": {"capacity": {"min": self.cap_min, "max": 40}, "autoscale": a, "network": {"outbound": "natGateway"}}})
    }
}

/// A change the tune may make: (parent, key, YAML value), and the same on the oracle's values.
#[derive(Debug, Clone)]
enum Change {
    Target(u32),
    Step(u32),
    OutCooldown(u32),
    InCooldown(u32),
    Window(u32),
    CapMin(u32),
    SchedMin(u32),
    Tiers(u32),
}

impl Change {
    fn set(&self) -> (&'static str, &'static str, String) {
        match self {
            Change::Target(n) => ("/spec/autoscale/queue", "targetPerInstance", n.to_string()),
            Change::Step(n) => ("/spec/autoscale/queue", "scaleOutStep", n.to_string()),
            Change::OutCooldown(n) => ("/spec/autoscale", "scaleOutCooldown", format!("PT{n}M")),
            Change::InCooldown(n) => ("/spec/autoscale", "scaleInCooldown", format!("PT{n}M")),
            Change::Window(n) => ("/spec/autoscale", "timeWindow", format!("PT{n}M")),
            Change::CapMin(n) => ("/spec/capacity", "min", n.to_string()),
            Change::SchedMin(n) => ("/spec/autoscale/schedules/0", "min", n.to_string()),
            Change::Tiers(n) => (
                "/spec/autoscale/queue",
                "scaleOutTiers",
                format!("[{{above: {n}, step: 2}}]"),
            ),
        }
    }

    fn apply(&self, v: &mut Value) {
        let a = &mut v["spec"]["autoscale"];
        match self {
            Change::Target(n) => a["queue"]["targetPerInstance"] = (*n).into(),
            Change::Step(n) => a["queue"]["scaleOutStep"] = (*n).into(),
            Change::OutCooldown(n) => a["scaleOutCooldown"] = format!("PT{n}M").into(),
            Change::InCooldown(n) => a["scaleInCooldown"] = format!("PT{n}M").into(),
            Change::Window(n) => a["timeWindow"] = format!("PT{n}M").into(),
            Change::SchedMin(n) => a["schedules"][0]["min"] = (*n).into(),
            Change::Tiers(n) => a["queue"]["scaleOutTiers"] = json!([{"above": n, "step": 2}]),
            Change::CapMin(n) => v["spec"]["capacity"]["min"] = (*n).into(),
        }
    }
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        (
            1u32..60,
            proptest::option::of(1u32..5),
            1u32..30,
            proptest::option::of(1u32..30),
        ),
        (0u32..4, prop::collection::vec(0u32..4, 1..3)),
        (0u8..3, any::<bool>(), any::<bool>(), any::<bool>()),
        prop::collection::vec(proptest::option::of(0usize..6), 8),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                (tpi, step, out_cd, in_cd),
                (cap_min, mut sched_mins),
                style,
                comments,
                (crlf, bom, symlink),
            )| {
                let (queue_style, flow_capacity, flow_schedules, shared_min) = style;
                if shared_min {
                    sched_mins[0] = cap_min;
                }
                Doc {
                    tpi,
                    step,
                    out_cd,
                    in_cd,
                    cap_min,
                    sched_mins,
                    queue_style,
                    flow_capacity,
                    flow_schedules,
                    shared_min,
                    comments,
                    crlf,
                    bom,
                    symlink,
                }
            },
        )
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (1u32..60).prop_map(Change::Target),
        (1u32..5).prop_map(Change::Step),
        (1u32..30).prop_map(Change::OutCooldown),
        (1u32..30).prop_map(Change::InCooldown),
        (1u32..30).prop_map(Change::Window),
        (0u32..4).prop_map(Change::CapMin),
        (0u32..4).prop_map(Change::SchedMin),
        (2u32..9).prop_map(Change::Tiers),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(96), ..ProptestConfig::default() })]

    #[test]
    fn the_written_file_is_the_intended_policy_and_nothing_else(
        d in doc(),
        changes in prop::collection::vec(change(), 1..5),
    ) {
        // one change per key (the tune sets each knob once)
        let mut seen = std::collections::HashSet::new();
        let changes: Vec<Change> = changes
            .into_iter()
            .filter(|c| seen.insert(std::mem::discriminant(c)))
            .collect();
        let text = d.text();
        prop_assert_eq!(&yaml::parse(&text).unwrap().value, &d.value(), "the generator's oracle");
        let index = yaml::parse(&text).unwrap().index;
        let edits: Vec<Edit> = changes
            .iter()
            .map(|c| {
                let (parent, key, v) = c.set();
                set(&index, &text, parent, key, &v).unwrap()
            })
            .collect();
        let mut want = d.value();
        for c in &changes {
            c.apply(&mut want);
        }
        // the anchor of capacity.min is shared with the first schedule: changing its value while
        // the schedule keeps the alias cannot be written; anything else must be
        let shares = d.shared_min
            && want["spec"]["capacity"]["min"] != json!(d.cap_min)
            && !changes.iter().any(|c| matches!(c, Change::SchedMin(_)));
        let new = match rewrite::rewrite(&text, &edits) {
            Ok(new) => new,
            Err(why) => {
                prop_assert!(shares, "refused without a shared anchor: {why}\n{text}");
                prop_assert!(why.contains("anchor"), "{why}");
                return Ok(());
            }
        };
        prop_assert!(!shares, "wrote a change an anchor shares:\n{new}");
        prop_assert_eq!(&yaml::parse(&new).unwrap().value, &want, "\n{}", new);
        // nothing else changed: every comment is still there, and the line ends are the file's
        for c in text.lines().filter_map(|l| l.find(" #").map(|i| l[i..].trim_end_matches('\r'))) {
            prop_assert!(new.contains(c), "lost {c:?}:\n{new}");
        }
        prop_assert!(new.starts_with("# a generated spec"));
        // and every line the changes do not touch is there as it was, in its order: only a line
        // holding a changed key, or a flow mapping the tune adds a key to, may differ
        let touched = |l: &str| {
            changes.iter().any(|c| {
                let (parent, key, _) = c.set();
                l.contains(&format!("{key}:"))
                    || match parent {
                        "/spec/autoscale/queue" => d.queue_style > 0 && queue_lines(&text).contains(&l),
                        "/spec/capacity" => d.flow_capacity && l.contains("capacity:"),
                        "/spec/autoscale/schedules/0" => d.flow_schedules && l.contains("name: s0"),
                        _ => false,
                    }
            })
        };
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        let mut at = 0;
        let mut kept = 0;
        for l in text.split_inclusive('\n').filter(|l| !touched(l)) {
            match new_lines[at..].iter().position(|n| n == &l) {
                Some(i) => {
                    at += i + 1;
                    kept += 1;
                }
                None => prop_assert!(false, "the line {l:?} changed or moved:\n{text}\n---\n{new}"),
            }
        }
        let touched_lines = text.split_inclusive('\n').filter(|l| touched(l)).count();
        prop_assert!(
            new_lines.len() - kept <= touched_lines + changes.len(),
            "more lines than the changes need:\n{text}\n---\n{new}"
        );
        if d.crlf {
            prop_assert!(!new.replace("\r\n", "").contains('\n'), "a bare LF in a CRLF file:\n{new:?}");
        } else {
            prop_assert!(!new.contains('\r'));
        }
        // and the file: through a symlink, with its byte-order mark
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("base").join("pool.yaml");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        let mut bytes = if d.bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        bytes.extend_from_slice(text.as_bytes());
        std::fs::write(&real, &bytes).unwrap();
        let given = if d.symlink {
            let link = dir.path().join("specs").join("pool.yaml");
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink("../base/pool.yaml", &link).unwrap();
            link
        } else {
            real.clone()
        };
        let written = write_spec(&given, &text, &new).unwrap();
        prop_assert_eq!(std::fs::canonicalize(&written).unwrap(), std::fs::canonicalize(&real).unwrap());
        prop_assert_eq!(std::fs::symlink_metadata(&given).unwrap().is_symlink(), d.symlink);
        let on_disk = std::fs::read(&real).unwrap();
        let mut expect = if d.bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        expect.extend_from_slice(new.as_bytes());
        prop_assert_eq!(on_disk, expect);
        prop_assert_eq!(std::fs::read_dir(real.parent().unwrap()).unwrap().count(), 1, "a temporary file was left");
    }
}

/// The lines of the queue's flow mapping (from `queue: {` to its `}`).
fn queue_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(from) = lines.iter().position(|l| l.contains("queue: {")) else {
        return Vec::new();
    };
    let to = (from..lines.len())
        .find(|&i| lines[i].contains('}') && !lines[i].trim_start().starts_with("serviceBus"))
        .unwrap_or(from);
    lines[from..=to].to_vec()
}

#[test]
fn a_file_changed_since_it_was_read_or_not_a_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pool.yaml");
    std::fs::write(&f, "spec: {a: 1}\n").unwrap();
    let e = write_spec(&f, "spec: {a: 2}\n", "spec: {a: 3}\n").unwrap_err();
    assert!(
        e.message.contains("changed since gpuform read it"),
        "{}",
        e.message
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "spec: {a: 1}\n");
    // a link to a FIFO: refused at once, saying what it is
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let e = write_spec(&link, "x", "y").unwrap_err();
    assert!(e.message.contains("FIFO"), "{}", e.message);
    // the permissions stay
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_spec(&f, "spec: {a: 1}\n", "spec: {a: 4}\n").unwrap();
    let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

// ---------------------------------------------------------------------------------------------
// End to end: the binary on the files

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// A short trace the shortvideo example tunes quickly on (a 90-minute burst in four hours).
fn trace(dir: &Path) -> PathBuf {
    let mut t = String::from("timestamp,arrivals\n");
    for m in 0..240 {
        let n = if (60..150).contains(&m) { 4 } else { 1 };
        t += &format!("2026-11-02T{:02}:{:02}:00Z,{n}\n", m / 60, m % 60);
    }
    let p = dir.join("trace.csv");
    std::fs::write(&p, t).unwrap();
    p
}

fn example(dir: &Path) -> String {
    std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
    std::fs::copy(
        "examples/cloud-init/transcode.yaml",
        dir.join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    std::fs::read_to_string("examples/shortvideo-transcode.yaml").unwrap()
}

fn tune(spec: &Path, trace: &Path, json: bool) -> std::process::Output {
    let mut c = gpuform();
    c.arg("simulate").arg(spec).arg("--trace").arg(trace).args([
        "--job-duration",
        "PT2M",
        "--provisioning",
        "PT8M",
        "--tune",
        "--wait-p95",
        "10m",
        "--nominal",
        "--no-schedule",
        "--write",
    ]);
    if json {
        c.args(["--output", "json"]);
    }
    c.output().unwrap()
}

#[test]
fn a_crlf_bom_spec_behind_a_symlink_with_a_commented_flow_queue_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let (base, specs) = (dir.path().join("base"), dir.path().join("specs"));
    let text = example(&base);
    example(&specs);
    // the queue as a flow mapping over lines whose last entry carries a comment
    let text = text.replace(
        "    queue:\n      serviceBus: {namespace: sb-shortvideo-prod, queue: transcode-jobs, create: true}\n      targetPerInstance: 30\n",
        "    queue: {\n      serviceBus: {namespace: sb-shortvideo-prod, queue: transcode-jobs, create: true},\n      targetPerInstance: 30  # tuned by hand\n    }\n",
    );
    assert!(text.contains("# tuned by hand"));
    let crlf = text.replace('\n', "\r\n");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(crlf.as_bytes());
    std::fs::write(base.join("pool.yaml"), &bytes).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        base.join("pool.yaml"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let link = specs.join("pool.yaml");
    std::os::unix::fs::symlink("../base/pool.yaml", &link).unwrap();

    let out = tune(&link, &trace(dir.path()), true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("(the file the link") && stderr.contains("base/pool.yaml"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let policy = &v["afterPolicy"];
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let after = std::fs::read(base.join("pool.yaml")).unwrap();
    assert!(
        after.starts_with(b"\xEF\xBB\xBF"),
        "the byte-order mark went"
    );
    let after = String::from_utf8(after[3..].to_vec()).unwrap();
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "LF lines in a CRLF file"
    );
    assert_ne!(after, crlf, "nothing was written");
    let line = after
        .lines()
        .find(|l| l.contains("# tuned by hand"))
        .unwrap();
    assert!(
        line.trim_end().ends_with("# tuned by hand"),
        "keys landed in the comment: {line}"
    );
    for c in crlf.lines().filter(|l| l.trim_start().starts_with('#')) {
        assert!(after.contains(c), "lost {c}");
    }
    // what the file says is the policy the tune chose
    let doc = yaml::parse(&after).unwrap().value;
    let q = &doc["spec"]["autoscale"]["queue"];
    assert_eq!(q["targetPerInstance"], policy["targetPerInstance"]);
    assert_eq!(
        q.get("scaleOutStep").cloned().unwrap_or(json!(1)),
        policy["scaleOutStep"]
    );
    assert_eq!(
        doc["spec"]["autoscale"]["scaleOutCooldown"],
        json!(format!("PT{}M", policy["scaleOutCooldownMinutes"]))
    );
    let mode = std::fs::metadata(base.join("pool.yaml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    gpuform().arg("validate").arg(&link).assert().success();
}

#[test]
fn an_anchor_other_fields_share_is_refused_with_the_reason_and_the_proposal_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let text = example(dir.path()).replace(
        "    scaleOutCooldown: PT5M\n    scaleInCooldown: PT15M\n",
        "    scaleOutCooldown: &cool PT5M\n    scaleInCooldown: *cool\n",
    );
    let spec = dir.path().join("pool.yaml");
    std::fs::write(&spec, &text).unwrap();
    let out = tune(&spec, &trace(dir.path()), false);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // exit 2 (the file could not be written), not 1 ("no proposal")
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(!stdout.contains("no proposal"), "{stdout}");
    assert!(stdout.contains("after:"), "{stdout}");
    assert!(
        stdout.contains("the proposal, to apply by hand") && stdout.contains("anchor"),
        "{stdout}"
    );
    assert!(stdout.contains("spec.autoscale."), "{stdout}");
    assert!(
        stderr.contains("was not changed") && stderr.contains("spec.autoscale.scaleInCooldown"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), text);
}

//! `gpuform render` output: golden files of every example, Bicep/ARM equivalence, determinism,
//! and adversarial strings.
//!
//! Golden files live in `tests/golden/render/<stem>/` (every example, the adversarial fixture
//! and the variants under `tests/fixtures/render/variants/`) and are compared byte for byte.
//! Re-bless them after an intended change with `GPUFORM_BLESS=1 cargo test --test render`
//! (this also deletes stale files), then review the diff.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::emit::{self, Rendered, bicep};
use gpuform::spec::Policy;
use proptest::prelude::*;
use serde_json::Value;
use support::refs;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "the examples are missing");
    v
}

/// The render fixtures: the adversarial strings and the variants that reach the branches the
/// examples do not (existing queues, no NAT gateway, Trusted Launch, a TCP probe, ...).
fn fixtures() -> Vec<PathBuf> {
    let mut v = vec![root().join("tests/fixtures/render/adversarial.yaml")];
    let variants = std::fs::read_dir(root().join("tests/fixtures/render/variants")).unwrap();
    v.extend(variants.map(|e| e.unwrap().path()));
    v.sort();
    assert!(v.len() >= 3, "the render fixtures are missing");
    v
}

/// Every spec the render tests cover: the examples, then the fixtures.
fn all_specs() -> Vec<PathBuf> {
    examples().into_iter().chain(fixtures()).collect()
}

fn render_file(path: &Path) -> Rendered {
    let checked = gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded());
    assert!(
        !checked.has_errors(),
        "{} has validation errors: {:?}",
        path.display(),
        checked.diagnostics
    );
    emit::render(&checked).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn file<'a>(r: &'a Rendered, name: &str) -> &'a str {
    r.files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t.as_str())
        .unwrap()
}

#[test]
fn golden_files_match_every_example_and_fixture() {
    let bless = std::env::var("GPUFORM_BLESS").is_ok_and(|v| v == "1");
    let golden_root = root().join("tests/golden/render");
    let mut problems = Vec::new();
    let mut expected_dirs = Vec::new();
    for ex in all_specs() {
        let stem = ex.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = golden_root.join(&stem);
        assert!(
            !expected_dirs.contains(&stem),
            "two specs named {stem} would share a golden directory"
        );
        expected_dirs.push(stem.clone());
        let rendered = render_file(&ex);
        if bless {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
        }
        for (name, text) in &rendered.files {
            let path = dir.join(name);
            if bless {
                std::fs::write(&path, text).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(old) if old == *text => {}
                Ok(old) => {
                    let diff = similar::TextDiff::from_lines(old.as_str(), text.as_str())
                        .unified_diff()
                        .header(&path.display().to_string(), "rendered")
                        .to_string();
                    problems.push(format!(
                        "{} differs:\n{}",
                        path.display(),
                        diff.lines().take(40).collect::<Vec<_>>().join("\n")
                    ));
                }
                Err(_) => problems.push(format!("{} is missing", path.display())),
            }
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if !rendered.files.iter().any(|(n, _)| *n == name) {
                    problems.push(format!("stale golden file {}/{name}", dir.display()));
                }
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(&golden_root) {
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if !expected_dirs.contains(&name) {
                if bless {
                    std::fs::remove_dir_all(golden_root.join(&name)).unwrap();
                } else {
                    problems.push(format!(
                        "stale golden directory {}/{name}",
                        golden_root.display()
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\nre-bless with GPUFORM_BLESS=1 cargo test --test render, then review the diff",
        problems.join("\n\n")
    );
}

/// Every spec under examples/ and tests/fixtures/ that checks without errors (the render
/// fixtures and the cost, serving, GPU, ... fixtures that are specs).
fn every_valid_spec() -> Vec<(PathBuf, gpuform::spec::Checked)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "yaml") {
                out.push(p);
            }
        }
    }
    let mut paths = examples();
    walk(&root().join("tests/fixtures"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let checked =
                gpuform::check::check_file(&p, &Policy::default(), PriceTable::embedded());
            (!checked.has_errors()).then_some((p, checked))
        })
        .collect()
}

/// The byte offset where two texts first differ (the shorter one's length if one is a prefix).
fn first_difference(a: &str, b: &str) -> usize {
    a.bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// The ARM JSON writer (`emit::value`'s tree printed by `emit::pretty`) held to serde_json
/// independently of the emitters and the goldens: for every example and fixture that renders,
/// `azuredeploy.json` and `azuredeploy.parameters.json` are valid JSON and exactly the text
/// serde_json's pretty printer writes of that JSON (with the final newline). A wrong separator,
/// indentation, escape or number fails here (issue 41: the ARM template is no longer built as a
/// `serde_json::Value`).
#[test]
fn every_rendered_arm_file_is_serde_jsons_pretty_text() {
    let mut rendered = 0;
    for (path, checked) in &every_valid_spec() {
        let Ok(files) = emit::render(checked) else {
            continue;
        };
        for (name, text) in &files.files {
            if !name.ends_with(".json") || *name == emit::BICEPCONFIG {
                continue;
            }
            let v: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{} {name}: not JSON: {e}", path.display()));
            let pretty = serde_json::to_string_pretty(&v).unwrap() + "\n";
            assert!(
                *text == pretty,
                "{} {name}: not serde_json's pretty text (first difference at byte {})",
                path.display(),
                first_difference(text, &pretty)
            );
        }
        rendered += 1;
    }
    // the examples and the render fixtures at least (84 specs rendered when this was written)
    assert!(rendered >= 60, "only {rendered} specs rendered");
}

/// The compiled templates (src/emit/hbs.rs) render what the handlebars crate renders from the
/// same templates, byte for byte, for every example and fixture that renders.
#[test]
fn compiled_templates_render_what_handlebars_renders() {
    let specs = every_valid_spec();
    assert!(specs.len() >= 20, "{} specs", specs.len());
    let mut compared = 0;
    for (path, checked) in &specs {
        let Ok(plan) = gpuform::plan::Plan::build(checked) else {
            continue;
        };
        let fast = bicep::main_and_param(&plan).unwrap();
        let oracle = bicep::handlebars_main_and_param(&plan).unwrap();
        assert!(
            fast.0 == oracle.0,
            "{}: main.bicep differs from Handlebars' at byte {}",
            path.display(),
            first_difference(&fast.0, &oracle.0)
        );
        assert_eq!(fast.1, oracle.1, "{}: main.bicepparam", path.display());
        compared += 1;
    }
    assert!(compared >= 20, "{compared} plans compared");
}

/// The buffers a `render -o DIR` worker keeps from spec to spec hold, after each spec, exactly
/// the files a fresh render of that spec gives (nothing of the spec before survives), in the
/// order of `Rendered`: the specs rendered one after another, large after small and back.
#[test]
fn reused_buffers_render_each_spec_as_a_fresh_render() {
    let plans: Vec<_> = every_valid_spec()
        .into_iter()
        .filter_map(|(p, c)| Some((p, gpuform::plan::Plan::build(&c).ok()?)))
        .collect();
    let mut buffers = emit::Buffers::default();
    for (path, plan) in plans.iter().chain(plans.iter().rev()) {
        buffers.render(plan).unwrap();
        let fresh = emit::render_plan(plan).unwrap();
        let reused: Vec<(&str, &[u8])> = buffers.files().to_vec();
        let expected: Vec<(&str, &[u8])> = fresh
            .files
            .iter()
            .map(|(n, t)| (*n, t.as_bytes()))
            .collect();
        assert!(reused == expected, "{}", path.display());
    }
}

#[test]
fn output_is_deterministic() {
    for ex in all_specs() {
        assert_eq!(render_file(&ex), render_file(&ex), "{}", ex.display());
    }
}

#[test]
fn arm_template_function_returns_the_rendered_bytes() {
    for ex in examples() {
        let checked = gpuform::check::check_file(&ex, &Policy::default(), PriceTable::embedded());
        let arm = emit::arm_template(&checked).unwrap();
        assert_eq!(arm, file(&render_file(&ex), emit::ARM_TEMPLATE));
        assert_eq!(
            emit::arm_parameters(&checked).unwrap(),
            file(&render_file(&ex), emit::ARM_PARAMETERS)
        );
    }
}

// ------------------------------------------------------------------- Bicep / ARM equivalence

/// The name shape of a Bicep resource, with its parents' names prefixed.
fn bicep_full_name(r: &support::BicepResource, all: &[support::BicepResource]) -> String {
    let own = support::bicep_name_shape(r.body.get("name").unwrap_or(&Value::Null));
    match &r.parent {
        Some(p) => {
            let parent = all
                .iter()
                .find(|x| &x.sym == p)
                .unwrap_or_else(|| panic!("parent {p} of {} not declared", r.sym));
            format!("{}/{own}", bicep_full_name(parent, all))
        }
        None => own,
    }
}

/// Compare a Bicep value with the ARM value at `path`: literal values must be equal, and an
/// expression must mean the same on both sides, every resource reference resolved to the
/// resource it names (see `support::refs`).
fn compare(cx: &refs::Bicep, b: &Value, a: &Value, path: &str, out: &mut Vec<String>) {
    if support::is_expr(b) {
        let text = b["$expr"].as_str().unwrap();
        match (cx.expr(text), a.as_str().map(refs::arm_value)) {
            (Ok(x), Some(Ok(y))) if x == y => {}
            (Ok(x), Some(Ok(y))) => out.push(format!(
                "{path}: Bicep `{text}` means {} but ARM {a} means {}",
                refs::show(&x),
                refs::show(&y)
            )),
            (Err(e), _) => out.push(format!("{path}: cannot read Bicep `{text}`: {e}")),
            (_, Some(Err(e))) => out.push(format!("{path}: cannot read ARM {a}: {e}")),
            (_, None) => out.push(format!(
                "{path}: Bicep has an expression ({text}) where ARM has {a}"
            )),
        }
        return;
    }
    match (b, a) {
        (Value::Object(bm), Value::Object(am)) => {
            // ARM keys that are expressions, with their meaning; Bicep's interpolated keys
            // must each mean one of them
            let mut arm_expr_keys: Vec<(&String, Result<refs::Expr, String>)> = am
                .keys()
                .filter(|k| support::arm_literal(k).is_none())
                .map(|k| (k, refs::arm_value(k)))
                .collect();
            for (k, bv) in bm {
                if let Some(raw) = k.strip_prefix(support::INTERPOLATED) {
                    match cx.key_expr(raw) {
                        Ok(want) => match arm_expr_keys
                            .iter()
                            .position(|(_, m)| m.as_ref().is_ok_and(|m| *m == want))
                        {
                            Some(i) => {
                                let (ak, _) = arm_expr_keys.remove(i);
                                compare(cx, bv, &am[ak], &format!("{path}.{ak}"), out);
                            }
                            None => out.push(format!(
                                "{path}: no ARM key means Bicep's key '{raw}' ({})",
                                refs::show(&want)
                            )),
                        },
                        Err(e) => out.push(format!("{path}: cannot read Bicep key '{raw}': {e}")),
                    }
                    continue;
                }
                let arm_key = if k.starts_with('[') && k.ends_with(']') {
                    format!("[{k}")
                } else {
                    k.clone()
                };
                match am.get(&arm_key) {
                    Some(av) => compare(cx, bv, av, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: only in Bicep")),
                }
            }
            for (k, _) in arm_expr_keys {
                out.push(format!("{path}.{k}: only in ARM"));
            }
            for k in am.keys() {
                if let Some(unescaped) = support::arm_literal(k)
                    && !bm.contains_key(&unescaped)
                {
                    out.push(format!("{path}.{k}: only in ARM"));
                }
            }
        }
        (Value::Array(bv), Value::Array(av)) => {
            if bv.len() != av.len() {
                out.push(format!(
                    "{path}: {} items in Bicep, {} in ARM",
                    bv.len(),
                    av.len()
                ));
                return;
            }
            for (i, (x, y)) in bv.iter().zip(av).enumerate() {
                compare(cx, x, y, &format!("{path}[{i}]"), out);
            }
        }
        (Value::String(bs), Value::String(as_)) => match support::arm_literal(as_) {
            Some(lit) if &lit == bs => {}
            Some(lit) => out.push(format!("{path}: Bicep {bs:?} vs ARM {lit:?}")),
            None => out.push(format!(
                "{path}: Bicep literal {bs:?} where ARM has an expression {as_}"
            )),
        },
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => {}
        (Value::Bool(x), Value::Bool(y)) if x == y => {}
        (Value::Null, Value::Null) => {}
        _ => out.push(format!("{path}: Bicep {b} vs ARM {a}")),
    }
}

/// Compared through the resources' keys (name, parent, scope) and dependencies instead.
const BICEP_ONLY: [&str; 4] = ["parent", "name", "scope", "dependsOn"];
const ARM_ONLY: [&str; 6] = [
    "type",
    "apiVersion",
    "name",
    "scope",
    "dependsOn",
    "metadata",
];

/// Every string of a JSON value, object keys included.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k);
                strings(x, out);
            }
        }
        _ => {}
    }
}

/// Every difference between the resources of main.bicep and azuredeploy.json.
fn equivalence_problems(bicep_text: &str, arm: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let all =
        support::resources(bicep_text).unwrap_or_else(|e| panic!("main.bicep does not read: {e}"));
    let cx = refs::Bicep::new(bicep_text, &all);
    let deployed: Vec<&support::BicepResource> = all.iter().filter(|r| !r.existing).collect();
    let arm_resources = arm["resources"].as_array().unwrap();

    // group both sides by (type, api version, name shape): the same inventory
    let mut b_groups: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for r in &deployed {
        *b_groups
            .entry((
                r.ty.to_ascii_lowercase(),
                r.api.clone(),
                bicep_full_name(r, &all),
            ))
            .or_default() += 1;
    }
    let mut a_groups: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for r in arm_resources {
        let key = (
            r["type"].as_str().unwrap().to_ascii_lowercase(),
            r["apiVersion"].as_str().unwrap().to_string(),
            support::arm_name_shape(r["name"].as_str().unwrap()),
        );
        *a_groups.entry(key).or_default() += 1;
    }
    if b_groups != a_groups {
        problems.push(format!(
            "resource inventories differ:\n  Bicep: {b_groups:?}\n  ARM:   {a_groups:?}"
        ));
        return problems;
    }

    // the resources ARM deploys and the existing ones main.bicep refers to, by key
    let mut arm_by_key: BTreeMap<refs::ResKey, &Value> = BTreeMap::new();
    for r in arm_resources {
        match refs::arm_resource_key(r) {
            Ok(k) => {
                if arm_by_key.insert(k.clone(), r).is_some() {
                    problems.push(format!("ARM deploys {k} twice"));
                }
            }
            Err(e) => problems.push(format!("ARM resource {}: {e}", r["name"])),
        }
    }
    let existing = cx.existing().unwrap_or_else(|e| {
        problems.push(format!("existing resources: {e}"));
        BTreeMap::new()
    });

    // each Bicep resource is the ARM resource with the same key (type, full name, scope):
    // same body, same dependencies
    for b in &deployed {
        let key = match cx.key(&b.sym) {
            Ok(k) => k,
            Err(e) => {
                problems.push(format!("{}: {e}", b.sym));
                continue;
            }
        };
        let path = format!("{}({key})", b.sym);
        let Some(a) = arm_by_key.get(&key) else {
            problems.push(format!("{path}: no ARM resource has this name and scope"));
            continue;
        };
        match cx.dependencies(b) {
            Ok(want) => {
                let mut have = BTreeSet::new();
                for d in a["dependsOn"].as_array().into_iter().flatten() {
                    match d.as_str().map(refs::arm_value) {
                        Some(Ok(refs::Expr::Res(k))) => {
                            if !arm_by_key.contains_key(&k) {
                                problems.push(format!(
                                    "{path}: dependsOn {d}, which the template does not deploy"
                                ));
                            }
                            have.insert(*k);
                        }
                        _ => problems.push(format!("{path}: dependsOn {d} is not a resource id")),
                    }
                }
                for k in want.difference(&have) {
                    problems.push(format!(
                        "{path}: Bicep waits for {k}, ARM's dependsOn does not"
                    ));
                }
                for k in have.difference(&want) {
                    problems.push(format!(
                        "{path}: ARM's dependsOn waits for {k}, Bicep does not"
                    ));
                }
            }
            Err(e) => problems.push(format!("{path}: {e}")),
        }
        let mut bbody = b.body.clone();
        let mut abody = (*a).clone();
        for k in BICEP_ONLY {
            bbody.as_object_mut().unwrap().remove(k);
        }
        for k in ARM_ONLY {
            abody.as_object_mut().unwrap().remove(k);
        }
        compare(&cx, &bbody, &abody, &path, &mut problems);
    }

    // every resource an ARM expression names is deployed or declared existing in main.bicep
    let mut texts = Vec::new();
    strings(arm, &mut texts);
    for s in texts {
        if support::arm_literal(s).is_some() {
            continue;
        }
        let mut named = Vec::new();
        match refs::arm_value(s) {
            Ok(e) => refs::references(&e, &mut named),
            Err(e) => problems.push(format!("cannot read ARM {s}: {e}")),
        }
        for k in named {
            // a part of a deployed resource (a load balancer's probe, a gateway's listener),
            // named from inside that resource's own body
            let part_of_deployed = arm_by_key.keys().any(|d| {
                k.scope.is_none()
                    && k.rg.is_none()
                    && k.names.len() > d.names.len()
                    && k.names.starts_with(&d.names)
                    && k.ty.starts_with(&format!("{}/", d.ty))
            });
            if !arm_by_key.contains_key(&k) && !existing.contains_key(&k) && !part_of_deployed {
                problems.push(format!(
                    "{s} names {k}, which is neither deployed nor an existing resource of main.bicep"
                ));
            }
        }
    }

    // suppressions: the same checkov skips with the same reasons on both sides
    let mut b_skips: Vec<String> = bicep_text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// checkov:skip="))
        .map(str::to_string)
        .collect();
    let mut a_skips: Vec<String> = arm_resources
        .iter()
        .filter_map(|r| r.pointer("/metadata/checkov"))
        .flat_map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
        })
        .collect();
    b_skips.sort();
    a_skips.sort();
    if b_skips != a_skips {
        problems.push(format!(
            "checkov suppressions differ:\n  Bicep: {b_skips:?}\n  ARM:   {a_skips:?}"
        ));
    }

    // parameters, outputs (with their values) and variables
    let b_params: Vec<String> = bicep_text
        .lines()
        .filter_map(|l| l.strip_prefix("param "))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    let a_params: Vec<String> = arm["parameters"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    if b_params != a_params {
        problems.push(format!("parameters differ: {b_params:?} vs {a_params:?}"));
    }
    let b_outputs: Vec<(String, String)> = bicep_text
        .lines()
        .filter_map(|l| l.strip_prefix("output "))
        .map(|l| {
            let (decl, value) = l.split_once(" = ").unwrap();
            (
                decl.split(' ').next().unwrap().to_string(),
                value.to_string(),
            )
        })
        .collect();
    let a_outputs = arm["outputs"].as_object().unwrap();
    if !b_outputs.iter().map(|(n, _)| n).eq(a_outputs.keys()) {
        problems.push(format!(
            "outputs differ: {:?} vs {:?}",
            b_outputs.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            a_outputs.keys().collect::<Vec<_>>()
        ));
    }
    for (name, value) in &b_outputs {
        compare(
            &cx,
            &support::expr(value),
            &a_outputs[name]["value"],
            &format!("output {name}"),
            &mut problems,
        );
    }
    let vars = support::variables(bicep_text).unwrap();
    let a_vars = arm["variables"].as_object().unwrap();
    if !vars.keys().eq(a_vars.keys()) {
        problems.push(format!(
            "variables differ: {:?} vs {:?}",
            vars.keys().collect::<Vec<_>>(),
            a_vars.keys().collect::<Vec<_>>()
        ));
    }
    for (name, value) in &vars {
        compare(
            &cx,
            value,
            &arm["variables"][name],
            &format!("var {name}"),
            &mut problems,
        );
    }
    problems
}

#[test]
fn bicep_and_arm_describe_the_same_deployment() {
    let mut report = Vec::new();
    for ex in all_specs() {
        let r = render_file(&ex);
        let arm: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
        let problems = equivalence_problems(file(&r, emit::MAIN_BICEP), &arm);
        if !problems.is_empty() {
            report.push(format!("{}:\n{}", ex.display(), problems.join("\n")));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n\n"));
}

#[test]
fn equivalence_check_catches_a_divergence() {
    let r = render_file(&root().join("examples/shortvideo-transcode.yaml"));
    let bicep_text = file(&r, emit::MAIN_BICEP);
    let mut arm: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    assert!(equivalence_problems(bicep_text, &arm).is_empty());
    // a changed spot price, a dropped NSG rule, a different API version: each is caught
    let vmss = arm["resources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .unwrap();
    vmss["properties"]["virtualMachineProfile"]["billingProfile"]["maxPrice"] =
        serde_json::json!(0.5);
    assert!(
        equivalence_problems(bicep_text, &arm)
            .iter()
            .any(|p| p.contains("maxPrice"))
    );
    let mut arm2: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    arm2["resources"][0]["properties"]["securityRules"]
        .as_array_mut()
        .unwrap()
        .clear();
    assert!(!equivalence_problems(bicep_text, &arm2).is_empty());
    let mut arm3: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    arm3["resources"][0]["apiVersion"] = serde_json::json!("2024-05-01");
    assert!(
        equivalence_problems(bicep_text, &arm3)
            .iter()
            .any(|p| p.contains("inventories differ"))
    );
}

/// The equivalence problems of an example's output after `mutate` changed its ARM template.
fn problems_after(example: &str, mutate: impl FnOnce(&mut Vec<Value>)) -> Vec<String> {
    let r = render_file(&root().join("examples").join(example));
    let mut arm: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    assert!(equivalence_problems(file(&r, emit::MAIN_BICEP), &arm).is_empty());
    mutate(arm["resources"].as_array_mut().unwrap());
    equivalence_problems(file(&r, emit::MAIN_BICEP), &arm)
}

/// The first resource of a type (and, if given, whose name contains `name`).
fn resource<'a>(res: &'a mut [Value], ty: &str, name: &str) -> &'a mut Value {
    res.iter_mut()
        .find(|r| r["type"] == ty && r["name"].as_str().unwrap().contains(name))
        .unwrap_or_else(|| panic!("no {ty} named *{name}*"))
}

#[track_caller]
fn assert_caught(problems: &[String], needle: &str) {
    assert!(
        problems.iter().any(|p| p.contains(needle)),
        "expected a problem mentioning {needle:?}, got {problems:#?}"
    );
}

#[test]
fn equivalence_check_catches_a_wrong_reference() {
    const VMSS: &str = "Microsoft.Compute/virtualMachineScaleSets";
    const ROLE: &str = "Microsoft.Authorization/roleAssignments";
    let ex = "shortvideo-transcode.yaml";
    // the vault's private endpoint connects to the identity instead of the vault
    let p = problems_after(ex, |res| {
        let pe = resource(res, "Microsoft.Network/privateEndpoints", "vault");
        pe["properties"]["privateLinkServiceConnections"][0]["properties"]["privateLinkServiceId"] = serde_json::json!(
            "[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'id-shortvideo-transcode')]"
        );
    });
    assert_caught(&p, "privateLinkServiceId: Bicep `vault.id` means");
    // the scale set waits for a role assignment name that no resource has (scope and principal
    // swapped in the guid)
    let p = problems_after(ex, |res| {
        let deps = resource(res, VMSS, "").get_mut("dependsOn").unwrap();
        let last = deps.as_array_mut().unwrap().last_mut().unwrap();
        let text = last.as_str().unwrap().to_string();
        let (des, key) = (
            "resourceId('Microsoft.Compute/diskEncryptionSets', 'des-shortvideo-transcode')",
            "resourceId('Microsoft.KeyVault/vaults/keys', variables('vaultName'), 'disk-cmk')",
        );
        let swapped = text.replace(&format!("guid({key}, {des}"), &format!("guid({des}, {key}"));
        assert_ne!(swapped, text, "the mutation applies");
        *last = Value::String(swapped);
    });
    assert_caught(&p, "which the template does not deploy");
    // a dropped dependency
    let p = problems_after(ex, |res| {
        let deps = resource(res, VMSS, "")["dependsOn"].as_array_mut().unwrap();
        deps.retain(|d| !d.as_str().unwrap().contains("virtualNetworks"));
    });
    assert_caught(&p, "Bicep waits for microsoft.network/virtualnetworks");
    // a role assignment scoped to the namespace instead of the queue
    let p = problems_after(ex, |res| {
        let ra = res
            .iter_mut()
            .find(|r| r["type"] == ROLE && r["scope"].as_str().unwrap().contains("/queues/"))
            .unwrap();
        ra["scope"] = serde_json::json!("Microsoft.ServiceBus/namespaces/sb-shortvideo-prod");
    });
    assert_caught(&p, "identityQueueReceiver");
    // the queue rule reads another namespace's metric
    let p = problems_after(ex, |res| {
        let asp = resource(res, "Microsoft.Insights/autoscaleSettings", "");
        asp["properties"]["profiles"][0]["rules"][0]["metricTrigger"]["metricResourceUri"] =
            serde_json::json!("[resourceId('Microsoft.ServiceBus/namespaces', 'sb-other')]");
    });
    assert_caught(&p, "metricResourceUri: Bicep `sbNamespace.id` means");
    assert_caught(&p, "neither deployed nor an existing resource");
    // an alert on the scale set instead of the autoscale setting
    let p = problems_after(ex, |res| {
        let alert = resource(res, "Microsoft.Insights/metricAlerts", "capacity-at-max");
        alert["properties"]["scopes"][0] = serde_json::json!(
            "[resourceId('Microsoft.Compute/virtualMachineScaleSets', 'vmss-shortvideo-transcode')]"
        );
    });
    assert_caught(&p, "scopes[0]: Bicep `autoscale.id` means");
    // the disk encryption set reads the key of another vault
    let p = problems_after(ex, |res| {
        let des = resource(res, "Microsoft.Compute/diskEncryptionSets", "");
        des["properties"]["activeKey"]["keyUrl"] = serde_json::json!(
            "[reference(resourceId('Microsoft.KeyVault/vaults/keys', 'kv-other', 'disk-cmk'), '2025-05-01').keyUriWithVersion]"
        );
    });
    assert_caught(
        &p,
        "keyUrl: Bicep `cmkKey.properties.keyUriWithVersion` means",
    );
    // the storage queue rule of the other example: another queue name in the metric URI
    let p = problems_after("llm-finetune-a100.yaml", |res| {
        let asp = resource(res, "Microsoft.Insights/autoscaleSettings", "");
        let uri =
            &mut asp["properties"]["profiles"][0]["rules"][0]["metricTrigger"]["metricResourceUri"];
        *uri = Value::String(
            uri.as_str()
                .unwrap()
                .replace("'finetune-jobs'", "'other-jobs'"),
        );
    });
    assert_caught(&p, "metricResourceUri");
}

#[test]
fn key_properties_of_the_examples() {
    // a few facts the review of the golden files relies on, stated as assertions
    let r = render_file(&root().join("examples/shortvideo-transcode.yaml"));
    let arm: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    let res = arm["resources"].as_array().unwrap();
    fn by_type<'a>(res: &'a [Value], t: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        res.iter().filter(move |r| r["type"] == t)
    }
    let vmss = by_type(res, "Microsoft.Compute/virtualMachineScaleSets")
        .next()
        .unwrap();
    assert_eq!(vmss["apiVersion"], "2025-11-01");
    assert_eq!(vmss["sku"]["capacity"], 2);
    assert_eq!(vmss["properties"]["orchestrationMode"], "Flexible");
    assert_eq!(
        vmss["properties"]["priorityMixPolicy"]["baseRegularPriorityCount"],
        2
    );
    assert_eq!(
        vmss["properties"]["virtualMachineProfile"]["priority"],
        "Spot"
    );
    assert_eq!(
        vmss["properties"]["virtualMachineProfile"]["osProfile"]["linuxConfiguration"]["disablePasswordAuthentication"],
        true
    );
    assert_eq!(
        vmss["properties"]["virtualMachineProfile"]["securityProfile"]["securityType"], "Standard",
        "Standard security is explicit: Trusted Launch by default would turn Secure Boot on"
    );
    let autoscale = by_type(res, "Microsoft.Insights/autoscaleSettings")
        .next()
        .unwrap();
    let profiles = autoscale["properties"]["profiles"].as_array().unwrap();
    assert_eq!(
        profiles.len(),
        5,
        "default + two schedules x (start, restore)"
    );
    let out_rule = &profiles[0]["rules"][0]["metricTrigger"];
    assert_eq!(
        (
            out_rule["metricName"].as_str(),
            out_rule["threshold"].as_u64(),
            out_rule["dividePerInstance"].as_bool()
        ),
        (Some("ActiveMessages"), Some(30), Some(true))
    );
    assert_eq!(
        profiles[0]["rules"][1]["metricTrigger"]["threshold"], 14,
        "flap-safe scale-in threshold"
    );
    for s in by_type(res, "Microsoft.Network/virtualNetworks")
        .next()
        .unwrap()["properties"]["subnets"]
        .as_array()
        .unwrap()
    {
        assert_eq!(s["properties"]["defaultOutboundAccess"], false);
    }
    // vault secrets, queue receiver, CMK key, and Monitoring Metrics Publisher on the GPU DCR;
    // Monitoring Contributor and Log Analytics Contributor for the Flexible pool's
    // DCR-association policy (its definition's roleDefinitionIds)
    assert_eq!(
        by_type(res, "Microsoft.Authorization/roleAssignments").count(),
        6
    );
    for ra in by_type(res, "Microsoft.Authorization/roleAssignments") {
        assert_eq!(ra["properties"]["principalType"], "ServicePrincipal");
        assert!(ra["name"].as_str().unwrap().starts_with("[guid("));
    }

    let llm = render_file(&root().join("examples/llm-finetune-a100.yaml"));
    let arm: Value = serde_json::from_str(file(&llm, emit::ARM_TEMPLATE)).unwrap();
    let autoscale = by_type(
        arm["resources"].as_array().unwrap(),
        "Microsoft.Insights/autoscaleSettings",
    )
    .next()
    .unwrap();
    assert!(
        autoscale["dependsOn"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().contains("queueServices/queues")),
        "the autoscale setting waits for the storage queue its rules read: {}",
        autoscale["dependsOn"]
    );

    let h100 = render_file(&root().join("examples/pretrain-nd-h100.yaml"));
    let arm: Value = serde_json::from_str(file(&h100, emit::ARM_TEMPLATE)).unwrap();
    let vmss = arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .unwrap();
    assert_eq!(vmss["properties"]["orchestrationMode"], "Uniform");
    assert_eq!(vmss["properties"]["singlePlacementGroup"], true);
    assert_eq!(vmss["properties"]["overprovision"], false);
    let exts = vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
        .as_array()
        .unwrap();
    assert!(
        !exts
            .iter()
            .any(|e| e["properties"]["publisher"] == "Microsoft.HpcCompute"),
        "the HPC image carries the driver"
    );
    // GPU monitoring: the agent and the collector's health probe (issue 12)
    let kinds: Vec<&str> = exts
        .iter()
        .map(|e| e["properties"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["AzureMonitorLinuxAgent", "ApplicationHealthLinux"]);
    assert!(
        !arm["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["type"] == "Microsoft.Insights/autoscaleSettings"),
        "fixed-size pool"
    );

    let win = render_file(&root().join("examples/windows-viz-nv.yaml"));
    let bicep_text = file(&win, emit::MAIN_BICEP);
    assert!(
        bicep_text
            .contains("@secure()\n@minLength(12)\n@maxLength(123)\nparam adminPassword string\n"),
        "no default on the password"
    );
    assert!(!file(&win, emit::ARM_PARAMETERS).contains("adminPassword"));
}

#[test]
fn a_spot_mix_on_a_uniform_scale_set_is_refused_not_rendered_all_spot() {
    // validation refuses the spec, and a policy that turns the rule off cannot hide this finding
    // (render could not emit it: validate OK must mean render accepts, issue 10 item 5)
    let mut policy = Policy::default();
    policy.overrides.insert("spot-needs-flexible".into(), None);
    let path = root().join("tests/fixtures/render/spot-mix-uniform.yaml");
    let checked = gpuform::check::check_file(&path, &policy, PriceTable::embedded());
    assert!(
        checked
            .diagnostics
            .iter()
            .any(|d| d.rule == "spot-needs-flexible" && d.is_error()),
        "{:?}",
        checked.diagnostics
    );
    let err = emit::render(&checked).unwrap_err();
    assert!(
        matches!(
            err,
            emit::RenderError::Plan(gpuform::plan::PlanError::Invalid(_))
        ),
        "{err:?}"
    );

    // an all-Spot pool needs no mix: it renders, every instance Spot
    let dir = tempfile::tempdir().unwrap();
    let all_spot = dir.path().join("all-spot.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("regularBase: 2", "regularBase: 0")
        .replace("regularPercentAboveBase: 50", "regularPercentAboveBase: 0");
    std::fs::write(&all_spot, text).unwrap();
    let checked = gpuform::check::check_file(&all_spot, &policy, PriceTable::embedded());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let arm: Value = serde_json::from_str(&emit::arm_template(&checked).unwrap()).unwrap();
    let vmss = arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .unwrap();
    assert_eq!(vmss["properties"]["orchestrationMode"], "Uniform");
    assert_eq!(
        vmss["properties"]["virtualMachineProfile"]["priority"],
        "Spot"
    );
    assert!(vmss["properties"].get("priorityMixPolicy").is_none());
}

// ------------------------------------------------------------------- adversarial strings

#[test]
fn adversarial_strings_keep_their_meaning() {
    let path = root().join("tests/fixtures/render/adversarial.yaml");
    let checked = gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
    let spec = checked.spec.clone().unwrap();
    let r = render_file(&path);
    let bicep_text = file(&r, emit::MAIN_BICEP);

    // the Bicep reads completely and every tag decodes to the spec's value
    let vars = support::variables(bicep_text).unwrap();
    let tags = vars["tags"].as_object().unwrap();
    let mut interpolated_keys = 0;
    for (k, v) in &spec.metadata.tags {
        if k.contains("${") {
            // the reader reports keys with `${` as interpolated unless escaped; they are escaped
            interpolated_keys += 1;
        }
        assert_eq!(
            tags.get(k).and_then(Value::as_str),
            Some(v.as_str()),
            "tag {k:?}"
        );
    }
    assert!(interpolated_keys > 0, "the fixture has a key with ${{");
    assert!(
        !tags.keys().any(|k| k.starts_with(support::INTERPOLATED)),
        "a tag key became an interpolation"
    );
    let meta = support::metadata(bicep_text).unwrap();
    assert_eq!(
        meta["description"].as_str(),
        spec.metadata.description.as_deref()
    );
    support::resources(bicep_text).unwrap();

    // bicepparam: the SSH key (with a quote and ${) decodes to the spec's
    let param_line = file(&r, emit::BICEPPARAM)
        .lines()
        .find(|l| l.starts_with("param sshPublicKey = "))
        .unwrap();
    let lit = param_line.trim_start_matches("param sshPublicKey = ");
    assert_eq!(
        support::unescape(&lit[1..lit.len() - 1]).unwrap(),
        spec.spec.compute.ssh_public_key.clone().unwrap()
    );

    // ARM: the same values after JSON decoding and `[[` unescaping
    let arm: Value = serde_json::from_str(file(&r, emit::ARM_TEMPLATE)).unwrap();
    for (k, v) in &spec.metadata.tags {
        let arm_key = if k.starts_with('[') && k.ends_with(']') {
            format!("[{k}")
        } else {
            k.clone()
        };
        let got = arm["variables"]["tags"][&arm_key].as_str().unwrap();
        assert_eq!(
            support::arm_literal(got).as_deref(),
            Some(v.as_str()),
            "ARM tag {k:?}"
        );
    }
    assert_eq!(
        arm["metadata"]["description"].as_str(),
        spec.metadata.description.as_deref()
    );

    // comments never end early: no rendered line starts inside a value
    for line in bicep_text.lines() {
        assert!(
            !line.starts_with("line two") && !line.starts_with("line2"),
            "a newline escaped into the file: {line}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn escaped_strings_are_one_literal_that_decodes_to_the_input(s in "\\PC*|[\\\\'$\\{\\}\\n\\r\\t a-z\u{0}-\u{1f}]*") {
        let escaped = bicep::escape(&s);
        prop_assert_eq!(support::unescape(&escaped).unwrap(), s.clone());
        // one literal: the Bicep reader takes it as a plain string (no bare quote, no live
        // interpolation) that decodes to the input, and there is no raw line break
        let lit = format!("'{escaped}'");
        let read = support::variables(&format!("var x = {lit}\n")).unwrap();
        prop_assert_eq!(read["x"].as_str(), Some(s.as_str()));
        prop_assert!(!escaped.contains('\n') && !escaped.contains('\r'));
    }
}

/// The autoscale profiles of a rendered ARM template.
fn autoscale_profiles(r: &Rendered) -> Vec<Value> {
    let arm: Value = serde_json::from_str(file(r, "azuredeploy.json")).unwrap();
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|res| res["type"] == "Microsoft.Insights/autoscaleSettings")
        .flat_map(|res| res["properties"]["profiles"].as_array().unwrap().clone())
        .collect()
}

/// Contract (issue 9 item 2): no two recurring profiles of a rendered autoscale setting start at
/// the same instant. Where they do, Azure uses only the first applicable profile, so the other
/// one never applies. Compared in UTC (standard offsets) across time zones.
#[test]
fn no_two_rendered_profiles_start_at_the_same_instant() {
    let days = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    let mut checked_profiles = 0;
    for path in all_specs() {
        let r = render_file(&path);
        let mut seen: BTreeMap<i64, String> = BTreeMap::new();
        for p in autoscale_profiles(&r) {
            let Some(s) = p["recurrence"].get("schedule") else {
                continue;
            };
            let tz = s["timeZone"].as_str().unwrap();
            let offset = i64::from(
                gpuform::spec::timezones::offset_minutes(tz)
                    .unwrap_or_else(|| panic!("{}: unknown time zone {tz}", path.display())),
            );
            for d in s["days"].as_array().unwrap() {
                let day = days.iter().position(|x| d == *x).unwrap() as i64;
                for h in s["hours"].as_array().unwrap() {
                    for m in s["minutes"].as_array().unwrap() {
                        let local = day * 1440 + h.as_i64().unwrap() * 60 + m.as_i64().unwrap();
                        let utc = (local - offset).rem_euclid(7 * 1440);
                        let name = p["name"].as_str().unwrap().to_string();
                        if let Some(other) = seen.insert(utc, name.clone()) {
                            panic!(
                                "{}: profiles `{other}` and `{name}` both start at {d} {h}:{m} {tz}",
                                path.display()
                            );
                        }
                        checked_profiles += 1;
                    }
                }
            }
        }
    }
    assert!(checked_profiles > 10, "no recurring profile was checked");
}

/// windows-viz: `office-hours` ends at 18:30 where `evening-on-call` starts. No restore profile
/// may start there (Azure would apply it instead of the on-call seats).
#[test]
fn windows_viz_renders_no_restore_profile_at_the_on_call_start() {
    let r = render_file(&root().join("examples/windows-viz-nv.yaml"));
    let profiles = autoscale_profiles(&r);
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"office-hours (end)"), "{names:?}");
    let at_1830: Vec<&str> = profiles
        .iter()
        .filter(|p| {
            p["recurrence"]["schedule"]["hours"] == serde_json::json!([18])
                && p["recurrence"]["schedule"]["minutes"] == serde_json::json!([30])
        })
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(at_1830, ["evening-on-call"]);
    // the evening's end still restores the default limits (zero seats at night)
    assert!(names.contains(&"evening-on-call (end)"), "{names:?}");
}

/// Issue 9 item 6: a dev/test spec with `autoShutdown` keeps its OS and data disks over a night.
/// It renders one VM (no scale set, no autoscale setting: nothing scales it in or deletes an
/// instance), its disks and NIC survive even a deletion of the VM (`Detach`), a DevTest Labs
/// schedule deallocates it at `time` in `timeZone`, and a Logic App starts it Monday-Friday at
/// `startTime`, with a role scoped to the VM that can start it and nothing more.
#[test]
fn dev_box_keeps_its_disks_over_a_night() {
    let r = render_file(&root().join("examples/dev-notebook-t4.yaml"));
    let arm: Value = serde_json::from_str(file(&r, "azuredeploy.json")).unwrap();
    let res = arm["resources"].as_array().unwrap();
    let of = |t: &str| -> Vec<&Value> { res.iter().filter(|x| x["type"] == t).collect() };
    assert!(of("Microsoft.Compute/virtualMachineScaleSets").is_empty());
    assert!(of("Microsoft.Insights/autoscaleSettings").is_empty());
    let vms = of("Microsoft.Compute/virtualMachines");
    assert_eq!(vms.len(), 1);
    let vm = vms[0];
    assert_eq!(vm["name"], "vm-dev-notebook");
    // nothing in the template deletes a disk: no delete option anywhere but Detach
    let mut delete_options = Vec::new();
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "deleteOption" {
                        out.push(x);
                    }
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(&arm, &mut delete_options);
    assert!(!delete_options.is_empty());
    assert!(
        delete_options.iter().all(|d| *d == "Detach"),
        "{delete_options:?}"
    );
    let storage = &vm["properties"]["storageProfile"];
    assert_eq!(storage["osDisk"]["deleteOption"], "Detach");
    assert_eq!(
        vm["properties"]["networkProfile"]["networkInterfaces"][0]["properties"]["deleteOption"],
        "Detach"
    );
    // the same driver extension as the pool would get, on the VM, first; then GPU monitoring's
    // collector, agent and health probe (tests/gpu_monitoring.rs)
    let ext = of("Microsoft.Compute/virtualMachines/extensions");
    let names: Vec<&str> = ext.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "vm-dev-notebook/NvidiaGpuDriverLinux",
            "vm-dev-notebook/GpuCollector",
            "vm-dev-notebook/AzureMonitorLinuxAgent",
            "vm-dev-notebook/HealthExtension"
        ]
    );
    assert_eq!(ext[0]["properties"]["type"], "NvidiaGpuDriverLinux");
    // the stop: DevTest Labs deallocates at 19:00 W. Europe, mails the alert address first
    let sched = of("Microsoft.DevTestLab/schedules");
    assert_eq!(sched.len(), 1);
    let sp = &sched[0]["properties"];
    assert_eq!(sched[0]["name"], "shutdown-computevm-vm-dev-notebook");
    assert_eq!(sp["taskType"], "ComputeVmShutdownTask");
    assert_eq!(sp["status"], "Enabled");
    assert_eq!(sp["dailyRecurrence"]["time"], "1900");
    assert_eq!(sp["timeZoneId"], "W. Europe Standard Time");
    assert_eq!(
        sp["notificationSettings"]["emailRecipient"],
        "vision-lab@example.com"
    );
    assert_eq!(
        sp["targetResourceId"],
        "[resourceId('Microsoft.Compute/virtualMachines', 'vm-dev-notebook')]"
    );
    // the start: Monday-Friday at 08:00 in the same zone (weekends: true keeps it off)
    let wf = of("Microsoft.Logic/workflows");
    assert_eq!(wf.len(), 1);
    assert_eq!(wf[0]["identity"]["type"], "SystemAssigned");
    let def = &wf[0]["properties"]["definition"];
    let rec = &def["triggers"]["Start_on_schedule"]["recurrence"];
    assert_eq!(rec["frequency"], "Week");
    assert_eq!(rec["timeZone"], "W. Europe Standard Time");
    assert!(rec["startTime"].as_str().is_some_and(|s| !s.ends_with('Z')));
    assert_eq!(
        rec["schedule"]["weekDays"],
        serde_json::json!(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"])
    );
    assert_eq!(rec["schedule"]["hours"], serde_json::json!([8]));
    assert_eq!(rec["schedule"]["minutes"], serde_json::json!([0]));
    let action = &def["actions"]["Start_VM"]["inputs"];
    assert_eq!(action["method"], "POST");
    let uri = action["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("[uri(environment().resourceManager,"),
        "{uri}"
    );
    assert!(uri.contains("/start?api-version="), "{uri}");
    assert!(!uri.contains("management.azure.com"), "{uri}");
    assert_eq!(action["authentication"]["type"], "ManagedServiceIdentity");
    assert_eq!(
        action["authentication"]["audience"],
        "[environment().resourceManager]"
    );
    // least privilege: Desktop Virtualization Power On Contributor, on the VM only
    let role = res
        .iter()
        .find(|x| {
            x["type"] == "Microsoft.Authorization/roleAssignments"
                && x["properties"]["roleDefinitionId"]
                    .as_str()
                    .unwrap()
                    .contains("489581de-a3bd-480d-9518-53dea7416b33")
        })
        .expect("the start workflow's role");
    assert_eq!(
        role["scope"],
        "Microsoft.Compute/virtualMachines/vm-dev-notebook"
    );
    assert!(
        role["properties"]["principalId"]
            .as_str()
            .unwrap()
            .contains("Microsoft.Logic/workflows")
    );
    // the outputs: a VM id, no scale set id
    assert!(arm["outputs"].get("vmId").is_some());
    assert!(arm["outputs"].get("vmssId").is_none());
    let bicep = file(&r, "main.bicep");
    assert!(!bicep.contains("management.azure.com/subscriptions"));
    assert!(bicep.contains("uri(environment().resourceManager, '${vm.id}/start?api-version="));
}

//! What the facts tests share: where the sources are (the team's reference data beside the
//! checkout, else the dated copies in `tests/fixtures/sources/`) and every rendered template
//! (every example, every render variant, the adversarial spec).

#![allow(dead_code)]

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::emit;
use gpuform::spec::Policy;
use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/<shared>` when the team's reference data is beside the checkout, else the vendored
/// copy `tests/fixtures/sources/<vendored>`.
pub fn source_path(shared: &str, vendored: &str) -> PathBuf {
    let s = root().join("../shared").join(shared);
    if s.is_file() {
        s
    } else {
        root().join("tests/fixtures/sources").join(vendored)
    }
}

pub fn read_json(path: &PathBuf) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The specs every facts test renders.
pub fn specs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["examples", "tests/fixtures/render/variants"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "yaml") {
                v.push(p);
            }
        }
    }
    v.push(root().join("tests/fixtures/render/adversarial.yaml"));
    v.sort();
    v
}

/// A rendered spec: its ARM template (parsed) and its Bicep.
pub struct Rendered {
    pub spec: PathBuf,
    pub arm: Value,
    pub bicep: String,
}

pub fn render_all() -> Vec<Rendered> {
    specs()
        .into_iter()
        .map(|path| {
            let checked =
                gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
            assert!(
                !checked.has_errors(),
                "{}: {:?}",
                path.display(),
                checked.diagnostics
            );
            let rendered = emit::render(&checked).unwrap();
            let file = |name: &str| {
                rendered
                    .files
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| t.clone())
                    .unwrap()
            };
            Rendered {
                arm: serde_json::from_str(&file("azuredeploy.json")).unwrap(),
                bicep: file("main.bicep"),
                spec: path,
            }
        })
        .collect()
}

/// Every JSON object in `v` (depth first, nested deployments included) with its JSON path.
pub fn objects<'a>(
    v: &'a Value,
    path: String,
    out: &mut Vec<(String, &'a serde_json::Map<String, Value>)>,
) {
    match v {
        Value::Object(m) => {
            out.push((path.clone(), m));
            for (k, x) in m {
                objects(x, format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                objects(x, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

pub fn str_of<'a>(m: &'a serde_json::Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str)
}

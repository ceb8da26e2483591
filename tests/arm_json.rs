//! The ARM JSON writer (`emit::value`'s tree printed by `emit::pretty`) held to serde_json
//! independently of the emitters: for every YAML under `examples/` and `tests/fixtures/` that
//! renders, `azuredeploy.json` and `azuredeploy.parameters.json` are valid JSON and exactly the
//! text serde_json's pretty printer writes of that JSON (with the final newline). A wrong
//! separator, indentation, escape or number would fail here whatever the goldens hold (issue 41:
//! the ARM template is no longer built as a `serde_json::Value`).

use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::emit;
use gpuform::spec::Policy;

fn yamls(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            yamls(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

#[test]
fn every_rendered_arm_file_is_serde_jsons_pretty_text() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut specs = Vec::new();
    yamls(&root.join("examples"), &mut specs);
    yamls(&root.join("tests/fixtures"), &mut specs);
    specs.sort();
    let mut rendered = 0;
    for path in &specs {
        let checked = gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded());
        if checked.has_errors() {
            continue;
        }
        let Ok(files) = emit::render(&checked) else {
            continue;
        };
        for (name, text) in &files.files {
            if !name.ends_with(".json") || *name == emit::BICEPCONFIG {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{} {name}: not JSON: {e}", path.display()));
            let pretty = serde_json::to_string_pretty(&v).unwrap() + "\n";
            assert!(
                *text == pretty,
                "{} {name}: not serde_json's pretty text (first difference at byte {})",
                path.display(),
                text.bytes()
                    .zip(pretty.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(text.len().min(pretty.len()))
            );
        }
        rendered += 1;
    }
    // the examples and the render fixtures at least (84 specs rendered when this was written)
    assert!(rendered >= 60, "only {rendered} specs rendered");
}

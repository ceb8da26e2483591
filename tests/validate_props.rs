//! Property tests: arbitrary YAML and mutated valid specs never panic, and every diagnostic
//! points at a real place in the file and renders.

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::diag::render_human;
use gpuform::spec::{Checked, Policy};
use proptest::prelude::*;

fn check(text: &str) -> Checked {
    check_source(
        text.to_string(),
        "prop.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

/// Every location lies inside the text on char boundaries, and every diagnostic renders.
fn assert_sound(text: &str, c: &Checked) {
    for d in &c.diagnostics {
        if let Some(l) = d.location {
            assert!(
                l.byte_start <= l.byte_end && l.byte_end <= text.len(),
                "{d:?}"
            );
            assert!(
                text.is_char_boundary(l.byte_start) && text.is_char_boundary(l.byte_end),
                "{d:?}"
            );
            assert!(l.line >= 1 && l.column >= 1, "{d:?}");
            assert!(l.line <= text.lines().count().max(1) + 1, "{d:?}");
        }
        let out = render_human(d, c.source.as_deref(), false);
        assert!(out.contains(&d.rule));
    }
}

const EXAMPLES: [&str; 5] = [
    include_str!("../examples/shortvideo-transcode.yaml"),
    include_str!("../examples/llm-finetune-a100.yaml"),
    include_str!("../examples/pretrain-nd-h100.yaml"),
    include_str!("../examples/dev-notebook-t4.yaml"),
    include_str!("../examples/windows-viz-nv.yaml"),
];

/// Values that break types, ranges and patterns in interesting ways.
fn nasty_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("1e309".to_string()),
        Just("9223372036854775808".to_string()),
        Just("-9223372036854775809".to_string()),
        Just("~".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("[1, [2, [3]]]".to_string()),
        Just("\"\"".to_string()),
        Just("true".to_string()),
        Just(".nan".to_string()),
        Just("\"ünïcødé 🎉\"".to_string()),
        Just("'${x}\\\\'".to_string()),
        Just("&a x".to_string()),
        Just("*a".to_string()),
        Just("!!binary aGk=".to_string()),
        Just("|\n  multi\n  line".to_string()),
        "[a-zA-Z0-9 _./:-]{0,40}",
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|f| f.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let c = check(&text);
        assert_sound(&text, &c);
    }

    #[test]
    fn yaml_shaped_noise_never_panics(lines in prop::collection::vec("[ -~]{0,30}|  [a-z]{1,8}: [ -~]{0,20}|- [ -~]{0,10}", 0..40)) {
        let text = lines.join("\n");
        let c = check(&text);
        assert_sound(&text, &c);
    }

    #[test]
    fn mutated_examples_never_panic(
        which in 0usize..5,
        ops in prop::collection::vec((0u8..5, any::<prop::sample::Index>(), nasty_value()), 1..6),
    ) {
        let mut lines: Vec<String> = EXAMPLES[which].lines().map(str::to_string).collect();
        for (op, idx, value) in ops {
            if lines.is_empty() { break; }
            let i = idx.index(lines.len());
            match op {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                2 => {
                    // replace the value after the first `: `
                    if let Some(pos) = lines[i].find(": ") {
                        let key = lines[i][..pos + 2].to_string();
                        lines[i] = format!("{key}{value}");
                    }
                }
                3 => { lines.insert(i, format!("  {}: {value}", ["extra", "vmSize", "max", "zones", "tags"][i % 5])); }
                _ => { lines[i] = format!(" {}", lines[i]); }
            }
        }
        let text = lines.join("\n");
        let c = check(&text);
        assert_sound(&text, &c);
        // a spec either has a model or says why not
        prop_assert!(c.spec.is_some() || c.has_errors());
    }
}

#[test]
fn unmutated_examples_are_sound_and_clean() {
    for e in EXAMPLES {
        let c = check(e);
        assert_sound(e, &c);
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
    }
}

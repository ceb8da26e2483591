//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning (and Azure DevOps' SARIF viewer).
//! Rule metadata comes from the rule registry; file URIs are relative to the working directory
//! (`%SRCROOT%`), which is the repository root in a workflow.

use serde_json::{Value, json};

use super::FileResult;
use crate::diag::{Severity, rules::RULES};

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn uri(path: &str) -> String {
    let p = path.replace('\\', "/");
    let p = p.strip_prefix("./").unwrap_or(&p).to_string();
    p.split('/')
        .map(|seg| {
            seg.bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

pub fn render<C: FileResult>(results: &[C]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id.split('-').map(|w| { let mut c = w.chars(); c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default() }).collect::<String>(),
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.description },
                "help": { "text": r.description },
                "defaultConfiguration": { "level": r.severity.sarif_level() },
                "properties": { "tags": [r.category, "gpuform"], "precision": "very-high", "problem.severity": match r.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Info => "recommendation" } }
            })
        })
        .collect();
    let mut artifacts: Vec<String> = Vec::new();
    let mut out_results = Vec::new();
    for c in results {
        let art_index = artifacts.len();
        artifacts.push(uri(c.path()));
        for d in c.diagnostics() {
            let rule_index = RULES.iter().position(|r| r.id == d.rule);
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            let mut physical = json!({ "artifactLocation": { "uri": uri(&d.file), "uriBaseId": "%SRCROOT%", "index": art_index } });
            if let Some(l) = &d.location {
                physical["region"] = json!({ "startLine": l.line, "startColumn": l.column, "endLine": l.end_line, "endColumn": l.end_column });
            } else {
                physical["region"] = json!({ "startLine": 1 });
            }
            let mut r = json!({
                "ruleId": d.rule,
                "level": d.severity.sarif_level(),
                "message": { "text": text },
                "locations": [{ "physicalLocation": physical }],
                "partialFingerprints": { "gpuformRule/v1": format!("{}:{}:{}", d.rule, d.pointer.as_deref().unwrap_or(""), uri(&d.file)) }
            });
            if let Some(i) = rule_index {
                r["ruleIndex"] = json!(i);
            }
            if let Some(p) = &d.pointer {
                r["properties"] = json!({ "jsonPointer": p });
            }
            out_results.push(r);
        }
    }
    let doc = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "gpuform",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/gpuform/gpuform",
                "rules": rules
            }},
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "The directory gpuform ran in (the repository root in CI)." } } },
            "artifacts": artifacts.iter().map(|u| json!({ "location": { "uri": u, "uriBaseId": "%SRCROOT%" } })).collect::<Vec<_>>(),
            "columnKind": "unicodeCodePoints",
            "results": out_results
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("sarif serialises");
    s.push('\n');
    s
}

//! The embedded JSON Schema (`schemas/gpuworkload.schema.json`) and the translation of its
//! errors into diagnostics. The jsonschema crate never leaks out of this module.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::yaml::{escape_pointer, unescape_pointer};
use crate::diag::Diagnostic;

/// The schema text, as shipped in `schemas/` and printed by `gpuform schema`.
pub const SCHEMA_TEXT: &str = include_str!("../../schemas/gpuworkload.schema.json");

pub fn schema_json() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::from_str(SCHEMA_TEXT).expect("embedded schema is valid JSON (tested)")
    })
}

fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema_json())
            .expect("embedded schema compiles (tested)")
    })
}

/// Validate `instance` against the schema. Diagnostics carry pointers but no locations.
pub fn validate(instance: &Value) -> Vec<Diagnostic> {
    let validator = validator();
    // most specs pass: the yes/no check skips building every error iterator and stops at the
    // first failure; only a failing spec walks the schema again for every error
    if validator.is_valid(instance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for err in validator.iter_errors(instance) {
        translate(&err, &mut out);
    }
    fold_typos(out)
}

/// A misspelt required key is one mistake, not two: the "missing required field" the typo
/// causes is dropped, and the unknown key's "did you mean" says the field is required (the
/// missing-field error sat on the parent's line, before the useful one).
fn fold_typos(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let parent = |p: &str| {
        p.rsplit_once('/')
            .map_or(String::new(), |(a, _)| a.to_string())
    };
    // (object, suggested key) of every unknown field with a suggestion
    let typos: Vec<(String, String)> = diags
        .iter()
        .filter(|d| d.rule == "unknown-field")
        .filter_map(|d| {
            let hint = d.help.as_deref()?.strip_prefix("did you mean `")?;
            let key = hint.split('`').next()?;
            Some((parent(d.pointer.as_deref()?), key.to_string()))
        })
        .collect();
    let folded = |d: &Diagnostic| {
        d.rule == "missing-field"
            && d.pointer.as_deref().is_some_and(|p| {
                let (obj, key) = (parent(p), p.rsplit('/').next().unwrap_or_default());
                typos.iter().any(|(o, k)| *o == obj && k == key)
            })
    };
    let missing: Vec<String> = diags
        .iter()
        .filter(|d| folded(d))
        .filter_map(|d| d.pointer.clone())
        .collect();
    diags
        .into_iter()
        .filter(|d| !folded(d))
        .map(|mut d| {
            if d.rule == "unknown-field"
                && let Some(p) = d.pointer.clone()
                && let Some(h) = d.help.clone()
                && let Some(key) = h
                    .strip_prefix("did you mean `")
                    .and_then(|x| x.split('`').next())
                && missing.contains(&format!("{}/{key}", parent(&p)))
            {
                d.help = Some(format!(
                    "did you mean `{key}`? (`{key}` is required here and missing)"
                ));
            }
            d
        })
        .collect()
}

fn pointer_of(err: &ValidationError<'_>) -> String {
    err.instance_path().as_str().to_string()
}

fn translate(err: &ValidationError<'_>, out: &mut Vec<Diagnostic>) {
    let ptr = pointer_of(err);
    let field = field_name(&ptr);
    let schema_node = schema_at(err.schema_path().as_str());
    match err.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed = allowed_keys(&ptr);
            for key in unexpected {
                let child = format!("{ptr}/{}", escape_pointer(key));
                let mut d = Diagnostic::new(
                    "unknown-field",
                    format!("unknown field `{key}`{}", in_object(&ptr)),
                )
                .at_key(child)
                .label("not a field of this object");
                d = match suggest(key, allowed.iter().map(String::as_str)) {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d.help(format!("valid fields here: {}", list(&allowed))),
                };
                out.push(d);
            }
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let desc = schema_node
                .and_then(|n| parent_node(err.schema_path().as_str()).or(Some(n)))
                .and_then(|n| n.get("properties"))
                .and_then(|p| p.get(name))
                .and_then(describe);
            let mut d = Diagnostic::new(
                "missing-field",
                format!("missing required field `{name}`{}", in_object(&ptr)),
            )
            .at(format!("{ptr}/{name}"))
            .label(format!("`{name}` is required here"));
            if let Some(desc) = desc {
                d = d.help(format!("add `{name}`: {desc}"));
            }
            out.push(d);
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(ts) => ts
                    .into_iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let got = json_type(err.instance());
            let mut d = Diagnostic::new(
                "invalid-type",
                format!("`{field}` must be {}, found {got}", article(&expected)),
            )
            .at(ptr.clone())
            .label(format!("expected {expected}"));
            if expected == "string" && err.instance().is_number() {
                let key = field.rsplit('.').next().unwrap_or(&field);
                d = d.help(format!("quote the value: `{key}: \"{}\"`", err.instance()));
            } else if let Some(desc) =
                schema_at(parent_path(err.schema_path().as_str())).and_then(describe)
            {
                d = d.help(desc);
            }
            out.push(d);
        }
        ValidationErrorKind::Enum { options } => {
            let opts: Vec<String> = options.as_array().into_iter().flatten().map(show).collect();
            let got = show(err.instance());
            let mut d = Diagnostic::new("invalid-value", format!("`{field}` cannot be {got}"))
                .at(ptr.clone())
                .label(format!("expected one of {}", opts.join(", ")));
            let plain: Vec<&str> = options
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if let Some(s) = err
                .instance()
                .as_str()
                .and_then(|v| suggest(v, plain.iter().copied()))
            {
                d = d.help(format!("did you mean `{s}`?"));
            } else {
                d = d.help(format!("allowed values: {}", opts.join(", ")));
            }
            out.push(d);
        }
        ValidationErrorKind::Constant { expected_value } => {
            // a wrong apiVersion is a version gpuform does not read; a wrong kind is a wrong value
            let rule = if ptr == "/apiVersion" {
                "unsupported-version"
            } else {
                "invalid-value"
            };
            out.push(
                Diagnostic::new(
                    rule,
                    format!(
                        "`{field}` must be {}, found {}",
                        show(expected_value),
                        show(err.instance())
                    ),
                )
                .at(ptr.clone())
                .label(format!("expected {}", show(expected_value)))
                .help(format!(
                    "set `{field}: {}`",
                    expected_value.as_str().unwrap_or_default()
                )),
            );
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            // Report the branch that came closest, when one is clearly about this value.
            let best = context
                .iter()
                .filter(|b| !b.is_empty())
                .min_by_key(|b| b.len());
            let expected = schema_node
                .and_then(|_| schema_at(parent_path(err.schema_path().as_str())))
                .and_then(|n| n.get("x-expected"))
                .and_then(Value::as_str)
                .map(str::to_string);
            match (expected, best) {
                (Some(exp), _) => out.push(
                    Diagnostic::new("invalid-value", format!("`{field}` must be {exp}"))
                        .at(ptr.clone())
                        .label("does not match")
                        .help(format!("give {exp}")),
                ),
                (None, Some(branch)) => {
                    for e in branch {
                        translate(e, out);
                    }
                }
                (None, None) => out.push(
                    Diagnostic::new("invalid-value", format!("`{field}` is not valid here"))
                        .at(ptr.clone()),
                ),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            let exp = schema_at(parent_path(err.schema_path().as_str()))
                .and_then(|n| n.get("x-expected"))
                .and_then(Value::as_str)
                .unwrap_or("exactly one of the alternatives");
            out.push(
                Diagnostic::new("invalid-value", format!("`{field}` must be {exp}"))
                    .at(ptr.clone())
                    .label("more than one alternative given")
                    .help(format!("keep {exp}")),
            );
        }
        _ => {
            let (what, help) = constraint_text(err, &field);
            // a duration's pattern is no help to read: name the forms instead
            let label = match err.kind() {
                ValidationErrorKind::Pattern { pattern }
                    if crate::spec::duration::is_duration_pattern(pattern) =>
                {
                    "not a duration (e.g. PT2M or 2m)".to_string()
                }
                _ => first_clause(&err.to_string()),
            };
            let mut d = Diagnostic::new("invalid-value", what)
                .at(ptr.clone())
                .label(label);
            if let Some(h) = help {
                d = d.help(h);
            } else if let Some(desc) =
                schema_at(parent_path(err.schema_path().as_str())).and_then(describe)
            {
                d = d.help(desc);
            }
            out.push(d);
        }
    }
}

fn constraint_text(err: &ValidationError<'_>, field: &str) -> (String, Option<String>) {
    let got = show(err.instance());
    match err.kind() {
        ValidationErrorKind::Minimum { limit } => (
            format!("`{field}` is {got}, below the minimum of {limit}"),
            None,
        ),
        ValidationErrorKind::Maximum { limit } => (
            format!("`{field}` is {got}, above the maximum of {limit}"),
            None,
        ),
        ValidationErrorKind::ExclusiveMinimum { limit } => (
            format!("`{field}` is {got}; it must be greater than {limit}"),
            None,
        ),
        ValidationErrorKind::ExclusiveMaximum { limit } => (
            format!("`{field}` is {got}; it must be less than {limit}"),
            None,
        ),
        ValidationErrorKind::MinLength { limit } => (
            format!("`{field}` is shorter than {limit} characters"),
            None,
        ),
        ValidationErrorKind::MaxLength { limit } => {
            (format!("`{field}` is longer than {limit} characters"), None)
        }
        ValidationErrorKind::MinItems { limit } => {
            (format!("`{field}` needs at least {limit} item(s)"), None)
        }
        ValidationErrorKind::MaxItems { limit } => {
            (format!("`{field}` has more than {limit} items"), None)
        }
        ValidationErrorKind::MaxProperties { limit } => {
            (format!("`{field}` has more than {limit} entries"), None)
        }
        ValidationErrorKind::UniqueItems => (
            format!("`{field}` lists the same item twice"),
            Some("remove the duplicate".into()),
        ),
        ValidationErrorKind::Pattern { pattern }
            if crate::spec::duration::is_duration_pattern(pattern) =>
        {
            (
                format!("`{field}` is not a duration: {got}"),
                Some(format!("give {}", crate::spec::duration::FORMS)),
            )
        }
        ValidationErrorKind::Pattern { .. } => {
            // `West Europe` is the portal's name of `westeurope`: say so, as for a typo
            let region = err
                .instance()
                .as_str()
                .filter(|_| field.contains("egion"))
                .map(crate::catalog::regions::arm_name)
                .filter(|r| crate::catalog::regions::is_known(r))
                .map(|r| {
                    format!(
                        "did you mean `{r}`? region names are lowercase without spaces, as `az account list-locations -o table` prints them"
                    )
                });
            (format!("`{field}` has an invalid format: {got}"), region)
        }
        ValidationErrorKind::PropertyNames { .. } => {
            (format!("a key in `{field}` is not allowed"), None)
        }
        _ => (format!("`{field}` is not valid: {}", err), None),
    }
}

fn first_clause(s: &str) -> String {
    let s = s.lines().next().unwrap_or(s);
    if s.len() > 120 {
        format!(
            "{}…",
            &s[..s
                .char_indices()
                .take_while(|(i, _)| *i < 117)
                .last()
                .map_or(0, |(i, c)| i + c.len_utf8())]
        )
    } else {
        s.to_string()
    }
}

fn in_object(ptr: &str) -> String {
    if ptr.is_empty() {
        " at the top level".into()
    } else {
        format!(" in `{}`", dotted(ptr))
    }
}

/// `/spec/capacity/max` → `spec.capacity.max`; `/spec/compute/dataDisks/0` → `spec.compute.dataDisks[0]`.
pub fn dotted(ptr: &str) -> String {
    let mut out = String::new();
    for seg in ptr.split('/').skip(1) {
        let seg = unescape_pointer(seg);
        if seg.chars().all(|c| c.is_ascii_digit()) && !seg.is_empty() {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

fn field_name(ptr: &str) -> String {
    if ptr.is_empty() {
        "document".into()
    } else {
        dotted(ptr)
    }
}

fn article(t: &str) -> String {
    match t {
        "object" => "a mapping".into(),
        "array" => "a list".into(),
        "string" => "text".into(),
        "integer" => "a whole number".into(),
        "number" => "a number".into(),
        "boolean" => "true or false".into(),
        other => other.to_string(),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing (null)",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "a whole number",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe(node: &Value) -> Option<String> {
    let node = deref(node);
    node.get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The schema node at a schema pointer (no `$ref` traversal is needed: jsonschema reports
/// canonical locations).
fn schema_at(ptr: &str) -> Option<&'static Value> {
    schema_json().pointer(ptr)
}

fn parent_path(ptr: &str) -> &str {
    ptr.rfind('/').map_or("", |i| &ptr[..i])
}

fn parent_node(ptr: &str) -> Option<&'static Value> {
    schema_at(parent_path(ptr))
}

fn deref(node: &Value) -> &Value {
    let mut node = node;
    for _ in 0..8 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with("#/") => match schema_json().pointer(&r[1..]) {
                Some(n) => node = n,
                None => break,
            },
            _ => break,
        }
    }
    node
}

/// The property names the schema allows in the object at `instance_ptr`.
pub fn allowed_keys(instance_ptr: &str) -> Vec<String> {
    let mut node = deref(schema_json());
    for seg in instance_ptr.split('/').skip(1) {
        let seg = unescape_pointer(seg);
        let next = if seg.chars().all(|c| c.is_ascii_digit()) {
            node.get("items")
        } else {
            node.get("properties")
                .and_then(|p| p.get(seg.as_str()))
                .or_else(|| {
                    node.get("else")
                        .map(deref)
                        .and_then(|e| e.get("properties"))
                        .and_then(|p| p.get(seg.as_str()))
                })
        };
        match next {
            Some(n) => {
                node = deref(n);
                if let Some(e) = node
                    .get("else")
                    .filter(|_| node.get("properties").is_none())
                {
                    node = deref(e);
                }
            }
            None => return Vec::new(),
        }
    }
    node.get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The closest candidate by edit distance, when it is close enough to be a typo.
///
/// A candidate less than half the word's length is no typo of it and is skipped before any
/// distance is computed: both distances are O(len(word) × len(candidate)), and a hostile spec
/// with a 100 KB time zone name against ~140 zone names took 21 s (issue 10, found by the fuzz
/// target in tests/hardening_props.rs).
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .filter(|c| word.len() <= 2 * c.len() + 3)
        .map(|c| {
            let cl = c.to_ascii_lowercase();
            let score = if cl == lower {
                0.0
            } else {
                1.0 - strsim::jaro_winkler(&lower, &cl)
            };
            (c, score, strsim::levenshtein(&lower, &cl))
        })
        .filter(|(c, score, lev)| *score < 0.2 || *lev <= (c.len() / 3).max(1))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, ..)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_is_a_valid_2020_12_schema() {
        assert!(jsonschema::meta::is_valid(schema_json()));
        assert_eq!(
            schema_json()["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        // the document header the model is named after
        let props = &schema_json()["properties"];
        assert_eq!(
            props["apiVersion"]["const"],
            crate::spec::model::API_VERSION
        );
        assert_eq!(props["kind"]["const"], crate::spec::model::KIND);
    }

    /// The workload name's pattern says what its description says (lowercase letters, digits and
    /// single hyphens, starting with a letter, ending with a letter or digit), for every string
    /// of up to six characters over letters, digits, `-` and `_`; and it needs no look-around,
    /// which a regular expression engine without backtracking (the `regex` crate here) runs as
    /// one automaton for every spec's name (issue 41).
    #[test]
    fn the_workload_name_pattern_is_its_description() {
        let name = &schema_json()["properties"]["metadata"]["properties"]["name"];
        assert!(
            name["description"]
                .as_str()
                .unwrap()
                .contains("lowercase letters, digits and single hyphens, starting with a letter")
        );
        let re = regex::Regex::new(name["pattern"].as_str().unwrap()).unwrap();
        let alphabet = ['a', 'z', 'A', '0', '9', '-', '_'];
        let described = |s: &str| {
            let b = s.as_bytes();
            b.len() >= 2
                && b[0].is_ascii_lowercase()
                && (b[b.len() - 1].is_ascii_lowercase() || b[b.len() - 1].is_ascii_digit())
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && !s.contains("--")
        };
        let mut words = vec![String::new()];
        let mut checked = 0;
        for _ in 0..6 {
            words = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            for w in &words {
                assert_eq!(re.is_match(w), described(w), "{w:?}");
                checked += 1;
            }
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn allowed_keys_follow_refs_and_arrays() {
        assert!(allowed_keys("/spec/capacity").contains(&"regularBase".to_string()));
        assert!(allowed_keys("/spec/compute/dataDisks/0").contains(&"caching".to_string()));
        assert!(allowed_keys("/spec/compute/image").contains(&"publisher".to_string()));
        assert!(allowed_keys("").contains(&"apiVersion".to_string()));
    }

    #[test]
    fn a_huge_word_gets_no_suggestion_and_costs_no_distance() {
        let zones: Vec<&str> = crate::spec::timezones::names().collect();
        let huge = "x".repeat(130_000);
        let start = std::time::Instant::now();
        assert_eq!(suggest(&huge, zones.iter().copied()), None);
        assert!(start.elapsed() < std::time::Duration::from_millis(200));
        // a near miss still gets its suggestion
        assert_eq!(
            suggest("W. Europe Standard Tim", zones.iter().copied()),
            Some("W. Europe Standard Time")
        );
    }

    #[test]
    fn suggestions_catch_typos_only() {
        let keys = [
            "regularBase",
            "regularPercentAboveBase",
            "min",
            "max",
            "default",
        ];
        assert_eq!(suggest("regularbase", keys), Some("regularBase"));
        assert_eq!(suggest("maxx", keys), Some("max"));
        assert_eq!(suggest("flavour", keys), None);
    }

    #[test]
    fn errors_become_rule_ids() {
        let v = json!({"apiVersion": "gpuform/v2", "kind": "GpuWorkload", "metadata": {"name": "ok-name"},
            "spec": {"region": "eastus", "workload": {"type": "trainng", "gpuMemoryGiB": "x"}, "capacity": {"maxx": 1}}});
        let rules: Vec<_> = validate(&v)
            .into_iter()
            .map(|d| (d.rule, d.pointer.unwrap_or_default()))
            .collect();
        assert!(
            rules.contains(&("unsupported-version".into(), "/apiVersion".into())),
            "{rules:?}"
        );
        assert!(
            rules.contains(&("invalid-value".into(), "/spec/workload/type".into())),
            "{rules:?}"
        );
        assert!(
            rules.contains(&("invalid-type".into(), "/spec/workload/gpuMemoryGiB".into())),
            "{rules:?}"
        );
        assert!(
            rules.contains(&("unknown-field".into(), "/spec/capacity/maxx".into())),
            "{rules:?}"
        );
        // the typo of a required key is one finding, its "did you mean" (issue 37, item 10)
        assert!(
            !rules.contains(&("missing-field".into(), "/spec/capacity/max".into())),
            "{rules:?}"
        );
        let typo = validate(&v)
            .into_iter()
            .find(|d| d.rule == "unknown-field")
            .unwrap();
        assert_eq!(
            typo.help.as_deref(),
            Some("did you mean `max`? (`max` is required here and missing)")
        );
        // a required key missing without a look-alike stays a missing-field error
        let v = json!({"apiVersion": "gpuform/v1", "kind": "GpuWorkload", "metadata": {"name": "ok-name"},
            "spec": {"region": "eastus", "workload": {"type": "training", "gpuMemoryGiB": 1}, "capacity": {"flavour": 1}}});
        let rules: Vec<_> = validate(&v)
            .into_iter()
            .map(|d| (d.rule, d.pointer.unwrap_or_default()))
            .collect();
        assert!(
            rules.contains(&("missing-field".into(), "/spec/capacity/max".into())),
            "{rules:?}"
        );
    }
}

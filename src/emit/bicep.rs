//! Bicep from the Handlebars templates in `templates/` (one per concern, wired by
//! `main.bicep.hbs`), with the plan as context.
//!
//! Safety rules: one registry, strict mode (a missing field is an error, not an empty string),
//! HTML escaping replaced by [`escape`] for every `{{value}}`, and no triple-stash in any
//! template (a test lints them). Templates put string values between single quotes; numbers and
//! booleans come from typed plan fields; objects go through the `obj` helper, which escapes too.

use std::sync::OnceLock;

use handlebars::template::TemplateElement;
use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason, Template,
};
use serde_json::Value;

pub use super::bicep_text::{comment, escape, escape_into, literal, number};
use super::hbs;
use super::value::Value as Tree;
use super::value_ser::to_tree;
use crate::plan::Plan;

/// The templates, embedded: (registry name, source).
pub const TEMPLATES: &[(&str, &str)] = &[
    ("main", include_str!("../../templates/main.bicep.hbs")),
    ("network", include_str!("../../templates/network.bicep.hbs")),
    (
        "identity",
        include_str!("../../templates/identity.bicep.hbs"),
    ),
    (
        "keyvault",
        include_str!("../../templates/keyvault.bicep.hbs"),
    ),
    (
        "private_endpoint",
        include_str!("../../templates/private_endpoint.bicep.hbs"),
    ),
    ("serving", include_str!("../../templates/serving.bicep.hbs")),
    ("compute", include_str!("../../templates/compute.bicep.hbs")),
    ("devbox", include_str!("../../templates/devbox.bicep.hbs")),
    (
        "autoscale",
        include_str!("../../templates/autoscale.bicep.hbs"),
    ),
    ("standby", include_str!("../../templates/standby.bicep.hbs")),
    (
        "monitoring",
        include_str!("../../templates/monitoring.bicep.hbs"),
    ),
    (
        "gpu_monitoring",
        include_str!("../../templates/gpu_monitoring.bicep.hbs"),
    ),
    (
        "bicepparam",
        include_str!("../../templates/main.bicepparam.hbs"),
    ),
];

/// `{{obj value indent}}`: a JSON value (usually an object) as a Bicep literal.
fn obj_helper(
    h: &Helper,
    _: &Handlebars,
    _: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    let v = h
        .param(0)
        .ok_or_else(|| RenderErrorReason::ParamNotFoundForIndex("obj", 0))?
        .value();
    let indent = h.param(1).and_then(|p| p.value().as_u64()).unwrap_or(0) as usize;
    out.write(&literal(v, indent))?;
    Ok(())
}

/// `{{comment value}}`: a string for a `//` comment line.
fn comment_helper(
    h: &Helper,
    _: &Handlebars,
    _: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    match h.param(0).map(|p| p.value()) {
        Some(Value::String(s)) => {
            out.write(&comment(s))?;
            Ok(())
        }
        other => Err(RenderErrorReason::Other(format!(
            "comment: expected a string, got {other:?}"
        ))
        .into()),
    }
}

/// `{{num value}}`: a number as a Bicep literal (`json('0.9')` for decimals).
fn num_helper(
    h: &Helper,
    _: &Handlebars,
    _: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    match h.param(0).map(|p| p.value()) {
        Some(Value::Number(n)) => {
            out.write(&number(n))?;
            Ok(())
        }
        other => {
            Err(RenderErrorReason::Other(format!("num: expected a number, got {other:?}")).into())
        }
    }
}

/// [`TEMPLATES`] parsed by the handlebars crate, in their order: what both the registry (the
/// oracle) and the compiled templates start from.
fn parsed_templates() -> Vec<(&'static str, Template)> {
    // the templates are part of the binary and covered by tests: a syntax error is a bug
    TEMPLATES
        .iter()
        .map(|(name, src)| {
            let t = Template::compile_with_name(src, name.to_string())
                .unwrap_or_else(|e| panic!("template {name}: {e}"));
            (*name, t)
        })
        .collect()
}

fn registry() -> &'static Handlebars<'static> {
    static REG: OnceLock<Handlebars<'static>> = OnceLock::new();
    REG.get_or_init(|| {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(escape);
        hb.register_helper("obj", Box::new(obj_helper));
        hb.register_helper("num", Box::new(num_helper));
        hb.register_helper("comment", Box::new(comment_helper));
        let compiled = parsed_templates();
        for (name, t) in &compiled {
            let mut t = t.clone();
            if *name == "main" {
                splice_partials(&mut t, &compiled);
            }
            hb.register_template(name, t);
        }
        hb
    })
}

/// Replace, in `t` and the blocks inside it, every partial `{{> name}}` that takes no parameter,
/// no hash and no indentation by the compiled elements of template `name`: what Handlebars
/// renders for such a partial (its elements, in the same context), without the copy of the
/// whole plan context that Handlebars makes for every partial it enters (`merge_json` clones
/// the current value). The plan context is ~100 KB of JSON, entered by 9 partials per spec: at
/// platform scale that copy was the largest single cost of a render. Partials with a parameter
/// or a hash (`private_endpoint`) stay partials: their context is a small sub-object.
///
/// Splicing compiled templates rather than pasting their text into `main.bicep.hbs` keeps the
/// compile fast: Handlebars 6 finds each element's line and column by counting from the start
/// of its template, so one template of all the text took ~0.13 s to compile per process.
fn splice_partials(t: &mut Template, partials: &[(&str, Template)]) {
    let elements = std::mem::take(&mut t.elements);
    let mut mapping = std::mem::take(&mut t.mapping).into_iter();
    for mut el in elements {
        let at = mapping.next();
        let spliced = match &el {
            TemplateElement::PartialExpression(d)
                if d.params.is_empty()
                    && d.hash.is_empty()
                    && d.template.is_none()
                    && d.indent.as_deref().unwrap_or_default().is_empty() =>
            {
                let name = d.name.as_name().unwrap_or_default();
                partials.iter().find(|(n, _)| *n == name && *n != "main")
            }
            _ => None,
        };
        if let Some((_, p)) = spliced {
            let mut p = p.clone();
            splice_partials(&mut p, partials);
            t.elements.extend(p.elements);
            t.mapping.extend(p.mapping);
            continue;
        }
        if let TemplateElement::HelperBlock(h) = &mut el {
            for inner in [h.template.as_mut(), h.inverse.as_mut()]
                .into_iter()
                .flatten()
            {
                splice_partials(inner, partials);
            }
        }
        t.elements.push(el);
        t.mapping.extend(at);
    }
}

/// The templates compiled into [`hbs::Node`]s, in the order of [`TEMPLATES`] (`main` with the
/// partials that take no context spliced in, as [`registry`] splices them).
fn compiled() -> &'static [hbs::Nodes] {
    static COMPILED: OnceLock<Vec<hbs::Nodes>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let templates = parsed_templates();
        templates
            .iter()
            .map(|(_, t)| hbs::compile(t, &templates))
            .collect()
    })
}

fn template_index(name: &str) -> usize {
    TEMPLATES
        .iter()
        .position(|(n, _)| *n == name)
        .expect("a template of TEMPLATES")
}

/// Render template `name` with the plan value `root` into `out`.
fn render_compiled(name: &str, root: &Tree, out: &mut String) -> Result<(), RenderError> {
    let partials = compiled();
    hbs::Renderer { partials, root }.render(&partials[template_index(name)], out)
}

/// `main.bicep` and `main.bicepparam`, from one serialisation of the plan (the templates read
/// the plan as a JSON value: the compact tree of [`super::value`], built as
/// `serde_json::to_value` builds its value, [`super::value_ser`]), through the compiled
/// templates ([`hbs`]).
pub fn main_and_param(plan: &Plan) -> Result<(String, String), RenderError> {
    // main.bicep is 60-115 KB for the examples: one buffer of that size rather than a copy
    // into one twice the size halfway through
    let mut main = String::with_capacity(160 * 1024);
    let mut param = String::with_capacity(1024);
    main_and_param_into(plan, &mut main, &mut param)?;
    Ok((main, param))
}

/// [`main_and_param`], appended to `main` and `param`.
pub fn main_and_param_into(
    plan: &Plan,
    main: &mut String,
    param: &mut String,
) -> Result<(), RenderError> {
    let root = to_tree(plan).map_err(RenderErrorReason::SerdeError)?;
    render_compiled("main", &root, main)?;
    render_compiled("bicepparam", &root, param)
}

/// [`main_and_param`] through the handlebars crate: the oracle the compiled templates are
/// tested against (tests/render.rs), not used by gpuform itself.
#[doc(hidden)]
pub fn handlebars_main_and_param(plan: &Plan) -> Result<(String, String), RenderError> {
    let ctx = Context::wraps(plan)?;
    let reg = registry();
    Ok((
        reg.render_with_context("main", &ctx)?,
        reg.render_with_context("bicepparam", &ctx)?,
    ))
}

/// `main.bicep`.
pub fn main_bicep(plan: &Plan) -> Result<String, RenderError> {
    Ok(main_and_param(plan)?.0)
}

/// `main.bicepparam`.
pub fn bicepparam(plan: &Plan) -> Result<String, RenderError> {
    Ok(main_and_param(plan)?.1)
}

/// `bicepconfig.json`: the security-relevant linter rules raised to errors.
pub fn bicepconfig() -> String {
    bicepconfig_str().to_owned()
}

/// [`bicepconfig`], the same for every spec: built once per process.
pub fn bicepconfig_str() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(bicepconfig_text)
}

fn bicepconfig_text() -> String {
    let rules = [
        "adminusername-should-not-be-literal",
        "no-hardcoded-env-urls",
        "no-hardcoded-location",
        "no-unused-params",
        "outputs-should-not-contain-secrets",
        "protect-commandtoexecute-secrets",
        "secure-parameter-default",
        "secure-params-in-nested-deploy",
        "secure-secrets-in-params",
        "use-secure-value-for-secure-inputs",
        "use-stable-vm-image",
    ];
    let mut map = serde_json::Map::new();
    for r in rules {
        map.insert(r.to_string(), serde_json::json!({ "level": "error" }));
    }
    let cfg = serde_json::json!({
        "analyzers": {
            "core": {
                "enabled": true,
                "rules": map,
            }
        }
    });
    let mut s = serde_json::to_string_pretty(&cfg).expect("static json");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_bicep_string_syntax() {
        assert_eq!(escape("a'b"), "a\\'b");
        assert_eq!(escape("c:\\x"), "c:\\\\x");
        assert_eq!(escape("${x}"), "\\${x}");
        assert_eq!(escape("$x {"), "$x {");
        assert_eq!(escape("l1\nl2\r\t"), "l1\\nl2\\r\\t");
        assert_eq!(escape("\u{1}"), "\\u{1}");
        assert_eq!(escape("Zürich ☃"), "Zürich ☃");
        // C1 controls (two bytes in UTF-8) are escaped, the other characters of that lead byte not
        assert_eq!(
            escape("a\u{85}b\u{9f}\u{a0}©'"),
            "a\\u{85}b\\u{9F}\u{a0}©\\'"
        );
        assert_eq!(comment("a\u{85}b\nc ©"), "a b c ©");
    }

    /// The escape as first written, one character at a time: what [`escape`] (its copy-through
    /// test and its copying of runs) must agree with.
    fn escape_one_by_one(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
                c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
                c => out.push(c),
            }
        }
        out
    }

    proptest::proptest! {
        /// The copy-through path of `escape` is taken only where the character loop would
        /// change nothing, and the runs it copies are the characters the loop keeps: any string
        /// (short, or longer than the 64-byte blocks of the copy-through test) escapes the same.
        #[test]
        fn escape_agrees_with_the_character_loop(
            s in "([ -~]|[\\\\'$\\{\\n\\r\\t\\u{0}-\\u{1f}\\u{7f}-\\u{a0}]|\\PC){0,40}",
            plain in "[A-Za-z0-9+/=]{0,150}",
        ) {
            proptest::prop_assert_eq!(escape(&s), escape_one_by_one(&s));
            let long = format!("{plain}{s}{plain}");
            proptest::prop_assert_eq!(escape(&long), escape_one_by_one(&long));
            proptest::prop_assert_eq!(escape(&plain), escape_one_by_one(&plain));
        }
    }

    #[test]
    fn numbers_are_bicep_literals() {
        assert_eq!(literal(&serde_json::json!(-1.0), 0), "-1");
        assert_eq!(literal(&serde_json::json!(0.9), 0), "json('0.9')");
        assert_eq!(literal(&serde_json::json!(30), 0), "30");
    }

    #[test]
    fn objects_render_with_indentation_and_quoted_keys() {
        let v = serde_json::json!({"driverVersion": "535.161", "installGridNC": true, "odd key": "x'y"});
        assert_eq!(
            literal(&v, 2),
            "{\n    driverVersion: '535.161'\n    installGridNC: true\n    'odd key': 'x\\'y'\n  }"
        );
        assert_eq!(literal(&serde_json::json!({}), 4), "{}");
    }

    /// Every partial of main.bicep.hbs without a parameter is spliced in, at any depth of
    /// blocks; those left take a context (a parameter or a hash).
    #[test]
    fn partials_without_a_context_are_spliced_into_main() {
        fn partials(t: &Template, out: &mut Vec<String>) {
            for el in &t.elements {
                match el {
                    TemplateElement::PartialExpression(d) => {
                        out.push(d.name.as_name().unwrap_or_default().to_string())
                    }
                    TemplateElement::HelperBlock(h) => {
                        for inner in [h.template.as_ref(), h.inverse.as_ref()]
                            .into_iter()
                            .flatten()
                        {
                            partials(inner, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        let compiled: Vec<(&str, Template)> = TEMPLATES
            .iter()
            .map(|(n, src)| (*n, Template::compile(src).unwrap()))
            .collect();
        let mut before = Vec::new();
        partials(&compiled[0].1, &mut before);
        assert!(
            before.iter().any(|n| n == "network") && before.iter().any(|n| n == "gpu_monitoring")
        );
        let mut main = compiled[0].1.clone();
        splice_partials(&mut main, &compiled);
        let mut after = Vec::new();
        partials(&main, &mut after);
        assert!(after.iter().all(|n| n == "private_endpoint"), "{after:?}");
        assert_eq!(main.elements.len(), main.mapping.len());

        // the spliced template renders what Handlebars renders for the partials, and indented
        // or parameterised partials stay partials
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        let parts = [
            (
                "p",
                Template::compile("{{#if on}}\n  x: {{v}}\n{{/if}}\n").unwrap(),
            ),
            ("q", Template::compile("q{{v}}\n").unwrap()),
        ];
        for (n, t) in &parts {
            hb.register_template(n, t.clone());
        }
        let src =
            "a\n{{> p}}\n{{#if on}}\n{{> q}}\n{{else}}\nno\n{{/if}}\n  {{> q}}\n{{> q v=1}}\nz\n";
        let mut spliced = Template::compile(src).unwrap();
        splice_partials(&mut spliced, &parts);
        hb.register_template("spliced", spliced.clone());
        hb.register_template_string("plain", src).unwrap();
        let data = serde_json::json!({ "on": true, "v": "V" });
        assert_eq!(
            hb.render("spliced", &data).unwrap(),
            hb.render("plain", &data).unwrap()
        );
        let mut left = Vec::new();
        partials(&spliced, &mut left);
        assert_eq!(left, ["q", "q"]);
    }

    #[test]
    fn templates_never_use_triple_stash() {
        for (name, src) in TEMPLATES {
            assert!(
                !src.contains("{{{"),
                "template {name} uses a triple-stash, which bypasses the Bicep escaper"
            );
            assert!(
                !src.contains("{{&"),
                "template {name} uses an unescaped {{& }} expression"
            );
        }
    }
}

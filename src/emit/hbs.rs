//! The Bicep templates compiled once into a tree of literal text and plan lookups, rendered
//! without Handlebars' per-lookup machinery (issue 41).
//!
//! The `.hbs` files stay the source and Handlebars' own parser reads them ([`Template`]): this
//! module walks the parsed elements once, at startup, into [`Node`]s, and renders those against
//! the plan's JSON value by following references, writing straight into one buffer. It covers the
//! subset of Handlebars the templates use (values, `#if`/`#unless`/`#each`/`#with` with `else`,
//! `@root`, `../`, `@index`/`@key`/`@first`/`@last`, partials with a context and a hash, the `eq`
//! and `lookup` helpers and gpuform's `obj`/`num`/`comment`) with the semantics of the handlebars
//! crate in strict mode; anything else in a template is refused when the templates are compiled
//! (they are part of the binary: a test compiles them). The handlebars registry in
//! [`super::bicep`] stays as the oracle: a test renders every example and fixture through both
//! and compares the bytes.
//!
//! Handlebars resolves every path by building a vector of path strings, clones the context of
//! every partial it enters and allocates the rendered and escaped string of every value: at
//! platform scale that was ~22 % of a render's CPU time.

use handlebars::template::{HelperTemplate, Parameter, TemplateElement};
use handlebars::{Path, RenderError, RenderErrorReason, Template};

use super::bicep_text::{comment, escape_into, literal_into, number};
use super::value::{Map, Value};

/// A compiled template.
pub(super) type Nodes = Vec<Node>;

/// One piece of a compiled template.
#[derive(Debug)]
pub(super) enum Node {
    /// Literal text.
    Text(String),
    /// `{{path}}`: a value, rendered as Handlebars renders it and escaped for a Bicep string.
    Value(Expr),
    /// `{{helper params…}}`: obj, num and comment write unescaped, lookup escaped.
    Helper(HelperKind, Vec<Expr>),
    /// `{{#if}}` (positive) / `{{#unless}}`, with their `{{else}}`.
    If {
        cond: Expr,
        positive: bool,
        then: Nodes,
        otherwise: Nodes,
    },
    /// `{{#each}}`; `otherwise` is its `{{else}}` (None: none written).
    Each {
        value: Expr,
        body: Nodes,
        otherwise: Option<Nodes>,
    },
    /// `{{#with}}`.
    With {
        value: Expr,
        body: Nodes,
        otherwise: Option<Nodes>,
    },
    /// `{{> name param key=value…}}`: the partial (an index into the compiled partials) in the
    /// context of `param` (the current one if none) with the hash's keys added.
    Partial {
        index: usize,
        param: Option<Expr>,
        hash: Vec<(String, Expr)>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HelperKind {
    Obj,
    Num,
    Comment,
    Lookup,
    Eq,
}

/// Something a template evaluates.
#[derive(Debug)]
pub(super) enum Expr {
    /// A path into the data: `up` levels of `../`, from `@root` or the current context.
    Path {
        up: usize,
        root: bool,
        segs: Vec<String>,
    },
    /// `@name` of the context `level` levels up.
    Local {
        level: usize,
        name: Local,
    },
    Literal(Value),
    /// `(helper params…)`: only `eq` is used in the templates.
    Sub(HelperKind, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Local {
    Index,
    Key,
    First,
    Last,
}

fn refuse(what: impl std::fmt::Display) -> ! {
    panic!("Bicep template: {what} is not in the subset of Handlebars gpuform compiles")
}

/// Compile the elements of `t`; partials without a context or hash are spliced in (what the
/// handlebars registry of [`super::bicep`] does too), the others are looked up in `partials` by
/// name and refer to them by index.
pub(super) fn compile(t: &Template, partials: &[(&str, Template)]) -> Nodes {
    let mut out = Vec::with_capacity(t.elements.len());
    for el in &t.elements {
        match el {
            TemplateElement::RawString(s) => match out.last_mut() {
                Some(Node::Text(prev)) => prev.push_str(s),
                _ => out.push(Node::Text(s.clone())),
            },
            TemplateElement::Comment(_) => {}
            TemplateElement::Expression(h) => out.push(expression(h)),
            TemplateElement::HelperBlock(h) => out.push(block(h, partials)),
            TemplateElement::PartialExpression(d) => {
                if !d.indent.as_deref().unwrap_or_default().is_empty() || d.template.is_some() {
                    refuse("an indented partial or a partial block");
                }
                let name = match &d.name {
                    Parameter::Name(n) => n.as_str(),
                    Parameter::Path(p) => path_raw(p),
                    other => refuse(format!("partial name {other:?}")),
                };
                let index = partials
                    .iter()
                    .position(|(n, _)| *n == name && *n != "main")
                    .unwrap_or_else(|| refuse(format!("partial {name} (no such template)")));
                if d.params.is_empty() && d.hash.is_empty() {
                    for node in compile(&partials[index].1, partials) {
                        match (out.last_mut(), node) {
                            (Some(Node::Text(prev)), Node::Text(s)) => prev.push_str(&s),
                            (_, node) => out.push(node),
                        }
                    }
                    continue;
                }
                if d.params.len() > 1 {
                    refuse("a partial with more than one parameter");
                }
                let mut hash: Vec<(String, Expr)> =
                    d.hash.iter().map(|(k, v)| (k.clone(), param(v))).collect();
                hash.sort_by(|a, b| a.0.cmp(&b.0));
                out.push(Node::Partial {
                    index,
                    param: d.params.first().map(param),
                    hash,
                });
            }
            other => refuse(format!("{other:?}")),
        }
    }
    out
}

fn path_raw(p: &Path) -> &str {
    match p {
        Path::Relative((_, raw)) => raw,
        Path::Local((_, _, raw)) => raw,
    }
}

fn helper_kind(name: &str) -> Option<HelperKind> {
    Some(match name {
        "obj" => HelperKind::Obj,
        "num" => HelperKind::Num,
        "comment" => HelperKind::Comment,
        "lookup" => HelperKind::Lookup,
        "eq" => HelperKind::Eq,
        _ => return None,
    })
}

/// A path as Handlebars reads it: `../` levels, then `@root` or the current context, then
/// names separated by `.` or `/` (`this` names the current context and is dropped).
fn path(p: &Path) -> Expr {
    match p {
        Path::Local((level, name, _)) => Expr::Local {
            level: *level,
            name: match name.as_str() {
                "index" => Local::Index,
                "key" => Local::Key,
                "first" => Local::First,
                "last" => Local::Last,
                other => refuse(format!("@{other}")),
            },
        },
        Path::Relative((segs, raw)) => {
            let mut rest = raw.as_str();
            let mut up = 0;
            while let Some(r) = rest.strip_prefix("../") {
                up += 1;
                rest = r;
            }
            let root = match rest.strip_prefix("@root") {
                Some(r) if r.is_empty() || r.starts_with(['.', '/']) => {
                    rest = r.trim_start_matches(['.', '/']);
                    true
                }
                _ => false,
            };
            // the names as Handlebars' parser found them (`[0]` is the name `0`), after the
            // `../` and `@root` read above (`this` is not a name: the current context)
            let names: Vec<String> = segs
                .iter()
                .filter_map(|s| match s {
                    handlebars::PathSeg::Named(n) => Some(n.clone()),
                    _ => None,
                })
                .collect();
            // a cross-check of this reading: the raw path holds as many names
            let raw_names = rest
                .split(['.', '/'])
                .filter(|s| !s.is_empty() && *s != "this")
                .count();
            if raw_names != names.len() || rest.contains("../") {
                refuse(format!("path {raw}"));
            }
            Expr::Path {
                up,
                root,
                segs: names,
            }
        }
    }
}

fn param(p: &Parameter) -> Expr {
    match p {
        Parameter::Path(p) => path(p),
        Parameter::Name(n) => path(&Path::parse(n).unwrap_or_else(|_| refuse(n))),
        Parameter::Literal(v) => Expr::Literal(Value::from(v)),
        Parameter::Subexpression(s) => match s.element.as_ref() {
            TemplateElement::Expression(h) if h.hash.is_empty() => {
                let kind = match &h.name {
                    Parameter::Name(n) => helper_kind(n),
                    _ => None,
                }
                .filter(|k| *k == HelperKind::Eq)
                .unwrap_or_else(|| refuse(format!("subexpression {:?}", h.name)));
                Expr::Sub(kind, h.params.iter().map(param).collect())
            }
            other => refuse(format!("subexpression {other:?}")),
        },
        other => refuse(format!("parameter {other:?}")),
    }
}

fn expression(h: &HelperTemplate) -> Node {
    if !h.hash.is_empty() || h.block_param.is_some() {
        refuse("a hash or block parameter on an expression");
    }
    let helper = match &h.name {
        Parameter::Name(n) => helper_kind(n),
        _ => None,
    };
    match helper {
        Some(kind) if kind != HelperKind::Eq && !h.params.is_empty() => {
            Node::Helper(kind, h.params.iter().map(param).collect())
        }
        None if h.params.is_empty() => Node::Value(param(&h.name)),
        _ => refuse(format!("expression {:?}", h.name)),
    }
}

fn block(h: &HelperTemplate, partials: &[(&str, Template)]) -> Node {
    let name = match &h.name {
        Parameter::Name(n) => n.as_str(),
        other => refuse(format!("block {other:?}")),
    };
    if h.params.len() != 1 || !h.hash.is_empty() || h.block_param.is_some() || h.chain {
        refuse(format!("block {name} with other than one parameter"));
    }
    let value = param(&h.params[0]);
    let body = h
        .template
        .as_ref()
        .map(|t| compile(t, partials))
        .unwrap_or_default();
    let otherwise = h.inverse.as_ref().map(|t| compile(t, partials));
    match name {
        "if" | "unless" => Node::If {
            cond: value,
            positive: name == "if",
            then: body,
            otherwise: otherwise.unwrap_or_default(),
        },
        "each" => Node::Each {
            value,
            body,
            otherwise,
        },
        "with" => Node::With {
            value,
            body,
            otherwise,
        },
        other => refuse(format!("block helper {other}")),
    }
}

/// A context: its value, its `@` variables, the context it is inside.
struct Scope<'a> {
    value: &'a Value,
    locals: Locals<'a>,
    parent: Option<&'a Scope<'a>>,
}

#[derive(Clone, Copy, Default)]
struct Locals<'a> {
    index: Option<usize>,
    first: Option<bool>,
    last: Option<bool>,
    key: Option<&'a str>,
}

/// What an expression evaluates to.
#[derive(Clone, Copy)]
enum Val<'a> {
    Missing,
    Json(&'a Value),
    Bool(bool),
    Index(usize),
    Key(&'a str),
}

impl<'a> Val<'a> {
    fn truthy(self) -> bool {
        match self {
            Val::Missing => false,
            Val::Json(v) => truthy(v),
            Val::Bool(b) => b,
            Val::Index(i) => i != 0,
            Val::Key(k) => !k.is_empty(),
        }
    }

    fn owned(self) -> Value {
        match self {
            Val::Missing => Value::Null,
            Val::Json(v) => v.clone(),
            Val::Bool(b) => Value::Bool(b),
            Val::Index(i) => Value::Number(i.into()),
            Val::Key(k) => Value::String(k.to_owned().into()),
        }
    }

    /// What Handlebars writes for `{{value}}`, escaped.
    fn write_escaped(self, out: &mut String) {
        match self {
            Val::Missing => {}
            Val::Json(Value::String(s)) => escape_into(s, out),
            Val::Key(s) => escape_into(s, out),
            Val::Json(v) => escape_into(&render(v), out),
            Val::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            Val::Index(i) => escape_into(&i.to_string(), out),
        }
    }
}

/// Handlebars' truthiness of a value (`JsonTruthy::is_truthy(false)` of the handlebars crate):
/// a number is true when it is normal (not 0, not subnormal).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(f64::is_normal),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// What Handlebars writes for a value (`JsonRender::render` of the handlebars crate).
fn render(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.to_string(),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(render).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(_) => "[object]".to_owned(),
    }
}

/// serde_json's equality of values: objects are equal when they hold the same keys with equal
/// values, in any order (`preserve_order` maps compare as maps).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => false,
    }
}

fn strict(what: &str) -> RenderError {
    RenderErrorReason::Other(format!("strict mode: {what} is missing")).into()
}

/// Renders compiled templates against one plan value.
pub(super) struct Renderer<'t, 'v> {
    pub partials: &'t [Nodes],
    pub root: &'v Value,
}

impl<'t: 'v, 'v> Renderer<'t, 'v> {
    pub fn render(&self, nodes: &'t [Node], out: &mut String) -> Result<(), RenderError> {
        let top = Scope {
            value: self.root,
            locals: Locals::default(),
            parent: None,
        };
        self.nodes(nodes, &top, out)
    }

    fn eval<'s>(&'s self, e: &'t Expr, scope: &'s Scope<'s>) -> Result<Val<'s>, RenderError>
    where
        'v: 's,
        't: 's,
    {
        Ok(match e {
            Expr::Literal(v) => Val::Json(v),
            Expr::Path { up, root, segs } => {
                let mut v = if *root {
                    self.root
                } else {
                    // `../` past the outermost context stays in the current one (as Handlebars)
                    let mut s = scope;
                    for _ in 0..*up {
                        match s.parent {
                            Some(p) => s = p,
                            None => {
                                s = scope;
                                break;
                            }
                        }
                    }
                    s.value
                };
                for seg in segs {
                    let next = match v {
                        // objects are vectors of entries, searched in order (no SipHash)
                        Value::Object(m) => m.get(seg),
                        Value::Array(items) => match seg.parse::<usize>() {
                            Ok(i) => items.get(i),
                            Err(_) => {
                                return Err(RenderErrorReason::InvalidJsonIndex(seg.clone()).into());
                            }
                        },
                        _ => None,
                    };
                    match next {
                        Some(n) => v = n,
                        None => return Ok(Val::Missing),
                    }
                }
                Val::Json(v)
            }
            Expr::Local { level, name } => {
                let mut s = Some(scope);
                for _ in 0..*level {
                    s = s.and_then(|s| s.parent);
                }
                let Some(l) = s.map(|s| s.locals) else {
                    return Ok(Val::Missing);
                };
                match name {
                    Local::Index => l.index.map_or(Val::Missing, Val::Index),
                    Local::Key => l.key.map_or(Val::Missing, Val::Key),
                    Local::First => l.first.map_or(Val::Missing, Val::Bool),
                    Local::Last => l.last.map_or(Val::Missing, Val::Bool),
                }
            }
            Expr::Sub(HelperKind::Eq, params) => {
                let x = self.eval(&params[0], scope)?;
                let y = self.eval(&params[1], scope)?;
                if matches!(x, Val::Missing) || matches!(y, Val::Missing) {
                    return Err(RenderErrorReason::ParamNotFoundForIndex("eq", 0).into());
                }
                Val::Bool(match (x, y) {
                    (Val::Json(a), Val::Json(b)) => json_eq(a, b),
                    (a, b) => json_eq(&a.owned(), &b.owned()),
                })
            }
            Expr::Sub(..) => unreachable!("only eq is compiled as a subexpression"),
        })
    }

    fn nodes<'s>(
        &'s self,
        nodes: &'t [Node],
        scope: &'s Scope<'s>,
        out: &mut String,
    ) -> Result<(), RenderError>
    where
        'v: 's,
        't: 's,
    {
        for node in nodes {
            match node {
                Node::Text(s) => out.push_str(s),
                Node::Value(e) => match self.eval(e, scope)? {
                    Val::Missing => return Err(strict(&format!("{e:?}"))),
                    v => v.write_escaped(out),
                },
                Node::Helper(kind, params) => self.helper(*kind, params, scope, out)?,
                Node::If {
                    cond,
                    positive,
                    then,
                    otherwise,
                } => {
                    let t = self.eval(cond, scope)?.truthy() == *positive;
                    self.nodes(if t { then } else { otherwise }, scope, out)?;
                }
                Node::Each {
                    value,
                    body,
                    otherwise,
                } => {
                    let v = self.eval(value, scope)?;
                    match v {
                        Val::Json(Value::Array(items))
                            if !items.is_empty() || otherwise.is_none() =>
                        {
                            let len = items.len();
                            for (i, item) in items.iter().enumerate() {
                                let inner = Scope {
                                    value: item,
                                    locals: Locals {
                                        index: Some(i),
                                        first: Some(i == 0),
                                        last: Some(i + 1 == len),
                                        key: None,
                                    },
                                    parent: Some(scope),
                                };
                                self.nodes(body, &inner, out)?;
                            }
                        }
                        Val::Json(Value::Object(map)) if !map.is_empty() || otherwise.is_none() => {
                            let len = map.len();
                            for (i, (k, item)) in map.iter().enumerate() {
                                let inner = Scope {
                                    value: item,
                                    locals: Locals {
                                        index: Some(i),
                                        first: Some(i == 0),
                                        last: Some(i + 1 == len),
                                        key: Some(k),
                                    },
                                    parent: Some(scope),
                                };
                                self.nodes(body, &inner, out)?;
                            }
                        }
                        _ => match otherwise {
                            Some(t) => self.nodes(t, scope, out)?,
                            None => return Err(strict(&format!("each {value:?}"))),
                        },
                    }
                }
                Node::With {
                    value,
                    body,
                    otherwise,
                } => {
                    let v = self.eval(value, scope)?;
                    if v.truthy() {
                        let owned;
                        let value = match v {
                            Val::Json(j) => j,
                            other => {
                                owned = other.owned();
                                &owned
                            }
                        };
                        let inner = Scope {
                            value,
                            locals: scope.locals,
                            parent: Some(scope),
                        };
                        self.nodes(body, &inner, out)?;
                    } else {
                        match otherwise {
                            Some(t) => self.nodes(t, scope, out)?,
                            None => return Err(strict(&format!("with {value:?}"))),
                        }
                    }
                }
                Node::Partial { index, param, hash } => {
                    let base = match param {
                        Some(p) => self.eval(p, scope)?.owned(),
                        None => scope.value.clone(),
                    };
                    // Handlebars' merge_json: the hash's keys added to the parameter's object
                    let merged = if hash.is_empty() {
                        base
                    } else {
                        let mut map = match base {
                            Value::Object(m) => m,
                            Value::Array(items) => items
                                .into_iter()
                                .enumerate()
                                .map(|(i, v)| (i.to_string(), v))
                                .collect(),
                            Value::String(s) => s
                                .chars()
                                .enumerate()
                                .map(|(i, c)| (i.to_string(), Value::String(c.to_string().into())))
                                .collect(),
                            _ => Map::new(),
                        };
                        for (k, e) in hash {
                            map.insert(k.clone().into(), self.eval(e, scope)?.owned());
                        }
                        Value::Object(map)
                    };
                    let inner = Scope {
                        value: &merged,
                        locals: scope.locals,
                        parent: Some(scope),
                    };
                    self.nodes(&self.partials[*index], &inner, out)?;
                }
            }
        }
        Ok(())
    }

    fn helper<'s>(
        &'s self,
        kind: HelperKind,
        params: &'t [Expr],
        scope: &'s Scope<'s>,
        out: &mut String,
    ) -> Result<(), RenderError>
    where
        'v: 's,
        't: 's,
    {
        let first = self.eval(&params[0], scope)?;
        match kind {
            HelperKind::Obj => {
                let indent = match params.get(1) {
                    Some(p) => match self.eval(p, scope)? {
                        Val::Json(Value::Number(n)) => n.as_u64().unwrap_or(0),
                        Val::Index(i) => i as u64,
                        _ => 0,
                    },
                    None => 0,
                } as usize;
                match first {
                    Val::Json(v) => literal_into(v, indent, out),
                    other => literal_into(&other.owned(), indent, out),
                }
            }
            HelperKind::Num => match first {
                Val::Json(Value::Number(n)) => out.push_str(&number(n)),
                Val::Index(i) => out.push_str(&i.to_string()),
                other => {
                    return Err(RenderErrorReason::Other(format!(
                        "num: expected a number, got {:?}",
                        other.owned().into_serde()
                    ))
                    .into());
                }
            },
            HelperKind::Comment => match first {
                Val::Json(Value::String(s)) => out.push_str(&comment(s)),
                Val::Key(s) => out.push_str(&comment(s)),
                other => {
                    return Err(RenderErrorReason::Other(format!(
                        "comment: expected a string, got {:?}",
                        other.owned().into_serde()
                    ))
                    .into());
                }
            },
            HelperKind::Lookup => {
                let index = self.eval(&params[1], scope)?;
                let found = match (first, index) {
                    (Val::Json(Value::Array(items)), Val::Index(i)) => items.get(i),
                    (Val::Json(Value::Array(items)), Val::Json(Value::Number(n))) => {
                        n.as_u64().and_then(|u| items.get(u as usize))
                    }
                    (Val::Json(Value::Object(m)), Val::Key(k)) => m.get(k),
                    (Val::Json(Value::Object(m)), Val::Json(Value::String(k))) => m.get(k),
                    _ => None,
                };
                match found {
                    Some(v) => Val::Json(v).write_escaped(out),
                    None => return Err(strict("lookup")),
                }
            }
            HelperKind::Eq => unreachable!("eq is compiled as a subexpression only"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handlebars::{JsonRender, JsonTruthy};

    /// Values of every kind, including the edges of truthiness (0, -0.0, a subnormal number,
    /// empty containers) and objects that differ only in the order of their keys.
    fn samples() -> Vec<serde_json::Value> {
        let mut v: Vec<serde_json::Value> = serde_json::from_str(
            r#"[null, true, false, 0, 1, -1, 0.0, -0.0, 0.5, 1e300, 18446744073709551615,
                "", "a", "it's", [], [0], [1, "b", null, [2, 3], {"k": 1}], {},
                {"a": 1, "b": [true]}, {"b": [true], "a": 1}, {"a": 1}, {"a": 1.0}]"#,
        )
        .unwrap();
        v.push(serde_json::json!(f64::MIN_POSITIVE / 2.0));
        v
    }

    /// Truthiness, the text of a value and equality are the handlebars crate's and
    /// serde_json's (which the oracle test exercises only for the values the templates use).
    #[test]
    fn values_behave_as_in_handlebars() {
        let samples = samples();
        for a in &samples {
            let t = Value::from(a);
            assert_eq!(truthy(&t), a.is_truthy(false), "truthy {a}");
            assert_eq!(render(&t), a.render(), "render {a}");
            for b in &samples {
                assert_eq!(json_eq(&t, &Value::from(b)), a == b, "{a} == {b}");
            }
        }
    }
}

//! Test support: a small reader of the Bicep gpuform writes (one property per line), enough to
//! compare it with the ARM JSON and to decode its string literals.

#![allow(dead_code)]

use serde_json::{Map, Value};

pub mod refs;

/// Prefix of an interpolated object key (`'${identity.id}': {}`), followed by its raw text
/// between the quotes.
pub const INTERPOLATED: &str = "$interpolated:";

/// A resource declaration of a Bicep file.
#[derive(Debug, Clone)]
pub struct BicepResource {
    pub sym: String,
    /// Full type (children get their parent's type prefixed).
    pub ty: String,
    pub api: String,
    pub existing: bool,
    /// The body as JSON; expressions become `{"$expr": text}`.
    pub body: Value,
    /// Symbol of the parent (a `parent:` property or the enclosing declaration).
    pub parent: Option<String>,
}

/// Decode the inside of a Bicep single-quoted string.
pub fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            if c == '\'' {
                return Err(format!("bare quote in {s:?}"));
            }
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('$') => out.push('$'),
            Some('u') => {
                if it.next() != Some('{') {
                    return Err(format!("bad \\u escape in {s:?}"));
                }
                let hex: String = it.by_ref().take_while(|c| *c != '}').collect();
                let cp = u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?;
                out.push(char::from_u32(cp).ok_or("bad code point")?);
            }
            other => return Err(format!("unknown escape \\{other:?} in {s:?}")),
        }
    }
    Ok(out)
}

/// If `text` is exactly one single-quoted string literal, its raw inside.
fn string_literal(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    // the closing quote must not be escaped and no unescaped quote may occur inside, except in
    // string literals nested in an interpolation (`${replace(x, 'a', 'b')}`)
    let mut escaped = false;
    let mut depth = 0usize; // open `${` ... `}` (and `{` inside them)
    let mut nested = false; // inside a string literal within an interpolation
    let mut prev = '\0';
    for c in inner.chars() {
        match (escaped, nested, c) {
            (true, _, _) => {
                // an escaped `$` does not open an interpolation
                escaped = false;
                prev = '\0';
                continue;
            }
            (false, _, '\\') => escaped = true,
            (false, true, '\'') => nested = false,
            (false, true, _) => {}
            (false, false, '\'') if depth > 0 => nested = true,
            (false, false, '\'') => return None,
            (false, false, '{') if depth > 0 || prev == '$' => depth += 1,
            (false, false, '}') if depth > 0 => depth -= 1,
            _ => {}
        }
        prev = c;
    }
    (!escaped && depth == 0 && !nested).then_some(inner)
}

/// Does an (undecoded) string literal interpolate?
fn interpolates(inner: &str) -> bool {
    let b = inner.as_bytes();
    (0..b.len().saturating_sub(1))
        .any(|i| b[i] == b'$' && b[i + 1] == b'{' && (i == 0 || b[i - 1] != b'\\'))
}

pub fn expr(text: &str) -> Value {
    serde_json::json!({ "$expr": text })
}

pub fn is_expr(v: &Value) -> bool {
    v.get("$expr").is_some()
}

/// A scalar value.
fn scalar(text: &str) -> Result<Value, String> {
    let t = text.trim();
    if let Some(inner) = string_literal(t) {
        if interpolates(inner) {
            return Ok(expr(t));
        }
        return unescape(inner).map(Value::String);
    }
    if t.starts_with('\'') {
        return Err(format!("malformed string literal: {t}"));
    }
    match t {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        "null" => return Ok(Value::Null),
        "{}" => return Ok(Value::Object(Map::new())),
        "[]" => return Ok(Value::Array(Vec::new())),
        _ => {}
    }
    if let Ok(i) = t.parse::<i64>() {
        return Ok(Value::from(i));
    }
    if let Some(num) = t.strip_prefix("json('").and_then(|r| r.strip_suffix("')"))
        && let Ok(f) = num.parse::<f64>()
    {
        return Ok(Value::from(f));
    }
    Ok(expr(t))
}

/// Split `key: value` (the key may be quoted and contain `:`).
fn split_key(line: &str) -> Result<(String, &str), String> {
    let t = line.trim();
    if let Some(rest) = t.strip_prefix('\'') {
        let end = rest
            .find("':")
            .ok_or_else(|| format!("unterminated key: {t}"))?
            + 1;
        let raw = &t[1..end];
        let key = if interpolates(raw) {
            format!("{INTERPOLATED}{raw}")
        } else {
            unescape(raw)?
        };
        return Ok((key, t[end + 2..].trim_start()));
    }
    let (k, v) = t
        .split_once(':')
        .ok_or_else(|| format!("expected `key: value`: {t}"))?;
    Ok((k.trim().to_string(), v.trim_start()))
}

struct Lines<'a> {
    lines: Vec<&'a str>,
    pos: usize,
}

impl<'a> Lines<'a> {
    /// The next line that is not blank or a comment.
    fn next(&mut self) -> Option<&'a str> {
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos];
            self.pos += 1;
            let t = l.trim();
            if t.is_empty() || t.starts_with("//") {
                continue;
            }
            return Some(l);
        }
        None
    }

    fn peek(&mut self) -> Option<&'a str> {
        let save = self.pos;
        let l = self.next();
        self.pos = save;
        l
    }
}

fn parse_value(
    first: &str,
    lines: &mut Lines,
    children: &mut Vec<(String, String, String, bool, Value)>,
) -> Result<Value, String> {
    match first.trim() {
        "{" => parse_object(lines, children),
        "[" => parse_array(lines, children),
        other => scalar(other),
    }
}

fn parse_object(
    lines: &mut Lines,
    children: &mut Vec<(String, String, String, bool, Value)>,
) -> Result<Value, String> {
    let mut m = Map::new();
    loop {
        let line = lines.next().ok_or("unexpected end of file in an object")?;
        let t = line.trim();
        if t == "}" {
            return Ok(Value::Object(m));
        }
        if let Some(rest) = t.strip_prefix("resource ") {
            // a nested child declaration: `resource sym 'type' [existing] = {`
            let (sym, rest) = rest.split_once(' ').ok_or("bad nested resource")?;
            let ty = rest
                .split('\'')
                .nth(1)
                .ok_or("bad nested resource type")?
                .to_string();
            let existing = rest.contains(" existing ");
            let mut inner = Vec::new();
            let body = parse_object(lines, &mut inner)?;
            children.push((sym.to_string(), ty, String::new(), existing, body));
            for c in inner {
                children.push((format!("{sym}::{}", c.0), c.1, c.2, c.3, c.4));
            }
            continue;
        }
        let (key, v) = split_key(t)?;
        let value = parse_value(v, lines, children)?;
        if m.insert(key.clone(), value).is_some() {
            return Err(format!("duplicate key {key}"));
        }
    }
}

fn parse_array(
    lines: &mut Lines,
    children: &mut Vec<(String, String, String, bool, Value)>,
) -> Result<Value, String> {
    let mut items = Vec::new();
    loop {
        let line = lines.next().ok_or("unexpected end of file in an array")?;
        let t = line.trim();
        if t == "]" {
            return Ok(Value::Array(items));
        }
        items.push(parse_value(t, lines, children)?);
    }
}

/// Every resource declaration of a Bicep file, top level and nested, in order.
pub fn resources(bicep: &str) -> Result<Vec<BicepResource>, String> {
    let mut lines = Lines {
        lines: bicep.lines().collect(),
        pos: 0,
    };
    let mut out = Vec::new();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("resource ") else {
            // params, vars, outputs, metadata: make sure multi-line values are balanced
            if let Some((_, v)) = line.split_once(" = ") {
                let mut sink = Vec::new();
                parse_value(v, &mut lines, &mut sink)?;
            }
            continue;
        };
        let (sym, rest) = rest.split_once(' ').ok_or("bad resource line")?;
        let quoted = rest.split('\'').nth(1).ok_or("bad resource type")?;
        let (ty, api) = quoted
            .split_once('@')
            .ok_or("resource type without an API version")?;
        let existing = rest.contains(" existing ");
        // a conditional resource: `resource sym 'type' = if (cond) {` is ARM's `condition`
        let condition = rest
            .split_once("= if (")
            .and_then(|(_, c)| c.trim_end().strip_suffix(") {"))
            // Bicep's unary `!` is ARM's `not()`, which the expression reader knows
            .map(|c| match c.trim().strip_prefix('!') {
                Some(inner) => expr(&format!("not({inner})")),
                None => expr(c.trim()),
            });
        let mut children = Vec::new();
        let mut body = parse_object(&mut lines, &mut children)?;
        if let (Some(c), Value::Object(m)) = (condition, &mut body) {
            m.insert("condition".into(), c);
        }
        let parent = body
            .get("parent")
            .and_then(|p| p.get("$expr"))
            .and_then(Value::as_str)
            .map(str::to_string);
        out.push(BicepResource {
            sym: sym.to_string(),
            ty: ty.to_string(),
            api: api.to_string(),
            existing,
            body,
            parent,
        });
        for (csym, cty, _, cexisting, cbody) in children {
            let parent_sym = match csym.rsplit_once("::") {
                Some((p, _)) => format!("{sym}::{p}"),
                None => sym.to_string(),
            };
            let parent_ty = out
                .iter()
                .rev()
                .find(|r| r.sym == parent_sym)
                .map(|r| r.ty.clone())
                .unwrap_or_else(|| ty.to_string());
            out.push(BicepResource {
                sym: format!("{sym}::{csym}"),
                ty: format!("{parent_ty}/{cty}"),
                api: api.to_string(),
                existing: cexisting,
                body: cbody,
                parent: Some(parent_sym),
            });
        }
    }
    let _ = lines.peek();
    Ok(out)
}

/// `var name = value` declarations.
pub fn variables(bicep: &str) -> Result<Map<String, Value>, String> {
    let mut lines = Lines {
        lines: bicep.lines().collect(),
        pos: 0,
    };
    let mut out = Map::new();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("var ") {
            let (name, v) = rest.split_once(" = ").ok_or("bad var")?;
            let mut sink = Vec::new();
            out.insert(
                name.trim().to_string(),
                parse_value(v, &mut lines, &mut sink)?,
            );
        }
    }
    Ok(out)
}

/// `metadata name = 'value'` declarations.
pub fn metadata(bicep: &str) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for line in bicep.lines() {
        if let Some(rest) = line.strip_prefix("metadata ") {
            let (name, v) = rest.split_once(" = ").ok_or("bad metadata")?;
            out.insert(name.trim().to_string(), scalar(v)?);
        }
    }
    Ok(out)
}

/// The shape of a resource name: literal text, with `*` for every computed part.
pub fn bicep_name_shape(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => {
            let text = v.get("$expr").and_then(Value::as_str).unwrap_or("*");
            match string_literal(text) {
                // an interpolated string: keep the literal parts
                Some(inner) => {
                    let mut out = String::new();
                    let mut rest = inner;
                    while let Some(i) = rest.find("${") {
                        out.push_str(&rest[..i]);
                        out.push('*');
                        let end = rest[i..].find('}').map(|e| i + e + 1).unwrap_or(rest.len());
                        rest = &rest[end..];
                    }
                    out.push_str(rest);
                    out
                }
                None => "*".into(),
            }
        }
    }
}

/// The shape of an ARM name: literals kept, `format()` arguments substituted, anything else `*`.
pub fn arm_name_shape(name: &str) -> String {
    let Some(e) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) else {
        return name.to_string();
    };
    if e.starts_with('[') {
        return e.to_string();
    }
    let Some(args) = e.strip_prefix("format(").and_then(|a| a.strip_suffix(')')) else {
        return "*".into();
    };
    let parts = split_args(args);
    let fmt = arm_arg(&parts[0]);
    let mut out = fmt;
    for (i, a) in parts.iter().enumerate().skip(1) {
        out = out.replace(&format!("{{{}}}", i - 1), &arm_arg(a));
    }
    out
}

fn arm_arg(a: &str) -> String {
    let a = a.trim();
    match a.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        Some(lit) => lit.replace("''", "'"),
        None if a.starts_with("format(") => arm_name_shape(&format!("[{a}]")),
        None => "*".into(),
    }
}

/// Split ARM function arguments at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            cur.push(c);
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    cur.push('\'');
                    i += 1;
                } else {
                    in_str = false;
                }
            }
        } else {
            match c {
                '\'' => {
                    in_str = true;
                    cur.push(c);
                }
                '(' => {
                    depth += 1;
                    cur.push(c);
                }
                ')' => {
                    depth -= 1;
                    cur.push(c);
                }
                ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        i += 1;
    }
    out.push(cur);
    out
}

/// An ARM string value as the literal it stands for, or `None` for an expression.
pub fn arm_literal(s: &str) -> Option<String> {
    if s.starts_with('[') && s.ends_with(']') {
        return s.starts_with("[[").then(|| s[1..].to_string());
    }
    Some(s.to_string())
}

//! What the expressions of both outputs mean, written independently of the emitters: ARM
//! expressions (`[resourceId(...)]`, `format(...)`, `reference(...)`) and the Bicep expressions
//! gpuform writes (`vault.id`, `'${storage.id}/...'`, `identity.properties.principalId`) both
//! become an [`Expr`] in which every resource reference is the resource's [`ResKey`] (type,
//! name segments, resource group, extension scope). Two outputs agree when their expressions
//! are equal; a reference agrees with a resource when their keys are equal.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::BicepResource;

/// A normalised expression.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Expr {
    Str(String),
    Int(i64),
    /// A function call (name in lower case: ARM and Bicep function names ignore case).
    Call(String, Vec<Expr>),
    /// `base.name`
    Prop(Box<Expr>, String),
    /// String concatenation (`format()`, Bicep interpolation): at least two parts, no two
    /// literals next to each other.
    Concat(Vec<Expr>),
    /// A resource's id (`resourceId()`, `extensionResourceId()`, Bicep `sym.id`).
    Res(Box<ResKey>),
}

/// Which resource: what `resourceId()` needs to find it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ResKey {
    /// Full type in lower case (`microsoft.network/virtualnetworks/subnets`).
    pub ty: String,
    /// One segment per type level.
    pub names: Vec<Expr>,
    /// Resource group, when not the deployment's.
    pub rg: Option<Expr>,
    /// Subscription, when not the deployment's (with `rg`: a landing zone's shared resource).
    pub sub: Option<Expr>,
    /// The resource an extension resource (role assignment, diagnostic setting) is scoped to.
    pub scope: Option<Box<ResKey>>,
}

impl std::fmt::Display for ResKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(s) = &self.scope {
            write!(f, "{s}/providers/")?;
        }
        if let Some(sub) = &self.sub {
            write!(f, "sub({}):", show(sub))?;
        }
        if let Some(rg) = &self.rg {
            write!(f, "rg({}):", show(rg))?;
        }
        write!(f, "{}", self.ty)?;
        for n in &self.names {
            write!(f, " {}", show(n))?;
        }
        Ok(())
    }
}

/// Short text of an expression for messages.
pub fn show(e: &Expr) -> String {
    match e {
        Expr::Str(s) => format!("'{s}'"),
        Expr::Int(i) => i.to_string(),
        Expr::Call(f, args) => format!(
            "{f}({})",
            args.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Expr::Prop(b, p) => format!("{}.{p}", show(b)),
        Expr::Concat(parts) => parts.iter().map(show).collect::<Vec<_>>().join(" + "),
        Expr::Res(k) => format!("<{k}>"),
    }
}

/// Flatten and merge concatenated parts.
fn concat(parts: Vec<Expr>) -> Expr {
    let mut out: Vec<Expr> = Vec::new();
    for p in parts {
        let items = match p {
            Expr::Concat(inner) => inner,
            other => vec![other],
        };
        for it in items {
            match (out.last_mut(), it) {
                (_, Expr::Str(s)) if s.is_empty() => {}
                (Some(Expr::Str(prev)), Expr::Str(s)) => prev.push_str(&s),
                (_, it) => out.push(it),
            }
        }
    }
    match out.len() {
        0 => Expr::Str(String::new()),
        1 => out.pop().unwrap(),
        _ => Expr::Concat(out),
    }
}

/// Split a name (or a scope path) into its `/`-separated segments.
pub fn segments(e: &Expr) -> Vec<Expr> {
    let parts = match concat(vec![e.clone()]) {
        Expr::Concat(p) => p,
        other => vec![other],
    };
    let mut segs: Vec<Vec<Expr>> = vec![Vec::new()];
    for p in parts {
        match p {
            Expr::Str(s) => {
                let mut pieces = s.split('/');
                if let Some(first) = pieces.next() {
                    segs.last_mut().unwrap().push(Expr::Str(first.into()));
                }
                for piece in pieces {
                    segs.push(vec![Expr::Str(piece.into())]);
                }
            }
            other => segs.last_mut().unwrap().push(other),
        }
    }
    segs.into_iter().map(concat).collect()
}

/// A scope path `Namespace/type/name[/type/name...]` as a key.
fn path_key(e: &Expr) -> Result<ResKey, String> {
    let segs = segments(e);
    if segs.len() < 3 || segs.len().is_multiple_of(2) {
        return Err(format!("not a resource path: {}", show(e)));
    }
    let mut ty = match &segs[0] {
        Expr::Str(ns) => ns.clone(),
        other => return Err(format!("computed namespace in {}", show(other))),
    };
    let mut names = Vec::new();
    for pair in segs[1..].chunks(2) {
        match &pair[0] {
            Expr::Str(t) => ty.push_str(&format!("/{t}")),
            other => return Err(format!("computed type segment {}", show(other))),
        }
        names.push(pair[1].clone());
    }
    Ok(ResKey {
        ty: ty.to_ascii_lowercase(),
        names,
        rg: None,
        sub: None,
        scope: None,
    })
}

// ------------------------------------------------------------------------------- ARM side

struct Cursor<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Cursor<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected `{}` at {} in {}",
                c as char, self.i, self.text
            ))
        }
    }
    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        (self.i > start).then(|| self.text[start..self.i].to_string())
    }
    fn number(&mut self) -> Option<i64> {
        self.ws();
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        match self.text[start..self.i].parse() {
            Ok(n) => Some(n),
            Err(_) => {
                self.i = start;
                None
            }
        }
    }
}

/// An ARM string value: a literal (`[[` unescaped) or the meaning of its expression.
pub fn arm_value(s: &str) -> Result<Expr, String> {
    match super::arm_literal(s) {
        Some(lit) => Ok(Expr::Str(lit)),
        None => arm_expr(&s[1..s.len() - 1]),
    }
}

/// The meaning of an ARM expression (without the brackets).
pub fn arm_expr(text: &str) -> Result<Expr, String> {
    let mut c = Cursor {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let e = arm_postfix(&mut c)?;
    if c.peek().is_some() {
        return Err(format!("trailing text at {} in {text}", c.i));
    }
    Ok(e)
}

fn arm_postfix(c: &mut Cursor) -> Result<Expr, String> {
    let mut e = arm_primary(c)?;
    while c.eat(b'.') {
        let p = c.ident().ok_or("expected a property name")?;
        e = Expr::Prop(Box::new(e), p);
    }
    Ok(e)
}

fn arm_primary(c: &mut Cursor) -> Result<Expr, String> {
    if c.peek() == Some(b'\'') {
        c.i += 1;
        let mut out = String::new();
        loop {
            let rest = &c.text[c.i..];
            let Some(q) = rest.find('\'') else {
                return Err(format!("unterminated string in {}", c.text));
            };
            out.push_str(&rest[..q]);
            c.i += q + 1;
            if c.s.get(c.i) == Some(&b'\'') {
                out.push('\'');
                c.i += 1;
            } else {
                return Ok(Expr::Str(out));
            }
        }
    }
    if let Some(n) = c.number() {
        return Ok(Expr::Int(n));
    }
    let name = c
        .ident()
        .ok_or_else(|| format!("unexpected text at {} in {}", c.i, c.text))?;
    c.expect(b'(')?;
    let mut args = Vec::new();
    if !c.eat(b')') {
        loop {
            args.push(arm_postfix(c)?);
            if c.eat(b')') {
                break;
            }
            c.expect(b',')?;
        }
    }
    arm_call(&name.to_ascii_lowercase(), args)
}

fn arm_call(name: &str, args: Vec<Expr>) -> Result<Expr, String> {
    match name {
        "format" => {
            let Some(Expr::Str(fmt)) = args.first() else {
                return Err("format() without a literal format string".into());
            };
            Ok(concat(format_parts(fmt, &args[1..])?))
        }
        "resourceid" => {
            let t = args
                .iter()
                .position(|a| matches!(a, Expr::Str(s) if s.contains('/')))
                .ok_or("resourceId() without a type")?;
            let (sub, rg) = match t {
                0 => (None, None),
                1 => (None, Some(args[0].clone())),
                2 => (Some(args[0].clone()), Some(args[1].clone())),
                _ => return Err("resourceId() with too many scope arguments".into()),
            };
            let Expr::Str(ty) = &args[t] else {
                unreachable!()
            };
            Ok(Expr::Res(Box::new(ResKey {
                ty: ty.to_ascii_lowercase(),
                names: args[t + 1..].to_vec(),
                rg,
                sub,
                scope: None,
            })))
        }
        "extensionresourceid" => {
            let (Some(Expr::Res(scope)), Some(Expr::Str(ty))) = (args.first(), args.get(1)) else {
                return Err("extensionResourceId() needs a resource id and a type".into());
            };
            Ok(Expr::Res(Box::new(ResKey {
                ty: ty.to_ascii_lowercase(),
                names: args[2..].to_vec(),
                rg: None,
                sub: None,
                scope: Some(scope.clone()),
            })))
        }
        _ => Ok(Expr::Call(name.into(), args)),
    }
}

/// `format()`'s format string with its arguments in place.
fn format_parts(fmt: &str, args: &[Expr]) -> Result<Vec<Expr>, String> {
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut it = fmt.chars().peekable();
    while let Some(ch) = it.next() {
        match ch {
            '{' if it.peek() == Some(&'{') => {
                it.next();
                lit.push('{');
            }
            '}' if it.peek() == Some(&'}') => {
                it.next();
                lit.push('}');
            }
            '{' => {
                let idx: String = it.by_ref().take_while(|c| *c != '}').collect();
                let i: usize = idx
                    .parse()
                    .map_err(|_| format!("bad placeholder {{{idx}}} in {fmt}"))?;
                parts.push(Expr::Str(std::mem::take(&mut lit)));
                parts.push(
                    args.get(i)
                        .cloned()
                        .ok_or_else(|| format!("{fmt}: no argument {i}"))?,
                );
            }
            '}' => return Err(format!("stray }} in {fmt}")),
            c => lit.push(c),
        }
    }
    parts.push(Expr::Str(lit));
    Ok(parts)
}

/// The key of a resource of the ARM template: type, the segments of its name, its scope.
pub fn arm_resource_key(r: &Value) -> Result<ResKey, String> {
    let ty = r["type"].as_str().ok_or("resource without a type")?;
    let name = arm_value(r["name"].as_str().ok_or("resource without a name")?)?;
    let scope = match r.get("scope").and_then(Value::as_str) {
        Some(s) => Some(Box::new(path_key(&arm_value(s)?)?)),
        None => None,
    };
    Ok(ResKey {
        ty: ty.to_ascii_lowercase(),
        names: segments(&name),
        rg: None,
        sub: None,
        scope,
    })
}

/// Every resource key an expression refers to, nested ones included.
pub fn references(e: &Expr, out: &mut Vec<ResKey>) {
    match e {
        Expr::Res(k) => {
            out.push((**k).clone());
            if let Some(s) = &k.scope {
                references(&Expr::Res(s.clone()), out);
            }
            for n in &k.names {
                references(n, out);
            }
            if let Some(sub) = &k.sub {
                references(sub, out);
            }
            if let Some(rg) = &k.rg {
                references(rg, out);
            }
        }
        Expr::Call(_, args) | Expr::Concat(args) => {
            for a in args {
                references(a, out);
            }
        }
        Expr::Prop(b, _) => references(b, out),
        Expr::Str(_) | Expr::Int(_) => {}
    }
}

// ------------------------------------------------------------------------------ Bicep side

/// A Bicep expression as written.
#[derive(Debug, Clone)]
enum B {
    /// Literal text and interpolated expressions.
    Str(Vec<BPart>),
    Int(i64),
    Ident(String),
    Call(String, Vec<B>),
    Member(Box<B>, String),
    Child(Box<B>, String),
}

#[derive(Debug, Clone)]
enum BPart {
    Lit(String),
    Expr(B),
}

fn bicep_parse(text: &str) -> Result<B, String> {
    let mut c = Cursor {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let e = bicep_postfix(&mut c)?;
    if c.peek().is_some() {
        return Err(format!("trailing text at {} in {text}", c.i));
    }
    Ok(e)
}

fn bicep_postfix(c: &mut Cursor) -> Result<B, String> {
    let mut e = bicep_primary(c)?;
    loop {
        if c.text[c.i..].trim_start().starts_with("::") {
            c.ws();
            c.i += 2;
            let n = c.ident().ok_or("expected a child name after ::")?;
            e = B::Child(Box::new(e), n);
        } else if c.eat(b'.') {
            let n = c.ident().ok_or("expected a property name")?;
            e = B::Member(Box::new(e), n);
        } else {
            return Ok(e);
        }
    }
}

fn bicep_primary(c: &mut Cursor) -> Result<B, String> {
    if c.peek() == Some(b'\'') {
        c.i += 1;
        let mut parts = Vec::new();
        let mut lit = String::new();
        loop {
            let ch = c.text[c.i..]
                .chars()
                .next()
                .ok_or_else(|| format!("unterminated string in {}", c.text))?;
            c.i += ch.len_utf8();
            match ch {
                '\'' => break,
                '\\' => {
                    let e = c.text[c.i..].chars().next().ok_or("dangling \\")?;
                    c.i += e.len_utf8();
                    match e {
                        'n' => lit.push('\n'),
                        'r' => lit.push('\r'),
                        't' => lit.push('\t'),
                        '\\' | '\'' | '$' => lit.push(e),
                        'u' => {
                            c.expect(b'{')?;
                            let end = c.text[c.i..].find('}').ok_or("bad \\u escape")?;
                            let cp = u32::from_str_radix(&c.text[c.i..c.i + end], 16)
                                .map_err(|e| e.to_string())?;
                            lit.push(char::from_u32(cp).ok_or("bad code point")?);
                            c.i += end + 1;
                        }
                        other => return Err(format!("unknown escape \\{other}")),
                    }
                }
                '$' if c.s.get(c.i) == Some(&b'{') => {
                    c.i += 1;
                    parts.push(BPart::Lit(std::mem::take(&mut lit)));
                    parts.push(BPart::Expr(bicep_postfix(c)?));
                    c.expect(b'}')?;
                }
                ch => lit.push(ch),
            }
        }
        parts.push(BPart::Lit(lit));
        return Ok(B::Str(parts));
    }
    if let Some(n) = c.number() {
        return Ok(B::Int(n));
    }
    let name = c
        .ident()
        .ok_or_else(|| format!("unexpected text at {} in {}", c.i, c.text))?;
    if !c.eat(b'(') {
        return Ok(B::Ident(name));
    }
    let mut args = Vec::new();
    if !c.eat(b')') {
        loop {
            args.push(bicep_postfix(c)?);
            if c.eat(b')') {
                break;
            }
            c.expect(b',')?;
        }
    }
    Ok(B::Call(name, args))
}

/// The symbol a Bicep expression names (`vault`, `vnet::workloadSubnet`), if it is one.
fn symbol(b: &B) -> Option<String> {
    match b {
        B::Ident(s) => Some(s.clone()),
        B::Child(base, n) => symbol(base).map(|s| format!("{s}::{n}")),
        _ => None,
    }
}

/// The declarations of a Bicep file the expressions can name.
pub struct Bicep<'a> {
    pub resources: &'a [BicepResource],
    pub params: BTreeSet<String>,
    pub vars: BTreeSet<String>,
}

impl Bicep<'_> {
    pub fn new<'a>(text: &str, resources: &'a [BicepResource]) -> Bicep<'a> {
        let decl = |prefix: &str| -> BTreeSet<String> {
            text.lines()
                .filter_map(|l| l.strip_prefix(prefix))
                .filter_map(|l| l.split([' ', '=']).next())
                .map(str::to_string)
                .collect()
        };
        Bicep {
            resources,
            params: decl("param "),
            vars: decl("var "),
        }
    }

    pub fn resource(&self, sym: &str) -> Result<&BicepResource, String> {
        self.resources
            .iter()
            .find(|r| r.sym == sym)
            .ok_or_else(|| format!("no resource `{sym}` is declared"))
    }

    /// Where a resource is: type, name segments (its parents' first), resource group, scope.
    pub fn key(&self, sym: &str) -> Result<ResKey, String> {
        let r = self.resource(sym)?;
        let own = match r.body.get("name") {
            Some(Value::String(s)) => Expr::Str(s.clone()),
            Some(v) if super::is_expr(v) => self.expr(v["$expr"].as_str().unwrap())?,
            _ => return Err(format!("`{sym}` has no name")),
        };
        let (mut names, mut rg, mut sub) = match &r.parent {
            Some(p) => {
                let pk = self.key(p)?;
                (pk.names, pk.rg, pk.sub)
            }
            None => (Vec::new(), None, None),
        };
        names.push(own);
        let mut scope = None;
        if let Some(s) = r.body.get("scope") {
            let text = s
                .get("$expr")
                .and_then(Value::as_str)
                .ok_or("literal scope")?;
            let b = bicep_parse(text)?;
            match (&b, symbol(&b)) {
                (B::Call(f, args), _) if f == "resourceGroup" && args.len() == 1 => {
                    rg = Some(self.translate(&args[0])?);
                }
                (B::Call(f, args), _) if f == "resourceGroup" && args.len() == 2 => {
                    sub = Some(self.translate(&args[0])?);
                    rg = Some(self.translate(&args[1])?);
                }
                (_, Some(s)) => scope = Some(Box::new(self.key(&s)?)),
                _ => return Err(format!("`{sym}`: unknown scope {text}")),
            }
        }
        Ok(ResKey {
            ty: r.ty.to_ascii_lowercase(),
            names,
            rg,
            sub,
            scope,
        })
    }

    /// The meaning of a Bicep expression, in the terms of [`arm_expr`].
    pub fn expr(&self, text: &str) -> Result<Expr, String> {
        self.translate(&bicep_parse(text)?)
    }

    /// The meaning of an interpolated object key (its raw text between the quotes).
    pub fn key_expr(&self, raw: &str) -> Result<Expr, String> {
        self.expr(&format!("'{raw}'"))
    }

    fn translate(&self, b: &B) -> Result<Expr, String> {
        Ok(match b {
            B::Str(parts) => concat(
                parts
                    .iter()
                    .map(|p| match p {
                        BPart::Lit(s) => Ok(Expr::Str(s.clone())),
                        BPart::Expr(e) => self.translate(e),
                    })
                    .collect::<Result<_, String>>()?,
            ),
            B::Int(n) => Expr::Int(*n),
            B::Ident(s) if self.params.contains(s) => {
                Expr::Call("parameters".into(), vec![Expr::Str(s.clone())])
            }
            B::Ident(s) if self.vars.contains(s) => {
                Expr::Call("variables".into(), vec![Expr::Str(s.clone())])
            }
            B::Ident(s) => return Err(format!("`{s}` is used as a value")),
            B::Child(..) => return Err(format!("{b:?} is used as a value")),
            // Bicep's resourceId() is ARM's: the id of the resource it names
            B::Call(f, args) if f.eq_ignore_ascii_case("resourceId") => arm_call(
                "resourceid",
                args.iter()
                    .map(|a| self.translate(a))
                    .collect::<Result<_, _>>()?,
            )?,
            B::Call(f, args) => Expr::Call(
                f.to_ascii_lowercase(),
                args.iter()
                    .map(|a| self.translate(a))
                    .collect::<Result<_, _>>()?,
            ),
            B::Member(base, prop) => match symbol(base) {
                Some(sym) if self.resource(&sym).is_ok() => self.resource_member(&sym, prop)?,
                _ => match &**base {
                    // `res.properties.x`, `res.identity.x`
                    B::Member(inner, p)
                        if symbol(inner).is_some_and(|s| self.resource(&s).is_ok()) =>
                    {
                        let sym = symbol(inner).unwrap();
                        let r = self.resource(&sym)?;
                        let res = Expr::Res(Box::new(self.key(&sym)?));
                        let api = Expr::Str(r.api.clone());
                        match p.as_str() {
                            "properties" => Expr::Prop(
                                Box::new(Expr::Call("reference".into(), vec![res, api])),
                                prop.clone(),
                            ),
                            "identity" => Expr::Prop(
                                Box::new(Expr::Prop(
                                    Box::new(Expr::Call(
                                        "reference".into(),
                                        vec![res, api, Expr::Str("full".into())],
                                    )),
                                    "identity".into(),
                                )),
                                prop.clone(),
                            ),
                            other => return Err(format!("`{sym}.{other}.{prop}`")),
                        }
                    }
                    other => Expr::Prop(Box::new(self.translate(other)?), prop.clone()),
                },
            },
        })
    }

    fn resource_member(&self, sym: &str, prop: &str) -> Result<Expr, String> {
        let key = self.key(sym)?;
        match prop {
            "id" => Ok(Expr::Res(Box::new(key))),
            "name" => Ok(key.names.last().cloned().unwrap()),
            other => Err(format!("`{sym}.{other}` needs a deeper property")),
        }
    }

    /// Every resource symbol an expression names.
    pub fn symbols(&self, text: &str, out: &mut BTreeSet<String>) -> Result<(), String> {
        fn walk(b: &B, out: &mut BTreeSet<String>, resources: &[BicepResource]) {
            if let Some(s) = symbol(b)
                && resources.iter().any(|r| r.sym == s)
            {
                out.insert(s);
                return;
            }
            match b {
                B::Str(parts) => {
                    for p in parts {
                        if let BPart::Expr(e) = p {
                            walk(e, out, resources);
                        }
                    }
                }
                B::Call(_, args) => args.iter().for_each(|a| walk(a, out, resources)),
                B::Member(base, _) | B::Child(base, _) => walk(base, out, resources),
                B::Int(_) | B::Ident(_) => {}
            }
        }
        walk(&bicep_parse(text)?, out, self.resources);
        Ok(())
    }

    /// The resources a deployed resource waits for in the template `bicep build` writes: its
    /// parent and every resource its body names (an `existing` one stands for its nearest
    /// deployed ancestor), and its explicit `dependsOn`.
    pub fn dependencies(&self, r: &BicepResource) -> Result<BTreeSet<ResKey>, String> {
        let mut syms = BTreeSet::new();
        if let Some(p) = &r.parent {
            syms.insert(p.clone());
        }
        fn walk(v: &Value, b: &Bicep, syms: &mut BTreeSet<String>) -> Result<(), String> {
            match v {
                Value::Object(m) if super::is_expr(v) => {
                    b.symbols(m["$expr"].as_str().unwrap(), syms)?
                }
                Value::Object(m) => {
                    for (k, item) in m {
                        if let Some(raw) = k.strip_prefix(super::INTERPOLATED) {
                            b.symbols(&format!("'{raw}'"), syms)?;
                        }
                        walk(item, b, syms)?;
                    }
                }
                Value::Array(a) => {
                    for item in a {
                        walk(item, b, syms)?;
                    }
                }
                _ => {}
            }
            Ok(())
        }
        walk(&r.body, self, &mut syms)?;
        let mut out = BTreeSet::new();
        for s in syms {
            let mut cur = Some(s);
            while let Some(c) = cur {
                if c == r.sym {
                    break;
                }
                let res = self.resource(&c)?;
                if !res.existing {
                    out.insert(self.key(&c)?);
                    break;
                }
                cur = res.parent.clone();
            }
        }
        Ok(out)
    }

    /// Keys of the `existing` resources (referenced, not deployed).
    pub fn existing(&self) -> Result<BTreeMap<ResKey, String>, String> {
        self.resources
            .iter()
            .filter(|r| r.existing)
            .map(|r| Ok((self.key(&r.sym)?, r.sym.clone())))
            .collect()
    }
}

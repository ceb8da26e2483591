//! The architecture of ARCHITECTURE.md, checked: it reads every `src/**/*.rs`, extracts the
//! arrows between files (`use crate::…`, `crate::…` paths in code, `super::`/`self::` paths and
//! paths through a child module, each resolved to the file that defines the item) and fails when
//!
//! 1. a top-level module imports one on a higher floor ([`FLOORS`], the table of ARCHITECTURE.md);
//! 2. files import each other in a circle (also inside one module);
//! 2b. modules import each other in a circle: the files of each module folded into one node,
//!     at every level (the top-level modules, then the children of each module, a module's own
//!     `mod.rs` a node of its own). Two top-level modules on one floor may import each other
//!     one way only, so `spec` → `plan` → `spec` fails even when no two files close a circle;
//! 3. a `src/cli/*.rs` file is over [`MAX_CLI_LINES`] lines;
//! 4. a source file is over [`MAX_LINES`] lines (data tables in [`DATA_FILES`] excepted).
//!
//! Re-exports are transparent: `pub use x::Item` in a file is not an arrow of that file (unless
//! the file itself uses `Item`); an arrow to `Item` through it lands on the file that defines
//! `Item`. So a `mod.rs` that only declares and re-exports its submodules does not make a circle
//! with them, while a `mod.rs` whose own code calls a child that calls back into it does.
//! Arrows inside `#[cfg(test)]` modules count like any other (the tests of a file are part of it),
//! and every `.rs` file under `src/` is read: `src/spec`, test files (`*_tests.rs`, `tests.rs`)
//! and all.
//!
//! The allowlists below hold the violations that existed when this test was written (issue 25 is
//! removing them). They can only shrink: the test also fails when an allowlisted violation is
//! gone, so the list is kept exact. `cargo test --test architecture -- --nocapture` prints the
//! figures; with `GPUFORM_ARCH_LISTS=1` it also prints the measured lists in the syntax below.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Floors, low → high (ARCHITECTURE.md). A module may import its own floor and the ones below.
const FLOORS: &[(&str, u32)] = &[
    ("facts", 0),
    ("azure", 1),
    ("catalog", 1),
    ("diag", 1),
    ("io", 1),
    ("report", 1),
    ("spec", 2),
    ("sizing", 2),
    ("plan", 2),
    ("check", 3),
    ("emit", 4),
    ("cost", 4),
    ("deploy", 4),
    ("destroy", 4),
    ("preflight", 4),
    ("quota", 4),
    ("simulate", 4),
    ("status", 4),
    ("gpu_report", 4),
    ("validate", 4),
    ("cli", 5),
];

/// Lines a `src/cli/*.rs` file may have (arguments, one call into the command's module, output).
const MAX_CLI_LINES: usize = 250;
/// Lines any source file may have.
const MAX_LINES: usize = 900;
/// Data tables, exempt from [`MAX_LINES`] (paths under `src/`).
const DATA_FILES: &[&str] = &[
    // the registry of rule ids: one `r(id, severity, category, summary, description)` row per rule
    "diag/rules.rs",
];

/// Arrows up a floor that existed on 2026-12-03, as (from file, to file) under `src/`. Remove an
/// entry when the shared piece has moved down. (Empty since the issue-25 refactor: keep it so.)
const KNOWN_UP_ARROWS: &[(&str, &str)] = &[];

/// Import circles between files that existed on 2026-12-03 (each the set of files of one
/// strongly connected component, sorted). Remove an entry when the circle is broken.
/// (Empty since the issue-25 refactor: keep it so.)
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// Import circles between modules that existed on 2026-12-05, when this check was added (each
/// the set of modules of one strongly connected component, as `a::b` paths, sorted; no two
/// files close a circle in any of them). Remove an entry when the circle is broken. `spec` <->
/// `plan` is not here: issue 41 moved the rules that read the plan out of `spec` into `check`.
const KNOWN_MODULE_CIRCLES: &[&[&str]] = &[];

/// Source files over [`MAX_LINES`] on 2026-12-03. Remove an entry when the file is split.
const KNOWN_LONG_FILES: &[&str] = &[];

/// `src/cli/*.rs` files over [`MAX_CLI_LINES`] on 2026-12-03. Remove an entry when the file is
/// thinned.
const KNOWN_FAT_CLI_FILES: &[&str] = &[];

// ---------------------------------------------------------------------------------------------
// Lexing: comments and literals blanked out, then tokens with their line.

/// `src` with comments, string and char literals replaced by spaces (newlines kept).
fn blank(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let keep = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(keep(c[i]));
                    i += 1;
                }
            }
        } else if (ch == 'r' || (ch == 'b' && next == Some('r')))
            && (i == 0 || !ident(c[i - 1]))
            && {
                let mut j = i + if ch == 'b' { 2 } else { 1 };
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                c.get(j) == Some(&'"')
            }
        {
            let start = i;
            i += if ch == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1; // opening quote
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (1..=hashes).all(|h| c.get(i + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.extend(c[start..i.min(c.len())].iter().map(|&x| keep(x)));
        } else if ch == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(keep(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if ch == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // a char literal ('x', '\n', '\u{1F600}'); a lifetime ('a) is left alone
            out.push(' ');
            i += 1;
            if c.get(i) == Some(&'\\') {
                out.push(' ');
                i += 1;
            }
            while i < c.len() && c[i] != '\'' {
                out.push(keep(c[i]));
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(ch);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Sep, // ::
    Punct(char),
}

fn tokens(code: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let mut w: String = c[s..i].iter().collect();
            if w == "r" && c.get(i) == Some(&'#') {
                // raw identifier r#type
                i += 1;
                let s = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                w = c[s..i].iter().collect();
            }
            out.push((Tok::Ident(w), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::Sep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// One file: what it declares, re-exports, imports and names.

/// A path as written, with the module it was written in.
#[derive(Clone, Debug)]
struct RawPath {
    segs: Vec<String>,
    /// Module path of the (possibly inline) module it is written in.
    ctx: Vec<String>,
    line: usize,
    glob: bool,
    /// The name it is bound to (`use a::b as c` → c), for `use` leaves.
    name: Option<String>,
    /// A top-level `pub use` (a re-export).
    reexport: bool,
    /// Written in a `use` statement (not a path in code).
    in_use: bool,
}

#[derive(Debug, Default)]
struct FileInfo {
    /// Path under the source root, with `/` (`plan/mod.rs`).
    rel: String,
    module: Vec<String>,
    /// `mod x;` and inline `mod x { }` at the top level.
    children: BTreeSet<String>,
    /// Names of items it defines (fn, struct, enum, const, static, type, trait, mod, macro).
    defines: BTreeSet<String>,
    /// Identifiers outside `use` statements.
    idents: BTreeSet<String>,
    paths: Vec<RawPath>,
}

fn module_of(rel: &str) -> Vec<String> {
    let no_ext = rel.trim_end_matches(".rs");
    let mut segs: Vec<String> = no_ext.split('/').map(String::from).collect();
    if matches!(
        segs.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segs.pop();
    }
    segs
}

fn is_ident(t: Option<&(Tok, usize)>, w: &str) -> bool {
    matches!(t, Some((Tok::Ident(x), _)) if x == w)
}

fn is_punct(t: Option<&(Tok, usize)>, p: char) -> bool {
    matches!(t, Some((Tok::Punct(x), _)) if *x == p)
}

/// The leaves of a use tree starting at `toks[i]`; returns them and the index after the tree.
fn use_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, bool, Option<String>, usize)>,
) -> usize {
    let mut segs = prefix.to_vec();
    let mut line = toks.get(i).map(|t| t.1).unwrap_or(0);
    loop {
        match toks.get(i) {
            Some((Tok::Ident(w), l)) => {
                line = *l;
                if w == "self" && !segs.is_empty() && segs.len() == prefix.len() {
                    // `a::{self, ...}` is `a`
                } else {
                    segs.push(w.clone());
                }
                i += 1;
                if is_ident(toks.get(i), "as") {
                    let alias = match toks.get(i + 1) {
                        Some((Tok::Ident(a), _)) => Some(a.clone()),
                        _ => None,
                    };
                    out.push((segs, false, alias, line));
                    return i + 2;
                }
                if matches!(toks.get(i), Some((Tok::Sep, _))) {
                    i += 1;
                    continue;
                }
                let name = segs.last().cloned();
                out.push((segs, false, name, line));
                return i;
            }
            Some((Tok::Punct('*'), l)) => {
                out.push((segs, true, None, *l));
                return i + 1;
            }
            Some((Tok::Punct('{'), _)) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        Some((Tok::Punct('}'), _)) => return i + 1,
                        Some((Tok::Punct(','), _)) => i += 1,
                        None => return i,
                        _ => i = use_tree(toks, i, &segs, out),
                    }
                }
            }
            Some((Tok::Sep, _)) => i += 1, // `use ::std::...`
            _ => {
                if segs.len() > prefix.len() {
                    let name = segs.last().cloned();
                    out.push((segs, false, name, line));
                }
                return i;
            }
        }
    }
}

fn parse_file(rel: &str, src: &str) -> FileInfo {
    let code = blank(src);
    let toks = tokens(&code);
    let module = module_of(rel);
    let mut f = FileInfo {
        rel: rel.to_string(),
        module: module.clone(),
        ..Default::default()
    };
    const ITEM: &[&str] = &[
        "fn", "struct", "enum", "const", "static", "type", "trait", "mod", "union",
    ];
    // inline modules: (name, brace depth inside it)
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        let (t, line) = &toks[i];
        match t {
            Tok::Punct('{') => {
                depth += 1;
                if let Some(m) = pending_mod.take() {
                    stack.push((m, depth));
                }
                i += 1;
                continue;
            }
            Tok::Punct('}') => {
                if stack.last().is_some_and(|(_, d)| *d == depth) {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
                continue;
            }
            Tok::Punct(';') => {
                pending_mod = None;
            }
            _ => {}
        }
        let Tok::Ident(w) = t else {
            i += 1;
            continue;
        };
        let after_sep = i > 0 && matches!(toks[i - 1].0, Tok::Sep);
        if ITEM.contains(&w.as_str())
            && !after_sep
            && let Some((Tok::Ident(name), _)) = toks.get(i + 1)
        {
            if stack.is_empty() {
                f.defines.insert(name.clone());
            }
            if w == "mod" {
                if stack.is_empty() {
                    f.children.insert(name.clone());
                }
                if is_punct(toks.get(i + 2), '{') {
                    pending_mod = Some(name.clone());
                }
            }
        }
        if w == "macro_rules"
            && let Some((Tok::Ident(name), _)) = toks.get(i + 2)
        {
            f.defines.insert(name.clone());
        }
        let ctx: Vec<String> = module
            .iter()
            .cloned()
            .chain(stack.iter().map(|(n, _)| n.clone()))
            .collect();
        if w == "use" && !after_sep {
            // `pub use`, `pub(crate) use`, `pub(in path) use`
            let public = is_ident(i.checked_sub(1).and_then(|j| toks.get(j)), "pub")
                || (is_punct(i.checked_sub(1).and_then(|j| toks.get(j)), ')') && {
                    let mut j = i - 1;
                    while j > 0 && !is_punct(toks.get(j), '(') {
                        j -= 1;
                    }
                    j > 0 && is_ident(toks.get(j - 1), "pub")
                });
            let mut leaves = Vec::new();
            let end = use_tree(&toks, i + 1, &[], &mut leaves);
            for (segs, glob, name, l) in leaves {
                f.paths.push(RawPath {
                    segs,
                    ctx: ctx.clone(),
                    line: l,
                    glob,
                    name,
                    reexport: public && stack.is_empty(),
                    in_use: true,
                });
            }
            i = end.max(i + 1);
            continue;
        }
        f.idents.insert(w.clone());
        let next_sep = matches!(toks.get(i + 1), Some((Tok::Sep, _)));
        if !after_sep && next_sep {
            let mut segs = vec![w.clone()];
            let mut j = i + 1;
            while matches!(toks.get(j), Some((Tok::Sep, _))) {
                match toks.get(j + 1) {
                    Some((Tok::Ident(s), _)) => {
                        segs.push(s.clone());
                        f.idents.insert(s.clone());
                        j += 2;
                    }
                    _ => break,
                }
            }
            f.paths.push(RawPath {
                segs,
                ctx,
                line: *line,
                glob: false,
                name: None,
                reexport: false,
                in_use: false,
            });
            i = j;
            continue;
        }
        i += 1;
    }
    f
}

// ---------------------------------------------------------------------------------------------
// The crate: paths resolved to files.

struct Crate {
    files: Vec<FileInfo>,
    by_module: BTreeMap<Vec<String>, usize>,
    /// Per file: re-exported name → absolute target path.
    aliases: Vec<BTreeMap<String, Vec<String>>>,
    /// Per file: glob re-exports (absolute module paths).
    globs: Vec<Vec<Vec<String>>>,
    /// Per file: `use`d modules (name → absolute module path), for paths in code through them.
    module_uses: Vec<BTreeMap<String, Vec<String>>>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Arrow {
    from: usize,
    line: usize,
    to: usize,
}

fn read_tree(root: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

impl Crate {
    fn new(sources: &[(String, String)]) -> Self {
        let files: Vec<FileInfo> = sources
            .iter()
            // main.rs is the binary's root (it reaches the library as `gpuform::`)
            .filter(|(rel, _)| rel != "main.rs")
            .map(|(rel, src)| parse_file(rel, src))
            .collect();
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let mut c = Crate {
            by_module,
            aliases: vec![BTreeMap::new(); files.len()],
            globs: vec![Vec::new(); files.len()],
            module_uses: vec![BTreeMap::new(); files.len()],
            files,
        };
        for fi in 0..c.files.len() {
            for p in c.files[fi].paths.clone() {
                if !p.in_use {
                    continue;
                }
                let Some(abs) = c.absolute(fi, &p.segs, &p.ctx) else {
                    continue;
                };
                if p.reexport {
                    if p.glob {
                        c.globs[fi].push(abs);
                    } else if let Some(n) = p.name.clone() {
                        c.aliases[fi].insert(n, abs);
                    }
                } else if !p.glob
                    && c.by_module.contains_key(&abs)
                    && let Some(n) = p.name.clone()
                {
                    c.module_uses[fi].insert(n, abs);
                }
            }
        }
        c
    }

    /// The absolute path of `segs` written in module `ctx` of file `fi`, or None when it is not
    /// in this crate (std, other crates, `Self::`, local names).
    fn absolute(&self, fi: usize, segs: &[String], ctx: &[String]) -> Option<Vec<String>> {
        let f = &self.files[fi];
        let first = segs.first()?.as_str();
        let mut base: Vec<String> = ctx.to_vec();
        let mut rest = segs;
        match first {
            "crate" => {
                base.clear();
                rest = &segs[1..];
            }
            "self" => rest = &segs[1..],
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                if rest.first().is_some_and(|s| s == "self") {
                    rest = &rest[1..];
                }
            }
            _ if ctx == f.module.as_slice() && f.children.contains(first) => {}
            _ => {
                let m = self.module_uses.get(fi)?.get(first)?;
                base = m.clone();
                rest = &segs[1..];
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// Whether file `fi` has `name` (defines or re-exports it).
    fn provides(&self, fi: usize, name: &str, depth: usize) -> bool {
        if depth > 8 {
            return false;
        }
        self.files[fi].defines.contains(name)
            || self.aliases[fi].contains_key(name)
            || self.globs[fi].iter().any(|g| {
                self.by_module
                    .get(g)
                    .is_some_and(|&gi| self.provides(gi, name, depth + 1))
            })
    }

    /// The file that defines what the absolute path `abs` names, through re-exports.
    fn locate(&self, abs: &[String], depth: usize) -> Option<usize> {
        let k = (0..=abs.len())
            .rev()
            .find(|&k| self.by_module.contains_key(&abs[..k]))?;
        let fi = self.by_module[&abs[..k]];
        if k == abs.len() || depth > 8 {
            return Some(fi);
        }
        let name = &abs[k];
        if self.files[fi].defines.contains(name) {
            return Some(fi);
        }
        if let Some(target) = self.aliases[fi].get(name) {
            let mut t = target.clone();
            t.extend(abs[k + 1..].iter().cloned());
            return self.locate(&t, depth + 1).or(Some(fi));
        }
        for g in &self.globs[fi] {
            if let Some(&gi) = self.by_module.get(g)
                && self.provides(gi, name, 0)
            {
                let mut t = g.clone();
                t.extend(abs[k..].iter().cloned());
                return self.locate(&t, depth + 1).or(Some(fi));
            }
        }
        Some(fi)
    }

    /// Every arrow between two different files.
    fn arrows(&self) -> BTreeSet<Arrow> {
        let mut out = BTreeSet::new();
        for (fi, f) in self.files.iter().enumerate() {
            for p in &f.paths {
                let Some(abs) = self.absolute(fi, &p.segs, &p.ctx) else {
                    continue;
                };
                let mut targets = Vec::new();
                if p.reexport {
                    // a re-export is an arrow only when the file uses the name itself
                    if p.glob {
                        continue;
                    }
                    if p.name.as_ref().is_some_and(|n| f.idents.contains(n)) {
                        targets.extend(self.locate(&abs, 0));
                    }
                } else if p.glob {
                    // `use x::*`: x's file, and the files of the re-exported names this file uses
                    if let Some(gi) = self.locate(&abs, 0) {
                        targets.push(gi);
                        for (n, t) in &self.aliases[gi] {
                            if f.idents.contains(n) {
                                targets.extend(self.locate(t, 0));
                            }
                        }
                    }
                } else if p.in_use && self.by_module.contains_key(&abs) {
                    // `use crate::plan;`: the arrows are the paths through it
                    continue;
                } else {
                    targets.extend(self.locate(&abs, 0));
                }
                for to in targets {
                    if to != fi {
                        out.insert(Arrow {
                            from: fi,
                            line: p.line,
                            to,
                        });
                    }
                }
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The checks.

fn top(f: &FileInfo) -> Option<&str> {
    f.module.first().map(String::as_str)
}

/// An arrow up a floor: (from file, to file, message naming the line).
type UpArrow = (String, String, String);

/// Arrows up a floor, and (as messages) the top-level modules missing from `floors`.
fn floor_violations(
    c: &Crate,
    arrows: &BTreeSet<Arrow>,
    floors: &[(&str, u32)],
) -> (Vec<UpArrow>, Vec<String>) {
    let floor = |m: &str| floors.iter().find(|(n, _)| *n == m).map(|(_, f)| *f);
    let (mut up, mut unknown_msgs) = (Vec::new(), Vec::new());
    let mut unknown = BTreeSet::new();
    for f in &c.files {
        if let Some(m) = top(f)
            && floor(m).is_none()
            && unknown.insert(m.to_string())
        {
            unknown_msgs.push(format!(
                    "src/{}: the top-level module `{m}` has no floor; add it to the floor table (FLOORS in tests/architecture.rs and ARCHITECTURE.md)",
                    f.rel
                ));
        }
    }
    for a in arrows {
        let (from, to) = (&c.files[a.from], &c.files[a.to]);
        let (Some(fm), Some(tm)) = (top(from), top(to)) else {
            continue;
        };
        if let (Some(ff), Some(tf)) = (floor(fm), floor(tm))
            && tf > ff
        {
            up.push((
                    from.rel.clone(),
                    to.rel.clone(),
                    format!(
                        "src/{}:{}: `{fm}` (floor {ff}) imports src/{} of `{tm}` (floor {tf}), a higher floor; move the shared piece down",
                        from.rel, a.line, to.rel
                    ),
                ));
        }
    }
    (up, unknown_msgs)
}

/// Strongly connected components with more than one file (Tarjan), each sorted, sorted.
fn circles(n: usize, arrows: &BTreeSet<Arrow>) -> Vec<Vec<usize>> {
    let mut adj = vec![BTreeSet::new(); n];
    for a in arrows {
        adj[a.from].insert(a.to);
    }
    struct St {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, adj: &[BTreeSet<usize>], s: &mut St) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &adj[v] {
            match s.index[w] {
                None => {
                    visit(w, adj, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let mut s = St {
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &adj, &mut s);
        }
    }
    s.out.sort();
    s.out
}

fn names(c: &Crate, scc: &[usize]) -> Vec<String> {
    let mut v: Vec<String> = scc.iter().map(|&i| c.files[i].rel.clone()).collect();
    v.sort();
    v
}

/// The arrows inside one circle, as `file:line -> file` lines.
fn circle_arrows(c: &Crate, arrows: &BTreeSet<Arrow>, scc: &[usize]) -> Vec<String> {
    arrows
        .iter()
        .filter(|a| scc.contains(&a.from) && scc.contains(&a.to))
        .map(|a| {
            format!(
                "    src/{}:{} -> src/{}",
                c.files[a.from].rel, a.line, c.files[a.to].rel
            )
        })
        .collect()
}

/// The node of file `fi` when the files under module `parent` are folded into its children:
/// the child module of `parent` it is in (`a::b`), `parent (own file)` for the file of `parent`
/// itself, or None when the file is not under `parent`.
fn module_node(c: &Crate, fi: usize, parent: &[String]) -> Option<String> {
    let m = &c.files[fi].module;
    let d = parent.len();
    if m.len() < d || m[..d] != *parent {
        return None;
    }
    Some(if m.len() == d {
        let own = if d == 0 {
            "crate".to_string()
        } else {
            m.join("::")
        };
        format!("{own} (own file)")
    } else {
        m[..=d].join("::")
    })
}

/// A circle between modules: the module whose children it joins, and the sorted nodes
/// ([`module_node`]) of the circle.
type ModuleCircle = (Vec<String>, Vec<String>);

/// Import circles between modules, at every level: for each module `m` (the crate root too),
/// the files under `m` are folded into one node per child module of `m` (the file of `m`
/// itself, its `mod.rs`, is a node of its own), and the arrows between those nodes are searched
/// for circles.
fn module_circles(c: &Crate, arrows: &BTreeSet<Arrow>) -> Vec<ModuleCircle> {
    let mut parents: BTreeSet<Vec<String>> = BTreeSet::new();
    for f in &c.files {
        for k in 0..f.module.len() {
            parents.insert(f.module[..k].to_vec());
        }
    }
    let mut out = Vec::new();
    for parent in &parents {
        let mut ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut edges = BTreeSet::new();
        for a in arrows {
            let (Some(from), Some(to)) =
                (module_node(c, a.from, parent), module_node(c, a.to, parent))
            else {
                continue;
            };
            if from == to {
                continue;
            }
            let n = ids.len();
            let fi = *ids.entry(from).or_insert(n);
            let n = ids.len();
            let ti = *ids.entry(to).or_insert(n);
            edges.insert(Arrow {
                from: fi,
                line: 0,
                to: ti,
            });
        }
        let name: BTreeMap<usize, &String> = ids.iter().map(|(k, v)| (*v, k)).collect();
        for scc in circles(ids.len(), &edges) {
            let mut v: Vec<String> = scc.iter().map(|i| name[i].clone()).collect();
            v.sort();
            out.push((parent.clone(), v));
        }
    }
    out.sort();
    out
}

/// The arrows between the modules of one module circle, as `file:line -> file` lines.
fn module_circle_arrows(c: &Crate, arrows: &BTreeSet<Arrow>, circle: &ModuleCircle) -> Vec<String> {
    let (parent, nodes) = circle;
    let node = |fi| module_node(c, fi, parent).filter(|n| nodes.contains(n));
    arrows
        .iter()
        .filter(|a| matches!((node(a.from), node(a.to)), (Some(f), Some(t)) if f != t))
        .map(|a| {
            format!(
                "    src/{}:{} -> src/{}",
                c.files[a.from].rel, a.line, c.files[a.to].rel
            )
        })
        .collect()
}

/// Compares what is measured with an allowlist: (new violations, allowlisted ones now gone).
fn against<T: Ord + Clone>(measured: &BTreeSet<T>, known: &BTreeSet<T>) -> (Vec<T>, Vec<T>) {
    (
        measured.difference(known).cloned().collect(),
        known.difference(measured).cloned().collect(),
    )
}

// ---------------------------------------------------------------------------------------------

#[test]
fn the_crate_keeps_its_floors_has_no_new_circles_and_no_new_long_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = read_tree(&root);
    let c = Crate::new(&sources);
    let arrows = c.arrows();
    let mut failures = Vec::new();

    // 1. floors
    let (up, unknown) = floor_violations(&c, &arrows, FLOORS);
    failures.extend(unknown);
    let up_pairs: BTreeSet<(String, String)> =
        up.iter().map(|(f, t, _)| (f.clone(), t.clone())).collect();
    let known_up: BTreeSet<(String, String)> = KNOWN_UP_ARROWS
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    let (new_up, gone_up) = against(&up_pairs, &known_up);
    for (f, t, msg) in &up {
        if new_up.contains(&(f.clone(), t.clone())) {
            failures.push(msg.clone());
        }
    }
    for (f, t) in gone_up {
        failures.push(format!(
            "KNOWN_UP_ARROWS lists src/{f} -> src/{t}, which is no longer an arrow up a floor: remove it from the list"
        ));
    }

    // 2. circles
    let sccs = circles(c.files.len(), &arrows);
    let measured: BTreeSet<Vec<String>> = sccs.iter().map(|s| names(&c, s)).collect();
    let known: BTreeSet<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|k| {
            let mut v: Vec<String> = k.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        })
        .collect();
    let (new, gone) = against(&measured, &known);
    for circle in &new {
        let scc: Vec<usize> = circle
            .iter()
            .map(|r| c.files.iter().position(|f| &f.rel == r).unwrap())
            .collect();
        failures.push(format!(
            "an import circle between {} files: {:?}; break it by moving the shared piece down; its arrows:\n{}",
            circle.len(),
            circle,
            circle_arrows(&c, &arrows, &scc).join("\n")
        ));
    }
    for circle in &gone {
        failures.push(format!(
            "KNOWN_CIRCLES lists {circle:?}, which is no longer a circle (broken or changed): remove it from the list"
        ));
    }

    // 2b. circles between modules
    let mcircles = module_circles(&c, &arrows);
    let measured_m: BTreeSet<Vec<String>> = mcircles.iter().map(|(_, v)| v.clone()).collect();
    let known_m: BTreeSet<Vec<String>> = KNOWN_MODULE_CIRCLES
        .iter()
        .map(|k| {
            let mut v: Vec<String> = k.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        })
        .collect();
    let (new_m, gone_m) = against(&measured_m, &known_m);
    for mc in mcircles.iter().filter(|(_, v)| new_m.contains(v)) {
        failures.push(format!(
            "an import circle between {} modules: {:?}; break it by moving the shared piece down (or the code that needs both up); its arrows:\n{}",
            mc.1.len(),
            mc.1,
            module_circle_arrows(&c, &arrows, mc).join("\n")
        ));
    }
    for circle in &gone_m {
        failures.push(format!(
            "KNOWN_MODULE_CIRCLES lists {circle:?}, which is no longer a circle (broken or changed): remove it from the list"
        ));
    }

    // 3 and 4. long files
    let line_count: BTreeMap<&str, usize> = sources
        .iter()
        .map(|(rel, src)| (rel.as_str(), src.lines().count()))
        .collect();
    let fat_cli: BTreeSet<String> = line_count
        .iter()
        .filter(|(rel, n)| rel.starts_with("cli/") && **n > MAX_CLI_LINES)
        .map(|(rel, _)| rel.to_string())
        .collect();
    let long: BTreeSet<String> = line_count
        .iter()
        .filter(|(rel, n)| **n > MAX_LINES && !DATA_FILES.contains(rel))
        .map(|(rel, _)| rel.to_string())
        .collect();
    for (measured, list, name, max, what) in [
        (
            &fat_cli,
            KNOWN_FAT_CLI_FILES,
            "KNOWN_FAT_CLI_FILES",
            MAX_CLI_LINES,
            "a src/cli file declares arguments, calls one function of the command's module and chooses the output; move the work into src/<command>/",
        ),
        (
            &long,
            KNOWN_LONG_FILES,
            "KNOWN_LONG_FILES",
            MAX_LINES,
            "split it by concern",
        ),
    ] {
        let known: BTreeSet<String> = list.iter().map(|s| s.to_string()).collect();
        let (new, gone) = against(measured, &known);
        for rel in new {
            failures.push(format!(
                "src/{rel}: {} lines, over {max}; {what}",
                line_count[rel.as_str()]
            ));
        }
        for rel in gone {
            let now = line_count.get(rel.as_str()).copied();
            failures.push(format!(
                "{name} lists src/{rel}, which is no longer over {max} lines ({}): remove it from the list",
                now.map_or("gone".to_string(), |n| format!("{n} lines"))
            ));
        }
    }

    // the figures
    let mut by_size: Vec<(&str, usize)> = line_count.iter().map(|(r, n)| (*r, *n)).collect();
    by_size.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let up = up_pairs.len();
    println!(
        "architecture: {} files, {} arrows between files, {} file pairs with arrows up a floor, {} import circles ({} files in them), {} module circles ({} modules in them), {} cli files over {MAX_CLI_LINES} lines, {} files over {MAX_LINES} lines",
        c.files.len(),
        arrows.len(),
        up,
        sccs.len(),
        sccs.iter().map(Vec::len).sum::<usize>(),
        mcircles.len(),
        mcircles.iter().map(|(_, v)| v.len()).sum::<usize>(),
        fat_cli.len(),
        long.len()
    );
    for s in &sccs {
        println!("  circle: {}", names(&c, s).join(" "));
    }
    for (_, v) in &mcircles {
        println!("  module circle: {}", v.join(" "));
    }
    println!("  largest files:");
    for (rel, n) in by_size.iter().take(10) {
        println!("    {n:>5} src/{rel}");
    }
    if std::env::var_os("GPUFORM_ARCH_LISTS").is_some() {
        // the measured lists in the syntax of the allowlists above
        println!("const KNOWN_UP_ARROWS: &[(&str, &str)] = &[");
        for (f, t) in &up_pairs {
            println!("    ({f:?}, {t:?}),");
        }
        println!("];\nconst KNOWN_CIRCLES: &[&[&str]] = &[");
        for circle in &measured {
            println!("    &{circle:?},");
        }
        println!("];\nconst KNOWN_MODULE_CIRCLES: &[&[&str]] = &[");
        for circle in &measured_m {
            println!("    &{circle:?},");
        }
        println!("];\nconst KNOWN_LONG_FILES: &[&str] = &[");
        for rel in &long {
            println!("    {rel:?}, // {} lines", line_count[rel.as_str()]);
        }
        println!("];\nconst KNOWN_FAT_CLI_FILES: &[&str] = &[");
        for rel in &fat_cli {
            println!("    {rel:?}, // {} lines", line_count[rel.as_str()]);
        }
        println!("];");
    }
    assert!(
        failures.is_empty(),
        "{} architecture violation(s) (see ARCHITECTURE.md):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The checker itself, on tiny synthetic trees.

fn tree(files: &[(&str, &str)]) -> Crate {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(r, s)| (r.to_string(), s.to_string()))
        .collect();
    Crate::new(&sources)
}

fn arrows_of(c: &Crate) -> Vec<String> {
    c.arrows()
        .iter()
        .map(|a| {
            format!(
                "{}:{} -> {}",
                c.files[a.from].rel, a.line, c.files[a.to].rel
            )
        })
        .collect()
}

const TINY_FLOORS: &[(&str, u32)] = &[("low", 0), ("mid", 1), ("high", 2)];

#[test]
fn checker_finds_an_arrow_up_a_floor_through_use_and_through_a_path_in_code() {
    let c = tree(&[
        ("lib.rs", "pub mod low;\npub mod mid;\npub mod high;\n"),
        ("low.rs", "use crate::mid::Thing;\npub fn f() {}\n"),
        (
            "mid.rs",
            "pub struct Thing;\npub fn g() { crate::high::h(); crate::low::f(); }\n",
        ),
        ("high.rs", "pub fn h() {}\n"),
    ]);
    let arrows = c.arrows();
    let (up, unknown) = floor_violations(&c, &arrows, TINY_FLOORS);
    assert!(unknown.is_empty());
    let v: Vec<&String> = up.iter().map(|(_, _, m)| m).collect();
    assert_eq!(v.len(), 2, "{v:#?}");
    assert!(v[0].starts_with("src/low.rs:1: `low` (floor 0) imports src/mid.rs"));
    assert!(v[1].starts_with("src/mid.rs:2: `mid` (floor 1) imports src/high.rs"));
}

#[test]
fn checker_asks_for_a_new_top_level_module_in_the_floor_table() {
    let c = tree(&[
        ("lib.rs", "pub mod low;\npub mod newbie;\n"),
        ("low.rs", ""),
        ("newbie/mod.rs", ""),
    ]);
    let (_, v) = floor_violations(&c, &c.arrows(), TINY_FLOORS);
    assert_eq!(v.len(), 1);
    assert!(
        v[0].contains("`newbie` has no floor; add it to the floor table"),
        "{v:?}"
    );
}

#[test]
fn checker_ignores_comments_strings_and_other_crates() {
    let c = tree(&[
        ("lib.rs", "pub mod low;\npub mod high;\n"),
        (
            "low.rs",
            "//! see [`crate::high::h`]\n/* crate::high::h() */\nuse std::fmt::Write;\nuse serde::Serialize;\npub fn f() -> &'static str { let _c = '\"'; \"crate::high::h()\" }\npub fn r() -> &'static str { r#\"crate::high::h\"# }\n",
        ),
        ("high.rs", "pub fn h() {}\n"),
    ]);
    assert_eq!(arrows_of(&c), Vec::<String>::new());
}

#[test]
fn checker_resolves_super_self_and_child_paths_to_files() {
    let c = tree(&[
        ("lib.rs", "pub mod m;\n"),
        ("m/mod.rs", "mod a;\nmod b;\npub fn top() { a::fa(); }\n"),
        (
            "m/a.rs",
            "use super::b::fb;\npub fn fa() { fb() }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::top;\n}\n",
        ),
        (
            "m/b.rs",
            "pub fn fb() { self::inner::x(); }\nmod inner { pub fn x() {} }\n",
        ),
    ]);
    assert_eq!(
        arrows_of(&c),
        vec![
            "m/mod.rs:3 -> m/a.rs",
            "m/a.rs:1 -> m/b.rs",
            "m/a.rs:6 -> m/mod.rs"
        ]
    );
    let sccs = circles(c.files.len(), &c.arrows());
    assert_eq!(sccs.len(), 1);
    assert_eq!(names(&c, &sccs[0]), vec!["m/a.rs", "m/mod.rs"]);
}

#[test]
fn a_mod_rs_that_only_re_exports_makes_no_circle_and_arrows_land_on_the_definition() {
    let files = [
        ("lib.rs", "pub mod p;\npub mod q;\n"),
        (
            "p/mod.rs",
            "mod model;\nmod rules;\npub use model::Plan;\npub use rules::*;\npub const LIMIT: u32 = 3;\n",
        ),
        (
            "p/model.rs",
            "pub struct Plan { n: u32 }\nfn f() -> u32 { super::LIMIT }\n",
        ),
        (
            "p/rules.rs",
            "use super::Plan;\npub fn check(_: &Plan) {}\n",
        ),
        (
            "q.rs",
            "use crate::p::{Plan, check};\nuse crate::p;\nfn g(x: &Plan) { check(x); p::LIMIT; }\n",
        ),
    ];
    let c = tree(&files);
    assert_eq!(
        arrows_of(&c),
        vec![
            "p/model.rs:2 -> p/mod.rs",
            "p/rules.rs:1 -> p/model.rs",
            "q.rs:1 -> p/model.rs",
            "q.rs:1 -> p/rules.rs",
            "q.rs:3 -> p/mod.rs",
        ]
    );
    assert!(circles(c.files.len(), &c.arrows()).is_empty());
    // but a mod.rs whose own code uses what it re-exports depends on it: now a circle
    let mut files = files;
    files[1].1 = "mod model;\npub use model::Plan;\npub const LIMIT: u32 = 3;\npub fn empty() -> Plan { todo!() }\n";
    let c = tree(&files);
    let sccs = circles(c.files.len(), &c.arrows());
    assert_eq!(sccs.len(), 1);
    assert_eq!(names(&c, &sccs[0]), vec!["p/mod.rs", "p/model.rs"]);
}

#[test]
fn tarjan_finds_each_circle_once_and_nothing_in_a_chain() {
    let arrows: BTreeSet<Arrow> = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 3), (5, 6)]
        .iter()
        .map(|&(from, to)| Arrow { from, line: 1, to })
        .collect();
    assert_eq!(circles(7, &arrows), vec![vec![0, 1, 2], vec![3, 4]]);
}

#[test]
fn an_allowlist_reports_new_violations_and_the_ones_that_are_gone() {
    let measured: BTreeSet<&str> = ["a", "b"].into();
    let known: BTreeSet<&str> = ["b", "c"].into();
    assert_eq!(against(&measured, &known), (vec!["a"], vec!["c"]));
}

#[test]
fn two_modules_that_import_each_other_are_a_circle_even_when_no_two_files_are() {
    // spec/mod.rs -> spec/rules.rs -> plan/mod.rs -> spec/model.rs: no file circle, but the
    // modules `spec` and `plan` import each other (issue 41)
    let files = [
        ("lib.rs", "pub mod spec;\npub mod plan;\n"),
        (
            "spec/mod.rs",
            "pub mod model;\npub mod rules;\npub use model::Spec;\npub fn check(s: &Spec) { rules::run(s) }\n",
        ),
        ("spec/model.rs", "pub struct Spec;\n"),
        (
            "spec/rules.rs",
            "use crate::spec::Spec;\npub fn run(s: &Spec) { crate::plan::derive(s); }\n",
        ),
        (
            "plan/mod.rs",
            "use crate::spec::Spec;\npub fn derive(_: &Spec) {}\n",
        ),
    ];
    let c = tree(&files);
    let arrows = c.arrows();
    assert!(circles(c.files.len(), &arrows).is_empty());
    let mc = module_circles(&c, &arrows);
    assert_eq!(mc.len(), 1, "{mc:?}");
    assert_eq!(mc[0].1, vec!["plan", "spec"]);
    assert_eq!(
        module_circle_arrows(&c, &arrows, &mc[0]),
        vec![
            "    src/spec/rules.rs:2 -> src/plan/mod.rs",
            "    src/plan/mod.rs:1 -> src/spec/model.rs",
        ]
    );
    // the rules moved to a module above both: no circle at any level
    let mut files = files;
    files[0].1 = "pub mod spec;\npub mod plan;\npub mod check;\n";
    files[1].1 = "pub mod model;\npub use model::Spec;\n";
    let mut files = files.to_vec();
    files.retain(|(r, _)| *r != "spec/rules.rs");
    files.push((
        "check/mod.rs",
        "use crate::spec::Spec;\npub fn run(s: &Spec) { crate::plan::derive(s); }\n",
    ));
    let c = tree(&files);
    assert!(module_circles(&c, &c.arrows()).is_empty());
}

#[test]
fn children_of_one_module_that_import_each_other_are_a_circle() {
    // inside `plan`: a.rs -> b/x.rs, b/y.rs -> a.rs (no file circle; `plan::a` <-> `plan::b`)
    let c = tree(&[
        ("lib.rs", "pub mod plan;\n"),
        ("plan/mod.rs", "pub mod a;\npub mod b;\n"),
        ("plan/a.rs", "pub fn fa() { super::b::x::fx(); }\n"),
        ("plan/b/mod.rs", "pub mod x;\npub mod y;\n"),
        ("plan/b/x.rs", "pub fn fx() {}\n"),
        ("plan/b/y.rs", "pub fn fy() { crate::plan::a::fa(); }\n"),
    ]);
    let arrows = c.arrows();
    assert!(circles(c.files.len(), &arrows).is_empty());
    let mc = module_circles(&c, &arrows);
    assert_eq!(mc.len(), 1, "{mc:?}");
    assert_eq!(mc[0].0, vec!["plan"]);
    assert_eq!(mc[0].1, vec!["plan::a", "plan::b"]);
}

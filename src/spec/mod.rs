//! The workload spec: reading a file, the JSON Schema, the typed model, defaults, and the
//! semantic rules. [`check_file`] runs the whole pipeline and is what every command starts from.

pub mod batch;
pub mod defaults;
pub mod duration;
pub mod model;
pub mod policy;
pub mod provisioning;
pub mod resolve;
pub mod rules;
pub mod schedule;
#[cfg(test)]
mod schedule_tests;
pub mod schema;
pub mod standby;
pub mod starter;
pub mod timezones;
pub mod yaml;

use std::path::{Path, PathBuf};

use crate::catalog::prices::PriceTable;
use crate::catalog::{self, GpuSize};
use crate::diag::Diagnostic;
use crate::sizing::{self, Selection};
pub use model::Spec;
pub use policy::Policy;
use yaml::SpanIndex;

/// Specs are short; a file beyond this is a wrong path, not a spec.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One spec file after the pipeline ran.
#[derive(Debug)]
pub struct Checked {
    /// The path as the user gave it (for messages).
    pub path: String,
    /// Directory relative paths in the spec (cloudInit) resolve against.
    pub base_dir: PathBuf,
    pub source: Option<String>,
    /// The spec with every default applied and `vmSize: auto` / `image: auto` resolved; `None`
    /// when the document did not pass the schema.
    pub spec: Option<Spec>,
    /// How `vmSize: auto` was resolved, or the ranking for an explicit size.
    pub sizing: Option<Selection>,
    /// The spec said `vmSize: auto` (the size in `spec` was chosen by gpuform).
    pub auto_sized: bool,
    pub diagnostics: Vec<Diagnostic>,
    pub index: SpanIndex,
}

impl crate::report::FileResult for Checked {
    fn path(&self) -> &str {
        &self.path
    }
    fn vm_size(&self) -> Option<&str> {
        Checked::vm_size(self)
    }
    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The spec's vmSize once resolved (`None` while it is still `auto`: no size fits).
    pub fn vm_size(&self) -> Option<&str> {
        self.spec
            .as_ref()
            .map(|s| s.spec.compute.vm_size.as_str())
            .filter(|v| *v != "auto")
    }

    /// The resolved size, when the spec got that far.
    pub fn size(&self) -> Option<&'static GpuSize> {
        self.spec.as_ref().and_then(Spec::size)
    }

    fn failed(path: &str, base_dir: PathBuf, source: Option<String>, d: Diagnostic) -> Self {
        let mut c = Checked {
            path: path.to_string(),
            base_dir,
            source,
            spec: None,
            sizing: None,
            auto_sized: false,
            diagnostics: vec![d],
            index: SpanIndex::default(),
        };
        c.finish(&Policy::default());
        c
    }

    /// Attach file names and locations, apply the policy, and order by position.
    fn finish(&mut self, policy: &Policy) {
        let mut out = Vec::with_capacity(self.diagnostics.len());
        for mut d in std::mem::take(&mut self.diagnostics) {
            d.file = self.path.clone();
            if d.location.is_none()
                && let Some(p) = &d.pointer
            {
                d.location = if d.on_key {
                    self.index.locate_key(p)
                } else {
                    self.index.locate(p)
                };
            }
            // input and schema errors are never downgraded: there is nothing to check after them
            let overridable =
                !d.locked && crate::diag::rules::find(&d.rule).is_some_and(|r| r.overridable());
            if overridable {
                match policy.severity(&d.rule, d.severity) {
                    Some(s) => d.severity = s,
                    None => continue,
                }
            }
            out.push(d);
        }
        out.sort_by(|a, b| {
            let la = a
                .location
                .map(|l| (l.line, l.column))
                .unwrap_or((usize::MAX, 0));
            let lb = b
                .location
                .map(|l| (l.line, l.column))
                .unwrap_or((usize::MAX, 0));
            la.cmp(&lb)
                .then(b.severity.cmp(&a.severity))
                .then(a.rule.cmp(&b.rule))
                .then(a.message.cmp(&b.message))
        });
        out.dedup_by(|a, b| a.rule == b.rule && a.pointer == b.pointer && a.message == b.message);
        self.diagnostics = cap_per_rule(out);
    }
}

/// At most this many diagnostics of one rule per file; the rest become one summary line.
pub const MAX_PER_RULE: usize = 20;

/// Keep the first [`MAX_PER_RULE`] diagnostics of each rule (in file order) and replace the rest
/// with one "and K more" diagnostic of the same rule and severity, so a hostile spec cannot turn
/// a pairwise rule into millions of lines.
fn cap_per_rule(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(diags.len().min(1024));
    let mut dropped: Vec<(String, usize, Diagnostic)> = Vec::new();
    for d in diags {
        let n = seen.entry(d.rule.clone()).or_default();
        *n += 1;
        if *n <= MAX_PER_RULE {
            out.push(d);
        } else if let Some(e) = dropped.iter_mut().find(|(r, ..)| *r == d.rule) {
            e.1 += 1;
        } else {
            dropped.push((d.rule.clone(), 1, d));
        }
    }
    for (rule, k, first) in dropped {
        let mut d = Diagnostic::new(
            &rule,
            format!(
                "and {k} more `{rule}` finding{} like the ones above (only the first {MAX_PER_RULE} are shown)",
                if k == 1 { "" } else { "s" }
            ),
        );
        d.severity = first.severity;
        d.file = first.file;
        out.push(d);
    }
    out
}

/// Read and check one spec file.
pub fn check_file(path: &Path, policy: &Policy, prices: &PriceTable) -> Checked {
    let display = path.display().to_string();
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let bytes = match crate::io::read_bounded(path, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(crate::io::ReadError::TooLarge { len, .. }) => {
            let has = len.map_or_else(|| "more than that".to_string(), |l| format!("{l} bytes"));
            return Checked::failed(
                &display,
                base_dir,
                None,
                Diagnostic::new(
                    "file-too-large",
                    format!("the file has {has}; specs are limited to {MAX_FILE_BYTES} bytes"),
                )
                .help("check the path: a spec is a short YAML file"),
            );
        }
        Err(e) => return Checked::failed(&display, base_dir, None, io_diag(&e)),
    };
    match String::from_utf8(bytes) {
        Ok(text) => check_source(text, &display, base_dir, policy, prices),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            Checked::failed(
                &display,
                base_dir,
                None,
                Diagnostic::new(
                    "not-utf8",
                    format!("the file is not UTF-8 text (invalid byte at offset {at})"),
                )
                .help("save the file as UTF-8; YAML specs are text"),
            )
        }
    }
}

fn io_diag(e: &crate::io::ReadError) -> Diagnostic {
    let message = match e {
        crate::io::ReadError::NotRegular { kind, .. } => {
            format!(
                "cannot read {}: it is {kind}, not a spec file",
                e.path().display()
            )
        }
        _ => e.to_string(),
    };
    Diagnostic::new("io-error", message).help(e.help())
}

/// Check a spec given as text. `display` names it in messages; `base_dir` resolves relative
/// paths inside it.
pub fn check_source(
    text: String,
    display: &str,
    base_dir: PathBuf,
    policy: &Policy,
    prices: &PriceTable,
) -> Checked {
    let text = crate::io::strip_bom(text);
    match yaml::parse(&text) {
        Ok(parsed) => check_parsed(text, parsed, display, base_dir, policy, prices),
        Err(d) => Checked::failed(display, base_dir, Some(text), d),
    }
}

/// [`check_source`] after the parse: `text` (without its byte-order mark) and what it parsed to.
fn check_parsed(
    text: String,
    parsed: yaml::ParsedYaml,
    display: &str,
    base_dir: PathBuf,
    policy: &Policy,
    prices: &PriceTable,
) -> Checked {
    let mut checked = Checked {
        path: display.to_string(),
        base_dir,
        source: None,
        spec: None,
        sizing: None,
        auto_sized: false,
        diagnostics: Vec::new(),
        index: parsed.index,
    };
    // several sizes for one scale set: instance mix's reason instead of a type error
    let schema_diags = rules::standby::instance_mix(&parsed.value, schema::validate(&parsed.value));
    if !schema_diags.is_empty() {
        checked.diagnostics = schema_diags;
    } else {
        // landing zones: fields written next to existingSubnet (defaults hide them later)
        checked
            .diagnostics
            .extend(rules::landing_zone::written_conflicts(&parsed.value));
        match serde_json::from_value::<Spec>(parsed.value) {
            Ok(mut spec) => {
                defaults::apply(&mut spec);
                let auto_sized = spec.spec.compute.vm_size == "auto";
                let sizing = resolve_size(
                    &mut spec,
                    &checked.base_dir,
                    policy,
                    prices,
                    &mut checked.diagnostics,
                );
                if let model::Image::Alias(model::ImageAlias::Auto) = spec.spec.compute.image {
                    spec.spec.compute.image = model::Image::Alias(resolve::auto_image(spec.size()));
                }
                let ctx = rules::Context {
                    spec: &spec,
                    sizing: sizing.as_ref(),
                    auto_sized,
                    base_dir: &checked.base_dir,
                    policy,
                    prices,
                };
                checked.diagnostics.extend(rules::run(&ctx));
                // after the rules, which tell an explicit `enabled` from an absent one
                defaults::resolve_gpu_monitoring(&mut spec);
                checked.sizing = sizing;
                checked.auto_sized = auto_sized;
                checked.spec = Some(spec);
            }
            Err(e) => checked.diagnostics.push(Diagnostic::new(
                "invalid-type",
                format!("the spec does not fit the model: {e}"),
            )),
        }
    }
    checked.source = Some(text);
    checked.finish(policy);
    checked
}

/// Resolve `vmSize: auto` in place (or rank sizes for an explicit one, for the
/// under-use advice). Reports `unknown-vm-size` / `no-size-fits`.
fn resolve_size(
    spec: &mut Spec,
    base_dir: &Path,
    policy: &Policy,
    prices: &PriceTable,
    diags: &mut Vec<Diagnostic>,
) -> Option<Selection> {
    let selection = rank_sizes(spec, base_dir, policy, prices);
    let s = &mut spec.spec;
    if s.compute.vm_size == "auto" {
        match selection.chosen {
            Some(name) => s.compute.vm_size = name.to_string(),
            None => {
                // the sizes that could serve this kind of workload, what stops them being what
                // the spec can change: those with enough GPU memory cheapest first (the ranking's
                // order), then the largest of the rest
                let need = s.workload.gpu_memory_gib;
                let mem = |z: &GpuSize| z.gpu_memory_gib.unwrap_or(0.0);
                let mut near: Vec<_> = selection
                    .candidates
                    .iter()
                    .filter_map(|c| Some((catalog::find(c.size)?, c.rejected.as_deref()?)))
                    .filter(|(z, _)| sizing::unsuitable(z, s.workload.kind).is_none())
                    .collect();
                near.sort_by(|a, b| match (mem(a.0) >= need, mem(b.0) >= need) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (false, false) => mem(b.0).total_cmp(&mem(a.0)),
                    (true, false) => std::cmp::Ordering::Less,
                    (false, true) => std::cmp::Ordering::Greater,
                });
                let near: Vec<String> = near
                    .iter()
                    .take(3)
                    .map(|(z, why)| format!("{}: {why}", z.name))
                    .collect();
                let mut d = Diagnostic::new(
                    "no-size-fits",
                    format!(
                        "no GPU size fits {} GiB for {} in {}",
                        sizing::fmt_num(s.workload.gpu_memory_gib),
                        s.workload.kind.as_str(),
                        s.region
                    ),
                )
                .at("/spec/compute/vmSize")
                .help(if s.workload.kind == model::WorkloadType::Training && !s.workload.distributed {
                    "lower gpuMemoryGiB (a lower precision), allow distributed training (`workload.distributed: true`), use another image, or choose a vmSize explicitly; `gpuform validate --explain` ranks every size"
                } else {
                    "lower gpuMemoryGiB (a lower precision), use another image, or choose a vmSize explicitly; `gpuform validate --explain` ranks every size"
                });
                if !near.is_empty() {
                    d = d.note(format!("closest candidates: {}", near.join("; ")));
                }
                diags.push(d);
            }
        }
    } else if let Some(size) = catalog::find(&s.compute.vm_size) {
        // normalise the casing to Azure's
        s.compute.vm_size = size.name.clone();
    } else {
        let hint = schema::suggest(&s.compute.vm_size, catalog::names())
            .map(|n| format!("did you mean `{n}`? "))
            .unwrap_or_default();
        diags.push(
            Diagnostic::new(
                "unknown-vm-size",
                format!("`{}` is not a GPU size gpuform knows", s.compute.vm_size),
            )
            .at("/spec/compute/vmSize")
            .label("unknown size")
            .help(format!(
                "{hint}`gpuform sizes` lists the sizes; `vmSize: auto` picks the cheapest that fits"
            )),
        );
    }
    Some(selection)
}

/// Rank the catalog for `spec` (defaults applied; `vmSize` and `image` may still be `auto`):
/// [`sizing::select`]'s fit and price, then every rule whose verdict depends on the size
/// ([`rules::size_checks`]) for each fitting candidate, as if the spec named it. A candidate
/// with an error (at the policy's severities) is rejected with that finding, so `vmSize: auto`,
/// the `vram-underused` and `no-size-fits` advice and `--explain` only offer sizes the spec's
/// own rules accept; one with a warning ranks after every size without one.
pub fn rank_sizes(spec: &Spec, base_dir: &Path, policy: &Policy, prices: &PriceTable) -> Selection {
    let s = &spec.spec;
    let driver = sizing::DriverChoice::of(&s.compute);
    let mut selection = sizing::select(&s.workload, &s.region, &driver, prices);
    let mut candidate = spec.clone();
    let auto_image = matches!(
        s.compute.image,
        model::Image::Alias(model::ImageAlias::Auto)
    );
    for c in selection
        .candidates
        .iter_mut()
        .filter(|c| c.rejected.is_none())
    {
        let Some(size) = catalog::find(c.size) else {
            continue;
        };
        candidate.spec.compute.vm_size = size.name.clone();
        if auto_image {
            candidate.spec.compute.image = model::Image::Alias(resolve::auto_image(Some(size)));
        }
        let ctx = rules::Context {
            spec: &candidate,
            sizing: None,
            auto_sized: true,
            base_dir,
            policy,
            prices,
        };
        // the severities the policy gives (a rule switched off does not count)
        let findings: Vec<(crate::diag::Severity, Diagnostic)> = rules::size_checks(&ctx, size)
            .into_iter()
            .filter_map(|d| {
                let overridable =
                    crate::diag::rules::find(&d.rule).is_some_and(|r| r.overridable());
                let severity = if overridable {
                    policy.severity(&d.rule, d.severity)?
                } else {
                    d.severity
                };
                Some((severity, d))
            })
            .collect();
        let worst = |sev| {
            findings
                .iter()
                .find(|(s, _)| *s == sev)
                .map(|(_, d)| format!("{}: {}", d.rule, d.message))
        };
        c.rejected = worst(crate::diag::Severity::Error);
        if c.rejected.is_none() {
            c.caveat = worst(crate::diag::Severity::Warning);
        }
    }
    sizing::rank(&mut selection);
    selection
}

/// Every `*.yaml` / `*.yml` below `dir`, sorted, skipping hidden and `target` directories.
pub fn discover(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue;
            }
            let ft = entry.file_type()?;
            if ft.is_dir() {
                if name != "target" && name != "node_modules" {
                    stack.push(p);
                }
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Is this YAML file a gpuform spec? (`discover` also finds pipeline YAML and cloud-init.)
///
/// Decided by parsing, not by the text of a line: a spec in JSON style (`{"kind": "GpuWorkload"}`,
/// valid YAML that `render` reads) or with a quoted or flow-style `kind` is a spec. Its top level
/// has `kind: GpuWorkload` or an `apiVersion` of `gpuform/…`. A file that does not parse is
/// checked (so its errors are reported) when it mentions `GpuWorkload` or `gpuform/` at all: a
/// pull-request check never skips a broken spec.
pub fn looks_like_spec(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    match yaml::parse(text) {
        Ok(p) => is_spec_document(&p.value),
        Err(_) => mentions_spec(text),
    }
}

/// [`looks_like_spec`] of a parsed document: `kind: GpuWorkload` or an `apiVersion` of `gpuform/…`.
fn is_spec_document(value: &serde_json::Value) -> bool {
    let kind = value.get("kind").and_then(|v| v.as_str());
    let api = value.get("apiVersion").and_then(|v| v.as_str());
    kind == Some("GpuWorkload") || api.is_some_and(|a| a.starts_with("gpuform/"))
}

/// [`looks_like_spec`] of a file that does not parse.
fn mentions_spec(text: &str) -> bool {
    text.contains("GpuWorkload") || text.contains("gpuform/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    #[test]
    fn a_policy_cannot_hide_the_errors_that_leave_no_spec() {
        let mut policy = Policy::default();
        for id in [
            "unknown-field",
            "missing-field",
            "invalid-value",
            "unknown-vm-size",
        ] {
            policy.overrides.insert(id.into(), None);
        }
        let text = "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: x}\nspec:\n  regionn: eastus\n";
        let c = check_source(
            text.into(),
            "t.yaml",
            PathBuf::new(),
            &policy,
            PriceTable::embedded(),
        );
        assert!(c.spec.is_none());
        assert!(c.has_errors(), "{:?}", c.diagnostics);
        assert!(
            c.diagnostics
                .iter()
                .any(|d| d.rule == "unknown-field" && d.severity == Severity::Error)
        );
    }

    #[test]
    fn a_spec_is_recognised_by_parsing_not_by_line_text() {
        for spec in [
            "apiVersion: gpuform/v1\nkind: GpuWorkload\n",
            "{\"apiVersion\": \"gpuform/v1\", \"kind\": \"GpuWorkload\", \"spec\": {}}",
            "{\n  \"kind\": \"GpuWorkload\"\n}\n",
            "\"kind\": GpuWorkload\n",
            "---\nkind: 'GpuWorkload'\n",
            // broken, but plainly meant as a spec: checked, so its error is reported
            "kind: GpuWorkload\n  bad: [\n",
        ] {
            assert!(looks_like_spec(spec), "{spec}");
        }
        for other in [
            "trigger: [main]\nsteps:\n  - script: \"echo kind: GpuWorkload\"\n",
            "#cloud-config\npackages: [nvidia-driver]\n",
            "kind: Deployment\napiVersion: apps/v1\n",
            "{\"kind\": \"Pipeline\"}",
        ] {
            assert!(!looks_like_spec(other), "{other}");
        }
    }
}

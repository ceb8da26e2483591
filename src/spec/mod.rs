//! The workload spec: reading a file, the JSON Schema, the typed model and defaults, and
//! [`Checked`], one spec after the check. The pipeline that produces it (`check::check_file`,
//! what every command starts from) and the semantic rules live in `crate::check`, above this
//! module and the plan.

pub mod defaults;
pub mod duration;
pub mod explain;
pub mod model;
pub mod policy;
pub mod provisioning;
pub mod resolve;
pub mod schedule;
pub mod schema;
pub mod selection;
pub mod ssh_key;
pub mod standby;
pub mod starter;
pub mod timezones;
pub mod yaml;

use std::path::{Path, PathBuf};

use crate::catalog::GpuSize;
use crate::diag::Diagnostic;
pub use model::Spec;
pub use policy::Policy;
pub use selection::Selection;
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
    fn gpu_vendor(&self) -> Option<String> {
        self.vendor_line()
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

    /// Which GPU vendor `vmSize: auto` chose, and why (`None` unless gpuform chose the size).
    pub fn vendor_line(&self) -> Option<String> {
        if !self.auto_sized {
            return None;
        }
        let sel = self.sizing.as_ref()?;
        let size = self.size()?;
        Some(match sel.vendor_rule {
            model::VendorRule::Either => format!(
                "{} ({}), the cheapest fit of either vendor, as workload.gpu.vendor: any allows",
                model::vendor_label(size.gpu_vendor),
                size.gpu_model
            ),
            _ => format!("{} ({})", sel.vendor, size.gpu_model),
        })
    }

    /// The resolved size, when the spec got that far.
    pub fn size(&self) -> Option<&'static GpuSize> {
        self.spec.as_ref().and_then(Spec::size)
    }

    pub(crate) fn failed(
        path: &str,
        base_dir: PathBuf,
        source: Option<String>,
        d: Diagnostic,
    ) -> Self {
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
    pub(crate) fn finish(&mut self, policy: &Policy) {
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
pub(crate) fn is_spec_document(value: &serde_json::Value) -> bool {
    let kind = value.get("kind").and_then(|v| v.as_str());
    let api = value.get("apiVersion").and_then(|v| v.as_str());
    kind == Some("GpuWorkload") || api.is_some_and(|a| a.starts_with("gpuform/"))
}

/// [`looks_like_spec`] of a file that does not parse.
pub(crate) fn mentions_spec(text: &str) -> bool {
    text.contains("GpuWorkload") || text.contains("gpuform/")
}

#[cfg(test)]
mod tests {
    use super::*;

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

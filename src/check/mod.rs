//! Checking a spec: the pipeline every command starts from ([`check_file`]: read, parse, the
//! JSON Schema, the typed model, defaults, `vmSize: auto`, then the semantic [`rules`]), and the
//! batch of many specs ([`batch`]).
//!
//! This layer sits above `spec` (the YAML, the model, defaults) and `plan` (the resolved
//! deployment): several rules refuse what the plan would build (the custom data Azure receives,
//! the GPU metric's alerts, the landing zone's prerequisites), so they read the plan's own
//! derivations rather than re-deriving them, and `spec` imports nothing from `plan`.

pub mod batch;
pub mod rules;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use crate::catalog::prices::PriceTable;
use crate::catalog::{self, GpuSize};
use crate::diag::Diagnostic;
use crate::sizing::{self, Selection};
use crate::spec::yaml;
use crate::spec::{Checked, MAX_FILE_BYTES, Policy, Spec, defaults, model, resolve, schema};

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
    let selection = rank_sizes_in(spec, base_dir, policy, prices);
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
    rank_sizes_in(&mut spec.clone(), base_dir, policy, prices)
}

/// [`rank_sizes`] on `spec` itself: each candidate's verdict is taken with the spec's size,
/// driver pin and image set to the candidate's, and the three are put back before it returns
/// (the check of a spec ranked on a copy of the whole spec: issue 41).
fn rank_sizes_in(
    spec: &mut Spec,
    base_dir: &Path,
    policy: &Policy,
    prices: &PriceTable,
) -> Selection {
    let compute = &spec.spec.compute;
    let kept = (
        compute.vm_size.clone(),
        compute.driver_version.clone(),
        compute.image.clone(),
    );
    let selection = rank_in_place(spec, &kept.1, &kept.2, base_dir, policy, prices);
    let compute = &mut spec.spec.compute;
    (compute.vm_size, compute.driver_version, compute.image) = kept;
    selection
}

/// [`rank_sizes_in`]'s work; `driver_version` and `image` are the spec's own.
fn rank_in_place(
    candidate: &mut Spec,
    driver_version: &Option<String>,
    image: &model::Image,
    base_dir: &Path,
    policy: &Policy,
    prices: &PriceTable,
) -> Selection {
    let s = &candidate.spec;
    let driver = sizing::DriverChoice::of(&s.compute);
    // ranked once, after the verdicts below (the order before them does not matter: each
    // candidate's verdict is its own, and the ranking's last key, the name, is unique)
    let mut selection = sizing::select_unranked(&s.workload, &s.region, &driver, prices);
    let want_cuda = s
        .workload
        .cuda
        .as_deref()
        .and_then(catalog::drivers::parse_cuda);
    let gpu_driver = s.compute.gpu_driver;
    let gpu_memory_gib = s.workload.gpu_memory_gib;
    let auto_image = matches!(image, model::Image::Alias(model::ImageAlias::Auto));
    // the rules' verdict on `size` as the spec's: (error, warning), each `rule: message`
    let mut verdict = |size: &'static GpuSize, driver_version: Option<&str>| {
        candidate.spec.compute.vm_size = size.name.clone();
        candidate.spec.compute.driver_version = driver_version.map(str::to_string);
        if auto_image {
            candidate.spec.compute.image = model::Image::Alias(resolve::auto_image(Some(size)));
        }
        let ctx = rules::Context {
            spec: candidate,
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
                .map(|(_, d)| (d.rule.clone(), format!("{}: {}", d.rule, d.message)))
        };
        (
            worst(crate::diag::Severity::Error),
            worst(crate::diag::Severity::Warning).map(|(_, m)| m),
        )
    };
    for c in selection
        .candidates
        .iter_mut()
        .filter(|c| c.rejected.is_none() || c.split.is_some())
    {
        let Some(size) = catalog::find(c.size) else {
            continue;
        };
        let (error, warning) = verdict(size, driver_version.as_deref());
        match error {
            Some((rule, message)) => {
                // a CUDA ceiling a pinned driver lifts: say which pin (the spec pins none)
                if rule == "cuda-too-new"
                    && driver_version.is_none()
                    && let Some(want) = want_cuda
                {
                    let img = resolve::image(&if auto_image {
                        model::Image::Alias(resolve::auto_image(Some(size)))
                    } else {
                        image.clone()
                    });
                    c.unlock = catalog::drivers::pin_for_cuda(
                        size,
                        img.driver_os,
                        gpu_driver,
                        img.has_gpu_drivers,
                        want,
                    )
                    .filter(|pin| verdict(size, Some(pin)).0.is_none());
                }
                c.rejected = Some(message.into());
                c.split = None;
            }
            None if c.split.is_some() => c.caveat = warning,
            None => {
                c.rejected = None;
                c.caveat = warning;
            }
        }
    }
    sizing::rank(&mut selection);
    // no size holds the model on one GPU: rank those that split it (the rules warn about it)
    if selection.chosen.is_none() && selection.candidates.iter().any(|c| c.split.is_some()) {
        for c in selection
            .candidates
            .iter_mut()
            .filter(|c| c.split.is_some())
        {
            c.rejected = None;
        }
        sizing::rank(&mut selection);
        let note = format!(
            "no single GPU holds {} GiB: sizes that split the model across GPUs (tensor parallelism) were ranked",
            sizing::fmt_num(gpu_memory_gib)
        );
        selection.note = Some(match selection.note.take() {
            Some(n) => format!("{n}; {note}"),
            None => note,
        });
    }
    selection
}

#[cfg(test)]
mod pipeline_tests {
    use super::*;
    use crate::diag::Severity;

    /// Ranking on the spec itself puts back its size, driver pin and image (`auto` or not):
    /// every example spec, before its own size is resolved, is the same afterwards, and ranks
    /// as a copy does.
    #[test]
    fn ranking_in_place_leaves_the_spec_as_it_was() {
        let mut n = 0;
        for entry in std::fs::read_dir("examples").unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let parsed = crate::spec::yaml::parse(&text).unwrap();
            let Ok(mut spec) = serde_json::from_value::<Spec>(parsed.value) else {
                continue;
            };
            defaults::apply(&mut spec);
            let before = serde_json::to_value(&spec).unwrap();
            let (policy, prices) = (Policy::default(), PriceTable::embedded());
            let copy = rank_sizes(&spec, Path::new("examples"), &policy, prices);
            let in_place = rank_sizes_in(&mut spec, Path::new("examples"), &policy, prices);
            assert_eq!(
                serde_json::to_value(&spec).unwrap(),
                before,
                "{}",
                path.display()
            );
            assert_eq!(format!("{copy:?}"), format!("{in_place:?}"));
            n += 1;
        }
        assert!(n >= 8, "{n}");
    }

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
}

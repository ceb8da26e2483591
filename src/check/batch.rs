//! Many specs at once (`validate DIR`): the files named and the specs found below the
//! directories named, each file read and parsed once (the test of being a spec uses the same
//! parse as the check), checked in parallel, results in the order of the input.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{check_file, check_parsed, check_source};
use crate::catalog::prices::PriceTable;
use crate::diag::failure::{ExitCode, Failure};
use crate::spec::{
    Checked, MAX_FILE_BYTES, Policy, discover, is_spec_document, looks_like_spec, mentions_spec,
    yaml,
};

/// The specs checked, in the order given (a directory's files sorted), and the YAML files found
/// in directories that are not gpuform specs (skipped, in the same order).
#[derive(Debug)]
pub struct Batch {
    pub results: Vec<Checked>,
    pub skipped: Vec<PathBuf>,
}

/// Check the files and directories in `paths`: a file named is always checked; a directory
/// contributes every `*.yaml` / `*.yml` below it that [`looks_like_spec`] (an unreadable one is
/// kept: checking it reports why it cannot be read). Holds every result: for many specs,
/// [`check_paths_each`] hands them over as they come.
pub fn check_paths(
    paths: &[PathBuf],
    policy: &Policy,
    prices: &PriceTable,
) -> Result<Batch, Failure> {
    let mut batch = Batch {
        results: Vec::new(),
        skipped: Vec::new(),
    };
    check_paths_each(paths, policy, prices, |found| match found {
        Found::Spec(c) => batch.results.push(c),
        Found::NotSpec(path) => batch.skipped.push(path),
    })?;
    Ok(batch)
}

/// One input of [`check_paths_each`]: a checked spec (or what [`check_paths_map`] made of it),
/// or a YAML file found in a directory that is not a gpuform spec.
#[derive(Debug)]
pub enum Found<T = Checked> {
    Spec(T),
    NotSpec(PathBuf),
}

/// Inputs checked at a time per worker thread: enough to keep every core busy between the
/// hand-overs, few enough that memory holds a few hundred checked specs, not every one. Each
/// hand-over leaves a core idle while the slice's last spec is checked, and the pool's threads
/// spin before they sleep: 128 rather than 32 took ~2.5 % off `validate`'s CPU time and ~3 % off
/// its wall time on 1,000 specs, with the same peak memory for `render` (issue 41).
const PER_THREAD: usize = 128;

/// [`check_paths`], streaming: the inputs are checked in parallel a slice at a time and `each`
/// gets every result in the order of the input, so memory holds one slice's results (a checked
/// spec with its source, sizing and span index is tens of KB: 5,000 held to the end were
/// ~230 MB).
pub fn check_paths_each(
    paths: &[PathBuf],
    policy: &Policy,
    prices: &PriceTable,
    each: impl FnMut(Found),
) -> Result<(), Failure> {
    check_paths_map(paths, policy, prices, |c| c, each, || {})
}

/// [`check_paths_each`], with `map` applied to each checked spec on the worker thread that
/// checked it, in parallel: what a command makes of a spec (its report text, its findings) is
/// made there, and the checked spec is freed by the thread that built it (freeing thousands of
/// small allocations of other threads on the one thread that hands the results over cost
/// `validate` a few percent of its time, issue 41). `slice_done` is called after the results
/// of each slice of parallel work have been handed to `each` (they come together, so a command
/// may write them out in one go: one write per slice rather than per spec).
pub fn check_paths_map<T: Send>(
    paths: &[PathBuf],
    policy: &Policy,
    prices: &PriceTable,
    map: impl Fn(Checked) -> T + Sync,
    mut each: impl FnMut(Found<T>),
    mut slice_done: impl FnMut(),
) -> Result<(), Failure> {
    let inputs = inputs(paths)?;
    let slice = rayon::current_num_threads().max(1) * PER_THREAD;
    for part in inputs.chunks(slice) {
        let checked: Vec<Option<T>> = part
            .par_iter()
            .map(|(path, found)| {
                if *found {
                    check_found(path, policy, prices).map(&map)
                } else {
                    Some(map(check_file(path, policy, prices)))
                }
            })
            .collect();
        for ((path, _), c) in part.iter().zip(checked) {
            each(match c {
                Some(c) => Found::Spec(c),
                None => Found::NotSpec(path.clone()),
            });
        }
        slice_done();
    }
    Ok(())
}

/// The files `paths` names, each with whether it was found in a directory (`true`: every
/// `*.yaml` / `*.yml` below a directory named, to be tested for being a spec) or named itself
/// (`false`: always checked). A path that does not exist is a usage error.
pub fn inputs(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, Failure> {
    let mut inputs = Vec::new();
    for p in paths {
        if p.is_dir() {
            let found = discover(p).map_err(|e| {
                Failure::from_error(ExitCode::Usage, format!("cannot list {}", p.display()), &e)
            })?;
            inputs.extend(found.into_iter().map(|f| (f, true)));
        } else if p.exists() {
            inputs.push((p.clone(), false));
        } else {
            return Err(Failure::usage(format!("{} does not exist", p.display()))
                .help("give spec files or directories"));
        }
    }
    Ok(inputs)
}

/// Of [`inputs`], which to check, in the same order: a file named always; a file found in a
/// directory when it [`looks_like_spec`] (an unreadable one too: checking it reports why). The
/// files are read and parsed in parallel: a render of thousands of specs parsed them one by one
/// on one core before its own parallel work began (issue 41).
pub fn to_check(inputs: &[(PathBuf, bool)]) -> Vec<bool> {
    inputs
        .par_iter()
        .map(|(f, found)| {
            !found
                || crate::io::read_bounded(f, MAX_FILE_BYTES)
                    .ok()
                    .map(|b| looks_like_spec(&String::from_utf8_lossy(&b)))
                    .unwrap_or(true)
        })
        .collect()
}

/// A file found in a directory: `None` when it is not a spec ([`looks_like_spec`]), otherwise
/// what [`check_file`] gives, from one read and one parse.
pub fn check_found(path: &Path, policy: &Policy, prices: &PriceTable) -> Option<Checked> {
    let Ok(bytes) = crate::io::read_bounded(path, MAX_FILE_BYTES) else {
        // too large or unreadable: kept, and the check says why
        return Some(check_file(path, policy, prices));
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let spec = looks_like_spec(&String::from_utf8_lossy(e.as_bytes()));
            return spec.then(|| check_file(path, policy, prices));
        }
    };
    let display = path.display().to_string();
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    if text.starts_with("\u{feff}\u{feff}") {
        // the test drops every byte-order mark, the check one: keep them two steps
        return looks_like_spec(&text)
            .then(|| check_source(text, &display, base_dir, policy, prices));
    }
    let text = crate::io::strip_bom(text);
    match yaml::parse(&text) {
        Ok(parsed) => is_spec_document(&parsed.value)
            .then(|| check_parsed(text, parsed, &display, base_dir, policy, prices)),
        Err(d) => mentions_spec(&text).then(|| Checked::failed(&display, base_dir, Some(text), d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past one slice of parallel work, results still come in the order of the input (a
    /// directory's files sorted), one each, and the files that are not specs in their place.
    #[test]
    fn streamed_results_keep_the_input_order_across_slices() {
        let dir = tempfile::tempdir().unwrap();
        let spec = include_str!("../../examples/shortvideo-transcode.yaml");
        let n = rayon::current_num_threads().max(1) * PER_THREAD + 3;
        for i in 0..n {
            let text = if i % 7 == 3 {
                "trigger: [main]\n"
            } else {
                spec
            };
            std::fs::write(dir.path().join(format!("{i:04}.yaml")), text).unwrap();
        }
        let mut seen = Vec::new();
        check_paths_each(
            &[dir.path().to_path_buf()],
            &Policy::default(),
            PriceTable::embedded(),
            |found| {
                seen.push(match found {
                    Found::Spec(c) => (c.path, true),
                    Found::NotSpec(p) => (p.display().to_string(), false),
                })
            },
        )
        .unwrap();
        let expected: Vec<(String, bool)> = (0..n)
            .map(|i| {
                let path = dir.path().join(format!("{i:04}.yaml"));
                (path.display().to_string(), i % 7 != 3)
            })
            .collect();
        assert_eq!(seen, expected);
    }

    /// One read and one parse give what the two steps gave: the same skips, the same findings.
    #[test]
    fn a_found_file_is_checked_as_the_two_steps_checked_it() {
        let dir = tempfile::tempdir().unwrap();
        let spec = include_str!("../../examples/shortvideo-transcode.yaml");
        let cases: [(&str, Vec<u8>); 8] = [
            ("spec.yaml", spec.as_bytes().to_vec()),
            ("bom.yaml", format!("\u{feff}{spec}").into_bytes()),
            ("boms.yaml", format!("\u{feff}\u{feff}{spec}").into_bytes()),
            ("broken.yaml", b"kind: GpuWorkload\n  bad: [\n".to_vec()),
            ("other.yaml", b"trigger: [main]\n".to_vec()),
            ("broken-other.yaml", b"a: [\n".to_vec()),
            ("latin1.yaml", b"kind: GpuWorkload\nx: \xe9\n".to_vec()),
            ("latin1-other.yaml", b"x: \xe9\n".to_vec()),
        ];
        let policy = Policy::default();
        let prices = PriceTable::embedded();
        for (name, bytes) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let two_steps = looks_like_spec(&String::from_utf8_lossy(&bytes))
                .then(|| check_file(&path, &policy, prices));
            let one = check_found(&path, &policy, prices);
            assert_eq!(
                one.as_ref().map(|c| format!("{:?}", c.diagnostics)),
                two_steps.as_ref().map(|c| format!("{:?}", c.diagnostics)),
                "{name}"
            );
            assert_eq!(
                one.as_ref()
                    .map(|c| (c.source.clone(), c.vm_size().map(str::to_string))),
                two_steps.map(|c| (c.source.clone(), c.vm_size().map(str::to_string))),
                "{name}"
            );
        }
    }
}

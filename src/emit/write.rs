//! `gpuform render`'s work: render specs into a directory atomically (a temporary directory next
//! to DIR, renamed into place, so DIR is either the old render or the new one, never half of
//! each), or compare a directory with what the specs render to (`--check`). The command line
//! (`cli/render.rs`) chooses the target and the output format.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use super::{FILES, RenderError, Rendered};
use crate::diag::failure::{ExitCode, Failure};
use crate::spec::Checked;

/// Loads and checks one spec (the command line's `load_valid` with its policy).
pub type Load<'a> = dyn Fn(&Path) -> Result<Checked, Failure> + Sync + 'a;

/// Prints on stdout.
pub type Out<'a> = dyn Fn(&str) + 'a;

/// What render prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// One rendered spec and the directory (relative to the target) it goes to.
pub struct Unit {
    pub spec: PathBuf,
    pub subdir: Option<String>,
    pub rendered: Rendered,
}

/// `--check`/`--stdout`: load, check and render every spec in order (the first failure wins).
pub fn render_units(paths: &[PathBuf], load: &Load, several: bool) -> Result<Vec<Unit>, Failure> {
    let mut units = Vec::new();
    let mut names = BTreeSet::new();
    for path in paths {
        let checked = load(path)?;
        let name = checked
            .spec
            .as_ref()
            .map(|s| s.metadata.name.clone())
            .unwrap_or_default();
        if several && !names.insert(name.clone()) {
            return Err(Failure::usage(format!(
                "two specs are named `{name}`; each needs its own output directory"
            ))
            .help("give every spec a distinct metadata.name"));
        }
        let rendered = super::render(&checked).map_err(|e| render_failure(path, &e))?;
        units.push(Unit {
            spec: path.clone(),
            subdir: several.then_some(name),
            rendered,
        });
    }
    Ok(units)
}

/// What one spec wrote into the staging directory (its outputs are on disk, not in memory).
struct Written {
    spec: PathBuf,
    subdir: Option<String>,
    files: Vec<String>,
}

impl Written {
    fn rel_paths(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.files.iter().map(|n| match &self.subdir {
            Some(s) => Path::new(s).join(n),
            None => PathBuf::from(n),
        })
    }
}

/// `-o DIR`: load, check and render the specs in parallel (rayon), each writing its files into
/// the staging directory as soon as it is rendered, so memory holds a few specs' output at a
/// time, not every spec's; then swap the staging directory in as before. The first failure in
/// the order the specs were given wins, and nothing of DIR changes.
pub fn write_streaming(
    dir: &Path,
    paths: &[PathBuf],
    load: &Load,
    several: bool,
    format: Format,
    out: &Out,
) -> Result<ExitCode, Failure> {
    let started = super::bench::start();
    let (replaced, written) =
        write_atomically(dir, |staging| render_into(staging, paths, load, several))?;
    if std::env::var_os(super::bench::ENV).is_some() {
        let files: Vec<PathBuf> = written.iter().flat_map(Written::rel_paths).collect();
        super::bench::compare_with_writing(&started, dir, &files);
    }
    // say what the swap replaced: a second render into the same DIR must not lose files silently
    if let Some(r) = replaced.filter(|r| r.files > 0) {
        if r.removed.is_empty() {
            crate::ci_eprintln!(
                "replaced {} (it held {} of an earlier render)",
                dir.display(),
                crate::diag::plural(r.files, "file")
            );
        } else {
            crate::ci_eprintln!(
                "replaced {}: removed {} of an earlier render that this one does not write: {}",
                dir.display(),
                crate::diag::plural(r.removed.len(), "file"),
                name_some(&r.removed, 6)
            );
        }
    }
    let mut text = String::new();
    let mut rendered = Vec::new();
    for w in &written {
        let target = match &w.subdir {
            Some(s) => dir.join(s),
            None => dir.to_path_buf(),
        };
        match format {
            Format::Text => text.push_str(&format!(
                "rendered {} -> {} ({} files)\n",
                w.spec.display(),
                target.display(),
                w.files.len()
            )),
            Format::Json => rendered.push(serde_json::json!({
                "spec": w.spec.display().to_string(),
                "dir": target.display().to_string(),
                "files": w.files,
            })),
        }
    }
    match format {
        Format::Text => out(&text),
        Format::Json => out(&json_doc(serde_json::json!({
            "outDir": dir.display().to_string(),
            "rendered": rendered,
        }))),
    }
    Ok(ExitCode::Ok)
}

thread_local! {
    /// The buffers of [`render_into`]'s worker threads.
    static BUFFERS: std::cell::RefCell<super::Buffers> = std::cell::RefCell::default();
}

fn render_into(
    staging: &Path,
    paths: &[PathBuf],
    load: &Load,
    several: bool,
) -> Result<Vec<Written>, Failure> {
    use rayon::prelude::*;
    let results: Vec<Result<Written, Failure>> = paths
        .par_iter()
        .map(|path| {
            let checked = load(path)?;
            let name = checked
                .spec
                .as_ref()
                .map(|s| s.metadata.name.clone())
                .unwrap_or_default();
            let plan = crate::plan::Plan::build(&checked)
                .map_err(|e| render_failure(path, &RenderError::from(e)))?;
            drop(checked);
            let subdir = several.then_some(name);
            let target = match &subdir {
                Some(s) => staging.join(s),
                None => staging.to_path_buf(),
            };
            // each worker thread renders into the same buffers spec after spec
            let files = BUFFERS.with_borrow_mut(|buffers| {
                buffers
                    .render(&plan)
                    .map_err(|e| render_failure(path, &e))?;
                std::fs::create_dir_all(&target)
                    .map_err(|e| io_failure(format!("cannot create {}", target.display()), &e))?;
                let mut files = Vec::with_capacity(FILES.len());
                for (n, bytes) in buffers.files() {
                    let p = target.join(n);
                    std::fs::write(&p, bytes)
                        .map_err(|e| io_failure(format!("cannot write {}", p.display()), &e))?;
                    files.push(n.to_string());
                }
                Ok::<_, Failure>(files)
            })?;
            Ok(Written {
                spec: path.clone(),
                subdir,
                files,
            })
        })
        .collect();
    let mut out = Vec::with_capacity(results.len());
    let mut names = BTreeSet::new();
    for r in results {
        let w = r?;
        if let Some(name) = &w.subdir
            && !names.insert(name.clone())
        {
            return Err(Failure::usage(format!(
                "two specs are named `{name}`; each needs its own output directory"
            ))
            .help("give every spec a distinct metadata.name"));
        }
        out.push(w);
    }
    Ok(out)
}

/// Why a spec did not render, with the exit code of its kind: 1 when the spec cannot be
/// rendered as written, 2 when a file could not be read or gpuform itself failed.
pub fn render_failure(path: &Path, e: &RenderError) -> Failure {
    let code = if e.is_spec_problem() {
        ExitCode::Findings
    } else {
        ExitCode::Usage
    };
    let f = Failure::from_error(code, format!("cannot render {}", path.display()), e);
    match e.help() {
        Some(h) => f.help(h),
        None => f,
    }
}

/// The files of all units as (path relative to the target, contents), sorted.
fn expected(units: &[Unit]) -> Vec<(PathBuf, &str)> {
    let mut v: Vec<(PathBuf, &str)> = units
        .iter()
        .flat_map(|u| {
            u.rendered.files.iter().map(move |(name, text)| {
                let rel = match &u.subdir {
                    Some(s) => Path::new(s).join(name),
                    None => PathBuf::from(name),
                };
                (rel, text.as_str())
            })
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Every file below `dir`, relative to it, sorted.
fn list_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let r = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(r);
            } else {
                out.push(r);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `{"schemaVersion": 1, ...fields}` with a newline.
fn json_doc(fields: serde_json::Value) -> String {
    let mut doc = serde_json::json!({ "schemaVersion": 1 });
    if let (Some(d), serde_json::Value::Object(f)) = (doc.as_object_mut(), fields) {
        d.extend(f);
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("serialises")
    )
}

/// `--check DIR`: compare DIR with the units' files; a diff (text) or a summary (JSON) on stdout.
pub fn check(dir: &Path, units: &[Unit], format: Format, out: &Out) -> Result<ExitCode, Failure> {
    if !dir.is_dir() {
        return Err(
            Failure::usage(format!("{} is not a directory", dir.display()))
                .help("render it first with `gpuform render SPEC -o DIR`"),
        );
    }
    let want = expected(units);
    let have = list_files(dir).map_err(|e| {
        Failure::from_error(
            ExitCode::Usage,
            format!("cannot list {}", dir.display()),
            &e,
        )
    })?;
    let mut diff = String::new();
    let mut stale = 0usize;
    let mut differ: Vec<String> = Vec::new();
    for (rel, text) in &want {
        let path = dir.join(rel);
        let actual = match crate::io::read_bounded(&path, crate::io::limits::RENDERED) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(crate::io::ReadError::NotFound { .. }) => String::new(),
            Err(e) => {
                return Err(Failure::from_error(
                    ExitCode::Usage,
                    format!("cannot read {}", path.display()),
                    &e,
                ));
            }
        };
        if actual != *text {
            stale += 1;
            differ.push(rel.display().to_string());
            let shown = path.display().to_string();
            diff.push_str(
                &TextDiff::from_lines(
                    redact_custom_data(&actual).as_str(),
                    redact_custom_data(text).as_str(),
                )
                .unified_diff()
                .context_radius(3)
                .header(&shown, &format!("{shown} (rendered)"))
                .to_string(),
            );
        }
    }
    let wanted: BTreeSet<&PathBuf> = want.iter().map(|(p, _)| p).collect();
    for extra in have.iter().filter(|p| !wanted.contains(p)) {
        stale += 1;
        differ.push(extra.display().to_string());
        diff.push_str(&format!(
            "only in {}: {} (not rendered from the specs)\n",
            dir.display(),
            extra.display()
        ));
    }
    if format == Format::Json {
        out(&json_doc(serde_json::json!({
            "check": dir.display().to_string(),
            "upToDate": stale == 0,
            "files": want.len(),
            "differ": differ,
        })));
    }
    if stale == 0 {
        crate::ci_eprintln!("{} is up to date ({} files)", dir.display(), want.len());
        return Ok(ExitCode::Ok);
    }
    if format == Format::Text {
        out(&diff);
    }
    crate::ci_eprintln!(
        "{} is out of date: {} file(s) differ; run `gpuform render {} -o {}`",
        dir.display(),
        stale,
        units
            .iter()
            .map(|u| u.spec.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        dir.display()
    );
    Ok(ExitCode::Findings)
}

/// The files below `dir` that render does not write (replacing `dir` would lose them).
fn foreign_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(list_files(dir)?
        .into_iter()
        .filter(|rel| {
            let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            !FILES.contains(&name) || rel.components().count() > 2
        })
        .collect())
}

/// A list of paths for a message: the first `max`, then how many more.
fn name_some(paths: &[PathBuf], max: usize) -> String {
    let mut s: Vec<String> = paths
        .iter()
        .take(max)
        .map(|p| p.display().to_string())
        .collect();
    if paths.len() > max {
        s.push(format!("and {} more", paths.len() - max));
    }
    s.join(", ")
}

/// What replacing a directory did: the files an earlier render left there, and which of them
/// this render does not write again (they are gone now).
#[derive(Debug, Default)]
struct Replaced {
    files: usize,
    removed: Vec<PathBuf>,
}

fn io_failure(context: String, e: &std::io::Error) -> Failure {
    Failure::from_error(ExitCode::Usage, context, e)
}

/// Render into a temporary directory beside `dir`, then swap it in. Returns what an earlier
/// render left in `dir` (`None`: there was no `dir`).
fn write_atomically(
    dir: &Path,
    fill: impl FnOnce(&Path) -> Result<Vec<Written>, Failure>,
) -> Result<(Option<Replaced>, Vec<Written>), Failure> {
    let mut replaced = None;
    let mut before_files: Option<Vec<PathBuf>> = None;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if dir.exists() {
        if !dir.is_dir() {
            return Err(Failure::usage(format!(
                "{} exists and is not a directory",
                dir.display()
            )));
        }
        let foreign = foreign_files(dir)
            .map_err(|e| io_failure(format!("cannot list {}", dir.display()), &e))?;
        if !foreign.is_empty() {
            return Err(Failure::usage(format!(
                "{} holds files gpuform did not render; refusing to replace it",
                dir.display()
            ))
            .cause(format!(
                "not rendered by gpuform: {}",
                name_some(&foreign, 10)
            ))
            .help(
                "render into a new or empty directory, or one an earlier `gpuform render` wrote",
            ));
        }
        before_files = Some(
            list_files(dir)
                .map_err(|e| io_failure(format!("cannot list {}", dir.display()), &e))?,
        );
    } else {
        std::fs::create_dir_all(&parent)
            .map_err(|e| io_failure(format!("cannot create {}", parent.display()), &e))?;
    }
    let tmp = tempfile::Builder::new()
        .prefix(".gpuform-render-")
        .tempdir_in(&parent)
        .map_err(|e| {
            io_failure(
                format!(
                    "cannot create a temporary directory in {}",
                    parent.display()
                ),
                &e,
            )
        })?;
    let written = fill(tmp.path())?;
    if let Some(before) = before_files {
        let names: BTreeSet<PathBuf> = written.iter().flat_map(Written::rel_paths).collect();
        replaced = Some(Replaced {
            files: before.len(),
            removed: before.into_iter().filter(|p| !names.contains(p)).collect(),
        });
    }
    #[cfg(unix)]
    {
        // temporary directories are private (0700); the rendered directory is an ordinary one
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755));
    }
    // keep the temporary directory from being deleted: it becomes DIR
    let staged = tmp.keep();
    let old = if dir.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".gpuform-old-")
            .tempdir_in(&parent)
            .map_err(|e| {
                io_failure(
                    format!(
                        "cannot create a temporary directory in {}",
                        parent.display()
                    ),
                    &e,
                )
            })?
            .keep();
        // rename onto the (empty) placeholder
        std::fs::remove_dir(&aside)
            .map_err(|e| io_failure(format!("cannot prepare {}", aside.display()), &e))?;
        if let Err(e) = std::fs::rename(dir, &aside) {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(io_failure(
                format!("cannot move {} aside", dir.display()),
                &e,
            ));
        }
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&staged, dir) {
        if let Some(o) = &old {
            let _ = std::fs::rename(o, dir);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(io_failure(
            format!("cannot move the rendered files to {}", dir.display()),
            &e,
        ));
    }
    if let Some(o) = old {
        let _ = std::fs::remove_dir_all(o);
    }
    Ok((replaced, written))
}

/// The text `render --check` diffs: VM custom data (base64 of the cloud-init file, one line in
/// main.bicep and azuredeploy.json) is shown as its size and SHA-256 rather than its contents, so
/// a CI log never carries a file's bytes — neither the committed ones nor the rendered ones.
fn redact_custom_data(text: &str) -> String {
    use sha2::Digest;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let prefix = ["var customData = '", "\"customData\": \""]
            .into_iter()
            .find(|p| trimmed.starts_with(p));
        match prefix {
            Some(p) => {
                let indent = &line[..line.len() - trimmed.len()];
                let body = trimmed[p.len()..].trim_end();
                let value = body.trim_end_matches([',', '\'', '"']);
                let hash = sha2::Sha256::digest(value.as_bytes());
                let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
                let close = &body[value.len()..];
                out.push_str(&format!(
                    "{indent}{p}<{} base64 characters, sha256 {hex}…>{close}\n",
                    value.len()
                ));
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanError;

    #[test]
    fn check_diffs_show_custom_data_as_a_digest() {
        let secret = "QVpVUkVfQ0xJRU5UX1NFQ1JFVD1odW50ZXIy";
        let bicep = format!("a\nvar customData = '{secret}'\nb\n");
        let arm = format!("{{\n    \"customData\": \"{secret}\",\n}}\n");
        for t in [&bicep, &arm] {
            let r = redact_custom_data(t);
            assert!(!r.contains(secret), "{r}");
            assert!(
                r.contains(&format!("<{} base64 characters, sha256 ", secret.len())),
                "{r}"
            );
            assert_eq!(r.lines().count(), t.lines().count());
        }
        assert!(redact_custom_data(&arm).contains("…>\",\n"));
        assert!(redact_custom_data(&bicep).contains("…>'\n"));
        // different contents, different lines: the diff still shows that custom data changed
        assert_ne!(
            redact_custom_data(&bicep),
            redact_custom_data(&bicep.replace("ZXIy", "ZXIz"))
        );
    }

    #[test]
    fn unreadable_cloud_init_is_an_io_error_and_spec_problems_are_findings() {
        let io = RenderError::Plan(PlanError::CloudInit {
            path: "cloud-init.yaml".into(),
            source: crate::io::ConfinedError::Read(crate::io::ReadError::Io {
                path: "cloud-init.yaml".into(),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }),
        });
        let f = render_failure(Path::new("spec.yaml"), &io);
        assert_eq!(f.code, ExitCode::Usage);
        assert!(f.causes.iter().any(|c| c.contains("cloud-init file")));

        let driver = RenderError::Plan(PlanError::Driver {
            path: "spec.yaml".into(),
            message: "no driver".into(),
            help: "pick another size".into(),
        });
        let f = render_failure(Path::new("spec.yaml"), &driver);
        assert_eq!(f.code, ExitCode::Findings);
        assert_eq!(f.help.as_deref(), Some("pick another size"));
        let invalid = RenderError::Plan(PlanError::Invalid("spec.yaml".into()));
        assert_eq!(
            render_failure(Path::new("spec.yaml"), &invalid).code,
            ExitCode::Findings
        );
    }
}

//! What every command shares: exit codes, failures with their cause chain, colour, and loading
//! specs (with the policy flags) into checked results.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use anstream::ColorChoice as AnsiChoice;

use crate::catalog::prices::PriceTable;
pub use crate::diag::failure::{DECLINED, ExitCode, Failure, read_input};
use crate::diag::{Diagnostic, HeldInfos, Severity, Tally, render_human};
use crate::spec::{Checked, Policy};

/// When to colour output (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

static COLOR: AtomicU8 = AtomicU8::new(0);

pub fn set_color(c: ColorChoice) {
    let v = match c {
        ColorChoice::Auto => 0,
        ColorChoice::Always => 1,
        ColorChoice::Never => 2,
    };
    COLOR.store(v, Ordering::Relaxed);
    let choice = match c {
        ColorChoice::Auto => AnsiChoice::Auto,
        ColorChoice::Always => AnsiChoice::Always,
        ColorChoice::Never => AnsiChoice::Never,
    };
    choice.write_global();
}

/// Should styled output be produced for stdout? (`anstream` strips it again for non-TTYs and
/// NO_COLOR under `auto`.)
pub fn styled() -> bool {
    match COLOR.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => !matches!(
            anstream::AutoStream::choice(&std::io::stdout()),
            AnsiChoice::Never
        ),
    }
}

/// [`styled`] for stderr (progress views, prompts).
pub fn styled_stderr() -> bool {
    match COLOR.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => !matches!(
            anstream::AutoStream::choice(&std::io::stderr()),
            AnsiChoice::Never
        ),
    }
}

pub fn print_failure(f: &Failure) {
    let mut err = anstream::stderr();
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Red.into()));
    let say = |s: &str| crate::report::ci::text(s).into_owned();
    let _ = writeln!(err, "{style}error{style:#}: {}", say(&f.message));
    for c in &f.causes {
        let _ = writeln!(err, "  caused by: {}", say(c));
    }
    if let Some(h) = &f.help {
        let _ = writeln!(err, "  help: {}", say(h));
    }
}

/// Write to stdout (a closed pipe is no panic), escaped for CI runners ([`crate::report::ci::auto`]).
pub fn out(text: &str) {
    crate::report::stdout::write(&crate::report::ci::auto(text));
}

/// gpuform's own workflow commands (`--output github`), whose values are escaped in them.
pub fn out_commands(text: &str) {
    let mut o = anstream::stdout();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// One line on stderr, escaped like [`out`]'s text.
pub fn say(line: &str) {
    eprintln!("{}", crate::report::ci::text(line));
}

/// Policy flags shared by every command that reads specs.
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// Policy file (YAML): required tags and rule severity overrides.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Tags every spec must carry (comma-separated); replaces the default project,team,env,costCenter.
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    pub required_tags: Option<Vec<String>>,
}

impl PolicyArgs {
    pub fn load(&self) -> Result<Policy, Failure> {
        let mut p = match &self.policy {
            Some(path) => {
                let text = read_input(path, crate::io::limits::POLICY, "the policy file")?;
                Policy::from_yaml(&text).map_err(|e| {
                    Failure::usage(format!("invalid policy file {}: {e}", path.display()))
                })?
            }
            None => Policy::default(),
        };
        if let Some(tags) = &self.required_tags {
            p.required_tags = tags
                .iter()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect();
        }
        Ok(p)
    }
}

/// Expand files and directories into spec files ([`crate::check::batch::inputs`]): a file named is
/// always kept; of the files found in a directory, those that look like a gpuform spec (an
/// unreadable one is kept: checking it reports why it cannot be read); each skipped file is said
/// on stderr, so a directory never drops a file silently.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    let inputs = crate::check::batch::inputs(paths)?;
    let to_check = crate::check::batch::to_check(&inputs);
    for ((f, _), is_spec) in inputs.into_iter().zip(to_check) {
        if is_spec {
            out.push(f);
        } else {
            say(&format!(
                "skipped {}: no `kind: GpuWorkload`, not a gpuform spec",
                f.display()
            ));
        }
    }
    Ok(out)
}

/// Check one spec (the common start of render, preflight, cost and deploy): prints its
/// diagnostics to stderr and fails when it has errors.
pub fn load_valid(path: &Path, policy: &Policy, prices: &PriceTable) -> Result<Checked, Failure> {
    load_valid_holding(path, policy, prices, None)
}

/// [`load_valid`]; with `held`, the spec's infos are counted there instead of printed.
pub fn load_valid_holding(
    path: &Path,
    policy: &Policy,
    prices: &PriceTable,
    held: Option<&HeldInfos>,
) -> Result<Checked, Failure> {
    if !path.exists() {
        return Err(Failure::usage(format!("{} does not exist", path.display())));
    }
    if path.is_dir() {
        // a usage error (exit 2), not findings: the command takes one spec file
        return Err(Failure::usage(format!(
            "{} is a directory; this command takes one spec file",
            path.display()
        ))
        .help(format!(
            "name a spec in it (e.g. {}), or use `gpuform validate {}` / `gpuform render {} -o DIR`, which take directories",
            path.join("NAME.yaml").display(),
            path.display(),
            path.display()
        )));
    }
    let checked = crate::check::check_file(path, policy, prices);
    let mut err = anstream::stderr();
    let shown = |d: &&Diagnostic| held.is_none() || d.severity != Severity::Info;
    for d in checked.diagnostics.iter().filter(shown) {
        let shown = render_human(d, checked.source.as_deref(), styled_stderr());
        let _ = write!(err, "{}\n\n", crate::report::ci::text(&shown));
    }
    let t = Tally::of(&checked.diagnostics);
    held.inspect(|h| h.hold(path, t.infos));
    if t.errors > 0 {
        let unreadable = checked.diagnostics.iter().any(|d| d.rule == "io-error");
        return Err(Failure {
            code: if unreadable {
                ExitCode::Usage
            } else {
                ExitCode::Findings
            },
            message: format!(
                "{} has {}; fix them first (`gpuform validate {}`)",
                path.display(),
                crate::diag::plural(t.errors, "error"),
                path.display()
            ),
            causes: Vec::new(),
            help: None,
        });
    }
    if checked.spec.is_none() {
        // unreachable while input and schema errors cannot be switched off; never panic on it
        return Err(Failure {
            code: ExitCode::Findings,
            message: format!("{} could not be read as a spec", path.display()),
            causes: Vec::new(),
            help: Some(format!("run `gpuform validate {}`", path.display())),
        });
    }
    Ok(checked)
}

/// The resolved plan of a spec that validated, for the commands that read it (cost, simulate,
/// status, destroy). A validated spec always plans (a property test keeps it so); if it does
/// not, the failure carries `code` and the driver's fix where there is one.
pub fn plan_of(
    checked: &Checked,
    path: &Path,
    code: ExitCode,
) -> Result<crate::plan::Plan, Failure> {
    crate::plan::Plan::build(checked).map_err(|e| {
        let f = Failure::from_error(code, format!("cannot plan {}", path.display()), &e);
        match &e {
            crate::plan::PlanError::Driver { help, .. } => f.help(help.clone()),
            _ => f,
        }
    })
}

/// A duration flag in seconds (`--timeout 30s`, `2m`, `PT1M`, or the old bare number of seconds):
/// the one duration grammar of `crate::spec::duration`.
pub fn secs(v: &str) -> Result<f64, String> {
    crate::spec::duration::flag_seconds(v, 1.0)
}

/// A duration flag in hours (`--prices-max-age 24h`, `1d`, or the old bare number of hours).
pub fn hours(v: &str) -> Result<f64, String> {
    crate::spec::duration::flag_seconds(v, 3600.0).map(|s| s / 3600.0)
}

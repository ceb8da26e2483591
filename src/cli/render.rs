//! `gpuform render`: Bicep and ARM JSON for one or more specs.
//!
//! One spec renders into DIR; several render into DIR/<metadata.name>/. Output is written into
//! a temporary directory next to DIR and renamed into place, so DIR is either the old render or
//! the new one, never half of each. `--check DIR` compares instead of writing (for pull requests
//! that commit generated files); `--stdout FILE` prints one file of a single spec.

use std::path::{Path, PathBuf};

use super::common::{ExitCode, Failure, PolicyArgs, expand_paths, load_valid_holding, out};
use crate::catalog::prices::PriceTable;
use crate::diag::HeldInfos;
use crate::emit::FILES;
use crate::emit::write::{self, Format};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").args(["out_dir", "check", "stdout"])))]
pub struct Args {
    /// Spec files (or directories of specs).
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<PathBuf>,
    /// Write the files into DIR (replaced atomically; several specs go to DIR/<metadata.name>/).
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// What render prints on stdout: text (a line per spec as it is written) or json (one
    /// document at the end). Any other value is a DIR, as `--output DIR` meant before `--out-dir`.
    #[arg(long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// Compare DIR with what the specs render to; exit 1 and print a diff when they differ.
    #[arg(long, value_name = "DIR")]
    pub check: Option<PathBuf>,
    /// Print one rendered file of a single spec to stdout.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "main.bicep", value_parser = clap::builder::PossibleValuesParser::new(FILES))]
    pub stdout: Option<String>,
    /// Print every spec's infos too (with several specs they are otherwise counted per
    /// directory; warnings and errors are always printed).
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// The format names of `--output` across the commands: given where render expects a directory,
/// they are refused (issue 37: `render --output markdown` silently made a directory `markdown`).
const FORMAT_NAMES: [&str; 8] = [
    "text", "json", "markdown", "sarif", "github", "human", "table", "yaml",
];

/// The directory to write (if any) and the output format: `--output` names a format (text |
/// json); any other value is the directory `--output DIR` named before `-o/--out-dir` existed.
fn target(args: &Args) -> Result<(Option<PathBuf>, Format), Failure> {
    let (legacy_dir, format) = match args.output.as_deref() {
        None | Some("text") => (None, Format::Text),
        Some("json") => (None, Format::Json),
        Some(f) if FORMAT_NAMES.contains(&f) => {
            return Err(Failure::usage(format!(
                "render prints text or json, not {f} (`--output {f}` would once have made a directory named {f})"
            ))
            .help(format!(
                "--output text|json chooses what render prints; -o DIR names the directory (-o ./{f} for a directory of that name)"
            )));
        }
        Some(other) => (Some(PathBuf::from(other)), Format::Text),
    };
    for (flag, dir) in [("--out-dir", &args.out_dir), ("--check", &args.check)] {
        if let Some(f) = dir
            .as_ref()
            .and_then(|d| d.to_str())
            .filter(|d| FORMAT_NAMES.contains(d))
        {
            return Err(Failure::usage(format!(
                "{flag} {f}: `{f}` is an output format, not a directory"
            ))
            .help(format!(
                "--output {f} chooses a format where a command prints one; write ./{f} for a directory of that name"
            )));
        }
    }
    let dir = match (legacy_dir, &args.out_dir) {
        (Some(d), Some(o)) => {
            return Err(Failure::usage(format!(
                "--output {} and --out-dir {} both name a directory",
                d.display(),
                o.display()
            ))
            .help("`--output` takes text or json; name the directory with -o/--out-dir DIR"));
        }
        (Some(d), None) if args.check.is_some() || args.stdout.is_some() => {
            return Err(Failure::usage(format!(
                "--output {} names a directory, which --check/--stdout do not write",
                d.display()
            ))
            .help("`--output` takes text or json; name the directory with -o/--out-dir DIR"));
        }
        (d, o) => d.or_else(|| o.clone()),
    };
    if dir.is_none() && args.check.is_none() && args.stdout.is_none() {
        return Err(Failure::usage("render needs to know where the files go").help(
            "`gpuform render SPEC -o DIR` writes them; --check DIR compares with DIR; --stdout prints one file",
        ));
    }
    if format == Format::Json && args.stdout.is_some() {
        return Err(Failure::usage("--stdout prints a rendered file, not JSON")
            .help("drop --output json, or use -o DIR --output json"));
    }
    Ok((dir, format))
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let (dir, format) = target(&args)?;
    let policy = args.policy.load()?;
    let paths = expand_paths(&args.specs)?;
    if paths.is_empty() {
        return Err(Failure::usage("no spec files found")
            .help("give spec files, or directories that contain *.yaml specs"));
    }
    let several = paths.len() > 1;
    let held = (several && !args.verbose).then(HeldInfos::default);
    let load = |p: &Path| load_valid_holding(p, &policy, PriceTable::embedded(), held.as_ref());
    let result = render(&args, dir, format, &paths, &load, several);
    if let Some(h) = &held {
        let lines = h.summary();
        for line in &lines {
            super::common::say(line);
        }
        if !lines.is_empty() {
            eprintln!("(`gpuform render --verbose` prints the infos; `gpuform validate` too)");
        }
    }
    result
}

fn render(
    args: &Args,
    dir: Option<PathBuf>,
    format: Format,
    paths: &[PathBuf],
    load: &write::Load,
    several: bool,
) -> Result<ExitCode, Failure> {
    if several && args.stdout.is_some() {
        return Err(Failure::usage("--stdout prints a file of a single spec")
            .help("give one spec, or use -o DIR"));
    }
    if args.check.is_none() && args.stdout.is_none() {
        let dir = dir.expect("target() requires one");
        return write::write_streaming(&dir, paths, load, several, format, &out);
    }
    let units = write::render_units(paths, load, several)?;

    if let Some(file) = &args.stdout {
        let unit = &units[0];
        let text = unit
            .rendered
            .files
            .iter()
            .find(|(n, _)| n == file)
            .map(|(_, t)| t.as_str())
            .unwrap_or_default();
        out(text);
        return Ok(ExitCode::Ok);
    }
    // --check DIR (the only target left: -o DIR rendered above, --stdout printed)
    match &args.check {
        Some(dir) => write::check(dir, &units, format, &out),
        None => Err(Failure::usage("render needs to know where the files go")),
    }
}

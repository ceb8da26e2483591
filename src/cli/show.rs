//! `gpuform show`: the spec every later stage sees, with defaults filled in.

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out};
use crate::catalog::prices::PriceTable;
use crate::report;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Output: text (the resolved spec as YAML, comments kept out) or JSON.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The resolved spec as YAML.
    #[value(aliases = ["human", "table", "yaml"])]
    Text,
    Json,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let value = spec.resolved_value();
    match args.format {
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&value).expect("json")
        )),
        Format::Text => {
            let mut header = format!(
                "# {} with every default applied (gpuform show)\n",
                checked.path
            );
            if checked.auto_sized
                && let Some(sel) = &checked.sizing
            {
                header.push_str(&format!(
                            "# vmSize: cheapest size that fits in {} (prices as of {}); `gpuform validate --explain` ranks the others\n",
                            sel.price_region,
                            sel.price_as_of.as_deref().unwrap_or("unknown")
                        ));
            }
            let plan = crate::plan::Plan::build(&checked).ok();
            if let Some(d) = plan.as_ref().and_then(|p| p.devbox.as_ref()) {
                header.push_str(&format!("# {}\n", d.describe()));
            }
            for line in plan
                .as_ref()
                .and_then(|p| p.serving.as_ref())
                .map(|sv| sv.describe())
                .unwrap_or_default()
            {
                header.push_str(&format!("# {line}\n"));
            }
            header.push_str(
                "# the JSON Schema for editors: `gpuform schema > gpuworkload.schema.json`\n",
            );
            out(&format!("{header}{}", report::yaml::to_yaml(&value)));
        }
    }
    Ok(ExitCode::Ok)
}

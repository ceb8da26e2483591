//! `gpuform sizes`: the catalog as a person wants to read it, cheapest first.

use clap::ValueEnum;
use serde_json::json;

use super::common::{ExitCode, Failure, out};
use super::cost::{PriceArgs, load_price_files};
use crate::catalog;
use crate::catalog::prices::{PriceKind, PriceOs};
use crate::sizing::{self, FALLBACK_PRICE_REGION};
use crate::spec::model::WorkloadType;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only sizes with at least this much GPU memory per VM (GiB).
    #[arg(long, value_name = "GIB")]
    pub min_gpu_memory: Option<f64>,
    /// Only sizes made for this workload type.
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadArg>,
    /// Price in this region (default eastus).
    #[arg(long)]
    pub region: Option<String>,
    /// Only sizes with InfiniBand (multi-node training).
    #[arg(long)]
    pub infiniband: bool,
    /// Only this GPU vendor's sizes.
    #[arg(long, value_name = "VENDOR", value_parser = ["nvidia", "amd"])]
    pub vendor: Option<String>,
    /// Only sizes whose driver runs this CUDA version (e.g. 12.4), with the driver pin a size
    /// needs for it.
    #[arg(long, value_name = "X.Y", value_parser = cuda_arg)]
    pub cuda: Option<(u32, u32)>,
    /// Include retired, undocumented and unpriced sizes, and for inference and batch the
    /// training-class (ND, H100-class) ones.
    #[arg(long)]
    pub all: bool,
    /// Output: a table for people, or JSON.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Price with this OS's rates (Windows rates come from --prices).
    #[arg(long, value_enum, default_value_t = OsArg::Linux)]
    pub os: OsArg,
    /// The same price files `gpuform cost --prices` takes, so both rank sizes alike.
    #[command(flatten)]
    pub prices: PriceArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OsArg {
    Linux,
    Windows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    Training,
    Inference,
    Batch,
    Visualization,
}

impl From<WorkloadArg> for WorkloadType {
    fn from(w: WorkloadArg) -> Self {
        match w {
            WorkloadArg::Training => WorkloadType::Training,
            WorkloadArg::Inference => WorkloadType::Inference,
            WorkloadArg::Batch => WorkloadType::Batch,
            WorkloadArg::Visualization => WorkloadType::Visualization,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let book = load_price_files(&args.prices)?;
    let prices = &book.merged;
    let os = if args.os == OsArg::Windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    };
    let region = args
        .region
        .clone()
        .unwrap_or_else(|| FALLBACK_PRICE_REGION.to_string());
    let (rows, training, unpriced) = sizing::listing(
        &sizing::Listing {
            min_gpu_memory: args.min_gpu_memory,
            workload: args.workload.map(Into::into),
            infiniband: args.infiniband,
            vendor: args.vendor.as_deref().map(|v| match v {
                "amd" => catalog::GpuVendor::Amd,
                _ => catalog::GpuVendor::Nvidia,
            }),
            cuda: args.cuda,
            all: args.all,
        },
        prices,
        &region,
        os,
    );
    let as_of = prices
        .source_for(os, PriceKind::OnDemand)
        .map(|s| s.as_of.clone())
        .unwrap_or_default();
    let os_name = crate::cost::retail::os_label(os);
    match args.format {
        Format::Json => {
            let v: Vec<_> = rows
                .iter()
                .map(|r| {
                    let (s, od, spot) = (r.size, r.on_demand, r.spot);
                    let mut v = if os == PriceOs::Linux {
                        json!({"size": s, "region": region, "linuxOnDemandHourly": od, "linuxSpotHourly": spot})
                    } else {
                        json!({"size": s, "region": region, "windowsOnDemandHourly": od, "windowsSpotHourly": spot})
                    };
                    if let Some(p) = &r.pin {
                        v["driverVersionForCuda"] = json!(p);
                    }
                    v
                })
                .collect();
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(
                    &json!({"pricesAsOf": as_of, "currency": book.currency, "sizes": v})
                )
                .expect("json")
            ));
        }
        Format::Text => out(&sizing::listing::text(
            &rows,
            &sizing::Table {
                currency: book.currency,
                region: &region,
                os_name,
                as_of: &as_of,
                price_files: !args.prices.prices.is_empty(),
                cuda: args.cuda,
                training_hidden: training,
                unpriced_hidden: unpriced,
            },
        )),
    }
    Ok(ExitCode::Ok)
}

/// `--cuda 12.4`.
fn cuda_arg(v: &str) -> Result<(u32, u32), String> {
    crate::catalog::drivers::parse_cuda(v)
        .filter(|_| v.split('.').count() <= 2)
        .ok_or_else(|| format!("`{v}` is not a CUDA version such as 12.4"))
}

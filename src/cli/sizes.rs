//! `gpuform sizes`: the catalog as a person wants to read it, cheapest first.

use std::fmt::Write as _;

use clap::ValueEnum;
use serde_json::json;

use super::common::{ExitCode, Failure, out};
use super::cost::{PriceArgs, load_price_files};
use crate::catalog::prices::{PriceKind, PriceOs};
use crate::catalog::{self, SizeStatus};
use crate::sizing::{FALLBACK_PRICE_REGION, fmt_num};
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
    /// Include retired and undocumented sizes.
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
    let wl: Option<WorkloadType> = args.workload.map(Into::into);
    let mut rows: Vec<_> = catalog::sizes()
        .iter()
        .filter(|s| {
            args.all
                || matches!(
                    s.status,
                    SizeStatus::Ga | SizeStatus::Limited | SizeStatus::Retiring
                )
        })
        .filter(|s| {
            args.min_gpu_memory
                .is_none_or(|m| s.gpu_memory_gib.is_some_and(|g| g >= m))
        })
        .filter(|s| wl.is_none_or(|w| s.purpose.contains(&w)))
        .filter(|s| !args.infiniband || s.infiniband)
        .map(|s| {
            (
                s,
                prices.hourly(&s.name, &region, os, PriceKind::OnDemand),
                prices.hourly(&s.name, &region, os, PriceKind::Spot),
            )
        })
        .collect();
    rows.sort_by(|a, b| {
        a.1.unwrap_or(f64::MAX)
            .total_cmp(&b.1.unwrap_or(f64::MAX))
            .then(a.0.name.cmp(&b.0.name))
    });
    let as_of = prices
        .source_for(os, PriceKind::OnDemand)
        .map(|s| s.as_of.clone())
        .unwrap_or_default();
    let os_name = crate::cost::retail::os_label(os);
    match args.format {
        Format::Json => {
            let v: Vec<_> = rows
                .iter()
                .map(|(s, od, spot)| if os == PriceOs::Linux {
                    json!({"size": s, "region": region, "linuxOnDemandHourly": od, "linuxSpotHourly": spot})
                } else {
                    json!({"size": s, "region": region, "windowsOnDemandHourly": od, "windowsSpotHourly": spot})
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
        Format::Text => {
            let mut s = String::new();
            let per_hour = if book.currency.is_usd() {
                "$/h".to_string()
            } else {
                format!("{}/h", book.currency)
            };
            let _ = writeln!(
                s,
                "{:<36} {:<20} {:>5} {:>8} {:>10} {:>8}  {:<6} {:<6} {:>10}  status",
                "size", "gpu", "vcpu", "ram GiB", "gpu mem", "gpus", "ib", "driver", per_hour
            );
            for (sz, od, _) in &rows {
                let gpus = sz
                    .gpu_count
                    .map(|g| {
                        if g < 1.0 {
                            format!("1/{}", (1.0 / g).round())
                        } else {
                            fmt_num(g)
                        }
                    })
                    .unwrap_or_else(|| "?".into());
                let _ = writeln!(
                    s,
                    "{:<36} {:<20} {:>5} {:>8} {:>10} {:>8}  {:<6} {:<6} {:>10}  {}",
                    sz.name,
                    truncate(&sz.gpu_model.replace("NVIDIA ", "").replace("AMD ", ""), 20),
                    sz.vcpus,
                    fmt_num(sz.memory_gib),
                    sz.gpu_memory_gib
                        .map(|m| format!("{} GiB", fmt_num(m)))
                        .unwrap_or_else(|| "?".into()),
                    gpus,
                    if sz.infiniband { "yes" } else { "-" },
                    format!("{:?}", sz.driver.default).to_lowercase(),
                    od.map(|p| format!("{p:.3}")).unwrap_or_else(|| "-".into()),
                    status(sz),
                );
            }
            let _ = writeln!(
                s,
                "\n{} sizes; {os_name} pay-as-you-go prices in {region} as of {as_of} ({}; `gpuform cost --refresh-prices` fetches current ones)",
                rows.len(),
                if args.prices.prices.is_empty() {
                    "embedded table"
                } else {
                    "--prices files over the embedded table"
                }
            );
            let unpriced = rows.iter().filter(|(_, od, _)| od.is_none()).count();
            if unpriced > 0 {
                let _ = writeln!(
                    s,
                    "{unpriced} size{} without a {os_name} pay-as-you-go price in {region} (-): no source gpuform has prices {}; give --prices FILE (Retail Prices API JSON, e.g. the cache `gpuform cost SPEC --refresh-prices` writes) to rank {}",
                    if unpriced == 1 { "" } else { "s" },
                    if unpriced == 1 { "it" } else { "them" },
                    if unpriced == 1 { "it" } else { "them" },
                );
            }
            out(&s);
        }
    }
    Ok(ExitCode::Ok)
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

fn status(s: &catalog::GpuSize) -> String {
    match s.status {
        SizeStatus::Ga => "ga".into(),
        SizeStatus::Limited => "limited".into(),
        SizeStatus::Undocumented => "undocumented".into(),
        SizeStatus::Retiring => format!("retiring {}", s.retirement.as_deref().unwrap_or("")),
        SizeStatus::Retired => format!("retired {}", s.retirement.as_deref().unwrap_or("")),
    }
}

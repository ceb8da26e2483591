//! `gpuform sizes`: the catalog's sizes a filter keeps, cheapest first, and the table people read.

use std::fmt::Write as _;

use crate::catalog::currency::Currency;
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::catalog::{self, GpuSize, SizeStatus, drivers};
use crate::spec::model::{GpuDriver, Image, WorkloadType};
use crate::spec::resolve;

use crate::report::number::short as fmt_num;

/// What `gpuform sizes` lists.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub min_gpu_memory: Option<f64>,
    pub workload: Option<WorkloadType>,
    pub infiniband: bool,
    /// Only this vendor's sizes.
    pub vendor: Option<catalog::GpuVendor>,
    /// Only sizes whose driver (with `image: auto`, or a pinned version the extension lists)
    /// runs this CUDA version.
    pub cuda: Option<(u32, u32)>,
    /// Retired, undocumented and unpriced sizes too, and for inference and batch the
    /// training-class ones.
    pub all: bool,
}

/// One row of `gpuform sizes`.
#[derive(Debug, Clone)]
pub struct Listed {
    pub size: &'static GpuSize,
    pub on_demand: Option<f64>,
    pub spot: Option<f64>,
    /// With a CUDA filter: the `compute.driverVersion` the size needs for it.
    pub pin: Option<String>,
}

/// The rows, cheapest first, and how many sizes each default filter hid (training-class for
/// inference and batch, unpriced in the region), for the footnote.
pub fn listing(
    f: &Listing,
    prices: &PriceTable,
    region: &str,
    os: PriceOs,
) -> (Vec<Listed>, usize, usize) {
    let (mut training, mut unpriced) = (0, 0);
    let mut rows: Vec<Listed> = Vec::new();
    for s in catalog::sizes() {
        let listed_status = matches!(
            s.status,
            SizeStatus::Ga | SizeStatus::Limited | SizeStatus::Retiring
        );
        if !(f.all || listed_status)
            || f.min_gpu_memory
                .is_some_and(|m| s.gpu_memory_gib.is_none_or(|g| g < m))
            || f.workload.is_some_and(|w| !s.purpose.contains(&w))
            || (f.infiniband && !s.infiniband)
            || f.vendor.is_some_and(|v| v != s.gpu_vendor)
        {
            continue;
        }
        let mut pin = None;
        if let Some(want) = f.cuda {
            if s.gpu_vendor != catalog::GpuVendor::Nvidia {
                continue;
            }
            let img = resolve::image(&Image::Alias(resolve::auto_image(Some(s))));
            let Ok(plan) =
                drivers::plan(s, img.driver_os, GpuDriver::Auto, img.has_gpu_drivers, None)
            else {
                continue;
            };
            // an image's own driver (the HPC images) has no ceiling gpuform knows
            if plan.max_cuda.is_some_and(|max| max < want) {
                match drivers::pin_for_cuda(
                    s,
                    img.driver_os,
                    GpuDriver::Auto,
                    img.has_gpu_drivers,
                    want,
                ) {
                    Some(p) => pin = Some(p),
                    None => continue,
                }
            }
        }
        if !f.all
            && matches!(
                f.workload,
                Some(WorkloadType::Inference | WorkloadType::Batch)
            )
            && (s.is_nd() || s.is_h100_class())
        {
            training += 1;
            continue;
        }
        let on_demand = prices.hourly(&s.name, region, os, PriceKind::OnDemand);
        if !f.all && on_demand.is_none() {
            unpriced += 1;
            continue;
        }
        rows.push(Listed {
            size: s,
            on_demand,
            spot: prices.hourly(&s.name, region, os, PriceKind::Spot),
            pin,
        });
    }
    rows.sort_by(|a, b| {
        a.on_demand
            .unwrap_or(f64::MAX)
            .total_cmp(&b.on_demand.unwrap_or(f64::MAX))
            .then(a.size.name.cmp(&b.size.name))
    });
    (rows, training, unpriced)
}

/// What the table's footnotes say about where the prices come from.
pub struct Table<'a> {
    pub currency: Currency,
    pub region: &'a str,
    /// `Linux`, `Windows`.
    pub os_name: &'a str,
    pub as_of: &'a str,
    /// `--prices` files were given.
    pub price_files: bool,
    /// The `--cuda` filter, for the driver pin a row needs.
    pub cuda: Option<(u32, u32)>,
    /// Hidden by the default filters: training-class sizes, sizes without a price.
    pub training_hidden: usize,
    pub unpriced_hidden: usize,
}

/// The text table of `gpuform sizes`, with its footnotes.
pub fn text(rows: &[Listed], t: &Table) -> String {
    let mut s = String::new();
    let per_hour = format!(
        "{}/h",
        if t.currency.is_usd() {
            "$"
        } else {
            t.currency.code()
        }
    );
    let _ = writeln!(
        s,
        "{:<36} {:<20} {:>5} {:>8} {:>10} {:>8}  {:<6} {:<6} {:>12}  status",
        "size", "gpu", "vcpu", "ram GiB", "gpu mem", "gpus", "ib", "driver", per_hour
    );
    for r in rows {
        let sz = r.size;
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
        let status = match (&r.pin, t.cuda) {
            (Some(p), Some((major, minor))) => {
                format!(
                    "{}; CUDA {major}.{minor} with driverVersion {p}",
                    status(sz)
                )
            }
            _ => status(sz),
        };
        let _ = writeln!(
            s,
            "{:<36} {:<20} {:>5} {:>8} {:>10} {:>8}  {:<6} {:<6} {:>12}  {status}",
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
            r.on_demand
                .map(|p| t.currency.per_hour(p))
                .unwrap_or_else(|| "-".into()),
        );
    }
    let (region, os_name) = (t.region, t.os_name);
    let _ = writeln!(
        s,
        "\n{} sizes; {os_name} pay-as-you-go prices in {region} as of {} ({}; `gpuform cost --refresh-prices` fetches current ones)",
        rows.len(),
        t.as_of,
        if t.price_files {
            "--prices files over the embedded table"
        } else {
            "embedded table"
        }
    );
    let unpriced = rows.iter().filter(|r| r.on_demand.is_none()).count();
    if unpriced > 0 {
        let _ = writeln!(
            s,
            "{unpriced} size{} without a {os_name} pay-as-you-go price in {region} (-): most likely not offered there, or no source gpuform has prices {}; give --prices FILE (Retail Prices API JSON, e.g. the cache `gpuform cost SPEC --refresh-prices` writes) to rank {}",
            if unpriced == 1 { "" } else { "s" },
            if unpriced == 1 { "it" } else { "them" },
            if unpriced == 1 { "it" } else { "them" },
        );
    }
    let mut hidden = Vec::new();
    if t.training_hidden > 0 {
        hidden.push(format!(
            "{} training-class (ND, H100-class: `training-size-for-inference`)",
            t.training_hidden
        ));
    }
    if t.unpriced_hidden > 0 {
        hidden.push(format!(
            "{} without a price in {region} (most likely not offered there)",
            t.unpriced_hidden
        ));
    }
    if !hidden.is_empty() {
        let _ = writeln!(s, "not listed: {}; --all lists them", hidden.join(", "));
    }
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

fn status(s: &GpuSize) -> String {
    match s.status {
        SizeStatus::Ga => "ga".into(),
        SizeStatus::Limited => "limited".into(),
        SizeStatus::Undocumented => "undocumented".into(),
        SizeStatus::Retiring => format!("retiring {}", s.retirement.as_deref().unwrap_or("")),
        SizeStatus::Retired => format!("retired {}", s.retirement.as_deref().unwrap_or("")),
    }
}

//! `vmSize: auto`: rank every catalog size for a workload and pick the cheapest that fits,
//! with the reason each other size was rejected.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::catalog::{self, Arch, GpuSize, SizeStatus, drivers};
use crate::spec::model::{
    Compute, GpuDriver, Image, ImageAlias, OsType, VENDOR_DEFAULT, VendorRule, Workload,
    WorkloadType, vendor_label,
};
use crate::spec::resolve;

pub mod listing;
pub use crate::spec::selection::{Candidate, Selection};
pub use listing::{Listed, Listing, Table, listing};

/// What of the spec's compute section decides whether a size's GPU driver works: the image
/// (`auto` stands for the image `image: auto` would pick on each size), the requested driver
/// and a pinned driver version.
#[derive(Debug, Clone, Copy)]
pub struct DriverChoice<'a> {
    pub image: &'a Image,
    pub gpu_driver: GpuDriver,
    pub driver_version: Option<&'a str>,
}

impl<'a> DriverChoice<'a> {
    pub fn of(compute: &'a Compute) -> Self {
        Self {
            image: &compute.image,
            gpu_driver: compute.gpu_driver,
            driver_version: compute.driver_version.as_deref(),
        }
    }

    /// The OS the pool runs (`image: auto` is always Linux).
    pub fn os(&self) -> OsType {
        resolve::image_basics(self.image).os
    }

    /// Why the pool's driver would not work on `size`, in the words of the driver plan.
    fn problem(&self, size: &GpuSize) -> Option<String> {
        let img = match self.image {
            Image::Alias(ImageAlias::Auto) => {
                resolve::image_basics(&Image::Alias(resolve::auto_image(Some(size))))
            }
            other => resolve::image_basics(other),
        };
        drivers::plan(
            size,
            img.driver_os,
            self.gpu_driver,
            img.has_gpu_drivers,
            self.driver_version,
        )
        .err()
        .map(|p| p.message)
    }
}

/// Region whose prices rank sizes when the table has none for the spec's region.
pub const FALLBACK_PRICE_REGION: &str = "eastus";

/// Why `size` cannot serve `workload` with the pool's image and driver (ignoring price), or
/// `None` when it can.
pub fn rejection(size: &GpuSize, workload: &Workload, driver: &DriverChoice<'_>) -> Option<String> {
    match fit(size, workload, driver) {
        Fit::Fits => None,
        Fit::Split(_, why) | Fit::No(why) => Some(why),
    }
}

/// How a size serves a workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Fit {
    Fits,
    /// Only by splitting an inference model across this many GPUs (why, in words).
    Split(u32, String),
    No(String),
}

/// [`rejection`], telling the sizes that fit only by splitting an inference model across GPUs
/// from the sizes that do not fit at all.
pub fn fit(size: &GpuSize, workload: &Workload, driver: &DriverChoice<'_>) -> Fit {
    if let Some(why) = unsuitable(size, workload.kind) {
        return Fit::No(why);
    }
    if workload.distributed && !size.infiniband {
        return Fit::No("no InfiniBand for distributed training".into());
    }
    let need = workload.gpu_memory_gib;
    match size.gpu_memory_gib {
        None => return Fit::No("GPU memory not documented".into()),
        Some(m) if m < need => {
            // one allocation: `vmSize: auto` says this of most sizes for every spec
            return Fit::No(format!(
                "{} GiB GPU memory < {} GiB needed",
                Short(m),
                Short(need)
            ));
        }
        _ => {}
    }
    if let Some(why) = vendor_rejection(size, workload, driver) {
        return Fit::No(why);
    }
    if let Some(why) = driver.problem(size) {
        return Fit::No(why);
    }
    match gpu_split(size, workload) {
        GpuSplit::None => Fit::Fits,
        GpuSplit::Needed(n) => Fit::Split(
            n,
            format!(
                "no single GPU holds the model: {} GiB per GPU < {} GiB; it fits only split across {n} of its {} GPUs (tensor parallelism), which the spec does not allow (`workload.gpu.tensorParallelSize: {n}` does)",
                fmt_num(per_gpu_gib(size)),
                fmt_num(need),
                gpus(size)
            ),
        ),
        GpuSplit::Unfit(why) => Fit::No(why),
    }
}

/// GPUs a size has (a vGPU partition counts as one).
pub fn gpus(size: &GpuSize) -> u32 {
    size.gpu_count.map_or(1, |c| c.max(1.0).floor() as u32)
}

/// GPU memory of one GPU (of the partition, for a vGPU share).
pub fn per_gpu_gib(size: &GpuSize) -> f64 {
    let total = size.gpu_memory_gib.unwrap_or(0.0);
    total / size.gpu_count.unwrap_or(1.0).max(1.0)
}

/// How a model spreads over a size's GPUs.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuSplit {
    /// One GPU holds it, or the spec's `tensorParallelSize` fits the size, or the workload is not
    /// inference without a `tensorParallelSize` (training and batch jobs use every GPU of a VM).
    None,
    /// Inference without `tensorParallelSize`: one GPU is too small, this many together are not.
    Needed(u32),
    /// `tensorParallelSize` asks for more GPUs, or larger ones, than the size has (why).
    Unfit(String),
}

/// Whether `workload`'s model must be split across `size`'s GPUs (ignoring everything else).
pub fn gpu_split(size: &GpuSize, workload: &Workload) -> GpuSplit {
    let need = workload.gpu_memory_gib;
    let per_gpu = per_gpu_gib(size);
    let have = gpus(size);
    if let Some(tp) = workload.tensor_parallel_size() {
        if have < tp {
            return GpuSplit::Unfit(format!(
                "{have} GPU{} < workload.gpu.tensorParallelSize {tp}",
                if have == 1 { "" } else { "s" }
            ));
        }
        let share = need / f64::from(tp.max(1));
        if per_gpu + 1e-9 < share {
            return GpuSplit::Unfit(format!(
                "{} GiB per GPU < {} GiB, the model's share on each of {tp} GPUs (gpuMemoryGiB / tensorParallelSize)",
                fmt_num(per_gpu),
                fmt_num(share)
            ));
        }
        return GpuSplit::None;
    }
    // (a size whose GPUs together are too small is vram-exceeds-size's, not a split)
    let total = size.gpu_memory_gib.unwrap_or(0.0);
    if workload.kind != WorkloadType::Inference
        || per_gpu + 1e-9 >= need
        || per_gpu <= 0.0
        || total + 1e-9 < need
    {
        return GpuSplit::None;
    }
    // the fewest GPUs that hold it, as a power of two (the tensor-parallel sizes inference
    // servers accept divide the model's attention heads)
    let least = (need / per_gpu).ceil() as u32;
    let n = least.next_power_of_two().min(have).max(least);
    GpuSplit::Needed(n)
}

/// The vendors `vmSize: auto` may pick for `workload` on `image`: the spec's own
/// ([`Workload::vendor_rule`]), and without one the vendor whose drivers an HPC image carries,
/// else NVIDIA.
pub fn vendor_rule(workload: &Workload, image: &Image) -> VendorRule {
    match workload.vendor_rule() {
        VendorRule::Only(_, VENDOR_DEFAULT) => match image {
            Image::Alias(a) => match resolve::alias_driver_vendor(*a) {
                Some(v) => VendorRule::Only(v, "the image's drivers (compute.image)"),
                None => workload.vendor_rule(),
            },
            _ => workload.vendor_rule(),
        },
        other => other,
    }
}

/// Why `size`'s GPU vendor does not serve the workload: `workload.gpu.vendor`, `cuda` (CUDA
/// runs only on NVIDIA GPUs), the default (NVIDIA unless the spec says otherwise), or an image
/// whose drivers serve one vendor.
fn vendor_rejection(
    size: &GpuSize,
    workload: &Workload,
    driver: &DriverChoice<'_>,
) -> Option<String> {
    match vendor_rule(workload, driver.image) {
        VendorRule::Only(want, why) if want != size.gpu_vendor => {
            return Some(if why == VENDOR_DEFAULT {
                format!(
                    "{} GPU: gpuform picks {} unless the spec allows {} (`workload.gpu.vendor: {}` or `any`)",
                    vendor_label(size.gpu_vendor),
                    vendor_label(want),
                    vendor_label(size.gpu_vendor),
                    vendor_label(size.gpu_vendor).to_ascii_lowercase()
                )
            } else {
                format!(
                    "{} GPU: {why} needs {}",
                    vendor_label(size.gpu_vendor),
                    vendor_label(want)
                )
            });
        }
        _ => {}
    }
    if let Image::Alias(a) = driver.image
        && let Some(want) = resolve::alias_driver_vendor(*a)
        && want != size.gpu_vendor
    {
        return Some(format!(
            "{} GPU: image {} carries {} drivers",
            vendor_label(size.gpu_vendor),
            a.as_str(),
            vendor_label(want)
        ));
    }
    None
}

/// [`unsuitable`] for the `i`-th size of the catalog, from a table computed once: the reason
/// depends on the size and the kind of workload only.
fn unsuitable_cached(i: usize, size: &GpuSize, kind: WorkloadType) -> Option<&'static str> {
    const KINDS: [WorkloadType; 4] = [
        WorkloadType::Training,
        WorkloadType::Inference,
        WorkloadType::Batch,
        WorkloadType::Visualization,
    ];
    static TABLE: OnceLock<Vec<[Option<String>; 4]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        catalog::sizes()
            .iter()
            .map(|s| KINDS.map(|k| unsuitable(s, k)))
            .collect()
    });
    debug_assert!(std::ptr::eq(&catalog::sizes()[i], size));
    let k = KINDS.iter().position(|k| *k == kind)?;
    table.get(i)?[k].as_deref()
}

/// [`restriction`] of the `i`th catalog size, formatted once per process (it depends on the
/// catalog alone) rather than once per spec.
fn restriction_cached(i: usize, size: &GpuSize) -> Option<String> {
    static TABLE: OnceLock<Vec<Option<String>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| catalog::sizes().iter().map(restriction).collect());
    debug_assert!(std::ptr::eq(&catalog::sizes()[i], size));
    table.get(i).cloned().unwrap_or_else(|| restriction(size))
}

/// Why `size` is no choice for any `kind` workload whatever the spec says (lifecycle, VM
/// types gpuform does not render, the family's purpose), or `None`.
pub fn unsuitable(size: &GpuSize, kind: WorkloadType) -> Option<String> {
    if size.status == SizeStatus::Retired {
        return Some(format!(
            "retired{}",
            size.retirement
                .as_deref()
                .map(|d| format!(" {d}"))
                .unwrap_or_default()
        ));
    }
    if size.status == SizeStatus::Retiring {
        return Some(format!(
            "retiring {}",
            size.retirement.as_deref().unwrap_or("soon")
        ));
    }
    if size.status == SizeStatus::Undocumented {
        return Some("GPU memory and driver support not documented".into());
    }
    if size.series.starts_with("NCC") {
        return Some(
            "confidential VM size: gpuform does not render ConfidentialVM scale sets".into(),
        );
    }
    if size.arch == Arch::Arm64 {
        return Some("Arm64 (Grace) CPUs: needs arm64 images".into());
    }
    if !size.purpose.contains(&kind) {
        return Some(match kind {
            WorkloadType::Visualization => "no graphics (GRID/AMD) driver for visualization".into(),
            other => format!(
                "not made for {} ({} is a {} size)",
                other.as_str(),
                size.series,
                purpose_label(size)
            ),
        });
    }
    None
}

fn purpose_label(size: &GpuSize) -> String {
    size.purpose
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join("/")
}

/// `16`, `0.5`: [`crate::report::number::short`].
pub fn fmt_num(x: f64) -> String {
    crate::report::number::short(x)
}

/// [`fmt_num`] written into the message being formatted, without a string of its own.
struct Short(f64);

impl std::fmt::Display for Short {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if (x - x.round()).abs() < 1e-9 {
            write!(f, "{}", x.round() as i64)
        } else {
            write!(f, "{x:.1}")
        }
    }
}

/// Rank all catalog sizes for `workload` in `region`.
pub fn select(
    workload: &Workload,
    region: &str,
    driver: &DriverChoice<'_>,
    prices: &PriceTable,
) -> Selection {
    let mut selection = select_unranked(workload, region, driver, prices);
    rank(&mut selection);
    selection
}

/// [`select`] before [`rank`]: the candidates in the catalog's order and none chosen, for a
/// caller that changes their verdicts and ranks once after (`vmSize: auto`'s ranking, for every
/// spec checked).
pub fn select_unranked(
    workload: &Workload,
    region: &str,
    driver: &DriverChoice<'_>,
    prices: &PriceTable,
) -> Selection {
    let wanted_os = if driver.os() == OsType::Windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    };
    let wanted = prices.in_region(region, wanted_os, PriceKind::OnDemand);
    let has_os_prices = catalog::sizes()
        .iter()
        .enumerate()
        .any(|(i, s)| wanted.hourly_at(i, &s.name).is_some());
    let price_os = if has_os_prices {
        wanted_os
    } else {
        PriceOs::Linux
    };
    let region_has_prices = if price_os == wanted_os {
        has_os_prices
    } else {
        let in_region = prices.in_region(region, price_os, PriceKind::OnDemand);
        catalog::sizes()
            .iter()
            .enumerate()
            .any(|(i, s)| in_region.hourly_at(i, &s.name).is_some())
    };
    let price_region = if region_has_prices {
        region.to_string()
    } else {
        FALLBACK_PRICE_REGION.to_string()
    };
    let mut notes = Vec::new();
    if price_os != wanted_os {
        notes.push("ranked by Linux pay-as-you-go prices: the price table has no Windows prices (use --prices or --refresh-prices)".to_string());
    }
    if !region_has_prices {
        notes.push(format!(
            "the price table has no prices for {region}; ranked by {FALLBACK_PRICE_REGION} prices"
        ));
    }
    // the table and the region looked up once, then each size (72 sizes for every spec)
    let priced = prices.in_region(&price_region, price_os, PriceKind::OnDemand);
    let candidates: Vec<Candidate> = catalog::sizes()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let hourly = priced.hourly_at(i, &s.name);
            // what `fit` says, the reasons that hold for every spec borrowed from one table
            let (mut rejected, mut split): (Option<Cow<'static, str>>, _) =
                match unsuitable_cached(i, s, workload.kind) {
                    Some(why) => (Some(Cow::Borrowed(why)), None),
                    None => match fit(s, workload, driver) {
                        Fit::Fits => (None, None),
                        Fit::Split(n, why) => (Some(why.into()), Some(n)),
                        Fit::No(why) => (Some(why.into()), None),
                    },
                };
            if (rejected.is_none() || split.is_some()) && hourly.is_none() {
                rejected = Some(format!("not offered in {price_region} (no price)").into());
                split = None;
            }
            Candidate {
                restricted: restriction_cached(i, s),
                size: s.name.as_str(),
                gpu_memory_gib: s.gpu_memory_gib,
                gpu_count: s.gpu_count,
                vcpus: s.vcpus,
                hourly,
                rejected,
                caveat: None,
                split,
                unlock: None,
                catalog_index: i,
            }
        })
        .collect();
    let price_as_of = prices
        .source_for(price_os, PriceKind::OnDemand)
        .map(|s| s.as_of.clone());
    Selection {
        chosen: None,
        price_region,
        price_os,
        price_as_of,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        vendor: vendor_rule(workload, driver.image).describe(),
        vendor_rule: vendor_rule(workload, driver.image),
        candidates,
    }
}

/// The cheapest fitting size the catalog does not restrict, for `workload` in `region`, whatever
/// the spec's image: with `image: auto` (the HPC image for sizes whose drivers come with it) and
/// the default driver. Returns the size, its hourly price, the price region and the image it needs
/// (`auto` unless plain `ubuntu-22.04` serves it too). For the fixes validate suggests when the
/// cheapest fit is restricted.
pub fn unrestricted_fit(
    workload: &Workload,
    region: &str,
    current: &Image,
    prices: &PriceTable,
) -> Option<(&'static str, f64, String, Image)> {
    // a Windows pool stays Windows: the HPC images are Linux
    if resolve::image_basics(current).os == OsType::Windows {
        return None;
    }
    let plain = Image::Alias(ImageAlias::Ubuntu2204);
    let auto = Image::Alias(ImageAlias::Auto);
    let pick = |image: &Image| {
        let sel = select(
            workload,
            region,
            &DriverChoice {
                image,
                gpu_driver: GpuDriver::Auto,
                driver_version: None,
            },
            prices,
        );
        sel.candidates
            .iter()
            .find(|c| c.rejected.is_none() && c.restricted.is_none())
            .and_then(|c| Some((c.size, c.hourly?, sel.price_region.clone())))
    };
    let (size, price, price_region) = pick(&auto)?;
    let image = match pick(&plain) {
        Some((s, _, _)) if s == size => plain,
        _ => auto,
    };
    Some((size, price, price_region, image))
}

/// Why the catalog restricts `size` (its `limited` status and note), or `None`. Retiring and
/// retired sizes are rejected outright ([`unsuitable`]).
pub fn restriction(size: &GpuSize) -> Option<String> {
    (size.status == SizeStatus::Limited).then(|| {
        format!(
            "restricted: {}",
            size.note.as_deref().unwrap_or("capacity is limited")
        )
    })
}

/// `x` as an integer that orders as [`f64::total_cmp`] orders the floats.
fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// Order the candidates (fitting ones cheapest first, unrestricted before restricted ones, then
/// the rejected ones) and choose the first that fits. Called again after the rules reject more candidates
/// (`crate::check::rank_sizes`).
pub fn rank(selection: &mut Selection) {
    // The order compares the candidates field by field: rejected, restricted, caveat, price,
    // vCPUs, then the size's name, which is unique. All of them are packed into one integer
    // computed once per candidate (the name as its place among the catalog's names in order),
    // so each comparison is one integer's (a tuple with the name compared as text was ~3 % of
    // `validate`'s time on 1,000 specs: issue 41). The candidates (large structs) are then moved
    // once into place.
    let names = name_order();
    let sizes = catalog::sizes();
    let mut keys: Vec<(u128, usize)> = Vec::with_capacity(selection.candidates.len());
    for (i, c) in selection.candidates.iter().enumerate() {
        match (names.get(c.catalog_index), sizes.get(c.catalog_index)) {
            (Some(name), Some(size)) if size.name == c.size => {
                keys.push(((rank_key(c) << 16) | u128::from(*name), i));
            }
            // a candidate whose place in the catalog is not known: the names compared as text
            _ => return rank_by_text(selection),
        }
    }
    keys.sort_unstable_by_key(|k| k.0);
    // put each candidate where its key went (the permutation `sort_by_cached_key` applies)
    let candidates = &mut selection.candidates;
    for i in 0..keys.len() {
        let mut from = keys[i].1;
        while from < i {
            from = keys[from].1;
        }
        keys[i].1 = from;
        candidates.swap(i, from);
    }
    choose(selection);
}

/// [`rank`] with the names compared as text.
fn rank_by_text(selection: &mut Selection) {
    selection
        .candidates
        .sort_by_cached_key(|c| (rank_key(c), c.size));
    choose(selection);
}

/// The first ranked candidate that is not rejected.
fn choose(selection: &mut Selection) {
    selection.chosen = selection
        .candidates
        .iter()
        .find(|c| c.rejected.is_none())
        .map(|c| c.size);
}

/// Each catalog size's place among the catalog's names in order (as `str` orders them), once
/// per process.
fn name_order() -> &'static [u16] {
    static ORDER: OnceLock<Vec<u16>> = OnceLock::new();
    ORDER.get_or_init(|| {
        let sizes = catalog::sizes();
        let mut by_name: Vec<usize> = (0..sizes.len()).collect();
        by_name.sort_by(|a, b| sizes[*a].name.cmp(&sizes[*b].name));
        let mut order = vec![0u16; sizes.len()];
        for (place, i) in by_name.into_iter().enumerate() {
            order[i] = u16::try_from(place).expect("fewer than 65,536 sizes");
        }
        order
    })
}

/// The ranking's keys but the name, in one integer that orders as the keys do in turn: from the
/// top, rejected, restricted and caveat (`false` first), the price as [`f64::total_cmp`] orders
/// it (no price last), the vCPUs.
fn rank_key(c: &Candidate) -> u128 {
    // the sign bit flipped: [`total_order_key`]'s signed order as an unsigned one
    let price = (total_order_key(c.hourly.unwrap_or(f64::MAX)) as u64) ^ (1 << 63);
    (u128::from(c.rejected.is_some()) << 98)
        | (u128::from(c.restricted.is_some()) << 97)
        | (u128::from(c.caveat.is_some()) << 96)
        | (u128::from(price) << 32)
        | u128::from(c.vcpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranking orders the candidates as comparing them field by field does (rejected,
    /// restricted, caveat, price by `total_cmp`, vCPUs, name), whatever the prices (negative,
    /// zero, equal, missing, NaN), and chooses the first that is not rejected.
    #[test]
    fn ranking_orders_as_the_keys_in_turn() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let names: Vec<&'static str> = catalog::sizes().iter().map(|s| s.name.as_str()).collect();
        let price = prop_oneof![
            Just(None),
            Just(Some(0.0)),
            Just(Some(-0.0)),
            Just(Some(f64::NAN)),
            Just(Some(f64::MAX)),
            Just(Some(f64::INFINITY)),
            (0u8..4).prop_map(|p| Some(f64::from(p) * 0.5)),
            (-1e3f64..1e3).prop_map(Some),
        ];
        let candidate = (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            price,
            prop_oneof![Just(0u32), Just(8), Just(u32::MAX), any::<u32>()],
        );
        let mut runner = TestRunner::new(Config {
            cases: 512,
            ..Config::default()
        });
        runner
            .run(
                &(
                    proptest::collection::vec(candidate, 0..names.len()),
                    any::<u64>(),
                ),
                |(fields, shift)| {
                    let candidates: Vec<Candidate> = fields
                        .iter()
                        .enumerate()
                        .map(
                            |(i, (rejected, restricted, caveat, hourly, vcpus))| Candidate {
                                size: names[(i + shift as usize) % names.len()],
                                // a wrong place in the catalog now and then: ranked by the
                                // names as text
                                catalog_index: if shift % 5 == 0 && i == 1 {
                                    usize::MAX
                                } else {
                                    (i + shift as usize) % names.len()
                                },
                                gpu_memory_gib: None,
                                gpu_count: None,
                                vcpus: *vcpus,
                                hourly: *hourly,
                                rejected: rejected.then(|| "no".into()),
                                caveat: caveat.then(|| "warn".into()),
                                restricted: restricted.then(|| "limited".into()),
                                split: None,
                                unlock: None,
                            },
                        )
                        .collect();
                    let mut expected = candidates.clone();
                    expected.sort_by(|a, b| {
                        a.rejected
                            .is_some()
                            .cmp(&b.rejected.is_some())
                            .then(a.restricted.is_some().cmp(&b.restricted.is_some()))
                            .then(a.caveat.is_some().cmp(&b.caveat.is_some()))
                            .then(
                                a.hourly
                                    .unwrap_or(f64::MAX)
                                    .total_cmp(&b.hourly.unwrap_or(f64::MAX)),
                            )
                            .then(a.vcpus.cmp(&b.vcpus))
                            .then(a.size.cmp(b.size))
                    });
                    let mut selection = Selection {
                        chosen: None,
                        price_region: String::new(),
                        price_os: PriceOs::Linux,
                        price_as_of: None,
                        note: None,
                        vendor: String::new(),
                        vendor_rule: VendorRule::Either,
                        candidates,
                    };
                    rank(&mut selection);
                    let order = |v: &[Candidate]| v.iter().map(|c| c.size).collect::<Vec<_>>();
                    prop_assert_eq!(order(&selection.candidates), order(&expected));
                    prop_assert_eq!(
                        selection.chosen,
                        expected
                            .iter()
                            .find(|c| c.rejected.is_none())
                            .map(|c| c.size)
                    );
                    Ok(())
                },
            )
            .unwrap();
    }

    /// A number written in a message reads as [`fmt_num`] writes it.
    #[test]
    fn short_numbers_read_as_fmt_num() {
        for x in [
            0.0,
            0.5,
            1.0,
            15.999_999_999_9,
            16.0,
            16.04,
            16.05,
            24.25,
            80.0,
            1e-10,
            -2.5,
            1e12,
        ] {
            assert_eq!(Short(x).to_string(), fmt_num(x), "{x}");
        }
    }

    /// The restriction formatted once per process is the one [`restriction`] formats, for
    /// every size of the catalog (some are restricted).
    #[test]
    fn cached_restrictions_are_the_restrictions() {
        let mut restricted = 0;
        for (i, s) in catalog::sizes().iter().enumerate() {
            assert_eq!(restriction_cached(i, s), restriction(s), "{}", s.name);
            restricted += usize::from(restriction(s).is_some());
        }
        assert!(restricted > 0);
    }

    const UBUNTU: Image = Image::Alias(ImageAlias::Ubuntu2204);
    const AUTO: Image = Image::Alias(ImageAlias::Auto);
    const WINDOWS: Image = Image::Alias(ImageAlias::Windows2022);

    fn on(image: &Image) -> DriverChoice<'_> {
        DriverChoice {
            image,
            gpu_driver: GpuDriver::Auto,
            driver_version: None,
        }
    }

    fn wl(kind: WorkloadType, gib: f64, distributed: bool) -> Workload {
        Workload {
            kind,
            gpu_memory_gib: gib,
            precision: None,
            interruptible: false,
            distributed,
            cuda: None,
            gpu: None,
            job_duration: None,
            concurrent_jobs_per_instance: None,
        }
    }

    /// The ranking's integer key orders prices as `total_cmp` does.
    #[test]
    fn the_price_key_orders_as_total_cmp() {
        let xs = [
            f64::MAX,
            0.0,
            -0.0,
            0.25,
            1.5,
            12.0,
            1e-300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -3.0,
            f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn small_inference_picks_the_cheapest_t4() {
        let s = select(
            &wl(WorkloadType::Inference, 11.0, false),
            "eastus2",
            &on(&UBUNTU),
            PriceTable::embedded(),
        );
        assert_eq!(s.chosen, Some("Standard_NC4as_T4_v3"));
        assert!(s.note.is_none());
        // a rejected size says why
        let a100 = s
            .candidates
            .iter()
            .find(|c| c.size == "Standard_NC6s_v3")
            .unwrap();
        assert!(a100.rejected.as_deref().unwrap().starts_with("retired"));
    }

    #[test]
    fn big_training_needs_big_memory() {
        let s = select(
            &wl(WorkloadType::Training, 70.0, false),
            "eastus",
            &on(&UBUNTU),
            PriceTable::embedded(),
        );
        let chosen = catalog::find(s.chosen.unwrap()).unwrap();
        assert!(chosen.gpu_memory_gib.unwrap() >= 70.0);
        let t4 = s
            .candidates
            .iter()
            .find(|c| c.size == "Standard_NC4as_T4_v3")
            .unwrap();
        assert_eq!(
            t4.rejected.as_deref(),
            Some("16 GiB GPU memory < 70 GiB needed")
        );
    }

    #[test]
    fn distributed_training_needs_infiniband() {
        let s = select(
            &wl(WorkloadType::Training, 300.0, true),
            "eastus",
            &on(&AUTO),
            PriceTable::embedded(),
        );
        let chosen = catalog::find(s.chosen.unwrap()).unwrap();
        assert!(chosen.infiniband && chosen.is_nd());
    }

    #[test]
    fn visualization_picks_nv_and_says_prices_are_linux() {
        let s = select(
            &wl(WorkloadType::Visualization, 6.0, false),
            "eastus",
            &on(&WINDOWS),
            PriceTable::embedded(),
        );
        let chosen = catalog::find(s.chosen.unwrap()).unwrap();
        assert!(chosen.is_visualization_size(), "{}", chosen.name);
        assert!(s.note.as_deref().unwrap().contains("Linux"));
    }

    #[test]
    fn auto_sizing_skips_sizes_whose_driver_fails_on_the_image() {
        // the NVIDIA extension has no CUDA driver for Ubuntu 24.04: the T4 would fail later
        let noble = Image::Alias(ImageAlias::Ubuntu2404);
        let s = select(
            &wl(WorkloadType::Inference, 11.0, false),
            "eastus2",
            &on(&noble),
            PriceTable::embedded(),
        );
        let t4 = s
            .candidates
            .iter()
            .find(|c| c.size == "Standard_NC4as_T4_v3")
            .unwrap();
        assert!(
            t4.rejected.as_deref().unwrap().contains("Ubuntu 24.04"),
            "{:?}",
            t4.rejected
        );
        let chosen = s.chosen_size().unwrap();
        let img = resolve::image(&noble);
        assert!(
            drivers::plan(chosen, img.driver_os, GpuDriver::Auto, false, None).is_ok(),
            "{}",
            chosen.name
        );
        // `image: auto` stands for the HPC image on ND sizes, whose drivers come with it
        let s = select(
            &wl(WorkloadType::Training, 300.0, true),
            "eastus",
            &on(&UBUNTU),
            PriceTable::embedded(),
        );
        assert_eq!(s.chosen, None, "plain Ubuntu has no driver for ND sizes");
    }
}

//! Size fit: VRAM, workload/family fit, lifecycle, disks.

use super::context::{Context, per_hour};
use crate::catalog::{Arch, GpuSize, SizeStatus};
use crate::diag::Diagnostic;
use crate::sizing::fmt_num;
use crate::spec::model::{Precision, WorkloadType};

const SIZE: &str = "/spec/compute/vmSize";

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let wl = &s.workload;
    if wl.kind == WorkloadType::Inference
        && matches!(wl.precision, Some(Precision::Fp32 | Precision::Tf32))
    {
        out.push(
            Diagnostic::new("fp32-inference", "inference at FP32: FP16 or INT8 usually halves or quarters VRAM and cost")
                .at("/spec/workload/precision")
                .label("32-bit weights")
                .help("measure accuracy at fp16/bf16 or int8 first; then lower gpuMemoryGiB and let vmSize: auto pick a smaller size"),
        );
    }
    if wl.precision.is_none() && wl.kind != WorkloadType::Visualization {
        out.push(
            Diagnostic::new("precision-missing", "no precision given for the measured VRAM peak")
                .at("/spec/workload")
                .help("add `precision: fp16` (or the precision you measured at); cost advice on lower precision needs it"),
        );
    }
    if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
        unpriced(ctx, size, out);
        pin_unlocks(ctx, size, out);
    }
}

/// The spec's size has no price in its region: the price table (the Retail Prices API) lists a
/// size in every region Azure sells it in, so the size is most likely not offered there. Says
/// where it is, nearest first.
fn unpriced(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    use crate::catalog::prices::{PriceKind, PriceOs};
    use crate::catalog::regions;
    let s = &ctx.spec.spec;
    let region = s.region.as_str();
    let priced = |name: &str, r: &str| {
        ctx.prices
            .hourly(name, r, PriceOs::Linux, PriceKind::OnDemand)
            .is_some()
    };
    // a retired size has its own error; a region the table does not price at all (a sovereign
    // cloud, a new region) says nothing about the size
    if size.status == SizeStatus::Retired
        || priced(&size.name, region)
        || !crate::catalog::sizes()
            .iter()
            .any(|z| priced(&z.name, region))
    {
        return;
    }
    let near = regions::nearest_offering(
        &size.name,
        region,
        s.allowed_regions.as_deref(),
        ctx.prices,
        3,
    );
    let as_of = ctx
        .prices
        .source_for(PriceOs::Linux, PriceKind::OnDemand)
        .map(|x| x.as_of.clone())
        .unwrap_or_else(|| "unknown".into());
    let mut d = Diagnostic::new(
        "size-unpriced-in-region",
        format!(
            "gpuform has no price for {} in {region}: Azure most likely does not offer it there",
            size.name
        ),
    )
    .at(SIZE)
    .label(format!("no price in {region}"))
    .help(if near.is_empty() {
        format!(
            "choose a size priced in {region} (`gpuform sizes --region {region}`), or run `gpuform preflight` to read the subscription's live SKU list"
        )
    } else {
        format!(
            "the nearest {}regions with a price for it: {}; set `region:` (or `alternateRegions:`) to one of them, choose a size priced in {region} (`gpuform sizes --region {region}`), or run `gpuform preflight`, whose live SKU list decides",
            if s.allowed_regions.is_some() { "allowed " } else { "" },
            regions::list_nearby(&near)
        )
    })
    .note(format!(
        "the price table (Azure Retail Prices API, as of {as_of}) prices a size in every region Azure sells it in; {}",
        regions::NEAREST_BASIS
    ));
    if s.workload.kind == WorkloadType::Visualization {
        d = d.note("Windows prices are not embedded: the check reads the Linux price list");
    }
    out.push(d);
}

/// A cheaper size than the spec's fits once `compute.driverVersion` pins a newer driver (its
/// default cannot run `workload.cuda`): name it, its price and the pin to write.
fn pin_unlocks(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let Some(sel) = ctx.sizing else { return };
    if s.compute.driver_version.is_some() {
        return;
    }
    let current = sel
        .candidates
        .iter()
        .find(|c| c.size == size.name)
        .and_then(|c| c.hourly);
    let Some(best) = sel
        .candidates
        .iter()
        .filter(|c| c.unlock.is_some() && c.hourly.is_some())
        .filter(|c| match current {
            Some(p) => c.hourly.is_some_and(|h| h < p),
            None => true,
        })
        .min_by(|a, b| {
            a.hourly
                .unwrap_or(f64::MAX)
                .total_cmp(&b.hourly.unwrap_or(f64::MAX))
        })
    else {
        return;
    };
    let pin = best.unlock.as_deref().unwrap_or_default();
    let Some(alt) = crate::catalog::find(best.size) else {
        return;
    };
    let img = crate::spec::resolve::image(&crate::spec::model::Image::Alias(
        crate::spec::resolve::auto_image(Some(alt)),
    ));
    let default = crate::catalog::drivers::plan(
        alt,
        img.driver_os,
        s.compute.gpu_driver,
        img.has_gpu_drivers,
        None,
    )
    .ok()
    .and_then(|p| p.driver_version.map(|v| (v, p.pin_reason)));
    let cuda = crate::catalog::drivers::cuda_for_driver(pin)
        .or_else(|| crate::catalog::drivers::parse_cuda(pin))
        .map(|(a, b)| format!("CUDA {a}.{b}"))
        .unwrap_or_default();
    let mut d = Diagnostic::new(
        "driver-pin-unlocks-size",
        format!(
            "{} ({} in {}) fits this workload with a newer driver, for less than {} ({})",
            best.size,
            per_hour(best.hourly),
            sel.price_region,
            size.name,
            per_hour(current)
        ),
    )
    .at(SIZE)
    .label("a cheaper size needs a driver pin")
    .help(format!(
        "write `vmSize: {}` and `driverVersion: \"{pin}\"` under compute (the extension lists {pin}; it supports {cuda}); test the workload on it before production",
        best.size
    ));
    if let Some((v, reason)) = default {
        d = d.note(match reason {
            Some(r) => format!(
                "its default driver is {v}, pinned by gpuform because {r}: it cannot run CUDA {}",
                s.workload.cuda.as_deref().unwrap_or_default()
            ),
            None => format!(
                "its default driver {v} cannot run CUDA {}",
                s.workload.cuda.as_deref().unwrap_or_default()
            ),
        });
    }
    out.push(d);
}

/// The size-dependent half: run for the spec's size, and by `vmSize: auto` for every candidate
/// (see [`super::size_checks`]).
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let wl = &s.workload;
    let cheapest = ctx.sizing.and_then(|sel| {
        sel.chosen
            .map(|c| (c, sel.chosen_price(), sel.price_region.clone()))
    });
    // the cheapest fit may be a restricted size (no net-new capacity): then name the cheapest
    // unrestricted size too, with the image it needs (an HPC image carries the drivers of sizes
    // no driver extension supports)
    let unrestricted = || {
        let restricted = ctx
            .sizing
            .and_then(|sel| sel.candidates.iter().find(|c| Some(c.size) == sel.chosen))
            .and_then(|c| c.restricted.clone())?;
        let (alt, price, region, image) =
            crate::sizing::unrestricted_fit(&s.workload, &s.region, &s.compute.image, ctx.prices)?;
        (alt != size.name).then(|| {
            let with = if image == s.compute.image {
                String::new()
            } else {
                format!(" with `image: {}`", image_label(&image))
            };
            format!("; `{alt}` ({} in {region}) is the cheapest unrestricted size that fits{with} (the cheaper one is {restricted})", per_hour(Some(price)))
        })
    };
    let suggestion = || {
        match &cheapest {
        Some((name, price, region)) if *name != size.name => {
            format!(
                "`{name}` ({} in {region}) is the cheapest size that fits{}; or set `vmSize: auto`",
                per_hour(*price),
                unrestricted().unwrap_or_default()
            )
        }
        _ if ctx.auto_sized => "vmSize: auto chose it: no cheaper size passes the spec's rules (`gpuform validate --explain` ranks them all)".to_string(),
        _ => "pick a size from `gpuform sizes`, or set `vmSize: auto`".to_string(),
    }
    };
    match size.status {
        SizeStatus::Retired => out.push(
            Diagnostic::new(
                "size-retired",
                format!(
                    "{} ({}) is retired{}",
                    size.name,
                    size.series,
                    size.retirement.as_deref().map(|d| format!(" since {d}")).unwrap_or_default()
                ),
            )
            .at(SIZE)
            .label("Azure no longer offers this size")
            .help(suggestion()),
        ),
        SizeStatus::Retiring => out.push(
            Diagnostic::new(
                "size-retiring",
                format!("{} ({}) retires on {}", size.name, size.series, size.retirement.as_deref().unwrap_or("an announced date")),
            )
            .at(SIZE)
            .label("announced for retirement")
            .help(suggestion()),
        ),
        // ranking candidates (`ctx.ranking()`) reads rule and message only: the help's second
        // catalog ranking (two per restricted candidate) is left out there
        SizeStatus::Limited if ctx.ranking() => out.push(
            Diagnostic::new("size-limited", format!("{} ({}): {}", size.name, size.series, size.note.as_deref().unwrap_or("capacity is limited")))
                .at(SIZE),
        ),
        SizeStatus::Limited => out.push(
            Diagnostic::new("size-limited", format!("{} ({}): {}", size.name, size.series, size.note.as_deref().unwrap_or("capacity is limited")))
                .at(SIZE)
                .help(match crate::sizing::unrestricted_fit(&s.workload, &s.region, &s.compute.image, ctx.prices) {
                    Some((alt, price, region, image)) => {
                        let with = if image == s.compute.image { String::new() } else { format!(" with `image: {}`", image_label(&image)) };
                        format!("`{alt}` ({} in {region}) is the cheapest unrestricted size that fits{with}; otherwise expect allocation failures or quota denials: run `gpuform preflight` and keep alternateRegions", per_hour(Some(price)))
                    }
                    None => "expect allocation failures or quota denials; run `gpuform preflight` and keep alternateRegions".to_string(),
                }),
        ),
        SizeStatus::Undocumented => out.push(
            Diagnostic::new("size-undocumented", format!("{} has no Microsoft Learn size page{}", size.name, size.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default()))
                .at(SIZE)
                .help("its figures come from the Resource SKUs API; verify GPU memory and driver support before relying on it"),
        ),
        SizeStatus::Ga => {}
    }
    if size.arch == Arch::Arm64 {
        out.push(
            Diagnostic::new("arm64-size", format!("{} has Arm64 (Grace) CPUs; gpuform's images and the driver extensions are x64", size.name))
                .at(SIZE)
                .help("use an x64 ND size such as Standard_ND96isr_H100_v5, or a custom arm64 HPC image via `image: {id: ...}` with hasGpuDrivers: true"),
        );
    }
    let need = wl.gpu_memory_gib;
    match size.gpu_memory_gib {
        Some(have) if have < need => out.push(
            Diagnostic::new(
                "vram-exceeds-size",
                format!("the workload peaks at {} GiB of VRAM but {} has {} GiB", fmt_num(need), size.name, fmt_num(have)),
            )
            .at(SIZE)
            .label(format!("{} GiB of GPU memory", fmt_num(have)))
            .help(suggestion())
            .note("a lower precision (fp16, int8) lowers the peak; measure it again before changing gpuMemoryGiB"),
        ),
        Some(have) if need * 2.0 < have && !ctx.auto_sized => {
            if let Some((name, price, region)) = &cheapest {
                let current = ctx.prices.hourly(&size.name, region, ctx.sizing.map(|s| s.price_os).unwrap_or(crate::catalog::prices::PriceOs::Linux), crate::catalog::prices::PriceKind::OnDemand);
                let cheaper = match (price, current) {
                    (Some(p), Some(c)) => *p < c,
                    _ => true,
                };
                if *name != size.name && cheaper {
                    out.push(
                        Diagnostic::new(
                            "vram-underused",
                            format!(
                                "the workload uses {} of {} GiB GPU memory ({:.0}%) on {}",
                                fmt_num(need),
                                fmt_num(have),
                                need / have * 100.0,
                                size.name
                            ),
                        )
                        .at(SIZE)
                        .label(format!("{} GiB of GPU memory, {}", fmt_num(have), per_hour(current)))
                        .help(format!("`{name}` fits at {} in {region}; or set `vmSize: auto`", per_hour(*price))),
                    );
                }
            }
        }
        _ => {}
    }
    match crate::sizing::gpu_split(size, wl) {
        crate::sizing::GpuSplit::Needed(n) => out.push(
            Diagnostic::new(
                "model-split-across-gpus",
                format!(
                    "no single GPU of {} holds the {} GiB model ({} GiB per GPU): it runs only split across {n} of its {} GPUs",
                    size.name,
                    fmt_num(need),
                    fmt_num(crate::sizing::per_gpu_gib(size)),
                    crate::sizing::gpus(size)
                ),
            )
            .at(SIZE)
            .label(format!("{} GiB per GPU", fmt_num(crate::sizing::per_gpu_gib(size))))
            .help(format!(
                "serve it with tensor parallelism (vLLM `--tensor-parallel-size {n}`, TGI `--num-shard {n}`) and set `workload.gpu.tensorParallelSize: {n}` to say so, or use a size whose single GPU holds {} GiB (`gpuform sizes --min-gpu-memory {}`)",
                fmt_num(need),
                fmt_num(need.ceil())
            ))
            .note("vmSize: auto prefers one GPU that holds the model, and splits it only when no size offers one or the spec sets tensorParallelSize"),
        ),
        crate::sizing::GpuSplit::Unfit(why) => out.push(
            Diagnostic::new(
                "tensor-parallel-size",
                format!("{} cannot run the model as the spec splits it: {why}", size.name),
            )
            .at(SIZE)
            .label("too few or too small GPUs")
            .help(suggestion()),
        ),
        crate::sizing::GpuSplit::None => {}
    }
    if wl.distributed && !size.infiniband {
        out.push(
            Diagnostic::new("distributed-needs-infiniband", format!("distributed training needs InfiniBand, and {} has none", size.name))
                .at(SIZE)
                .label("no InfiniBand")
                .help("use an ND size with InfiniBand (Standard_ND96isr_H100_v5, Standard_ND96amsr_A100_v4), or set `distributed: false` for single-node training"),
        );
    }
    // a training-class size is worth a warning only when an inference-class size would do: when
    // every unrestricted size that fits the model is training-class (a 70B model in fp16 needs
    // 140 GB and more), there is nothing better to suggest (without a selection, warn)
    let inference_class_fits = ctx.sizing.is_none_or(|sel| {
        sel.candidates.iter().any(|c| {
            c.rejected.is_none()
                && c.restricted.is_none()
                && crate::catalog::find(c.size).is_some_and(|g| !(g.is_nd() || g.is_h100_class()))
        })
    });
    if matches!(wl.kind, WorkloadType::Inference | WorkloadType::Batch)
        && (size.is_nd() || size.is_h100_class())
        && inference_class_fits
    {
        out.push(
            Diagnostic::new(
                "training-size-for-inference",
                format!(
                    "{} work on {} ({}), a size built for training",
                    wl.kind.as_str(),
                    size.name,
                    size.series
                ),
            )
            .at(SIZE)
            .label("training-class size")
            .help(format!(
                "{}; quantised models often fit an A10 or T4",
                suggestion()
            )),
        );
    }
    if wl.kind == WorkloadType::Visualization
        && !size.purpose.contains(&WorkloadType::Visualization)
    {
        out.push(
            Diagnostic::new(
                "visualization-needs-nv",
                format!(
                    "visualization needs a graphics size; {} ({}) has no graphics driver",
                    size.name, size.series
                ),
            )
            .at(SIZE)
            .label("compute-only GPU")
            .help(
                "use an NV size such as Standard_NV36ads_A10_v5 (GRID) or Standard_NV24ads_V710_v5",
            ),
        );
    }
    let disks = s.compute.data_disks.len() as u32;
    if let Some(max) = size.max_data_disks
        && disks > max
    {
        out.push(
            Diagnostic::new(
                "data-disk-count",
                format!("{disks} data disks, but {} takes at most {max}", size.name),
            )
            .at("/spec/compute/dataDisks")
            .help("use fewer, larger disks"),
        );
    }
    if !size.premium_storage {
        let mut premium: Vec<String> = Vec::new();
        if s.compute.os_disk.kind.is_premium() {
            premium.push("/spec/compute/osDisk/type".into());
        }
        for (i, d) in s.compute.data_disks.iter().enumerate() {
            if d.kind.is_premium() {
                premium.push(format!("/spec/compute/dataDisks/{i}/type"));
            }
        }
        for p in premium {
            out.push(
                Diagnostic::new(
                    "premium-storage-unsupported",
                    format!("{} does not support premium disks", size.name),
                )
                .at(p)
                .help("use StandardSSD_LRS"),
            );
        }
    }
}

fn image_label(image: &crate::spec::model::Image) -> String {
    match image {
        crate::spec::model::Image::Alias(a) => a.as_str().to_string(),
        _ => "auto".to_string(),
    }
}

//! `compute.alternateSizes` and `compute.zonesByRegion`: the placements `deploy` may fail over to
//! on a capacity error (issue 23 item 2) must serve the workload and stay inside the spec's
//! regions.

use super::Context;
use crate::catalog;
use crate::diag::Diagnostic;
use crate::sizing::{DriverChoice, Fit, fit, fmt_num};
use crate::spec::defaults::zones_for;
use crate::spec::model::GpuVendorName;
use crate::spec::schema::suggest;
use crate::spec::yaml::escape_pointer;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let wl = &s.workload;
    let need = match wl.precision {
        Some(p) => format!(
            "{} GiB of GPU memory at {}",
            fmt_num(wl.gpu_memory_gib),
            p.as_str()
        ),
        None => format!("{} GiB of GPU memory", fmt_num(wl.gpu_memory_gib)),
    };
    // the spec pinned its size: its vendor is the spec's choice for the alternates too (without
    // a vendor of its own, `vmSize: auto` would rank NVIDIA only)
    let mut alternates_workload = wl.clone();
    let pinned = ctx.size();
    if let Some(p) = pinned
        && wl.required_vendor().is_none()
    {
        let vendor = match p.gpu_vendor {
            catalog::GpuVendor::Amd => GpuVendorName::Amd,
            catalog::GpuVendor::Nvidia => GpuVendorName::Nvidia,
        };
        let gpu = alternates_workload.gpu.get_or_insert_with(Default::default);
        if gpu.vendor != Some(GpuVendorName::Any) {
            gpu.vendor = Some(vendor);
        }
    }
    let pinned_splits = pinned.is_some_and(|p| {
        matches!(
            crate::sizing::gpu_split(p, wl),
            crate::sizing::GpuSplit::Needed(_)
        )
    });
    for (i, raw) in s.compute.alternate_sizes.iter().enumerate() {
        let at = format!("/spec/compute/alternateSizes/{i}");
        // echoed as `clip` shows input: control characters escaped, long values cut
        let name = crate::diag::clip(raw);
        let Some(size) = catalog::find(raw) else {
            let hint = suggest(raw, catalog::names())
                .map(|h| format!("did you mean `{h}`? "))
                .unwrap_or_default();
            out.push(
                Diagnostic::new(
                    "alternate-size-unfit",
                    format!("alternate size `{name}` is not a GPU size gpuform knows"),
                )
                .at(at)
                .help(format!(
                    "{hint}`gpuform sizes` lists the sizes gpuform knows"
                )),
            );
            continue;
        };
        if size.name.eq_ignore_ascii_case(&s.compute.vm_size) {
            out.push(
                Diagnostic::new(
                    "alternate-size-unfit",
                    format!("alternate size `{name}` is vmSize itself"),
                )
                .at(at)
                .help("list other sizes: deploy tries vmSize first"),
            );
            continue;
        }
        let why = match fit(size, &alternates_workload, &DriverChoice::of(&s.compute)) {
            Fit::Fits => None,
            // the pinned size splits the model too: so may the sizes deploy fails over to
            Fit::Split(..) if pinned_splits => None,
            Fit::Split(_, why) | Fit::No(why) => Some(why),
        };
        if let Some(why) = why {
            out.push(
                Diagnostic::new(
                    "alternate-size-unfit",
                    format!("alternate size {} does not fit the workload: {why}", size.name),
                )
                .at(at)
                .label("deploy would fail over to it")
                .help(format!(
                    "the workload needs {need}{}; remove it or list a size that fits (`gpuform sizes`)",
                    wl.required_vendor()
                        .map(|(v, from)| format!(" on {} GPUs ({from})", crate::spec::model::vendor_label(v)))
                        .unwrap_or_default()
                )),
            );
        }
    }
    let mut deploys_to: Vec<&str> = vec![s.region.as_str()];
    deploys_to.extend(s.alternate_regions.iter().map(String::as_str));
    for raw in s.compute.zones_by_region.keys() {
        let at = format!("/spec/compute/zonesByRegion/{}", escape_pointer(raw));
        let region = crate::diag::clip(raw);
        if !deploys_to.iter().any(|r| r.eq_ignore_ascii_case(raw)) {
            out.push(
                Diagnostic::new(
                    "zones-by-region-conflict",
                    format!("zonesByRegion names {region}, which is neither spec.region nor in alternateRegions"),
                )
                .at(at.clone())
                .help(format!("add {region} to alternateRegions, or remove its zones")),
            );
        }
        if let Some(allowed) = &s.allowed_regions
            && !allowed.iter().any(|a| a.eq_ignore_ascii_case(raw))
        {
            out.push(
                Diagnostic::new(
                    "region-not-allowed",
                    format!("`{region}` is not in allowedRegions"),
                )
                .at(at)
                .label("outside the data residency list")
                .help(format!("use one of {}", allowed.join(", "))),
            );
        }
    }
    if let Some(zones) = zones_for(&s.compute.zones_by_region, &s.region)
        && let Some(first) = zones.first()
        && s.compute.zones != [first.clone()]
    {
        out.push(
            Diagnostic::new(
                "zones-by-region-conflict",
                format!(
                    "compute.zones [{}] disagrees with zonesByRegion.{} (the pool starts pinned to zone {first})",
                    s.compute.zones.join(", "),
                    s.region
                ),
            )
            .at("/spec/compute/zones")
            .help(format!("remove compute.zones (zonesByRegion.{} decides the zone there)", s.region)),
        );
    }
}

//! Sovereign clouds: the spec's cloud against its regions, and what the public sources say a
//! sovereign cloud offers (sizes per region, the GPU driver extension); see
//! [`crate::catalog::clouds`] for the data and its sources.

use super::context::Context;
use crate::azure::Cloud;
use crate::catalog::GpuSize;
use crate::catalog::clouds::{self, DriverExtensions, Offer};
use crate::diag::{Diagnostic, Severity};
use crate::spec::resolve;

const SIZE: &str = "/spec/compute/vmSize";

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let cloud = s.effective_cloud();
    let mut regions: Vec<(String, &str)> = vec![("/spec/region".into(), s.region.as_str())];
    for (i, r) in s.alternate_regions.iter().enumerate() {
        regions.push((format!("/spec/alternateRegions/{i}"), r.as_str()));
    }
    for (ptr, r) in &regions {
        let of = Cloud::for_region(r);
        if of == cloud {
            continue;
        }
        let (why, fix) = match s.cloud {
            Some(c) => (
                format!("spec.cloud is {c}"),
                format!(
                    "use a region of {c} ({}) or set `cloud: {of}`",
                    clouds::regions_of(c).join(", ")
                ),
            ),
            None => (
                format!("spec.region `{}` is in {cloud}", s.region),
                format!(
                    "alternate regions must be in the pool's cloud: use one of {}",
                    clouds::regions_of(cloud).join(", ")
                ),
            ),
        };
        out.push(
            Diagnostic::new(
                "cloud-region-mismatch",
                format!("`{r}` is a region of {of}, but {why}"),
            )
            .at(ptr.clone())
            .label(format!("a region of {of}"))
            .help(fix),
        );
    }
    if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
    }
}

/// The size-dependent half, run for the spec's size and for every `vmSize: auto` candidate
/// (see [`super::size_checks`]): a candidate the cloud's source does not list is rejected, so
/// `auto` picks only listed sizes.
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let cloud = s.effective_cloud();
    if Cloud::for_region(&s.region) != cloud {
        return; // cloud-region-mismatch says it
    }
    // ranking candidates for `vmSize: auto` (the final check of an auto-sized spec has its
    // selection in ctx.sizing)
    let ranking = ctx.auto_sized && ctx.sizing.is_none();
    let region = s.region.as_str();
    match clouds::offer(cloud, region, &size.name) {
        Offer::PublicCloud | Offer::Listed => {}
        Offer::NotListed {
            source,
            as_of,
            elsewhere,
        } => {
            let listed = if elsewhere.is_empty() {
                format!("in no {cloud} region")
            } else {
                format!("in {}", elsewhere.join(", "))
            };
            let mut d = Diagnostic::new(
                "size-not-offered-in-cloud",
                format!(
                    "{} is not listed in {region} by gpuform's {cloud} size list (it lists it {listed})",
                    size.name
                ),
            )
            .at(SIZE)
            .label(format!("not listed in {region}"))
            .help(format!(
                "choose a size listed in {region} (`vmSize: auto` does) or {}",
                clouds::how_to_check_sizes(cloud, region)
            ))
            .note(format!("source ({as_of}): {source}"));
            if ranking {
                d = d.severity(Severity::Error);
            }
            out.push(d);
        }
        Offer::Unpublished { why } => {
            let mut d = Diagnostic::new(
                "size-availability-unpublished",
                format!(
                    "no public source says whether {cloud} offers {} in {region}",
                    size.name
                ),
            )
            .at(SIZE)
            .help(format!(
                "preflight's live SKU read decides; {}",
                clouds::how_to_check_sizes(cloud, region)
            ))
            .note(why.to_string());
            if ranking {
                d = d
                    .severity(Severity::Error)
                    .help("`vmSize: auto` chooses only sizes a public source lists in the cloud's region: name a vmSize");
            }
            out.push(d);
        }
    }
    if ranking {
        return;
    }
    if let DriverExtensions::Unverified { why } = clouds::driver_extensions(cloud)
        && let Ok(plan) = resolve::driver(s, size)
        && let Some(ext) = plan.extension
    {
        let ext = ext.kind;
        out.push(
            Diagnostic::new(
                "driver-extension-unverified",
                format!("the pool installs the GPU driver with the {ext} extension, which is not documented for {cloud}"),
            )
            .at(SIZE)
            .label(format!("{ext} in {cloud}"))
            .help(format!(
                "{}; or use an image that carries the driver (`gpuDriver: none` with such an image)",
                clouds::how_to_check_extension(cloud, region, ext)
            ))
            .note(why.to_string()),
        );
    }
}

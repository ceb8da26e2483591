//! The outcome of `vmSize: auto`: every size ranked for a workload, the one chosen, and why each
//! other size was rejected. Defined here, beside [`super::Checked`] that carries it; the ranking
//! itself lives in `crate::sizing` (which re-exports these types), so `sizing` imports `spec`
//! and never the other way.

use std::borrow::Cow;

use serde::Serialize;

use super::model::VendorRule;
use crate::catalog::prices::PriceOs;
use crate::catalog::{self, GpuSize};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub size: &'static str,
    pub gpu_memory_gib: Option<f64>,
    pub gpu_count: Option<f64>,
    pub vcpus: u32,
    /// Hourly on-demand price used for ranking.
    pub hourly: Option<f64>,
    /// `None` when the size fits; otherwise why not (borrowed when the reason is the same for
    /// every spec, e.g. a retired size: `vmSize: auto` ranks every size of the catalog for every
    /// spec, and formatting those reasons anew each time was a tenth of `validate`'s time).
    pub rejected: Option<Cow<'static, str>>,
    /// A fitting size on which a rule of the spec warns (`rule: message`): ranked after every
    /// size without one, chosen only when no size avoids a warning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// A fitting size the catalog marks as restricted (`status: limited`, e.g. "no net-new
    /// capacity"): ranked after every unrestricted fitting size, so `vmSize: auto` (and the fixes
    /// validate suggests) pick it only when nothing else fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restricted: Option<String>,
    /// An inference model no single GPU of the size holds, but its GPUs together do: the
    /// tensor-parallel size the split needs. Such a size is rejected (`rejected` says why) and
    /// ranked only when no size fits on one GPU (`crate::check::rank_sizes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<u32>,
    /// A size a rule rejects only for the driver's CUDA ceiling, which a pinned
    /// `compute.driverVersion` lifts: the version to write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unlock: Option<String>,
    /// Where the size sits in the catalog ([`catalog::sizes`]), for the ranking's order of names
    /// (`crate::sizing::rank`). Kept rather than found again from `size`: the ranking reads it
    /// for every candidate of every spec, and checks it against `size` before it trusts it.
    #[serde(skip)]
    pub(crate) catalog_index: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub chosen: Option<&'static str>,
    /// Region whose prices ranked the sizes.
    pub price_region: String,
    /// The OS whose prices ranked the sizes (Linux prices rank Windows pools when the table has
    /// no Windows prices; this is said in `note`).
    pub price_os: PriceOs,
    pub price_as_of: Option<String>,
    pub note: Option<String>,
    /// Which GPU vendors the ranking allowed, and why (`show` and `validate` say it).
    pub vendor: String,
    #[serde(skip)]
    pub vendor_rule: VendorRule,
    /// Fitting sizes cheapest first, then the rejected ones.
    pub candidates: Vec<Candidate>,
}

impl Selection {
    pub fn chosen_size(&self) -> Option<&'static GpuSize> {
        self.chosen.and_then(catalog::find)
    }

    pub fn chosen_price(&self) -> Option<f64> {
        self.candidates
            .iter()
            .find(|c| Some(c.size) == self.chosen)
            .and_then(|c| c.hourly)
    }
}

//! The price book: the embedded VM and fixed prices with the `--prices` / `--refresh-prices`
//! overlays, where each price came from, and the pool's own cost the levers compare with.

use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};

use super::fixed::{FixedPrices, FixedSource};
use super::model::{SourceUse, age_days};
use super::retail;
use super::usage::{Cases, Usage};

/// A price table layered over the embedded one (`--prices`, `--refresh-prices`).
#[derive(Debug, Clone)]
pub struct Overlay {
    pub id: String,
    pub name: String,
    pub as_of: String,
    pub table: PriceTable,
}

/// Every price the estimate may use, with where each came from.
#[derive(Debug, Clone)]
pub struct PriceBook {
    /// Embedded VM prices with every overlay applied: what `vmSize: auto` ranks with.
    pub merged: PriceTable,
    overlays: Vec<Overlay>,
    pub fixed: FixedPrices,
}

/// An hourly VM price and its source id.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    pub hourly: f64,
    pub source: String,
}

impl Default for PriceBook {
    fn default() -> Self {
        Self::embedded()
    }
}

impl PriceBook {
    pub fn embedded() -> Self {
        Self {
            merged: PriceTable::embedded().clone(),
            overlays: Vec::new(),
            fixed: FixedPrices::embedded().clone(),
        }
    }

    /// Layer VM prices over the table (later layers win).
    pub fn add_overlay(&mut self, o: Overlay) {
        self.merged.overlay(o.table.clone());
        self.overlays.push(o);
    }

    /// Use a Retail Prices document's disk prices for `region`.
    pub fn add_disks(
        &mut self,
        parsed: &retail::Parsed,
        region: &str,
        source: FixedSource,
    ) -> usize {
        let region = region.to_ascii_lowercase();
        let mut n = 0;
        for ((r, _, tier), (kind, monthly)) in &parsed.disks {
            if *r == region {
                self.fixed.insert_disk(*kind, tier, *monthly, &source.id);
                n += 1;
            }
        }
        if let Some(p) = parsed.premium_v2.get(&region) {
            self.fixed.set_premium_v2(*p, &source.id);
            n += 1;
        }
        if n > 0 {
            self.fixed.add_source(source);
        }
        n
    }

    pub fn overlays(&self) -> &[Overlay] {
        &self.overlays
    }

    pub fn vm(&self, size: &str, region: &str, os: PriceOs, kind: PriceKind) -> Option<Priced> {
        for o in self.overlays.iter().rev() {
            if let Some(p) = o.table.hourly(size, region, os, kind) {
                return Some(Priced {
                    hourly: p,
                    source: o.id.clone(),
                });
            }
        }
        let e = PriceTable::embedded();
        e.hourly(size, region, os, kind).map(|p| Priced {
            hourly: p,
            source: embedded_id(os, kind),
        })
    }

    /// Describe a source id.
    pub(super) fn describe(&self, id: &str, today: &str) -> SourceUse {
        let mk = |name: String, as_of: String, confidence: Option<String>, note: Option<String>| {
            SourceUse {
                id: id.to_string(),
                age_days: age_days(&as_of, today),
                name,
                as_of,
                confidence,
                note,
                used_for: Vec::new(),
            }
        };
        if let Some(o) = self.overlays.iter().find(|o| o.id == id) {
            return mk(o.name.clone(), o.as_of.clone(), None, None);
        }
        if let Some(f) = self.fixed.source(id) {
            return mk(
                f.name.clone(),
                f.as_of.clone(),
                Some(f.confidence.clone()),
                Some(f.note.clone()),
            );
        }
        for s in &PriceTable::embedded().sources {
            if embedded_id(s.os, s.kind) == id {
                return mk(s.name.clone(), s.as_of.clone(), None, s.note.clone());
            }
        }
        mk(id.to_string(), String::new(), None, None)
    }
}

fn embedded_id(os: PriceOs, kind: PriceKind) -> String {
    format!(
        "embedded-{}-{}",
        retail::os_label(os).to_lowercase(),
        kind_id(kind)
    )
}

fn kind_id(k: PriceKind) -> &'static str {
    match k {
        PriceKind::OnDemand => "payg",
        PriceKind::Spot => "spot",
        PriceKind::Reserved1Y => "reserved-1y",
        PriceKind::Reserved3Y => "reserved-3y",
    }
}

/// The pool's own cost (VMs and their disks) for a usage, per case; `None` when a price is
/// missing. Used by the levers to price alternatives the same way as the bill.
pub(crate) fn pool_cost(
    u: &Usage,
    od: Option<f64>,
    spot: Option<f64>,
    disk_per_instance_hour: Option<f64>,
) -> Option<Cases<f64>> {
    let od = od?;
    let disk = disk_per_instance_hour?;
    let spot_needed = u.spot_hours.high > 0.0 || u.spot_hours.expected > 0.0;
    let spot = if spot_needed { spot? } else { 0.0 };
    Some(u.regular_hours.scale(od) + u.spot_hours.scale(spot) + u.instance_hours.scale(disk))
}

//! The price book: the embedded VM and fixed prices with the `--prices` / `--refresh-prices`
//! overlays, where each price came from, the one currency all of them are in, and the pool's own
//! cost the levers compare with.
//!
//! The embedded tables are in USD. A book in another currency holds overlays in that currency
//! (`--prices` files, `--refresh-prices` answers) and uses an embedded figure only through a
//! [`Rate`] with a source and a date (the Retail Prices API's own answer, [`super::retail::rate`]);
//! without one the embedded figures are missing in that currency, never converted at a guess.

use crate::catalog::currency::{Currency, Mixed, Rate};
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

/// Every price the estimate may use, with where it came from, in one currency.
#[derive(Debug, Clone)]
pub struct PriceBook {
    /// The currency of every price the book gives.
    pub currency: Currency,
    /// VM prices in [`PriceBook::currency`] with every overlay applied (the embedded table
    /// converted when a rate is known, left out when the book is not in USD and none is): what
    /// the levers rank `vmSize: auto` alternatives with.
    pub merged: PriceTable,
    overlays: Vec<Overlay>,
    /// The fixed prices in [`PriceBook::currency`] (the embedded ones converted with the rate),
    /// with the disk prices of `--prices` / `--refresh-prices`.
    pub fixed: FixedPrices,
    /// USD → [`PriceBook::currency`], when the book is not in USD and a source gave one.
    pub rate: Option<Rate>,
}

/// An hourly VM price and its source id.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    pub hourly: f64,
    pub source: String,
    /// The rate it was converted from USD with (an embedded price in a non-USD book).
    pub converted: Option<Rate>,
}

impl Default for PriceBook {
    fn default() -> Self {
        Self::embedded()
    }
}

impl PriceBook {
    /// The embedded tables, in USD.
    pub fn embedded() -> Self {
        Self {
            currency: Currency::USD,
            merged: PriceTable::embedded().clone(),
            overlays: Vec::new(),
            fixed: FixedPrices::embedded().clone(),
            rate: None,
        }
    }

    /// A book in `currency`: in USD the embedded tables; in another currency nothing yet (the
    /// overlays and a rate supply its prices).
    pub fn in_currency(currency: Currency) -> Self {
        if currency.is_usd() {
            return Self::embedded();
        }
        Self {
            currency,
            merged: PriceTable::new(currency),
            overlays: Vec::new(),
            // USD figures: [`PriceBook::set_rate`] converts them; without a rate the estimate
            // withholds every line they would price
            fixed: FixedPrices::embedded().clone(),
            rate: None,
        }
    }

    /// Whether the embedded (USD) figures can be used: in USD, or through a rate.
    pub fn embedded_usable(&self) -> bool {
        self.currency.is_usd() || self.rate.is_some()
    }

    /// Use the embedded USD figures through `rate` (USD → the book's currency). The fixed
    /// prices are converted; disk prices an overlay supplied (already in the book's currency)
    /// are kept.
    pub fn set_rate(&mut self, rate: Rate) -> Result<(), Mixed> {
        if rate.to != self.currency {
            return Err(Mixed {
                left: self.currency,
                right: rate.to,
            });
        }
        if self.currency.is_usd() {
            return Ok(());
        }
        self.fixed = self.fixed.converted_embedded(rate.per_usd, self.currency);
        self.rate = Some(rate);
        self.rebuild();
        Ok(())
    }

    fn rebuild(&mut self) {
        let mut m = match &self.rate {
            _ if self.currency.is_usd() => PriceTable::embedded().clone(),
            Some(r) => PriceTable::embedded().converted(r.per_usd, self.currency),
            None => PriceTable::new(self.currency),
        };
        for o in &self.overlays {
            m.overlay(o.table.clone());
        }
        self.merged = m;
    }

    /// Layer VM prices over the table (later layers win). The overlay is in the book's
    /// currency, or refused.
    pub fn add_overlay(&mut self, o: Overlay) -> Result<(), Mixed> {
        if o.table.currency != self.currency {
            return Err(Mixed {
                left: self.currency,
                right: o.table.currency,
            });
        }
        self.merged.overlay(o.table.clone());
        self.overlays.push(o);
        Ok(())
    }

    /// Use a Retail Prices document's disk prices for `region` (in the book's currency, or
    /// refused).
    pub fn add_disks(
        &mut self,
        parsed: &retail::Parsed,
        region: &str,
        source: FixedSource,
    ) -> Result<usize, Mixed> {
        if parsed.currency != self.currency {
            return Err(Mixed {
                left: self.currency,
                right: parsed.currency,
            });
        }
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
        Ok(n)
    }

    pub fn overlays(&self) -> &[Overlay] {
        &self.overlays
    }

    /// Whether `id` names an embedded USD source (VM or fixed).
    pub fn is_embedded(&self, id: &str) -> bool {
        id.starts_with("embedded-") || FixedPrices::embedded().source(id).is_some()
    }

    pub fn vm(&self, size: &str, region: &str, os: PriceOs, kind: PriceKind) -> Option<Priced> {
        for o in self.overlays.iter().rev() {
            if let Some(p) = o.table.hourly(size, region, os, kind) {
                return Some(Priced {
                    hourly: p,
                    source: o.id.clone(),
                    converted: None,
                });
            }
        }
        let e = PriceTable::embedded();
        let usd = e.hourly(size, region, os, kind)?;
        if self.currency.is_usd() {
            return Some(Priced {
                hourly: usd,
                source: embedded_id(os, kind),
                converted: None,
            });
        }
        let r = self.rate.as_ref()?;
        Some(Priced {
            hourly: usd * r.per_usd,
            source: embedded_id(os, kind),
            converted: Some(r.clone()),
        })
    }

    /// The embedded USD price a non-USD book without a rate cannot use (for the message that
    /// says what to run).
    pub fn embedded_usd(
        &self,
        size: &str,
        region: &str,
        os: PriceOs,
        kind: PriceKind,
    ) -> Option<f64> {
        PriceTable::embedded().hourly(size, region, os, kind)
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
        // an embedded USD figure in another currency says at which rate
        let conv = |note: Option<String>| -> Option<String> {
            match (&self.rate, self.is_embedded(id) && !self.currency.is_usd()) {
                (Some(r), true) => Some(match note {
                    Some(n) => format!("{}; {}", n.trim_end_matches('.'), r.describe()),
                    None => r.describe(),
                }),
                _ => note,
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
                conv(Some(f.note.clone())),
            );
        }
        for s in &PriceTable::embedded().sources {
            if embedded_id(s.os, s.kind) == id {
                return mk(s.name.clone(), s.as_of.clone(), None, conv(s.note.clone()));
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

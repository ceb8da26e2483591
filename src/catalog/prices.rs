//! Hourly VM prices: the embedded, dated table (`prices.json`) and the lookup every consumer
//! (`vmSize: auto`, `gpuform sizes`, `gpuform cost`) shares.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use super::currency::Currency;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriceOs {
    Linux,
    Windows,
}

/// How an hour is bought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PriceKind {
    OnDemand,
    Spot,
    /// One-year reservation, as an effective hourly rate (term price / 8760).
    Reserved1Y,
    /// Three-year reservation, as an effective hourly rate (term price / 26280).
    Reserved3Y,
}

impl PriceKind {
    pub fn label(self) -> &'static str {
        match self {
            PriceKind::OnDemand => "pay-as-you-go",
            PriceKind::Spot => "spot",
            PriceKind::Reserved1Y => "1-year reservation",
            PriceKind::Reserved3Y => "3-year reservation",
        }
    }
}

/// Prices of one `(os, kind)`: size → region → hourly, both names lower case. Nested so that a
/// lookup borrows the names (`HashMap<String, _>::get(&str)`) instead of building an owned key:
/// `vmSize: auto` looks up every size of the catalog for every spec it checks (two lookups of
/// 72 sizes per spec), so the maps hash with FxHash: the keys are the table's own names, not
/// input an attacker chooses to collide, and SipHash was most of the lookup's time.
type Sizes = FxHashMap<String, FxHashMap<String, f64>>;

/// `s` in ASCII lower case, handed to `f` without allocating when it is short (every size and
/// region name is).
fn with_lower<R>(s: &str, f: impl FnOnce(&str) -> R) -> R {
    const MAX: usize = 64;
    if s.len() > MAX {
        return f(&s.to_ascii_lowercase());
    }
    let mut buf = [0u8; MAX];
    let buf = &mut buf[..s.len()];
    buf.copy_from_slice(s.as_bytes());
    buf.make_ascii_lowercase();
    // ASCII lower-casing keeps UTF-8 valid
    f(std::str::from_utf8(buf).expect("lower-cased UTF-8 is UTF-8"))
}

/// Where a set of prices came from and how old it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceSource {
    pub name: String,
    /// `YYYY-MM-DD` the figures were taken.
    pub as_of: String,
    pub os: PriceOs,
    pub kind: PriceKind,
    pub note: Option<String>,
}

/// [`PriceTable::in_region`]: one region's prices of one `(os, kind)`.
pub struct RegionPrices<'a> {
    sizes: Option<&'a Sizes>,
    /// Lower case, as the table's keys.
    region: String,
    /// The price of each size of the catalog, in the catalog's order ([`Self::hourly_at`]).
    by_catalog: CatalogPrices,
}

impl RegionPrices<'_> {
    /// Hourly price of `size` (any case), when the table has it: [`PriceTable::hourly`].
    pub fn hourly(&self, size: &str) -> Option<f64> {
        let regions = with_lower(size, |size| self.sizes?.get(size))?;
        regions.get(self.region.as_str()).copied()
    }

    /// [`Self::hourly`] of the `i`-th size of the catalog ([`super::sizes`]), named `size`: an
    /// index into the region's prices, looked up once per region and process, instead of two
    /// hash lookups of the lower-cased names (`vmSize: auto` prices all 72 sizes of the catalog
    /// for every spec: ~4 % of `validate`'s time, issue 41).
    pub fn hourly_at(&self, i: usize, size: &str) -> Option<f64> {
        match self.by_catalog.get(i) {
            Some(p) if super::sizes().get(i).is_some_and(|s| s.name == size) => *p,
            _ => self.hourly(size),
        }
    }
}

/// Each (os, kind, region)'s prices of the catalog's sizes in the catalog's order, filled as
/// [`PriceTable::in_region`] is asked for them; emptied when the table changes.
/// A region's prices of the catalog's sizes, in the catalog's order.
type CatalogPrices = std::sync::Arc<[Option<f64>]>;

#[derive(Default)]
struct ByCatalog(std::sync::Mutex<FxHashMap<(PriceOs, PriceKind, String), CatalogPrices>>);

impl Clone for ByCatalog {
    /// A clone fills its own.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ByCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ByCatalog")
    }
}

#[derive(Debug, Clone)]
pub struct PriceTable {
    /// Every price of the table is in this currency.
    pub currency: Currency,
    prices: FxHashMap<(PriceOs, PriceKind), Sizes>,
    /// One entry per (os, kind) the table covers.
    pub sources: Vec<PriceSource>,
    by_catalog: ByCatalog,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EmbeddedFile {
    #[serde(rename = "_meta")]
    meta: EmbeddedMeta,
    on_demand_linux: HashMap<String, HashMap<String, f64>>,
    spot_linux: HashMap<String, HashMap<String, f64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EmbeddedMeta {
    currency: Currency,
    on_demand: EmbeddedSource,
    spot: EmbeddedSource,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EmbeddedSource {
    as_of: String,
    source: String,
    #[serde(default)]
    confidence: Option<String>,
}

impl PriceTable {
    pub fn new(currency: Currency) -> Self {
        Self {
            currency,
            prices: FxHashMap::default(),
            sources: Vec::new(),
            by_catalog: ByCatalog::default(),
        }
    }

    /// The same prices in another currency: each multiplied by `per_unit` (units of `to` per
    /// unit of this table's currency). The sources keep their names; the caller says how the
    /// figures were converted.
    pub fn converted(&self, per_unit: f64, to: Currency) -> PriceTable {
        PriceTable {
            currency: to,
            prices: self
                .prices
                .iter()
                .map(|(k, sizes)| {
                    let sizes = sizes
                        .iter()
                        .map(|(size, regions)| {
                            let regions = regions
                                .iter()
                                .map(|(r, v)| (r.clone(), v * per_unit))
                                .collect();
                            (size.clone(), regions)
                        })
                        .collect();
                    (*k, sizes)
                })
                .collect(),
            sources: self.sources.clone(),
            by_catalog: ByCatalog::default(),
        }
    }

    /// The table compiled into the binary.
    pub fn embedded() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            let f: EmbeddedFile = serde_json::from_str(include_str!("prices.json"))
                .expect("embedded prices.json is valid (tested)");
            let mut t = PriceTable::new(f.meta.currency);
            for (size, regions) in &f.on_demand_linux {
                for (region, p) in regions {
                    t.insert(size, region, PriceOs::Linux, PriceKind::OnDemand, *p);
                }
            }
            for (size, regions) in &f.spot_linux {
                for (region, p) in regions {
                    t.insert(size, region, PriceOs::Linux, PriceKind::Spot, *p);
                }
            }
            t.sources.push(PriceSource {
                name: format!("embedded table ({})", f.meta.on_demand.source),
                as_of: f.meta.on_demand.as_of,
                os: PriceOs::Linux,
                kind: PriceKind::OnDemand,
                note: None,
            });
            t.sources.push(PriceSource {
                name: format!("embedded table ({})", f.meta.spot.source),
                as_of: f.meta.spot.as_of,
                os: PriceOs::Linux,
                kind: PriceKind::Spot,
                note: Some(format!(
                    "US regions only, confidence {}; spot prices move daily",
                    f.meta.spot.confidence.unwrap_or_else(|| "unknown".into())
                )),
            });
            t
        })
    }

    pub fn insert(&mut self, size: &str, region: &str, os: PriceOs, kind: PriceKind, hourly: f64) {
        if let Ok(cache) = self.by_catalog.0.get_mut() {
            cache.clear();
        }
        self.prices
            .entry((os, kind))
            .or_default()
            .entry(size.to_ascii_lowercase())
            .or_default()
            .insert(region.to_ascii_lowercase(), hourly);
    }

    /// Hourly price, when the table has it (size and region in any case; no allocation).
    pub fn hourly(&self, size: &str, region: &str, os: PriceOs, kind: PriceKind) -> Option<f64> {
        let regions = with_lower(size, |size| self.prices.get(&(os, kind))?.get(size))?;
        with_lower(region, |region| regions.get(region).copied())
    }

    /// The prices of `(os, kind)` in `region`, for looking up many sizes: the `(os, kind)`
    /// table and the region's lower-case name are found once, not once per size (`vmSize: auto`
    /// prices every size of the catalog for every spec it checks). Same answers as
    /// [`Self::hourly`].
    pub fn in_region(&self, region: &str, os: PriceOs, kind: PriceKind) -> RegionPrices<'_> {
        let mut prices = RegionPrices {
            sizes: self.prices.get(&(os, kind)),
            region: region.to_ascii_lowercase(),
            by_catalog: std::sync::Arc::from(Vec::new()),
        };
        let key = (os, kind, prices.region.clone());
        let cached = self
            .by_catalog
            .0
            .lock()
            .ok()
            .and_then(|c| c.get(&key).cloned());
        prices.by_catalog = match cached {
            Some(v) => v,
            None => {
                let v: CatalogPrices = super::sizes()
                    .iter()
                    .map(|s| prices.hourly(&s.name))
                    .collect();
                if let Ok(mut c) = self.by_catalog.0.lock() {
                    c.insert(key, v.clone());
                }
                v
            }
        };
        prices
    }

    /// The source entry that covers `(os, kind)`.
    pub fn source_for(&self, os: PriceOs, kind: PriceKind) -> Option<&PriceSource> {
        self.sources.iter().find(|s| s.os == os && s.kind == kind)
    }

    pub fn len(&self) -> usize {
        self.prices
            .values()
            .flat_map(|sizes| sizes.values())
            .map(|regions| regions.len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Layer `other` over `self`: its prices win, its sources are added. Both tables are in one
    /// currency (the price book checks it before: [`crate::catalog::currency::Mixed`]).
    pub fn overlay(&mut self, other: PriceTable) {
        debug_assert_eq!(
            self.currency, other.currency,
            "price tables in two currencies"
        );
        for (k, sizes) in other.prices {
            let mine = self.prices.entry(k).or_default();
            for (size, regions) in sizes {
                mine.entry(size).or_default().extend(regions);
            }
        }
        for s in other.sources {
            self.sources.retain(|x| !(x.os == s.os && x.kind == s.kind));
            self.sources.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A region's prices by catalog position answer as the table does by name: every size of
    /// the catalog in regions with and without prices, for every OS and kind; also after the
    /// table changes (a price added, one changed), in a clone and in a converted table, and for
    /// a position that does not hold the size named (answered by name).
    #[test]
    fn prices_by_catalog_position_answer_as_the_table() {
        let mut t = PriceTable::embedded().clone();
        let catalog = super::super::sizes();
        let check = |t: &PriceTable| {
            let mut found = 0;
            for region in ["eastus", "EastUS2", "westeurope", "nowhere", ""] {
                for os in [PriceOs::Linux, PriceOs::Windows] {
                    for kind in [PriceKind::OnDemand, PriceKind::Spot] {
                        // twice: filled, then from the cache
                        for _ in 0..2 {
                            let r = t.in_region(region, os, kind);
                            for (i, s) in catalog.iter().enumerate() {
                                let want = t.hourly(&s.name, region, os, kind);
                                assert_eq!(r.hourly_at(i, &s.name), want, "{} {region}", s.name);
                                found += usize::from(want.is_some());
                            }
                            let other = &catalog[1].name;
                            assert_eq!(r.hourly_at(0, other), t.hourly(other, region, os, kind));
                        }
                    }
                }
            }
            found
        };
        assert!(check(&t) > 100);
        let first = &catalog[0].name;
        t.insert(
            first,
            "WestEurope",
            PriceOs::Windows,
            PriceKind::OnDemand,
            9.25,
        );
        t.insert(first, "eastus", PriceOs::Linux, PriceKind::OnDemand, 7.5);
        check(&t);
        let r = t.in_region("westeurope", PriceOs::Windows, PriceKind::OnDemand);
        assert_eq!(r.hourly_at(0, first), Some(9.25));
        check(&t.clone());
        let converted = t.converted(2.0, t.currency);
        check(&converted);
        let r = converted.in_region("EASTUS", PriceOs::Linux, PriceKind::OnDemand);
        assert_eq!(r.hourly_at(0, first), Some(15.0));
    }

    /// One region's prices answer as the table does: every size of the catalog and of the
    /// table, in any case, in regions with and without prices, for every OS and kind.
    #[test]
    fn region_prices_answer_as_the_table() {
        let mut t = PriceTable::embedded().clone();
        t.insert(
            "Standard_X_Only_Windows",
            "WestEurope",
            PriceOs::Windows,
            PriceKind::OnDemand,
            1.5,
        );
        let mut sizes: Vec<String> = super::super::sizes()
            .iter()
            .map(|s| s.name.clone())
            .collect();
        sizes.extend(sizes.clone().iter().map(|s| s.to_ascii_uppercase()));
        sizes.push("Standard_X_Only_Windows".into());
        sizes.push("no-such-size".into());
        let mut found = 0;
        for region in [
            "eastus",
            "EastUS2",
            "westeurope",
            "swedencentral",
            "nowhere",
            "",
        ] {
            for os in [PriceOs::Linux, PriceOs::Windows] {
                for kind in [PriceKind::OnDemand, PriceKind::Spot, PriceKind::Reserved1Y] {
                    let r = t.in_region(region, os, kind);
                    for size in &sizes {
                        let want = t.hourly(size, region, os, kind);
                        assert_eq!(r.hourly(size), want, "{size} {region} {os:?} {kind:?}");
                        found += usize::from(want.is_some());
                    }
                }
            }
        }
        assert!(found > 100, "{found}");
    }

    #[test]
    fn embedded_table_has_dated_linux_prices() {
        let t = PriceTable::embedded();
        assert_eq!(t.currency, Currency::USD);
        assert_eq!(
            t.hourly(
                "Standard_NC8as_T4_v3",
                "eastus2",
                PriceOs::Linux,
                PriceKind::OnDemand
            ),
            Some(0.752)
        );
        assert_eq!(
            t.hourly(
                "standard_nc8as_t4_v3",
                "EastUS2",
                PriceOs::Linux,
                PriceKind::OnDemand
            ),
            Some(0.752)
        );
        assert_eq!(
            t.hourly(
                "Standard_NC8as_T4_v3",
                "eastus2",
                PriceOs::Windows,
                PriceKind::OnDemand
            ),
            None
        );
        assert_eq!(
            t.source_for(PriceOs::Linux, PriceKind::OnDemand)
                .unwrap()
                .as_of,
            "2026-06-18"
        );
    }

    #[test]
    fn lookups_ignore_case_at_any_length_and_overlays_win() {
        let long = format!("Standard_{}", "X".repeat(80));
        let mut t = PriceTable::new(Currency::USD);
        t.insert(&long, "WestEurope", PriceOs::Linux, PriceKind::Spot, 1.5);
        t.insert(
            "Standard_A",
            "westeurope",
            PriceOs::Linux,
            PriceKind::Spot,
            2.0,
        );
        let key = (PriceOs::Linux, PriceKind::Spot);
        assert_eq!(
            t.hourly(&long.to_lowercase(), "westEUROPE", key.0, key.1),
            Some(1.5)
        );
        assert_eq!(
            t.hourly("standard_a", "WESTEUROPE", key.0, key.1),
            Some(2.0)
        );
        assert_eq!(
            t.hourly("standard_a", "westeurope", key.0, PriceKind::OnDemand),
            None
        );
        assert_eq!(t.len(), 2);
        let mut over = PriceTable::new(Currency::USD);
        over.insert(
            "STANDARD_A",
            "westeurope",
            PriceOs::Linux,
            PriceKind::Spot,
            3.0,
        );
        over.insert(
            "Standard_B",
            "westeurope",
            PriceOs::Linux,
            PriceKind::Spot,
            4.0,
        );
        t.overlay(over);
        assert_eq!(
            t.hourly("Standard_A", "westeurope", key.0, key.1),
            Some(3.0)
        );
        assert_eq!(t.hourly(&long, "westeurope", key.0, key.1), Some(1.5));
        assert_eq!(t.len(), 3);
        let eur = t.converted(0.5, Currency::parse("EUR").unwrap());
        assert_eq!(
            eur.hourly("standard_b", "westeurope", key.0, key.1),
            Some(2.0)
        );
        assert_eq!(eur.len(), 3);
    }
}

//! Azure Retail Prices API documents: one page (`{"Items": [...], "NextPageLink": ...}`), a JSON
//! array of pages, or gpuform's own cache file (`{"fetchedAt": ..., "pages": [...]}`), turned into
//! a [`PriceTable`] of VM prices plus managed disk prices.
//!
//! Currency: a page is in its `BillingCurrency` (the API sets it to the `currencyCode` asked
//! for), else its items' `currencyCode`, else USD (the API's default); an item in another
//! currency than its page is refused with its place. [`split`] keeps the pages in the currency
//! asked for and the USD pages beside them, which only [`rate`] reads: the API's own answer to
//! "what is this meter in EUR and in USD", the one USD → EUR rate gpuform uses.
//!
//! Classification (facts.md §7): Linux and Windows share `meterName`; Windows is only told apart
//! by `productName` ending in " Windows"; Spot by `skuName`/`meterName` ending in " Spot";
//! " Low Priority" meters are legacy Batch and ignored; `type` is `Consumption` (pay-as-you-go
//! and spot), `Reservation` (`reservationTerm` "1 Year"/"3 Years", `retailPrice` for the whole
//! term) or `DevTestConsumption` (ignored).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::catalog::currency::Currency;
use crate::catalog::prices::{PriceKind, PriceOs, PriceSource, PriceTable};
use crate::spec::model::DiskType;

use super::fixed::classify_disk_meter;
use super::usage::HOURS_PER_MONTH;

pub const HOURS_1Y: f64 = 8760.0;
pub const HOURS_3Y: f64 = 26280.0;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    #[serde(default)]
    pub currency_code: Option<String>,
    pub retail_price: f64,
    #[serde(default)]
    pub arm_region_name: String,
    #[serde(default)]
    pub arm_sku_name: String,
    #[serde(default)]
    pub meter_name: String,
    #[serde(default)]
    pub product_name: String,
    #[serde(default)]
    pub sku_name: String,
    #[serde(default)]
    pub service_name: Option<String>,
    #[serde(default, rename = "type")]
    pub price_type: String,
    #[serde(default)]
    pub unit_of_measure: String,
    #[serde(default)]
    pub reservation_term: Option<String>,
    #[serde(default)]
    pub is_primary_meter_region: Option<bool>,
    #[serde(default)]
    pub effective_start_date: Option<String>,
    #[serde(default)]
    pub meter_id: Option<String>,
    #[serde(default)]
    pub tier_minimum_units: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Page {
    #[serde(rename = "Items")]
    pub items: Vec<Item>,
    #[serde(rename = "NextPageLink", default)]
    pub next_page_link: Option<String>,
    #[serde(rename = "BillingCurrency", default)]
    pub billing_currency: Option<String>,
}

/// gpuform's cache file (also accepted by `--prices`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheFile {
    pub fetched_at: String,
    pub pages: Vec<Page>,
}

#[derive(Debug, thiserror::Error)]
pub enum RetailError {
    #[error("not Azure Retail Prices API JSON: {0}")]
    Shape(String),
    #[error(
        "{at}: currency {found:?} is not one the Azure Retail Prices API prices in ({})",
        Currency::supported()
    )]
    Unsupported { at: String, found: String },
    #[error("{at}: the item is in {found}, its page in {page}: one page holds one currency")]
    MixedInPage {
        at: String,
        found: Currency,
        page: Currency,
    },
}

impl Page {
    /// The page's currency: `BillingCurrency`, else its first item's `currencyCode`, else USD
    /// (the API answers in USD unless asked otherwise). `p` is the page's index, for messages.
    pub fn currency(&self, p: usize) -> Result<Currency, RetailError> {
        let code = self
            .billing_currency
            .as_deref()
            .map(|c| (c, format!("page {p}, BillingCurrency")))
            .or_else(|| {
                self.items.iter().enumerate().find_map(|(i, it)| {
                    it.currency_code
                        .as_deref()
                        .map(|c| (c, format!("page {p}, item {i}, currencyCode")))
                })
            });
        let Some((code, at)) = code else {
            return Ok(Currency::USD);
        };
        let page = Currency::parse(code).ok_or_else(|| RetailError::Unsupported {
            at,
            found: code.to_string(),
        })?;
        for (i, it) in self.items.iter().enumerate() {
            if let Some(c) = it.currency_code.as_deref() {
                let at = format!("page {p}, item {i} ({} {})", it.arm_sku_name, it.meter_name);
                let found = Currency::parse(c).ok_or_else(|| RetailError::Unsupported {
                    at: at.clone(),
                    found: c.to_string(),
                })?;
                if found != page {
                    return Err(RetailError::MixedInPage { at, found, page });
                }
            }
        }
        Ok(page)
    }
}

/// A document's pages by currency.
#[derive(Debug, Clone, Default)]
pub struct ByCurrency {
    /// (currency, its pages, the index of the first of them in the document), in order of
    /// appearance.
    pub groups: Vec<(Currency, Vec<Page>, usize)>,
}

impl ByCurrency {
    pub fn currencies(&self) -> Vec<Currency> {
        self.groups.iter().map(|(c, _, _)| *c).collect()
    }

    pub fn pages(&self, c: Currency) -> Vec<Page> {
        self.groups
            .iter()
            .filter(|(g, _, _)| *g == c)
            .flat_map(|(_, p, _)| p.clone())
            .collect()
    }
}

/// Group `pages` by their currency (each page checked).
pub fn split(pages: &[Page]) -> Result<ByCurrency, RetailError> {
    let mut out = ByCurrency::default();
    for (p, page) in pages.iter().enumerate() {
        let c = page.currency(p)?;
        match out.groups.iter_mut().find(|(g, _, _)| *g == c) {
            Some((_, v, _)) => v.push(page.clone()),
            None => out.groups.push((c, vec![page.clone()], p)),
        }
    }
    Ok(out)
}

/// The smallest USD price a meter must have to count towards a rate: non-USD prices carry fewer
/// significant digits, so a cheap meter's ratio is mostly rounding.
pub const RATE_MIN_USD: f64 = 1.0;

/// A USD → `to` rate read off the same meters priced in both currencies.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundRate {
    pub per_usd: f64,
    /// Meters that priced it (USD price at least [`RATE_MIN_USD`]).
    pub meters: usize,
    /// The smallest and largest ratio among them.
    pub spread: (f64, f64),
}

/// The USD → `to` rate of the API's own answer: the median of `to`/USD over the meters both
/// `target` and `usd` price (same meter, type, term, tier and region), among those at
/// [`RATE_MIN_USD`] or more. `None` when no meter is in both.
pub fn rate(target: &[Page], usd: &[Page]) -> Option<FoundRate> {
    type MeterKey = (
        String,
        String,
        String,
        String,
        String,
        String,
        String,
        String,
    );
    let key = |i: &Item| -> MeterKey {
        (
            i.meter_id.clone().unwrap_or_default(),
            i.arm_region_name.to_ascii_lowercase(),
            i.arm_sku_name.clone(),
            i.meter_name.clone(),
            i.product_name.clone(),
            i.price_type.clone(),
            i.reservation_term.clone().unwrap_or_default(),
            format!("{}", i.tier_minimum_units.unwrap_or(0.0)),
        )
    };
    let base: BTreeMap<MeterKey, f64> = usd
        .iter()
        .flat_map(|p| &p.items)
        .filter(|i| i.retail_price >= RATE_MIN_USD)
        .map(|i| (key(i), i.retail_price))
        .collect();
    let mut ratios: Vec<f64> = target
        .iter()
        .flat_map(|p| &p.items)
        .filter(|i| i.retail_price > 0.0)
        .filter_map(|i| base.get(&key(i)).map(|u| i.retail_price / u))
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    let median = if n % 2 == 1 {
        ratios[n / 2]
    } else {
        (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
    };
    Some(FoundRate {
        per_usd: median,
        meters: n,
        spread: (ratios[0], ratios[n - 1]),
    })
}

/// What a document contained.
#[derive(Debug, Clone)]
pub struct Document {
    pub pages: Vec<Page>,
    /// `fetchedAt` of a gpuform cache file.
    pub fetched_at: Option<String>,
}

/// The most an hourly meter may cost, in any currency the API prices in: the largest GPU VM is a
/// few hundred USD an hour, some 200,000 in the currency with the most units per dollar (KRW).
pub const MAX_HOURLY_PRICE: f64 = 1e6;
/// The most any item may cost (reservations are priced for their whole 1- or 3-year term: a
/// 3-year reservation of the largest GPU VM is billions of won).
pub const MAX_ITEM_PRICE: f64 = 1e12;

/// Read one page, an array of pages, or a cache file.
pub fn parse_document(text: &str) -> Result<Document, RetailError> {
    let doc = parse_pages(text)?;
    // a prices file may come from anyone: a finite 1e308 would overflow every total
    for (p, page) in doc.pages.iter().enumerate() {
        for (i, item) in page.items.iter().enumerate() {
            let price = item.retail_price;
            let hourly = item.unit_of_measure.to_ascii_lowercase().contains("hour");
            let limit = if hourly {
                MAX_HOURLY_PRICE
            } else {
                MAX_ITEM_PRICE
            };
            if !price.is_finite() || price < 0.0 || price > limit {
                return Err(RetailError::Shape(format!(
                    "page {p}, item {i} ({} {} in {}): retailPrice {price} per {} is not a plausible price (0 to {limit} {})",
                    item.arm_sku_name,
                    item.meter_name,
                    item.arm_region_name,
                    item.unit_of_measure,
                    item.currency_code.as_deref().unwrap_or("USD")
                )));
            }
        }
    }
    Ok(doc)
}

fn parse_pages(text: &str) -> Result<Document, RetailError> {
    let text = text.trim_start_matches('\u{feff}');
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| RetailError::Shape(format!("invalid JSON: {e}")))?;
    let shape = |e: serde_json::Error| RetailError::Shape(e.to_string());
    match &v {
        serde_json::Value::Array(_) => {
            let pages: Vec<Page> = serde_json::from_value(v).map_err(shape)?;
            Ok(Document {
                pages,
                fetched_at: None,
            })
        }
        serde_json::Value::Object(o) if o.contains_key("Items") => {
            let page: Page = serde_json::from_value(v).map_err(shape)?;
            Ok(Document {
                pages: vec![page],
                fetched_at: None,
            })
        }
        serde_json::Value::Object(o) if o.contains_key("pages") => {
            let c: CacheFile = serde_json::from_value(v).map_err(shape)?;
            Ok(Document {
                pages: c.pages,
                fetched_at: Some(c.fetched_at),
            })
        }
        _ => Err(RetailError::Shape(
            "expected {\"Items\": [...]}, an array of such pages, or a gpuform cache file".into(),
        )),
    }
}

/// What one item prices.
#[derive(Debug, Clone, PartialEq)]
pub enum Class {
    Vm {
        size: String,
        region: String,
        os: PriceOs,
        kind: PriceKind,
        hourly: f64,
    },
    Disk {
        region: String,
        kind: DiskType,
        tier: String,
        monthly: f64,
    },
    PremiumV2 {
        region: String,
        per_gib_month: f64,
    },
    Ignored(&'static str),
}

pub fn classify(i: &Item) -> Class {
    let service = i.service_name.as_deref();
    let region = i.arm_region_name.to_ascii_lowercase();
    if i.price_type == "DevTestConsumption" {
        return Class::Ignored("dev/test price");
    }
    if i.retail_price <= 0.0 {
        return Class::Ignored("zero price");
    }
    // managed disks
    if service.is_none_or(|s| s == "Storage") && i.price_type == "Consumption" {
        if let Some((kind, tier)) = classify_disk_meter(&i.product_name, &i.meter_name) {
            if i.unit_of_measure.replace(' ', "") == "1/Month" {
                return Class::Disk {
                    region,
                    kind,
                    tier,
                    monthly: i.retail_price,
                };
            }
            return Class::Ignored("disk price not per month");
        }
        if i.product_name == "Azure Premium SSD v2"
            && i.meter_name == "Premium LRS Provisioned Capacity"
        {
            return match i.unit_of_measure.as_str() {
                "1 GiB/Hour" => Class::PremiumV2 {
                    region,
                    per_gib_month: i.retail_price * HOURS_PER_MONTH,
                },
                "1 GiB/Month" => Class::PremiumV2 {
                    region,
                    per_gib_month: i.retail_price,
                },
                _ => Class::Ignored("unknown Premium SSD v2 unit"),
            };
        }
    }
    if service.is_some_and(|s| s != "Virtual Machines") || i.arm_sku_name.is_empty() {
        return Class::Ignored("not a virtual machine price");
    }
    let ends = |suffix: &str| i.sku_name.ends_with(suffix) || i.meter_name.ends_with(suffix);
    if ends(" Low Priority") {
        return Class::Ignored("low priority (Batch)");
    }
    let os = if i.product_name.ends_with(" Windows") {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    };
    let size = i.arm_sku_name.clone();
    match i.price_type.as_str() {
        "Consumption" => {
            if i.unit_of_measure != "1 Hour" {
                return Class::Ignored("not an hourly price");
            }
            let kind = if ends(" Spot") {
                PriceKind::Spot
            } else {
                PriceKind::OnDemand
            };
            Class::Vm {
                size,
                region,
                os,
                kind,
                hourly: i.retail_price,
            }
        }
        "Reservation" => match i.reservation_term.as_deref() {
            // a reservation covers compute only: it is the same for Linux and Windows
            Some("1 Year") => Class::Vm {
                size,
                region,
                os: PriceOs::Linux,
                kind: PriceKind::Reserved1Y,
                hourly: i.retail_price / HOURS_1Y,
            },
            Some("3 Years") => Class::Vm {
                size,
                region,
                os: PriceOs::Linux,
                kind: PriceKind::Reserved3Y,
                hourly: i.retail_price / HOURS_3Y,
            },
            _ => Class::Ignored("reservation term not 1 or 3 years"),
        },
        _ => Class::Ignored("unknown price type"),
    }
}

/// Prices read from Retail Prices API pages.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The currency of every price below.
    pub currency: Currency,
    pub vm: PriceTable,
    /// (region, disk SKU name, tier) → (disk SKU, monthly price).
    pub disks: BTreeMap<(String, String, String), (DiskType, f64)>,
    /// region → Premium SSD v2 price per GiB-month.
    pub premium_v2: BTreeMap<String, f64>,
    pub items: usize,
    pub ignored: usize,
}

impl Parsed {
    pub fn vm_prices(&self) -> usize {
        self.vm.len()
    }
}

/// Rank of a duplicate: primary meter region first, then the newest effective date.
fn rank(i: &Item) -> (bool, String) {
    (
        i.is_primary_meter_region.unwrap_or(true),
        i.effective_start_date.clone().unwrap_or_default(),
    )
}

/// Build tables from pages, all in `currency` (checked: a page in another is refused). `source`
/// names the origin in the estimate; `as_of` is its date.
pub fn build(
    pages: &[Page],
    source: &str,
    as_of: &str,
    currency: Currency,
) -> Result<Parsed, RetailError> {
    // (size, region, os, kind) -> (rank of the item, hourly price)
    type VmKey = (String, String, PriceOs, PriceKind);
    let mut vm: BTreeMap<VmKey, ((bool, String), f64)> = BTreeMap::new();
    let mut out = Parsed {
        vm: PriceTable::new(currency),
        currency,
        disks: BTreeMap::new(),
        premium_v2: BTreeMap::new(),
        items: 0,
        ignored: 0,
    };
    for (n, p) in pages.iter().enumerate() {
        let c = p.currency(n)?;
        if c != currency {
            return Err(RetailError::MixedInPage {
                at: format!("page {n}"),
                found: c,
                page: currency,
            });
        }
        for i in &p.items {
            out.items += 1;
            match classify(i) {
                Class::Vm {
                    size,
                    region,
                    os,
                    kind,
                    hourly,
                } => {
                    let r = rank(i);
                    let key = (size, region, os, kind);
                    if vm.get(&key).is_none_or(|(old, _)| r > *old) {
                        vm.insert(key, (r, hourly));
                    }
                }
                Class::Disk {
                    region,
                    kind,
                    tier,
                    monthly,
                } => {
                    out.disks
                        .insert((region, kind.as_str().to_string(), tier), (kind, monthly));
                }
                Class::PremiumV2 {
                    region,
                    per_gib_month,
                } => {
                    out.premium_v2.insert(region, per_gib_month);
                }
                Class::Ignored(_) => out.ignored += 1,
            }
        }
    }
    let mut covered: BTreeMap<(PriceOs, PriceKind), usize> = BTreeMap::new();
    for ((size, region, os, kind), (_, price)) in vm {
        out.vm.insert(&size, &region, os, kind, price);
        *covered.entry((os, kind)).or_default() += 1;
    }
    for ((os, kind), n) in covered {
        out.vm.sources.push(PriceSource {
            name: source.to_string(),
            as_of: as_of.to_string(),
            os,
            kind,
            note: Some(format!(
                "{n} {} {} price{}",
                os_label(os),
                kind.label(),
                if n == 1 { "" } else { "s" }
            )),
        });
    }
    Ok(out)
}

pub fn os_label(os: PriceOs) -> &'static str {
    match os {
        PriceOs::Linux => "Linux",
        PriceOs::Windows => "Windows",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(v: serde_json::Value) -> Item {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn classification_follows_the_facts() {
        let base = serde_json::json!({
            "currencyCode": "USD", "retailPrice": 0.752, "armRegionName": "eastus2",
            "armSkuName": "Standard_NC8as_T4_v3", "meterName": "NC8as T4 v3",
            "productName": "Virtual Machines NCasT4_v3 Series", "skuName": "NC8as T4 v3",
            "serviceName": "Virtual Machines", "type": "Consumption", "unitOfMeasure": "1 Hour"
        });
        let with = |k: &str, v: serde_json::Value| {
            let mut b = base.clone();
            b[k] = v;
            item(b)
        };
        assert_eq!(
            classify(&item(base.clone())),
            Class::Vm {
                size: "Standard_NC8as_T4_v3".into(),
                region: "eastus2".into(),
                os: PriceOs::Linux,
                kind: PriceKind::OnDemand,
                hourly: 0.752
            }
        );
        let win = with(
            "productName",
            "Virtual Machines NCasT4_v3 Series Windows".into(),
        );
        assert!(matches!(
            classify(&win),
            Class::Vm {
                os: PriceOs::Windows,
                kind: PriceKind::OnDemand,
                ..
            }
        ));
        let spot = with("skuName", "NC8as T4 v3 Spot".into());
        assert!(matches!(
            classify(&spot),
            Class::Vm {
                kind: PriceKind::Spot,
                ..
            }
        ));
        let lp = with("meterName", "NC8as T4 v3 Low Priority".into());
        assert_eq!(classify(&lp), Class::Ignored("low priority (Batch)"));
        let mut r = base.clone();
        r["type"] = "Reservation".into();
        r["reservationTerm"] = "3 Years".into();
        r["retailPrice"] = 26280.0.into();
        assert!(
            matches!(classify(&item(r)), Class::Vm { kind: PriceKind::Reserved3Y, hourly, .. } if (hourly - 1.0).abs() < 1e-12)
        );
        let dev = with("type", "DevTestConsumption".into());
        assert!(matches!(classify(&dev), Class::Ignored(_)));
    }

    fn priced(cur: &str, meter: &str, price: f64) -> Item {
        item(serde_json::json!({
            "currencyCode": cur, "retailPrice": price, "armRegionName": "westeurope",
            "armSkuName": "Standard_NC4as_T4_v3", "meterName": meter, "meterId": meter,
            "productName": "Virtual Machines NCasT4_v3 Series", "skuName": meter,
            "serviceName": "Virtual Machines", "type": "Consumption", "unitOfMeasure": "1 Hour"
        }))
    }

    fn page_of(cur: Option<&str>, items: Vec<Item>) -> Page {
        Page {
            items,
            next_page_link: None,
            billing_currency: cur.map(String::from),
        }
    }

    #[test]
    fn a_page_is_in_one_currency() {
        let eur = Currency::parse("EUR").unwrap();
        let p = page_of(Some("EUR"), vec![priced("EUR", "a", 1.0)]);
        assert_eq!(p.currency(0).unwrap(), eur);
        // no BillingCurrency: the items say; nothing says: USD, the API's default
        assert_eq!(
            page_of(None, vec![priced("EUR", "a", 1.0)])
                .currency(0)
                .unwrap(),
            eur
        );
        assert_eq!(page_of(None, vec![]).currency(0).unwrap(), Currency::USD);
        let mixed = page_of(
            Some("EUR"),
            vec![priced("EUR", "a", 1.0), priced("GBP", "b", 1.0)],
        );
        let e = mixed.currency(3).unwrap_err().to_string();
        assert!(
            e.starts_with("page 3, item 1 (Standard_NC4as_T4_v3 b): the item is in GBP"),
            "{e}"
        );
        let odd = page_of(Some("XYZ"), vec![]);
        assert!(
            odd.currency(0)
                .unwrap_err()
                .to_string()
                .contains("\"XYZ\" is not one")
        );
    }

    #[test]
    fn the_rate_is_the_median_of_the_same_meters_at_a_dollar_or_more() {
        let usd = vec![page_of(
            Some("USD"),
            vec![
                priced("USD", "a", 2.0),
                priced("USD", "b", 10.0),
                priced("USD", "c", 4.0),
                priced("USD", "cheap", 0.01),
            ],
        )];
        let eur = vec![page_of(
            Some("EUR"),
            vec![
                priced("EUR", "a", 1.84),
                priced("EUR", "b", 9.3),
                priced("EUR", "c", 3.64),
                // rounding makes a cheap meter's ratio meaningless: left out
                priced("EUR", "cheap", 0.02),
                priced("EUR", "only-in-eur", 5.0),
            ],
        )];
        let r = rate(&eur, &usd).unwrap();
        assert_eq!(r.meters, 3);
        assert!((r.per_usd - 0.92).abs() < 1e-12, "{r:?}");
        assert!((r.spread.0 - 0.91).abs() < 1e-12 && (r.spread.1 - 0.93).abs() < 1e-12);
        assert!(rate(&eur, &[]).is_none());
    }

    #[test]
    fn pages_split_by_currency_and_build_refuses_another() {
        let pages = vec![
            page_of(Some("EUR"), vec![priced("EUR", "a", 1.84)]),
            page_of(Some("USD"), vec![priced("USD", "a", 2.0)]),
        ];
        let by = split(&pages).unwrap();
        let eur = Currency::parse("EUR").unwrap();
        assert_eq!(by.currencies(), vec![eur, Currency::USD]);
        assert_eq!(by.pages(eur).len(), 1);
        let built = build(&by.pages(eur), "t", "2026-12-05", eur).unwrap();
        assert_eq!(built.vm.currency, eur);
        assert!(build(&pages, "t", "2026-12-05", eur).is_err());
    }
}

//! Prices of what gpuform deploys next to the scale set (disks, NAT gateway, public IP, private
//! endpoints, Log Analytics, Key Vault, Service Bus, storage queue): the embedded, dated table
//! `fixed_prices.json`, and disk prices a Retail Prices API file can replace.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::catalog::currency::Currency;
use crate::spec::model::DiskType;

/// Where one group of fixed prices comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedSource {
    pub id: String,
    pub name: String,
    pub as_of: String,
    pub confidence: String,
    pub note: String,
}

/// One managed disk tier: its size and monthly price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiskTier {
    pub size_gib: u32,
    pub monthly: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedPrices {
    /// The currency of the figures (the embedded file is USD; [`FixedPrices::converted_embedded`]
    /// changes it).
    #[serde(skip, default = "usd")]
    pub currency: Currency,
    pub sources: Vec<FixedSource>,
    /// Disk SKU (`Premium_LRS`) → tier name (`P10`) → (size GiB, monthly price).
    disks: BTreeMap<String, BTreeMap<String, (u32, f64)>>,
    /// Which source each disk SKU's prices come from (default: `disks`).
    #[serde(skip)]
    disk_sources: BTreeMap<String, String>,
    /// Premium SSD v2: per GiB-month of provisioned capacity (no embedded figure).
    #[serde(default)]
    pub premium_v2_per_gib_month: Option<f64>,
    /// A serving pool's frontend (issue 36): Application Gateway Standard_v2's fixed hourly
    /// price and its capacity unit-hour; Standard Load Balancer's hourly charge for the first
    /// rules, each further rule-hour, and data processed per GB.
    pub gateway_v2_fixed_hourly: f64,
    pub gateway_v2_capacity_unit_hourly: f64,
    pub load_balancer_included_rules_hourly: f64,
    pub load_balancer_overage_rule_hourly: f64,
    pub load_balancer_per_gb: f64,
    pub nat_gateway_hourly: f64,
    pub nat_gateway_per_gb: f64,
    pub public_ip_hourly: f64,
    pub private_endpoint_hourly: f64,
    pub private_dns_zone_monthly: f64,
    pub log_analytics_per_gb: f64,
    pub log_analytics_retention_per_gb_month: f64,
    pub log_analytics_free_retention_days: u32,
    pub metric_alert_monthly: f64,
    /// Log search alert rule per monitored time series per month, by evaluation frequency.
    #[serde(default)]
    pub log_alert_monthly_by_frequency: BTreeMap<String, f64>,
    pub key_vault_per10k_operations: f64,
    /// Operations with an RSA 3072/4096 or EC ("advanced") key.
    pub key_vault_advanced_key_per10k_operations: f64,
    /// An HSM-protected RSA 2048 key.
    pub key_vault_hsm_key_monthly: f64,
    /// An HSM-protected advanced key (the first 250 keys of a vault).
    pub key_vault_hsm_advanced_key_monthly: f64,
    pub key_vault_rotation: f64,
    pub service_bus_standard_hourly: f64,
    pub service_bus_included_operations_millions: f64,
    pub service_bus_per_million_operations: f64,
    /// Storage account SKU (`Standard_GRS`) → price per 10,000 queue operations.
    pub storage_queue_per10k_operations: BTreeMap<String, f64>,
}

fn usd() -> Currency {
    Currency::USD
}

/// Tier sizes per disk family (the billed size is the next tier up from the provisioned size).
const PREMIUM_TIERS: &[(&str, u32)] = &[
    ("P1", 4),
    ("P2", 8),
    ("P3", 16),
    ("P4", 32),
    ("P6", 64),
    ("P10", 128),
    ("P15", 256),
    ("P20", 512),
    ("P30", 1024),
    ("P40", 2048),
    ("P50", 4096),
    ("P60", 8192),
    ("P70", 16384),
    ("P80", 32767),
];
const STANDARD_SSD_TIERS: &[(&str, u32)] = &[
    ("E1", 4),
    ("E2", 8),
    ("E3", 16),
    ("E4", 32),
    ("E6", 64),
    ("E10", 128),
    ("E15", 256),
    ("E20", 512),
    ("E30", 1024),
    ("E40", 2048),
    ("E50", 4096),
    ("E60", 8192),
    ("E70", 16384),
    ("E80", 32767),
];
const STANDARD_HDD_TIERS: &[(&str, u32)] = &[
    ("S4", 32),
    ("S6", 64),
    ("S10", 128),
    ("S15", 256),
    ("S20", 512),
    ("S30", 1024),
    ("S40", 2048),
    ("S50", 4096),
    ("S60", 8192),
    ("S70", 16384),
    ("S80", 32767),
];

/// The tier a disk of `size_gib` is billed as (`None` for Premium SSD v2, which has no tiers, or
/// a size above the largest tier).
pub fn tier_for(kind: DiskType, size_gib: u32) -> Option<(&'static str, u32)> {
    let tiers = match kind {
        DiskType::PremiumLrs | DiskType::PremiumZrs => PREMIUM_TIERS,
        DiskType::StandardSsdLrs | DiskType::StandardSsdZrs => STANDARD_SSD_TIERS,
        DiskType::StandardLrs => STANDARD_HDD_TIERS,
        DiskType::PremiumV2Lrs => return None,
    };
    tiers.iter().find(|(_, s)| *s >= size_gib).copied()
}

/// Retail Prices API `productName` of a disk family.
pub fn product_name(kind: DiskType) -> &'static str {
    match kind {
        DiskType::PremiumLrs | DiskType::PremiumZrs => "Premium SSD Managed Disks",
        DiskType::StandardSsdLrs | DiskType::StandardSsdZrs => "Standard SSD Managed Disks",
        DiskType::StandardLrs => "Standard HDD Managed Disks",
        DiskType::PremiumV2Lrs => "Azure Premium SSD v2",
    }
}

fn redundancy(kind: DiskType) -> &'static str {
    match kind {
        DiskType::PremiumZrs | DiskType::StandardSsdZrs => "ZRS",
        _ => "LRS",
    }
}

/// Retail Prices API `meterName` of a disk tier (`P10 LRS Disk`).
pub fn meter_name(kind: DiskType, tier: &str) -> String {
    format!("{tier} {} Disk", redundancy(kind))
}

/// A disk's monthly price, or what is missing.
#[derive(Debug, Clone, PartialEq)]
pub enum DiskPrice {
    Tier {
        tier: &'static str,
        tier_gib: u32,
        monthly: f64,
        source: String,
    },
    PerGib {
        per_gib_month: f64,
        monthly: f64,
        source: String,
    },
    Missing {
        what: String,
    },
}

impl FixedPrices {
    pub fn embedded() -> &'static FixedPrices {
        static TABLE: OnceLock<FixedPrices> = OnceLock::new();
        TABLE.get_or_init(|| {
            serde_json::from_str(include_str!("fixed_prices.json"))
                .expect("embedded fixed_prices.json is valid (tested)")
        })
    }

    pub fn source(&self, id: &str) -> Option<&FixedSource> {
        self.sources.iter().find(|s| s.id == id)
    }

    /// Set a disk tier price (from a Retail Prices API file), recording its source.
    pub fn insert_disk(&mut self, kind: DiskType, tier: &str, monthly: f64, source_id: &str) {
        let size = tier_size(kind, tier);
        let Some(size) = size else { return };
        let sku = kind.as_str().to_string();
        let entry = self.disks.entry(sku.clone()).or_default();
        entry.insert(tier.to_string(), (size, monthly));
        self.disk_sources
            .insert(format!("{sku}/{tier}"), source_id.to_string());
    }

    pub fn set_premium_v2(&mut self, per_gib_month: f64, source_id: &str) {
        self.premium_v2_per_gib_month = Some(per_gib_month);
        self.disk_sources
            .insert("PremiumV2_LRS".into(), source_id.to_string());
    }

    /// The embedded figures multiplied by `per_usd` (they are USD list prices); disk prices a
    /// `--prices` file or `--refresh-prices` supplied are kept as they are.
    pub fn converted_embedded(&self, per_usd: f64, to: Currency) -> FixedPrices {
        let mut f = self.clone();
        f.currency = to;
        let embedded =
            |src: Option<&String>| src.is_none_or(|s| FixedPrices::embedded().source(s).is_some());
        for (sku, tiers) in f.disks.iter_mut() {
            for (tier, (_, monthly)) in tiers.iter_mut() {
                if embedded(self.disk_sources.get(&format!("{sku}/{tier}"))) {
                    *monthly *= per_usd;
                }
            }
        }
        if f.premium_v2_per_gib_month.is_some() && embedded(self.disk_sources.get("PremiumV2_LRS"))
        {
            f.premium_v2_per_gib_month = f.premium_v2_per_gib_month.map(|p| p * per_usd);
        }
        for x in [
            &mut f.gateway_v2_fixed_hourly,
            &mut f.gateway_v2_capacity_unit_hourly,
            &mut f.load_balancer_included_rules_hourly,
            &mut f.load_balancer_overage_rule_hourly,
            &mut f.load_balancer_per_gb,
            &mut f.nat_gateway_hourly,
            &mut f.nat_gateway_per_gb,
            &mut f.public_ip_hourly,
            &mut f.private_endpoint_hourly,
            &mut f.private_dns_zone_monthly,
            &mut f.log_analytics_per_gb,
            &mut f.log_analytics_retention_per_gb_month,
            &mut f.metric_alert_monthly,
            &mut f.key_vault_per10k_operations,
            &mut f.key_vault_advanced_key_per10k_operations,
            &mut f.key_vault_hsm_key_monthly,
            &mut f.key_vault_hsm_advanced_key_monthly,
            &mut f.key_vault_rotation,
            &mut f.service_bus_standard_hourly,
            &mut f.service_bus_per_million_operations,
        ] {
            *x *= per_usd;
        }
        for v in f.log_alert_monthly_by_frequency.values_mut() {
            *v *= per_usd;
        }
        for v in f.storage_queue_per10k_operations.values_mut() {
            *v *= per_usd;
        }
        f
    }

    pub fn add_source(&mut self, s: FixedSource) {
        self.sources.retain(|x| x.id != s.id);
        self.sources.push(s);
    }

    /// Monthly price of one disk.
    pub fn disk(&self, kind: DiskType, size_gib: u32) -> DiskPrice {
        if kind == DiskType::PremiumV2Lrs {
            return match self.premium_v2_per_gib_month {
                Some(p) => DiskPrice::PerGib {
                    per_gib_month: p,
                    monthly: p * f64::from(size_gib),
                    source: self
                        .disk_sources
                        .get("PremiumV2_LRS")
                        .cloned()
                        .unwrap_or_else(|| "disks".into()),
                },
                None => DiskPrice::Missing {
                    what: format!(
                        "Premium SSD v2 capacity price ('{}' meter 'Premium LRS Provisioned Capacity')",
                        product_name(kind)
                    ),
                },
            };
        }
        let Some((tier, tier_gib)) = tier_for(kind, size_gib) else {
            return DiskPrice::Missing {
                what: format!(
                    "{} disk of {size_gib} GiB: larger than the largest tier",
                    kind.as_str()
                ),
            };
        };
        match self.disks.get(kind.as_str()).and_then(|m| m.get(tier)) {
            Some((_, monthly)) => DiskPrice::Tier {
                tier,
                tier_gib,
                monthly: *monthly,
                source: self
                    .disk_sources
                    .get(&format!("{}/{tier}", kind.as_str()))
                    .cloned()
                    .unwrap_or_else(|| "disks".into()),
            },
            None => DiskPrice::Missing {
                what: format!(
                    "{} {tier} ('{}' meter '{}')",
                    kind.as_str(),
                    product_name(kind),
                    meter_name(kind, tier)
                ),
            },
        }
    }
}

fn tier_size(kind: DiskType, tier: &str) -> Option<u32> {
    let tiers = match kind {
        DiskType::PremiumLrs | DiskType::PremiumZrs => PREMIUM_TIERS,
        DiskType::StandardSsdLrs | DiskType::StandardSsdZrs => STANDARD_SSD_TIERS,
        DiskType::StandardLrs => STANDARD_HDD_TIERS,
        DiskType::PremiumV2Lrs => return None,
    };
    tiers.iter().find(|(t, _)| *t == tier).map(|(_, s)| *s)
}

/// The disk SKU a Retail Prices API disk item prices, from its product and meter names
/// (`Premium SSD Managed Disks` + `P10 ZRS Disk` → (`Premium_ZRS`, `P10`)). Mount, operations
/// and snapshot meters are not disk prices.
pub fn classify_disk_meter(product: &str, meter: &str) -> Option<(DiskType, String)> {
    let mut parts = meter.split(' ');
    let (tier, red, word) = (parts.next()?, parts.next()?, parts.next()?);
    if word != "Disk" || parts.next().is_some() {
        return None;
    }
    let kind = match (product, red) {
        ("Premium SSD Managed Disks", "LRS") => DiskType::PremiumLrs,
        ("Premium SSD Managed Disks", "ZRS") => DiskType::PremiumZrs,
        ("Standard SSD Managed Disks", "LRS") => DiskType::StandardSsdLrs,
        ("Standard SSD Managed Disks", "ZRS") => DiskType::StandardSsdZrs,
        ("Standard HDD Managed Disks", "LRS") => DiskType::StandardLrs,
        _ => return None,
    };
    tier_size(kind, tier)?;
    Some((kind, tier.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_table_parses_and_is_dated() {
        let f = FixedPrices::embedded();
        assert!(
            f.sources.iter().all(|s| s.as_of.len() == 10),
            "every source has a YYYY-MM-DD date"
        );
        assert_eq!(f.nat_gateway_hourly, 0.045);
    }

    #[test]
    fn disks_bill_at_the_next_tier() {
        let f = FixedPrices::embedded();
        assert_eq!(tier_for(DiskType::PremiumLrs, 100), Some(("P10", 128)));
        assert_eq!(tier_for(DiskType::PremiumLrs, 129), Some(("P15", 256)));
        assert_eq!(tier_for(DiskType::StandardLrs, 10), Some(("S4", 32)));
        match f.disk(DiskType::PremiumLrs, 128) {
            DiskPrice::Tier { tier, monthly, .. } => assert_eq!((tier, monthly), ("P10", 19.71)),
            other => panic!("{other:?}"),
        }
        // ZRS is not embedded: reported, not guessed
        match f.disk(DiskType::PremiumZrs, 128) {
            DiskPrice::Missing { what } => assert!(what.contains("P10 ZRS Disk"), "{what}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            f.disk(DiskType::PremiumV2Lrs, 128),
            DiskPrice::Missing { .. }
        ));
    }

    #[test]
    fn disk_meters_classify() {
        assert_eq!(
            classify_disk_meter("Premium SSD Managed Disks", "P10 ZRS Disk"),
            Some((DiskType::PremiumZrs, "P10".into()))
        );
        assert_eq!(
            classify_disk_meter("Premium SSD Managed Disks", "P10 LRS Disk Mount"),
            None
        );
        assert_eq!(
            classify_disk_meter("Standard SSD Managed Disks", "E10 LRS Disk Operations"),
            None
        );
        assert_eq!(
            classify_disk_meter("Standard HDD Managed Disks", "S10 LRS Disk"),
            Some((DiskType::StandardLrs, "S10".into()))
        );
    }
}

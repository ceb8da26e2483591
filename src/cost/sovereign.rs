//! Prices in the sovereign clouds (issue 13): only what a public source prices for that cloud.
//!
//! - Azure Government: VM and disk prices come from the public Azure Retail Prices API, whose
//!   items carry the Azure Government regions (`armRegionName` `usgovvirginia`, `usgovarizona`,
//!   `usgovtexas`, ...), in USD; the embedded table has none, so `--refresh-prices` (or
//!   `--prices FILE`) supplies them. The embedded fixed prices (`fixed_prices.json`: NAT
//!   gateway, public IP, private endpoints, Log Analytics, Key Vault, Service Bus, storage queue,
//!   disks) are public-cloud East US list prices: no source says they hold in Azure Government,
//!   so their lines are left unpriced there.
//! - Azure China: no price source gpuform reads ([`crate::catalog::clouds::price_source`]); every
//!   line is left unpriced, and the estimate says so plainly instead of inventing numbers.
//!
//! An unpriced line is a missing price like any other: the totals are lower bounds and the
//! budget gate stays undecided.

use crate::azure::Cloud;
use crate::catalog::clouds::{self, PriceSource};
use crate::facts::private_dns::{ZoneOf, zone_name};

use super::fixed::FixedPrices;
use super::model::{Line, Missing};

/// Withhold the prices `cloud` has no source for; returns the note that says why (`None` in the
/// public cloud, where nothing changes).
pub fn withhold_unsourced(
    cloud: Cloud,
    fixed: &FixedPrices,
    lines: &mut [Line],
    missing: &mut Vec<Missing>,
) -> Option<String> {
    let (note, withhold_all) = match (cloud, clouds::price_source(cloud)) {
        (Cloud::AzureCloud, _) => return None,
        (_, PriceSource::None { why }) => (why.to_string(), true),
        (_, PriceSource::RetailApi) => (
            format!(
                "{cloud}: VM and disk prices come from the Azure Retail Prices API (USD; supply them with --refresh-prices or --prices FILE); the embedded prices of the other resources are public-cloud East US list prices with no source for {cloud}, so those lines are not priced"
            ),
            false,
        ),
    };
    for l in lines.iter_mut() {
        // the private DNS zones are the cloud's (the template derives them from environment();
        // the labels name the public cloud's)
        for of in [ZoneOf::KeyVault, ZoneOf::StorageQueue] {
            l.label = l
                .label
                .replace(zone_name(of, Cloud::AzureCloud), zone_name(of, cloud));
        }
        let Some(src) = &l.source else {
            continue;
        };
        let embedded = fixed.sources.iter().any(|s| &s.id == src);
        if !(withhold_all || embedded) {
            continue;
        }
        l.label = without_public_price(&l.label);
        l.unit_price = None;
        l.amount = l.amount.map(|_| None);
        l.source = None;
        missing.push(Missing {
            line: l.id.clone(),
            price: format!("{} in {cloud}", l.label),
            help: if withhold_all {
                "no public price source gpuform reads for this cloud: price it from your agreement's price sheet".into()
            } else {
                "no public source for this price in this cloud: take it from the Azure Government pricing pages or your agreement".into()
            },
        });
    }
    Some(note)
}

/// The vault's private DNS zone in `cloud` ([`crate::facts::private_dns`]): what
/// `format('privatelink{0}', replace(environment().suffixes.keyvaultDns, 'vault', 'vaultcore'))`
/// gives there.
#[cfg(test)]
fn vault_zone(cloud: Cloud) -> String {
    zone_name(ZoneOf::KeyVault, cloud).to_string()
}

/// A label without the embedded public-cloud price it quotes (`(billed as P10, 128 GiB,
/// $19.71/month)` -> `(billed as P10, 128 GiB)`).
fn without_public_price(label: &str) -> String {
    match label.find(", $") {
        Some(i) => {
            let rest = &label[i + 3..];
            let end = rest.find([')', ';']).map_or(label.len(), |j| i + 3 + j);
            format!("{}{}", &label[..i], &label[end..])
        }
        None => label.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_lose_public_prices_and_name_the_clouds_zone() {
        assert_eq!(
            without_public_price(
                "OS disk Premium_LRS 128 GiB (billed as P10, 128 GiB, $19.71/month)"
            ),
            "OS disk Premium_LRS 128 GiB (billed as P10, 128 GiB)"
        );
        assert_eq!(
            without_public_price("NAT gateway (Standard)"),
            "NAT gateway (Standard)"
        );
        assert_eq!(
            vault_zone(Cloud::AzureUSGovernment),
            "privatelink.vaultcore.usgovcloudapi.net"
        );
        assert_eq!(
            vault_zone(Cloud::AzureChinaCloud),
            "privatelink.vaultcore.azure.cn"
        );
        assert_eq!(
            vault_zone(Cloud::AzureCloud),
            "privatelink.vaultcore.azure.net"
        );
    }
}

//! The Azure Retail Prices API `gpuform cost --refresh-prices` reads, and where 21Vianet
//! publishes its prices instead.
//!
//! Sources (read 2026-12-05):
//! - Learn, "Azure Retail Prices REST API overview"
//!   (https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices):
//!   `GET https://prices.azure.com/api/retail/prices`, the `api-version=2023-01-01-preview` of its
//!   examples ("filter values are case-sensitive" from that version), `NextPageLink` paging;
//!   summarised in `../shared/azure/facts.md` §7 ("filter values are case-sensitive from
//!   api-version 2023-01-01-preview; paginate via `NextPageLink`").
//! - Learn, "Azure Retail Prices API for China" (read 2026-12-02): the CSV price sheet of Azure
//!   operated by 21Vianet.

use super::Source;

/// The public Retail Prices API (USD; the public cloud's regions and Azure Government's).
pub const RETAIL_PRICES_ENDPOINT: &str = "https://prices.azure.com/api/retail/prices";
/// Its `api-version`.
pub const RETAIL_PRICES_API_VERSION: &str = "2023-01-01-preview";

pub const RETAIL_PRICES: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices (Azure Retail Prices REST API overview; ../shared/azure/facts.md §7)",
    "2026-12-05",
);

/// 21Vianet's price sheet download (a CSV whose columns the page does not document; gpuform does
/// not read it).
pub const CHINA_PRICE_SHEET: &str =
    "https://prices.azure.cn/api/retail/pricesheet/download?api-version=2023-06-01-preview";

pub const CHINA_PRICES: Source = Source::doc(
    "Learn, \"Azure Retail Prices API for China\" (the price sheet download of Azure operated by 21Vianet)",
    "2026-12-02",
);

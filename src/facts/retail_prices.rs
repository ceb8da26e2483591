//! The Azure Retail Prices API: its endpoint and version, the currencies it answers in, how a
//! non-USD price comes about, and what it covers (the commercial cloud, not Azure China).
//!
//! Sources (each read 2026-12-05):
//! - Microsoft Learn, "Azure Retail Prices overview",
//!   <https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices>: the
//!   endpoint, the `currencyCode` query parameter ("Example call filtered for compute with
//!   currency in euro: `https://prices.azure.com/api/retail/prices?currencyCode='EUR'&$filter=serviceFamily eq 'Compute'`"),
//!   the "Supported currencies" table ([`CURRENCIES`]), a non-USD sample item (`"currencyCode":
//!   "EUR"`), `currencyCode` "returns prices in USD unless specified", `armRegionName` "This
//!   version only supports prices on Commercial Cloud", and "The currency that Microsoft uses to
//!   price all Azure services is USD. Prices shown in USD currency are Microsoft retail prices.
//!   Other non-USD prices returned by the API are for your reference to help you estimate budget
//!   expenses."
//! - Microsoft Learn, "Microsoft Customer Agreement FAQ" (MicrosoftDocs/azure-docs
//!   `articles/cost-management-billing/microsoft-customer-agreement/microsoft-customer-agreement-faq.yml`
//!   @03acc2f3f8e7156a606800792cc7cdd9b7c9d747, ms.date 06/12/2023): the Retail Price API "returns
//!   USD as the default. The API returns a currency conversion if the user specifies a currency
//!   ... the API returns *estimated prices based on the current conversion rate*"; "if you
//!   transact in one of the other supported currencies ..., your monthly cost is first calculated
//!   in USD. For payment, the total is then converted to the local currency"; "We use London
//!   closing spot rates that are captured in the two business days prior to the last business day
//!   of the previous month end ... This rate applies to all transactions during the upcoming
//!   month." ([`CONVERSION`]). Its currency table lists the same 16 codes beside USD.
//! - Microsoft Learn, "Azure Retail Prices API for China",
//!   <https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices-china>:
//!   an unauthenticated endpoint whose answer is a `DownloadUrl` of a CSV "that includes the
//!   retail rates for all Azure services in China" ([`CHINA_PRICE_SHEET`]); the page does not
//!   document the CSV's columns. The Azure China edition of the customer agreement FAQ
//!   (<https://docs.azure.cn/en-us/cost-management-billing/microsoft-customer-agreement/microsoft-customer-agreement-faq>)
//!   says its Retail Price API "returns CNY as the default": Azure operated by 21Vianet has its
//!   own CNY price list, not a conversion of the global one.
//!
//! Not documented anywhere gpuform found: how the API answers a `currencyCode` outside the table.
//! gpuform never sends one (it refuses the code first) and refuses an answer whose currency is
//! not the one it asked for ([`UNLISTED_CODE`]).

use super::Source;

/// The public endpoint (no credentials).
pub const ENDPOINT: &str = "https://prices.azure.com/api/retail/prices";
/// The version gpuform asks for (filter values are case-sensitive from this version on).
pub const API_VERSION: &str = "2023-01-01-preview";

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices",
    "2026-12-05",
);

/// The query parameter that asks for another currency, and how the page writes its value
/// (`currencyCode='EUR'`, quoted as an OData literal).
pub const CURRENCY_PARAMETER: &str = "currencyCode";

/// The "Supported currencies" table of the overview page: code and detail, in the page's order.
pub const CURRENCIES: &[(&str, &str)] = &[
    ("USD", "US dollar"),
    ("AUD", "Australian dollar"),
    ("BRL", "Brazilian real"),
    ("CAD", "Canadian dollar"),
    ("CHF", "Swiss franc"),
    ("CNY", "Chinese yuan"),
    ("DKK", "Danish krone"),
    ("EUR", "Euro"),
    ("GBP", "British pound"),
    ("INR", "Indian rupee"),
    ("JPY", "Japanese yen"),
    ("KRW", "Korean won"),
    ("NOK", "Norwegian krone"),
    ("NZD", "New Zealand dollar"),
    ("RUB", "Russian ruble"),
    ("SEK", "Swedish krona"),
    ("TWD", "Taiwan dollar"),
];

/// The currency Microsoft prices in; every other is derived from it.
pub const BASE_CURRENCY: &str = "USD";

/// How a non-USD price comes about, and how the invoice's rate is fixed.
pub const CONVERSION: Source = Source::doc(
    "https://learn.microsoft.com/azure/cost-management-billing/microsoft-customer-agreement/microsoft-customer-agreement-faq \
     (MicrosoftDocs/azure-docs articles/cost-management-billing/microsoft-customer-agreement/microsoft-customer-agreement-faq.yml@03acc2f3f8e7156a606800792cc7cdd9b7c9d747, ms.date 06/12/2023): \
     Azure is priced in USD; a non-USD bill is the USD cost converted at London closing spot rates captured in the two business days before the last business day of the previous month, fixed for the month; \
     the Retail Prices API's non-USD prices are estimates at the current conversion rate",
    "2026-12-05",
);

/// The sentence the estimate quotes where it explains a converted figure.
pub const CONVERSION_RULE: &str = "Azure prices in USD; a non-USD invoice converts the USD cost at London closing spot rates taken two business days before the previous month's last business day, fixed for the month (Microsoft Customer Agreement FAQ); the Retail Prices API's non-USD prices are estimates at the current rate";

/// Azure China's own price list: a CSV behind this endpoint, in CNY (21Vianet's list, not a
/// conversion of the global prices).
pub const CHINA_PRICE_SHEET: &str =
    "https://prices.azure.cn/api/retail/pricesheet/download?api-version=2023-06-01-preview";

pub const CHINA_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices-china; \
     https://docs.azure.cn/en-us/cost-management-billing/microsoft-customer-agreement/microsoft-customer-agreement-faq",
    "2026-12-05",
);

/// What the overview says the global API covers.
pub const COMMERCIAL_ONLY: &str =
    "the Retail Prices API (prices.azure.com) \"only supports prices on Commercial Cloud\"";

/// No source says how the API answers a code outside [`CURRENCIES`].
pub const UNLISTED_CODE: Source = Source::assumption(
    "Microsoft documents no answer to a currencyCode outside the supported table: gpuform refuses such a code before asking, and refuses an answer in any currency other than the one asked for",
    "2026-12-05",
);

/// The table's entry for `code` (exact, upper case).
pub fn currency(code: &str) -> Option<(&'static str, &'static str)> {
    CURRENCIES.iter().copied().find(|(c, _)| *c == code)
}

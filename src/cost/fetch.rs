//! `--refresh-prices`: the public Azure Retail Prices API through the project's HTTP pipeline
//! ([`crate::azure::http::PublicPipeline`]: retry on 429/5xx honouring Retry-After, per-try
//! timeout, fatal TLS errors, user agent; no authentication), following `NextPageLink` on the
//! same origin, and a dated cache. This is the only module of the cost estimate that does I/O
//! over the network.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};
use url::Url;

use super::retail::{self, Page};
use crate::azure::http::PublicPipeline;
use crate::catalog::currency::Currency;
use crate::facts::retail_prices;

pub const DEFAULT_ENDPOINT: &str = retail_prices::ENDPOINT;
pub const API_VERSION: &str = retail_prices::API_VERSION;
/// armSkuName values per request (the filter grows with each; keep URLs short).
const SKUS_PER_QUERY: usize = 10;

#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub endpoint: Url,
    /// Safety stop for a server that keeps returning NextPageLink.
    pub max_pages: usize,
}

impl FetchOptions {
    pub fn new(endpoint: Url) -> Self {
        Self {
            endpoint,
            max_pages: 200,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("request to {url} failed")]
    Transport {
        url: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("{url} answered HTTP {status}{}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url} returned something that is not a Retail Prices API page: {detail}")]
    Malformed { url: String, detail: String },
    #[error("NextPageLink {link} leaves {endpoint}; refusing to follow it")]
    ForeignLink { link: String, endpoint: String },
    #[error("more than {0} pages; stopping (is the filter too wide?)")]
    TooManyPages(usize),
    #[error(
        "{url} answered in {got}, not in the {asked} asked for (currencyCode); refusing prices in a currency gpuform did not ask for"
    )]
    WrongCurrency {
        url: String,
        asked: Currency,
        got: String,
    },
}

/// OData filters for the VM prices of `skus` in `region` (batched), and one for managed disks.
/// Filter values are case-sensitive from api-version 2023-01-01-preview.
pub fn filters(region: &str, skus: &[String]) -> Vec<String> {
    let mut out: Vec<String> = skus
        .chunks(SKUS_PER_QUERY)
        .map(|chunk| {
            let any = chunk
                .iter()
                .map(|s| format!("armSkuName eq '{}'", odata(s)))
                .collect::<Vec<_>>()
                .join(" or ");
            format!(
                "serviceName eq 'Virtual Machines' and armRegionName eq '{}' and ({any})",
                odata(region)
            )
        })
        .collect();
    out.push(format!(
        "serviceName eq 'Storage' and armRegionName eq '{}' and (productName eq 'Premium SSD Managed Disks' or productName eq 'Standard SSD Managed Disks' or productName eq 'Standard HDD Managed Disks' or productName eq 'Azure Premium SSD v2')",
        odata(region)
    ));
    out
}

fn odata(s: &str) -> String {
    s.replace('\'', "''")
}

/// Percent-encode a query value (spaces as %20, which every server decodes).
fn encode(s: &str) -> String {
    let mut o = String::with_capacity(s.len() * 3 / 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~'()".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// The first request of a filter. A currency other than USD is asked for as the overview page
/// writes it (`currencyCode='EUR'`); USD, the API's default, adds nothing.
pub fn first_url(endpoint: &Url, filter: &str, currency: Currency) -> Url {
    let mut u = endpoint.clone();
    let mut q = u.query().map(|q| format!("{q}&")).unwrap_or_default();
    q.push_str(&format!(
        "api-version={API_VERSION}&meterRegion=%27primary%27&%24filter={}",
        encode(filter)
    ));
    if !currency.is_usd() {
        q.push_str(&format!(
            "&{}=%27{}%27",
            retail_prices::CURRENCY_PARAMETER,
            currency.code()
        ));
    }
    u.set_query(Some(&q));
    u
}

/// One GET (the pipeline retries 429/5xx); returns the body text of a 2xx answer.
async fn get(client: &PublicPipeline, url: &Url) -> Result<String, FetchError> {
    let res = client
        .get(url.clone(), "application/json")
        .await
        .map_err(|source| FetchError::Transport {
            url: url.to_string(),
            source,
        })?;
    let text = String::from_utf8_lossy(&res.body).into_owned();
    if (200..300).contains(&res.status) {
        Ok(text)
    } else {
        Err(FetchError::Status {
            url: url.to_string(),
            status: res.status,
            body: snippet(&text),
        })
    }
}

fn snippet(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Every page of one filter in `currency`, following NextPageLink. Pages are returned as raw
/// JSON (what the cache stores) after checking each parses as a page in that currency.
pub async fn fetch_filter(
    client: &PublicPipeline,
    o: &FetchOptions,
    filter: &str,
    currency: Currency,
) -> Result<Vec<serde_json::Value>, FetchError> {
    let mut url = first_url(&o.endpoint, filter, currency);
    let mut pages = Vec::new();
    loop {
        if pages.len() >= o.max_pages {
            return Err(FetchError::TooManyPages(o.max_pages));
        }
        let text = get(client, &url).await?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| FetchError::Malformed {
                url: url.to_string(),
                detail: format!("invalid JSON ({e})"),
            })?;
        let page: Page =
            serde_json::from_value(value.clone()).map_err(|e| FetchError::Malformed {
                url: url.to_string(),
                detail: e.to_string(),
            })?;
        let got = page
            .currency(pages.len())
            .map_err(|e| FetchError::Malformed {
                url: url.to_string(),
                detail: e.to_string(),
            })?;
        if got != currency {
            return Err(FetchError::WrongCurrency {
                url: url.to_string(),
                asked: currency,
                got: got.to_string(),
            });
        }
        pages.push(value);
        match page.next_page_link.filter(|l| !l.is_empty()) {
            None => return Ok(pages),
            Some(link) => {
                let next = Url::parse(&link).map_err(|e| FetchError::Malformed {
                    url: url.to_string(),
                    detail: format!("NextPageLink {link:?}: {e}"),
                })?;
                // the url crate lowercases hosts and fills in default ports
                if next.origin() != o.endpoint.origin() {
                    return Err(FetchError::ForeignLink {
                        link,
                        endpoint: o.endpoint.to_string(),
                    });
                }
                url = next;
            }
        }
    }
}

/// What the cache holds (`--prices` reads it too).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheDoc {
    pub fetched_at: String,
    pub endpoint: String,
    pub api_version: String,
    /// The currency asked for (caches written before currencies were asked for are USD).
    #[serde(default = "usd")]
    pub currency: Currency,
    pub filters: Vec<String>,
    /// The pages in `currency`, then (when it is not USD) the first filter's pages again in USD:
    /// the same meters in both currencies, from which the rate is read ([`retail::rate`]).
    pub pages: Vec<serde_json::Value>,
}

fn usd() -> Currency {
    Currency::USD
}

/// Fetch all filters in `currency`; for another currency than USD, also the first filter in USD
/// (the rate's meters).
pub async fn fetch_all(
    client: &PublicPipeline,
    o: &FetchOptions,
    filters: &[String],
    fetched_at: &str,
    currency: Currency,
) -> Result<CacheDoc, FetchError> {
    let mut pages = Vec::new();
    for f in filters {
        pages.extend(fetch_filter(client, o, f, currency).await?);
    }
    if !currency.is_usd()
        && let Some(f) = filters.first()
    {
        pages.extend(fetch_filter(client, o, f, Currency::USD).await?);
    }
    Ok(CacheDoc {
        fetched_at: fetched_at.to_string(),
        endpoint: o.endpoint.to_string(),
        api_version: API_VERSION.into(),
        currency,
        filters: filters.to_vec(),
        pages,
    })
}

/// The default cache directory: `$XDG_CACHE_HOME/gpuform`, else `~/.cache/gpuform`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return Some(PathBuf::from(x).join("gpuform"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("gpuform"))
}

/// The cache file for one set of filters in one currency against one endpoint.
pub fn cache_path(
    dir: &Path,
    region: &str,
    endpoint: &Url,
    filters: &[String],
    currency: Currency,
) -> PathBuf {
    let mut h = Sha256::new();
    h.update(endpoint.as_str().as_bytes());
    h.update(API_VERSION.as_bytes());
    if !currency.is_usd() {
        // a USD cache keeps the name it had before currencies were asked for
        h.update(b"\ncurrencyCode=");
        h.update(currency.code().as_bytes());
    }
    for f in filters {
        h.update(b"\n");
        h.update(f.as_bytes());
    }
    let digest = h.finalize();
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let region: String = region
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    if currency.is_usd() {
        dir.join(format!("retail-prices-{region}-{hex}.json"))
    } else {
        dir.join(format!(
            "retail-prices-{region}-{}-{hex}.json",
            currency.code().to_ascii_lowercase()
        ))
    }
}

pub fn read_cache(path: &Path) -> Option<CacheDoc> {
    let text = crate::io::read_text(path, crate::io::limits::PRICES).ok()?;
    let doc: CacheDoc = serde_json::from_str(&text).ok()?;
    // the pages must still parse
    retail::parse_document(&text).ok()?;
    Some(doc)
}

/// Write atomically (temporary file, then rename).
pub fn write_cache(path: &Path, doc: &CacheDoc) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(
        &mut tmp,
        serde_json::to_string_pretty(doc).expect("json").as_bytes(),
    )?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_url_carries_version_primary_and_filter() {
        let u = first_url(
            &Url::parse(DEFAULT_ENDPOINT).unwrap(),
            "serviceName eq 'Virtual Machines'",
            Currency::USD,
        );
        let q: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        assert!(q.contains(&("api-version".into(), API_VERSION.into())));
        assert!(q.contains(&("meterRegion".into(), "'primary'".into())));
        assert!(q.contains(&("$filter".into(), "serviceName eq 'Virtual Machines'".into())));
        assert!(u.as_str().contains("%20eq%20"), "{u}");
        assert!(
            !q.iter().any(|(k, _)| k == "currencyCode"),
            "USD is the default"
        );
        let eur = first_url(
            &Url::parse(DEFAULT_ENDPOINT).unwrap(),
            "serviceName eq 'Virtual Machines'",
            Currency::parse("EUR").unwrap(),
        );
        // as the overview page writes it: currencyCode='EUR'
        assert!(eur.as_str().ends_with("&currencyCode=%27EUR%27"), "{eur}");
    }

    #[test]
    fn filters_batch_skus_and_add_disks() {
        let skus: Vec<String> = (0..12).map(|i| format!("Standard_X{i}")).collect();
        let f = filters("eastus2", &skus);
        assert_eq!(f.len(), 3);
        assert!(f[0].starts_with("serviceName eq 'Virtual Machines' and armRegionName eq 'eastus2' and (armSkuName eq 'Standard_X0' or "));
        assert!(f[1].ends_with("(armSkuName eq 'Standard_X10' or armSkuName eq 'Standard_X11')"));
        assert!(f[2].contains("Premium SSD Managed Disks"));
    }

    #[test]
    fn next_page_link_with_explicit_default_port_is_same_origin() {
        let a = Url::parse("https://prices.azure.com/api/retail/prices").unwrap();
        let b = Url::parse("https://Prices.Azure.com:443/api/retail/prices?$skip=1000").unwrap();
        assert_eq!(a.origin(), b.origin());
        assert_ne!(
            a.origin(),
            Url::parse("https://evil.example/api").unwrap().origin()
        );
        assert_ne!(
            a.origin(),
            Url::parse("http://prices.azure.com/api").unwrap().origin()
        );
    }
}

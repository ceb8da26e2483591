//! The prices an estimate uses beyond the embedded table, gathered in the spec's currency:
//! `--prices` files (Retail Prices API JSON) and `--refresh-prices` (the public API, cached),
//! each layered into the price book ([`gather`], shared by `cost` and `simulate`).
//!
//! The spec's currency is `monitoring.budget.currency` (USD without a budget). Prices in it come
//! from files or answers in it; the embedded USD figures join them only through the rate the
//! Retail Prices API itself answers (the same meters in both currencies, [`retail::rate`]). A
//! file in another currency than the spec's is a located error. Without any price in the spec's
//! currency the book stays in USD and says what to run ([`Gathered::fallback`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::azure::{Cloud, HttpSettings};
use crate::catalog;
use crate::catalog::currency::{Currency, Rate};
use crate::diag::failure::{ExitCode, Failure, read_input, runtime, seconds};
use crate::facts::retail_prices;
use crate::sizing;
use crate::spec::Checked;
use crate::spec::model::Spec;

use super::book::{Overlay, PriceBook};
use super::clock::{file_date, now_rfc3339};
use super::fetch::{self, FetchOptions};
use super::fixed::FixedSource;
use super::retail::{self, Page};

/// The `--refresh-prices` flags.
#[derive(Debug, Clone)]
pub struct Refresh {
    /// Retail Prices API endpoint.
    pub endpoint: String,
    /// Where answers are cached (default $XDG_CACHE_HOME/gpuform or ~/.cache/gpuform).
    pub cache_dir: Option<PathBuf>,
    /// Cached prices younger than this many hours are reused.
    pub max_age: f64,
    /// Seconds each HTTP try may take.
    pub timeout: f64,
    pub retries: u32,
    /// First retry back-off in milliseconds.
    pub retry_delay_ms: u64,
}

/// Where a command's prices come from: `--prices` files and `--refresh-prices`.
#[derive(Debug, Clone, Default)]
pub struct Pricing {
    pub files: Vec<PathBuf>,
    pub refresh: Option<Refresh>,
}

/// The currency a spec prices, compares and gates in, and where it says so.
#[derive(Debug, Clone)]
pub struct Want {
    pub currency: Currency,
    /// `spec.yaml:31:38 (monitoring.budget.currency)`, or where the default comes from.
    pub at: String,
}

impl Want {
    /// The spec's currency: `monitoring.budget.currency` (USD, the default, without it).
    pub fn of(checked: &Checked) -> Result<Want, Failure> {
        let spec = checked
            .spec
            .as_ref()
            .ok_or_else(|| Failure::usage(format!("{} could not be read", checked.path)))?;
        let here = |pointer: &str| match checked.index.locate(pointer) {
            Some(l) => format!("{}:{}:{}", checked.path, l.line, l.column),
            None => checked.path.clone(),
        };
        let Some(b) = spec.spec.monitoring.budget.as_ref() else {
            return Ok(Want {
                currency: Currency::USD,
                at: format!("{} (no monitoring.budget: USD)", checked.path),
            });
        };
        let pointer = "/spec/monitoring/budget/currency";
        // a missing field locates at its parent
        let written = checked
            .index
            .locate(pointer)
            .is_some_and(|l| checked.index.locate("/spec/monitoring/budget") != Some(l));
        let currency = Currency::parse(&b.currency).ok_or_else(|| {
            Failure::usage(format!(
                "{}: monitoring.budget.currency {:?} is not a currency Azure prices in",
                here(pointer),
                b.currency
            ))
            .help(format!("use one of {}", Currency::supported()))
        })?;
        Ok(Want {
            currency,
            at: if written {
                format!("{} (monitoring.budget.currency)", here(pointer))
            } else {
                format!(
                    "{} (monitoring.budget without a currency: USD, the default)",
                    here("/spec/monitoring/budget")
                )
            },
        })
    }

    /// USD, for a book with no spec (`gpuform sizes`).
    pub fn usd(at: &str) -> Want {
        Want {
            currency: Currency::USD,
            at: at.to_string(),
        }
    }
}

/// The price book of one run, and what the estimate should say about it.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub book: PriceBook,
    /// Where the prices came from (refresh, cache), the rate used: the estimate's notes.
    pub notes: Vec<String>,
    /// The spec's currency and where it is written.
    pub want: Want,
    /// Set when the spec wants another currency than the book could price in (no price in it
    /// was given): why, and what to run. The book is then the embedded USD one.
    pub fallback: Option<String>,
}

/// One price document (a file or an answer) split by currency.
struct Doc {
    /// `the prices file X` / `the Retail Prices API answer`.
    what: String,
    name: String,
    id: String,
    as_of: String,
    /// Its pages in the wanted currency.
    pages: Vec<Page>,
    /// Its USD pages beside them (when the wanted currency is not USD): the rate's meters.
    usd: Vec<Page>,
}

fn mixed_file(what: &str, found: Currency, page: usize, want: &Want) -> Failure {
    Failure::usage(format!(
        "{what} is in {found} (page {page}), but the spec prices in {} ({})",
        want.currency, want.at
    ))
    .cause("gpuform never mixes currencies: every price, total, budget and gate of a run is in one")
    .help(if want.currency.is_usd() {
        format!(
            "fetch the file without {}, or set monitoring.budget.currency: {found} in the spec to price in {found}",
            retail_prices::CURRENCY_PARAMETER
        )
    } else {
        format!(
            "fetch the file in {0} (...?{1}='{0}'&$filter=...), or let gpuform fetch it: `gpuform cost SPEC --refresh-prices` asks the API in {0}",
            want.currency,
            retail_prices::CURRENCY_PARAMETER
        )
    })
}

/// Read one document's pages and keep those in `want` (and USD beside them).
fn split_doc(what: &str, pages: &[Page], want: &Want) -> Result<(Vec<Page>, Vec<Page>), Failure> {
    let by = retail::split(pages)
        .map_err(|e| Failure::from_error(ExitCode::Usage, format!("cannot use {what}"), &e))?;
    for (c, _, first) in &by.groups {
        if *c != want.currency && !(c.is_usd() && by.currencies().contains(&want.currency)) {
            return Err(mixed_file(what, *c, *first, want));
        }
    }
    let usd = if want.currency.is_usd() {
        Vec::new()
    } else {
        by.pages(Currency::USD)
    };
    Ok((by.pages(want.currency), usd))
}

fn read_file_doc(path: &Path, i: usize, n: usize, want: &Want) -> Result<Doc, Failure> {
    let what = format!("the prices file {}", path.display());
    let text = read_input(path, crate::io::limits::PRICES, "the prices file")?;
    let doc = retail::parse_document(&text).map_err(|e| {
        Failure::from_error(ExitCode::Usage, format!("cannot use {what}"), &e)
            .help("give Azure Retail Prices API JSON: {\"Items\": [...]} as the Retail Prices API returns it, or an array of such pages")
    })?;
    let (as_of, how) = match &doc.fetched_at {
        Some(t) => (t.clone(), "fetched"),
        None => (file_date(path), "file modified"),
    };
    let (pages, usd) = split_doc(&what, &doc.pages, want)?;
    Ok(Doc {
        name: format!(
            "prices file {} (Retail Prices API JSON in {}, {how} {})",
            path.display(),
            want.currency,
            as_of.get(..10).unwrap_or(&as_of)
        ),
        what,
        id: if n == 1 {
            "prices-file".to_string()
        } else {
            format!("prices-file-{}", i + 1)
        },
        as_of,
        pages,
        usd,
    })
}

/// The sizes whose prices matter for a spec: its size and every catalog size that could serve
/// the workload at the narrowest precision the levers try (vmSize: auto ranks among these).
fn sizes_to_price(spec: &Spec) -> Vec<String> {
    let s = &spec.spec;
    let driver = sizing::DriverChoice::of(&s.compute);
    let mut wl = s.workload.clone();
    if let Some(p) = wl.precision {
        wl.gpu_memory_gib *= (1.0 / p.bytes_per_param()).min(1.0);
    }
    let mut v: Vec<String> = catalog::sizes()
        .iter()
        .filter(|z| sizing::rejection(z, &wl, &driver).is_none())
        .map(|z| z.name.clone())
        .collect();
    if let Some(z) = catalog::find(&s.compute.vm_size) {
        v.push(z.name.clone());
    }
    v.sort();
    v.dedup();
    v
}

/// Gather the prices of one run in the spec's currency: `files` in order, then the API with
/// `refresh`; the rate from a document holding the same meters in USD; disks for the spec's
/// region.
pub fn gather(
    spec: &Spec,
    want: Want,
    files: &[PathBuf],
    refresh: Option<&Refresh>,
) -> Result<Gathered, Failure> {
    let mut docs = Vec::new();
    for (i, path) in files.iter().enumerate() {
        docs.push(read_file_doc(path, i, files.len(), &want)?);
    }
    let mut notes = Vec::new();
    match refresh {
        // the global API has no Azure China prices: asking it would only convert global ones
        Some(_) if spec.spec.effective_cloud() == Cloud::AzureChinaCloud => notes.push(format!(
            "--refresh-prices did not ask the Retail Prices API: {}; Azure operated by 21Vianet has its own price list in CNY (not a conversion of the global prices), published as a CSV behind {} whose columns Microsoft does not document, so gpuform reads none of it",
            retail_prices::COMMERCIAL_ONLY,
            retail_prices::CHINA_PRICE_SHEET
        )),
        Some(r) => docs.push(refresh_doc(r, spec, &want, &mut notes)?),
        None => {}
    }
    let given = docs.iter().any(|d| !d.pages.is_empty());
    let fallback = (!want.currency.is_usd() && !given).then(|| no_prices_in(&want));
    let currency = if fallback.is_some() {
        Currency::USD
    } else {
        want.currency
    };
    let mut book = PriceBook::in_currency(currency);
    if !currency.is_usd() {
        // the newest document holding the same meters in both currencies gives the rate
        let found = docs
            .iter()
            .rev()
            .find_map(|d| retail::rate(&d.pages, &d.usd).map(|r| (d, r)));
        match found {
            Some((d, r)) => {
                let rate = Rate {
                    per_usd: r.per_usd,
                    to: currency,
                    source: format!(
                        "the Retail Prices API's own answer, {}: the median ratio of {} meter{} priced in both {} and USD",
                        d.what.trim_start_matches("the "),
                        r.meters,
                        if r.meters == 1 { "" } else { "s" },
                        currency,
                    ),
                    as_of: d.as_of.clone(),
                };
                notes.push(format!(
                    "prices in {currency}; figures only the embedded (USD) tables have are {}; {} (the meters' {currency}/USD ratios range {:.4} to {:.4})",
                    rate.describe(),
                    retail_prices::CONVERSION_RULE,
                    r.spread.0,
                    r.spread.1
                ));
                book.set_rate(rate).expect("the rate is in the book's currency");
            }
            None => notes.push(format!(
                "prices in {currency} from the files given; no source gave a USD → {currency} rate, so figures only the embedded (USD) tables have are missing (a file with the same meters in USD beside them, or `--refresh-prices`, gives the rate)"
            )),
        }
    }
    let mut parsed_all = Vec::new();
    for d in &docs {
        if d.pages.is_empty() {
            continue;
        }
        let p = retail::build(&d.pages, &d.name, &d.as_of, currency).map_err(|e| {
            Failure::from_error(ExitCode::Usage, format!("cannot use {}", d.what), &e)
        })?;
        book.add_overlay(Overlay {
            id: d.id.clone(),
            name: d.name.clone(),
            as_of: d.as_of.clone(),
            table: p.vm.clone(),
        })
        .map_err(|e| Failure::from_error(ExitCode::Usage, format!("cannot use {}", d.what), &e))?;
        let src = FixedSource {
            id: format!("{}-disks", d.id),
            name: format!("{}: managed disk prices", d.name),
            as_of: d.as_of.clone(),
            confidence: if d.id == "retail-api" {
                "live".into()
            } else {
                "as supplied".into()
            },
            note: format!(
                "{} items read, {} VM prices, {} ignored",
                p.items,
                p.vm_prices(),
                p.ignored
            ),
        };
        parsed_all.push((p, src));
    }
    for (p, src) in &parsed_all {
        book.add_disks(p, &spec.spec.region, src.clone())
            .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot use the disk prices", &e))?;
    }
    if let Some(f) = &fallback {
        notes.insert(0, f.clone());
    }
    Ok(Gathered {
        book,
        notes,
        want,
        fallback,
    })
}

/// Why a spec in another currency than USD is priced in USD, and what to run.
fn no_prices_in(want: &Want) -> String {
    format!(
        "the spec prices in {0} ({1}), but no price in {0} was given and gpuform has no dated USD → {0} rate offline: these figures are the embedded USD prices, and nothing is compared with the budget or gated in {0}. \
`gpuform cost SPEC --refresh-prices` asks the Retail Prices API in {0} (and for the rate, from the same meters in USD); `--prices FILE` takes Retail Prices API JSON fetched with {2}='{0}'",
        want.currency,
        want.at,
        retail_prices::CURRENCY_PARAMETER
    )
}

/// Read prices for a command without a spec (`gpuform sizes`): the files' own currency (all of
/// them in one), USD without files.
pub fn load_files(paths: &[PathBuf]) -> Result<PriceBook, Failure> {
    let mut currency: Option<(Currency, String)> = None;
    let mut docs = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let text = read_input(path, crate::io::limits::PRICES, "the prices file")?;
        let what = format!("the prices file {}", path.display());
        let doc = retail::parse_document(&text)
            .map_err(|e| Failure::from_error(ExitCode::Usage, format!("cannot use {what}"), &e))?;
        let by = retail::split(&doc.pages)
            .map_err(|e| Failure::from_error(ExitCode::Usage, format!("cannot use {what}"), &e))?;
        let first = by
            .currencies()
            .into_iter()
            .find(|c| !c.is_usd())
            .or(by.currencies().first().copied());
        if let Some(c) = first {
            match &currency {
                None => currency = Some((c, what.clone())),
                Some((prev, at)) if *prev != c => {
                    return Err(mixed_file(
                        &what,
                        c,
                        0,
                        &Want {
                            currency: *prev,
                            at: at.clone(),
                        },
                    ));
                }
                _ => {}
            }
        }
        docs.push((i, path.clone(), doc));
    }
    let want = match currency {
        Some((c, at)) => Want { currency: c, at },
        None => Want::usd("no prices file"),
    };
    let mut book = PriceBook::in_currency(want.currency);
    for (i, path, _) in &docs {
        let d = read_file_doc(path, *i, paths.len(), &want)?;
        if !want.currency.is_usd()
            && let Some(r) = retail::rate(&d.pages, &d.usd)
        {
            let _ = book.set_rate(Rate {
                per_usd: r.per_usd,
                to: want.currency,
                source: format!("the Retail Prices API's own answer in {}", path.display()),
                as_of: d.as_of.clone(),
            });
        }
        let p = retail::build(&d.pages, &d.name, &d.as_of, want.currency).map_err(|e| {
            Failure::from_error(ExitCode::Usage, format!("cannot use {}", d.what), &e)
        })?;
        book.add_overlay(Overlay {
            id: d.id,
            name: d.name,
            as_of: d.as_of,
            table: p.vm,
        })
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot use the prices files", &e))?;
    }
    Ok(book)
}

/// `--refresh-prices`: fresh cache, or the API, or (when the API fails) an older cache; the
/// answer as a document in the wanted currency (with its USD meters for the rate).
fn refresh_doc(
    args: &Refresh,
    spec: &Spec,
    want: &Want,
    notes: &mut Vec<String>,
) -> Result<Doc, Failure> {
    let endpoint = url::Url::parse(&args.endpoint).map_err(|e| {
        Failure::usage(format!(
            "--prices-endpoint {:?} is not a URL: {e}",
            args.endpoint
        ))
    })?;
    let currency = want.currency;
    let region = spec.spec.region.to_ascii_lowercase();
    let skus = sizes_to_price(spec);
    let filters = fetch::filters(&region, &skus);
    let dir = args
        .cache_dir
        .clone()
        .or_else(fetch::default_cache_dir)
        .ok_or_else(|| {
            Failure::usage("no cache directory: set --cache-dir, XDG_CACHE_HOME or HOME")
        })?;
    let path = fetch::cache_path(&dir, &region, &endpoint, &filters, currency);
    let cached = fetch::read_cache(&path).filter(|c| c.currency == currency);
    let now = now_rfc3339();
    let age_h = |c: &fetch::CacheDoc| -> Option<f64> {
        let a = time::OffsetDateTime::parse(
            &c.fetched_at,
            &time::format_description::well_known::Rfc3339,
        )
        .ok()?;
        let n = time::OffsetDateTime::parse(&now, &time::format_description::well_known::Rfc3339)
            .ok()?;
        Some((n - a).as_seconds_f64() / 3600.0)
    };
    let doc = match cached
        .as_ref()
        .filter(|c| age_h(c).is_some_and(|h| h >= 0.0 && h < args.max_age))
    {
        Some(c) => {
            notes.push(format!(
                "prices from the cache {} (fetched {}, younger than --prices-max-age {} h)",
                path.display(),
                c.fetched_at,
                args.max_age
            ));
            c.clone()
        }
        None => {
            let opts = FetchOptions::new(endpoint.clone());
            let http = HttpSettings {
                timeout: seconds("--timeout", args.timeout)?,
                max_retries: args.retries,
                initial_delay: Duration::from_millis(args.retry_delay_ms),
                ..HttpSettings::default()
            };
            let client = http.pipeline(None);
            let fetched =
                runtime()?.block_on(fetch::fetch_all(&client, &opts, &filters, &now, currency));
            match fetched {
                Ok(doc) => {
                    let asked = if currency.is_usd() {
                        String::new()
                    } else {
                        format!(" in {currency} (and the first query in USD, for the rate)")
                    };
                    match fetch::write_cache(&path, &doc) {
                        Ok(()) => notes.push(format!(
                            "prices refreshed from {}{asked} at {} ({} pages) and cached in {} (`--prices` takes that file)",
                            endpoint,
                            doc.fetched_at,
                            doc.pages.len(),
                            path.display()
                        )),
                        Err(e) => notes.push(format!(
                            "prices refreshed from {}{asked} at {}; could not cache them in {}: {e}",
                            endpoint,
                            doc.fetched_at,
                            path.display()
                        )),
                    }
                    doc
                }
                Err(e) => {
                    let err = Failure::from_error(
                        ExitCode::Usage,
                        format!("cannot refresh prices from {endpoint}"),
                        &e,
                    );
                    match cached {
                        Some(c) => {
                            let mut w = format!("warning: {}", err.message);
                            for c in &err.causes {
                                w.push_str(&format!(": {c}"));
                            }
                            eprintln!("{w}\nwarning: using the older cached prices fetched {} from {}", c.fetched_at, path.display());
                            notes.push(format!("the price refresh failed; prices from the cache {} fetched {}", path.display(), c.fetched_at));
                            c
                        }
                        None => return Err(err.help("check the network, or price offline with --prices FILE (the embedded table is used without either flag)")),
                    }
                }
            }
        }
    };
    let text = serde_json::to_string(&doc).expect("json");
    let pages = retail::parse_document(&text)
        .map_err(|e| Failure::from_error(ExitCode::Usage, "the fetched prices do not parse", &e))?
        .pages;
    let what = format!("the Retail Prices API answer of {}", doc.fetched_at);
    let (pages, usd) = split_doc(&what, &pages, want)?;
    Ok(Doc {
        name: format!(
            "Azure Retail Prices API {} (api-version {}, {}, fetched {})",
            doc.endpoint, doc.api_version, currency, doc.fetched_at
        ),
        what,
        id: "retail-api".into(),
        as_of: doc.fetched_at.clone(),
        pages,
        usd,
    })
}

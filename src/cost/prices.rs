//! The prices an estimate uses beyond the embedded table: `--prices` files (Retail Prices API
//! JSON) and `--refresh-prices` (the public API, cached), each layered into the price book.

use std::path::PathBuf;
use std::time::Duration;

use crate::azure::HttpSettings;
use crate::catalog;
use crate::diag::failure::{ExitCode, Failure, read_input, runtime, seconds};
use crate::sizing;
use crate::spec::model::Spec;

use super::book::{Overlay, PriceBook};
use super::clock::{file_date, now_rfc3339};
use super::fetch::{self, FetchOptions};
use super::fixed::FixedSource;
use super::retail::{self, Parsed};

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

/// Read `--prices` files into a price book (VM prices layered in order) and keep their parsed
/// contents for the disk prices of the spec's region.
pub fn load_files(paths: &[PathBuf]) -> Result<(PriceBook, Vec<(Parsed, FixedSource)>), Failure> {
    let mut book = PriceBook::embedded();
    let mut parsed = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let text = read_input(path, crate::io::limits::PRICES, "the prices file")?;
        let doc = retail::parse_document(&text).map_err(|e| {
            Failure::from_error(ExitCode::Usage, format!("cannot use the prices file {}", path.display()), &e)
                .help(format!("give Azure Retail Prices API JSON: {{\"Items\": [...]}} as {} returns it, or an array of such pages", crate::facts::prices::RETAIL_PRICES_ENDPOINT))
        })?;
        let (as_of, how) = match &doc.fetched_at {
            Some(t) => (t.clone(), "fetched"),
            None => (file_date(path), "file modified"),
        };
        let name = format!(
            "prices file {} (Retail Prices API JSON, {how} {})",
            path.display(),
            as_of.get(..10).unwrap_or(&as_of)
        );
        let p = retail::build(&doc.pages, &name, &as_of).map_err(|e| {
            Failure::from_error(
                ExitCode::Usage,
                format!("cannot use the prices file {}", path.display()),
                &e,
            )
        })?;
        let id = if paths.len() == 1 {
            "prices-file".to_string()
        } else {
            format!("prices-file-{}", i + 1)
        };
        book.add_overlay(Overlay {
            id: id.clone(),
            name: name.clone(),
            as_of: as_of.clone(),
            table: p.vm.clone(),
        });
        let src = FixedSource {
            id: format!("{id}-disks"),
            name: format!("{name}: managed disk prices"),
            as_of: as_of.clone(),
            confidence: "as supplied".into(),
            note: format!(
                "{} items read, {} VM prices, {} ignored",
                p.items,
                p.vm_prices(),
                p.ignored
            ),
        };
        parsed.push((p, src));
    }
    Ok((book, parsed))
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
    if catalog::find(&s.compute.vm_size).is_some() {
        v.push(catalog::find(&s.compute.vm_size).unwrap().name.clone());
    }
    v.sort();
    v.dedup();
    v
}

/// `--refresh-prices`: fresh cache, or the API, or (when the API fails) an older cache.
pub fn refresh(
    args: &Refresh,
    spec: &Spec,
    book: &mut PriceBook,
    notes: &mut Vec<String>,
) -> Result<Parsed, Failure> {
    let endpoint = url::Url::parse(&args.endpoint).map_err(|e| {
        Failure::usage(format!(
            "--prices-endpoint {:?} is not a URL: {e}",
            args.endpoint
        ))
    })?;
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
    let path = fetch::cache_path(&dir, &region, &endpoint, &filters);
    let cached = fetch::read_cache(&path);
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
            let fetched = runtime()?.block_on(fetch::fetch_all(&client, &opts, &filters, &now));
            match fetched {
                Ok(doc) => {
                    match fetch::write_cache(&path, &doc) {
                        Ok(()) => notes.push(format!(
                            "prices refreshed from {} at {} ({} pages) and cached in {}",
                            endpoint,
                            doc.fetched_at,
                            doc.pages.len(),
                            path.display()
                        )),
                        Err(e) => notes.push(format!(
                            "prices refreshed from {} at {}; could not cache them in {}: {e}",
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
    let name = format!(
        "Azure Retail Prices API {} (api-version {}, fetched {})",
        doc.endpoint, doc.api_version, doc.fetched_at
    );
    let parsed = retail::build(&pages, &name, &doc.fetched_at)
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot use the fetched prices", &e))?;
    book.add_overlay(Overlay {
        id: "retail-api".into(),
        name,
        as_of: doc.fetched_at.clone(),
        table: parsed.vm.clone(),
    });
    Ok(parsed)
}

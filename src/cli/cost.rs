//! `gpuform cost SPEC`: the monthly estimate of a spec's scaling policy, its saving levers and
//! the budget gates. Exit codes: 0 estimate printed (gates passed), 1 a gate failed, 2 usage or
//! I/O error (including a gate that cannot be decided because prices are missing).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;

use super::azure_args::runtime;
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of, read_input, styled};
use crate::azure::HttpSettings;
use crate::catalog::{self, prices::PriceTable};
use crate::cost::fetch::{self, FetchOptions};
use crate::cost::fixed::FixedSource;
use crate::cost::gates::{self, Gate};
use crate::cost::retail::{self, Parsed};
use crate::cost::{self, Options, Overlay, PriceBook, format};
use crate::plan::Plan;
use crate::sizing;
use crate::spec::model::Spec;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(alias = "table")]
    Text,
    Json,
    Markdown,
}

/// Price table flags, shared with `gpuform sizes` so both rank sizes with the same prices.
#[derive(Debug, Clone, clap::Args)]
pub struct PriceArgs {
    /// Azure Retail Prices API JSON (one page, an array of pages, or a gpuform cache file) whose
    /// prices replace the embedded ones; repeatable. Windows, spot, reservation and managed disk
    /// rows are recognised.
    #[arg(long, value_name = "FILE")]
    pub prices: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec to price.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Output: a table for people, JSON (amounts in US dollars), or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub prices: PriceArgs,
    /// Query the public Azure Retail Prices API for the spec's region and sizes (cached with its
    /// fetch date; no credentials needed).
    #[arg(long)]
    pub refresh_prices: bool,
    /// Retail Prices API endpoint (for mirrors and tests).
    #[arg(long, value_name = "URL", default_value = fetch::DEFAULT_ENDPOINT)]
    pub prices_endpoint: String,
    /// Where --refresh-prices caches answers (default $XDG_CACHE_HOME/gpuform or ~/.cache/gpuform).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Reuse cached prices younger than this many hours instead of querying again (0: always query).
    #[arg(long, value_name = "HOURS", default_value_t = 24.0)]
    pub prices_max_age: f64,
    /// Seconds each HTTP try of --refresh-prices may take, body included (as for preflight/deploy).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Retries per --refresh-prices request after throttling (429, honouring Retry-After), 5xx,
    /// timeouts and dropped connections; DNS failures and refused connections are not retried.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// First retry back-off of --refresh-prices in milliseconds (doubles per retry).
    #[arg(long, value_name = "MS", default_value_t = 800, hide = true)]
    pub prices_retry_delay_ms: u64,
    /// Exit 1 when the expected monthly cost (USD) exceeds AMOUNT.
    #[arg(long, value_name = "AMOUNT")]
    pub fail_above: Option<f64>,
    /// A previous `gpuform cost --format json` output to compare with (for pull requests).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Exit 1 when the expected cost grew more than N percent over --baseline.
    #[arg(long, value_name = "N", requires = "baseline")]
    pub fail_increase_percent: Option<f64>,
    /// Share (0-100) of the headroom between each profile's default count and its max that the
    /// expected case adds (0: the pool holds its default count).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0)]
    pub expected_utilization: f64,
    /// Log Analytics ingestion assumed, in GB per day.
    #[arg(long, value_name = "GB", default_value_t = 0.2)]
    pub log_gb_per_day: f64,
    /// Data through the NAT gateway assumed, in GB per month.
    #[arg(long, value_name = "GB", default_value_t = 100.0)]
    pub nat_gb: f64,
    /// Key Vault operations assumed per month.
    #[arg(long, value_name = "N", default_value_t = 10_000.0)]
    pub key_vault_ops: f64,
    /// Queue (Service Bus or storage) operations assumed per month.
    #[arg(long, value_name = "N", default_value_t = 1_000_000.0)]
    pub queue_ops: f64,
    /// Price the instance-hours `gpuform simulate` measures on this trace (CSV or `az monitor
    /// metrics list` JSON) as the expected case.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// With --trace: how long one job takes (ISO 8601; overrides workload.jobDuration).
    #[arg(long, value_name = "DURATION", requires = "trace")]
    pub job_duration: Option<String>,
    /// With --trace: from scale-out until a new VM serves (ISO 8601; overrides the family default).
    #[arg(long, value_name = "DURATION", requires = "trace")]
    pub provisioning: Option<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Today as `YYYY-MM-DD` (`GPUFORM_TODAY` pins it for reproducible output).
pub fn today() -> String {
    if let Ok(t) = std::env::var("GPUFORM_TODAY")
        && !t.is_empty()
    {
        return t;
    }
    let d = time::OffsetDateTime::now_utc().date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn now_rfc3339() -> String {
    if let Ok(t) = std::env::var("GPUFORM_TODAY")
        && !t.is_empty()
    {
        return format!("{t}T00:00:00Z");
    }
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .map(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

fn file_date(path: &Path) -> String {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map(|t| {
            let d = time::OffsetDateTime::from(t).date();
            format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
        })
        .unwrap_or_default()
}

fn non_negative(name: &str, v: f64) -> Result<(), Failure> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(Failure::usage(format!(
            "{name} must be a non-negative number (got {v})"
        )))
    }
}

/// Read `--prices` files into a price book (VM prices layered in order) and keep their parsed
/// contents for the disk prices of the spec's region.
pub fn load_price_files(
    args: &PriceArgs,
) -> Result<(PriceBook, Vec<(Parsed, FixedSource)>), Failure> {
    let mut book = PriceBook::embedded();
    let mut parsed = Vec::new();
    for (i, path) in args.prices.iter().enumerate() {
        let text = read_input(path, crate::io::limits::PRICES, "the prices file")?;
        let doc = retail::parse_document(&text).map_err(|e| {
            Failure::from_error(ExitCode::Usage, format!("cannot use the prices file {}", path.display()), &e)
                .help("give Azure Retail Prices API JSON: {\"Items\": [...]} as https://prices.azure.com/api/retail/prices returns it, or an array of such pages")
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
        let id = if args.prices.len() == 1 {
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
fn refresh(
    args: &Args,
    spec: &Spec,
    book: &mut PriceBook,
    notes: &mut Vec<String>,
) -> Result<Parsed, Failure> {
    let endpoint = url::Url::parse(&args.prices_endpoint).map_err(|e| {
        Failure::usage(format!(
            "--prices-endpoint {:?} is not a URL: {e}",
            args.prices_endpoint
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
        .filter(|c| age_h(c).is_some_and(|h| h >= 0.0 && h < args.prices_max_age))
    {
        Some(c) => {
            notes.push(format!(
                "prices from the cache {} (fetched {}, younger than --prices-max-age {} h)",
                path.display(),
                c.fetched_at,
                args.prices_max_age
            ));
            c.clone()
        }
        None => {
            let opts = FetchOptions::new(endpoint.clone());
            let http = HttpSettings {
                timeout: super::azure_args::seconds("--timeout", args.timeout)?,
                max_retries: args.retries,
                initial_delay: Duration::from_millis(args.prices_retry_delay_ms),
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

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    for (n, v) in [
        ("--log-gb-per-day", args.log_gb_per_day),
        ("--nat-gb", args.nat_gb),
        ("--key-vault-ops", args.key_vault_ops),
        ("--queue-ops", args.queue_ops),
        ("--prices-max-age", args.prices_max_age),
    ] {
        non_negative(n, v)?;
    }
    if !(0.0..=100.0).contains(&args.expected_utilization) {
        return Err(Failure::usage(format!(
            "--expected-utilization is a percentage from 0 to 100 (got {})",
            args.expected_utilization
        )));
    }
    if let Some(a) = args.fail_above {
        non_negative("--fail-above", a)?;
    }
    if let Some(a) = args.fail_increase_percent
        && !a.is_finite()
    {
        return Err(Failure::usage("--fail-increase-percent must be a number"));
    }
    let policy = args.policy.load()?;
    let (mut book, mut parsed) = load_price_files(&args.prices)?;
    let mut notes = Vec::new();

    if args.refresh_prices {
        // the region and workload decide which prices to fetch: read the spec once quietly
        let pre = crate::spec::check_file(&args.spec, &policy, PriceTable::embedded());
        if let Some(spec) = pre.spec.as_ref() {
            let p = refresh(&args, spec, &mut book, &mut notes)?;
            let src = FixedSource {
                id: "retail-api-disks".into(),
                name: "Azure Retail Prices API: managed disk prices".into(),
                as_of: p
                    .vm
                    .sources
                    .first()
                    .map(|s| s.as_of.clone())
                    .unwrap_or_else(now_rfc3339),
                confidence: "live".into(),
                note: format!("{} items read", p.items),
            };
            parsed.push((p, src));
        }
    }

    // vmSize: auto ranks with the embedded table, as in render: price the size render emits
    // (a lever says what auto would pick with the --prices/--refresh-prices figures)
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{} could not be read", args.spec.display())))?;
    let size = checked.size().ok_or_else(|| {
        Failure::usage(format!(
            "{}: vmSize {} is not in gpuform's catalog; nothing to price",
            args.spec.display(),
            spec.spec.compute.vm_size
        ))
    })?;
    for (p, src) in &parsed {
        book.add_disks(p, &spec.spec.region, src.clone());
    }
    // price exactly what render emits
    let plan = plan_of(&checked, &args.spec, ExitCode::Usage)?;

    let simulated = match &args.trace {
        None => None,
        Some(trace) => Some(simulated_hours(&args, trace, &checked, &plan, spec, size)?),
    };
    let opts = Options {
        expected_utilization_percent: args.expected_utilization,
        log_gb_per_day: args.log_gb_per_day,
        nat_gb_per_month: args.nat_gb,
        key_vault_operations_per_month: args.key_vault_ops,
        queue_operations_per_month: args.queue_ops,
        today: today(),
        simulated,
    };
    let mut est = cost::estimate(
        spec,
        &plan,
        &args.spec.display().to_string(),
        size,
        checked.auto_sized,
        &book,
        &opts,
    );
    if let Some(sel) = checked.sizing.as_ref().filter(|_| checked.auto_sized) {
        notes.push(format!(
            "vmSize: auto chose {} as render does, ranked with the embedded price table ({} pay-as-you-go in {}{}){}",
            size.name,
            retail::os_label(sel.price_os),
            sel.price_region,
            sel.price_as_of.as_deref().map(|d| format!(", as of {d}")).unwrap_or_default(),
            sel.note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()
        ));
    }
    est.notes.splice(0..0, notes);

    let mut baseline_complete = true;
    let diff = match &args.baseline {
        Some(path) => {
            let text = read_input(path, crate::io::limits::BASELINE, "the baseline")?;
            let base = gates::read_baseline(&text).map_err(|e| {
                Failure::from_error(
                    ExitCode::Usage,
                    format!("cannot use the baseline {}", path.display()),
                    &e,
                )
            })?;
            baseline_complete = base.totals.decidable();
            // a baseline of another spec compares apples with pears: say so (issue 10, item 17)
            if base.spec != est.spec || !base.region.eq_ignore_ascii_case(&est.region) {
                let w = format!(
                    "the baseline {} is the estimate of spec `{}` in {}, not of `{}` in {}: the comparison is between different specs",
                    path.display(),
                    base.spec,
                    base.region,
                    est.spec,
                    est.region
                );
                eprintln!("warning: {w}");
                est.notes.push(w);
            }
            Some(gates::diff(&base, &path.display().to_string(), &est))
        }
        None => None,
    };
    let mut results: Vec<Gate> = Vec::new();
    if let Some(limit) = args.fail_above {
        results.push(gates::fail_above(&est, limit));
    }
    if let (Some(n), Some(d)) = (args.fail_increase_percent, diff.as_ref()) {
        results.push(gates::fail_increase(
            d,
            n,
            est.totals.decidable(),
            baseline_complete,
        ));
    }

    let text = match args.format {
        Format::Text => format::table(&est, diff.as_ref(), &results, styled()),
        Format::Markdown => format::markdown(&est, diff.as_ref(), &results),
        Format::Json => format::json(&est, diff.as_ref(), &results),
    };
    out(&text);

    if let Some(b) = est.budget.as_ref().filter(|b| b.status == "over") {
        eprintln!("warning: {}", b.message);
    }
    // a failed gate (even on a lower bound) is a finding; otherwise an undecided one is exit 2
    if results.iter().any(Gate::failed) {
        for g in results.iter().filter(|g| g.failed()) {
            eprintln!("error: cost gate {} failed: {}", g.name, g.message);
        }
        return Ok(ExitCode::Findings);
    }
    if results.iter().any(Gate::undecided) {
        let names: Vec<&str> = results
            .iter()
            .filter(|g| g.undecided())
            .map(|g| g.name.as_str())
            .collect();
        if !est.totals.expected_known {
            return Err(Failure::usage(format!(
                "cannot decide the cost gate{} {}: the expected cost is unknown",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ))
            .cause(est.totals.expected_unknown.clone().unwrap_or_default())
            .help(format!(
                "`gpuform simulate {0} --trace FILE` replays your queue; then `gpuform cost {0} --trace FILE ...` decides the gate (or --expected-utilization PERCENT)",
                args.spec.display()
            )));
        }
        let mut what: Vec<String> = est.missing.iter().map(|m| m.price.clone()).collect();
        if !baseline_complete {
            what.push(
                "the baseline estimate is missing prices, or its expected cost is unknown".into(),
            );
        }
        return Err(Failure::usage(format!(
            "cannot decide the cost gate{} {}: the estimate is missing prices",
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ))
        .cause(what.join("; "))
        .help("supply them with --prices FILE or --refresh-prices"));
    }
    Ok(ExitCode::Ok)
}

/// `--trace`: replay the trace through the rendered autoscale setting (as `gpuform simulate`
/// does, with its defaults) and return the monthly instance-hours it measured.
fn simulated_hours(
    args: &Args,
    trace: &Path,
    checked: &crate::spec::Checked,
    plan: &Plan,
    spec: &Spec,
    size: &crate::catalog::GpuSize,
) -> Result<cost::SimulatedHours, Failure> {
    use super::simulate::{LoadArgs, prepare};
    let super::simulate::Prepared {
        workload,
        trace,
        settings,
        ..
    } = prepare(
        checked,
        plan,
        &LoadArgs {
            pulled: None,
            spec: &args.spec,
            trace: Some(trace),
            synthetic: false,
            seed: 1,
            days: 7,
            start: "",
            entity: None,
            telemetry: None,
            job_duration: args.job_duration.as_deref(),
            provisioning: args.provisioning.as_deref(),
            concurrency: None,
            spot_evictions_per_hour: None,
            wait_p95: "PT10M",
            choices: Default::default(),
            policy: &args.policy,
        },
    )?;
    let setting = crate::simulate::setting(plan, spec)
        .map_err(|e| Failure::usage(format!("{}: {e}", args.spec.display())))?;
    let _ = size;
    let o = crate::simulate::engine::run(&crate::simulate::engine::Run {
        setting: &setting,
        trace: &trace,
        workload: &workload,
        priority: &crate::simulate::priority(plan, spec),
        choices: settings.choices,
        seed: settings.seed,
        record: false,
    });
    Ok(crate::simulate::monthly_hours(&o))
}

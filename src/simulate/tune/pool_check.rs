//! The joint search over the standby pool's size and the policy ([`super::pool`]) against an
//! exhaustive enumeration: at every pool size, every point of a grid (and the spec's own
//! policy) scored in the nominal model, and those that meet the target checked under the same
//! model variants, cheapest first, with no pruning (no binary search, no caps carried from a
//! larger pool, every aggregation). The search must find, at every size, a policy no dearer
//! than the enumeration's cheapest, and overall a (size, policy) no dearer than the cheapest
//! of all.
//!
//! The fast test runs a small grid on one day; `exhaustive_full_grid` (ignored: run it in
//! release, `cargo test --release --lib pool_check -- --ignored --nocapture`) runs the
//! search's own grid on the example's synthetic week.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use super::super::load::Trace;
use super::super::prepare::{LoadArgs, prepare};
use super::super::{Input, Settings, standby};
use super::pool::{Grid, top_instances, tune_with_pool};
use super::pool_stage1::Stage1;
use super::search::{Job, Scored, Variant, cheaper, holds, score, stage2, start, variants_for};
use crate::catalog::prices::PriceTable;
use crate::cost::PriceBook;
use crate::plan::Plan;
use crate::spec::Checked;
use crate::spec::model::ScaleOutAggregation;
use crate::spec::policy::Policy;

/// What a candidate costs in the search's order: the pool's monthly cost, else instance-hours.
fn cost(s: &Scored) -> f64 {
    s.pool_monthly.unwrap_or(s.instance_hours)
}

/// A policy in a line.
fn brief(p: &super::Params) -> String {
    format!(
        "target {} step {} out {} min {:?}, in {} min, window {} min, tiers {}, min {} {:?}",
        p.target_per_instance,
        p.scale_out_step,
        p.scale_out_cooldown_minutes,
        p.scale_out_aggregation,
        p.scale_in_cooldown_minutes,
        p.time_window_minutes,
        p.scale_out_tiers.len(),
        p.capacity_min,
        p.schedule_mins
    )
}

/// Per pool size of `sizes`, the cheapest point of `grid` (or `before`) that meets the target
/// under the variants `vs` (`share`), found without pruning; and the runs it took.
fn exhaustive(
    job: &Job,
    before: &super::Params,
    eb: bool,
    vs: &[Variant],
    share: f64,
    grid: &Grid,
    sizes: &[u32],
) -> (Vec<Option<Scored>>, usize) {
    let current = job.settings.standby.clone().expect("a pool");
    // the grid's stage-1 points, the spec's policy, and stage 2 around every one of them
    let mut firsts = grid.points(before);
    if !firsts.contains(before) {
        firsts.push(before.clone());
    }
    let mut points = firsts.clone();
    if grid.stage2 {
        for f in &firsts {
            for p in stage2(f, before) {
                if !points.contains(&p) {
                    points.push(p);
                }
            }
        }
    }
    let mut runs = 0;
    let best = sizes
        .iter()
        .map(|&m| {
            let settings = Settings {
                standby: Some(current.sized(m, m)),
                ..job.settings.clone()
            };
            let j = Job {
                settings: &settings,
                ..*job
            };
            let mut meeting: Vec<Scored> = points
                .par_iter()
                .filter_map(|p| score(&j, p, eb))
                .filter(|s| s.meets)
                .collect();
            runs += points.len();
            meeting.sort_by(cheaper);
            // cheapest first: the first that holds is the cheapest that holds
            for c in meeting {
                runs += vs.len() - 1;
                if holds(&j, &c.params, eb, vs, share) {
                    return Some(c);
                }
            }
            None
        })
        .collect();
    (best, runs)
}

/// A spec, its plan and a run's settings, as `simulate` loads them.
struct Case {
    checked: Checked,
    plan: Plan,
    trace: Trace,
    workload: super::super::model::Workload,
    settings: Settings,
    policy: Policy,
}

/// The day the cases price on.
const TODAY: &str = "2026-12-01";

impl Case {
    /// The simulator's input for this case.
    fn input(&self) -> Input<'_> {
        Input {
            spec: self.checked.spec.as_ref().expect("a spec"),
            plan: &self.plan,
            size: self.checked.size().expect("a size"),
            file: "examples/batch-inference-standby.yaml",
            auto_sized: self.checked.auto_sized,
        }
    }

    /// A robust tune's job (every variant required) on this case with `settings` and `tuning`.
    fn job<'a>(
        &'a self,
        input: &'a Input<'a>,
        book: &'a PriceBook,
        settings: &'a Settings,
        tuning: super::score::Tuning<'a>,
    ) -> Job<'a> {
        Job {
            input,
            checked: &self.checked,
            policy: &self.policy,
            source: self.checked.source.as_deref().unwrap_or_default(),
            trace: &self.trace,
            workload: &self.workload,
            settings,
            book,
            today: TODAY,
            robust_share: Some(1.0),
            tuning,
        }
    }
}

/// `examples/batch-inference-standby.yaml` edited by `edit`, with `arrivals` (one per minute
/// from `start`, UTC), 2-minute jobs and a p95 target of `wait`.
fn case(edit: impl Fn(String) -> String, start: &str, arrivals: Vec<u32>, wait: &str) -> Case {
    let path = PathBuf::from("examples/batch-inference-standby.yaml");
    let text = edit(std::fs::read_to_string(&path).expect("the example"));
    let policy = Policy::default();
    let checked = crate::check::check_source(
        text,
        "examples/batch-inference-standby.yaml",
        PathBuf::from("examples"),
        &policy,
        PriceTable::embedded(),
    );
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let plan = Plan::build(&checked).expect("a plan");
    let n = arrivals.len();
    let trace = Trace {
        start: start.parse().expect("a timestamp"),
        arrivals,
        missing: vec![false; n],
        source: "test".into(),
    };
    let p = prepare(
        &checked,
        &plan,
        &LoadArgs {
            spec: &path,
            trace: None,
            pulled: Some(trace),
            synthetic: false,
            synthetic_rate: None,
            seed: 1,
            days: 1,
            start: "",
            entity: None,
            telemetry: None,
            job_duration: Some("PT2M"),
            provisioning: None,
            concurrency: None,
            spot_evictions_per_hour: None,
            wait_p95: wait,
            choices: Default::default(),
            standby_start: None,
        },
    )
    .unwrap_or_else(|f| panic!("{}", f.message));
    Case {
        checked,
        plan,
        trace: p.trace,
        workload: p.workload,
        settings: p.settings,
        policy,
    }
}

/// Arrivals over `hours` hours at `rate(hour)` jobs a minute (hours counted from the trace's
/// start), spread evenly (no randomness).
fn arrivals(hours: usize, rate: impl Fn(usize) -> f64) -> Vec<u32> {
    let mut acc = 0.0;
    (0..hours * 60)
        .map(|m| {
            acc += rate(m / 60);
            let a = (acc + 1e-9f64).floor();
            acc -= a;
            a as u32
        })
        .collect()
}

/// How much dearer (a share) than the enumeration's cheapest the search may be before it counts
/// as a miss: its overall choice, and its policy at each pool size (the full grid filters the
/// per-size lines out: it only reports them).
struct Tolerance {
    overall: f64,
    per_size: f64,
}

/// The search and the enumeration on `c` with `grid`: the lines where the search is dearer than
/// `tol` allows (empty: it never is) and a summary.
fn compare(c: &Case, grid: &Grid, tol: &Tolerance) -> (Vec<String>, String) {
    let spec = c.checked.spec.as_ref().expect("a spec");
    let input = c.input();
    let book = PriceBook::embedded();
    let today = TODAY;
    let setting = super::super::setting(&c.plan, spec).expect("a setting");
    let results = super::super::simulate(
        &input,
        &setting,
        &c.trace,
        &c.workload,
        &c.settings,
        &book,
        today,
        false,
    );
    // the enumeration compares at the target itself: no margin
    let tuning = super::score::Tuning {
        margin: Some(0.0),
        ..Default::default()
    };
    let job = c.job(&input, &book, &c.settings, tuning);
    let (before, eb) = start(&job).expect("a queue policy");
    let t0 = Instant::now();
    let tuned = tune_with_pool(&job, &results, before.clone(), eb, t0, grid).expect("a tune");
    let searched_ms = t0.elapsed().as_millis();
    let search = tuned.pool_search.as_ref().expect("the joint search");
    let sizes = standby::sizes(top_instances(spec));
    let vs = variants_for(c.settings.choices, c.settings.standby.as_ref());
    let t1 = Instant::now();
    let (best, runs) = exhaustive(&job, &before, eb, &vs, 1.0, grid, &sizes);
    let enumerated_ms = t1.elapsed().as_millis();
    let mut misses = Vec::new();
    for (i, m) in sizes.iter().enumerate() {
        let row = &search.rows[i];
        let found = row.policy.as_ref().and(row.result.monthly);
        if let Some(e) = &best[i] {
            let dearer = found.is_none_or(|f| f > cost(e) * (1.0 + tol.per_size) + 1e-6);
            if dearer {
                misses.push(format!(
                    "maxReady {m}: the search {} ({}), the enumeration ${:.2} ({})",
                    found.map_or("found none".into(), |f| format!("${f:.2}")),
                    row.policy.as_ref().map_or(String::new(), brief),
                    cost(e),
                    brief(&e.params)
                ));
            }
        }
    }
    let overall = best
        .iter()
        .flatten()
        .map(cost)
        .fold(f64::INFINITY, f64::min);
    let chosen = search
        .chosen_max_ready
        .and_then(|m| sizes.iter().position(|s| *s == m))
        .and_then(|i| search.rows[i].result.monthly);
    if overall.is_finite() && chosen.is_none_or(|c| c > overall * (1.0 + tol.overall) + 1e-6) {
        misses.push(format!(
            "chosen: the search {:?}, the enumeration's cheapest ${overall:.2}",
            chosen
        ));
    }
    let summary = format!(
        "search: {} runs in {searched_ms} ms, chosen maxReady {:?} at {:?}; enumeration: {runs} runs in {enumerated_ms} ms, cheapest ${overall:.2}",
        search.runs, search.chosen_max_ready, chosen
    );
    (misses, summary)
}

/// The small grid of the fast tests: 24 stage-1 points and stage 2 around each.
fn small() -> Grid {
    Grid::of(
        &[1, 2, 4],
        &[1, 3],
        &[1, 5],
        &[ScaleOutAggregation::Average],
        &[5, 10],
        true,
    )
}

/// Up to 3 VMs (pool sizes 0 to 3).
fn small_spec(x: String) -> String {
    x.replace("    max: 8\n", "    max: 3\n")
}

/// Six hours from 14:00 UTC: 0.1 jobs a minute, 1.2 from 18:00 to 20:00.
fn evening() -> Vec<u32> {
    arrivals(6, |h| if (4..6).contains(&h) { 1.2 } else { 0.1 })
}

const AT_14: &str = "2026-11-02T14:00:00Z";

/// The fast tests' bar: the overall choice within 2.5 % of the enumeration's cheapest, each
/// pool size's policy within 3 %. Exact (0 %) until the tune's load variant (arrivals +15 %)
/// came in; with it, measured 2026-12-04, the evening ramp's choice was $1,145.56 (pool 1)
/// against the enumeration's $1,140.11 (pool 2: target 1, scale-in cooldown 30 min, window
/// 10 min, three knobs away from the search's point), pools 2 and 3 +2.0 %; with that variant
/// also under slow provisioning, the choice is pool 2 at $1,163.20, +2.0 %; the other cases
/// exact. Tried and not kept (2026-12-04): a descent from each size's choice to the cheapest
/// neighbour that holds made all three cases exact, but on `.ci/tune-heldout`
/// (batch-inference-standby) its proposals were 0.2-0.6 % cheaper on the training week and
/// less robust on held-out weeks: at a 5-minute target and twice the load, 2 held-out misses
/// (6 minutes) where the search has none; at 10 minutes, 3 held-out cells over 10 minutes with
/// provisioning +25 % where it has none. The search's choice is the one kept.
const FAST: Tolerance = Tolerance {
    overall: 0.025,
    per_size: 0.03,
};

fn check(name: &str, c: &Case) {
    let (misses, summary) = compare(c, &small(), &FAST);
    eprintln!("{name}: {summary}");
    assert!(misses.is_empty(), "{summary}\n{}", misses.join("\n"));
}

#[test]
fn the_pool_search_finds_what_an_enumeration_finds_on_an_evening_ramp() {
    check("evening ramp", &case(small_spec, AT_14, evening(), "5m"));
}

#[test]
fn the_pool_search_finds_what_an_enumeration_finds_on_flat_load() {
    // 0.8 jobs a minute (1.6 VMs busy on average)
    let c = case(small_spec, AT_14, arrivals(6, |_| 0.8), "5m");
    check("flat load", &c);
}

#[test]
fn the_pool_search_finds_what_an_enumeration_finds_with_a_longer_target() {
    check("10 minutes", &case(small_spec, AT_14, evening(), "10m"));
}

/// The search's own grid against every stage-1 point and stage 2 around each, on the example
/// (max 8) over a week of flat and ramped load. Long even in release (about 15 min).
///
/// What it holds the search to: its overall choice within 0.5 % of the enumeration's cheapest
/// (size, policy). Per pool size it only reports where the search is dearer: measured
/// 2026-12-04 (release, 2 cores; before the load variant, arrivals +15 %, joined the robust
/// set), flat load: the choice equal to the enumeration's ($1,386.34,
/// pool 1), sizes 2-8 within $0.35, pool 0 $2,521 vs $2,118; evening ramp: the choice $1,057.65
/// (pool 2) vs $1,055.41 (pool 3, +0.2 %), sizes 3-8 within 1.3 %, pool 0 +3.2 %: the stage-1
/// binary search runs the spec's aggregation and tries the others only for the cheapest that
/// held, so a Maximum-aggregated point with a larger step can be missed. Again 2026-12-04 with
/// both load variants (the second under slow provisioning; 422 s): flat load, the choice equal
/// to the enumeration's ($1,392.01, pool 1), pool 0 none found vs $2,218.57 (Maximum); evening
/// ramp, the choice $1,057.65 (pool 2) vs $1,055.41 (pool 3, +0.2 %), sizes 1-8 within 1.3 %,
/// pool 0 +2.9 %. Then, with the other aggregations tried for every pair where none held with
/// the spec's (412 s): flat load, pool 0 found and equal to the enumeration (7,347 runs, +14 %);
/// evening ramp unchanged.
#[test]
#[ignore]
fn exhaustive_full_grid() {
    let full = Grid::full();
    let mut all = Vec::new();
    for (name, a) in [
        ("flat 0.8/min", arrivals(7 * 24, |_| 0.8)),
        (
            "evening ramp",
            arrivals(7 * 24, |h| {
                if (18..21).contains(&(h % 24)) {
                    2.0
                } else {
                    0.3
                }
            }),
        ),
    ] {
        let c = case(|x| x, "2026-11-02T00:00:00Z", a, "5m");
        let (misses, summary) = compare(
            &c,
            &full,
            &Tolerance {
                overall: 0.005,
                per_size: 0.0,
            },
        );
        eprintln!("{name}: {summary}");
        for m in &misses {
            eprintln!("  {m}");
        }
        all.extend(
            misses
                .into_iter()
                .filter(|m| m.starts_with("chosen"))
                .map(|m| format!("{name}: {m}")),
        );
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// Where no pair holds with the spec's scale-out aggregation (Average) at a 3-minute target,
/// the other aggregations are searched for every pair: before they were tried for the fastest
/// pair only, and the search reported no policy at any pool size on both cases (a 3-minute
/// target on the evening ramp and on flat load), where the enumeration finds Maximum-aggregated
/// ones ($1,180.41 and $1,770.33; measured 2026-12-04).
#[test]
fn where_the_specs_aggregation_never_holds_the_others_are_searched_for_every_pair() {
    let grid = Grid::of(
        &[1, 2, 4],
        &[1, 3],
        &[1, 5],
        &[ScaleOutAggregation::Average, ScaleOutAggregation::Maximum],
        &[5, 10],
        true,
    );
    for (name, a) in [
        ("evening ramp", evening()),
        ("flat load", arrivals(6, |_| 0.8)),
    ] {
        let (misses, summary) = compare(&case(small_spec, AT_14, a, "3m"), &grid, &FAST);
        eprintln!("{name}, 3 minutes: {summary}");
        assert!(misses.is_empty(), "{summary}\n{}", misses.join("\n"));
    }
}

/// The joint search on `c` with `grid` under the default robust criterion (the margin learned),
/// pruned as `--tune` runs it or not ([`super::score::Tuning::unpruned`]).
fn tune_case(c: &Case, grid: &Grid, unpruned: bool) -> super::search::Tuned {
    let spec = c.checked.spec.as_ref().expect("a spec");
    let input = c.input();
    let book = PriceBook::embedded();
    let today = TODAY;
    let setting = super::super::setting(&c.plan, spec).expect("a setting");
    let results = super::super::simulate(
        &input,
        &setting,
        &c.trace,
        &c.workload,
        &c.settings,
        &book,
        today,
        false,
    );
    let tuning = super::score::Tuning {
        unpruned,
        ..Default::default()
    };
    let job = c.job(&input, &book, &c.settings, tuning);
    let (before, eb) = start(&job).expect("a queue policy");
    tune_with_pool(&job, &results, before, eb, Instant::now(), grid).expect("a tune")
}

/// What a tune answers, without the counts of its work (runs, checks, time): the proposal, its
/// pool size and figures, every pool size's row, the margin and the fallback.
fn answer_of(t: &super::search::Tuned) -> serde_json::Value {
    let search = t.pool_search.as_ref().expect("the joint search");
    let rows: Vec<serde_json::Value> = search
        .rows
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).expect("a row");
            v.as_object_mut().expect("an object").remove("simulated");
            v
        })
        .collect();
    serde_json::json!({
        "chosen": search.chosen_max_ready,
        "proposal": t.best.as_ref().map(|b| serde_json::to_value(&b.params).ok()),
        "afterP95": t.best.as_ref().map(|b| b.after.wait_minutes.p95),
        "afterMonthly": t.best.as_ref().map(|b| b.after.cost.pool_monthly),
        "text": t.best.as_ref().map(|b| b.new_text.clone()),
        "rows": rows,
        "policies": t.candidates,
        "margin": t.answer.margin.as_ref().map(|m| (m.minutes, m.set_by)),
        "fallback": t.answer.fallback.as_ref().map(|f| f.text.clone()),
        "reason": t.reason,
    })
}

/// A seeded random evening of six hours: hourly rates drawn from 0.05 to 0.9 jobs a minute,
/// whole jobs a minute drawn around them (the rates, and the arrivals per minute).
fn random_evening(seed: u64) -> (Vec<f64>, Vec<u32>) {
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let rates: Vec<f64> = (0..6)
        .map(|_| 0.05 + 0.85 * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
        .collect();
    let mut acc = 0.0;
    let a: Vec<u32> = (0..6 * 60)
        .map(|m| {
            let jitter = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            acc += rates[m / 60] * (0.5 + jitter);
            let k = acc.floor();
            acc -= k;
            k as u32
        })
        .collect();
    (rates, a)
}

/// Issue 40, item 1: the pruning `--tune` does (replays shared across pool sizes, a whole replay
/// answering a stopped one, no variant check in a walk past the choice so far) changes no
/// answer: on seeded random evenings (hourly rates drawn from 0.05 to 0.9 jobs a minute, whole
/// jobs drawn around them), the pruned search and the unpruned one give the same proposal, pool
/// size, figures and rows (each run prints the runs both took).
#[test]
fn the_pruned_pool_search_answers_what_the_unpruned_one_does() {
    for seed in [1u64, 3] {
        let (rates, a) = random_evening(seed);
        let c = case(small_spec, AT_14, a, "5m");
        let pruned = tune_case(&c, &small(), false);
        let unpruned = tune_case(&c, &small(), true);
        let (x, y) = (answer_of(&pruned), answer_of(&unpruned));
        assert_eq!(x, y, "seed {seed}: rates {rates:?}");
        let runs = |t: &super::search::Tuned| t.pool_search.as_ref().map_or(0, |s| s.runs);
        eprintln!(
            "seed {seed}: chosen {:?}, runs pruned {} / unpruned {}",
            x["chosen"],
            runs(&pruned),
            runs(&unpruned)
        );
        assert!(x["chosen"].is_number(), "seed {seed}: no proposal: {x}");
    }
}

/// Issue 40, item 3: a nominal replay that stops once the goal is missed for sure
/// ([`super::score::score_or_miss`]) says whether a policy meets exactly as the whole replay
/// does, and one that does not stop gives the whole replay's figures; a stopped one made whole
/// ([`super::score::complete`]) is the whole replay. On seeded random evenings, every point of
/// the small grid and stage 2 around the spec's policy, at pool sizes 0 and 2, with a goal of a
/// fractional minute (a learned margin) and a whole one.
#[test]
fn a_nominal_replay_stopped_at_the_goal_answers_as_the_whole_one() {
    use super::score::{complete, score_or_miss};
    let (mut stopped, mut whole) = (0, 0);
    for seed in [2u64, 5] {
        let (_, a) = random_evening(seed);
        let c = case(small_spec, AT_14, a, "5m");
        let input = c.input();
        let book = PriceBook::embedded();
        for (m, margin) in [(0u32, 0.7), (2, 0.0), (2, 1.35)] {
            let settings = Settings {
                standby: c.settings.standby.as_ref().map(|s| s.sized(m, m)),
                ..c.settings.clone()
            };
            let tuning = super::score::Tuning {
                margin: Some(margin),
                ..Default::default()
            };
            let job = c.job(&input, &book, &settings, tuning);
            let (before, eb) = start(&job).expect("a queue policy");
            let mut points = small().points(&before);
            points.extend(stage2(&before, &before));
            let json = |s: &Scored| serde_json::to_value(s).expect("json");
            for p in &points {
                let Some(full) = score(&job, p, eb) else {
                    continue;
                };
                let mut quick = score_or_miss(&job, p, eb).expect("scored as the whole one");
                assert_eq!(
                    quick.meets,
                    full.meets,
                    "seed {seed}, pool {m}, {}",
                    brief(p)
                );
                if quick.missed {
                    stopped += 1;
                    assert!(quick.p95_exact.is_infinite() && !full.meets);
                    assert_eq!(complete(&job, vec![&mut quick], eb), 1);
                } else {
                    whole += 1;
                }
                assert!(!quick.missed);
                assert_eq!(
                    json(&quick),
                    json(&full),
                    "seed {seed}, pool {m}, {}",
                    brief(p)
                );
            }
        }
    }
    // both paths taken
    assert!(
        stopped > 10 && whole > 10,
        "stopped {stopped}, whole {whole}"
    );
}

/// Issue 40, item 3: stage 1 checks under the variants only what can be the cheapest
/// ([`Stage1`]): each pair's largest target that meets the goal, cheapest first, stopping at the
/// first that holds (a pair whose largest misses a variant searched below it). On the evening
/// ramp (5 and 10 minutes) and two seeded random evenings (10 minutes) it finds the cheapest of
/// the pairs' largest targets that hold (every target of every pair checked under every
/// variant), leaves each pair a cap for the next smaller pool no lower than that pair's largest
/// target that holds, and finds at most one chunk of candidates holding (each such is replayed
/// whole under every variant), where a binary search on "holds" per pair found at least one per
/// pair that holds.
#[test]
fn stage_one_checks_the_cheapest_first_and_finds_what_checking_every_pair_finds() {
    let evenings = [
        ("evening ramp", evening(), "5m"),
        ("evening ramp, 10 min", evening(), "10m"),
        ("random evening 1", random_evening(1).1, "10m"),
        ("random evening 3", random_evening(3).1, "10m"),
    ];
    // two threads, as on the 2-core machine: the walk checks two candidates at a time
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a thread pool");
    for (name, a, wait) in evenings {
        let c = case(small_spec, AT_14, a, wait);
        let input = c.input();
        let book = PriceBook::embedded();
        let tuning = super::score::Tuning {
            margin: Some(0.0),
            ..Default::default()
        };
        let job = c.job(&input, &book, &c.settings, tuning);
        let (before, eb) = start(&job).expect("a queue policy");
        let vs = variants_for(c.settings.choices, c.settings.standby.as_ref());
        let req = super::score::Required::share_of(vs.len(), 1.0);
        let grid = small();
        let st = Stage1 {
            job: &job,
            pairs: &grid.pairs,
            targets: &grid.targets,
            eb,
            vs: &vs,
            share: Some(&req),
        };
        let idx: Vec<usize> = (0..grid.pairs.len()).collect();
        let caps = vec![Some(grid.targets.len() - 1); grid.pairs.len()];
        let ran = two.install(|| st.run(&before, &idx, &caps, false, None));
        // every target of every pair: the largest that holds, and whether any meets the goal
        let mut largest: Vec<Option<usize>> = vec![None; grid.pairs.len()];
        let mut truth: Option<Scored> = None;
        let mut meeting_pairs = 0;
        for (pair, held_at) in grid.pairs.iter().zip(largest.iter_mut()) {
            let mut meets_any = false;
            for t in (0..grid.targets.len()).rev() {
                let p = before.with_target(grid.targets[t], *pair);
                let Some(sc) = score(&job, &p, eb) else {
                    continue;
                };
                meets_any |= sc.meets;
                if sc.meets && held_at.is_none() && holds(&job, &p, eb, &vs, 1.0) {
                    *held_at = Some(t);
                    if truth.as_ref().is_none_or(|b| cheaper(&sc, b).is_lt()) {
                        truth = Some(sc);
                    }
                }
            }
            meeting_pairs += usize::from(meets_any);
        }
        let found = ran
            .per
            .iter()
            .flat_map(|(_, pts, ..)| pts.iter().filter(|(_, h)| *h).map(|(s, _)| s))
            .min_by(|a, b| cheaper(a, b));
        match (&truth, found) {
            (Some(t), Some(f)) => assert_eq!(
                cheaper(f, t),
                std::cmp::Ordering::Equal,
                "{name}: stage 1 found {:?}, every pair checked {:?}",
                f.params,
                t.params
            ),
            (None, None) => {}
            (t, f) => panic!("{name}: stage 1 found {f:?}, every pair checked {t:?}"),
        }
        for (i, _, cap, ..) in &ran.per {
            assert!(
                *cap >= largest[*i],
                "{name}: pair {:?} left the cap {cap:?} below its largest target that holds {:?}",
                grid.pairs[*i],
                largest[*i]
            );
        }
        let checked: usize = ran.per.iter().map(|r| r.4).sum();
        let held = ran
            .per
            .iter()
            .map(|(_, pts, ..)| pts.iter().filter(|(_, h)| *h).count())
            .sum::<usize>();
        let holding_pairs = largest.iter().filter(|l| l.is_some()).count();
        eprintln!(
            "{name}: {checked} checked under the variants ({held} holding), {meeting_pairs} pairs meet, {holding_pairs} hold"
        );
        // the walk stops at the first chunk with one that holds: at most the chunk's two hold
        // (the evening ramp at 10 minutes: 2, where 4 pairs hold; a binary search per pair
        // on "holds" found every one of them holding, each replayed whole under every variant)
        assert!(
            held <= 2 && (holding_pairs < 3 || held < holding_pairs),
            "{name}: {held} candidates found holding, {holding_pairs} pairs hold"
        );
        if name == "evening ramp, 10 min" {
            assert!(
                holding_pairs > 2,
                "{name}: the case no longer tells: {holding_pairs}"
            );
        }
    }
}

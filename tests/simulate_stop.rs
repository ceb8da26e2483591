//! The replay's early stop (`engine::run_until`, what `--tune` uses to reject a candidate that
//! must miss its wait target) against the full replay, and the exact wait percentile against the
//! whole-minute one, over generated traces, policies and model choices.

use gpuform::cost::usage::Priority;
use gpuform::simulate::engine::{self, Arrivals, Choices, Run, Setting, Stop};
use gpuform::simulate::load::Trace;
use gpuform::simulate::model::Workload;
use proptest::prelude::*;

#[path = "common/generated.rs"]
mod generated;
use generated::{setting, trace, workload};

fn replay(s: &Setting, t: &Trace, w: &Workload, c: Choices, stop: Option<Stop>) -> engine::Outcome {
    engine::run_until(
        &Run {
            setting: s,
            trace: t,
            workload: w,
            priority: &Priority::Regular,
            choices: c,
            seed: 1,
            record: false,
            standby: None,
        },
        stop,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A run that stops misses the target in the full replay; one that does not stop is the full
    /// replay, figure for figure (it may still miss: a job restarted in the last minute).
    #[test]
    fn a_stopped_run_misses_and_an_unstopped_one_is_the_full_replay(
        arrivals in proptest::collection::vec(prop_oneof![3 => 0u32..3, 1 => 0u32..25], 30..400),
        missing in proptest::collection::vec(proptest::bool::weighted(0.05), 1..20),
        limits in (0u32..3, 1u32..8, 1u32..12, 0u32..3),
        knobs in (1u32..4, 1u32..6, 1u32..16, 1u32..8, 0usize..3),
        (job, c, prov) in (30u64..600, 1u32..3, 0u32..10),
        (spread, in_service, delay) in (any::<bool>(), any::<bool>(), 0u32..3),
        (wait, q) in (0.0f64..30.0, prop_oneof![Just(0.95), Just(0.5), Just(0.99)]),
    ) {
        let s = setting(limits, knobs);
        let t = trace(arrivals, missing);
        let w = workload(job, c, prov);
        let choices = Choices {
            arrivals: if spread { Arrivals::Spread } else { Arrivals::StartOfMinute },
            queue_metric_counts_in_service: in_service,
            metric_delay_minutes: delay,
            ..Choices::default()
        };
        let full = replay(&s, &t, &w, choices, None);
        prop_assert!(!full.stopped);
        let stop = Stop { wait_minutes: wait, quantile: q };
        let cut = replay(&s, &t, &w, choices, Some(stop));
        let exact = full.wait_percentile_exact(q);
        if cut.stopped {
            prop_assert!(exact > wait, "stopped at minute {} but the full replay meets: {exact} <= {wait}", cut.minutes);
        } else {
            prop_assert_eq!(&cut, &full);
        }
        // the exact percentile is the whole-minute one to the second
        prop_assert_eq!(exact.floor(), full.wait_percentile(q));
    }
}

/// Both sides of the property are reached: a pool that cannot keep up stops within its first
/// busy hour, and one that keeps up replays to the end.
#[test]
fn a_pool_that_cannot_keep_up_stops_early() {
    let mut arrivals = vec![0u32; 1440];
    for a in &mut arrivals[600..720] {
        *a = 6;
    }
    let t = trace(arrivals, vec![false]);
    let w = workload(120, 1, 8);
    let stop = Stop {
        wait_minutes: 5.0,
        quantile: 0.95,
    };
    // at most 2 VMs for 3 jobs a minute of work per VM-minute needed: misses pile up
    let small = setting((0, 2, 1, 1), (1, 5, 5, 5, 0));
    let cut = replay(&small, &t, &w, Choices::default(), Some(stop));
    assert!(cut.stopped && cut.minutes < 720, "{}", cut.minutes);
    let full = replay(&small, &t, &w, Choices::default(), None);
    assert!(full.wait_percentile_exact(0.95) > 5.0);
    // 14 VMs from the start: every job starts at once
    let big = setting((14, 14, 1, 1), (1, 5, 5, 5, 0));
    let all = replay(&big, &t, &w, Choices::default(), Some(stop));
    assert!(!all.stopped);
    assert_eq!(all.wait_percentile_exact(0.95), 0.0);
}

//! Replays shared across standby-pool sizes (`tune::reuse`, issue 40): in a regional scale set a
//! pool of `maxReady = minReady = m` whose takes always found more than `k` ready VMs replays as
//! a pool of `m - k` does, its own VM-minutes aside. Over generated traces, policies, pools and
//! model choices, every outcome `tune::reuse::derive` gives is the smaller pool's own replay,
//! figure for figure (early stops included), and a zonal scale set derives nothing.

use gpuform::cost::usage::Priority;
use gpuform::simulate::engine::{self, Arrivals, Choices, Run, Setting, Stop};
use gpuform::simulate::load::Trace;
use gpuform::simulate::model::Workload;
use gpuform::simulate::standby::Standby;
use gpuform::simulate::tune::reuse::derive;
use proptest::prelude::*;

#[path = "common/generated.rs"]
mod generated;
use generated::{setting, trace, workload};

fn pool(m: u32, start_seconds: u32, post: u32, bills_compute: bool) -> Standby {
    Standby {
        max_ready: m,
        min_ready: m,
        vm_state: if bills_compute {
            "Running"
        } else {
            "Deallocated"
        },
        start_seconds,
        start_assumed: true,
        start_source: "test".into(),
        bills_compute,
        post_provisioning_seconds: post,
    }
}

fn replay(
    s: &Setting,
    t: &Trace,
    w: &Workload,
    c: Choices,
    stop: Option<Stop>,
    pool: Option<&Standby>,
) -> engine::Outcome {
    engine::run_until(
        &Run {
            setting: s,
            trace: t,
            workload: w,
            priority: &Priority::Regular,
            choices: c,
            seed: 1,
            record: false,
            standby: pool,
        },
        stop,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_derived_replay_is_the_smaller_pools_own(
        arrivals in proptest::collection::vec(prop_oneof![3 => 0u32..3, 1 => 0u32..25], 30..300),
        missing in proptest::collection::vec(proptest::bool::weighted(0.05), 1..20),
        limits in (0u32..3, 1u32..8, 1u32..12, 0u32..3),
        knobs in (1u32..4, 1u32..6, 1u32..16, 1u32..8, 0usize..3),
        (job, c, prov) in (30u64..600, 1u32..3, 0u32..10),
        (spread, delay) in (any::<bool>(), 0u32..3),
        (m, start, post, running) in (1u32..7, 0u32..300, prop_oneof![Just(0u32), 0u32..200], any::<bool>()),
        stop in proptest::option::of((0.0f64..30.0, prop_oneof![Just(0.95), Just(0.5)])),
    ) {
        let s = setting(limits, knobs);
        let t = trace(arrivals, missing);
        let w = workload(job, c, prov);
        let choices = Choices {
            arrivals: if spread { Arrivals::Spread } else { Arrivals::StartOfMinute },
            metric_delay_minutes: delay,
            ..Choices::default()
        };
        let stop = stop.map(|(wait_minutes, quantile)| Stop { wait_minutes, quantile });
        let big = replay(&s, &t, &w, choices, stop, Some(&pool(m, start, post, running)));
        for to in 0..=m {
            let own = replay(&s, &t, &w, choices, stop, Some(&pool(to, start, post, running)));
            match derive(&big, m, to) {
                Some(d) => prop_assert_eq!(&d, &own, "pool {} derived from {}", to, m),
                // out of reach: the smaller pool had a take the larger one's spare VMs covered
                None => prop_assert!(to < m && big.pool_least_ready <= m - to),
            }
        }
    }
}

/// Both sides are reached: a pool that is never short derives every smaller size, one that runs
/// dry derives none below it; a zonal scale set derives nothing.
#[test]
fn reach_follows_the_fewest_ready() {
    let mut arrivals = vec![0u32; 600];
    for (k, a) in arrivals.iter_mut().enumerate() {
        if k % 120 == 60 {
            *a = 12;
        }
    }
    let t = trace(arrivals, vec![false]);
    let w = workload(120, 1, 8);
    let s = setting((0, 4, 1, 1), (1, 1, 5, 5, 1));
    let run = |m: u32, zones: u32| {
        let mut s = s.clone();
        s.zones = zones;
        replay(
            &s,
            &t,
            &w,
            Choices::default(),
            None,
            Some(&pool(m, 60, 0, false)),
        )
    };
    let big = run(8, 1);
    assert!(big.standby_taken > 0);
    assert!(
        big.pool_least_ready >= 4 && big.pool_least_ready < u32::MAX,
        "{}",
        big.pool_least_ready
    );
    let reach = big.pool_least_ready - 1;
    assert_eq!(derive(&big, 8, 8 - reach), Some(run(8 - reach, 1)));
    assert_eq!(derive(&big, 8, 8 - reach - 1), None);
    let small = run(2, 1);
    assert_eq!(small.pool_least_ready, 0);
    assert_eq!(derive(&small, 2, 1), None);
    let zonal = run(8, 3);
    assert_eq!(derive(&zonal, 8, 7), None);
    assert_eq!(derive(&zonal, 8, 8), Some(zonal.clone()));
}

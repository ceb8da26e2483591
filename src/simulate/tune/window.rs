//! The tune's work bound (issue 39, item 6): the search replays at most [`SEARCH_DAYS`] of the
//! trace. A longer trace (up to the year `simulate` reads) is searched on its last days, and
//! the proposal is then replayed on the whole trace: its figures (`after`) are the whole
//! trace's, the search's (variants, pool rows, margin) the window's, and the report says so.
//!
//! Why a bound on days and not on time: the search's work is its replays (a few thousand to
//! a few tens of thousands, fixed by its grid) times the minutes each replays, and a bound on
//! the minutes makes a tune's result the same on any machine, where a deadline would not.
//! The wall time of a robust tune with the pool search on 1, 4 and 16 weeks: `.ci/tune-bench`.

use super::super::Results;
use super::answer::Window;
use super::score::Job;
use super::search::{Tuned, replay_text};

/// Days of the trace the search replays at most (16 weeks): `--tune-days` changes it.
pub const SEARCH_DAYS: u32 = 112;

/// The last `days` of `trace` (whole days of minutes, same minute grid).
fn last_days(trace: &super::super::load::Trace, days: u32) -> super::super::load::Trace {
    let keep = (days as usize * 1440).min(trace.minutes());
    let off = trace.minutes() - keep;
    let start = trace
        .start
        .checked_add(jiff::SignedDuration::from_mins(off as i64))
        .unwrap_or(trace.start);
    super::super::load::Trace {
        start,
        arrivals: trace.arrivals[off..].to_vec(),
        missing: trace.missing[off..].to_vec(),
        source: format!("{} (its last {days} days)", trace.source),
    }
}

/// Tune (and, with `learn`, learn schedules) within the work bound; `before` is the spec's
/// figures on the whole trace.
pub fn run(job: &Job, before: &Results, learn: bool) -> Result<Tuned, String> {
    let limit = job.tuning.search_days.unwrap_or(SEARCH_DAYS).max(1);
    let whole_days = job.trace.minutes().div_ceil(1440) as u32;
    let windowed = job.trace.minutes() > limit as usize * 1440;
    let window = windowed.then(|| last_days(job.trace, limit));
    let j = match &window {
        Some(w) => Job { trace: w, ..*job },
        None => *job,
    };
    if let (Some(p), Some(_)) = (job.tuning.progress, &window) {
        p.phase(format!(
            "searching the last {limit} of the trace's {whole_days} days (the work bound)"
        ));
    }
    let t = super::tune(&j, before);
    let mut t = match t {
        Ok(t) => t,
        Err(e) => {
            if let Some(p) = job.tuning.progress {
                p.done();
            }
            return Err(e);
        }
    };
    if learn {
        if let Some(p) = job.tuning.progress {
            p.phase("learning schedules");
        }
        t.schedule = Some(super::propose(&j, &t));
    }
    if window.is_some() {
        // the proposal's own figures on the whole trace
        let chosen = t.pool_search.as_ref().map(|s| s.chosen_max_ready);
        if let Some(b) = t.best.as_mut() {
            let settings = match (chosen, job.settings.standby.as_ref()) {
                (Some(Some(m)), Some(s)) => super::super::Settings {
                    standby: (m > 0).then(|| s.sized(m, m)),
                    ..job.settings.clone()
                },
                _ => job.settings.clone(),
            };
            let full = Job {
                settings: &settings,
                ..*job
            };
            // a proposal gpuform cannot write keeps the window's figures
            if let Some(text) = &b.new_text {
                b.after = replay_text(&full, text)?;
            }
        }
        t.answer.window = Some(Window {
            days: limit,
            of_days: whole_days,
            text: format!(
                "the trace has {whole_days} days: the search replayed its last {limit} (the tune's work bound; --tune-days changes it), and the proposal's figures (after) are the whole trace's"
            ),
        });
    }
    if let Some(p) = job.tuning.progress {
        p.done();
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_the_last_days_on_the_same_minutes() {
        let t = super::super::super::load::Trace {
            start: "2026-01-01T00:00:00Z".parse().unwrap(),
            arrivals: (0..3 * 1440 + 10).map(|m| m as u32).collect(),
            missing: (0..3 * 1440 + 10).map(|m| m % 7 == 0).collect(),
            source: "t".into(),
        };
        let w = last_days(&t, 2);
        assert_eq!(w.minutes(), 2 * 1440);
        let off = 1440 + 10;
        assert_eq!(w.arrivals[0], off as u32);
        assert_eq!(w.missing[..], t.missing[off..]);
        assert_eq!(
            w.start,
            "2026-01-02T00:10:00Z".parse::<jiff::Timestamp>().unwrap()
        );
        // a shorter trace is all of it
        assert_eq!(last_days(&t, 9).arrivals, t.arrivals);
    }
}

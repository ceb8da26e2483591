//! Progress of a long tune on stderr (issue 39, item 6): on a terminal, or when asked
//! (`--progress`), never on stdout (JSON stays clean).
//!
//! Nothing is printed during the first [`QUIET`]; then, on a terminal, one line rewritten in
//! place at most every [`EVERY_TTY`] (what the tune is doing, the replays and simulated days
//! so far, the time), cleared at the end; elsewhere (`--progress` into a log), a line every
//! [`EVERY_LOG`].

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// No progress line for a tune shorter than this.
pub const QUIET: Duration = Duration::from_secs(1);
/// How often the terminal line is rewritten.
pub const EVERY_TTY: Duration = Duration::from_millis(250);
/// How often a line is written when stderr is not a terminal (`--progress`).
pub const EVERY_LOG: Duration = Duration::from_secs(5);

/// Where a tune reports its progress.
#[derive(Debug)]
pub struct Progress {
    started: Instant,
    tty: bool,
    replays: AtomicU64,
    minutes: AtomicU64,
    state: Mutex<State>,
    /// Lines written (tests read it; stderr gets them).
    sink: Sink,
}

#[derive(Debug)]
struct State {
    phase: String,
    last: Option<Instant>,
    shown: bool,
}

#[derive(Debug)]
enum Sink {
    Stderr,
    #[cfg(test)]
    Memory(Mutex<Vec<String>>),
}

impl Progress {
    /// Progress on stderr, rewritten in place when `tty` (a terminal), else line by line.
    pub fn stderr(tty: bool) -> Progress {
        Progress::with(tty, Sink::Stderr)
    }

    fn with(tty: bool, sink: Sink) -> Progress {
        Progress {
            started: Instant::now(),
            tty,
            replays: AtomicU64::new(0),
            minutes: AtomicU64::new(0),
            state: Mutex::new(State {
                phase: "starting".into(),
                last: None,
                shown: false,
            }),
            sink,
        }
    }

    /// Replays so far.
    pub fn replays(&self) -> u64 {
        self.replays.load(Ordering::Relaxed)
    }

    /// What the tune does now (`stage 1: 721 policies`, `pool size 4 (5 of 9)`).
    pub fn phase(&self, what: impl Into<String>) {
        if let Ok(mut s) = self.state.lock() {
            s.phase = what.into();
        }
        self.maybe_show(true);
    }

    /// One replay of `minutes` minutes is done.
    pub fn replayed(&self, minutes: usize) {
        self.replays.fetch_add(1, Ordering::Relaxed);
        self.minutes.fetch_add(minutes as u64, Ordering::Relaxed);
        self.maybe_show(false);
    }

    fn maybe_show(&self, phase_changed: bool) {
        let now = Instant::now();
        let since = now.duration_since(self.started);
        if since < QUIET {
            return;
        }
        // another thread is writing: skip this one
        let Ok(mut s) = self.state.try_lock() else {
            return;
        };
        let every = if self.tty { EVERY_TTY } else { EVERY_LOG };
        if s.last.is_some_and(|l| now.duration_since(l) < every) && !(phase_changed && self.tty) {
            return;
        }
        s.last = Some(now);
        s.shown = true;
        let line = format!(
            "tune: {} - {} replays, {:.0} simulated days, {:.1} s",
            s.phase,
            self.replays(),
            self.minutes.load(Ordering::Relaxed) as f64 / 1440.0,
            since.as_secs_f64()
        );
        self.write(&line, false);
    }

    /// The tune is over: clear the terminal line (a log gets a last line).
    pub fn done(&self) {
        let Ok(s) = self.state.lock() else { return };
        if !s.shown {
            return;
        }
        let line = format!(
            "tune: done - {} replays, {:.0} simulated days, {:.1} s",
            self.replays(),
            self.minutes.load(Ordering::Relaxed) as f64 / 1440.0,
            self.started.elapsed().as_secs_f64()
        );
        self.write(&line, true);
    }

    fn write(&self, line: &str, last: bool) {
        match &self.sink {
            Sink::Stderr => {
                let mut e = std::io::stderr().lock();
                let _ = if self.tty {
                    // rewrite the line in place; the last one is erased
                    if last {
                        write!(e, "\r\x1b[2K")
                    } else {
                        write!(e, "\r\x1b[2K{line}")
                    }
                } else {
                    writeln!(e, "{line}")
                };
                let _ = e.flush();
            }
            #[cfg(test)]
            Sink::Memory(m) => {
                if let Ok(mut v) = m.lock() {
                    v.push(line.to_string());
                }
            }
        }
    }

    #[cfg(test)]
    pub(super) fn memory() -> Progress {
        Progress::with(false, Sink::Memory(Mutex::new(Vec::new())))
    }

    #[cfg(test)]
    pub(super) fn lines(&self) -> Vec<String> {
        match &self.sink {
            Sink::Memory(m) => m.lock().map(|v| v.clone()).unwrap_or_default(),
            Sink::Stderr => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_for_a_short_tune_then_a_line_per_interval_and_a_last_one() {
        // a tune shorter than QUIET shows nothing, not even at the end
        let p = Progress::memory();
        p.phase("stage 1: 721 policies");
        p.replayed(1440);
        p.done();
        assert!(p.lines().is_empty(), "{:?}", p.lines());

        // past QUIET: the phase shows at once, further replays within EVERY_LOG add no line,
        // and the end says what was done
        let mut p = Progress::memory();
        p.started -= QUIET * 2;
        p.phase("pool size 4 (5 of 9)");
        p.replayed(1440);
        p.replayed(2880);
        p.done();
        let lines = p.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("tune: pool size 4 (5 of 9) - 0 replays, 0 simulated days"));
        assert!(
            lines[1].starts_with("tune: done - 2 replays, 3 simulated days"),
            "{lines:?}"
        );
    }
}

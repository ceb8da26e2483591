//! Time budgets that measure work, not the machine's load (shared by `tests/hardening_props.rs`
//! and the unit tests of `src/simulate/load`, which include this file by path).
//!
//! A wall-clock budget fails when a dozen builds share two cores; the CPU time of the calling
//! thread does not grow with other processes' load. So a budget holds the thread's CPU time to
//! the limit (Linux: `/proc/thread-self/schedstat`, nanoseconds on the CPU; else `stat`'s
//! utime + stime in clock ticks), and the wall clock to a ceiling 30 times larger (at least two
//! minutes), which still catches a hang that does not spin. Where neither file exists the wall
//! clock is held to the limit itself, as before.

use std::time::{Duration, Instant};

/// CPU time the calling thread has used so far, when the system says.
pub fn thread_cpu() -> Option<Duration> {
    if let Ok(s) = std::fs::read_to_string("/proc/thread-self/schedstat")
        && let Some(ns) = s
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
    {
        return Some(Duration::from_nanos(ns));
    }
    // utime and stime, fields 14 and 15, counted after the command name's closing parenthesis
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // USER_HZ, the unit /proc reports in, is 100 on Linux
    Some(Duration::from_millis(ticks * 10))
}

/// A budget started now.
pub struct Budget {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Budget {
    pub fn start() -> Budget {
        Budget {
            wall: Instant::now(),
            cpu: thread_cpu(),
        }
    }

    /// `Err` with both figures when the work took more than `limit` of CPU time, or the wall
    /// clock passed the ceiling (or `limit` itself where CPU time is not known).
    pub fn check(&self, limit: Duration) -> Result<(), String> {
        let wall = self.wall.elapsed();
        let cpu = self.cpu.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a));
        let ceiling = match cpu {
            Some(_) => (limit * 30).max(Duration::from_secs(120)),
            None => limit,
        };
        match cpu {
            Some(c) if c >= limit => Err(format!(
                "{c:?} of CPU time (budget {limit:?}; wall {wall:?})"
            )),
            _ if wall >= ceiling => Err(format!(
                "{wall:?} of wall time (ceiling {ceiling:?}; CPU {cpu:?})"
            )),
            _ => Ok(()),
        }
    }
}

/// Spinning costs CPU time; sleeping does not (the point of the budget).
#[test]
fn cpu_time_counts_work_not_waiting() {
    let Some(_) = thread_cpu() else {
        return;
    };
    let b = Budget::start();
    std::thread::sleep(Duration::from_millis(300));
    assert!(b.check(Duration::from_millis(200)).is_ok());
    // spin until 100 ms of CPU time are spent, however busy the machine is
    let b = Budget::start();
    let from = thread_cpu().unwrap();
    let mut x = 0u64;
    while thread_cpu().unwrap().saturating_sub(from) < Duration::from_millis(100) {
        for _ in 0..10_000 {
            x = x.wrapping_add(std::hint::black_box(1));
        }
    }
    assert!(x > 0);
    assert!(b.check(Duration::from_millis(50)).is_err());
    assert!(b.check(Duration::from_secs(60)).is_ok());
}

//! The measure issue 41's goal is stated in: a render's time against the time the same process
//! needs to write its output. With `GPUFORM_BENCH_WRITE_TO=DIR2` set (a hidden benchmark hook,
//! used by `.ci/render-scale`; not a user interface), `render -o DIR` then writes the bytes it
//! has just written into DIR again into DIR2 (same files, same sizes, same directory layout, the
//! same rayon pool) and prints both times and their ratio on stderr; `GPUFORM_BENCH_WRITES=K`
//! repeats that write K times (into a fresh DIR2 each time) and takes the median.
//!
//! Only the writing is timed: the files are read back from DIR (the page cache) in batches of at
//! most [`BATCH`] bytes before each batch is written, so the hook adds at most a batch to the
//! memory the render itself needed; the render's own peak RSS is taken before the hook starts.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The environment variable that turns the hook on; its value is the directory to write.
pub const ENV: &str = "GPUFORM_BENCH_WRITE_TO";

/// Bytes read back into memory before they are written (untimed read, timed write).
const BATCH: usize = 64 * 1024 * 1024;

/// CPU seconds (user + system) and peak RSS (MiB) of this process so far.
fn usage() -> (f64, u64) {
    // SAFETY: getrusage only writes into the struct it is given
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return (0.0, 0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        secs(ru.ru_utime) + secs(ru.ru_stime),
        ru.ru_maxrss as u64 / 1024,
    )
}

/// What the render took before the hook: its start and CPU at the start.
pub struct Started {
    at: Instant,
    cpu: f64,
}

/// Mark the start of a render (cheap; used whether or not the hook is on).
pub fn start() -> Started {
    Started {
        at: Instant::now(),
        cpu: if std::env::var_os(ENV).is_some() {
            usage().0
        } else {
            0.0
        },
    }
}

/// When the hook is on: write the `files` (paths relative to `dir`) into the hook's directory,
/// timed, and print the comparison with the render that `started` it.
pub fn compare_with_writing(started: &Started, dir: &Path, files: &[PathBuf]) {
    let Some(copy) = std::env::var_os(ENV) else {
        return;
    };
    let render_wall = started.at.elapsed();
    let (cpu_now, render_rss) = usage();
    let render_cpu = cpu_now - started.cpu;
    // the write is repeated (GPUFORM_BENCH_WRITES, default 1) and its median taken: on a shared
    // machine the kernel's share of a write varies several-fold from one moment to the next
    let repeats: usize = std::env::var("GPUFORM_BENCH_WRITES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    let copy = Path::new(&copy);
    let mut writes = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        if copy.exists()
            && let Err(e) = std::fs::remove_dir_all(copy)
        {
            eprintln!("bench: cannot remove {}: {e}", copy.display());
            return;
        }
        match write_copy(dir, copy, files) {
            Ok(w) => writes.push(w),
            Err(e) => {
                eprintln!("bench: cannot write {}: {e}", copy.display());
                return;
            }
        }
    }
    let all: Vec<String> = writes
        .iter()
        .map(|w| format!("{:.3}", w.0.as_secs_f64()))
        .collect();
    writes.sort_by_key(|w| w.0);
    let (wall, cpu, bytes) = writes[writes.len() / 2];
    eprintln!(
        "bench: render {:.3} s wall, {:.3} s CPU, peak RSS {} MiB; writing the same {} files \
         ({} MiB) {:.3} s wall, {:.3} s CPU; ratio {:.2}x on wall, {:.2}x on CPU; median of {} \
         write(s): {} s",
        render_wall.as_secs_f64(),
        render_cpu,
        render_rss,
        files.len(),
        bytes / (1024 * 1024),
        wall.as_secs_f64(),
        cpu,
        render_wall.as_secs_f64() / wall.as_secs_f64().max(1e-6),
        render_cpu / cpu.max(1e-6),
        writes.len(),
        all.join(", "),
    );
}

/// Write `files` from `from` into `to` batch by batch; the time and CPU of the writes only.
fn write_copy(from: &Path, to: &Path, files: &[PathBuf]) -> std::io::Result<(Duration, f64, u64)> {
    use rayon::prelude::*;
    let mut wall = Duration::ZERO;
    let mut cpu = 0.0;
    let mut total = 0u64;
    let mut rest = files;
    while !rest.is_empty() {
        // read a batch (untimed)
        let mut batch: Vec<(&PathBuf, Vec<u8>)> = Vec::new();
        let mut size = 0;
        while let Some((rel, tail)) = rest.split_first() {
            if size >= BATCH {
                break;
            }
            let bytes = std::fs::read(from.join(rel))?;
            size += bytes.len();
            batch.push((rel, bytes));
            rest = tail;
        }
        total += size as u64;
        // write it as render does: one task per spec directory (created once), each file in
        // one call, in parallel on the same pool
        let groups: Vec<&[(&PathBuf, Vec<u8>)]> = batch
            .chunk_by(|a, b| a.0.parent() == b.0.parent())
            .collect();
        let (t, c) = (Instant::now(), usage().0);
        groups.par_iter().try_for_each(|group| {
            if let Some(parent) = group[0].0.parent() {
                std::fs::create_dir_all(to.join(parent))?;
            }
            group
                .iter()
                .try_for_each(|(rel, bytes)| std::fs::write(to.join(rel), bytes))
        })?;
        wall += t.elapsed();
        cpu += usage().0 - c;
    }
    Ok((wall, cpu, total))
}

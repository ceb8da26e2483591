//! `validate --explain`: how `vmSize: auto` ranked every size, and why each other size was
//! rejected.

use std::fmt::Write as _;

use super::Checked;
use crate::report::number::short as fmt_num;

/// The ranking table of `c` (empty when the spec did not get that far).
pub fn ranking(c: &Checked) -> String {
    let mut s = String::new();
    let Some(spec) = &c.spec else { return s };
    if let Some(sel) = &c.sizing {
        let _ = writeln!(
            s,
            "\nsizing for {} GiB ({}), prices {} {} as of {}:",
            fmt_num(spec.spec.workload.gpu_memory_gib),
            spec.spec.workload.kind.as_str(),
            sel.price_region,
            match sel.price_os {
                crate::catalog::prices::PriceOs::Linux => "linux",
                crate::catalog::prices::PriceOs::Windows => "windows",
            },
            sel.price_as_of.as_deref().unwrap_or("unknown")
        );
        let _ = writeln!(s, "  GPU vendors: {}", sel.vendor);
        if let Some(n) = &sel.note {
            let _ = writeln!(s, "  note: {n}");
        }
        // `chosen` only when gpuform chose: an explicit size is the spec's, whatever ranks first
        let mark = |size: &str| {
            if c.auto_sized {
                if Some(size) == sel.chosen {
                    "  <- chosen"
                } else {
                    ""
                }
            } else if size == spec.spec.compute.vm_size {
                "  <- the spec's size"
            } else if Some(size) == sel.chosen {
                "  <- cheapest fit"
            } else {
                ""
            }
        };
        let mut rank = 0;
        for cand in &sel.candidates {
            let price = cand
                .hourly
                .map(crate::report::number::per_hour)
                .unwrap_or_else(|| "-".into());
            let mem = cand
                .gpu_memory_gib
                .map(|m| format!("{} GiB", fmt_num(m)))
                .unwrap_or_else(|| "?".into());
            match &cand.rejected {
                None => {
                    rank += 1;
                    let caveat = cand
                        .caveat
                        .as_deref()
                        .map(|w| format!("  warns: {w}"))
                        .into_iter()
                        .chain(cand.restricted.as_deref().map(|r| format!("  {r}")))
                        .collect::<String>();
                    let _ = writeln!(
                        s,
                        "  {rank:>2}. {:<38} {:>9} {:>11}{caveat}{}",
                        cand.size,
                        mem,
                        price,
                        mark(cand.size)
                    );
                }
                Some(why) => {
                    let unlock = cand
                        .unlock
                        .as_deref()
                        .map(|pin| format!("; fits with `driverVersion: \"{pin}\"`"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        s,
                        "   -  {:<38} {:>9} {:>11}  rejected: {why}{unlock}{}",
                        cand.size,
                        mem,
                        price,
                        mark(cand.size)
                    );
                }
            }
        }
    }
    s
}

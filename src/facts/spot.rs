//! Azure Spot Priority Mix: how a Flexible scale set splits its instances between regular and
//! Spot priority.
//!
//! Source: Microsoft Learn, "Spot Priority Mix for high availability and cost savings",
//! <https://learn.microsoft.com/azure/virtual-machine-scale-sets/spot-priority-mix>
//! (MicrosoftDocs/azure-compute-docs `articles/virtual-machine-scale-sets/spot-priority-mix.md`
//! @0c6223e9484d9281f960129ff81c76e16e2eb2cf, page dated 2026-05-19; read 2026-12-03).
//!
//! The page's rule, in its words: `baseRegularPriorityCount` is "the minimum number of standard
//! (non-Spot) VMs"; `regularPriorityPercentageAboveBase` is "the percentage of standard VMs vs.
//! Spot VMs for any capacity beyond the base count". Its examples settle the rounding: the extra
//! standard VMs are the percentage of the VMs above the base **rounded down**, and Spot gets the
//! remainder. Scenario 2 (base 10, 25 %): "For the 10 VMs above base, 25% standard (2.5 rounded
//! to 2) and 75% Spot (8)"; Scenario 1 (base 10, 50 %) at 41 VMs: "With odd numbers, Spot VMs
//! get the extra VM (16 Spot versus 15 standard)". [`EXAMPLES`] carries the page's table rows;
//! a test holds [`regular_of`] to every one of them.

use super::Source;

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/spot-priority-mix \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/spot-priority-mix.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-03",
);

/// One row of the page's scenario tables: (base, percent above base, total capacity, extra
/// standard VMs, Spot VMs). Rows that follow an eviction (where the split depends on history,
/// not on the rule) are left out. So are the page's CLI and PowerShell examples (base 2, 50 %,
/// 4 VMs, "Result: Two standard VMs and two Spot VMs"): they contradict the page's own rule and
/// tables (2 above the base at 50 % is 1 standard and 1 Spot, so 3 standard, as scenario 1's
/// "Scale out to 20: 5 extra standard, 5 Spot" has it); gpuform follows the tables.
pub const EXAMPLES: &[(u32, u32, u32, u32, u32)] = &[
    // Scenario 1: 50/50 split with 10 base VMs
    (10, 50, 10, 0, 0),
    (10, 50, 20, 5, 5),
    (10, 50, 30, 10, 10),
    (10, 50, 40, 15, 15),
    (10, 50, 41, 15, 16),
    (10, 50, 42, 16, 16),
    (10, 50, 44, 17, 17),
    // Scenario 2: cost-optimized with 25 % standard VMs
    (10, 25, 20, 2, 8),
    (10, 25, 50, 10, 30),
    (10, 25, 110, 25, 75),
    (10, 25, 120, 27, 83),
    // "How it works": base 10, 50 %, 30 VMs (same as scenario 1's row)
];

/// Regular-priority instances among `n` under a priority mix of `base` regular instances and
/// `percent_above_base` % of the instances above it, rounded down (Spot gets the remainder).
pub fn regular_of(base: u32, percent_above_base: u32, n: u32) -> u32 {
    if n <= base {
        return n;
    }
    let above = n - base;
    let extra = (u64::from(above) * u64::from(percent_above_base.min(100)) / 100) as u32;
    base + extra.min(above)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_of_matches_every_example_on_microsofts_page() {
        for &(base, pct, total, extra, spot) in EXAMPLES {
            let regular = regular_of(base, pct, total);
            assert_eq!(
                (regular - base.min(total), total - regular),
                (extra, spot),
                "base {base}, {pct}% at {total} VMs"
            );
        }
    }

    #[test]
    fn the_half_vm_goes_to_spot() {
        // "2.5 rounded to 2"
        assert_eq!(regular_of(10, 25, 20), 12);
        // 41 VMs at 50 %: 15.5 regular above the base become 15, Spot gets 16
        assert_eq!(regular_of(10, 50, 41), 25);
        assert_eq!(regular_of(0, 0, 5), 0);
        assert_eq!(regular_of(0, 100, 5), 5);
        assert_eq!(regular_of(3, 50, 2), 2);
    }
}

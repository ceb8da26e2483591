//! What a simulation says when it cannot price what it simulated: which price is missing, in
//! which currency, what to run for it, and (with `--tune`) that the policies were then ranked
//! by the VM-hours they bill, not by money.

use super::Results;

/// The warnings of a run whose cost is incomplete (empty when every price is there).
pub fn unpriced(r: &Results, tuning: bool, file: &str) -> Vec<String> {
    let c = &r.cost;
    if c.missing.is_empty() {
        return Vec::new();
    }
    let list: Vec<String> = c
        .missing
        .iter()
        .map(|m| format!("{} ({})", m.price, m.line))
        .collect();
    let next = format!(
        "`gpuform simulate {file} ... --refresh-prices` fetches them from the Retail Prices API in {cur} (cached; `gpuform cost {file} --refresh-prices` prints the cache file, which --prices FILE takes offline)",
        cur = c.currency
    );
    let mut out = vec![format!(
        "prices missing in {}: {}; the monthly cost is {}; {next}",
        c.currency,
        list.join(", "),
        if c.monthly.is_some() {
            "a lower bound"
        } else {
            "not given"
        }
    )];
    if tuning && c.pool_monthly.is_none() {
        out.push(format!(
            "--tune ranked the policies by the VM-hours they bill (the scale set's instance-hours and the standby pool's builds), not by money: the pool's {} price is missing, so a cheaper-looking policy may cost more where Spot and regular hours differ in price; {next}",
            c.currency
        ));
    }
    out
}

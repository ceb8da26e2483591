//! A serving pool's frontend on the bill (issue 36): the Application Gateway v2's fixed price
//! and capacity units, the internal Standard Load Balancer's rules and data processed. The
//! Private Link service has no charge of its own for its provider side (the consumers'
//! private endpoints are billed to them).

use crate::facts::serving_ops as f;
use crate::plan::Plan;

use super::fixed::FixedPrices;
use super::model::{Line, Options};
use super::money::count;
use super::usage::{Cases, HOURS_PER_MONTH};

/// The source id of the frontend's embedded prices (`fixed_prices.json`).
pub const SOURCE: &str = "serving-frontend";

fn line(
    id: &str,
    label: String,
    unit_price: f64,
    unit: &str,
    quantity: Cases<f64>,
    assumption: String,
) -> Line {
    Line {
        id: id.into(),
        group: "network".into(),
        label,
        unit_price: Some(unit_price),
        unit: unit.into(),
        quantity,
        amount: quantity.map(|q| Some(q * unit_price)),
        assumption,
        source: Some(SOURCE.into()),
        converted: None,
    }
}

/// Capacity units billed in an average hour, per case: the reserved ones (10 per minimum
/// instance) at least; expected: `--gateway-capacity-units` when given; high: every instance up
/// to the autoscale maximum busy at its 10 units.
pub fn capacity_units(min: u32, max: u32, flag: Option<f64>) -> Cases<f64> {
    let reserved = f::CU_PER_INSTANCE * f64::from(min);
    // a gateway with no reserved instance still bills what it uses: one unit at least
    let floor = reserved.max(1.0);
    Cases {
        low: floor,
        expected: flag.map_or(floor, |c| c.max(reserved)),
        high: (f::CU_PER_INSTANCE * f64::from(max))
            .max(flag.unwrap_or(0.0))
            .max(floor),
    }
}

pub(super) fn serving_lines(plan: &Plan, p: &FixedPrices, o: &Options, lines: &mut Vec<Line>) {
    let Some(sv) = &plan.serving else {
        return;
    };
    let h = HOURS_PER_MONTH;
    if let Some(g) = &sv.gateway {
        lines.push(line(
            "gateway-fixed",
            format!("Application Gateway {} ({}), fixed price", g.sku, g.name),
            p.gateway_v2_fixed_hourly,
            "hour",
            Cases::all(h),
            "always on, a partial hour billed as a full one".into(),
        ));
        let cu = capacity_units(g.min_capacity, g.max_capacity, o.gateway_capacity_units);
        lines.push(line(
            "gateway-capacity-units",
            format!("Application Gateway {} capacity units", g.sku),
            p.gateway_v2_capacity_unit_hourly,
            "capacity unit-hour",
            cu.scale(h),
            format!(
                "{} capacity units an hour expected ({}); low: the {} reserved by {} minimum instance{} ({} units each, billed whatever the traffic); high: {} instances busy; one unit carries {} persistent connections, {} Mbps or one compute unit (about {} TLS connections a second); set --gateway-capacity-units",
                count(cu.expected),
                if o.gateway_capacity_units.is_some() {
                    "--gateway-capacity-units"
                } else {
                    "assumed: the reserved ones"
                },
                count(f::CU_PER_INSTANCE * f64::from(g.min_capacity)),
                g.min_capacity,
                if g.min_capacity == 1 { "" } else { "s" },
                count(f::CU_PER_INSTANCE),
                g.max_capacity,
                count(f::CU_CONNECTIONS),
                f::CU_MBPS,
                count(f::CU_NEW_CONNECTIONS_PER_SECOND),
            ),
        ));
    }
    if let Some(lb) = &sv.load_balancer {
        // one load-balancing rule (the model server's port); no outbound or NAT rules
        let rules = 1u32;
        lines.push(line(
            "load-balancer-rules",
            format!("Load Balancer {} ({}), {rules} rule", lb.sku, lb.name),
            p.load_balancer_included_rules_hourly,
            "hour",
            Cases::all(h),
            format!(
                "always on; the hourly charge covers the first {} rules (this one renders {rules})",
                f::LB_INCLUDED_RULE_COUNT
            ),
        ));
        lines.push(line(
            "load-balancer-data",
            "Load Balancer data processed".into(),
            p.load_balancer_per_gb,
            "GB",
            Cases::all(o.lb_gb_per_month),
            format!(
                "{} GB/month assumed through the internal load balancer (requests and streamed responses); set --lb-gb",
                count(o.lb_gb_per_month)
            ),
        ));
    }
}

/// The frontend's assumptions, with the flags that change them.
pub(super) fn assumptions(plan: &Plan, o: &Options) -> Vec<String> {
    let Some(sv) = &plan.serving else {
        return Vec::new();
    };
    let mut v = Vec::new();
    if let Some(g) = &sv.gateway {
        let cu = capacity_units(g.min_capacity, g.max_capacity, o.gateway_capacity_units);
        v.push(format!(
            "{} Application Gateway capacity units in an average hour (--gateway-capacity-units; {} are reserved by {} minimum instance{} and billed whatever the traffic)",
            count(cu.expected),
            count(f::CU_PER_INSTANCE * f64::from(g.min_capacity)),
            g.min_capacity,
            if g.min_capacity == 1 { "" } else { "s" }
        ));
    }
    if sv.load_balancer.is_some() {
        v.push(format!(
            "{} GB/month through the internal load balancer (--lb-gb)",
            count(o.lb_gb_per_month)
        ));
    }
    if sv.private_link.is_some() {
        v.push("the Private Link service has no line (an assumption: its consumers' private endpoints are what Private Link bills, to them)".into());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_units_are_the_reserved_ones_at_least() {
        let c = capacity_units(2, 4, None);
        assert_eq!((c.low, c.expected, c.high), (20.0, 20.0, 40.0));
        // fewer than reserved are billed as reserved
        assert_eq!(capacity_units(2, 4, Some(5.0)).expected, 20.0);
        assert_eq!(capacity_units(2, 4, Some(33.0)).expected, 33.0);
        assert_eq!(capacity_units(0, 4, None).low, 1.0);
    }
}

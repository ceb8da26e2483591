//! The fixed lines of the bill: disks, network, monitoring (with GPU telemetry), security
//! and messaging, each with its quantity, dated price and assumption.

use crate::facts::clouds::Cloud;
use crate::facts::private_dns::{ZoneOf, zone_name};
use crate::plan::{Cmk, Plan, QueueKind};
use crate::spec::model::DiskType;

use super::fixed::FixedPrices;
use super::model::{Line, Missing, Options};
use super::money::count;
use super::usage::{self, Cases, HOURS_PER_MONTH};

/// A line with the same quantity in every case (`unit_price: None`: the price is missing).
struct Fixed<'a> {
    id: &'a str,
    group: &'a str,
    label: String,
    unit_price: Option<f64>,
    unit: &'a str,
    quantity: f64,
    assumption: String,
    source: &'a str,
}

impl From<Fixed<'_>> for Line {
    fn from(f: Fixed<'_>) -> Line {
        Line {
            id: f.id.into(),
            group: f.group.into(),
            label: f.label,
            unit_price: f.unit_price,
            unit: f.unit.into(),
            quantity: Cases::all(f.quantity),
            amount: Cases::all(f.unit_price.map(|p| p * f.quantity)),
            assumption: f.assumption,
            source: f.unit_price.map(|_| f.source.into()),
            converted: None,
        }
    }
}

/// GPU telemetry (issue 12): the custom table's ingestion, which follows the instance-hours of
/// each case, and the three log search alert rules.
pub(super) fn gpu_monitoring_lines(
    g: &crate::plan::gpu_monitoring::GpuMonitoring,
    // the table is in a landing zone's central workspace: its ingestion is billed there
    central: bool,
    // a dev box: the collector samples only while the VM runs (the schedule's hours)
    devbox: bool,
    u: &usage::Usage,
    f: &FixedPrices,
    lines: &mut Vec<Line>,
    missing: &mut Vec<Missing>,
) {
    use crate::plan::gpu_monitoring::{BYTES_PER_ROW, SAMPLE_SECONDS};
    let rows_per_hour = 3600.0 / f64::from(SAMPLE_SECONDS) * f64::from(g.expected_gpus);
    let gb = u
        .instance_hours
        .map(|h| h * rows_per_hour * f64::from(BYTES_PER_ROW) / 1e9);
    let price = Some(f.log_analytics_per_gb);
    if !central {
        lines.push(Line {
        id: "gpu-telemetry-ingestion".into(),
        group: "monitoring".into(),
        label: format!("GPU telemetry ingestion ({})", g.table),
        unit_price: price,
        unit: "GB".into(),
        quantity: gb,
        amount: gb.map(|q| price.map(|p| p * q)),
        assumption: format!(
            "one row per GPU ({} per VM) every {SAMPLE_SECONDS} s for each {}, {BYTES_PER_ROW} bytes a row ({} columns; the JSON keys are not billed)",
            g.expected_gpus,
            if devbox {
                "hour the dev box runs (the compute line's hours; nothing while it is stopped)"
            } else {
                "instance-hour"
            },
            g.columns.len()
        ),
        source: Some("monitor".into()),
        converted: None,
    });
    }
    for a in &g.alerts {
        let unit_price = f
            .log_alert_monthly_by_frequency
            .get(a.evaluation_frequency)
            .copied();
        if unit_price.is_none() {
            missing.push(Missing {
                line: format!("log-alert {}", a.name),
                price: format!("log alert rule at {}", a.evaluation_frequency),
                help: "add the frequency to logAlertMonthlyByFrequency in the fixed price table"
                    .into(),
            });
        }
        // log-alert-gpu-idle, log-alert-gpu-vram, log-alert-gpu-faults,
        // log-alert-gpu-telemetry-missing
        let id = format!(
            "log-alert-gpu-{}",
            a.name.rsplit_once("-gpu-").map_or("rule", |(_, s)| s)
        );
        // a rule split by dimensions is billed per time series it monitors: every combination
        // of dimension values its query returns (Learn, "Create or edit a log search alert
        // rule": each time series "is charged separately")
        let (series, assumption) = if a.sym == "gpuAlertVram" {
            (
                u.instance_hours
                    .map(|h| (h / HOURS_PER_MONTH * f64::from(g.expected_gpus)).max(1.0)),
                format!(
                    "one time series per GPU ({} per VM) of the instances running on average (instance-hours / 730): the query returns every GPU, under the threshold too",
                    g.expected_gpus
                ),
            )
        } else if a.sym == "gpuAlertIdle" || a.sym == "gpuAlertSilent" {
            (
                Cases::all(1.0),
                if devbox {
                    "one time series: the dev box's VM".to_string()
                } else {
                    "one time series: the pool".to_string()
                },
            )
        } else {
            (
                Cases::all(1.0),
                format!(
                    "one time series while all is well: the query returns only VMs with a fault, and each {} combination adds one while it lasts",
                    a.dimensions.join("/")
                ),
            )
        };
        lines.push(Line {
            id: id.clone(),
            group: "monitoring".into(),
            label: format!(
                "Log search alert rule {} (every {})",
                a.name, a.evaluation_frequency
            ),
            unit_price,
            unit: "time series-month".into(),
            quantity: series,
            amount: series.map(|q| unit_price.map(|p| p * q)),
            assumption,
            source: unit_price.map(|_| "monitor".into()),
            converted: None,
        });
    }
}

pub(super) fn fixed_lines(
    plan: &Plan,
    f: &FixedPrices,
    o: &Options,
    lines: &mut Vec<Line>,
    missing: &mut Vec<Missing>,
) {
    let h = HOURS_PER_MONTH;
    if let Some(nat) = &plan.network.nat {
        lines.push(Line::from(Fixed {
            id: "nat-gateway",
            group: "network",
            // Standard and StandardV2 gateways are the same price (Learn, "Azure NAT Gateway SKUs")
            label: format!("NAT gateway ({})", nat.sku),
            unit_price: Some(f.nat_gateway_hourly),
            unit: "hour",
            quantity: h,
            assumption:
                "always on: the scale set's only outbound path (driver downloads, package mirrors)"
                    .into(),
            source: "network",
        }));
        lines.push(Line::from(Fixed {
            id: "nat-data",
            group: "network",
            label: "NAT gateway data processed".into(),
            unit_price: Some(f.nat_gateway_per_gb),
            unit: "GB",
            quantity: o.nat_gb_per_month,
            assumption: format!("{} GB/month assumed (driver and image downloads at scale-out, outbound calls); set --nat-gb", count(o.nat_gb_per_month)),
            source: "network",
        }));
        lines.push(Line::from(Fixed {
            id: "public-ip",
            group: "network",
            label: format!("Public IP ({}, static) of the NAT gateway", nat.sku),
            unit_price: Some(f.public_ip_hourly),
            unit: "hour",
            quantity: h,
            assumption: if nat.sku == "Standard" {
                "one IP, always on".into()
            } else {
                "one IP, always on; priced as a Standard IP (the embedded table has no StandardV2 row)".into()
            },
            source: "network",
        }));
    }
    let kv = &plan.vault;
    if kv.private_endpoint.is_some() {
        lines.push(Line::from(Fixed {
            id: "kv-private-endpoint",
            group: "network",
            label: "Private endpoint (Key Vault)".into(),
            unit_price: Some(f.private_endpoint_hourly),
            unit: "hour",
            quantity: h,
            assumption: "public network access is off: the vault is reached through a private endpoint (its data processing is negligible)".into(),
            source: "network",
        }));
        // landing zones: the platform team's zone (or Policy) serves the record; none here
        if plan.network.dns.create {
            lines.push(Line::from(Fixed {
                id: "kv-private-dns",
                group: "network",
                label: format!(
                    "Private DNS zone {}",
                    zone_name(ZoneOf::KeyVault, Cloud::AzureCloud)
                ),
                unit_price: Some(f.private_dns_zone_monthly),
                unit: "month",
                quantity: 1.0,
                assumption: "one zone; DNS queries are negligible".into(),
                source: "network",
            }));
        }
    }
    // monitoring: a landing zone's central workspace bills its ingestion and retention on the
    // workspace resource, to its owner ("Charges related to data ingestion and retention are
    // made on the workspace resource", Learn, "Manage access to Log Analytics workspaces");
    // `assumptions` says so
    let gb_month = o.log_gb_per_day * h / 24.0;
    if plan.monitoring.workspace.existing.is_none() {
        lines.push(Line::from(Fixed {
        id: "log-ingestion",
        group: "monitoring",
        label: "Log Analytics ingestion (Analytics Logs)".into(),
        unit_price: Some(f.log_analytics_per_gb),
        unit: "GB",
        quantity: gb_month,
        assumption: format!("{} GB/day assumed (diagnostic settings of {}); set --log-gb-per-day; the 5 GB/month free allowance is not deducted", count(o.log_gb_per_day), diagnostics_sources(plan)),
        source: "monitor",
    }));
        let days = plan.monitoring.workspace.retention_days;
        if days > f.log_analytics_free_retention_days {
            let extra = days - f.log_analytics_free_retention_days;
            lines.push(Line::from(Fixed {
            id: "log-retention",
            group: "monitoring",
            label: format!("Log Analytics retention beyond {} days", f.log_analytics_free_retention_days),
            unit_price: Some(f.log_analytics_retention_per_gb_month),
            unit: "GB-month",
            quantity: o.log_gb_per_day * extra as f64,
            assumption: format!("logRetentionDays {days}: {extra} days of data kept beyond the included {} days at steady state", f.log_analytics_free_retention_days),
            source: "monitor",
        }));
        }
    }
    let queue = plan.queue.as_ref();
    let alerts = &plan.monitoring.alerts;
    let prefix = format!("alert-{}-", plan.name);
    let names: Vec<&str> = alerts
        .iter()
        .map(|a| a.name.strip_prefix(&prefix).unwrap_or(&a.name))
        .collect();
    let mut free = Vec::new();
    if plan.monitoring.action_group.is_some() {
        free.push("the action group's emails");
    }
    if plan.monitoring.budget.is_some() {
        free.push("the budget");
    }
    lines.push(Line::from(Fixed {
        id: "metric-alerts",
        group: "monitoring",
        label: "Metric alert rules".into(),
        unit_price: Some(f.metric_alert_monthly),
        unit: "rule-month",
        quantity: alerts.len() as f64,
        assumption: format!(
            "{} rule(s), one time series each: {}{}",
            alerts.len(),
            names.join(", "),
            if free.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} {} free",
                    free.join(" and "),
                    if free.len() > 1 { "are" } else { "is" }
                )
            }
        ),
        source: "monitor",
    }));
    // security: an RSA 3072/4096 or EC key is an "advanced" key, billed at a higher rate
    let cmk = plan.cmk.as_ref();
    let advanced = cmk.filter(|c| advanced_key(c));
    let (ops_price, ops_rate) = match advanced {
        Some(c) => (
            f.key_vault_advanced_key_per10k_operations,
            format!(
                "; priced at the {} key's 'advanced key' rate, an upper bound (secret reads bill {}/10k)",
                key_name(c),
                f.currency.unit(f.key_vault_per10k_operations)
            ),
        ),
        None => (f.key_vault_per10k_operations, String::new()),
    };
    // an existing vault's operations are billed to the vault's subscription (`assumptions`)
    if plan.vault.existing.is_none() {
        lines.push(Line::from(Fixed {
        id: "kv-operations",
        group: "security",
        label: format!("Key Vault ({}) operations", kv.sku),
        unit_price: Some(ops_price),
        unit: "10k operations",
        quantity: o.key_vault_operations_per_month / 10_000.0,
        assumption: format!(
            "{} operations/month assumed (secret reads at boot, key wrap/unwrap); set --key-vault-ops{ops_rate}",
            count(o.key_vault_operations_per_month)
        ),
        source: "security",
    }));
    }
    if let Some(cmk) = cmk {
        if cmk.kty.ends_with("-HSM") {
            let (monthly, which) = if advanced.is_some() {
                (
                    f.key_vault_hsm_advanced_key_monthly,
                    "advanced key, the first 250 keys' rate",
                )
            } else {
                (f.key_vault_hsm_key_monthly, "RSA 2048 rate")
            };
            lines.push(Line::from(Fixed {
                id: "kv-hsm-key",
                group: "security",
                label: format!("HSM-protected disk encryption key ({})", key_name(cmk)),
                unit_price: Some(monthly),
                unit: "key-month",
                quantity: 1.0,
                assumption: format!("one {} key on a Premium vault ({which})", key_name(cmk)),
                source: "security",
            }));
        }
        let months = iso_months(cmk.rotate_after);
        lines.push(Line::from(Fixed {
            id: "kv-key-rotation",
            group: "security",
            label: "Automated rotation of the disk encryption key".into(),
            unit_price: months.map(|_| f.key_vault_rotation),
            unit: "rotation",
            quantity: months.map(|m| 1.0 / m).unwrap_or_default(),
            assumption: format!(
                "one scheduled rotation every {} (rotation policy)",
                cmk.rotate_after
            ),
            source: "security",
        }));
        if months.is_none() {
            missing.push(Missing {
                line: "kv-key-rotation".into(),
                price: format!("key rotations every {}", cmk.rotate_after),
                help: "gpuform cannot read this rotation period".into(),
            });
        }
        lines.push(Line::from(Fixed {
            id: "disk-encryption-set",
            group: "security",
            label: "Disk encryption set".into(),
            unit_price: Some(0.0),
            unit: "month",
            quantity: 1.0,
            assumption: "no charge; its key operations are in the Key Vault line".into(),
            source: "security",
        }));
    }
    // messaging
    if let Some(q) = queue.filter(|q| q.create) {
        if q.kind == QueueKind::ServiceBus {
            // the embedded table prices the Standard tier only
            let hourly = (q.sku == "Standard").then_some(f.service_bus_standard_hourly);
            if hourly.is_none() {
                missing.push(Missing {
                    line: "service-bus".into(),
                    price: format!("a Service Bus {} namespace", q.sku),
                    help: "gpuform's fixed price table has Service Bus Standard prices only".into(),
                });
            }
            lines.push(Line::from(Fixed {
                id: "service-bus",
                group: "messaging",
                label: format!("Service Bus {} namespace {}", q.sku, q.parent),
                unit_price: hourly,
                unit: "hour",
                quantity: h,
                assumption: "Standard tier base charge (private endpoints need Premium, about $677 per messaging unit-month: not priced)".into(),
                source: "messaging",
            }));
            let over = (o.queue_operations_per_month / 1e6
                - f.service_bus_included_operations_millions)
                .max(0.0);
            lines.push(Line::from(Fixed {
                id: "service-bus-operations",
                group: "messaging",
                label: "Service Bus operations above the included 13 million".into(),
                unit_price: hourly.map(|_| f.service_bus_per_million_operations),
                unit: "million operations",
                quantity: over,
                assumption: format!(
                    "{} million operations/month assumed (--queue-ops)",
                    count(o.queue_operations_per_month / 1e6)
                ),
                source: "messaging",
            }));
        }
        if q.kind == QueueKind::Storage {
            let price = f.storage_queue_per10k_operations.get(q.sku).copied();
            if price.is_none() {
                missing.push(Missing {
                    line: "storage-queue-operations".into(),
                    price: format!("queue operations on a {} storage account", q.sku),
                    help: "gpuform's fixed price table has no queue price for this SKU".into(),
                });
            }
            lines.push(Line::from(Fixed {
                id: "storage-queue-operations",
                group: "messaging",
                label: format!(
                    "Storage queue operations ({} {}/{})",
                    q.sku, q.parent, q.queue
                ),
                unit_price: price,
                unit: "10k operations",
                quantity: o.queue_operations_per_month / 10_000.0,
                assumption: format!(
                    "{} operations/month assumed (--queue-ops); queue capacity is negligible",
                    count(o.queue_operations_per_month)
                ),
                source: "messaging",
            }));
        }
        if q.private_endpoint.is_some() {
            lines.push(Line::from(Fixed {
                id: "storage-private-endpoint",
                group: "network",
                label: "Private endpoint (storage queue)".into(),
                unit_price: Some(f.private_endpoint_hourly),
                unit: "hour",
                quantity: h,
                assumption: "the storage account is reached through a private endpoint".into(),
                source: "network",
            }));
            if plan.network.dns.create {
                lines.push(Line::from(Fixed {
                    id: "storage-private-dns",
                    group: "network",
                    label: format!(
                        "Private DNS zone {}",
                        zone_name(ZoneOf::StorageQueue, Cloud::AzureCloud)
                    ),
                    unit_price: Some(f.private_dns_zone_monthly),
                    unit: "month",
                    quantity: 1.0,
                    assumption: "one zone".into(),
                    source: "network",
                }));
            }
        }
    }
}

/// The disk type of a plan's `storageAccountType`.
pub(super) fn disk_type(sku: &str) -> Option<DiskType> {
    serde_json::from_value(serde_json::Value::from(sku)).ok()
}

/// The resources whose diagnostic settings send logs to the workspace, in words.
fn diagnostics_sources(plan: &Plan) -> String {
    let what: Vec<&str> = plan
        .monitoring
        .diagnostics
        .iter()
        .map(|d| match d.target {
            "vault" => "the Key Vault",
            "autoscale" => "the autoscale setting",
            "sbNamespace" => "the Service Bus namespace",
            "storageQueueService" => "the storage queue service",
            other => other,
        })
        .collect();
    match what.split_last() {
        None => "no resource".into(),
        Some((last, [])) => (*last).into(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Key Vault bills RSA 3072/4096 and elliptic-curve keys as "advanced" keys.
fn advanced_key(c: &Cmk) -> bool {
    c.kty.starts_with("EC") || c.key_size > 2048
}

/// `RSA-HSM 3072`.
fn key_name(c: &Cmk) -> String {
    format!("{} {}", c.kty, c.key_size)
}

/// Months in an ISO 8601 period of whole years, months or days (`P1Y`, `P6M`, `P90D`).
fn iso_months(period: &str) -> Option<f64> {
    let body = period.strip_prefix('P')?;
    let unit = body.chars().last()?;
    let n: f64 = body[..body.len() - 1].parse().ok()?;
    let months = match unit {
        'Y' => n * 12.0,
        'M' => n,
        'D' => n * 12.0 / 365.0,
        _ => return None,
    };
    (months > 0.0).then_some(months)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_periods_in_months() {
        assert_eq!(iso_months("P1Y"), Some(12.0));
        assert_eq!(iso_months("P6M"), Some(6.0));
        assert_eq!(iso_months("P365D"), Some(12.0));
        assert_eq!(iso_months("P0Y"), None);
        assert_eq!(iso_months("PT1H"), None);
        assert_eq!(iso_months("1Y"), None);
    }
}

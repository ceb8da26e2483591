//! GPU-utilisation scaling of a serving pool (issue 36, `autoscale.gpuUtilization`).
//!
//! Autoscale documents custom metrics only from Application Insights, in the `Standard` and
//! `Azure.ApplicationInsights` namespaces (../shared/azure/serving.md D8), so the one path
//! gpuform builds is: a workspace-based Application Insights component with local
//! authentication disabled in the pool's resource group; the pool's identity holds Monitoring
//! Metrics Publisher on it; the GPU collector on each VM posts its mean GPU utilisation once a
//! minute (the track protocol, a Microsoft Entra token of the pool's identity); the autoscale
//! profile's scale-out/in rules read that metric with `metricResourceUri` = the component.
//! Every Azure literal comes from [`crate::facts::app_insights`].
//!
//! The connection string and the identity's client id exist only at deployment: the install
//! script carries [`APPI_CONNECTION`] and the Logs Ingestion path's client-id placeholder,
//! which the template replaces in the scale set's custom data (as `plan::gpu_monitoring`'s
//! `Ingestion` does).

use serde::Serialize;

use crate::facts::app_insights as f;
use crate::spec::model::WorkloadSpec;

/// The metric's name: gpuform's own (not an Azure fact); the collector sends it and the rules
/// read it, both from this constant.
pub const METRIC_NAME: &str = "GpuUtilizationPercent";

/// Placeholder of the component's connection string in the install script.
pub const APPI_CONNECTION: &str = "@@GPUFORM_APPI_CONNECTION@@";

/// The longest connection string the template may put in for [`APPI_CONNECTION`]: four keys,
/// two GUIDs and two regional URLs stay under 300 characters; 400 leaves room (an assumption:
/// no page bounds it). The client id's placeholder is the Logs Ingestion path's, counted by
/// `gpu_monitoring::received_bytes`.
pub const APPI_CONNECTION_MAX_BYTES: usize = 400;

/// Bytes the connection string adds to `custom` over its placeholders.
pub fn received_growth(custom: &[u8]) -> usize {
    // the placeholder is ASCII, so its matches in the bytes are its matches in the text (an
    // invalid sequence never holds an ASCII byte); memmem: `validate` counts them in the whole
    // custom data (tens of KB) of every spec
    memchr::memmem::find_iter(custom, APPI_CONNECTION.as_bytes()).count()
        * APPI_CONNECTION_MAX_BYTES.saturating_sub(APPI_CONNECTION.len())
}

/// `plan.serving.gpuScaling`: what the GPU scale rules, the component and the collector share.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuScaling {
    /// The Application Insights component (`Microsoft.Insights/components`).
    pub component_name: String,
    pub component_kind: &'static str,
    pub application_type: &'static str,
    pub ingestion_mode: &'static str,
    /// What the collector sends and the rules read.
    pub metric_name: &'static str,
    pub metric_namespace: &'static str,
    /// The track protocol's route under the connection string's `IngestionEndpoint`.
    pub track_route: &'static str,
    /// Token audience (IMDS `resource`) and the IMDS token endpoint with its `api-version`.
    pub audience: &'static str,
    pub token_url: String,
    /// Percent: add instances above, remove one below (the pool's mean over `timeWindow`).
    pub scale_out_above: u32,
    pub scale_in_below: u32,
    /// `autoscale.gpuUtilization.scaleInBelow`, or how the default was derived.
    pub scale_in_from: String,
    pub scale_out_step: u32,
    /// Placeholders the template replaces in the custom data.
    pub connection_placeholder: &'static str,
    pub client_id_placeholder: &'static str,
    /// What is an assumption rather than a sourced fact (`show` and `validate` print them).
    pub assumptions: Vec<String>,
}

/// The largest scale-in threshold that cannot flap: after a scale-in from `n` to `n - 1`
/// instances the same work spreads over fewer GPUs and the mean rises by `n / (n - 1)`; at the
/// smallest pool that scales in (`n = max(min, 1) + 1`) it must stay under `out`.
pub fn flap_safe_scale_in(out: u32, min: u32) -> u32 {
    let n = min.max(1) + 1;
    // strictly below: below * n / (n - 1) < out
    let limit = u64::from(out) * u64::from(n - 1);
    let below = limit / u64::from(n);
    let below = if below * u64::from(n) == limit {
        below.saturating_sub(1)
    } else {
        below
    };
    below as u32
}

/// Whether `below` can flap against `out` at the smallest pool that scales in.
pub fn can_flap(below: u32, out: u32, min: u32) -> bool {
    let n = u64::from(min.max(1) + 1);
    u64::from(below) * n >= u64::from(out) * (n - 1)
}

/// The GPU scaling plan, or `None` without `autoscale.gpuUtilization` or where the rules refuse
/// it (no serving, no GPU monitoring, Windows, outside the public cloud).
pub fn plan(name: &str, s: &WorkloadSpec) -> Option<GpuScaling> {
    let t = s.autoscale.as_ref()?.gpu_utilization.as_ref()?;
    s.serving.as_ref()?;
    // resolved by the plan's time (defaults); left out at validation means on where it can run
    if s.monitoring.gpu.enabled == Some(false)
        || crate::spec::resolve::image_basics(&s.compute.image).os
            == crate::spec::model::OsType::Windows
        || super::devbox::applies(s)
        || (f::PUBLIC_CLOUD_ONLY && s.effective_cloud() != crate::azure::Cloud::AzureCloud)
    {
        return None;
    }
    use crate::facts::logs_ingestion as li;
    let min = s.capacity.min;
    let (scale_in_below, scale_in_from) = match t.scale_in_below {
        Some(b) => (b, "autoscale.gpuUtilization.scaleInBelow".to_string()),
        None => (
            flap_safe_scale_in(t.scale_out_above, min),
            format!(
                "derived: the largest value that cannot flap with scaleOutAbove {} at {} instances",
                t.scale_out_above,
                min.max(1) + 1
            ),
        ),
    };
    Some(GpuScaling {
        component_name: format!("appi-{name}"),
        component_kind: f::COMPONENT_KIND,
        application_type: f::APPLICATION_TYPE,
        ingestion_mode: f::INGESTION_MODE,
        metric_name: METRIC_NAME,
        metric_namespace: f::METRIC_NAMESPACE,
        track_route: f::TRACK_ROUTE,
        audience: f::audience(s.effective_cloud()),
        token_url: format!("{}?api-version={}", li::IMDS_TOKEN_URL, li::IMDS_TOKEN_API_VERSION),
        scale_out_above: t.scale_out_above,
        scale_in_below,
        scale_in_from,
        scale_out_step: t.scale_out_step.unwrap_or(1),
        connection_placeholder: APPI_CONNECTION,
        client_id_placeholder: super::gpu_monitoring::INGEST_CLIENT_ID,
        assumptions: vec![
            format!(
                "GPU scaling: {} ({})",
                f::DEFAULT_NAMESPACE.what,
                f::DEFAULT_NAMESPACE.read
            ),
            format!(
                "GPU scaling: {} ({})",
                f::ENVELOPE_NAMES.what,
                f::ENVELOPE_NAMES.read
            ),
            "GPU scaling: Microsoft lists no regions for Application Insights custom metrics in the metric store (serving.md D7); verify after the first deployment that `az monitor metrics list --resource <component id> --namespace Azure.ApplicationInsights --metric GpuUtilizationPercent` returns points".to_string(),
        ],
    })
}

/// The collect service's environment for the metric (systemd `Environment=` lines).
pub fn environment(g: &GpuScaling) -> String {
    format!(
        "Environment=GPUFORM_APPI_CONNECTION={}\nEnvironment=GPUFORM_APPI_METRIC={}\nEnvironment=GPUFORM_APPI_ROUTE={}\nEnvironment=GPUFORM_APPI_AUDIENCE={}\nEnvironment=GPUFORM_APPI_CLIENT_ID={}\nEnvironment=GPUFORM_APPI_TOKEN_URL={}\n",
        g.connection_placeholder,
        g.metric_name,
        g.track_route,
        g.audience,
        g.client_id_placeholder,
        g.token_url
    )
}

/// The pool's identity may publish telemetry to the component, and nothing else.
pub(crate) fn publisher_role() -> super::common::RoleAssignment {
    super::common::RoleAssignment {
        sym: "identityAppiPublisher",
        role_name: "Monitoring Metrics Publisher",
        role_id: crate::facts::roles::MONITORING_METRICS_PUBLISHER.id,
        scope: "appi",
        principal: "identity",
        system_identity: false,
        description: "The pool's identity publishes its GPU utilisation metric to Application Insights (Microsoft Entra authenticated ingestion).".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placeholder counts, none twice, whatever bytes surround it (invalid UTF-8 too: the
    /// text view of the bytes has the same matches).
    #[test]
    fn the_growth_counts_every_placeholder_once() {
        let per = APPI_CONNECTION_MAX_BYTES - APPI_CONNECTION.len();
        assert_eq!(received_growth(b"no placeholder"), 0);
        let mut custom = b"\xff\xfe".to_vec();
        custom.extend_from_slice(APPI_CONNECTION.as_bytes());
        custom.extend_from_slice(b"\xc3");
        custom.extend_from_slice(APPI_CONNECTION.as_bytes());
        custom.extend_from_slice(APPI_CONNECTION.as_bytes());
        custom.extend_from_slice(&APPI_CONNECTION.as_bytes()[..10]);
        assert_eq!(received_growth(&custom), 3 * per);
        let lossy = String::from_utf8_lossy(&custom)
            .matches(APPI_CONNECTION)
            .count();
        assert_eq!(lossy, 3);
    }

    #[test]
    fn the_derived_scale_in_cannot_flap_and_is_the_largest_that_cannot() {
        for out in 1..100 {
            for min in 0..6 {
                let b = flap_safe_scale_in(out, min);
                assert!(!can_flap(b, out, min), "out {out} min {min} below {b}");
                assert!(
                    can_flap(b + 1, out, min),
                    "out {out} min {min}: {} is safe too",
                    b + 1
                );
            }
        }
        // 75 % at a pool of 1..2: one instance fewer doubles the load
        assert_eq!(flap_safe_scale_in(75, 1), 37);
    }
}

//! Online serving (issue 36): the internal Standard Load Balancer, the private-only Application
//! Gateway v2, the Private Link service, autoscale on the gateway's request metric, the
//! Application Health extension, automatic repairs and rolling upgrades on a Flexible scale
//! set, and the model servers' own defaults.
//!
//! Source: the team's fact sheet `../shared/azure/serving.md` (58 sources, retrieved
//! 2026-12-05), which quotes each page verbatim and gives its repository, path, commit and date
//! (the `S<n>` ids below are its). Where the sheet says NOT FOUND the entry is an
//! [`Source::assumption`], the render takes the conservative reading and the other is a spec
//! field. `tests/facts_serving.rs` holds every literal here against the sheet's own words (the
//! sheet beside the checkout, else the dated copy in `tests/fixtures/sources/serving.md`), the
//! metric against `metrics.json`, the API versions against the type data, the extension against
//! `extensions.json`.

use super::Source;

const READ: &str = "2026-12-05";

/// The fact sheet every entry below quotes.
pub const SHEET: &str = "../shared/azure/serving.md (retrieved 2026-12-05)";

// ---------------------------------------------------------------- resource types

/// The resource types serving renders, all at the Network API version of
/// [`super::api::ApiVersions::network`] (in the type data: `tests/facts_api.rs`).
pub const LOAD_BALANCER_TYPE: &str = "Microsoft.Network/loadBalancers";
pub const GATEWAY_TYPE: &str = "Microsoft.Network/applicationGateways";
pub const PRIVATE_LINK_SERVICE_TYPE: &str = "Microsoft.Network/privateLinkServices";

// ---------------------------------------------------------------- load balancer

/// The only load balancer SKU gpuform renders. A Flexible scale set does not support Basic
/// (S4: "| Azure Load Balancer Basic SKU | No |"), and Basic was retired on 2025-09-30 (S5).
pub const LB_SKU: &str = "Standard";
pub const LB_SKU_REFUSED: &str = "Basic";
pub const LB_SKU_SOURCE: Source = Source::doc(
    "serving.md A3: Flexible-orchestration feature table (azure-docs, code-index file 2968124063) '| Azure Load Balancer Basic SKU | No |'; https://docs.azure.cn/en-us/load-balancer/skus 'On September 30, 2025, Basic Load Balancer was retired.'",
    READ,
);

/// Ports an HTTP(S) load balancer probe may not target (S7, azure-docs
/// load-balancer-custom-probe-overview.md @ 0147a27, 2023-10-10).
pub const LB_PROBE_REFUSED_PORTS: &[u16] = &[19, 21, 25, 70, 110, 119, 143, 220, 993];
pub const LB_PROBE_SOURCE: Source = Source::doc(
    "serving.md A4-A6: azure-rest-api-specs network stable/2024-05-01/loadBalancer.json @ 18d4da0 (protocol Http|Tcp|Https, 'a 200 OK response from the specifies URI is required', intervalInSeconds 'The default value is 15, the minimum value is 5', probeThreshold); MicrosoftDocs/azure-docs load-balancer-custom-probe-overview.md @ 0147a27 (2023-10-10): probes from 168.63.129.16, the AzureLoadBalancer service tag, HTTP probes may not target ports 19, 21, 25, 70, 110, 119, 143, 220, 993",
    READ,
);
/// `intervalInSeconds`: the REST minimum (the 2023 page and the REST spec disagree on the
/// default, 5 vs 15: always rendered explicitly).
pub const LB_PROBE_INTERVAL_MIN: u32 = 5;
/// The interval gpuform renders: the minimum, so a dead server leaves rotation fast.
pub const LB_PROBE_INTERVAL: u32 = 5;
/// Consecutive probe results before an instance enters or leaves rotation.
pub const LB_PROBE_THRESHOLD: u32 = 2;
/// The service tag the load balancer's probes come from (168.63.129.16), which NSGs must admit.
pub const PROBE_SERVICE_TAG: &str = "AzureLoadBalancer";
/// Load-balancing rule `idleTimeoutInMinutes`: "can be set between 4 and 30 minutes. The
/// default value is 4 minutes." (S6).
pub const LB_IDLE_TIMEOUT_MINUTES: (u32, u32) = (4, 30);

// ---------------------------------------------------------------- application gateway

/// Standard_v2 (name and tier): supports private-only frontends once the feature is registered
/// (S14: "Standard_v2 and WAF_v2 support private-only, front-end IPs after the feature is
/// enabled.").
pub const GATEWAY_SKU: &str = "Standard_v2";
pub const GATEWAY_SOURCE: Source = Source::doc(
    "serving.md B1, B5, B8-B13: SupportArticles-docs application-gateway-frontend-ip-cannot-have-public-ip-subnet-error.md @ 2368273 (2026-02-13); azure-docs configuration-infrastructure.md @ 015ce18 (dedicated subnet, /24 recommended); application-gateway-probe-overview.md @ 002ef62 (healthy = 200-399); azure-rest-api-specs network stable/2024-05-01/applicationGateway.json @ dea509e (connectionDraining, requestTimeout, autoscaleConfiguration)",
    READ,
);

/// The subscription feature a private-only gateway needs (S14, S16: `az feature register --name
/// EnableApplicationGatewayNetworkIsolation --namespace Microsoft.Network`); registration "may
/// take up to 30 minutes".
pub const GATEWAY_FEATURE: Feature = Feature {
    namespace: "Microsoft.Network",
    name: "EnableApplicationGatewayNetworkIsolation",
    why: "a private-only Application Gateway (no public IP) needs it; without it Azure refuses the gateway",
    source: Source::doc(
        "serving.md B1/B3: SupportArticles-docs application-gateway-frontend-ip-cannot-have-public-ip-subnet-error.md @ 2368273 (2026-02-13); azure-docs application-gateway-private-deployment.md @ c370a54 (2023-04-04)",
        READ,
    ),
};
/// Azure's refusal of a private-only gateway without the feature (S14).
pub const GATEWAY_FEATURE_ERROR_CODE: &str =
    "ApplicationGatewayFrontendIpCannotHavePublicIpAndSubnet";
pub const GATEWAY_FEATURE_ERROR_MESSAGE: &str =
    "Application Gateway without Public IP is not supported for the selected SKU tier Standard_v2";
/// "Feature registration may take up to 30 minutes" (S16).
pub const FEATURE_REGISTRATION_MINUTES: u32 = 30;

/// A subscription feature gpuform cannot register (render writes templates; registering is the
/// subscription owner's act). `plan.serving.required_features` carries them to preflight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feature {
    pub namespace: &'static str,
    pub name: &'static str,
    #[serde(skip)]
    pub why: &'static str,
    #[serde(skip)]
    pub source: Source,
}

impl Feature {
    /// The command that registers it.
    pub fn command(&self) -> String {
        format!(
            "az feature register --namespace {} --name {}",
            self.namespace, self.name
        )
    }
}

/// The gateway's dedicated subnet: a /24 is recommended for v2 (S18: "A minimum subnet size of
/// /24 is recommended."); 125 instance addresses + 1 private frontend IP + 5 Azure reserved.
pub const GATEWAY_SUBNET_PREFIX: u8 = 24;
/// Addresses the gateway needs besides its instances: the private frontend IP.
pub const GATEWAY_FRONTEND_ADDRESSES: u32 = 1;
/// `autoscaleConfiguration`: "The instance counts can range from 0 to 125" (S26); REST
/// `maxCapacity` minimum 2 (S20); "The default value for maximum instance count is 10" (S26).
pub const GATEWAY_CAPACITY_MAX: u32 = 125;
pub const GATEWAY_MAX_CAPACITY_MIN: u32 = 2;
pub const GATEWAY_DEFAULT_MAX: u32 = 10;
/// A v2 gateway's private frontend takes a static address (Learn, "Application Gateway
/// front-end IP address configuration": "For Application Gateway v2 SKU deployments, you must
/// define a static IP address when adding a private IP address").
pub const GATEWAY_PRIVATE_IP: Source = Source::doc(
    "https://learn.microsoft.com/azure/application-gateway/configuration-front-end-ip (stored copy, ja-jp edition: Application Gateway v2 SKU deployments must define a static private IP address)",
    READ,
);
/// Healthy status codes of a custom probe: "between 200 and 399" (S19).
pub const GATEWAY_PROBE_STATUS: &str = "200-399";
/// `connectionDraining.drainTimeoutInSec`: minimum 1, maximum 3600 (S20).
pub const DRAIN_SECONDS: (u64, u64) = (1, 3600);
/// `requestTimeout`: "Acceptable values are from 1 second to 86400 seconds" (S20). Its default
/// is NOT FOUND (B10): always rendered explicitly.
pub const REQUEST_TIMEOUT_SECONDS: (u64, u64) = (1, 86_400);
pub const REQUEST_TIMEOUT_DEFAULT: Source = Source::assumption(
    "serving.md B10: the default of backendHttpSettings requestTimeout is NOT FOUND (not in the REST spec, not in the stored docs); gpuform always renders it (spec default 300s)",
    READ,
);
/// What a private-only gateway's subnet NSG must admit: "The only required rule is Allow
/// inbound from AzureLoadBalancer"; it "no longer require[s] inbound rules for GatewayManager"
/// (S17, the 2024-07-18 edition of the private deployment page). So no GatewayManager
/// 65200-65535 rule is rendered: that requirement is for gateways with a public IP.
pub const GATEWAY_NSG: Source = Source::doc(
    "serving.md B4: application-gateway-private-deployment.md (ms.date 2024-07-18, code-index file 10991125706): 'Network security groups associated to an Application Gateway subnet no longer require inbound rules for GatewayManager ... The only required rule is Allow inbound from AzureLoadBalancer'",
    READ,
);
/// The GatewayManager range a gateway with a public IP needs, and a private-only one does not.
pub const GATEWAY_MANAGER_PORTS: &str = "65200-65535";
/// Private link with a private-only gateway: "unsupported with private only gateway" (S17).
pub const GATEWAY_PRIVATE_LINK_UNSUPPORTED: Source = Source::doc(
    "serving.md B4: application-gateway-private-deployment.md (ms.date 2024-07-18): 'Private link configuration support for tunneling traffic through private endpoints to Application Gateway is unsupported with private only gateway.'",
    READ,
);
/// Subnet delegation to `Microsoft.Network/applicationGateways`: NOT FOUND in Microsoft's pages
/// (B6; only third-party code reports an error that asks for it). Not rendered by default;
/// `frontend.delegateSubnet: true` renders it.
pub const GATEWAY_DELEGATION: Source = Source::assumption(
    "serving.md B6: subnet delegation of the gateway subnet is NOT FOUND in Microsoft docs (only third-party Terraform reports ApplicationGatewayNetworkIsolationRequiresSubnetDelegation); gpuform renders no delegation unless serving.frontend.delegateSubnet is true",
    READ,
);
pub const GATEWAY_DELEGATION_SERVICE: &str = "Microsoft.Network/applicationGateways";
/// "Communication with backend server pools is always HTTP/1.1" (Learn, Application Gateway
/// features, "WebSocket and HTTP/2 traffic"): no gRPC to the model servers through a gateway.
pub const GATEWAY_BACKEND_HTTP11: Source = Source::doc(
    "https://learn.microsoft.com/azure/application-gateway/features#websocket-and-http2-traffic ('HTTP/2 protocol support is available to clients that connect to application gateway listeners only. Communication with backend server pools is always HTTP/1.1.', as quoted by the CIS Azure Foundations benchmark 7.13)",
    READ,
);
/// The gateway's TLS policy: the strictest predefined one, TLS 1.2 minimum, 1.3 enabled, no CBC
/// ciphers ("20220101S": minimum protocol version 1.2). It governs HTTPS listeners; the
/// rendered listener is HTTP inside the VNet (a TLS listener needs a certificate, not rendered).
pub const GATEWAY_SSL_POLICY: &str = "AppGwSslPolicy20220101S";
pub const GATEWAY_SSL_POLICY_SOURCE: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/application-gateway/application-gateway-ssl-policy-overview.md @ ba5d7abf09b935686420b801bb9928960c3fd004 (ms.date 2023-06-06): predefined policy table, 20220101S minimum protocol version 1.2, enabled 1.2 and 1.3",
    READ,
);
/// Backend settings protocol and the listener protocol the render uses (HTTP inside the VNet).
pub const GATEWAY_BACKEND_PROTOCOL: &str = "Http";
/// The request routing rule's priority (required from API 2021-08-01 on for v2 rules).
pub const GATEWAY_RULE_PRIORITY: u32 = 100;

// ---------------------------------------------------------------- autoscale on requests

/// Application Gateway v2's "Requests per minute per Healthy Host" (S21: Count, Average, PT1M,
/// dimension `BackendSettingsPool`).
pub const REQUEST_METRIC: &str = "AvgRequestCountPerHealthyHost";
pub const REQUEST_METRIC_NAMESPACE: &str = "Microsoft.Network/applicationGateways";
pub const REQUEST_METRIC_DIMENSION: &str = "BackendSettingsPool";
pub const REQUEST_METRIC_GRAIN: &str = "PT1M";
pub const REQUEST_METRIC_STATISTIC: &str = "Average";
/// The dimension value is `<backend-pool-name>~<backend-http-setting-name>` (S23).
pub fn request_dimension_value(pool: &str, settings: &str) -> String {
    format!("{pool}~{settings}")
}
pub const REQUEST_METRIC_SOURCE: Source = Source::doc(
    "serving.md B11: MicrosoftDocs/azure-monitor-docs microsoft-network-applicationgateways-metrics.md @ 0e7def8 (2026-07-13); azure-docs ingress-controller-autoscale-pods.md @ a904abc (2023-10-26) 'BackendSettingsPool eq '<backend-pool-name>~<backend-http-setting-name>''; application-gateway-metrics.md @ 0bd2c43 'If there are no requests flowing through the Application Gateway or no data for a metric, the metric is not reported.'",
    READ,
);
/// With no requests the gateway reports no data point (S24); autoscale then scales out to the
/// profile's default when the current count is below it (S29). Planned for: the default of a
/// request-driven profile is its minimum, so an idle pool is never grown by the missing data.
pub const NO_TRAFFIC: Source = Source::doc(
    "serving.md B11 + C4: application-gateway-metrics.md @ 0bd2c43 (no requests: the metric is not reported); autoscale-understanding-settings.md @ 002d4a3 'If there's a problem reading the resource metric, and the current capacity is below the default, autoscale scales out to the default.'",
    READ,
);
/// `metricResourceUri` naming a resource other than the scaled one (S29, S30). Whether it may
/// be in another subscription or region is NOT FOUND (C5): the gateway is always rendered in
/// the scale set's resource group, subscription and region.
pub const METRIC_RESOURCE_ELSEWHERE: Source = Source::assumption(
    "serving.md C5: constraints on metricResourceUri (same subscription? same region?) are NOT FOUND; gpuform keeps the gateway in the scale set's resource group and region",
    READ,
);

// ---------------------------------------------------------------- private link service

/// The NAT IPs of a Private Link service come from a subnet with
/// `privateLinkServiceNetworkPolicies: Disabled`.
pub const PLS_SUBNET_POLICY: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/private-link/disable-private-link-service-network-policy.md @ 06b40420b9aa396ad8df5688bc1308f7b9213c00 (ms.date 2019-09-10): 'In order to choose a private link service NAT IP from a given subnet, an explicit disable setting privateLinkServiceNetworkPolicies is required.'",
    READ,
);
/// The NAT subnet gpuform derives: a /28 (11 usable addresses; Microsoft recommends at least
/// eight NAT IP addresses available).
pub const PLS_SUBNET_PREFIX: u8 = 28;

// ---------------------------------------------------------------- health, repairs, upgrades

/// Automatic repairs' `gracePeriod`: "The minimum allowed grace period is 10 minutes (PT10M)
/// ... The maximum allowed grace period is 90 minutes (PT90M)." (S51); the 2022 page says the
/// default is 30 minutes (S50), the REST description 10: always rendered explicitly.
pub const REPAIR_GRACE_MINUTES: (u64, u64) = (10, 90);
pub const REPAIR_SOURCE: Source = Source::doc(
    "serving.md E4: azure-docs virtual-machine-scale-sets-automatic-instance-repairs.md @ 012ad30 (2022-11-22); Learn @azure/arm-compute AutomaticRepairsPolicy (gracePeriod PT10M..PT90M)",
    READ,
);
/// Rolling upgrades on Flexible scale sets: GA 2024-11-19 (S44); the scale set must use the
/// Application Health extension (S47, A7: LB probes are not supported on Flexible).
pub const ROLLING_SOURCE: Source = Source::doc(
    "serving.md E1-E3: Azure Compute Blog 'General Availability: Upgrade Policies on Virtual Machine Scale Sets with Flexible Orchestration' (2024-11-19); docs.azure.cn virtual-machine-scale-sets-configure-rolling-upgrades (Flexible needs the application health extension); RollingUpgradePolicy defaults 20 %",
    READ,
);
/// "It's suggested to first create your scale set using Manual Upgrade Policy and once you have
/// confirmed your health probe or application health extension is properly reporting back your
/// application health, update your Upgrade Policy from Manual to Rolling" (S8, azure-docs
/// virtual-machine-scale-sets-configure-rolling-upgrades.md @ 08f4885, 2024-01-19).
pub const MANUAL_FIRST: Source = Source::doc(
    "serving.md E2: MicrosoftDocs/azure-docs articles/virtual-machine-scale-sets/virtual-machine-scale-sets-configure-rolling-upgrades.md @ 08f4885c1939631e28b344df04471382ad427432 (2024-01-19), 'Setting or updating the Rolling Upgrade Policy'",
    READ,
);
/// `rollingUpgradePolicy` percentages: the documented defaults, 20 % each (S48).
pub const ROLLING_BATCH_PERCENT: u32 = 20;
/// MaxSurge is preview (S46): off unless `serving.upgrade.maxSurge`, which needs this feature.
pub const MAX_SURGE_FEATURE: Feature = Feature {
    namespace: "Microsoft.Compute",
    name: "MaxSurgeRollingUpgrade",
    why: "rolling upgrades with MaxSurge are in preview",
    source: Source::doc(
        "serving.md E1: https://learn.microsoft.com/azure/virtual-machine-scale-sets/virtual-machine-scale-sets-maxsurge ('Rolling upgrades with MaxSurge for Virtual Machine Scale Sets is currently in preview.', -FeatureName MaxSurgeRollingUpgrade); GA NOT FOUND",
        READ,
    ),
};
/// The Application Health extension's health states (extensions.json `apphealth-linux`
/// `healthStates`): with Rich Health States (2.0) an HTTP 2xx without the body
/// `{"ApplicationHealthState": "Healthy"}` is *Unknown*, and Unknown is repaired like
/// Unhealthy. Model servers answer their health path with an empty 200 (vLLM's `GET /health`,
/// Triton's `/v2/health/ready`: "Content-Length: 0"), so serving uses Binary Health States
/// (1.0: HTTP 200 is Healthy) unless `serving.richHealthStates` says the server sends the body.
pub const HEALTH_STATES: Source = Source::doc(
    "../shared/azure/extensions.json apphealth-linux healthStates (Learn virtual-machine-scale-sets-health-extension): 'rich (typeHandlerVersion 2.0) ... 2xx with body {\"ApplicationHealthState\": \"Healthy\"} -> Healthy; ... missing or invalid ApplicationHealthState ... -> Unknown' and 'Unknown: treated as unhealthy; repair triggered'",
    READ,
);
/// The extension's own `gracePeriod` setting (Rich Health States only): at most 14400 seconds.
pub const HEALTH_GRACE_MAX_SECONDS: u64 = 14_400;
/// The extension's probe interval gpuform renders (5-60 s allowed) and its probe count (1-24).
pub const HEALTH_INTERVAL_SECONDS: u32 = 5;
pub const HEALTH_PROBES: u32 = 2;

// ---------------------------------------------------------------- model servers

/// Defaults a model server's own documentation gives: (port, health port, health path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerDefaults {
    pub port: Option<u16>,
    /// The HTTP port of the health endpoint when it differs from `port` for the protocol.
    pub http_port: Option<u16>,
    pub grpc_port: Option<u16>,
    pub health_path: Option<&'static str>,
    pub source: Source,
}

/// vLLM's OpenAI-compatible server: `port: int = 8000`, `GET /health` answers 200 (503 when the
/// engine is dead).
pub const VLLM: ServerDefaults = ServerDefaults {
    port: Some(8000),
    http_port: Some(8000),
    grpc_port: None,
    health_path: Some("/health"),
    source: Source::doc(
        "vllm-project/vllm vllm/entrypoints/openai/cli_args.py @ 789340fbad95a900ca3c467c9cee33b3d905fd61 (FrontendArgs 'port: int = 8000'); vllm/entrypoints/serve/instrumentator/health.py @ 98b137c61dcf8be6fac463c982053db8c1417cfb ('@router.get(\"/health\")' returns Response(status_code=200))",
        READ,
    ),
};

/// Triton: HTTP 8000, gRPC 8001; `/v2/health/ready` "returns status 200 if Triton is ready and
/// non-200 if it is not ready".
pub const TRITON: ServerDefaults = ServerDefaults {
    port: Some(8000),
    http_port: Some(8000),
    grpc_port: Some(8001),
    health_path: Some("/v2/health/ready"),
    source: Source::doc(
        "triton-inference-server/server docs/getting_started/quickstart.md @ 00a3249b0378d6e1891e2204c8c4d097a79562c8 ('Started GRPCInferenceService at 0.0.0.0:8001', 'Started HTTPService at 0.0.0.0:8000', 'curl -v localhost:8000/v2/health/ready ... Content-Length: 0')",
        READ,
    ),
};

/// What gpuform fills in for `server` (nothing for TGI, TensorRT-LLM and custom servers: their
/// port differs between the launcher and the container image, or no source was read; the spec
/// gives `port` and `healthPath`).
pub fn server_defaults(server: &str) -> Option<ServerDefaults> {
    match server {
        "vllm" => Some(VLLM),
        "triton" => Some(TRITON),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dimension_value_joins_pool_and_settings_with_a_tilde() {
        assert_eq!(request_dimension_value("pool", "http"), "pool~http");
    }
}

//! `spec.serving` and `spec.autoscale.requests`: a request-driven pool of GPU model servers
//! (vLLM, TGI, Triton, TensorRT-LLM) behind a private frontend (issue 36). The names follow
//! the agreed interface (`/work/coord/serving-interface.md`); the facts they rely on are in
//! [`crate::facts::serving`], the rules in `check::rules::serving`, the resolved values in
//! `plan::serving`.

use serde::{Deserialize, Serialize};

use super::defaults as d;

/// `spec.serving`: present means a request-driven pool (online inference).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Serving {
    /// The model server; fills `port`, `healthPort` and `healthPath` only where its own
    /// documentation gives them ([`crate::facts::serving::server_defaults`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ModelServer>,
    /// The model server's port on each VM (what the frontend forwards to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(default)]
    pub protocol: ServingProtocol,
    /// The port of the HTTP health endpoint (default: `port`; a gRPC server's HTTP port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_port: Option<u16>,
    /// HTTP GET answers 200 once the model is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_path: Option<String>,
    #[serde(default)]
    pub frontend: Frontend,
    /// Requests one instance serves at once (vLLM `max_num_seqs`, TGI
    /// `max_concurrent_requests`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Mean time of one request at that concurrency (`2s`, `800ms`, `PT2S`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_time: Option<String>,
    /// Instead of `serviceTime`: output tokens per second of one instance at full concurrency,
    /// with `outputTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_second: Option<f64>,
    /// Mean output tokens per request (with `tokensPerSecond`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u32>,
    /// The p95 of one request's time at that concurrency, measured beside `serviceTime`: how
    /// much requests vary (the simulator's service-time spread). Absent: exponential, whose p95
    /// is 3.0 × the mean (conservative for LLM completions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_time_p95: Option<String>,
    /// With `outputTokens`: the p95 of the output tokens per request (the spread, as
    /// `serviceTimeP95`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_p95: Option<u32>,
    /// The latency target (p95) `simulate --tune` and the latency alert use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p95: Option<String>,
    /// VM start to healthy (driver, image pull, weights into GPU memory): the repairs' grace
    /// period, the rolling upgrade's pause, the simulated provisioning time.
    #[serde(default = "d::model_load_time")]
    pub model_load_time: String,
    /// The gateway's backend request timeout (Azure has no documented default: always explicit).
    #[serde(default = "d::request_timeout")]
    pub request_timeout: String,
    /// Connection draining when an instance leaves the backend pool (scale-in, upgrade);
    /// `requestTimeout` (at most 3600 s) when absent, so a request in flight can finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_timeout: Option<String>,
    #[serde(default)]
    pub upgrade: Upgrade,
    /// The model server answers `{"ApplicationHealthState": "Healthy"}` on its health path:
    /// the Application Health extension's Rich Health States (2.0) instead of Binary (1.0).
    #[serde(default)]
    pub rich_health_states: bool,
}

impl Serving {
    /// `drainTimeout` as written, else `requestTimeout`.
    pub fn drain_timeout_text(&self) -> &str {
        self.drain_timeout
            .as_deref()
            .unwrap_or(self.request_timeout.as_str())
    }
}

/// `serving.server`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ModelServer {
    Vllm,
    Tgi,
    Triton,
    TensorrtLlm,
    Custom,
}

impl ModelServer {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelServer::Vllm => "vllm",
            ModelServer::Tgi => "tgi",
            ModelServer::Triton => "triton",
            ModelServer::TensorrtLlm => "tensorrtLlm",
            ModelServer::Custom => "custom",
        }
    }
}

/// `serving.protocol`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ServingProtocol {
    #[default]
    Http,
    Grpc,
}

impl ServingProtocol {
    pub fn as_str(self) -> &'static str {
        match self {
            ServingProtocol::Http => "http",
            ServingProtocol::Grpc => "grpc",
        }
    }
}

/// `serving.frontend`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Frontend {
    #[serde(default)]
    pub kind: FrontendKind,
    /// A Private Link service on the internal load balancer (`loadBalancer` or `both`).
    #[serde(default)]
    pub private_link: bool,
    /// Application Gateway v2 autoscale (instances).
    #[serde(default)]
    pub capacity: GatewayCapacity,
    /// The Application Gateway's dedicated subnet (default: a /24 derived from the address
    /// space).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet: Option<String>,
    /// The Private Link service's NAT subnet (default: a /28 derived from the address space).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_link_subnet: Option<String>,
    /// Who may call the frontend (private CIDRs; default: the VNet's address space).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_sources: Vec<String>,
    /// Delegate the gateway's subnet to `Microsoft.Network/applicationGateways`. Microsoft's
    /// pages do not document such a delegation (serving.md B6: NOT FOUND): off by default.
    #[serde(default)]
    pub delegate_subnet: bool,
}

impl Default for Frontend {
    fn default() -> Self {
        Self {
            kind: FrontendKind::default(),
            private_link: false,
            capacity: GatewayCapacity::default(),
            subnet: None,
            private_link_subnet: None,
            client_sources: Vec::new(),
            delegate_subnet: false,
        }
    }
}

/// `serving.frontend.kind`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FrontendKind {
    /// Application Gateway v2 with a private frontend IP only (L7): the only frontend that
    /// counts requests.
    #[default]
    ApplicationGateway,
    /// An internal Standard Load Balancer (L4).
    LoadBalancer,
    Both,
}

impl FrontendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FrontendKind::ApplicationGateway => "applicationGateway",
            FrontendKind::LoadBalancer => "loadBalancer",
            FrontendKind::Both => "both",
        }
    }

    pub fn has_gateway(self) -> bool {
        matches!(self, FrontendKind::ApplicationGateway | FrontendKind::Both)
    }

    pub fn has_load_balancer(self) -> bool {
        matches!(self, FrontendKind::LoadBalancer | FrontendKind::Both)
    }
}

/// `serving.frontend.capacity`: the gateway's `autoscaleConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GatewayCapacity {
    #[serde(default = "d::gateway_min")]
    pub min: u32,
    #[serde(default = "d::gateway_max")]
    pub max: u32,
}

impl Default for GatewayCapacity {
    fn default() -> Self {
        Self {
            min: d::gateway_min(),
            max: d::gateway_max(),
        }
    }
}

/// `serving.upgrade`: the scale set's upgrade policy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Upgrade {
    #[serde(default)]
    pub mode: UpgradeMode,
    /// Rolling upgrades create new VMs before deleting old ones (preview: needs the
    /// `MaxSurgeRollingUpgrade` registration).
    #[serde(default)]
    pub max_surge: bool,
}

/// `serving.upgrade.mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UpgradeMode {
    /// Microsoft suggests creating the scale set with Manual and switching to Rolling once
    /// health reports correctly (serving.md E2): the first deployment.
    #[default]
    Manual,
    Rolling,
}

impl UpgradeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            UpgradeMode::Manual => "manual",
            UpgradeMode::Rolling => "rolling",
        }
    }

    /// Azure's `upgradePolicy.mode`.
    pub fn azure(self) -> &'static str {
        match self {
            UpgradeMode::Manual => "Manual",
            UpgradeMode::Rolling => "Rolling",
        }
    }
}

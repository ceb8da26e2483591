//! Operating a serving pool (issue 36, item 4): what `preflight` checks, `cost` prices, `status`
//! reads and `destroy` orders for the private frontend (Application Gateway v2, internal Standard
//! Load Balancer, Private Link service). The frontend's own render facts are in
//! [`super::serving`]; this file holds what the operations commands add.
//!
//! Every entry names its source (repository path and commit, or URL, with the page's date where
//! it has one) and the date it was read. The Azure refusals are held against Azure's messages in
//! the fake ARM (tests/common `delete_refusal`, tests/destroy.rs), the prices against the quotes
//! in `tests/fixtures/sources/serving-frontend-prices.json` (tests/cost_serving.rs). The status
//! metrics `gpuform status` reads (`status::serving::GATEWAY_READS`, `LOAD_BALANCER_READS`) are
//! held against `../shared/azure/metrics.json` by tests/facts_serving_ops.rs;
//! `GATEWAY_TOTAL_TIME` is not read yet.

use super::Source;
use super::serving::Feature;

const READ: &str = "2026-12-05";

// ---------------------------------------------------------------- subscription features

/// A feature's `properties.state` that lets the deployment go ahead.
pub const FEATURE_REGISTERED: &str = "Registered";
/// A registration under way ("may take up to 30 minutes to transition from Registering to
/// Registered", serving.md B3).
pub const FEATURE_REGISTERING: &str = "Registering";
/// An approval-gated feature waiting for Microsoft.
pub const FEATURE_PENDING: &str = "Pending";
/// The states a feature goes through, and that a registered feature reaches the resource
/// provider only once the provider is registered again.
pub const FEATURE_STATES: Source = Source::doc(
    "../shared/azure/recordings/feature-registration-EncryptionAtHost.json (GET .../providers/Microsoft.Features/providers/{ns}/features/{name}?api-version=2021-07-01 answers {id, name, properties: {state}, type}; states 'NotRegistered | Registering | Registered | Unregistering | Unregistered | Pending (approval-gated features)'; az feature register prints 'Once the feature ... is registered, invoking az provider register -n <namespace> is required to get the change propagated'); azure-rest-api-specs Microsoft.Features stable/2021-07-01 examples/registerFeature.json @ 54923347",
    READ,
);

/// `az feature show` for a feature (what preflight's offline mode reads, `--features FILE`).
pub fn feature_show_command(f: &Feature) -> String {
    format!(
        "az feature show --namespace {} --name {} -o json",
        f.namespace, f.name
    )
}

/// What propagates a registered feature to its resource provider.
pub fn provider_register_command(f: &Feature) -> String {
    format!("az provider register --namespace {}", f.namespace)
}

// ---------------------------------------------------------------- the gateway's subnet

/// Addresses Azure reserves in every subnet, the gateway's included ("125 instance IP addresses
/// + 1 private front-end IP + 5 Azure reserved").
pub const SUBNET_RESERVED_ADDRESSES: u32 = 5;
/// A dedicated subnet, /24 recommended, no other resource, no v1 beside v2.
pub const GATEWAY_SUBNET: Source = Source::doc(
    "serving.md B5: MicrosoftDocs/azure-docs articles/application-gateway/configuration-infrastructure.md @ 015ce18 (2021-06-14): 'a dedicated subnet is required for the application gateway', 'Application Gateway (Standard_v2 or WAF_v2 SKU) can support up to 125 instances (125 instance IP addresses + 1 private front-end IP + 5 Azure reserved). A minimum subnet size of /24 is recommended.', 'you can't deploy any other resource in the application gateway subnet', 'You can't mix Standard_v2 and Standard Azure Application Gateway on the same subnet.'",
    READ,
);
/// The v1 tiers of `Microsoft.Network/applicationGateways` `sku.tier` (the REST enum is
/// `Standard`, `WAF`, `Standard_v2`, `WAF_v2`, `Basic`): a subnet holding one cannot take a
/// v2 gateway.
pub const GATEWAY_V1_TIERS: &[&str] = &["Standard", "WAF"];
pub const GATEWAY_TIERS: Source = Source::doc(
    "serving.md S20: azure-rest-api-specs specification/network/resource-manager/Microsoft.Network/stable/2024-05-01/applicationGateway.json @ dea509e (ApplicationGatewaySku.tier enum Standard | WAF | Standard_v2 | WAF_v2 | Basic)",
    READ,
);

/// Addresses the gateway's subnet must hold for `max_capacity` instances: one per instance, the
/// private frontend's, and Azure's reserved ones.
pub fn gateway_subnet_addresses(max_capacity: u32) -> u32 {
    max_capacity + super::serving::GATEWAY_FRONTEND_ADDRESSES + SUBNET_RESERVED_ADDRESSES
}

/// The subnet field the Private Link service's NAT addresses need `Disabled`
/// ([`super::serving::PLS_SUBNET_POLICY`]).
pub const PLS_POLICY_FIELD: &str = "privateLinkServiceNetworkPolicies";
pub const PLS_POLICY_DISABLED: &str = "Disabled";

// ---------------------------------------------------------------- offered in the region

/// `Microsoft.Network` resource types the frontend deploys: `GET /subscriptions/{id}/providers/
/// Microsoft.Network` lists each with the regions (display names) it is offered in.
pub const GATEWAY_TYPE: &str = "applicationGateways";
pub const LOAD_BALANCER_TYPE: &str = "loadBalancers";
pub const PRIVATE_LINK_TYPE: &str = "privateLinkServices";
pub const OFFERED: Source = Source::doc(
    "azure-rest-api-specs specification/resources/resource-manager/Microsoft.Resources/stable/2021-04-01/resources.json (Providers_Get: Provider.resourceTypes[] {resourceType, locations: 'The collection of locations where this resource type can be created.'}); `az provider show -n Microsoft.Network -o json` prints the same body",
    READ,
);
/// Whether Standard_v2 in particular is offered in a region: no API read answers it per SKU.
pub const GATEWAY_SKU_BY_REGION: Source = Source::assumption(
    "no ARM read lists Application Gateway SKUs by region (searched the Microsoft.Network REST specs and Learn for a SKU availability list; the resource-SKUs API covers compute): preflight checks that the resource type is offered in the region, and Azure decides on the SKU at deployment",
    READ,
);

// ---------------------------------------------------------------- quota

/// A per-region, per-subscription network limit that can block the frontend, with its
/// `Usages - List` (`GET .../providers/Microsoft.Network/locations/{location}/usages`) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkLimit {
    /// `name.value` of the usage.
    pub usage: &'static str,
    /// `name.localizedValue` (what `az network list-usages` shows as `localName`).
    pub localized: &'static str,
    /// The documented limit (the live answer's `limit` wins).
    pub documented: u32,
    pub source: Source,
}

pub const GATEWAY_LIMIT: NetworkLimit = NetworkLimit {
    usage: "ApplicationGateways",
    localized: "Application Gateways",
    documented: 1000,
    source: Source::doc(
        "MicrosoftDocs/azure-docs includes/application-gateway-limits.md @ 0034968231599d97f4958cbb4ed673ea9feb4c3c (ms.date 2024-06-19): '| Azure Application Gateway |1,000 per region per subscription |'",
        READ,
    ),
};

pub const LOAD_BALANCER_LIMIT: NetworkLimit = NetworkLimit {
    usage: "LoadBalancers",
    localized: "Load Balancers",
    documented: 1000,
    source: Source::doc(
        "MicrosoftDocs/azure-docs networking limits include (code-index file 476599710): 'The following limits apply only for networking resources managed through Azure Resource Manager per region per subscription.' ... '| Load balancers | 1,000 |'",
        READ,
    ),
};

/// The usage names of `Usages - List` and what `az network list-usages` prints.
pub const NETWORK_USAGES: Source = Source::doc(
    "Azure/azure-powershell src/Network/Network/help/Get-AzNetworkUsage.md (Get-AzNetworkUsage -Location: ResourceType 'Load Balancers', 'Application Gateways' with CurrentValue and Limit); `az network list-usages -l REGION -o json` items {currentValue, limit, name: {localizedValue: 'Application Gateways', value: 'ApplicationGateways'}, unit: 'Count'} (azure-cli's own test output, code-index file 21254996152)",
    READ,
);

// ---------------------------------------------------------------- prices

/// One Retail Prices API meter of the frontend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meter {
    pub service: &'static str,
    pub product: &'static str,
    /// The meter's name as the sources spell it; gpuform matches the end of `meterName` with
    /// [`Meter::suffix`] (sources disagree on the `Standard ` prefix).
    pub meter: &'static str,
    pub suffix: &'static str,
    pub unit: &'static str,
}

/// Application Gateway Standard_v2: the hourly fixed price.
pub const GATEWAY_FIXED: Meter = Meter {
    service: "Application Gateway",
    product: "Application Gateway Standard v2",
    meter: "Standard Fixed Cost",
    suffix: "Fixed Cost",
    unit: "1 Hour",
};
/// Application Gateway Standard_v2: one capacity unit for one hour.
pub const GATEWAY_CAPACITY_UNIT: Meter = Meter {
    service: "Application Gateway",
    product: "Application Gateway Standard v2",
    meter: "Standard Capacity Units",
    suffix: "Capacity Units",
    unit: "1/Hour",
};
/// Standard Load Balancer: the hourly charge that covers the first rules.
pub const LB_INCLUDED_RULES: Meter = Meter {
    service: "Load Balancer",
    product: "Load Balancer",
    meter: "Standard Included LB Rules and Outbound Rules",
    suffix: "Standard Included LB Rules and Outbound Rules",
    unit: "1 Hour",
};
/// Standard Load Balancer: each rule above the included ones, per hour.
pub const LB_OVERAGE_RULES: Meter = Meter {
    service: "Load Balancer",
    product: "Load Balancer",
    meter: "Standard Overage LB Rules and Outbound Rules",
    suffix: "Standard Overage LB Rules and Outbound Rules",
    unit: "1/Hour",
};
/// Standard Load Balancer: data processed, per GB.
pub const LB_DATA: Meter = Meter {
    service: "Load Balancer",
    product: "Load Balancer",
    meter: "Standard Data Processed",
    suffix: "Standard Data Processed",
    unit: "1 GB",
};
/// Rules the included meter covers.
pub const LB_INCLUDED_RULE_COUNT: u32 = 5;
/// The Load Balancer's rule meters are priced at `armRegionName` `Global`, not per region.
pub const LB_PRICE_REGION: &str = "Global";
/// Where the meter names come from: no Microsoft page lists them; several independent pricing
/// tools query them by these names (third-party code, read as such).
pub const METERS: Source = Source::doc(
    "serviceName/productName/meterName as Retail Prices API clients query them: plancost/terraform-provider-plancost internal/resources/azure/application_gateway.go @ 7c0d4a03017dbc86d8f48faa82f3de7d71ae4d0b (service 'Application Gateway', productName 'Application Gateway <tier>$', meterName 'Fixed Cost$' and 'Capacity Units$'); infracost/infracost internal/resources/azure/application_gateway.go @ 009b1ae86500a75d6b51f8adf07032bde2b4c737 and lb.go @ 0327a5b8e2b9917a0797f6623ad709b89f605548 (service 'Load Balancer', skuName 'Standard'); code-index files 70681327586/70866122921 ('Application Gateway Standard v2' / 'Standard Fixed Cost' / 'Standard Capacity Units'); rshade/finfocus-plugin-azure-public load balancer quote (code-index file 70191724343: 'Standard Included LB Rules and Outbound Rules', 'Standard Overage LB Rules and Outbound Rules', 'Standard Data Processed'; a regional page without the included meter is read again at 'Global'; a live query on 2026-10-01 found it at Global, 0.025 USD per hour, covering up to 5 rules)",
    READ,
);

/// Capacity units one gateway instance reserves (billed while the gateway runs).
pub const CU_PER_INSTANCE: f64 = 10.0;
/// What one capacity unit carries: persistent connections, throughput, and (Standard_v2)
/// connections per second per compute unit with an RSA 2048-bit TLS certificate.
pub const CU_CONNECTIONS: f64 = 2500.0;
pub const CU_MBPS: f64 = 2.22;
pub const CU_NEW_CONNECTIONS_PER_SECOND: f64 = 50.0;
/// The v2 billing model: a fixed hourly price and capacity units, the greater of current and
/// reserved ones, each partial hour billed as a full one.
pub const CU_BILLING: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/application-gateway/understanding-pricing.md @ 08de399fad77cea49d83f3bdb58721de4c1ad78c (ms.date 2022-10-03): 'A single Capacity Unit consists of the following parameters: 2500 Persistent connections, 2.22-Mbps throughput, 1 Compute Unit', 'The parameter with the highest utilization among the three above will be internally used for calculating capacity units', 'Standard_v2 - Each compute unit is capable of approximately 50 connections per second with RSA 2048-bit key TLS certificate', 'the minimum instance count in autoscale config will reserve 10 capacity units/instance. These reserved CUs will be billed as long as the Application Gateway is active regardless of the actual resource consumption', 'A partial hour is billed as a full hour.', 'Prices shown in this article are examples and are for illustration purposes only'; serving.md B12 (monitor-application-gateway-reference.md @ 02be6d7: 'the greater value between Current capacity units ... and Fixed billable capacity units', 'One instance translates to 10 capacity units.')",
    READ,
);
/// A private-only gateway cannot reach the Internet: it needs no egress to reach the pool in
/// its own VNet (serving.md B4).
pub const PRIVATE_GATEWAY_EGRESS: Source = Source::doc(
    "serving.md B4: application-gateway-private-deployment.md (ms.date 2024-07-18, code-index file 10991125706): private-only gateways 'aren't able to egress traffic destined to the Internet' (a NAT gateway or NVA is needed for internet backends)",
    READ,
);

// ---------------------------------------------------------------- status metrics

/// A platform metric `status` reads, with the aggregation it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusMetric {
    pub namespace: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    /// Aggregations asked for (each one the metrics table lists).
    pub aggregations: &'static [&'static str],
    /// The dimension the query filters on (`None`: the whole resource).
    pub dimension: Option<&'static str>,
}

const GATEWAY_NS: &str = "Microsoft.Network/applicationGateways";
const LB_NS: &str = "Microsoft.Network/loadBalancers";

/// Successful requests a minute ("Count of successful requests that Application Gateway has
/// served").
pub const TOTAL_REQUESTS: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "TotalRequests",
    unit: "Count",
    aggregations: &["Total"],
    dimension: Some("BackendSettingsPool"),
};
pub const FAILED_REQUESTS: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "FailedRequests",
    unit: "Count",
    aggregations: &["Total"],
    dimension: Some("BackendSettingsPool"),
};
pub const HEALTHY_HOSTS: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "HealthyHostCount",
    unit: "Count",
    aggregations: &["Average"],
    dimension: Some("BackendSettingsPool"),
};
pub const UNHEALTHY_HOSTS: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "UnhealthyHostCount",
    unit: "Count",
    aggregations: &["Average"],
    dimension: Some("BackendSettingsPool"),
};
/// From the connection to the backend to its response's last byte (the model server's time,
/// streaming included), in milliseconds; per minute only the average and the maximum.
pub const BACKEND_LAST_BYTE: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "BackendLastByteResponseTime",
    unit: "MilliSeconds",
    aggregations: &["Average", "Maximum"],
    dimension: Some("BackendPool"),
};
/// From the request's first byte at the gateway to the end of its response, in milliseconds.
pub const GATEWAY_TOTAL_TIME: StatusMetric = StatusMetric {
    namespace: GATEWAY_NS,
    name: "ApplicationGatewayTotalTime",
    unit: "MilliSeconds",
    aggregations: &["Average", "Maximum"],
    dimension: None,
};
/// The load balancer's health probe status per backend address.
pub const LB_PROBE_STATUS: StatusMetric = StatusMetric {
    namespace: LB_NS,
    name: "DipAvailability",
    unit: "Count",
    aggregations: &["Average"],
    dimension: Some("BackendIPAddress"),
};
pub const STATUS_METRICS: Source = Source::doc(
    "../shared/azure/metrics.json (MicrosoftDocs/azure-monitor-docs supported-metrics microsoft-network-applicationgateways-metrics.md @ 0e7def8, 2026-07-13; microsoft-network-loadbalancers-metrics.md @ 916560d, 2025-04-16)",
    READ,
);
/// Azure reports the gateway's times per minute as averages and maxima: no percentile.
pub const NO_PERCENTILE: Source = Source::doc(
    "../shared/azure/metrics.json: BackendLastByteResponseTime and ApplicationGatewayTotalTime list the aggregations Average and Maximum only (no percentile); a p95 is what `gpuform simulate` reports",
    READ,
);
/// `DipAvailability` is read as the share of probes answered (100: every probe up).
pub const PROBE_STATUS_SCALE: Source = Source::assumption(
    "metrics.json describes DipAvailability only as 'Average Load Balancer health probe status per time duration' (unit Count); Microsoft's Standard Load Balancer diagnostics page has it read with the Avg aggregation, split by backend address; gpuform reads 100 as every probe answered and anything lower as a backend that failed probes in that minute",
    READ,
);
/// The newest minute of a metric can still be filling: `status` reads the last complete one.
pub const STATUS_WINDOW_MINUTES: i64 = 15;

// ---------------------------------------------------------------- destroy

/// Azure's refusal of a DELETE while something still uses the resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InUse {
    /// The type being deleted.
    pub target: &'static str,
    /// The type whose existence makes Azure refuse it.
    pub user: &'static str,
    /// Azure's error code (`None` where no source gives it).
    pub code: Option<&'static str>,
    pub source: Source,
}

/// What Azure refuses to delete while something uses it, for the frontend's types: destroy
/// deletes the user first (`destroy::inventory::stage`).
pub const IN_USE: &[InUse] = &[
    InUse {
        target: "Microsoft.Network/virtualNetworks",
        user: "Microsoft.Network/applicationGateways",
        code: Some("InUseSubnetCannotBeDeleted"),
        source: Source::doc(
            "MicrosoftDocs/azure-docs articles/azure-resource-manager/troubleshooting/common-deployment-errors.md ('InUseSubnetCannotBeDeleted'); azure-cli/terraform reports quote Azure's message 'Subnet <name> is in use by <ip configuration> and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet.' (hashicorp/terraform-provider-azurerm, code-index file 107679993); the gateway's gatewayIPConfigurations sit in its dedicated subnet",
            READ,
        ),
    },
    InUse {
        target: "Microsoft.Network/virtualNetworks",
        user: "Microsoft.Network/loadBalancers",
        code: Some("InUseSubnetCannotBeDeleted"),
        source: Source::doc(
            "as for the gateway: an internal load balancer's frontendIPConfigurations take a private address of a subnet of the VNet",
            READ,
        ),
    },
    InUse {
        target: "Microsoft.Network/virtualNetworks",
        user: "Microsoft.Network/privateLinkServices",
        code: Some("InUseSubnetCannotBeDeleted"),
        source: Source::doc(
            "as for the gateway: a Private Link service's ipConfigurations (its NAT addresses) sit in its subnet",
            READ,
        ),
    },
    InUse {
        target: "Microsoft.Network/loadBalancers",
        user: "Microsoft.Compute/virtualMachineScaleSets",
        code: Some("LoadBalancerInUseByVirtualMachineScaleSet"),
        source: Source::doc(
            "MicrosoftDocs/azure-docs articles/load-balancer/load-balancer-common-deployment-errors.md @ e37fe813c27c4eba87f93c22e143a054c87cbd06 (ms.date 2023-04-20): 'LoadBalancerInUseByVirtualMachineScaleSet | The Load Balancer resource is in use by a Virtual Machine Scale Set and can't be deleted.'; Azure's message as kubernetes-sigs/cluster-api-provider-azure#3163 quotes it: 'Cannot delete load balancer <id> since its child resources <name> are in use by virtual machine scale set <id>.'",
            READ,
        ),
    },
    InUse {
        target: "Microsoft.Network/loadBalancers",
        user: "Microsoft.Network/privateLinkServices",
        code: Some("CannotDeleteLoadBalancerWithPrivateLinkService"),
        source: Source::doc(
            "MicrosoftDocs/SupportArticles-docs support/azure/azure-kubernetes/create-upgrade-delete/cannot-delete-load-balancer-private-link-service.md @ 4eb125e77e7fb247ff0f1eedf85a341b576c91bd (ms.date 2024-12-04): 'Cannot delete load balancer .../loadBalancers/kubernetes-internal since it is referenced by private link service .../privateLinkServices/test. Please delete private link service prior to deleting load balancer.' (StatusCode=BadRequest)",
            READ,
        ),
    },
    InUse {
        target: "Microsoft.Network/applicationGateways",
        user: "Microsoft.Compute/virtualMachineScaleSets",
        code: None,
        source: Source::assumption(
            "no page or report read gives Azure's answer to deleting an Application Gateway whose backend pool a scale set's NIC profile still references (searched Learn, SupportArticles-docs and GitHub issues for InUse/application gateway/scale set); by analogy with LoadBalancerInUseByVirtualMachineScaleSet the scale set goes first",
            READ,
        ),
    },
];

/// A Private Link service with private endpoints connected to it cannot be deleted: the
/// connections (the consumers' endpoints) go first.
pub const PLS_WITH_CONNECTIONS: &str =
    "PrivateLinkServiceWithPrivateEndpointConnectionsCannotBeDeleted";
pub const PLS_WITH_CONNECTIONS_SOURCE: Source = Source::doc(
    "MicrosoftDocs/SupportArticles-docs support/azure/azure-kubernetes/create-upgrade-delete/cannot-delete-load-balancer-private-link-service.md @ 4eb125e77e7fb247ff0f1eedf85a341b576c91bd (ms.date 2024-12-04): 'Private link service .../privateLinkServices/test cannot be deleted since it has 1 private endpoint connection. Please delete all private endpoint connections before deleting the private link service.'",
    READ,
);

/// What to do about [`PLS_WITH_CONNECTIONS`]: the consumers' connections are someone else's
/// endpoints, so destroy does not cut them on its own.
pub fn pls_connections_help(rg: &str, pls: &str) -> String {
    format!(
        "consumers' private endpoints are still connected to the Private Link service {pls}: list them with `az network private-link-service show -g {rg} -n {pls} --query privateEndpointConnections[].name`, tell their owners, remove each with `az network private-link-service connection delete -g {rg} --service-name {pls} -n CONNECTION`, then run destroy again"
    )
}

/// The frontend's resource types, in the order they go: the Private Link service before the
/// load balancer whose frontend it uses; both and the gateway after the scale set that joins
/// their backend pools; all before the virtual network whose subnets they sit in.
pub const FRONTEND_TYPES: &[&str] = &[
    "Microsoft.Network/privateLinkServices",
    "Microsoft.Network/loadBalancers",
    "Microsoft.Network/applicationGateways",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_gateway_needs_its_instances_frontend_and_reserved_addresses() {
        assert_eq!(
            gateway_subnet_addresses(super::super::serving::GATEWAY_CAPACITY_MAX),
            131
        );
    }
}

//! Capacity errors: the codes Azure answers when it cannot place a VM size now, and where
//! Microsoft says to try next (another zone, another size, another region). `deploy`'s
//! failover reads them (`crate::deploy::failover`); the error classification too
//! (`crate::deploy::errors`).

use super::Source;

/// Where Microsoft's guidance says a failed placement may succeed instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Another availability zone of the same region, same size.
    Zone,
    /// Another VM size in the same region (and zone).
    Size,
    /// Another region.
    Region,
}

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Zone => "zone",
            Self::Size => "size",
            Self::Region => "region",
        }
    }
}

/// One capacity error code and what Microsoft recommends for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityCode {
    pub code: &'static str,
    /// What it means, in the source's words (shortened).
    pub meaning: &'static str,
    /// Where the source says to try again, in gpuform's order (zone, size, region).
    pub retry_in: &'static [Step],
    /// What the source recommends.
    pub recommendation: &'static str,
    pub source: Source,
}

/// Learn, "Troubleshoot allocation failures when you create, restart, or resize VMs in Azure"
/// (AllocationFailed / ZonalAllocationFailed: "We do not have sufficient capacity for the
/// requested VM size in this region"; alternative recommendation: other sizes in the same zone
/// and region, other zones for the same size and region, other regions).
pub const VM_ALLOCATION: Source = Source::doc(
    "https://learn.microsoft.com/en-us/troubleshoot/azure/virtual-machines/windows/allocation-failure",
    "2026-12-03",
);

/// Learn, "Fix AllocationFailed or ZonalAllocationFailed errors when you create, restart, or
/// resize Virtual Machine Scale Sets in Azure" (message 2, "VM(s) with the following constraints
/// cannot be allocated, because the condition is too restrictive. Please remove some
/// constraints and try again").
pub const VMSS_ALLOCATION: Source = Source::doc(
    "https://learn.microsoft.com/en-us/troubleshoot/azure/virtual-machine-scale-sets/allocationfailed-or-zonalallocationfailed",
    "2026-12-03",
);

/// Learn, "Resolve errors for SKU not available": "The requested size for resource ... is
/// currently not available in location ... zones ... Please try another size or deploy to a
/// different location or zones."
pub const SKU_NOT_AVAILABLE: Source = Source::doc(
    "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/error-sku-not-available",
    "2026-12-03",
);

/// MicrosoftDocs/azure-docs articles/cloud-services/cloud-services-troubleshoot-overconstrained-allocation-request.md
/// (ms.date 02/21/2023): "try relaxing constraints ... or try deploying to a different region".
/// Written for Cloud Services; that a VM or scale set with this code may succeed in another
/// zone or size is gpuform's reading of the scale-set article's "remove some constraints"
/// ([`VMSS_ALLOCATION`]).
pub const OVERCONSTRAINED: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/cloud-services/cloud-services-troubleshoot-overconstrained-allocation-request.md",
    "2026-12-03",
);

const ALL: &[Step] = &[Step::Zone, Step::Size, Step::Region];

/// The capacity codes gpuform recognises in a deployment's error tree.
/// A resource's region need not be its resource group's: "When deploying an Azure Resource
/// Manager template (ARM template), you must provide a location for each resource. The location
/// doesn't need to be the same location as the resource group location." Region failover
/// passes the new region to every resource (the template's `location` parameter; a resource
/// group's own location is only where its metadata lives).
pub const RESOURCE_LOCATION: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-resource-manager/templates/resource-location (Set resource location in ARM template)",
    "2026-12-04",
);

/// A resource keeps the region it was created in: a deployment that declares a resource of the
/// same name in another region of the same resource group is refused, at validation (before
/// anything runs), with [`INVALID_RESOURCE_LOCATION_CODE`] and a message of the shape
/// [`INVALID_RESOURCE_LOCATION_MESSAGE`]. No Microsoft page documents the code (searched
/// 2026-12-04: Learn's common deployment errors, resource-location, deployment modes, the
/// azure-rest-api-specs examples); the code and message are ARM's answers as reported verbatim
/// in public issue threads, one of them in Microsoft's docs repository
/// ([`INVALID_RESOURCE_LOCATION`]; excerpts in
/// `tests/fixtures/sources/invalid-resource-location.json`). It is why region failover does not
/// reuse a resource group in which a deployment that ran (failed while running, not rejected)
/// left resources in another region.
pub const LOCATION_IMMUTABLE: Source = Source::doc(
    "a resource keeps its region: a same-named resource in another region of the same resource group is refused \
     (InvalidResourceLocation, as ARM's answers are reported: github.com/fortinetsolutions/Azure-Templates/issues/8, \
     github.com/MicrosoftDocs/azure-docs/issues/70422, github.com/Azure/azure-service-operator/issues/784; no Microsoft page documents it)",
    "2026-12-04",
);
/// The reports of ARM's refusal ([`LOCATION_IMMUTABLE`]), each with the whole error.
pub const INVALID_RESOURCE_LOCATION: Source = Source::doc(
    "https://github.com/fortinetsolutions/Azure-Templates/issues/8 (2018-11-19: the body {\"error\": {\"code\": \"InvalidResourceLocation\", \"message\": ...}}); \
     https://github.com/MicrosoftDocs/azure-docs/issues/70422 (2021-02-10: New-AzResourceGroupDeployment, \"The deployment validation failed\"); \
     https://github.com/Azure/azure-service-operator/issues/784 (2020-03-18: a direct PUT)",
    "2026-12-04",
);
/// The refusal's error code. Source: [`INVALID_RESOURCE_LOCATION`].
pub const INVALID_RESOURCE_LOCATION_CODE: &str = "InvalidResourceLocation";
/// The refusal's message, `{name}`, `{there}` (the region the resource is in), `{group}` and
/// `{here}` (the region asked for) filled in by ARM. Source: [`INVALID_RESOURCE_LOCATION`]. The
/// HTTP status is in no report (a validation failure: 4xx); gpuform reads the code only.
pub const INVALID_RESOURCE_LOCATION_MESSAGE: &str = "The resource '{name}' already exists in location '{there}' in resource group '{group}'. A resource with the same name cannot be created in location '{here}'. Please select a new resource name.";

/// How `destroy` and `status` find the group a failover landed in (`crate::deploy::landed`):
/// the deployments of a resource group are listed with `GET /subscriptions/{s}/resourcegroups/
/// {rg}/providers/Microsoft.Resources/deployments` (Deployments - List By Resource Group, each
/// `{name, properties: {provisioningState, outputResources}}`), which answers 404
/// `ResourceGroupNotFound` for a group that does not exist (Resource Groups - Get and the
/// ARM error list: "ResourceGroupNotFound ... Check the name of the resource group").
pub const LANDED_LOOKUP: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/resources/deployments/list-by-resource-group?view=rest-resources-2025-04-01 \
     (Deployments - List By Resource Group); https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/common-deployment-errors \
     (ResourceGroupNotFound)",
    "2026-12-04",
);

pub const CODES: &[CapacityCode] = &[
    CapacityCode {
        code: "AllocationFailed",
        meaning: "not enough capacity for the requested VM size in this region",
        retry_in: ALL,
        recommendation: "try another size in the same zone and region, another zone for the same size, or another region",
        source: VM_ALLOCATION,
    },
    CapacityCode {
        code: "ZonalAllocationFailed",
        meaning: "not enough capacity for the requested VM size in the requested zone",
        retry_in: ALL,
        recommendation: "try another zone for the same size, another size, or another region",
        source: VM_ALLOCATION,
    },
    CapacityCode {
        code: "SkuNotAvailable",
        meaning: "the requested size is not available in the location or zones for the subscription",
        retry_in: ALL,
        recommendation: "try another size or deploy to a different location or zones",
        source: SKU_NOT_AVAILABLE,
    },
    CapacityCode {
        code: "OverconstrainedAllocationRequest",
        meaning: "the request's constraints (zone, size, network) leave no cluster that can place it",
        retry_in: ALL,
        recommendation: "relax the constraints (fewer pinned zones, another size) or deploy to a different region",
        source: OVERCONSTRAINED,
    },
    CapacityCode {
        code: "OverconstrainedZonalAllocationRequest",
        meaning: "the request's constraints leave no cluster in the requested zone that can place it",
        retry_in: ALL,
        recommendation: "relax the constraints (another zone, another size) or deploy to a different region",
        source: VMSS_ALLOCATION,
    },
];

/// The capacity code `code` (case-insensitive), if it is one.
pub fn lookup(code: &str) -> Option<&'static CapacityCode> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// Does `code` mean "Azure has no capacity for this placement now"?
pub fn is_capacity(code: &str) -> bool {
    lookup(code).is_some()
}

//! The registry of rule ids. Ids are stable: pipelines filter and suppress by them, SARIF
//! publishes them. Add rules; never rename or reuse an id.

use super::severity::Severity;
use Severity::{Error as E, Info as I, Warning as W};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub category: &'static str,
    /// One line: what the rule checks.
    pub summary: &'static str,
    /// Why it matters and how to comply.
    pub description: &'static str,
}

const fn r(
    id: &'static str,
    severity: Severity,
    category: &'static str,
    summary: &'static str,
    description: &'static str,
) -> Rule {
    Rule {
        id,
        severity,
        category,
        summary,
        description,
    }
}

pub const RULES: &[Rule] = &[
    // --- input -------------------------------------------------------------------------
    r(
        "io-error",
        E,
        "input",
        "The file could not be read",
        "gpuform could not read the file (missing, a directory, or no permission).",
    ),
    r(
        "not-utf8",
        E,
        "input",
        "The file is not UTF-8 text",
        "Specs are YAML text in UTF-8. Re-save the file as UTF-8.",
    ),
    r(
        "file-too-large",
        E,
        "input",
        "The file is larger than a spec can be",
        "Specs are short; files over 1 MiB are refused so a wrong path cannot exhaust memory.",
    ),
    r(
        "yaml-syntax",
        E,
        "input",
        "The file is not valid YAML",
        "Fix the YAML syntax at the position shown (indentation, an unclosed quote or bracket, a tab).",
    ),
    r(
        "yaml-duplicate-key",
        E,
        "input",
        "A key appears twice in the same mapping",
        "YAML forbids duplicate keys; the second value would silently win in other tools. Remove one.",
    ),
    r(
        "yaml-alias-limit",
        E,
        "input",
        "YAML aliases expand beyond the allowed size",
        "Anchors and aliases that expand exponentially (a 'billion laughs' document) are refused.",
    ),
    r(
        "yaml-unsupported",
        E,
        "input",
        "YAML feature gpuform does not accept",
        "Custom tags, non-string keys, non-finite numbers and nesting deeper than 64 levels have no meaning in a spec.",
    ),
    r(
        "empty-document",
        E,
        "input",
        "The file holds no spec",
        "The file is empty or only comments. Start from one of the specs in examples/.",
    ),
    r(
        "multiple-documents",
        E,
        "input",
        "The file holds more than one YAML document",
        "One file describes one workload. Split the documents (`---`) into separate files.",
    ),
    // --- schema ------------------------------------------------------------------------
    r(
        "unknown-field",
        E,
        "schema",
        "A key the spec does not define",
        "Misspelt keys would otherwise be ignored silently. The message suggests the closest valid key.",
    ),
    r(
        "missing-field",
        E,
        "schema",
        "A required key is missing",
        "Add the key; the schema (`gpuform schema`) documents each field.",
    ),
    r(
        "invalid-type",
        E,
        "schema",
        "A value has the wrong type",
        "For example a number where text is expected. Quote versions such as `cuda: \"12.4\"`.",
    ),
    r(
        "invalid-value",
        E,
        "schema",
        "A value is outside what the field allows",
        "Not one of the allowed values, out of range, or not matching the expected pattern.",
    ),
    r(
        "unsupported-version",
        E,
        "schema",
        "apiVersion or kind is not one gpuform reads",
        "This gpuform reads `apiVersion: gpuform/v1` and `kind: GpuWorkload`.",
    ),
    // --- sizing ------------------------------------------------------------------------
    r(
        "unknown-vm-size",
        E,
        "sizing",
        "vmSize is not a GPU size gpuform knows",
        "Use a size from `gpuform sizes`, or `auto` to pick the cheapest size that fits.",
    ),
    r(
        "no-size-fits",
        E,
        "sizing",
        "No size fits the workload",
        "`vmSize: auto` found no size with enough GPU memory for the workload type in the region's price table.",
    ),
    r(
        "vram-exceeds-size",
        E,
        "sizing",
        "The measured VRAM peak is more than the size's GPU memory",
        "The workload would run out of GPU memory. Pick a larger size, lower the precision, or shard the model.",
    ),
    r(
        "vram-underused",
        W,
        "sizing",
        "The size has more than twice the GPU memory the workload needs",
        "A smaller size costs less. The message names the cheapest size that fits.",
    ),
    r(
        "model-split-across-gpus",
        W,
        "sizing",
        "An inference model no single GPU of the size holds",
        "The model's VRAM peak (workload.gpuMemoryGiB) exceeds one GPU of the size; it runs only split across several GPUs (tensor parallelism: vLLM --tensor-parallel-size, TGI --num-shard). vmSize: auto prefers one GPU that fits and splits only when no size offers one. Set workload.gpu.tensorParallelSize to say the server splits it, or pick a size whose single GPU holds the model.",
    ),
    r(
        "tensor-parallel-size",
        E,
        "sizing",
        "The size cannot run the spec's tensorParallelSize",
        "workload.gpu.tensorParallelSize N needs a size with at least N GPUs, each holding gpuMemoryGiB / N.",
    ),
    r(
        "driver-pin-unlocks-size",
        W,
        "sizing",
        "A cheaper size fits with a pinned newer driver",
        "The size's default driver is too old for workload.cuda (gpuform pins a known-good GRID driver on some sizes); a driver version the extension lists supports it. The message names the size, its price and the compute.driverVersion to write.",
    ),
    r(
        "size-unpriced-in-region",
        W,
        "regions",
        "gpuform has no price for the size in the region",
        "The embedded price table (Azure Retail Prices API) lists every size in every region Azure sells it in; a size without a price there is most likely not offered in the region. preflight reads the subscription's live SKU list, which decides; the message names the nearest regions with a price for the size.",
    ),
    r(
        "distributed-needs-infiniband",
        E,
        "sizing",
        "Distributed training on a size without InfiniBand",
        "Multi-node training needs an ND size with InfiniBand (ND A100 v4, ND H100 v5, ND H200 v5).",
    ),
    r(
        "training-size-for-inference",
        W,
        "sizing",
        "Inference or batch work on an ND or H100-class size",
        "These sizes are built for training and cost several times more per hour than inference sizes.",
    ),
    r(
        "visualization-needs-nv",
        E,
        "sizing",
        "Visualization on a size without a graphics driver",
        "Remote visualization needs an NV (or NG) size with the GRID/AMD graphics driver.",
    ),
    r(
        "size-retired",
        E,
        "sizing",
        "The size is retired",
        "Azure no longer offers it; deployments fail. Pick a current size.",
    ),
    r(
        "size-retiring",
        W,
        "sizing",
        "The size is announced for retirement",
        "Plan a move before the retirement date; new subscriptions may already be restricted.",
    ),
    r(
        "size-limited",
        I,
        "sizing",
        "Microsoft adds no new capacity for this size",
        "Capacity may be hard to get; the message names the successor series.",
    ),
    r(
        "size-undocumented",
        W,
        "sizing",
        "The size has no Microsoft Learn page",
        "It exists in the Resource SKUs API but its GPU memory and driver support are not documented.",
    ),
    r(
        "arm64-size",
        E,
        "sizing",
        "The size has Arm64 CPUs",
        "ND GB200 v6 runs Grace (Arm64) CPUs; x64 images and the driver extensions do not run on it.",
    ),
    r(
        "data-disk-count",
        E,
        "sizing",
        "More data disks than the size allows",
        "Each size has a maximum number of data disks.",
    ),
    r(
        "premium-storage-unsupported",
        E,
        "sizing",
        "Premium disks on a size without premium storage",
        "Use StandardSSD_LRS or a size with premium storage support.",
    ),
    // --- capacity and autoscale -------------------------------------------------------------
    r(
        "capacity-order",
        E,
        "capacity",
        "min <= default <= max does not hold",
        "Autoscale rejects a profile whose default is outside [minimum, maximum].",
    ),
    r(
        "regular-base-above-max",
        W,
        "capacity",
        "regularBase is larger than max",
        "The pool never reaches the regular base; lower regularBase.",
    ),
    r(
        "schedule-out-of-range",
        E,
        "autoscale",
        "A schedule's instance counts are outside 0..max or inconsistent",
        "Each schedule needs 0 <= min <= default <= max <= capacity.max.",
    ),
    r(
        "schedule-time",
        E,
        "autoscale",
        "A schedule's time or time zone is not valid",
        "Times are HH:MM (24 h); time zones are Windows time zone names as autoscale expects (e.g. `China Standard Time`).",
    ),
    r(
        "job-duration-invalid",
        E,
        "workload",
        "workload.jobDuration is empty, zero or longer than a year",
        "`P`, `PT` and `PT0M` have no length and simulate refuses them; a job longer than a year (P366D) cannot start and finish inside any trace simulate replays.",
    ),
    r(
        "resource-id-invalid",
        E,
        "landing-zone",
        "An existing resource's id breaks Azure's rules in one of its parts",
        "Every part is checked: the subscription is a GUID, the resource group and the name follow Azure's naming rules for their type, the namespace and type are well formed. Ids reach ARM templates and the commands printed for the platform team.",
    ),
    r(
        "queue-name-invalid",
        E,
        "autoscale",
        "The Service Bus queue name breaks Azure's naming rules",
        "Service Bus queue names have 1-260 letters, digits, periods, hyphens and underscores and start and end with a letter or digit (Azure resource name rules); `/` cannot be addressed through Azure Resource Manager.",
    ),
    r(
        "autoscale-storage-queue-locked",
        I,
        "autoscale",
        "Autoscale reads a Storage queue of a locked-down account (an assumption)",
        "Autoscale reads a Storage queue's length as a special metric (ApproximateMessageCount, autoscale-common-metrics). The account gpuform creates has shared keys and public network access disabled, and no Microsoft page says autoscale can read the metric then: gpuform assumes it can. If it cannot, no scale-out rule fires (a `min: 0` pool never starts). Service Bus (`autoscale.queue.serviceBus`, ActiveMessages, a platform metric) is the documented path; or check once after deploying that a message scales the pool out.",
    ),
    r(
        "schedule-overlap",
        W,
        "autoscale",
        "Two schedules overlap",
        "Autoscale applies one profile at a time: the later start wins and the earlier schedule's end profile cuts the other short.",
    ),
    r(
        "schedule-same-start",
        E,
        "autoscale",
        "Two schedules (or a schedule and autoShutdown) start at the same instant",
        "Where two autoscale profiles start at the same minute Azure uses only the first applicable one, so one of the two would never apply. Start them at different times (time zones are compared in UTC).",
    ),
    r(
        "auto-shutdown-pool",
        W,
        "autoscale",
        "autoShutdown on a pool deletes its instances every evening",
        "With one instance (`capacity.max: 1`, no `autoscale`) autoShutdown renders a dev box: a VM that a DevTest Labs schedule deallocates and a Logic App starts, its disks kept. On a pool (max > 1, or with autoscale rules or schedules) it becomes a scale-to-zero autoscale profile: the scale set deletes the instances with their disks (home directories, installed drivers). Fine for stateless workers; for a box whose state must survive the night use `capacity.max: 1`.",
    ),
    r(
        "autoscale-profile-limit",
        E,
        "autoscale",
        "More than 20 autoscale profiles",
        "An autoscale setting holds at most 20 profiles; each schedule needs two (start and restore).",
    ),
    r(
        "autoscale-rule-limit",
        E,
        "autoscale",
        "More than 10 rules in a profile",
        "An autoscale profile holds at most 10 rules. Enforced by construction: gpuform renders at most six (scale out, up to four scaleOutTiers, scale in), so no spec triggers it.",
    ),
    r(
        "autoscale-flapping",
        W,
        "autoscale",
        "Scale-in threshold too close to the scale-out threshold",
        "After a scale-in the per-instance backlog rises; if it crosses the scale-out threshold, autoscale flaps (and Azure skips the scale-in).",
    ),
    r(
        "autoscale-tier-order",
        E,
        "autoscale",
        "A scale-out tier at or below the target",
        "Each autoscale.queue.scaleOutTiers entry is one more scale-out rule for deeper backlogs; at or below targetPerInstance it fires whenever the base rule does.",
    ),
    r(
        "policy-wait-too-long",
        W,
        "autoscale",
        "The scale-out threshold means a long wait",
        "With workload.jobDuration, a backlog of targetPerInstance per VM is targetPerInstance x jobDuration / concurrentJobsPerInstance of waiting before autoscale adds a VM; above 30 minutes the policy cannot meet any reasonable wait.",
    ),
    r(
        "policy-ramp-too-slow",
        W,
        "autoscale",
        "Scale-out too slow to reach a schedule's max",
        "With workload.jobDuration, going from a schedule's min to its max takes one scale-out per cooldown plus the size family's provisioning time; longer than the schedule window, its max is never used in time.",
    ),
    r(
        "autoscale-cooldown",
        E,
        "autoscale",
        "Cooldown or time window outside Azure's limits",
        "Cooldowns are ISO 8601 durations from PT1M to P7D; time windows from PT5M to PT12H.",
    ),
    r(
        "scale-from-zero-needs-queue",
        W,
        "autoscale",
        "The pool can reach zero instances but has no queue rule",
        "Without an external metric nothing scales a pool out of zero; add `autoscale.queue` or keep min >= 1.",
    ),
    r(
        "spot-not-interruptible",
        E,
        "capacity",
        "Spot instances for a workload that is not interruptible",
        "Spot VMs are evicted with 30 s notice. Set `workload.interruptible: true` only when work is re-queued or checkpointed; otherwise use regularPercentAboveBase: 100.",
    ),
    r(
        "spot-needs-flexible",
        E,
        "capacity",
        "A spot/regular mix on a Uniform scale set",
        "priorityMixPolicy exists only for Flexible orchestration.",
    ),
    r(
        "spot-not-supported",
        E,
        "capacity",
        "Spot on a size that cannot run as spot",
        "The size is not LowPriorityCapable.",
    ),
    r(
        "spot-eviction-deallocate",
        W,
        "capacity",
        "Spot eviction policy Deallocate in an autoscaled pool",
        "Deallocated spot VMs keep counting against quota and autoscale treats them as capacity; Delete suits autoscaled pools.",
    ),
    r(
        "distributed-spot",
        W,
        "capacity",
        "Distributed training on spot instances",
        "An eviction stops the whole multi-node job; checkpoint often or use regular priority.",
    ),
    r(
        "infiniband-scale-limit",
        E,
        "capacity",
        "InfiniBand pool larger than one placement group",
        "InfiniBand connects VMs of one scale set placement group: at most 100 instances.",
    ),
    // --- drivers and images ------------------------------------------------------------
    r(
        "trusted-launch-driver",
        E,
        "drivers",
        "Trusted Launch with a GPU driver extension",
        "Secure Boot rejects the unsigned kernel modules the driver extension builds; use securityType: standard or an image with signed drivers and gpuDriver: none.",
    ),
    r(
        "nd-needs-hpc-image",
        E,
        "drivers",
        "ND size without an image that carries drivers",
        "No driver extension supports ND sizes. Use `image: ubuntu-hpc-22.04` (NVIDIA; `ubuntu-hpc-22.04-rocm` for ND MI300X v5) or a custom image with `hasGpuDrivers: true`.",
    ),
    r(
        "image-gpu-vendor",
        E,
        "drivers",
        "An image whose GPU drivers serve the other vendor",
        "ubuntu-hpc-22.04 carries NVIDIA drivers, ubuntu-hpc-22.04-rocm AMD ROCm: on the other vendor's size the pool boots without a usable GPU. `image: auto` picks the right one.",
    ),
    r(
        "driver-mismatch",
        E,
        "drivers",
        "The requested driver does not fit the size or OS",
        "GRID vs CUDA is decided by the family (NVads A10 v5 runs only GRID); some OS versions have no driver in the extension.",
    ),
    r(
        "landing-zone-subscription",
        E,
        "network",
        "A subnet or route table in another subscription or region than the resources joining it",
        "A NIC, a private endpoint and a subnet's route table must be in the virtual network's subscription and region (Learn: network interfaces, private endpoints, route tables). The pool deploys where its subnet is; `gpuform preflight` compares every id with the deployment's subscription and reads the route table's region.",
    ),
    r(
        "nat-standardv2-unavailable",
        W,
        "network",
        "No zone-redundant NAT gateway in the region",
        "Microsoft's NAT SKU page lists regions without StandardV2 (Canada East, Indonesia Central, Israel Northwest, Qatar Central, Sweden South, West India), and no page lists StandardV2 in Azure Government or Azure operated by 21Vianet. A pool across zones there gets one Standard NAT gateway without a zone: a subnet takes one NAT gateway.",
    ),
    r(
        "cuda-needs-nvidia",
        E,
        "drivers",
        "CUDA on an AMD GPU",
        "CUDA runs only on NVIDIA GPUs: with workload.cuda, vmSize: auto picks NVIDIA sizes and a pinned AMD size (or workload.gpu.vendor: amd) is an error. For a ROCm framework remove workload.cuda and set workload.gpu.vendor: amd.",
    ),
    r(
        "gpu-vendor-mismatch",
        E,
        "drivers",
        "The pinned size's GPU vendor is not workload.gpu.vendor",
        "workload.gpu.vendor limits the GPU to one vendor; vmSize: auto picks among that vendor's sizes.",
    ),
    r(
        "cuda-too-new",
        E,
        "drivers",
        "The CUDA version is newer than the installed driver supports",
        "The framework would fail to initialise the GPU. Pin a newer compute.driverVersion or lower workload.cuda.",
    ),
    r(
        "image-generation",
        E,
        "drivers",
        "The image's Hyper-V generation does not fit the size",
        "Gen2-only sizes (A100, H100, ND) need Gen2 images.",
    ),
    r(
        "windows-ssh-key",
        W,
        "compute",
        "sshPublicKey on a Windows pool",
        "Windows pools sign in with the admin password parameter; the key is ignored.",
    ),
    r(
        "ssh-key-required",
        E,
        "compute",
        "A Linux pool without an SSH public key",
        "Password sign-in is disabled on Linux pools; give compute.sshPublicKey.",
    ),
    r(
        "ssh-key-invalid",
        E,
        "compute",
        "sshPublicKey is not an OpenSSH public key",
        "Expected `ssh-ed25519 AAAA… comment`, `ssh-rsa AAAA…` or `ecdsa-sha2-nistp256 AAAA…`; never a private key.",
    ),
    r(
        "admin-username-reserved",
        E,
        "compute",
        "adminUsername is a name Azure refuses",
        "Azure rejects names such as admin, administrator, root, user, guest and test.",
    ),
    r(
        "cloud-init",
        E,
        "compute",
        "cloudInit cannot be used",
        "The file is missing, unreadable or larger than Azure's custom data limit (64 KiB before base64).",
    ),
    r(
        "zones-uniform-infiniband",
        W,
        "compute",
        "Zones on an InfiniBand pool",
        "InfiniBand placement groups live in one zone; pinning several zones splits the fabric.",
    ),
    r(
        "alternate-size-unfit",
        E,
        "compute",
        "An alternate size does not fit the workload",
        "compute.alternateSizes lists sizes deploy fails over to on a capacity error: each must be a GPU size gpuform knows that fits the workload's GPU memory (at its precision) and GPU vendor, as vmSize does.",
    ),
    r(
        "zones-by-region-conflict",
        E,
        "compute",
        "zonesByRegion does not agree with the spec",
        "compute.zonesByRegion names a region the spec neither deploys to nor fails over to, or disagrees with compute.zones in the spec's region.",
    ),
    // --- regions -----------------------------------------------------------------------
    r(
        "region-not-allowed",
        E,
        "regions",
        "A region outside allowedRegions",
        "Data residency: the region (or an alternate) is not in spec.allowedRegions.",
    ),
    r(
        "unknown-region",
        W,
        "regions",
        "A region name gpuform does not know",
        "Region names are lowercase without spaces (e.g. eastus2). A name close to a known region is a typo (region-typo, an error); one that is not may be a region newer than gpuform's list, which preflight checks live.",
    ),
    r(
        "budget-below-floor",
        E,
        "governance",
        "monitoring.budget.monthly is less than the pool costs at its minimum",
        "The scaling policy never goes below its minimum (capacity.min, the schedules' min; a fixed pool's count): those instances at the pay-as-you-go price for a month (730 h) are a floor the budget is exceeded by before any load. Raise the budget or lower the minimum; `gpuform cost` estimates the whole bill.",
    ),
    r(
        "budget-floor-not-compared",
        I,
        "governance",
        "the budget is in another currency than the price table: its floor is not compared",
        "validate compares monitoring.budget.monthly with the pool's minimum cost only in the price table's currency (the embedded table is in USD); it has no exchange rate. `gpuform cost --refresh-prices` prices in the budget's currency and compares there.",
    ),
    r(
        "region-typo",
        E,
        "regions",
        "A region name one typo away from a known region",
        "The template would fail (or deploy to a region nobody meant) with a misspelt location. The message names the region it is close to; region names are lowercase without spaces (e.g. westeurope).",
    ),
    // --- sovereign clouds (src/check/rules/cloud.rs) ---------------------------------------
    r(
        "cloud-region-mismatch",
        E,
        "regions",
        "A region of another Azure cloud than spec.cloud",
        "A template deploys to the cloud of the subscription it is sent to; a region of Azure China (china*), Azure Government (usgov*, usdod*) or the public cloud exists only in its own cloud. Use a region of spec.cloud or change spec.cloud.",
    ),
    r(
        "size-not-offered-in-cloud",
        W,
        "regions",
        "The public source for the sovereign cloud does not list the size in the region",
        "gpuform's per-cloud size list (src/catalog/sovereign_sizes.json, with its source and date) does not list the size in the region. The lists are partial and dated: preflight reads the subscription's live SKU list, which decides. vmSize: auto picks only listed sizes.",
    ),
    r(
        "size-availability-unpublished",
        I,
        "regions",
        "No public source lists the sovereign cloud's GPU sizes per region",
        "Azure operated by 21Vianet publishes no per-region GPU size list gpuform can cite; preflight's live SKU read decides. vmSize: auto cannot choose there: name a size.",
    ),
    r(
        "driver-extension-unverified",
        W,
        "drivers",
        "The GPU driver extension is not documented for the sovereign cloud",
        "Microsoft documents the Microsoft.HpcCompute GPU driver extensions for the public cloud only. Check the extension in the region (az vm extension image list) before deploying, or use an image that carries the driver.",
    ),
    // --- network -----------------------------------------------------------------------
    r(
        "cidr-invalid",
        E,
        "network",
        "An address range is not valid CIDR",
        "Write IPv4 CIDR such as 10.40.1.0/24, with no host bits set.",
    ),
    r(
        "address-space-public",
        W,
        "network",
        "The VNet's address space is public Internet address space",
        "A VNet may use public ranges, but then the pool cannot reach the real owners of those addresses (8.8.8.8 in 8.8.0.0/16 is routed into the VNet), and peering or VPN with networks that use them breaks. Use private space (RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16) or the shared 100.64.0.0/10.",
    ),
    r(
        "subnet-outside-vnet",
        E,
        "network",
        "A subnet is not inside the address space",
        "Every subnet must be a part of network.addressSpace.",
    ),
    r(
        "subnet-overlap",
        E,
        "network",
        "Subnets overlap",
        "The workload and private endpoint subnets must be disjoint.",
    ),
    r(
        "subnet-too-small",
        E,
        "network",
        "The workload subnet cannot hold max instances",
        "Azure reserves 5 addresses per subnet; the subnet needs max + 5 addresses.",
    ),
    r(
        "inbound-from-internet",
        E,
        "network",
        "Inbound traffic allowed from any address or the Internet",
        "Never open ports to `*`, 0.0.0.0/0, Internet or Any. Use Azure Bastion, a VPN, or specific source ranges.",
    ),
    r(
        "inbound-invalid",
        E,
        "network",
        "An inbound rule is not valid",
        "Ports are 1-65535 (or a range a-b); sources are CIDRs or service tags.",
    ),
    r(
        "outbound-none-driver",
        W,
        "network",
        "No outbound path while the driver extension downloads drivers",
        "Flexible scale sets have no default outbound access; with outbound: none make sure a firewall route exists, or the driver extension fails.",
    ),
    r(
        "private-endpoint-subnet-missing",
        E,
        "network",
        "No subnet for the private endpoints",
        "A private Key Vault or a storage queue gpuform creates gets a private endpoint, which needs network.privateEndpointSubnet (a /27 is enough). Service Bus Standard has no private endpoints.",
    ),
    // --- landing zones, network (issue 13) ----------------------------------------------
    r(
        "existing-subnet-conflict",
        E,
        "network",
        "A network field does not apply to an existing subnet",
        "With network.existingSubnet the pool joins the platform team's subnet: gpuform creates no VNet, subnet, NSG, NAT gateway or route table, so addressSpace, workloadSubnet, privateEndpointSubnet, inbound, routeTable and outbound: natGateway do not apply. Egress is the subnet's (outbound: userDefinedRouting or none); NSG rules are the platform team's.",
    ),
    r(
        "existing-subnet-invalid",
        E,
        "network",
        "existingSubnet / existingPrivateEndpointSubnet is not a subnet resource id",
        "Give /subscriptions/<guid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet> (fixed segments in any case).",
    ),
    r(
        "route-table-invalid",
        E,
        "network",
        "outbound: userDefinedRouting without a usable route table",
        "With a VNet of gpuform's own, userDefinedRouting needs routeTable: {nextHopIpAddress: <the hub firewall's private IP>} (gpuform creates the table with 0.0.0.0/0 -> VirtualAppliance) or routeTable: {id: <an existing route table id>}; exactly one of the two, and only with userDefinedRouting.",
    ),
    r(
        "firewall-allow-list",
        I,
        "network",
        "What the hub firewall must allow for this pool",
        "With outbound: userDefinedRouting all egress goes through the hub firewall: the GPU driver extension's download hosts, the Azure Monitor Agent's endpoints (GPU monitoring), the image's package mirror and the cloud's Entra ID and Resource Manager hosts must be allowed, or the driver extension fails and the pool never becomes healthy.",
    ),
    r(
        "private-dns-zone-missing",
        E,
        "network",
        "privateDnsZones.mode: existing without the zone a private endpoint needs",
        "In mode existing every private endpoint the plan creates (a private Key Vault, a storage queue gpuform creates) needs the resource id of the platform team's zone of its service; the message names the zone for the spec's cloud (the names are Microsoft's per-cloud table, see docs/src/landing-zones.md).",
    ),
    r(
        "private-dns-zone-mismatch",
        W,
        "network",
        "A private DNS zone id is not the zone its private endpoint registers in, or is not used",
        "The zone of a service has a fixed name per cloud; a zone of another name never resolves the endpoint. Zone ids in mode create or policy, or for a service without a private endpoint, are ignored.",
    ),
    // --- security ----------------------------------------------------------------------
    r(
        "keyvault-name",
        E,
        "security",
        "The Key Vault name breaks Azure's naming rules",
        "3-24 characters, letters, digits and hyphens, starting with a letter, ending with a letter or digit, no consecutive hyphens.",
    ),
    r(
        "cmk-needs-purge-protection",
        E,
        "security",
        "Customer-managed keys without purge protection",
        "A disk encryption set requires its vault to have soft delete and purge protection.",
    ),
    r(
        "keyvault-public",
        W,
        "security",
        "Key Vault reachable from public networks",
        "Keep publicNetworkAccess false; the vault gets a private endpoint in the workload VNet.",
    ),
    r(
        "encryption-at-host-off",
        W,
        "security",
        "Encryption at host is off",
        "Temp disks and caches are then not encrypted at rest; most policies require it.",
    ),
    r(
        "encryption-at-host-unsupported",
        E,
        "security",
        "Encryption at host on a size that does not support it",
        "The deployment fails: the size has no EncryptionAtHostSupported capability. Choose another size, or set encryptionAtHost: false for this one.",
    ),
    // --- landing zones: shared monitoring and keys (issue 13) -----------------------------
    r(
        "existing-key-vault-cmk",
        E,
        "security",
        "Customer-managed disk keys in an existing Key Vault",
        "The disk encryption set's identity is created by the deployment and needs a role on the key before the scale set's disks are created; on a vault in another resource group that takes a cross-scope deployment, which gpuform does not render. Keep diskEncryption: customerManagedKey with a vault of the pool's own, or platformManagedKey with security.existingKeyVault.",
    ),
    r(
        "existing-key-vault-settings",
        E,
        "security",
        "security.keyVault settings next to security.existingKeyVault",
        "security.keyVault describes the vault gpuform creates (name, SKU, network access, purge protection, soft delete); with an existing vault none of it applies. Remove one of the two.",
    ),
    r(
        "existing-workspace-retention",
        W,
        "monitoring",
        "logRetentionDays next to monitoring.existingWorkspace",
        "Retention is a setting of the workspace (and of its tables), which belongs to the platform team; gpuform does not change it. Remove logRetentionDays or ask the workspace's owner.",
    ),
    r(
        "shared-services-prerequisite",
        I,
        "landing-zone",
        "Something the platform team does before the pool deploys",
        "With a central workspace or an existing Key Vault, the pool's deployment touches nothing outside its resource group: the GPU table in the workspace and the role the pool's identity needs on the vault are listed for the platform team (role name, role id, principal, scope).",
    ),
    // --- tags, environment, budget, monitoring ----------------------------------------------
    r(
        "tag-missing",
        E,
        "governance",
        "A required tag is missing",
        "Cost allocation needs the tags the policy requires (project, team, env, costCenter by default).",
    ),
    r(
        "tag-invalid",
        E,
        "governance",
        "A tag name or value breaks Azure's rules",
        "Tag names: at most 512 characters, none of < > % & \\ ? /; values at most 256 characters.",
    ),
    r(
        "dev-without-shutdown",
        W,
        "governance",
        "A dev/test pool that never scales to zero",
        "Add autoShutdown or a schedule with min 0 so GPUs do not run overnight and on weekends.",
    ),
    r(
        "budget-thresholds",
        E,
        "governance",
        "Budget thresholds are not positive and ascending",
        "Thresholds are percentages of the monthly amount, e.g. [50, 80, 100].",
    ),
    r(
        "budget-no-contacts",
        E,
        "governance",
        "A budget without anyone to notify",
        "Add monitoring.alertEmails: a resource-group budget's notifications require contactEmails (Microsoft.Consumption/budgets 2024-08-01), so Azure refuses the budget without them.",
    ),
    r(
        "alert-emails-missing",
        W,
        "governance",
        "No alert emails",
        "Autoscale failures, capacity alerts and budget notifications reach nobody.",
    ),
    r(
        "fp32-inference",
        I,
        "sizing",
        "FP32 inference",
        "FP16 or INT8 usually halves or quarters VRAM and cost; validate accuracy first.",
    ),
    r(
        "gpu-monitoring-unsupported",
        E,
        "monitoring",
        "monitoring.gpu.enabled on a pool that cannot run the GPU collector",
        "The GPU collector reads nvidia-smi (Python under systemd on Linux, PowerShell under the Task Scheduler on Windows), amd-smi or rocm-smi on Linux AMD sizes, on scale sets and dev boxes: Windows AMD sizes have none. Remove `enabled: true` there.",
    ),
    r(
        "gpu-idle-window",
        E,
        "monitoring",
        "monitoring.gpu.idleMinutes is not a log alert window",
        "The idle alert's window is its windowSize, which Azure takes only as 5, 10, 15, 30, 45 minutes, 1 to 6 hours, 1 or 2 days; any other idleMinutes renders a rule the deployment refuses.",
    ),
    r(
        "gpu-telemetry-region",
        W,
        "monitoring",
        "GPU telemetry cannot reach a Flexible scale set's VMs in this region",
        "A Flexible scale set's VMs each need the GPU data collection rule associated; gpuform assigns the built-in DeployIfNotExists policy that does it, whose definition (one per cloud: Azure Government has its own, with its regions; 21Vianet has none) lists the regions it acts in. Elsewhere no VM is associated, the GPU table stays empty and the missing-telemetry alert fires. A Linux pool takes the Logs Ingestion API there unless `monitoring.gpu.delivery: agent` says otherwise; a Windows pool: use `compute.orchestration: uniform` (its association reaches every VM), or turn monitoring.gpu off.",
    ),
    r(
        "gpu-telemetry-ingestion",
        I,
        "monitoring",
        "GPU telemetry goes through the Logs Ingestion API",
        "Where no association reaches the VMs (a Flexible Linux pool in a region the built-in DCR-association policy does not list), or with `monitoring.gpu.delivery: ingestion`, each VM's collector posts its rows itself to the data collection endpoint with a token for the pool's identity (Monitoring Metrics Publisher on the rule): no Azure Monitor Agent, association or policy. Failed uploads are retried with the next sample.",
    ),
    r(
        "gpu-delivery",
        E,
        "monitoring",
        "monitoring.gpu.delivery: ingestion where the collector cannot upload",
        "The Logs Ingestion path is built for Linux scale sets (the Python collector under systemd). A dev box's association on its VM reaches it; the Windows collector travels inside an 8,191-character command line and has no upload. Remove `delivery` there.",
    ),
    r(
        "gpu-monitoring-off",
        I,
        "monitoring",
        "GPU monitoring is off because the pool cannot run the collector",
        "Windows AMD sizes get no GPU telemetry, GPU alerts, GPU health repairs or workbook; the other alerts stay. Dev boxes (standalone VMs) get all of it except automatic repairs, which only scale sets have.",
    ),
    r(
        "precision-missing",
        I,
        "sizing",
        "No precision given",
        "State workload.precision so VRAM-saving advice and sizing can use it.",
    ),
    // --- standby pools and instance mix (issue 23; sources in src/facts/standby.rs) ------
    r(
        "standby-needs-flexible",
        E,
        "standby",
        "A standby pool on a Uniform scale set",
        "Standby pools are only supported with Virtual Machine Scale Sets using Flexible orchestration (Learn, standby-pools-overview). Use `compute.orchestration: flexible` or remove `autoscale.standby`.",
    ),
    r(
        "standby-running-autoscale",
        E,
        "standby",
        "A running standby pool on an autoscaled scale set",
        "\"Standby Pools in a running VM state with autoscale enabled is not yet supported\" (Learn, standby-pools-overview); `autoscale.standby` always comes with an autoscale setting. Use `state: deallocated`.",
    ),
    r(
        "standby-hibernation-unsupported",
        E,
        "standby",
        "A hibernated standby pool where Azure cannot hibernate the VMs",
        "Hibernation supports only NVv4, NVadsA10 v5 and NVadsV710 v5 GPU sizes with up to 112 GB RAM, never Spot VMs (Learn, hibernate-resume), and not Trusted Launch Linux VMs (hibernate-resume-linux). Use `state: deallocated`, or one of those sizes.",
    ),
    r(
        "standby-hibernation-os-disk",
        E,
        "standby",
        "A hibernated standby pool whose OS disk cannot hold the VM's memory",
        "Hibernation writes the VM's memory to its OS disk: \"A persistent OS disk large enough to store the contents of the RAM, OS and other applications running on the VM\" is a prerequisite (Learn, hibernate-resume). Set compute.osDisk.sizeGiB to at least the size's memory plus the OS and applications, or use `state: deallocated`.",
    ),
    r(
        "standby-spot",
        E,
        "standby",
        "A standby pool on a pool with Spot instances",
        "Standby pools support Spot only for 100 % Spot scale sets with eviction policy Delete, in preview, and never a Spot/regular mix (Learn, standby-pools-spot-instances). Use `regularPercentAboveBase: 100` or remove `autoscale.standby`.",
    ),
    r(
        "standby-ready-order",
        E,
        "standby",
        "standby.minReady is larger than standby.maxReady",
        "MinReadyCapacity cannot exceed MaxReadyCapacity (Az.StandbyPool reference). Keep minReady <= maxReady.",
    ),
    r(
        "standby-vm-limit",
        E,
        "standby",
        "The scale set and its standby pool can exceed 1,000 VMs",
        "\"The maximum number of virtual machines between a scale set and a standby pool is 1,000\" (Learn, standby-pools-faq). At the pool's largest instance count the scale set plus the pool (max(maxReady - instances, minReady)) must stay within it.",
    ),
    r(
        "standby-above-max",
        W,
        "standby",
        "The standby pool keeps more VMs than the scale set can ever take",
        "The pool holds max(maxReady - instances, minReady) VMs; more than the scale set's max instances can never be taken by one scale-out, yet each counts against vCPU quota and bills its disks. Lower maxReady to at most the scale set's max.",
    ),
    r(
        "standby-provider-roles",
        W,
        "standby",
        "The Standby Pool resource provider needs roles before the pool works",
        "The provider's per-tenant principal (\"Standby Pool Resource Provider\") needs Virtual Machine Contributor, Network Contributor and Managed Identity Operator (Learn, standby-pools-configure-permissions), and `Microsoft.StandbyPool` must be registered (up to 30 minutes). Give `autoscale.standby.providerPrincipalId` to have the template grant the roles on the resource group, or grant them before deploying.",
    ),
    r(
        "standby-provider-scopes",
        W,
        "standby",
        "The Standby Pool resource provider needs roles beyond the pool's resource group",
        "An existing subnet in another group (network.existingSubnet) needs Network Contributor there; a Compute Gallery image (image.id) needs Compute Gallery Sharing Admin and Compute Gallery Artifacts Publisher on its gallery, in whatever group or subscription (Learn, standby-pools-configure-permissions: \"compute gallery images in other subscriptions\", \"Virtual networks and subnets\"). The template's grants on the pool's group do not reach there, so validate prints the `az role assignment create` lines and preflight checks them. Without them the pool never fills.",
    ),
    r(
        "instance-mix-gpu",
        E,
        "schema",
        "Several GPU sizes for one scale set (instance mix)",
        "Instance mix (`skuProfile`) supports only the A, B, D, E and F families, up to five sizes, and not standby pools (Learn, instance-mix-overview): no GPU size can be part of one. Give one `vmSize`; preflight ranks alternates.",
    ),
    // --- serving (issue 36) --------------------------------------------------------------
    r(
        "serving-needs-inference",
        E,
        "serving",
        "serving on a workload that is not inference",
        "spec.serving is online inference: a model server answering requests. Set `workload.type: inference`; batch work scales on a queue.",
    ),
    r(
        "serving-with-queue",
        E,
        "serving",
        "serving together with autoscale.queue",
        "A serving pool is request-driven (autoscale.requests on the gateway's request metric); a queue-driven pool has no frontend. Choose one.",
    ),
    r(
        "serving-needs-flexible",
        E,
        "serving",
        "serving on a Uniform scale set",
        "Serving renders the Application Health extension and rolling upgrades of a Flexible scale set (the Flexible orchestration mode is the default).",
    ),
    r(
        "serving-devbox",
        E,
        "serving",
        "serving on a dev box",
        "autoShutdown with one instance renders a standalone VM (a dev box), which has no scale set to put behind a frontend.",
    ),
    r(
        "serving-health-probe-conflict",
        E,
        "serving",
        "compute.healthProbe next to serving",
        "A scale set takes one Application Health extension; serving probes its own health path. Remove compute.healthProbe.",
    ),
    r(
        "serving-port-missing",
        E,
        "serving",
        "serving without a port, health path or health port",
        "gpuform fills the model server's port and health path only where its documentation gives them (vllm, triton); for other servers give port and healthPath, and a gRPC server's HTTP healthPort.",
    ),
    r(
        "serving-probe-port",
        E,
        "serving",
        "A load balancer probe on a port Azure refuses",
        "HTTP load balancer probes may not target ports 19, 21, 25, 70, 110, 119, 143, 220, 993 (Learn, load balancer health probes).",
    ),
    r(
        "serving-duration-invalid",
        E,
        "serving",
        "A serving duration that is not one or is outside Azure's range",
        "requestTimeout is 1 s to 24 h, drainTimeout 1 s to 3600 s (Application Gateway REST spec); serviceTime and latencyP95 are more than zero.",
    ),
    r(
        "serving-grace-clamped",
        W,
        "serving",
        "modelLoadTime below automatic repairs' shortest grace period",
        "Automatic repairs' grace period is PT10M to PT90M; a shorter modelLoadTime gives PT10M.",
    ),
    r(
        "serving-model-load-too-long",
        E,
        "serving",
        "modelLoadTime longer than automatic repairs' longest grace period",
        "Automatic repairs' grace period is at most PT90M: an instance that takes longer to load its model would be replaced while loading, again and again.",
    ),
    r(
        "serving-service-time",
        E,
        "serving",
        "serviceTime and tokensPerSecond given inconsistently",
        "The service time is serviceTime, or outputTokens / (tokensPerSecond / concurrency): one of the two, complete.",
    ),
    r(
        "serving-service-spread",
        E,
        "serving",
        "serviceTimeP95 or outputTokensP95 without its mean, or below it",
        "serviceTimeP95 spreads serviceTime (outputTokensP95 spreads outputTokens): the p95 of the same measurement as the mean, at or above it.",
    ),
    r(
        "serving-service-spread-tail",
        W,
        "serving",
        "A service-time p95 above the exponential's (3.0 x the mean)",
        "simulate models service times from a constant (p95 = the mean) to the exponential (p95 = ln 20 x the mean); a heavier tail is simulated as exponential, optimistic about the slowest requests.",
    ),
    r(
        "serving-latency-unreachable",
        W,
        "serving",
        "latencyP95 below what one request takes at p95 without any wait",
        "The service time's own p95 (serviceTimeP95, else the exponential's: ln 20 x serviceTime) is more than latencyP95: no number of instances meets the target, simulate --tune proposes none and a latency alert would fire all day.",
    ),
    r(
        "serving-private-link-gateway",
        E,
        "serving",
        "privateLink with an Application Gateway-only frontend",
        "The Private Link service goes on the internal load balancer; Private Link to a private-only Application Gateway is unsupported (Learn, private Application Gateway deployment). Use frontend.kind both or loadBalancer.",
    ),
    r(
        "serving-grpc-gateway",
        E,
        "serving",
        "gRPC through an Application Gateway",
        "Application Gateway talks HTTP/1.1 to its backend pools; a gRPC model server needs the load balancer frontend.",
    ),
    r(
        "serving-gateway-capacity",
        E,
        "serving",
        "Gateway capacity min above max",
        "frontend.capacity is the gateway's autoscaleConfiguration: 0 <= min <= max <= 125, max at least 2.",
    ),
    r(
        "serving-existing-subnet-gateway",
        E,
        "serving",
        "An Application Gateway in a landing zone's existing subnet",
        "An Application Gateway needs a dedicated subnet, which gpuform creates only in a VNet of its own. In a landing zone use the load balancer frontend.",
    ),
    r(
        "serving-client-sources",
        E,
        "serving",
        "A frontend client source that is not a private range",
        "A serving frontend is private only: clientSources are private CIDRs (callers in the VNet, peered VNets, on-premises over VPN). Other tenants connect through privateLink.",
    ),
    r(
        "serving-subnet",
        E,
        "serving",
        "The frontend's subnet is missing, outside the VNet, overlapping or too small",
        "The gateway takes a dedicated subnet (a /24 is recommended; its instances and the private frontend IP need addresses), the Private Link service a NAT subnet; both inside the address space, apart from the other subnets.",
    ),
    r(
        "gpu-scaling-needs-serving",
        E,
        "serving",
        "autoscale.gpuUtilization without serving or without GPU monitoring",
        "GPU-utilisation scaling reads an Application Insights metric the GPU collector sends from each VM of a serving pool: it needs spec.serving and monitoring.gpu (enabled), on a Linux scale set (the Windows collector has no upload). Add them, or remove autoscale.gpuUtilization.",
    ),
    r(
        "gpu-scaling-cloud",
        E,
        "serving",
        "autoscale.gpuUtilization outside the Azure public cloud",
        "The collector posts the metric with a Microsoft Entra token, and Microsoft's page on Entra-authenticated Application Insights ingestion lists \"Be in the public cloud\" as a prerequisite. gpuform takes that literally: scale on requests (autoscale.requests) in Azure Government or Azure operated by 21Vianet.",
    ),
    r(
        "gpu-scaling-thresholds",
        E,
        "serving",
        "autoscale.gpuUtilization thresholds that cannot work",
        "scaleOutAbove is a percentage of GPU utilisation (1-99: a mean never exceeds 100), and scaleInBelow must stay under it, or every evaluation both adds and removes instances.",
    ),
    r(
        "gpu-scaling-flap",
        W,
        "serving",
        "autoscale.gpuUtilization.scaleInBelow can flap",
        "After a scale-in from n to n-1 instances the same work spreads over fewer GPUs: the mean rises by n/(n-1). When scaleInBelow x n/(n-1) reaches scaleOutAbove at the smallest pool that scales in, the next evaluation scales out again. Leave scaleInBelow out to take the largest value that cannot flap.",
    ),
    r(
        "gpu-scaling",
        I,
        "serving",
        "GPU-utilisation scaling goes through Application Insights",
        "Autoscale documents custom metrics only from Application Insights, in the Standard and Azure.ApplicationInsights namespaces; a custom namespace on the scale set is undocumented. gpuform renders a workspace-based component with local authentication disabled, gives the pool's identity Monitoring Metrics Publisher on it, and has each VM's collector send its mean GPU utilisation once a minute; the finding lists what is an assumption.",
    ),
    r(
        "requests-without-serving",
        E,
        "serving",
        "autoscale.requests without serving",
        "Request autoscale reads the serving frontend's request metric; add spec.serving or scale on a queue.",
    ),
    r(
        "requests-need-gateway",
        E,
        "serving",
        "autoscale.requests with a load balancer-only frontend",
        "A load balancer (L4) cannot count requests: its metrics are bytes, packets, SYNs, SNAT and availability. Request autoscale needs the Application Gateway (frontend.kind applicationGateway or both).",
    ),
    r(
        "requests-aggregation",
        E,
        "serving",
        "A request scale-out aggregation the metric does not list",
        "Microsoft's supported-metrics table lists Average only for AvgRequestCountPerHealthyHost; scale out faster with scaleOutStep or a shorter timeWindow.",
    ),
    r(
        "requests-target-missing",
        E,
        "serving",
        "autoscale.requests without a target it can derive",
        "Give targetPerInstance (requests a minute per healthy instance), or serving.concurrency with a service time to derive it from.",
    ),
    r(
        "requests-target-derived",
        I,
        "serving",
        "The request target is derived, not measured",
        "Without targetPerInstance gpuform takes 70% of an instance's capacity (concurrency x 60 / service time); measure it, or let simulate --tune --latency-p95 propose one.",
    ),
    r(
        "serving-scale-from-zero",
        E,
        "serving",
        "A request-driven pool that can reach zero instances",
        "With no healthy instance the gateway reports no requests per healthy instance, so nothing scales the pool out of zero. Keep capacity.min at 1 or more.",
    ),
    r(
        "serving-idle-default",
        W,
        "serving",
        "capacity.default above min on a request-driven pool",
        "With no requests the gateway reports no data point, and autoscale scales out to the profile's default when below it: an idle pool would grow to the default.",
    ),
    r(
        "serving-feature-registration",
        I,
        "serving",
        "A private-only Application Gateway needs a subscription feature",
        "EnableApplicationGatewayNetworkIsolation (Microsoft.Network) must be registered before the first deployment (up to 30 minutes); without it Azure refuses the gateway with ApplicationGatewayFrontendIpCannotHavePublicIpAndSubnet. Render cannot register it; preflight checks it.",
    ),
    r(
        "serving-upgrade-manual-first",
        I,
        "serving",
        "The scale set is created with upgradePolicy Manual",
        "Microsoft suggests creating the scale set with Manual and switching to Rolling once the health extension reports correctly. After the first deployment set serving.upgrade.mode: rolling.",
    ),
    r(
        "serving-max-surge-preview",
        W,
        "serving",
        "Rolling upgrades with MaxSurge are in preview",
        "MaxSurge needs the MaxSurgeRollingUpgrade feature (Microsoft.Compute) and quota for the VMs it adds during an upgrade.",
    ),
];

/// The rule `id` names. A map built once: every finding looks its rule up (severity, policy),
/// and `vmSize: auto` does it for every candidate size's findings (a linear search over every
/// rule was a visible share of `validate`).
pub fn find(id: &str) -> Option<&'static Rule> {
    static BY_ID: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static Rule>> =
        std::sync::OnceLock::new();
    BY_ID
        .get_or_init(|| {
            // the first rule of an id wins, as the linear search it replaces did
            let mut m = rustc_hash::FxHashMap::default();
            for r in RULES {
                m.entry(r.id).or_insert(r);
            }
            m
        })
        .get(id)
        .copied()
}

/// Rules a policy cannot downgrade or switch off: without them passing there is no spec (input,
/// schema) or no size (`unknown-vm-size`, `no-size-fits`) for later stages to work on, or a later
/// stage fails on what passed (cost panicked on min > max; render reads the cloud-init file), or
/// what render would emit is refused by Azure (overlapping, unparsable or reserved ranges, a
/// private Key Vault or queue with nowhere to put its private endpoint, more autoscale profiles
/// or rules than allowed, duplicate NSG rules, invalid vault and admin names). Findings of other
/// rules that render cannot emit are [`super::Diagnostic::locked`] one by one.
/// `tests/hardening_props.rs` checks the list: under random policies, what validates renders,
/// prices and shows.
const PROTECTED: &[&str] = &[
    "unknown-vm-size",
    "no-size-fits",
    "cidr-invalid",
    "subnet-outside-vnet",
    "subnet-overlap",
    "subnet-too-small",
    "private-endpoint-subnet-missing",
    // cost and the autoscale profiles need min <= default <= max (cost panicked without it)
    "capacity-order",
    "schedule-out-of-range",
    // Azure refuses the autoscale setting, NSG, vault or VM render would emit
    "autoscale-profile-limit",
    "autoscale-rule-limit",
    "autoscale-cooldown",
    "inbound-invalid",
    "keyvault-name",
    // render has no vault of its own to put the key in
    "existing-key-vault-cmk",
    "admin-username-reserved",
    "data-disk-count",
    // render reads the file the rule confines to the repository
    "cloud-init",
    // simulate refuses the duration; ARM refuses the queue name
    "job-duration-invalid",
    "queue-name-invalid",
    "resource-id-invalid",
];

impl Rule {
    /// Can a policy change this rule's severity or switch it off?
    pub fn overridable(&self) -> bool {
        !matches!(self.category, "input" | "schema") && !PROTECTED.contains(&self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_and_kebab_case() {
        let mut ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate rule id");
        for id in ids {
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{id}"
            );
        }
    }
}

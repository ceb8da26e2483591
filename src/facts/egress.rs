//! Hosts a GPU pool reaches on its own when its subnet's outbound goes through a hub firewall
//! (`outbound: userDefinedRouting`): what the firewall must let through besides Azure Monitor,
//! Entra ID and Resource Manager (those come from [`super::clouds`]).
//!
//! - The GPU driver extensions (Microsoft.HpcCompute `NvidiaGpuDriver*`, `AmdGpuDriver*`)
//!   download what their resource lists name: Azure/azhpc-extensions @
//!   12c76bc4418a595ea318d0d17e27b1dec5a7a737 (2026-04-20), `NvidiaGPU/resources.json`,
//!   `NvidiaGPU/Nvidia-GPU-Linux-Resources.json` (@09c1dec, 2025-05-01),
//!   `NvidiaGPU/Nvidia-GPU-Windows-Resources.json` (@9ee6bb0, 2025-03-11),
//!   `AmdGPU/resources.json` (@eb7015a, 2024-09-04), `AmdGPU/AMD-GPU-Linux-Resources.json`
//!   (@b4de9b4, 2025-04-30), `AmdGPU/AMD-AMA-Linux-Resources.json` (@c1b77b6, 2024-10-03),
//!   `AmdGPU/AMD-GPU-Windows-Resources.json` (@bd7c8fd, 2025-08-18); copies in
//!   `shared/azure/driver-extensions-raw/`. The hosts below are every host of a URL in those
//!   lists for the vendor and OS, on Linux only the entries for Ubuntu (the only Linux images
//!   gpuform renders, [`super::images`]): the RHEL/CentOS entries' EPEL, LIS and CUDA-rhel
//!   repositories are left out. Which of the two schemas an extension version reads is not
//!   documented (the shared summary's note), so both count. `go.microsoft.com` entries are
//!   fwlinks that redirect to `download.microsoft.com`; both are needed.
//! - Ubuntu's package mirror: Learn, "Outbound network and FQDN rules for AKS clusters",
//!   "Optional recommended FQDN / application rules" (MicrosoftDocs/azure-aks-docs
//!   `articles/aks/outbound-rules-control-egress.md`@a614c8bfdbaa2d3c032386475f37d0abafedac29,
//!   read 2026-12-05): "`security.ubuntu.com`, `azure.archive.ubuntu.com`,
//!   `changelogs.ubuntu.com` | `HTTP:80` | … lets the Linux cluster nodes download the required
//!   security patches and updates" (AKS nodes run Azure's Ubuntu images; the driver extension
//!   installs kernel headers through apt).

use super::Source;

pub const DRIVER_DOWNLOADS_SOURCE: Source = Source::doc(
    "Azure/azhpc-extensions NvidiaGPU/{resources.json,Nvidia-GPU-Linux-Resources.json,Nvidia-GPU-Windows-Resources.json}, \
     AmdGPU/{resources.json,AMD-GPU-Linux-Resources.json,AMD-AMA-Linux-Resources.json,AMD-GPU-Windows-Resources.json} \
     @12c76bc4418a595ea318d0d17e27b1dec5a7a737 (2026-04-20)",
    "2026-12-05",
);

pub const UBUNTU_MIRROR_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/aks/outbound-rules-control-egress \
     (MicrosoftDocs/azure-aks-docs articles/aks/outbound-rules-control-egress.md@a614c8bfdbaa2d3c032386475f37d0abafedac29)",
    "2026-12-05",
);

/// The GPU vendor of a driver extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Nvidia,
    Amd,
}

/// The hosts a driver extension of `vendor` downloads from on Linux (Ubuntu) or Windows, all on
/// HTTPS (443): every URL in the resource lists is `https://`.
pub fn driver_download_hosts(vendor: Vendor, windows: bool) -> &'static [&'static str] {
    match (vendor, windows) {
        (Vendor::Nvidia, false) => &[
            "download.microsoft.com",
            "go.microsoft.com",
            "developer.download.nvidia.com",
        ],
        (Vendor::Nvidia, true) => &["download.microsoft.com", "go.microsoft.com"],
        // AMD-GPU-Linux-Resources.json names repo.radeon.com only; AMD-AMA-Linux-Resources.json
        // (the same extension's list for the NM series' media accelerator) download.microsoft.com.
        (Vendor::Amd, false) => &["repo.radeon.com", "download.microsoft.com"],
        (Vendor::Amd, true) => &["download.microsoft.com", "go.microsoft.com"],
    }
}

/// Ubuntu's package hosts the AKS page lists, all on HTTP (80).
pub const UBUNTU_PACKAGE_HOSTS: &[&str] = &[
    "azure.archive.ubuntu.com",
    "security.ubuntu.com",
    "changelogs.ubuntu.com",
];

/// The port the AKS page gives for [`UBUNTU_PACKAGE_HOSTS`].
pub const UBUNTU_PACKAGE_PORT: &str = "http:80";

/// The Azure Firewall FQDN tag for Windows Update, as application rules spell it: Learn,
/// New-AzFirewallApplicationRule, "Example 2: Create a rule to allow WindowsUpdate for
/// 10.0.0.0/24 subnet" (`-FqdnTag WindowsUpdate`),
/// <https://learn.microsoft.com/powershell/module/az.network/new-azfirewallapplicationrule>
/// (read 2026-12-05); the tags overview (MicrosoftDocs/azure-docs
/// `articles/firewall/fqdn-tags.md`@cd9506028e750a73f13f23a766ce295fa93ca3a7) lists "Windows
/// Update" and says an FQDN tag rule's protocol must be https.
pub const WINDOWS_UPDATE_TAG: &str = "WindowsUpdate";

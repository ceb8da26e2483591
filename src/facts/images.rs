//! Marketplace images the spec's `image:` aliases stand for.
//!
//! Sources: the pages named on each entry, as carried by `../shared/azure/extensions.json`
//! `images` (retrieved 2026-12-03). `tests/facts_extensions.rs` checks every entry here, and every
//! `imageReference` in every rendered template, against that list (publisher, offer and sku,
//! case-insensitively as Azure compares them). All are Gen2 images.

use super::Source;

/// A marketplace image (`publisher:offer:sku:version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MarketplaceImage {
    pub publisher: &'static str,
    pub offer: &'static str,
    pub sku: &'static str,
    pub version: &'static str,
}

const READ: &str = "2026-12-03";

/// Canonical's AMD64 Gen2 Ubuntu 22.04 (Gen1 is `22_04-lts`). canonical/ubuntu-cloud-docs
/// azure/azure-how-to/instances/find-ubuntu-images.rst@781e89a99c9ffc58565401935aa3ff6060999ff9;
/// Learn "Find Azure Marketplace image information" (cli-ps-findimage.md@883ff7bb, 2026-06-24).
pub const UBUNTU_2204: MarketplaceImage = MarketplaceImage {
    publisher: "Canonical",
    offer: "0001-com-ubuntu-server-jammy",
    sku: "22_04-lts-gen2",
    version: "latest",
};

/// Canonical's AMD64 Gen2 Ubuntu 24.04 (the offer naming changed with 24.04; Gen1 is
/// `server-gen1`). Same Canonical page.
pub const UBUNTU_2404: MarketplaceImage = MarketplaceImage {
    publisher: "Canonical",
    offer: "ubuntu-24_04-lts",
    sku: "server",
    version: "latest",
};

/// Azure HPC image, Ubuntu 22.04 with the NVIDIA driver, CUDA, DOCA-OFED and NCCL. Learn
/// "Azure HPC VM images" (azure-hpc-vm-images.md@5cb83fcbb4be00658ea129a3a403a78545ce1fc8);
/// Azure/azhpc-images@8e9d055fb9e1f7385da734969793861c447958a1.
pub const UBUNTU_HPC_2204: MarketplaceImage = MarketplaceImage {
    publisher: "microsoft-dsvm",
    offer: "ubuntu-hpc",
    sku: "2204",
    version: "latest",
};

/// Azure HPC image, Ubuntu 22.04 with ROCm (AMD GPUs). Same sources.
pub const UBUNTU_HPC_ROCM_2204: MarketplaceImage = MarketplaceImage {
    publisher: "microsoft-dsvm",
    offer: "ubuntu-hpc",
    sku: "2204-rocm",
    version: "latest",
};

/// Windows Server 2022 Datacenter: Azure Edition (Trusted Launch table: trusted-launch.md@d84c7a8d,
/// 2025-04-21; `az vm image list`: cli-ps-findimage.md@883ff7bb).
pub const WINDOWS_2022_AZURE_EDITION: MarketplaceImage = MarketplaceImage {
    publisher: "MicrosoftWindowsServer",
    offer: "WindowsServer",
    sku: "2022-datacenter-azure-edition",
    version: "latest",
};

pub const SOURCE: Source = Source::doc(
    "../shared/azure/extensions.json images (canonical/ubuntu-cloud-docs find-ubuntu-images.rst@781e89a9; MicrosoftDocs/azure-compute-docs azure-hpc-vm-images.md@5cb83fcb, cli-ps-findimage.md@883ff7bb, trusted-launch.md@d84c7a8d)",
    READ,
);

/// Every image gpuform's aliases can render.
pub const ALL: &[MarketplaceImage] = &[
    UBUNTU_2204,
    UBUNTU_2404,
    UBUNTU_HPC_2204,
    UBUNTU_HPC_ROCM_2204,
    WINDOWS_2022_AZURE_EDITION,
];

//! VM extensions gpuform renders: publisher, type and typeHandlerVersion per OS.
//!
//! Sources: the pages named on each entry, as carried by `../shared/azure/extensions.json`
//! (retrieved 2026-12-03; its `sources` table gives each page's repository, path, commit and
//! date) and `../shared/azure/driver-extensions.json` for the Microsoft.HpcCompute drivers.
//! `tests/facts_extensions.rs` checks every entry here, and every extension in every rendered
//! template, against those files (publisher/type known, OS the same, typeHandlerVersion in the
//! documented list). The versions are rendered with `autoUpgradeMinorVersion: true`, so Azure
//! installs the newest minor of the major.
//!
//! Sovereign clouds: the GPU driver extensions are not documented for Azure Government and only
//! partly for 21Vianet (extensions.json `clouds`); the catalog says so per cloud
//! (`catalog::clouds::DriverExtensions`).

use super::Source;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Windows,
}

#[derive(Debug, Clone, Copy)]
pub struct VmExtension {
    pub publisher: &'static str,
    /// The extension `type`.
    pub kind: &'static str,
    pub os: Os,
    /// major.minor, rendered with automatic minor upgrades.
    pub type_handler_version: &'static str,
    pub source: Source,
}

const READ: &str = "2026-12-03";

/// The GPU driver extensions' publisher.
pub const HPC_COMPUTE: &str = "Microsoft.HpcCompute";

/// Learn "NVIDIA GPU Driver Extension for Linux": the schema sample's 1.6 (the known-issue
/// samples use 1.11). MicrosoftDocs/azure-compute-docs
/// articles/virtual-machines/extensions/hpccompute-gpu-linux.md@ae4e87b18776fab97476aa3fe372b835809ef4d3 (2025-06-30).
pub const NVIDIA_GPU_DRIVER_LINUX: VmExtension = VmExtension {
    publisher: HPC_COMPUTE,
    kind: "NvidiaGpuDriverLinux",
    os: Os::Linux,
    type_handler_version: "1.6",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/hpccompute-gpu-linux (MicrosoftDocs/azure-compute-docs hpccompute-gpu-linux.md@ae4e87b18776fab97476aa3fe372b835809ef4d3, 2025-06-30)",
        READ,
    ),
};

/// MicrosoftDocs/azure-compute-docs hpccompute-gpu-windows.md@180bcf32e92b5ffb44dc6a81e6407b2f3cdacdee (2024-07-25).
pub const NVIDIA_GPU_DRIVER_WINDOWS: VmExtension = VmExtension {
    publisher: HPC_COMPUTE,
    kind: "NvidiaGpuDriverWindows",
    os: Os::Windows,
    type_handler_version: "1.10",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/hpccompute-gpu-windows (MicrosoftDocs/azure-compute-docs hpccompute-gpu-windows.md@180bcf32e92b5ffb44dc6a81e6407b2f3cdacdee, 2024-07-25)",
        READ,
    ),
};

/// MicrosoftDocs/azure-compute-docs hpccompute-amd-gpu-linux.md@b39bae45ff83124c12a58679dc368872d5f59fee (2025-04-30).
pub const AMD_GPU_DRIVER_LINUX: VmExtension = VmExtension {
    publisher: HPC_COMPUTE,
    kind: "AmdGpuDriverLinux",
    os: Os::Linux,
    type_handler_version: "1.0",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/hpccompute-amd-gpu-linux (MicrosoftDocs/azure-compute-docs hpccompute-amd-gpu-linux.md@b39bae45ff83124c12a58679dc368872d5f59fee, 2025-04-30)",
        READ,
    ),
};

/// MicrosoftDocs/azure-compute-docs hpccompute-amd-gpu-windows.md@098be497342076662a3479fe3d1cb087e518b356 (2024-07-25).
pub const AMD_GPU_DRIVER_WINDOWS: VmExtension = VmExtension {
    publisher: HPC_COMPUTE,
    kind: "AmdGpuDriverWindows",
    os: Os::Windows,
    type_handler_version: "1.1",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/hpccompute-amd-gpu-windows (MicrosoftDocs/azure-compute-docs hpccompute-amd-gpu-windows.md@098be497342076662a3479fe3d1cb087e518b356, 2024-07-25)",
        READ,
    ),
};

const HEALTH: &str = "https://learn.microsoft.com/azure/virtual-machine-scale-sets/virtual-machine-scale-sets-health-extension (MicrosoftDocs/azure-compute-docs virtual-machine-scale-sets-health-extension.md@883ff7bbc5259f994e7ef96832cbbeb5e1538d6f, 2026-05-19): 2.0 = Rich Health States, 1.0 = Binary";

pub const APPLICATION_HEALTH_LINUX: VmExtension = VmExtension {
    publisher: "Microsoft.ManagedServices",
    kind: "ApplicationHealthLinux",
    os: Os::Linux,
    type_handler_version: "2.0",
    source: Source::doc(HEALTH, READ),
};

pub const APPLICATION_HEALTH_WINDOWS: VmExtension = VmExtension {
    publisher: "Microsoft.ManagedServices",
    kind: "ApplicationHealthWindows",
    os: Os::Windows,
    type_handler_version: "2.0",
    source: Source::doc(HEALTH, READ),
};

/// Binary Health States (1.0): HTTP 200 is Healthy, anything else Unhealthy. Serving probes a
/// model server's own health path, which answers an empty 200 (no `ApplicationHealthState`
/// body, which Rich Health States need): [`super::serving::HEALTH_STATES`].
pub const APPLICATION_HEALTH_LINUX_BINARY: VmExtension = VmExtension {
    publisher: "Microsoft.ManagedServices",
    kind: "ApplicationHealthLinux",
    os: Os::Linux,
    type_handler_version: "1.0",
    source: Source::doc(HEALTH, READ),
};

pub const APPLICATION_HEALTH_WINDOWS_BINARY: VmExtension = VmExtension {
    publisher: "Microsoft.ManagedServices",
    kind: "ApplicationHealthWindows",
    os: Os::Windows,
    type_handler_version: "1.0",
    source: Source::doc(HEALTH, READ),
};

/// The Application Health extension with Binary (1.0) or Rich (2.0) health states.
pub const fn application_health_states(windows: bool, rich: bool) -> VmExtension {
    match (windows, rich) {
        (_, true) => application_health(windows),
        (true, false) => APPLICATION_HEALTH_WINDOWS_BINARY,
        (false, false) => APPLICATION_HEALTH_LINUX_BINARY,
    }
}

/// Custom Script Extension v2 for Linux. MicrosoftDocs/azure-compute-docs
/// custom-script-linux.md@b39bae45ff83124c12a58679dc368872d5f59fee (2025-08-18).
pub const CUSTOM_SCRIPT_LINUX: VmExtension = VmExtension {
    publisher: "Microsoft.Azure.Extensions",
    kind: "CustomScript",
    os: Os::Linux,
    type_handler_version: "2.1",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/custom-script-linux (MicrosoftDocs/azure-compute-docs custom-script-linux.md@b39bae45ff83124c12a58679dc368872d5f59fee, 2025-08-18)",
        READ,
    ),
};

/// MicrosoftDocs/azure-compute-docs custom-script-windows.md@18c05ae03fe245e488176d6edf15128951ca1e53 (2025-08-18).
pub const CUSTOM_SCRIPT_WINDOWS: VmExtension = VmExtension {
    publisher: "Microsoft.Compute",
    kind: "CustomScriptExtension",
    os: Os::Windows,
    type_handler_version: "1.10",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/extensions/custom-script-windows (MicrosoftDocs/azure-compute-docs custom-script-windows.md@18c05ae03fe245e488176d6edf15128951ca1e53, 2025-08-18)",
        READ,
    ),
};

const AMA_VERSIONS: &str = "https://learn.microsoft.com/azure/azure-monitor/agents/azure-monitor-agent-extension-versions (page 2026-05-06; MicrosoftDocs/azure-monitor-docs azure-monitor-agent-extension-versions.md@97ef1e421b692935b145f31a36077e5c51c10d18 for the Oct 2025 table)";

/// Azure Monitor Agent for Linux: 1.40, the newest Linux row of the release table (Feb 2026).
/// 1.0-1.8 are not Linux versions (the Linux agent starts at 1.9), and Ubuntu 24.04 needs 1.33
/// or later.
pub const AZURE_MONITOR_LINUX_AGENT: VmExtension = VmExtension {
    publisher: "Microsoft.Azure.Monitor",
    kind: "AzureMonitorLinuxAgent",
    os: Os::Linux,
    type_handler_version: "1.40",
    source: Source::doc(AMA_VERSIONS, READ),
};

/// Azure Monitor Agent for Windows: 1.0, the version of Learn's ARM samples
/// (resource-manager-agent.md@30a5ec20eb63aced1c900ea06a83c3b273ca2049, 2026-04-07), with
/// automatic minor and automatic extension upgrades.
pub const AZURE_MONITOR_WINDOWS_AGENT: VmExtension = VmExtension {
    publisher: "Microsoft.Azure.Monitor",
    kind: "AzureMonitorWindowsAgent",
    os: Os::Windows,
    type_handler_version: "1.0",
    source: Source::doc(AMA_VERSIONS, READ),
};

/// The Linux guest setup for hibernation (a swap file that holds the RAM and the resume
/// settings): "Once you've created a VM with hibernation enabled, you need to configure the guest
/// OS to successfully hibernate your VM"; "When you create a Hibernation-enabled VM via the Azure
/// portal, the LinuxHibernationExtension is automatically installed on the VM" (only there: a
/// template installs it itself). The page installs publisher `Microsoft.CPlat.Core`, type
/// `LinuxHibernateExtension`, version 1.0, with automatic upgrades (`--enable-auto-upgrade
/// true`). `../shared/azure/extensions.json` does not list it; the dated excerpt is
/// `tests/fixtures/sources/hibernation.json`.
pub const LINUX_HIBERNATE: VmExtension = VmExtension {
    publisher: "Microsoft.CPlat.Core",
    kind: "LinuxHibernateExtension",
    os: Os::Linux,
    type_handler_version: "1.0",
    source: Source::doc(
        "https://learn.microsoft.com/azure/virtual-machines/linux/hibernate-resume-linux (MicrosoftDocs/azure-docs articles/virtual-machines/linux/hibernate-resume-linux.md@007f5cbae2be54bbde4d7ba3d6028ad7107509bf, page 2024-05-16)",
        "2026-12-05",
    ),
};

pub const fn application_health(windows: bool) -> VmExtension {
    if windows {
        APPLICATION_HEALTH_WINDOWS
    } else {
        APPLICATION_HEALTH_LINUX
    }
}

pub const fn custom_script(windows: bool) -> VmExtension {
    if windows {
        CUSTOM_SCRIPT_WINDOWS
    } else {
        CUSTOM_SCRIPT_LINUX
    }
}

pub const fn azure_monitor_agent(windows: bool) -> VmExtension {
    if windows {
        AZURE_MONITOR_WINDOWS_AGENT
    } else {
        AZURE_MONITOR_LINUX_AGENT
    }
}

/// The GPU driver extension of `kind` (`NvidiaGpuDriverLinux`, ...), if gpuform knows it.
pub fn gpu_driver(kind: &str) -> Option<VmExtension> {
    [
        NVIDIA_GPU_DRIVER_LINUX,
        NVIDIA_GPU_DRIVER_WINDOWS,
        AMD_GPU_DRIVER_LINUX,
        AMD_GPU_DRIVER_WINDOWS,
    ]
    .into_iter()
    .find(|e| e.kind == kind)
}

/// Every extension gpuform can render.
pub const ALL: &[VmExtension] = &[
    NVIDIA_GPU_DRIVER_LINUX,
    NVIDIA_GPU_DRIVER_WINDOWS,
    AMD_GPU_DRIVER_LINUX,
    AMD_GPU_DRIVER_WINDOWS,
    APPLICATION_HEALTH_LINUX,
    APPLICATION_HEALTH_WINDOWS,
    APPLICATION_HEALTH_LINUX_BINARY,
    APPLICATION_HEALTH_WINDOWS_BINARY,
    CUSTOM_SCRIPT_LINUX,
    CUSTOM_SCRIPT_WINDOWS,
    AZURE_MONITOR_LINUX_AGENT,
    AZURE_MONITOR_WINDOWS_AGENT,
    LINUX_HIBERNATE,
];

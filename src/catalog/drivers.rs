//! Which GPU driver a pool gets: the `Microsoft.HpcCompute` VM extension that fits the size and
//! the OS (or none, when the image carries drivers), its settings, and the newest CUDA the
//! installed driver supports.
//!
//! Facts from the extensions' own resource lists (Azure/azhpc-extensions `NvidiaGPU/resources.json`,
//! 2026-04) and the extension docs on Microsoft Learn, as summarised in
//! `../shared/azure/driver-extensions.json`.

use serde::Serialize;

use super::kinds::GpuDriver;
use super::{DefaultDriver, GpuSize, GpuVendor};
use crate::facts::extensions as facts;

pub const PUBLISHER: &str = crate::facts::extensions::HPC_COMPUTE;

/// The CUDA toolkit the Linux NVIDIA extension installs on NC sizes when no version is pinned.
const LINUX_CUDA_DEFAULT: &str = "12.8";

/// The OS the image runs, as far as the driver extensions care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DriverOs {
    Ubuntu2204,
    Ubuntu2404,
    /// Another Linux image (custom reference or gallery image): extension support unknown.
    OtherLinux,
    Windows,
}

impl DriverOs {
    pub fn is_windows(self) -> bool {
        self == DriverOs::Windows
    }

    fn label(self) -> &'static str {
        match self {
            DriverOs::Ubuntu2204 => "Ubuntu 22.04",
            DriverOs::Ubuntu2404 => "Ubuntu 24.04",
            DriverOs::OtherLinux => "this Linux image",
            DriverOs::Windows => "Windows",
        }
    }
}

/// The driver stack the pool ends up with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DriverKind {
    Cuda,
    Grid,
    Amd,
    /// The image brings the driver (HPC images, custom images).
    Image,
    /// The user opted out.
    None,
}

impl DriverKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DriverKind::Cuda => "cuda",
            DriverKind::Grid => "grid",
            DriverKind::Amd => "amd",
            DriverKind::Image => "image",
            DriverKind::None => "none",
        }
    }
}

/// A VM extension in the scale set's extension profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriverExtension {
    pub publisher: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub type_handler_version: &'static str,
    /// Settings, in the order they are rendered.
    pub settings: Vec<(&'static str, SettingValue)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SettingValue {
    Bool(bool),
    Str(String),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriverPlan {
    pub kind: DriverKind,
    pub extension: Option<DriverExtension>,
    /// The driver version the extension installs (pinned or its current default).
    pub driver_version: Option<String>,
    /// Newest CUDA runtime the installed driver supports (`(major, minor)`), when known.
    pub max_cuda: Option<(u32, u32)>,
    /// Why a version was pinned, for comments in the rendered template.
    pub pin_reason: Option<&'static str>,
}

/// A combination the extensions do not support; `help` says what to do instead.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverProblem {
    pub message: String,
    pub help: String,
}

/// Decide the driver for `size` on `os`. `image_has_drivers` is true for HPC images and
/// custom images declared to carry drivers. `pinned` is `compute.driverVersion`.
pub fn plan(
    size: &GpuSize,
    os: DriverOs,
    requested: GpuDriver,
    image_has_drivers: bool,
    pinned: Option<&str>,
) -> Result<DriverPlan, DriverProblem> {
    if requested == GpuDriver::None {
        return Ok(DriverPlan {
            kind: DriverKind::None,
            extension: None,
            driver_version: None,
            max_cuda: None,
            pin_reason: None,
        });
    }
    if image_has_drivers && requested == GpuDriver::Auto {
        return Ok(DriverPlan {
            kind: DriverKind::Image,
            extension: None,
            driver_version: None,
            max_cuda: None,
            pin_reason: None,
        });
    }
    if size.driver.default == DefaultDriver::Image {
        return Err(DriverProblem {
            message: format!(
                "no GPU driver extension supports {} ({}); its drivers come with the image",
                size.name, size.series
            ),
            help: if size.gpu_vendor == GpuVendor::Amd {
                "use `image: ubuntu-hpc-22.04-rocm` (AMD ROCm and InfiniBand drivers preinstalled), \
                 or a custom image with `hasGpuDrivers: true`"
                    .into()
            } else {
                "use `image: ubuntu-hpc-22.04` (NVIDIA driver, CUDA, Fabric Manager and InfiniBand drivers preinstalled), \
                 or a custom image with `hasGpuDrivers: true`"
                    .into()
            },
        });
    }
    let kind = match (requested, size.gpu_vendor) {
        (GpuDriver::Auto, GpuVendor::Amd) => DriverKind::Amd,
        (GpuDriver::Auto, GpuVendor::Nvidia) => match size.driver.default {
            DefaultDriver::Grid => DriverKind::Grid,
            _ => DriverKind::Cuda,
        },
        (GpuDriver::Cuda | GpuDriver::Grid, GpuVendor::Amd) => {
            return Err(DriverProblem {
                message: format!(
                    "{} has an AMD GPU; `gpuDriver: {}` is an NVIDIA driver",
                    size.name,
                    requested.as_str()
                ),
                help: "use `gpuDriver: auto` (the AMD driver extension) or pick an NVIDIA size"
                    .into(),
            });
        }
        (GpuDriver::Cuda, GpuVendor::Nvidia) if size.grid_required => {
            return Err(DriverProblem {
                message: format!(
                    "{} ({}) runs only the NVIDIA GRID (vGPU) driver, not the CUDA data-center driver",
                    size.name, size.series
                ),
                help:
                    "use `gpuDriver: grid` (or `auto`); the GRID driver includes the CUDA runtime"
                        .into(),
            });
        }
        (GpuDriver::Grid, GpuVendor::Nvidia)
            if !size.grid_required && !size.name.contains("T4") =>
        {
            return Err(DriverProblem {
                message: format!("the GRID driver is not offered for {} ({})", size.name, size.series),
                help: "use `gpuDriver: cuda` (or `auto`); GRID is for NV sizes and, optionally, NCasT4_v3".into(),
            });
        }
        (GpuDriver::Grid, _) => DriverKind::Grid,
        (_, _) => DriverKind::Cuda,
    };
    let ext_name = if os.is_windows() {
        size.driver.windows.as_deref()
    } else {
        size.driver.linux.as_deref()
    };
    let Some(ext_name) = ext_name else {
        return Err(DriverProblem {
            message: format!(
                "no GPU driver extension supports {} on {}",
                size.name,
                if os.is_windows() { "Windows" } else { "Linux" }
            ),
            help: if os.is_windows() {
                "use a Linux image, or an image that carries the driver with `gpuDriver: none`"
                    .into()
            } else {
                "use `image: windows-2022` (the AMD driver extension is Windows-only for this series) or a custom image with drivers and `gpuDriver: none`".into()
            },
        });
    };
    let ext_name: &'static str = match ext_name {
        "NvidiaGpuDriverLinux" => "NvidiaGpuDriverLinux",
        "NvidiaGpuDriverWindows" => "NvidiaGpuDriverWindows",
        "AmdGpuDriverWindows" => "AmdGpuDriverWindows",
        "AmdGpuDriverLinux" => "AmdGpuDriverLinux",
        other => {
            return Err(DriverProblem {
                message: format!("unknown driver extension `{other}` in the catalog"),
                help: "report this as a gpuform bug".into(),
            });
        }
    };
    let mut settings = Vec::new();
    let mut pin_reason = None;
    let mut version: Option<String> = pinned.map(str::to_string);
    let type_handler_version;
    match ext_name {
        "NvidiaGpuDriverLinux" => {
            type_handler_version = facts::NVIDIA_GPU_DRIVER_LINUX.type_handler_version;
            match kind {
                DriverKind::Cuda => {
                    // driverVersion is the CUDA toolkit version on NC/ND sizes.
                    if os == DriverOs::Ubuntu2404 {
                        return Err(DriverProblem {
                            message: "the NVIDIA driver extension has no CUDA driver for Ubuntu 24.04 (its resource list stops at Ubuntu 22.x)".into(),
                            help: "use `image: ubuntu-22.04`, or `image: ubuntu-hpc-22.04` which carries the driver".into(),
                        });
                    }
                    if version.is_none() {
                        version = Some(LINUX_CUDA_DEFAULT.to_string());
                    }
                }
                DriverKind::Grid => {
                    if size.series == "NVv3" && version.is_none() {
                        version = Some("535.161".into());
                        pin_reason =
                            Some("GRID 17.x and later do not support the Tesla M60 (NVv3)");
                    } else if size.series == "NVadsA10_v5" && version.is_none() {
                        version = Some("535.161".into());
                        pin_reason = Some(
                            "GRID 17.5 broke CUDA on A10 vGPU; 535.161 (GRID 16.5) is the documented known-good driver",
                        );
                    } else if version.is_none() {
                        version = Some("570.211.01".into());
                    }
                    if !size.grid_required {
                        settings.push(("installGridNC", SettingValue::Bool(true)));
                    }
                }
                _ => {}
            }
            if pinned.is_some() || pin_reason.is_some() {
                settings.push((
                    "driverVersion",
                    SettingValue::Str(version.clone().unwrap_or_default()),
                ));
            }
        }
        "NvidiaGpuDriverWindows" => {
            type_handler_version = facts::NVIDIA_GPU_DRIVER_WINDOWS.type_handler_version;
            match kind {
                DriverKind::Grid => {
                    if size.series == "NVv3" && version.is_none() {
                        version = Some("538.46".into());
                        pin_reason =
                            Some("GRID 17.x and later do not support the Tesla M60 (NVv3)");
                    } else if version.is_none() {
                        version = Some("573.96".into());
                    }
                    if !size.grid_required {
                        settings.push(("installGridNC", SettingValue::Bool(true)));
                    }
                }
                _ => {
                    if version.is_none() {
                        version = Some("560.94".into());
                    }
                }
            }
            if pinned.is_some() || pin_reason.is_some() {
                settings.push((
                    "driverVersion",
                    SettingValue::Str(version.clone().unwrap_or_default()),
                ));
            }
        }
        "AmdGpuDriverWindows" => {
            type_handler_version = facts::AMD_GPU_DRIVER_WINDOWS.type_handler_version
        }
        _ => type_handler_version = facts::AMD_GPU_DRIVER_LINUX.type_handler_version,
    }
    let max_cuda = match kind {
        // On another Linux the extension checks the distribution itself (and fails with exit
        // code 12 when it does not support it) and picks the driver: no CUDA ceiling is
        // claimed unless the spec pins the version.
        DriverKind::Cuda
            if ext_name == "NvidiaGpuDriverLinux"
                && os == DriverOs::OtherLinux
                && pinned.is_none() =>
        {
            None
        }
        DriverKind::Cuda if ext_name == "NvidiaGpuDriverLinux" => {
            version.as_deref().and_then(parse_cuda)
        }
        DriverKind::Cuda | DriverKind::Grid => version.as_deref().and_then(cuda_for_driver),
        _ => None,
    };
    Ok(DriverPlan {
        kind,
        extension: Some(DriverExtension {
            publisher: PUBLISHER,
            kind: ext_name,
            type_handler_version,
            settings,
        }),
        driver_version: version,
        max_cuda,
        pin_reason,
    })
}

/// Driver versions the Linux NVIDIA extension lists for Ubuntu 22.x (Azure/azhpc-extensions
/// `NvidiaGPU/resources.json` @ 12c76bc4418a595ea318d0d17e27b1dec5a7a737, 2026-04-20, copied in
/// `../shared/azure/driver-extensions-raw/`) that a pin may name to lift a CUDA ceiling, oldest
/// first. GRID: the versions above the 550 branch (GRID 17.x, whose 17.5 broke CUDA on A10 vGPU:
/// the extension docs' known issue), 570.211.01 being the resource list's default (FwLink). CUDA
/// (NC sizes): the toolkit versions the list names.
pub const LINUX_GRID_PINS: &[&str] = &["570.211.01", "595.58.03"];
pub const LINUX_CUDA_PINS: &[&str] = &["12.0", "12.1", "12.2", "12.8"];

/// The `compute.driverVersion` that lets `size`'s driver run CUDA `want` on `os` (the oldest the
/// extension lists that does), when the unpinned driver cannot: `None` when no listed version
/// does, the driver is the image's, or the OS is not Ubuntu.
pub fn pin_for_cuda(
    size: &GpuSize,
    os: DriverOs,
    requested: GpuDriver,
    image_has_drivers: bool,
    want: (u32, u32),
) -> Option<String> {
    if !matches!(os, DriverOs::Ubuntu2204 | DriverOs::Ubuntu2404) {
        return None;
    }
    let unpinned = plan(size, os, requested, image_has_drivers, None).ok()?;
    let list = match unpinned.kind {
        DriverKind::Grid => LINUX_GRID_PINS,
        DriverKind::Cuda => LINUX_CUDA_PINS,
        _ => return None,
    };
    list.iter()
        .find(|v| {
            plan(size, os, requested, image_has_drivers, Some(v))
                .ok()
                .and_then(|p| p.max_cuda)
                .is_some_and(|max| max >= want)
        })
        .map(|v| v.to_string())
}

/// `"12.4"` → `(12, 4)`.
pub fn parse_cuda(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split('.');
    let major = it.next()?.trim().parse().ok()?;
    let minor = it
        .next()
        .map(|m| m.trim().parse().ok())
        .unwrap_or(Some(0))?;
    Some((major, minor))
}

/// Newest CUDA runtime an NVIDIA driver branch supports (NVIDIA's "CUDA Toolkit and
/// Corresponding Driver Versions" table; Windows drivers use the same branch numbers).
pub fn cuda_for_driver(driver: &str) -> Option<(u32, u32)> {
    let branch: u32 = driver.split('.').next()?.parse().ok()?;
    const TABLE: &[(u32, (u32, u32))] = &[
        (580, (13, 0)),
        (575, (12, 9)),
        (570, (12, 8)),
        (565, (12, 7)),
        (560, (12, 6)),
        (555, (12, 5)),
        (550, (12, 4)),
        (545, (12, 3)),
        (535, (12, 2)),
        (530, (12, 1)),
        (525, (12, 0)),
        (520, (11, 8)),
        (515, (11, 7)),
        (510, (11, 6)),
        (495, (11, 5)),
        (470, (11, 4)),
        (465, (11, 3)),
        (460, (11, 2)),
        (455, (11, 1)),
        (450, (11, 0)),
    ];
    TABLE.iter().find(|(b, _)| branch >= *b).map(|(_, c)| *c)
}

pub fn os_label(os: DriverOs) -> &'static str {
    os.label()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find;

    fn p(size: &str, os: DriverOs, req: GpuDriver) -> Result<DriverPlan, DriverProblem> {
        plan(find(size).unwrap(), os, req, false, None)
    }

    #[test]
    fn t4_gets_cuda_on_ubuntu_2204() {
        let plan = p(
            "Standard_NC8as_T4_v3",
            DriverOs::Ubuntu2204,
            GpuDriver::Auto,
        )
        .unwrap();
        assert_eq!(plan.kind, DriverKind::Cuda);
        let ext = plan.extension.unwrap();
        assert_eq!(
            (ext.kind, ext.type_handler_version),
            ("NvidiaGpuDriverLinux", "1.6")
        );
        assert!(ext.settings.is_empty(), "no pin, no settings");
        assert_eq!(plan.max_cuda, Some((12, 8)));
    }

    #[test]
    fn a10_needs_grid_and_is_pinned() {
        assert!(
            p(
                "Standard_NV36ads_A10_v5",
                DriverOs::Ubuntu2204,
                GpuDriver::Cuda
            )
            .is_err()
        );
        let plan = p(
            "Standard_NV36ads_A10_v5",
            DriverOs::Ubuntu2204,
            GpuDriver::Auto,
        )
        .unwrap();
        assert_eq!(plan.kind, DriverKind::Grid);
        assert_eq!(plan.driver_version.as_deref(), Some("535.161"));
        assert_eq!(plan.max_cuda, Some((12, 2)));
        assert!(plan.pin_reason.is_some());
    }

    #[test]
    fn nd_sizes_have_no_extension() {
        let e = p(
            "Standard_ND96isr_H100_v5",
            DriverOs::Ubuntu2204,
            GpuDriver::Auto,
        )
        .unwrap_err();
        assert!(e.help.contains("ubuntu-hpc-22.04"));
        let ok = plan(
            find("Standard_ND96isr_H100_v5").unwrap(),
            DriverOs::Ubuntu2204,
            GpuDriver::Auto,
            true,
            None,
        )
        .unwrap();
        assert_eq!(ok.kind, DriverKind::Image);
        assert!(ok.extension.is_none());
    }

    #[test]
    fn cuda_on_ubuntu_2404_is_unsupported_but_grid_is_fine() {
        assert!(
            p(
                "Standard_NC24ads_A100_v4",
                DriverOs::Ubuntu2404,
                GpuDriver::Auto
            )
            .is_err()
        );
        assert!(
            p(
                "Standard_NV36ads_A10_v5",
                DriverOs::Ubuntu2404,
                GpuDriver::Auto
            )
            .is_ok()
        );
    }

    #[test]
    fn amd_visualization_is_windows_only() {
        assert!(p("Standard_NV32as_v4", DriverOs::Ubuntu2204, GpuDriver::Auto).is_err());
        let plan = p("Standard_NV32as_v4", DriverOs::Windows, GpuDriver::Auto).unwrap();
        assert_eq!(plan.extension.unwrap().kind, "AmdGpuDriverWindows");
    }

    #[test]
    fn no_cuda_ceiling_is_claimed_for_another_linux() {
        let t4 = find("Standard_NC8as_T4_v3").unwrap();
        let other = plan(t4, DriverOs::OtherLinux, GpuDriver::Auto, false, None).unwrap();
        assert_eq!(other.max_cuda, None);
        assert_eq!(other.extension.unwrap().kind, "NvidiaGpuDriverLinux");
        // a pinned toolkit is a ceiling wherever the extension installs it
        let pinned = plan(
            t4,
            DriverOs::OtherLinux,
            GpuDriver::Auto,
            false,
            Some("12.4"),
        )
        .unwrap();
        assert_eq!(pinned.max_cuda, Some((12, 4)));
    }

    #[test]
    fn driver_branches_map_to_cuda() {
        assert_eq!(cuda_for_driver("535.161"), Some((12, 2)));
        assert_eq!(cuda_for_driver("570.211.01"), Some((12, 8)));
        assert_eq!(cuda_for_driver("595.58.03"), Some((13, 0)));
        assert_eq!(cuda_for_driver("300.1"), None);
        assert_eq!(parse_cuda("12.4"), Some((12, 4)));
        assert_eq!(parse_cuda("12"), Some((12, 0)));
    }
}

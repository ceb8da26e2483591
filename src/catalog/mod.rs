//! The GPU size catalog and the embedded price table: the project's own data, built from the
//! facts in `../shared/azure` (see `sizes.json` `_meta`).

pub mod clouds;
pub mod currency;
pub mod drivers;
pub mod kinds;
pub mod prices;
pub mod regions;

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use kinds::{HyperVGeneration, WorkloadType};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuSize {
    pub name: String,
    pub series: String,
    /// Exact Compute usages `name.value` (== Resource SKU `family`), spaces and casing included.
    pub quota_family: String,
    pub vcpus: u32,
    #[serde(rename = "memoryGiB")]
    pub memory_gib: f64,
    pub gpu_count: Option<f64>,
    pub gpu_model: String,
    pub gpu_vendor: GpuVendor,
    /// Total GPU memory of the VM; `None` where Microsoft does not document it.
    #[serde(rename = "gpuMemoryGiB")]
    pub gpu_memory_gib: Option<f64>,
    pub infiniband: bool,
    pub hyper_v_generations: Vec<HyperVGeneration>,
    pub arch: Arch,
    pub premium_storage: bool,
    pub accelerated_networking: bool,
    /// `None`: not documented; preflight reads the real capability.
    pub encryption_at_host: Option<bool>,
    pub spot_capable: Option<bool>,
    pub max_data_disks: Option<u32>,
    pub status: SizeStatus,
    /// Retirement date (`YYYY-MM-DD`) for retiring and retired sizes.
    pub retirement: Option<String>,
    pub driver: DriverSupport,
    /// NVIDIA vGPU partitions and M60 boards run only the GRID driver.
    pub grid_required: bool,
    /// Workload types the series is made for.
    pub purpose: Vec<WorkloadType>,
    /// What a user should know before choosing it (capacity, onboarding, documentation gaps).
    #[serde(default)]
    pub note: Option<String>,
    /// The Microsoft Learn page the figures were checked against.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub confidence: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuVendor {
    #[serde(rename = "NVIDIA")]
    Nvidia,
    #[serde(rename = "AMD")]
    Amd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    X64,
    Arm64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeStatus {
    Ga,
    /// Available with a restriction the size's `note` explains (no net-new capacity, onboarding).
    Limited,
    /// In the Resource SKUs API but without a Microsoft Learn size page.
    Undocumented,
    Retiring,
    Retired,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriverSupport {
    /// `Microsoft.HpcCompute` extension type for Linux, when one supports the size.
    pub linux: Option<String>,
    pub windows: Option<String>,
    pub default: DefaultDriver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefaultDriver {
    Cuda,
    Grid,
    Amd,
    /// No driver extension: the size needs an image that carries its drivers (ND + HPC images).
    Image,
}

impl GpuSize {
    /// `NC`, `ND`, `NV`, `NG`: the letter family of the size.
    pub fn letter_family(&self) -> &str {
        let n = self.name.trim_start_matches("Standard_");
        n.get(..2).unwrap_or(n)
    }

    pub fn is_nd(&self) -> bool {
        self.letter_family() == "ND"
    }

    pub fn is_visualization_size(&self) -> bool {
        matches!(self.letter_family(), "NV" | "NG")
    }

    pub fn is_h100_class(&self) -> bool {
        ["H100", "H200", "GB200", "MI300X"]
            .iter()
            .any(|m| self.name.contains(m))
    }

    pub fn supports_gen2(&self) -> bool {
        self.hyper_v_generations.contains(&HyperVGeneration::V2)
    }
}

#[derive(Deserialize)]
struct CatalogFile {
    sizes: Vec<GpuSize>,
}

/// All sizes, in catalog order.
pub fn sizes() -> &'static [GpuSize] {
    static SIZES: OnceLock<Vec<GpuSize>> = OnceLock::new();
    SIZES.get_or_init(|| {
        let file: CatalogFile = serde_json::from_str(include_str!("sizes.json"))
            .expect("embedded sizes.json is valid (tested)");
        file.sizes
    })
}

/// Look a size up by name, case-insensitively (`standard_nc8as_t4_v3` finds the T4 size).
pub fn find(name: &str) -> Option<&'static GpuSize> {
    let all = sizes();
    // a name borrowed from the catalog itself (a ranking's candidates) is found by where it
    // lives, without comparing text: `vmSize: auto` looks up each candidate of every spec
    if let Some(s) = all.iter().find(|s| std::ptr::eq(s.name.as_str(), name)) {
        return Some(s);
    }
    // any other spelling through an index of the lower-case names (a spec's own `vmSize`, asked
    // by many rules of every spec); names are unique without case (tested)
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<String, usize>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        all.iter()
            .enumerate()
            .map(|(i, s)| (s.name.to_ascii_lowercase(), i))
            .collect()
    });
    const SHORT: usize = 64;
    if name.len() > SHORT {
        return index.get(&name.to_ascii_lowercase()).map(|i| &all[*i]);
    }
    let mut buf = [0u8; SHORT];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    // ASCII lower-casing keeps UTF-8 valid
    let lower = std::str::from_utf8(lower).ok()?;
    index.get(lower).map(|i| &all[*i])
}

/// Names of all sizes, for "did you mean" suggestions.
pub fn names() -> impl Iterator<Item = &'static str> {
    sizes().iter().map(|s| s.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A size is found by its own name (borrowed from the catalog or not) in any case, and by
    /// nothing else.
    #[test]
    fn sizes_are_found_by_name_in_any_case() {
        for s in sizes() {
            assert!(std::ptr::eq(find(&s.name).unwrap(), s));
            assert!(std::ptr::eq(find(&s.name.to_ascii_uppercase()).unwrap(), s));
            assert!(std::ptr::eq(find(&s.name.clone()).unwrap(), s));
        }
        assert!(find("Standard_NoSuchSize").is_none());
        assert!(find(&"x".repeat(100)).is_none());
        assert!(find("").is_none());
        // non-ASCII text is no size either (and lower-casing it stays valid UTF-8)
        assert!(find("Standard_NC4as_T4_v3é").is_none());
        assert!(find(&sizes()[0].name[..5]).is_none());
    }

    #[test]
    fn catalog_parses_and_names_are_unique() {
        let all = sizes();
        assert!(all.len() >= 40);
        let mut names: Vec<_> = all.iter().map(|s| s.name.to_ascii_lowercase()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn quota_family_is_kept_verbatim() {
        assert_eq!(
            find("Standard_NC8as_T4_v3").unwrap().quota_family,
            "Standard NCASv3_T4 Family"
        );
        assert_eq!(
            find("standard_nd96amsr_a100_v4").unwrap().quota_family,
            "standard NDAMSv4_A100Family"
        );
    }

    #[test]
    fn nd_sizes_need_images_with_drivers() {
        for s in sizes()
            .iter()
            .filter(|s| s.is_nd() && s.status != SizeStatus::Retired)
        {
            assert_eq!(s.driver.default, DefaultDriver::Image, "{}", s.name);
        }
    }
}

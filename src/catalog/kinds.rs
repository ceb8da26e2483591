//! Spec vocabulary the catalog is keyed on: the workload types, Hyper-V generations and GPU driver
//! choices. They are spelled as the spec writes them (serde), and live here, on the catalog's
//! floor, so that the catalog does not import `spec`; `spec::model` re-exports them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkloadType {
    Training,
    Inference,
    Batch,
    Visualization,
}

impl WorkloadType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Training => "training",
            Self::Inference => "inference",
            Self::Batch => "batch",
            Self::Visualization => "visualization",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HyperVGeneration {
    V1,
    V2,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GpuDriver {
    /// The family's driver: GRID for NV sizes, CUDA for NC/ND, none when the image carries drivers.
    #[default]
    Auto,
    Cuda,
    Grid,
    None,
}

impl GpuDriver {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Cuda => "cuda",
            Self::Grid => "grid",
            Self::None => "none",
        }
    }
}

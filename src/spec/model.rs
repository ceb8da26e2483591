//! The typed workload spec (`apiVersion: gpuform/v1`, `kind: GpuWorkload`).
//!
//! These types mirror `schemas/gpuworkload.schema.json`. Input reaches them only after the
//! JSON Schema has accepted the document, so serde errors here are rare; every default lives in
//! [`super::defaults`] (constant defaults through `#[serde(default = ...)]`, derived ones in
//! [`super::defaults::apply`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod compute;
pub mod defaults;
mod monitoring;
mod network;
mod scaling;
mod security;
mod serving;
mod standby;

/// Spec vocabulary the catalog keys on; defined in the lower `catalog` floor, named here too.
pub use crate::catalog::kinds::{GpuDriver, HyperVGeneration, WorkloadType};
pub use compute::*;
pub use monitoring::*;
pub use network::*;
pub use scaling::*;
pub use security::*;
pub use serving::*;
pub use standby::*;

pub const API_VERSION: &str = "gpuform/v1";
pub const KIND: &str = "GpuWorkload";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Spec {
    pub api_version: String,
    pub kind: String,
    pub metadata: Metadata,
    pub spec: WorkloadSpec,
}

impl Spec {
    /// The catalog entry for `compute.vmSize` (`None` for `auto` or an unknown size).
    pub fn size(&self) -> Option<&'static crate::catalog::GpuSize> {
        crate::catalog::find(&self.spec.compute.vm_size)
    }

    /// The spec with every default applied, as `gpuform show` prints it (and as it must
    /// re-validate). A landing-zone network (`existingSubnet`) has no address space of its own:
    /// the default `addressSpace` is left out, since writing it there is an error.
    pub fn resolved_value(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("spec serialises");
        if self.spec.network.existing_subnet.is_some()
            && let Some(net) = v
                .pointer_mut("/spec/network")
                .and_then(|n| n.as_object_mut())
        {
            net.remove("addressSpace");
        }
        v
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadSpec {
    pub region: String,
    #[serde(default)]
    pub alternate_regions: Vec<String>,
    /// `None`: no residency restriction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_regions: Option<Vec<String>>,
    /// The Azure cloud as written (`None`: the region decides); [`WorkloadSpec::effective_cloud`]
    /// is the one every command uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud: Option<crate::azure::Cloud>,
    pub workload: Workload,
    #[serde(default)]
    pub compute: Compute,
    pub capacity: Capacity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<Autoscale>,
    /// A request-driven pool of model servers behind a private frontend (issue 36).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<Serving>,
    #[serde(default)]
    pub network: Network,
    #[serde(default)]
    pub security: Security,
    #[serde(default)]
    pub monitoring: Monitoring,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_shutdown: Option<AutoShutdown>,
}

impl WorkloadSpec {
    /// `spec.cloud`, else the cloud of `spec.region` ([`crate::azure::Cloud::for_region`]).
    pub fn effective_cloud(&self) -> crate::azure::Cloud {
        self.cloud
            .unwrap_or_else(|| crate::azure::Cloud::for_region(&self.region))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Precision {
    Fp32,
    Tf32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Int4,
}

impl Precision {
    /// Bytes per parameter, the usual first-order driver of model VRAM.
    pub fn bytes_per_param(self) -> f64 {
        match self {
            Self::Fp32 | Self::Tf32 => 4.0,
            Self::Bf16 | Self::Fp16 => 2.0,
            Self::Fp8 | Self::Int8 => 1.0,
            Self::Int4 => 0.5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Tf32 => "tf32",
            Self::Bf16 => "bf16",
            Self::Fp16 => "fp16",
            Self::Fp8 => "fp8",
            Self::Int8 => "int8",
            Self::Int4 => "int4",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Workload {
    #[serde(rename = "type")]
    pub kind: WorkloadType,
    /// Measured VRAM peak per VM, in GiB, at `precision`.
    #[serde(rename = "gpuMemoryGiB")]
    pub gpu_memory_gib: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    #[serde(default)]
    pub interruptible: bool,
    #[serde(default)]
    pub distributed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// What the GPU must be: `vendor` limits `vmSize: auto` to one vendor's sizes (without it,
    /// `cuda` means NVIDIA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuRequirement>,
    /// How long one queued job takes on one VM (ISO 8601); `gpuform simulate` and the
    /// policy rules use it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::spec::duration::opt_iso_string"
    )]
    pub job_duration: Option<String>,
    /// Jobs one VM runs at once (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_jobs_per_instance: Option<u32>,
}

impl Workload {
    /// The GPU vendor the workload needs and why, when the spec says it: `gpu.vendor` as written
    /// (`nvidia` or `amd`), else NVIDIA when `cuda` is set (CUDA runs only on NVIDIA GPUs), else
    /// none. `vmSize: auto` applies [`Workload::vendor_rule`], which adds the default.
    pub fn required_vendor(&self) -> Option<(crate::catalog::GpuVendor, &'static str)> {
        if let Some(v) = self
            .gpu
            .as_ref()
            .and_then(|g| g.vendor)
            .and_then(|v| v.catalog())
        {
            return Some((v, "workload.gpu.vendor"));
        }
        self.cuda
            .as_ref()
            .map(|_| (crate::catalog::GpuVendor::Nvidia, "workload.cuda"))
    }

    /// Which vendors `vmSize: auto` may pick, and why: what the spec says
    /// ([`Workload::required_vendor`]), else either with `gpu.vendor: any`, else NVIDIA, the
    /// default (nearly every inference stack people name assumes CUDA unless told otherwise).
    pub fn vendor_rule(&self) -> VendorRule {
        if let Some((v, why)) = self.required_vendor() {
            return VendorRule::Only(v, why);
        }
        if self.gpu.as_ref().and_then(|g| g.vendor) == Some(GpuVendorName::Any) {
            return VendorRule::Either;
        }
        VendorRule::Only(crate::catalog::GpuVendor::Nvidia, VENDOR_DEFAULT)
    }

    /// `workload.gpu.tensorParallelSize` as written.
    pub fn tensor_parallel_size(&self) -> Option<u32> {
        self.gpu.as_ref().and_then(|g| g.tensor_parallel_size)
    }
}

/// The reason [`VendorRule::Only`] gives when the spec names no vendor.
pub const VENDOR_DEFAULT: &str = "the default";

/// The GPU vendors `vmSize: auto` may choose from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VendorRule {
    /// One vendor, and why (`workload.gpu.vendor`, `workload.cuda`, [`VENDOR_DEFAULT`], or the
    /// image's drivers).
    Only(crate::catalog::GpuVendor, &'static str),
    /// `workload.gpu.vendor: any`.
    Either,
}

impl VendorRule {
    pub fn allows(self, v: crate::catalog::GpuVendor) -> bool {
        match self {
            Self::Only(want, _) => want == v,
            Self::Either => true,
        }
    }

    /// One line for `show` and `validate`: which vendor and why.
    pub fn describe(self) -> String {
        match self {
            Self::Only(v, VENDOR_DEFAULT) => format!(
                "{}, the default (`workload.gpu.vendor: amd` or `any` lets vmSize: auto pick AMD)",
                vendor_label(v)
            ),
            Self::Only(v, why) => format!("{}, as {why} asks", vendor_label(v)),
            Self::Either => "NVIDIA or AMD, as workload.gpu.vendor: any allows".to_string(),
        }
    }
}

/// `workload.gpu`: constraints on the GPU `vmSize: auto` may pick.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuRequirement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<GpuVendorName>,
    /// How many GPUs one model replica is split across (tensor parallelism), as vLLM's
    /// `--tensor-parallel-size` and TGI's `--num-shard` take it. Absent: an inference model must
    /// fit one GPU, unless no size offers such a GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_parallel_size: Option<u32>,
}

/// A GPU vendor as the spec writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuVendorName {
    Nvidia,
    Amd,
    /// Either vendor: `vmSize: auto` ranks NVIDIA and AMD sizes together.
    Any,
}

impl GpuVendorName {
    /// The catalog's vendor (`None` for `any`).
    pub fn catalog(self) -> Option<crate::catalog::GpuVendor> {
        match self {
            Self::Nvidia => Some(crate::catalog::GpuVendor::Nvidia),
            Self::Amd => Some(crate::catalog::GpuVendor::Amd),
            Self::Any => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nvidia => "nvidia",
            Self::Amd => "amd",
            Self::Any => "any",
        }
    }
}

/// `NVIDIA` / `AMD` for messages.
pub fn vendor_label(v: crate::catalog::GpuVendor) -> &'static str {
    match v {
        crate::catalog::GpuVendor::Nvidia => "NVIDIA",
        crate::catalog::GpuVendor::Amd => "AMD",
    }
}

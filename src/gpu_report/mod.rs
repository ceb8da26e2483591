//! `gpuform gpu-report`: from the GPU telemetry back to the spec. Reads an export of the
//! `GpuTelemetry_CL` table (the JSON `az monitor log-analytics query` prints, the REST API's
//! `{"tables": [...]}` answer, or the CSV the portal exports) and reports the measured VRAM peak
//! per VM against `workload.gpuMemoryGiB`, with the sizes that fit the measured peak (ranked by
//! [`crate::sizing::select`], the same ranking `vmSize: auto` uses).

mod export;
mod peaks;
mod report;

pub use export::*;
pub use peaks::*;
pub use report::*;

#[cfg(test)]
mod tests;

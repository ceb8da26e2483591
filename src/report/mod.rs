//! Output formats for diagnostics (human, JSON, SARIF, GitHub annotations) and a small YAML
//! writer for `gpuform show`.

pub mod github;
pub mod json;
pub mod sarif;
pub mod yaml;

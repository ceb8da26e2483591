//! Output formats for diagnostics (human, JSON, SARIF, GitHub annotations) and a small YAML
//! writer for `gpuform show`.

pub mod ci;
pub mod github;
pub mod json;
pub mod markdown;
pub mod number;
pub mod sarif;
pub mod stdout;
pub mod yaml;

use crate::diag::Diagnostic;

/// What the file-level formats need from one checked file. `spec::Checked` implements it; the
/// trait lives here so `report` does not reach up to `spec`.
pub trait FileResult {
    /// The path as the user gave it.
    fn path(&self) -> &str;
    /// The resolved VM size, when the spec got that far and it is not `auto`.
    fn vm_size(&self) -> Option<&str>;
    fn diagnostics(&self) -> &[Diagnostic];
    /// Which GPU vendor `vmSize: auto` chose and why (`None` for a spec that names its size).
    fn gpu_vendor(&self) -> Option<String> {
        None
    }
}

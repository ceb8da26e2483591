//! gpuform: a declarative GPU workload spec → secure Azure infrastructure (Bicep + ARM),
//! validated, preflighted against the subscription, priced and deployed.
//!
//! Where things live:
//! - [`facts`]: every Azure constant (role GUIDs, ...) with its source and date;
//! - [`spec`]: reading a spec, the JSON Schema, the typed model and defaults;
//! - [`check`]: the pipeline every command starts from and the semantic rules (above `spec` and
//!   `plan`: some rules read the plan's derivations);
//! - [`catalog`] and [`sizing`]: GPU sizes, drivers, prices and `vmSize: auto`;
//! - [`diag`] and [`report`]: diagnostics and their output formats;
//! - [`plan`] and [`emit`]: the resolved deployment plan and its Bicep / ARM emitters;
//! - [`io`]: the one bounded reader for every file gpuform is given;
//! - [`cli`]: the commands.

pub mod azure;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod cost;
pub mod deploy;
pub mod destroy;
pub mod diag;
pub mod emit;
pub mod facts;
pub mod gpu_report;
pub mod io;
pub mod plan;
pub mod preflight;
pub mod quota;
pub mod report;
pub mod simulate;
pub mod sizing;
pub mod spec;
pub mod status;
pub mod validate;

/// `gpuform/<version>`, also the HTTP user agent.
pub const USER_AGENT: &str = concat!("gpuform/", env!("CARGO_PKG_VERSION"));

/// The git commit the binary was built from (`unknown` from a source archive; see build.rs).
pub const COMMIT: &str = env!("GPUFORM_COMMIT");

//! Tests that check whole specs and build their plans (`check_source`/`check_file`, then
//! `Plan::build` or one part of the plan). They live in the check layer, above both `spec` and
//! `plan`: a test module inside `plan` or `spec` that ran the check would import a layer above
//! its own.

mod gpu_monitoring;
mod landing_zone;
mod rules;
mod schedule;
mod serving;

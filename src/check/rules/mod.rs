//! Semantic rules: what the schema cannot say. Each finding carries a rule id from
//! [`crate::diag::rules::RULES`], a JSON pointer (turned into file:line:col later) and a help line.

mod budget;
mod capacity;
mod cloud;
pub mod compute;
pub mod context;
mod failover;
mod governance;
mod gpu_monitoring;
pub mod landing_zone;
mod network;
mod queue;
mod security;
mod serving;
mod serving_gpu;
mod serving_latency;
mod shared;
mod sizing;
mod stages;
pub mod standby;
mod workload_model;

pub use context::Context;
pub use stages::MIME_BOUNDARY;

use crate::catalog::GpuSize;
use crate::diag::Diagnostic;

/// Run every rule. Order does not matter: diagnostics are sorted by position afterwards.
pub fn run(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    sizing::check(ctx, &mut out);
    capacity::check(ctx, &mut out);
    compute::check(ctx, &mut out);
    failover::check(ctx, &mut out);
    network::check(ctx, &mut out);
    landing_zone::check(ctx, &mut out);
    security::check(ctx, &mut out);
    shared::check(ctx, &mut out);
    governance::check(ctx, &mut out);
    budget::check(ctx, &mut out);
    cloud::check(ctx, &mut out);
    stages::check(ctx, &mut out);
    gpu_monitoring::check(ctx, &mut out);
    queue::check(ctx, &mut out);
    workload_model::check(ctx, &mut out);
    serving::check(&ctx.spec.spec, &mut out);
    if let Some(sv) = &ctx.spec.spec.serving {
        serving_latency::check(sv, &mut out);
    }
    serving_gpu::check(ctx, &mut out);
    standby::check(&ctx.spec.spec, ctx.size(), ctx.image().os, &mut out);
    out
}

/// The rules whose verdict depends on the VM size, run for `size` (the spec in `ctx` already
/// names it): the same predicates `run` applies to the spec's size, so a size `vmSize: auto`
/// picks or a diagnostic recommends satisfies every rule of the spec (issue 10, item 11).
pub fn size_checks(ctx: &Context<'_>, size: &GpuSize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    sizing::check_size(ctx, size, &mut out);
    capacity::check_size(ctx, size, &mut out);
    compute::check_size(ctx, size, &mut out);
    network::check_size(ctx, size, &mut out);
    security::check_size(ctx, size, &mut out);
    cloud::check_size(ctx, size, &mut out);
    standby::check_size(&ctx.spec.spec, size, &mut out);
    out
}

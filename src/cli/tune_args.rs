//! `simulate --tune`'s flags (flattened into `simulate`'s arguments): what the search asks of
//! a proposal and how it reports. The work lives in `crate::simulate::tune`.

use super::deploy::ProgressArg;
use crate::simulate::command::{self, ProgressMode};

#[derive(Debug, Clone, clap::Args)]
pub struct TuneArgs {
    /// Search the policies render can express for the cheapest that meets --wait-p95.
    #[arg(long)]
    pub tune: bool,
    /// With --tune: the share of the model variants (the two queue-metric readings, a 2-minute
    /// metric delay, arrivals spread within the minute, provisioning +/-25 %, two pessimistic
    /// combinations) under which a proposal must meet the target (1: all).
    #[arg(long, value_name = "SHARE", default_value_t = 1.0, requires = "tune", value_parser = command::share)]
    pub robust_share: f64,
    /// With --tune: tune against the nominal model only (no margin for what Azure leaves open).
    #[arg(long, requires = "tune")]
    pub nominal: bool,
    /// With --tune: do not learn schedules from a trace of 14 days or more.
    #[arg(long, requires = "tune")]
    pub no_schedule: bool,
    /// With --tune: no proposal (exit 1) unless a policy holds under the required share of
    /// every variant; by default the tune proposes the policy that holds under the most and
    /// says what it misses.
    #[arg(long, requires = "tune")]
    pub strict: bool,
    /// With --tune: how far below --wait-p95 the proposal's nominal p95 must stay (e.g. 0.5m,
    /// 30s, 0); default: learned from resampled days of the trace (none with --nominal).
    #[arg(long, value_name = "DURATION", requires = "tune", value_parser = command::margin)]
    pub margin: Option<f64>,
    /// With --tune: progress on stderr for a tune longer than a second: a line rewritten in
    /// place (auto: on a terminal only), lines every few seconds (plain; `--progress` alone),
    /// or none.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto, num_args = 0..=1, default_missing_value = "plain", requires = "tune")]
    pub progress: ProgressArg,
    /// With --tune: the days of the trace the search replays at most (its last days; the
    /// proposal is then replayed on the whole trace).
    #[arg(long, value_name = "DAYS", default_value_t = crate::simulate::tune::SEARCH_DAYS, requires = "tune", value_parser = clap::value_parser!(u32).range(1..=366))]
    pub tune_days: u32,
}

impl TuneArgs {
    /// `--progress` as the tune reads it.
    pub fn progress_mode(&self) -> ProgressMode {
        match self.progress {
            ProgressArg::Auto => ProgressMode::Auto,
            ProgressArg::Live => ProgressMode::Live,
            ProgressArg::Plain => ProgressMode::Plain,
            ProgressArg::None => ProgressMode::None,
        }
    }
}

//! `preflight`'s flags for the Spot questions no Microsoft page settles: each takes the other
//! reading of an assumption in [`crate::facts::spot_placement`] (the default is the stricter).

use clap::ValueEnum;

use crate::preflight::plan::SpotReadings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ZoneCount {
    /// Ask every zone for the pool's whole Spot count (the stricter reading).
    #[default]
    Whole,
    /// Ask every zone for its even share of the Spot count (rounded up).
    Split,
}

#[derive(Debug, clap::Args)]
pub struct SpotArgs {
    /// Spot placement score of a zonal pool: ask each zone for the whole Spot count, or split it
    /// evenly over the zones (no page says which; both are assumptions, printed as such).
    #[arg(long, value_enum, value_name = "READING", default_value_t = ZoneCount::Whole)]
    pub spot_zone_count: ZoneCount,
    /// Warn about a Spot eviction-rate band from this many percent per hour [default: 10, an
    /// assumption: no page says what a high eviction rate is].
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub spot_high_eviction_from: Option<u32>,
}

impl SpotArgs {
    pub fn readings(&self) -> SpotReadings {
        SpotReadings {
            split_zone_count: self.spot_zone_count == ZoneCount::Split,
            high_eviction_from: self.spot_high_eviction_from,
        }
    }
}

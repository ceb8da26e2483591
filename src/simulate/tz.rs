//! Windows time zone names (as autoscale's `recurrence.schedule.timeZone` takes them) mapped to
//! IANA zones, so schedules follow daylight saving. The map is CLDR's `windowsZones.xml`
//! (territory `001`, the zone Windows means by each name); the rules come from the tz database
//! bundled into the binary by jiff (`tzdb-bundle-always`), so results do not depend on the host.

use jiff::tz::TimeZone;

/// Every Windows zone name with its CLDR golden zone (moved to the spec layer, where the GPU
/// idle alert reads it too: one map for simulate and the alert).
pub use crate::spec::timezones::WINDOWS_TO_IANA;

/// The IANA zone of a Windows zone name (exact, as autoscale matches it).
pub fn iana(windows: &str) -> Option<&'static str> {
    WINDOWS_TO_IANA
        .iter()
        .find(|(w, _)| *w == windows)
        .map(|(_, i)| *i)
}

/// The zone with its daylight-saving rules, from the bundled tz database.
pub fn zone(windows: &str) -> Option<TimeZone> {
    TimeZone::get(iana(windows)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::timezones::{ZONES, offset_minutes};

    #[test]
    fn every_accepted_zone_maps_and_has_its_standard_offset_in_january_or_july() {
        for (name, std_offset) in ZONES {
            let z = zone(name).unwrap_or_else(|| panic!("{name} has no IANA zone"));
            // the standard offset is the smaller of the two (or the only one)
            let jan: jiff::Timestamp = "2026-01-15T12:00:00Z".parse().unwrap();
            let jul: jiff::Timestamp = "2026-07-15T12:00:00Z".parse().unwrap();
            let a = z.to_offset(jan).seconds() / 60;
            let b = z.to_offset(jul).seconds() / 60;
            assert!(
                a.min(b) == *std_offset || a == *std_offset || b == *std_offset,
                "{name}: {a}/{b} vs {std_offset}"
            );
        }
        assert_eq!(WINDOWS_TO_IANA.len(), ZONES.len());
        assert_eq!(offset_minutes("China Standard Time"), Some(480));
    }
}

//! Windows time zone names, as Azure Monitor autoscale's `recurrence.schedule.timeZone` takes
//! them, with their standard UTC offsets (used to lay schedules on one weekly UTC timeline).
//! Daylight saving shifts a window by an hour for part of the year; it does not change how
//! long a window lasts, which is what cost estimates need.

/// `(name, standard UTC offset in minutes)`, from the time zones the autoscale template
/// reference documents plus the rest of Windows' list (offsets per tzdata 2026f).
pub const ZONES: &[(&str, i32)] = &[
    ("Dateline Standard Time", -720),
    ("UTC-11", -660),
    ("Aleutian Standard Time", -600),
    ("Hawaiian Standard Time", -600),
    ("Marquesas Standard Time", -570),
    ("Alaskan Standard Time", -540),
    ("UTC-09", -540),
    ("Pacific Standard Time (Mexico)", -480),
    ("UTC-08", -480),
    ("Pacific Standard Time", -480),
    ("US Mountain Standard Time", -420),
    ("Mountain Standard Time (Mexico)", -420),
    ("Mountain Standard Time", -420),
    ("Central America Standard Time", -360),
    ("Central Standard Time", -360),
    ("Easter Island Standard Time", -360),
    ("Central Standard Time (Mexico)", -360),
    ("Canada Central Standard Time", -360),
    ("SA Pacific Standard Time", -300),
    ("Eastern Standard Time (Mexico)", -300),
    ("Eastern Standard Time", -300),
    ("Haiti Standard Time", -300),
    ("Cuba Standard Time", -300),
    ("US Eastern Standard Time", -300),
    ("Turks And Caicos Standard Time", -300),
    ("Paraguay Standard Time", -180),
    ("Atlantic Standard Time", -240),
    ("Venezuela Standard Time", -240),
    ("Central Brazilian Standard Time", -240),
    ("SA Western Standard Time", -240),
    ("Pacific SA Standard Time", -240),
    ("Newfoundland Standard Time", -210),
    ("Tocantins Standard Time", -180),
    ("E. South America Standard Time", -180),
    ("SA Eastern Standard Time", -180),
    ("Argentina Standard Time", -180),
    ("Greenland Standard Time", -120),
    ("Montevideo Standard Time", -180),
    ("Magallanes Standard Time", -180),
    ("Saint Pierre Standard Time", -180),
    ("Bahia Standard Time", -180),
    ("UTC-02", -120),
    ("Mid-Atlantic Standard Time", -120),
    ("Azores Standard Time", -60),
    ("Cape Verde Standard Time", -60),
    ("UTC", 0),
    ("GMT Standard Time", 0),
    ("Greenwich Standard Time", 0),
    ("W. Europe Standard Time", 60),
    ("Central Europe Standard Time", 60),
    ("Romance Standard Time", 60),
    ("Morocco Standard Time", 60),
    ("Sao Tome Standard Time", 0),
    ("Central European Standard Time", 60),
    ("W. Central Africa Standard Time", 60),
    ("Jordan Standard Time", 180),
    ("GTB Standard Time", 120),
    ("Middle East Standard Time", 120),
    ("Egypt Standard Time", 120),
    ("E. Europe Standard Time", 120),
    ("Syria Standard Time", 180),
    ("West Bank Standard Time", 120),
    ("South Africa Standard Time", 120),
    ("FLE Standard Time", 120),
    ("Israel Standard Time", 120),
    ("Kaliningrad Standard Time", 120),
    ("Sudan Standard Time", 120),
    ("Libya Standard Time", 120),
    ("Namibia Standard Time", 120),
    ("Arabic Standard Time", 180),
    ("Turkey Standard Time", 180),
    ("Arab Standard Time", 180),
    ("Belarus Standard Time", 180),
    ("Russian Standard Time", 180),
    ("E. Africa Standard Time", 180),
    ("Iran Standard Time", 210),
    ("Arabian Standard Time", 240),
    ("Astrakhan Standard Time", 240),
    ("Azerbaijan Standard Time", 240),
    ("Russia Time Zone 3", 240),
    ("Mauritius Standard Time", 240),
    ("Saratov Standard Time", 240),
    ("Georgian Standard Time", 240),
    ("Volgograd Standard Time", 180),
    ("Caucasus Standard Time", 240),
    ("Afghanistan Standard Time", 270),
    ("West Asia Standard Time", 300),
    ("Ekaterinburg Standard Time", 300),
    ("Pakistan Standard Time", 300),
    ("India Standard Time", 330),
    ("Sri Lanka Standard Time", 330),
    ("Nepal Standard Time", 345),
    ("Central Asia Standard Time", 360),
    ("Bangladesh Standard Time", 360),
    ("Omsk Standard Time", 360),
    ("Myanmar Standard Time", 390),
    ("SE Asia Standard Time", 420),
    ("Altai Standard Time", 420),
    ("W. Mongolia Standard Time", 420),
    ("North Asia Standard Time", 420),
    ("N. Central Asia Standard Time", 420),
    ("Tomsk Standard Time", 420),
    ("China Standard Time", 480),
    ("North Asia East Standard Time", 480),
    ("Singapore Standard Time", 480),
    ("W. Australia Standard Time", 480),
    ("Taipei Standard Time", 480),
    ("Ulaanbaatar Standard Time", 480),
    ("Aus Central W. Standard Time", 525),
    ("Transbaikal Standard Time", 540),
    ("Tokyo Standard Time", 540),
    ("North Korea Standard Time", 540),
    ("Korea Standard Time", 540),
    ("Yakutsk Standard Time", 540),
    ("Cen. Australia Standard Time", 570),
    ("AUS Central Standard Time", 570),
    ("E. Australia Standard Time", 600),
    ("AUS Eastern Standard Time", 600),
    ("West Pacific Standard Time", 600),
    ("Tasmania Standard Time", 600),
    ("Vladivostok Standard Time", 600),
    ("Lord Howe Standard Time", 630),
    ("Bougainville Standard Time", 660),
    ("Russia Time Zone 10", 660),
    ("Magadan Standard Time", 660),
    ("Norfolk Standard Time", 660),
    ("Sakhalin Standard Time", 660),
    ("Central Pacific Standard Time", 660),
    ("Russia Time Zone 11", 720),
    ("New Zealand Standard Time", 720),
    ("UTC+12", 720),
    ("Fiji Standard Time", 720),
    ("Kamchatka Standard Time", 720),
    ("Chatham Islands Standard Time", 765),
    ("UTC+13", 780),
    ("Tonga Standard Time", 780),
    ("Samoa Standard Time", 780),
    ("Line Islands Standard Time", 840),
    ("Qyzylorda Standard Time", 300),
    ("South Sudan Standard Time", 120),
    ("Yukon Standard Time", -420),
];

/// Standard UTC offset in minutes of a Windows time zone name (exact match; autoscale is exact).
pub fn offset_minutes(name: &str) -> Option<i32> {
    ZONES.iter().find(|(n, _)| *n == name).map(|(_, o)| *o)
}

/// Legacy Windows zones autoscale still documents, with the id to use instead.
pub const LEGACY: &[(&str, &str)] = &[
    ("Mid-Atlantic Standard Time", "UTC-02"),
    ("Kamchatka Standard Time", "Russia Time Zone 11"),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    ZONES.iter().map(|(n, _)| *n)
}

/// IANA -> Windows time zone names from CLDR's windowsZones (see the data file's header).
const IANA_WINDOWS: &str = include_str!("iana_windows.tsv");

/// The Windows name of an IANA time zone (`Asia/Shanghai` -> `China Standard Time`), matched
/// without regard to case, as CLDR's windowsZones maps it.
pub fn windows_name_of_iana(iana: &str) -> Option<&'static str> {
    IANA_WINDOWS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .find(|(i, _)| i.eq_ignore_ascii_case(iana.trim()))
        .map(|(_, w)| w)
}

/// Parse `HH:MM` into minutes after midnight.
pub fn parse_hhmm(s: &str) -> Option<u32> {
    let (h, m) = s.split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60 && s.len() == 5).then_some(h * 60 + m)
}

/// Windows time zone names (autoscale's `recurrence.schedule.timeZone`) mapped to IANA zones: CLDR's
/// `windowsZones.xml`, territory `001` (the zone Windows means by each name). `simulate` walks
/// schedules in these zones with daylight saving; the GPU idle alert converts `now()` into them
/// (KQL `datetime_utc_to_local`, which takes IANA names).
/// Every name in [`crate::spec::timezones::ZONES`] with its CLDR golden zone.
pub const WINDOWS_TO_IANA: &[(&str, &str)] = &[
    ("Dateline Standard Time", "Etc/GMT+12"),
    ("UTC-11", "Etc/GMT+11"),
    ("Aleutian Standard Time", "America/Adak"),
    ("Hawaiian Standard Time", "Pacific/Honolulu"),
    ("Marquesas Standard Time", "Pacific/Marquesas"),
    ("Alaskan Standard Time", "America/Anchorage"),
    ("UTC-09", "Etc/GMT+9"),
    ("Pacific Standard Time (Mexico)", "America/Tijuana"),
    ("UTC-08", "Etc/GMT+8"),
    ("Pacific Standard Time", "America/Los_Angeles"),
    ("US Mountain Standard Time", "America/Phoenix"),
    ("Mountain Standard Time (Mexico)", "America/Mazatlan"),
    ("Mountain Standard Time", "America/Denver"),
    ("Central America Standard Time", "America/Guatemala"),
    ("Central Standard Time", "America/Chicago"),
    ("Easter Island Standard Time", "Pacific/Easter"),
    ("Central Standard Time (Mexico)", "America/Mexico_City"),
    ("Canada Central Standard Time", "America/Regina"),
    ("SA Pacific Standard Time", "America/Bogota"),
    ("Eastern Standard Time (Mexico)", "America/Cancun"),
    ("Eastern Standard Time", "America/New_York"),
    ("Haiti Standard Time", "America/Port-au-Prince"),
    ("Cuba Standard Time", "America/Havana"),
    ("US Eastern Standard Time", "America/Indiana/Indianapolis"),
    ("Turks And Caicos Standard Time", "America/Grand_Turk"),
    ("Paraguay Standard Time", "America/Asuncion"),
    ("Atlantic Standard Time", "America/Halifax"),
    ("Venezuela Standard Time", "America/Caracas"),
    ("Central Brazilian Standard Time", "America/Cuiaba"),
    ("SA Western Standard Time", "America/La_Paz"),
    ("Pacific SA Standard Time", "America/Santiago"),
    ("Newfoundland Standard Time", "America/St_Johns"),
    ("Tocantins Standard Time", "America/Araguaina"),
    ("E. South America Standard Time", "America/Sao_Paulo"),
    ("SA Eastern Standard Time", "America/Cayenne"),
    ("Argentina Standard Time", "America/Argentina/Buenos_Aires"),
    ("Greenland Standard Time", "America/Nuuk"),
    ("Montevideo Standard Time", "America/Montevideo"),
    ("Magallanes Standard Time", "America/Punta_Arenas"),
    ("Saint Pierre Standard Time", "America/Miquelon"),
    ("Bahia Standard Time", "America/Bahia"),
    ("UTC-02", "Etc/GMT+2"),
    ("Mid-Atlantic Standard Time", "Etc/GMT+2"),
    ("Azores Standard Time", "Atlantic/Azores"),
    ("Cape Verde Standard Time", "Atlantic/Cape_Verde"),
    ("UTC", "Etc/UTC"),
    ("GMT Standard Time", "Europe/London"),
    ("Greenwich Standard Time", "Atlantic/Reykjavik"),
    ("W. Europe Standard Time", "Europe/Berlin"),
    ("Central Europe Standard Time", "Europe/Budapest"),
    ("Romance Standard Time", "Europe/Paris"),
    ("Morocco Standard Time", "Africa/Casablanca"),
    ("Sao Tome Standard Time", "Africa/Sao_Tome"),
    ("Central European Standard Time", "Europe/Warsaw"),
    ("W. Central Africa Standard Time", "Africa/Lagos"),
    ("Jordan Standard Time", "Asia/Amman"),
    ("GTB Standard Time", "Europe/Bucharest"),
    ("Middle East Standard Time", "Asia/Beirut"),
    ("Egypt Standard Time", "Africa/Cairo"),
    ("E. Europe Standard Time", "Europe/Chisinau"),
    ("Syria Standard Time", "Asia/Damascus"),
    ("West Bank Standard Time", "Asia/Hebron"),
    ("South Africa Standard Time", "Africa/Johannesburg"),
    ("FLE Standard Time", "Europe/Kyiv"),
    ("Israel Standard Time", "Asia/Jerusalem"),
    ("Kaliningrad Standard Time", "Europe/Kaliningrad"),
    ("Sudan Standard Time", "Africa/Khartoum"),
    ("Libya Standard Time", "Africa/Tripoli"),
    ("Namibia Standard Time", "Africa/Windhoek"),
    ("Arabic Standard Time", "Asia/Baghdad"),
    ("Turkey Standard Time", "Europe/Istanbul"),
    ("Arab Standard Time", "Asia/Riyadh"),
    ("Belarus Standard Time", "Europe/Minsk"),
    ("Russian Standard Time", "Europe/Moscow"),
    ("E. Africa Standard Time", "Africa/Nairobi"),
    ("Iran Standard Time", "Asia/Tehran"),
    ("Arabian Standard Time", "Asia/Dubai"),
    ("Astrakhan Standard Time", "Europe/Astrakhan"),
    ("Azerbaijan Standard Time", "Asia/Baku"),
    ("Russia Time Zone 3", "Europe/Samara"),
    ("Mauritius Standard Time", "Indian/Mauritius"),
    ("Saratov Standard Time", "Europe/Saratov"),
    ("Georgian Standard Time", "Asia/Tbilisi"),
    ("Volgograd Standard Time", "Europe/Volgograd"),
    ("Caucasus Standard Time", "Asia/Yerevan"),
    ("Afghanistan Standard Time", "Asia/Kabul"),
    ("West Asia Standard Time", "Asia/Tashkent"),
    ("Ekaterinburg Standard Time", "Asia/Yekaterinburg"),
    ("Pakistan Standard Time", "Asia/Karachi"),
    ("India Standard Time", "Asia/Kolkata"),
    ("Sri Lanka Standard Time", "Asia/Colombo"),
    ("Nepal Standard Time", "Asia/Kathmandu"),
    ("Central Asia Standard Time", "Asia/Bishkek"),
    ("Bangladesh Standard Time", "Asia/Dhaka"),
    ("Omsk Standard Time", "Asia/Omsk"),
    ("Myanmar Standard Time", "Asia/Yangon"),
    ("SE Asia Standard Time", "Asia/Bangkok"),
    ("Altai Standard Time", "Asia/Barnaul"),
    ("W. Mongolia Standard Time", "Asia/Hovd"),
    ("North Asia Standard Time", "Asia/Krasnoyarsk"),
    ("N. Central Asia Standard Time", "Asia/Novosibirsk"),
    ("Tomsk Standard Time", "Asia/Tomsk"),
    ("China Standard Time", "Asia/Shanghai"),
    ("North Asia East Standard Time", "Asia/Irkutsk"),
    ("Singapore Standard Time", "Asia/Singapore"),
    ("W. Australia Standard Time", "Australia/Perth"),
    ("Taipei Standard Time", "Asia/Taipei"),
    ("Ulaanbaatar Standard Time", "Asia/Ulaanbaatar"),
    ("Aus Central W. Standard Time", "Australia/Eucla"),
    ("Transbaikal Standard Time", "Asia/Chita"),
    ("Tokyo Standard Time", "Asia/Tokyo"),
    ("North Korea Standard Time", "Asia/Pyongyang"),
    ("Korea Standard Time", "Asia/Seoul"),
    ("Yakutsk Standard Time", "Asia/Yakutsk"),
    ("Cen. Australia Standard Time", "Australia/Adelaide"),
    ("AUS Central Standard Time", "Australia/Darwin"),
    ("E. Australia Standard Time", "Australia/Brisbane"),
    ("AUS Eastern Standard Time", "Australia/Sydney"),
    ("West Pacific Standard Time", "Pacific/Port_Moresby"),
    ("Tasmania Standard Time", "Australia/Hobart"),
    ("Vladivostok Standard Time", "Asia/Vladivostok"),
    ("Lord Howe Standard Time", "Australia/Lord_Howe"),
    ("Bougainville Standard Time", "Pacific/Bougainville"),
    ("Russia Time Zone 10", "Asia/Srednekolymsk"),
    ("Magadan Standard Time", "Asia/Magadan"),
    ("Norfolk Standard Time", "Pacific/Norfolk"),
    ("Sakhalin Standard Time", "Asia/Sakhalin"),
    ("Central Pacific Standard Time", "Pacific/Guadalcanal"),
    ("Russia Time Zone 11", "Asia/Kamchatka"),
    ("New Zealand Standard Time", "Pacific/Auckland"),
    ("UTC+12", "Etc/GMT-12"),
    ("Fiji Standard Time", "Pacific/Fiji"),
    ("Kamchatka Standard Time", "Asia/Kamchatka"),
    ("Chatham Islands Standard Time", "Pacific/Chatham"),
    ("UTC+13", "Etc/GMT-13"),
    ("Tonga Standard Time", "Pacific/Tongatapu"),
    ("Samoa Standard Time", "Pacific/Apia"),
    ("Line Islands Standard Time", "Pacific/Kiritimati"),
    ("Qyzylorda Standard Time", "Asia/Qyzylorda"),
    ("South Sudan Standard Time", "Africa/Juba"),
    ("Yukon Standard Time", "America/Whitehorse"),
];

/// The IANA zone of a Windows zone name.
pub fn iana_of_windows(windows: &str) -> Option<&'static str> {
    WINDOWS_TO_IANA
        .iter()
        .find(|(w, _)| *w == windows)
        .map(|(_, i)| *i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_offsets_sane() {
        let mut n: Vec<_> = names().collect();
        let len = n.len();
        n.sort();
        n.dedup();
        assert_eq!(n.len(), len);
        assert!(ZONES.iter().all(|(_, o)| (-720..=840).contains(o)));
        assert_eq!(offset_minutes("China Standard Time"), Some(480));
        assert_eq!(offset_minutes("china standard time"), None);
    }

    #[test]
    fn iana_names_map_to_windows_names_autoscale_knows() {
        assert_eq!(
            windows_name_of_iana("Asia/Shanghai"),
            Some("China Standard Time")
        );
        assert_eq!(
            windows_name_of_iana("europe/berlin"),
            Some("W. Europe Standard Time")
        );
        assert_eq!(windows_name_of_iana("Mars/Olympus_Mons"), None);
        // every Windows name of the map that autoscale documents has an offset here
        let data = IANA_WINDOWS.lines().filter(|l| !l.starts_with('#'));
        assert!(data.clone().count() > 500);
        for w in [
            "China Standard Time",
            "Tokyo Standard Time",
            "Eastern Standard Time",
        ] {
            assert!(offset_minutes(w).is_some(), "{w}");
        }
    }

    #[test]
    fn hhmm() {
        assert_eq!(parse_hhmm("18:00"), Some(1080));
        assert_eq!(parse_hhmm("23:59"), Some(1439));
        assert_eq!(parse_hhmm("24:00"), None);
        assert_eq!(parse_hhmm("7:00"), None);
    }
}

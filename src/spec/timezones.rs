//! Windows time zone names, as Azure Monitor autoscale's `recurrence.schedule.timeZone` takes
//! them, with their standard UTC offsets (used to lay schedules on one weekly UTC timeline).
//! Daylight saving shifts a window by an hour for part of the year; it does not change how
//! long a window lasts, which is what cost estimates need.

/// `(name, standard UTC offset in minutes, observes DST, representative IANA zone)`, from the
/// time zones the autoscale template reference documents plus the rest of Windows' list
/// (offsets per tzdata 2026f).
pub const ZONES: &[(&str, i32, bool, &str)] = &[
    ("Dateline Standard Time", -720, false, "Etc/GMT+12"),
    ("UTC-11", -660, false, "Etc/GMT+11"),
    ("Aleutian Standard Time", -600, true, "America/Adak"),
    ("Hawaiian Standard Time", -600, false, "Pacific/Honolulu"),
    ("Marquesas Standard Time", -570, false, "Pacific/Marquesas"),
    ("Alaskan Standard Time", -540, true, "America/Anchorage"),
    ("UTC-09", -540, false, "Etc/GMT+9"),
    (
        "Pacific Standard Time (Mexico)",
        -480,
        true,
        "America/Tijuana",
    ),
    ("UTC-08", -480, false, "Etc/GMT+8"),
    ("Pacific Standard Time", -480, true, "America/Los_Angeles"),
    ("US Mountain Standard Time", -420, false, "America/Phoenix"),
    (
        "Mountain Standard Time (Mexico)",
        -420,
        false,
        "America/Mazatlan",
    ),
    ("Mountain Standard Time", -420, true, "America/Denver"),
    (
        "Central America Standard Time",
        -360,
        false,
        "America/Guatemala",
    ),
    ("Central Standard Time", -360, true, "America/Chicago"),
    ("Easter Island Standard Time", -360, true, "Pacific/Easter"),
    (
        "Central Standard Time (Mexico)",
        -360,
        false,
        "America/Mexico_City",
    ),
    (
        "Canada Central Standard Time",
        -360,
        false,
        "America/Regina",
    ),
    ("SA Pacific Standard Time", -300, false, "America/Bogota"),
    (
        "Eastern Standard Time (Mexico)",
        -300,
        false,
        "America/Cancun",
    ),
    ("Eastern Standard Time", -300, true, "America/New_York"),
    ("Haiti Standard Time", -300, true, "America/Port-au-Prince"),
    ("Cuba Standard Time", -300, true, "America/Havana"),
    (
        "US Eastern Standard Time",
        -300,
        true,
        "America/Indianapolis",
    ),
    (
        "Turks And Caicos Standard Time",
        -300,
        true,
        "America/Grand_Turk",
    ),
    ("Paraguay Standard Time", -180, false, "America/Asuncion"),
    ("Atlantic Standard Time", -240, true, "America/Halifax"),
    ("Venezuela Standard Time", -240, false, "America/Caracas"),
    (
        "Central Brazilian Standard Time",
        -240,
        false,
        "America/Cuiaba",
    ),
    ("SA Western Standard Time", -240, false, "America/La_Paz"),
    ("Pacific SA Standard Time", -240, true, "America/Santiago"),
    ("Newfoundland Standard Time", -210, true, "America/St_Johns"),
    ("Tocantins Standard Time", -180, false, "America/Araguaina"),
    (
        "E. South America Standard Time",
        -180,
        false,
        "America/Sao_Paulo",
    ),
    ("SA Eastern Standard Time", -180, false, "America/Cayenne"),
    (
        "Argentina Standard Time",
        -180,
        false,
        "America/Buenos_Aires",
    ),
    ("Greenland Standard Time", -120, true, "America/Godthab"),
    (
        "Montevideo Standard Time",
        -180,
        false,
        "America/Montevideo",
    ),
    (
        "Magallanes Standard Time",
        -180,
        false,
        "America/Punta_Arenas",
    ),
    ("Saint Pierre Standard Time", -180, true, "America/Miquelon"),
    ("Bahia Standard Time", -180, false, "America/Bahia"),
    ("UTC-02", -120, false, "Etc/GMT+2"),
    ("Mid-Atlantic Standard Time", -120, true, "Etc/GMT+2"),
    ("Azores Standard Time", -60, true, "Atlantic/Azores"),
    (
        "Cape Verde Standard Time",
        -60,
        false,
        "Atlantic/Cape_Verde",
    ),
    ("UTC", 0, false, "Etc/UTC"),
    ("GMT Standard Time", 0, true, "Europe/London"),
    ("Greenwich Standard Time", 0, false, "Atlantic/Reykjavik"),
    ("W. Europe Standard Time", 60, true, "Europe/Berlin"),
    ("Central Europe Standard Time", 60, true, "Europe/Budapest"),
    ("Romance Standard Time", 60, true, "Europe/Paris"),
    ("Morocco Standard Time", 60, true, "Africa/Casablanca"),
    ("Sao Tome Standard Time", 0, false, "Africa/Sao_Tome"),
    ("Central European Standard Time", 60, true, "Europe/Warsaw"),
    ("W. Central Africa Standard Time", 60, false, "Africa/Lagos"),
    ("Jordan Standard Time", 180, false, "Asia/Amman"),
    ("GTB Standard Time", 120, true, "Europe/Bucharest"),
    ("Middle East Standard Time", 120, true, "Asia/Beirut"),
    ("Egypt Standard Time", 120, true, "Africa/Cairo"),
    ("E. Europe Standard Time", 120, true, "Europe/Chisinau"),
    ("Syria Standard Time", 180, false, "Asia/Damascus"),
    ("West Bank Standard Time", 120, true, "Asia/Hebron"),
    (
        "South Africa Standard Time",
        120,
        false,
        "Africa/Johannesburg",
    ),
    ("FLE Standard Time", 120, true, "Europe/Kiev"),
    ("Israel Standard Time", 120, true, "Asia/Jerusalem"),
    (
        "Kaliningrad Standard Time",
        120,
        false,
        "Europe/Kaliningrad",
    ),
    ("Sudan Standard Time", 120, false, "Africa/Khartoum"),
    ("Libya Standard Time", 120, false, "Africa/Tripoli"),
    ("Namibia Standard Time", 120, false, "Africa/Windhoek"),
    ("Arabic Standard Time", 180, false, "Asia/Baghdad"),
    ("Turkey Standard Time", 180, false, "Europe/Istanbul"),
    ("Arab Standard Time", 180, false, "Asia/Riyadh"),
    ("Belarus Standard Time", 180, false, "Europe/Minsk"),
    ("Russian Standard Time", 180, false, "Europe/Moscow"),
    ("E. Africa Standard Time", 180, false, "Africa/Nairobi"),
    ("Iran Standard Time", 210, false, "Asia/Tehran"),
    ("Arabian Standard Time", 240, false, "Asia/Dubai"),
    ("Astrakhan Standard Time", 240, false, "Europe/Astrakhan"),
    ("Azerbaijan Standard Time", 240, false, "Asia/Baku"),
    ("Russia Time Zone 3", 240, false, "Europe/Samara"),
    ("Mauritius Standard Time", 240, false, "Indian/Mauritius"),
    ("Saratov Standard Time", 240, false, "Europe/Saratov"),
    ("Georgian Standard Time", 240, false, "Asia/Tbilisi"),
    ("Volgograd Standard Time", 180, false, "Europe/Volgograd"),
    ("Caucasus Standard Time", 240, false, "Asia/Yerevan"),
    ("Afghanistan Standard Time", 270, false, "Asia/Kabul"),
    ("West Asia Standard Time", 300, false, "Asia/Tashkent"),
    (
        "Ekaterinburg Standard Time",
        300,
        false,
        "Asia/Yekaterinburg",
    ),
    ("Pakistan Standard Time", 300, false, "Asia/Karachi"),
    ("India Standard Time", 330, false, "Asia/Calcutta"),
    ("Sri Lanka Standard Time", 330, false, "Asia/Colombo"),
    ("Nepal Standard Time", 345, false, "Asia/Katmandu"),
    ("Central Asia Standard Time", 360, false, "Asia/Bishkek"),
    ("Bangladesh Standard Time", 360, false, "Asia/Dhaka"),
    ("Omsk Standard Time", 360, false, "Asia/Omsk"),
    ("Myanmar Standard Time", 390, false, "Asia/Rangoon"),
    ("SE Asia Standard Time", 420, false, "Asia/Bangkok"),
    ("Altai Standard Time", 420, false, "Asia/Barnaul"),
    ("W. Mongolia Standard Time", 420, false, "Asia/Hovd"),
    ("North Asia Standard Time", 420, false, "Asia/Krasnoyarsk"),
    (
        "N. Central Asia Standard Time",
        420,
        false,
        "Asia/Novosibirsk",
    ),
    ("Tomsk Standard Time", 420, false, "Asia/Tomsk"),
    ("China Standard Time", 480, false, "Asia/Shanghai"),
    ("North Asia East Standard Time", 480, false, "Asia/Irkutsk"),
    ("Singapore Standard Time", 480, false, "Asia/Singapore"),
    ("W. Australia Standard Time", 480, false, "Australia/Perth"),
    ("Taipei Standard Time", 480, false, "Asia/Taipei"),
    ("Ulaanbaatar Standard Time", 480, false, "Asia/Ulaanbaatar"),
    (
        "Aus Central W. Standard Time",
        525,
        false,
        "Australia/Eucla",
    ),
    ("Transbaikal Standard Time", 540, false, "Asia/Chita"),
    ("Tokyo Standard Time", 540, false, "Asia/Tokyo"),
    ("North Korea Standard Time", 540, false, "Asia/Pyongyang"),
    ("Korea Standard Time", 540, false, "Asia/Seoul"),
    ("Yakutsk Standard Time", 540, false, "Asia/Yakutsk"),
    (
        "Cen. Australia Standard Time",
        570,
        true,
        "Australia/Adelaide",
    ),
    ("AUS Central Standard Time", 570, false, "Australia/Darwin"),
    (
        "E. Australia Standard Time",
        600,
        false,
        "Australia/Brisbane",
    ),
    ("AUS Eastern Standard Time", 600, true, "Australia/Sydney"),
    (
        "West Pacific Standard Time",
        600,
        false,
        "Pacific/Port_Moresby",
    ),
    ("Tasmania Standard Time", 600, true, "Australia/Hobart"),
    ("Vladivostok Standard Time", 600, false, "Asia/Vladivostok"),
    ("Lord Howe Standard Time", 630, true, "Australia/Lord_Howe"),
    (
        "Bougainville Standard Time",
        660,
        false,
        "Pacific/Bougainville",
    ),
    ("Russia Time Zone 10", 660, false, "Asia/Srednekolymsk"),
    ("Magadan Standard Time", 660, false, "Asia/Magadan"),
    ("Norfolk Standard Time", 660, true, "Pacific/Norfolk"),
    ("Sakhalin Standard Time", 660, false, "Asia/Sakhalin"),
    (
        "Central Pacific Standard Time",
        660,
        false,
        "Pacific/Guadalcanal",
    ),
    ("Russia Time Zone 11", 720, false, "Asia/Kamchatka"),
    ("New Zealand Standard Time", 720, true, "Pacific/Auckland"),
    ("UTC+12", 720, false, "Etc/GMT-12"),
    ("Fiji Standard Time", 720, false, "Pacific/Fiji"),
    ("Kamchatka Standard Time", 720, true, "Asia/Kamchatka"),
    (
        "Chatham Islands Standard Time",
        765,
        true,
        "Pacific/Chatham",
    ),
    ("UTC+13", 780, false, "Etc/GMT-13"),
    ("Tonga Standard Time", 780, false, "Pacific/Tongatapu"),
    ("Samoa Standard Time", 780, false, "Pacific/Apia"),
    (
        "Line Islands Standard Time",
        840,
        false,
        "Pacific/Kiritimati",
    ),
    ("Qyzylorda Standard Time", 300, false, "Asia/Qyzylorda"),
    ("South Sudan Standard Time", 120, false, "Africa/Juba"),
    ("Yukon Standard Time", -420, false, "America/Whitehorse"),
];

/// Standard UTC offset in minutes of a Windows time zone name (exact match; autoscale is exact).
pub fn offset_minutes(name: &str) -> Option<i32> {
    ZONES.iter().find(|(n, ..)| *n == name).map(|(_, o, ..)| *o)
}

/// Legacy Windows zones autoscale still documents, with the id to use instead.
pub const LEGACY: &[(&str, &str)] = &[
    ("Mid-Atlantic Standard Time", "UTC-02"),
    ("Kamchatka Standard Time", "Russia Time Zone 11"),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    ZONES.iter().map(|(n, ..)| *n)
}

/// Parse `HH:MM` into minutes after midnight.
pub fn parse_hhmm(s: &str) -> Option<u32> {
    let (h, m) = s.split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60 && s.len() == 5).then_some(h * 60 + m)
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
        assert!(ZONES.iter().all(|(_, o, ..)| (-720..=840).contains(o)));
        assert_eq!(offset_minutes("China Standard Time"), Some(480));
        assert_eq!(offset_minutes("china standard time"), None);
    }

    #[test]
    fn hhmm() {
        assert_eq!(parse_hhmm("18:00"), Some(1080));
        assert_eq!(parse_hhmm("23:59"), Some(1439));
        assert_eq!(parse_hhmm("24:00"), None);
        assert_eq!(parse_hhmm("7:00"), None);
    }
}

//! The one duration grammar of gpuform (issue 37, item 9): spec fields and command-line flags
//! alike take ISO 8601 (`PT5M`, `PT1H30M`, `P1D`, any case) or a short form (`20s`, `5m`, `1h`,
//! `2d`, `2h30m`). Spec values are normalised to ISO 8601 when the spec is read, so the plan and
//! every template still carry what Azure takes (`PT5M`).

use serde::{Deserialize, Deserializer};

/// What the help of a bad duration says.
pub const FORMS: &str =
    "ISO 8601 (PT2M, PT45S, PT1H, P1D) or a short form (20s, 5m, 1h, 2d, 2h30m)";

/// The JSON Schema pattern of a duration (both forms); `schemas/gpuworkload.schema.json` holds
/// the same text (a test compares them).
pub const PATTERN: &str =
    r"^(?:[Pp](?:\d+[Dd])?(?:[Tt](?:\d+[Hh])?(?:\d+[Mm])?(?:\d+[Ss])?)?|(?:\d+[dhms])+)$";

/// The pattern of `$defs/servingDuration` (latencies and timeouts of `spec.serving`, which take
/// fractions and milliseconds too): the same parser reads it.
pub const SERVING_PATTERN: &str = r"^(?:P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d{1,3})?S)?)?|(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+)$";

/// Is `pattern` one of the schema's duration patterns?
pub fn is_duration_pattern(pattern: &str) -> bool {
    pattern == PATTERN || pattern == SERVING_PATTERN
}

/// Whole seconds of `s`, or `None` when it is neither form, a fraction of a second, or a bare
/// number (which is not a duration).
pub fn seconds(s: &str) -> Option<u64> {
    // whole units counted in seconds first, so a huge value is itself (for the caller to refuse
    // with its own limit) rather than an overflow of milliseconds
    whole_seconds(s).or_else(|| {
        let ms = millis(s)?;
        (ms % 1000 == 0).then_some(ms / 1000)
    })
}

/// `s` in whole units (ISO 8601 without a fraction, or `20s`, `5m`, `1h`, `2d` combined).
fn whole_seconds(s: &str) -> Option<u64> {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix(['P', 'p']) {
        return iso(rest);
    }
    let mut secs = 0u64;
    let mut num = String::new();
    let mut any = false;
    let mut chars = t.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_digit() {
            num.push(ch);
            continue;
        }
        let mult = match ch.to_ascii_lowercase() {
            'd' => 86_400,
            'h' => 3600,
            'm' if chars.peek().is_some_and(|c| c.eq_ignore_ascii_case(&'s')) => return None,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        let n: u64 = num.parse().ok()?;
        secs = secs.checked_add(n.checked_mul(mult)?)?;
        num.clear();
        any = true;
    }
    (any && num.is_empty()).then_some(secs)
}

/// Milliseconds of `s`: ISO 8601 (`PT2M`, `PT0.5S`, any case) or a short form (`800ms`, `2s`,
/// `1.5s`, `10m`, `1h`, `2h30m`, `1d`). `None` for anything else, an empty text, or an overflow.
pub fn millis(s: &str) -> Option<u64> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    if let Some(rest) = upper.strip_prefix('P') {
        // ISO 8601, the seconds possibly fractional (`PT0.5S`)
        let (whole, frac) = match rest.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (rest, None),
        };
        return match frac {
            None => iso(rest).and_then(|secs| secs.checked_mul(1000)),
            Some(f) => {
                let digits = f.strip_suffix('S')?;
                if digits.is_empty()
                    || digits.len() > 3
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let ms: u64 = format!("{digits:0<3}").parse().ok()?;
                let secs = iso(&format!("{whole}S"))?;
                secs.checked_mul(1000)?.checked_add(ms)
            }
        };
    }
    let mut total = 0u64;
    let mut num = String::new();
    let mut any = false;
    let mut chars = t.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_digit() || ch == '.' {
            num.push(ch);
            continue;
        }
        let unit_ms: f64 = match ch.to_ascii_lowercase() {
            'd' => 86_400_000.0,
            'h' => 3_600_000.0,
            'm' if chars.peek().is_some_and(|c| c.eq_ignore_ascii_case(&'s')) => {
                chars.next();
                1.0
            }
            'm' => 60_000.0,
            's' => 1000.0,
            _ => return None,
        };
        if num.is_empty() || num.matches('.').count() > 1 {
            return None;
        }
        let n: f64 = num.parse().ok()?;
        let ms = (n * unit_ms).round();
        if !ms.is_finite() || ms > u64::MAX as f64 / 2.0 {
            return None;
        }
        total = total.checked_add(ms as u64)?;
        num.clear();
        any = true;
    }
    (any && num.is_empty()).then_some(total)
}

/// The part of an ISO 8601 duration after `P`.
fn iso(rest: &str) -> Option<u64> {
    let upper = rest.to_ascii_uppercase();
    let (date, time) = match upper.split_once('T') {
        Some((d, t)) => (d.to_string(), Some(t.to_string())),
        None => (upper.clone(), None),
    };
    let mut secs = 0u64;
    let mut any = false;
    let mut take = |part: &str, units: &[(char, u64)]| -> Option<()> {
        let mut num = String::new();
        for ch in part.chars() {
            if ch.is_ascii_digit() {
                num.push(ch);
            } else {
                let (_, mult) = units.iter().find(|(u, _)| *u == ch)?;
                let n: u64 = num.parse().ok()?;
                secs = secs.checked_add(n.checked_mul(*mult)?)?;
                num.clear();
                any = true;
            }
        }
        num.is_empty().then_some(())
    };
    take(&date, &[('D', 86400)])?;
    if let Some(t) = time {
        if t.is_empty() {
            return None;
        }
        take(&t, &[('H', 3600), ('M', 60), ('S', 1)])?;
    }
    any.then_some(secs)
}

/// `secs` as ISO 8601 (`PT5M`, `PT1H30M`, `P1DT2H`, `PT0S`).
pub fn to_iso(secs: u64) -> String {
    let (d, rest) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    let mut out = String::from("P");
    if d > 0 {
        out.push_str(&format!("{d}D"));
    }
    if rest > 0 || d == 0 {
        out.push('T');
        if h > 0 {
            out.push_str(&format!("{h}H"));
        }
        if m > 0 {
            out.push_str(&format!("{m}M"));
        }
        if s > 0 || (h == 0 && m == 0) {
            out.push_str(&format!("{s}S"));
        }
    }
    out
}

/// `s` in ISO 8601 when it is a duration of either form; anything else as it is (the schema and
/// the rules report it at its line).
pub fn normalize(s: &str) -> String {
    let t = s.trim();
    if t.starts_with(['P', 'p']) {
        // already ISO: keep the author's spelling (PT90M stays PT90M), upper-cased
        return if iso(&t[1..]).is_some() {
            t.to_ascii_uppercase()
        } else {
            s.to_string()
        };
    }
    match seconds(t) {
        Some(secs) => to_iso(secs),
        None => s.to_string(),
    }
}

/// serde: a duration field, normalised to ISO 8601.
pub fn iso_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    String::deserialize(d).map(|s| normalize(&s))
}

/// serde: an optional duration field, normalised to ISO 8601.
pub fn opt_iso_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d).map(|o| o.map(|s| normalize(&s)))
}

/// A command-line duration in seconds: either form, or a bare number in the flag's own unit
/// (`unit_secs`: 1 for `--timeout 30`, 3600 for `--cache-max-age 24`), so old invocations keep
/// working.
pub fn flag_seconds(v: &str, unit_secs: f64) -> Result<f64, String> {
    let t = v.trim();
    if let Ok(n) = t.parse::<f64>() {
        if n.is_finite() && n >= 0.0 {
            return Ok(n * unit_secs);
        }
        return Err(format!("`{v}` is not a duration: give {FORMS}"));
    }
    seconds(t)
        .map(|s| s as f64)
        .ok_or_else(|| format!("`{v}` is not a duration: give {FORMS}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_mean_the_same() {
        for (a, b, secs) in [
            ("PT20S", "20s", 20),
            ("PT5M", "5m", 300),
            ("PT1H", "1h", 3600),
            ("P2D", "2d", 172_800),
            ("PT2H30M", "2h30m", 9000),
            ("pt8m", "8m", 480),
            ("P1DT1S", "1d1s", 86_401),
        ] {
            assert_eq!(seconds(a), Some(secs), "{a}");
            assert_eq!(seconds(b), Some(secs), "{b}");
        }
        for bad in [
            "", "10", "PT", "P", "PT5X", "5x", "m", "-5m", "0.5s", "PT0.5S",
        ] {
            assert_eq!(seconds(bad), None, "{bad}");
        }
        // the command line's finer forms (serving latencies)
        assert_eq!(millis("800ms"), Some(800));
        assert_eq!(millis("1.5s"), Some(1500));
        assert_eq!(millis("PT0.5S"), Some(500));
        assert_eq!(seconds("1.5h"), Some(5400));
    }

    #[test]
    fn normalized_values_are_what_azure_takes() {
        assert_eq!(normalize("5m"), "PT5M");
        assert_eq!(normalize("20s"), "PT20S");
        assert_eq!(normalize("90m"), "PT1H30M");
        assert_eq!(normalize("2d"), "P2D");
        assert_eq!(normalize("1d2h"), "P1DT2H");
        assert_eq!(normalize("PT90M"), "PT90M");
        assert_eq!(normalize("pt5m"), "PT5M");
        assert_eq!(normalize("5x"), "5x");
        assert_eq!(to_iso(0), "PT0S");
        for secs in [1, 59, 60, 61, 3599, 3600, 86_399, 86_400, 90_061] {
            assert_eq!(seconds(&to_iso(secs)), Some(secs), "{secs}");
        }
    }

    #[test]
    fn the_pattern_accepts_exactly_what_the_parser_reads() {
        let re = regex::Regex::new(PATTERN).unwrap();
        for ok in [
            "PT5M", "P1D", "pt5m", "20s", "5m", "1h", "2d", "2h30m", "P1DT2H",
        ] {
            assert!(re.is_match(ok), "{ok}");
            assert!(seconds(ok).is_some(), "{ok}");
        }
        for bad in ["5x", "10", "five minutes", "5 m"] {
            assert!(!re.is_match(bad), "{bad}");
            assert!(seconds(bad).is_none(), "{bad}");
        }
        // whole units only in the spec (Azure's fields take no fractions); flags take them
        assert!(!re.is_match("1.5h") && !re.is_match("800ms"));
    }

    #[test]
    fn the_schema_uses_this_pattern_for_every_duration() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schemas/gpuworkload.schema.json")).unwrap();
        assert_eq!(schema["$defs"]["duration"]["pattern"], PATTERN);
        assert_eq!(
            schema["$defs"]["workload"]["properties"]["jobDuration"]["pattern"],
            PATTERN
        );
        assert_eq!(
            schema["$defs"]["servingDuration"]["pattern"],
            SERVING_PATTERN
        );
        // and the parser reads everything the serving pattern admits
        let re = regex::Regex::new(SERVING_PATTERN).unwrap();
        for ok in ["2s", "800ms", "1.5s", "8m", "PT30M", "PT0.5S", "1h30m"] {
            assert!(re.is_match(ok) && millis(ok).is_some(), "{ok}");
        }
    }

    #[test]
    fn flags_take_durations_and_their_old_bare_numbers() {
        assert_eq!(flag_seconds("30", 1.0), Ok(30.0));
        assert_eq!(flag_seconds("0.5", 1.0), Ok(0.5));
        assert_eq!(flag_seconds("24", 3600.0), Ok(86_400.0));
        assert_eq!(flag_seconds("2m", 1.0), Ok(120.0));
        assert_eq!(flag_seconds("PT1M", 3600.0), Ok(60.0));
        assert!(flag_seconds("soon", 1.0).unwrap_err().contains("20s, 5m"));
        assert!(flag_seconds("-1", 1.0).is_err());
    }
}

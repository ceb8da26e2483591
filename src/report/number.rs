//! Numbers as people read them, one format across every output: counts with thousands
//! separators (`10,000`, `6.08`), money in cents (`$1,234.56`), hourly prices to a tenth of a
//! cent (`$0.658/h`), percentages (`21%`, `2.5%`). The price table and the estimates are in US
//! dollars.

/// `1,234`: the integer part of `x` grouped by thousands.
fn grouped(whole: u64) -> String {
    let digits = whole.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `$1,234.56`, `-$12.00`.
pub fn money(x: f64) -> String {
    let neg = x < -0.0049;
    let cents = (x.abs() * 100.0).round() as u64;
    format!(
        "{}${}.{:02}",
        if neg { "-" } else { "" },
        grouped(cents / 100),
        cents % 100
    )
}

/// An hourly price to a tenth of a cent (`$0.658/h`, `$127.816/h`), below 10 cents to a
/// hundredth (`$0.0827/h`, Spot prices).
pub fn per_hour(x: f64) -> String {
    per_hour_with("$", x)
}

/// [`per_hour`] after another currency's prefix (`EUR 0.658/h`):
/// [`crate::catalog::currency::Currency::per_hour`].
pub fn per_hour_with(prefix: &str, x: f64) -> String {
    let (scale, width) = if x.abs() < 0.1 {
        (10_000.0, 4)
    } else {
        (1000.0, 3)
    };
    let units = (x.abs() * scale).round() as u64;
    let one = scale as u64;
    format!(
        "{}{prefix}{}.{:0width$}/h",
        if x < 0.0 && units > 0 { "-" } else { "" },
        grouped(units / one),
        units % one
    )
}

/// A count: whole numbers grouped (`10,000`), others with two decimals below 10 (`6.08`) and
/// one above (`12.5`).
pub fn count(x: f64) -> String {
    let neg = x < 0.0 && x.abs() >= 0.005;
    let a = x.abs();
    let s = if (a - a.round()).abs() < 0.005 {
        grouped(a.round() as u64)
    } else if a < 10.0 {
        format!("{a:.2}")
    } else {
        let tenths = (a * 10.0).round() as u64;
        format!("{}.{}", grouped(tenths / 10), tenths % 10)
    };
    if neg { format!("-{s}") } else { s }
}

/// A size's figure as the catalog gives it: whole without decimals (`16`, `1900`), else one
/// (`0.5`, `7.5`).
pub fn short(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.1}")
    }
}

/// A percentage: whole from 10 up (`21%`), one decimal below (`2.5%`, `0.4%`).
pub fn percent(x: f64) -> String {
    if x.abs() >= 9.95 {
        format!("{x:.0}%")
    } else {
        format!("{x:.1}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_format_for_each_kind_of_number() {
        assert_eq!(money(0.0), "$0.00");
        assert_eq!(money(1234.567), "$1,234.57");
        assert_eq!(money(-12.0), "-$12.00");
        assert_eq!(per_hour(0.658), "$0.658/h");
        assert_eq!(per_hour(1234.5), "$1,234.500/h");
        assert_eq!(per_hour(0.0827), "$0.0827/h");
        assert_eq!(count(10_000.0), "10,000");
        assert_eq!(count(6.08), "6.08");
        assert_eq!(count(1234.56), "1,234.6");
        assert_eq!(count(-3.0), "-3");
        assert_eq!(percent(21.4), "21%");
        assert_eq!(percent(2.46), "2.5%");
    }
}

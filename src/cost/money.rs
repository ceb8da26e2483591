//! Amounts and counts as people read them (`$1,234.56`, `10,000`): the lowest file of `cost`,
//! shared by the formats, the gates and the levers. Amounts in any currency:
//! [`crate::catalog::currency`] ([`Money`], [`Currency`]).

pub use crate::catalog::currency::{Currency, Money};

/// `$1,234.56`, `-$12.00`: a USD amount ([`Currency::amount`] prints any currency).
pub fn money(x: f64) -> String {
    Currency::USD.amount(x)
}

pub(super) fn qty(x: f64) -> String {
    if (x - x.round()).abs() < 0.005 {
        let s = money(x.round());
        s.trim_start_matches('$')
            .trim_end_matches(".00")
            .to_string()
    } else if x.abs() < 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}

/// A count with thousands separators (`10,000`, `1,000,000`, `6.08`).
pub fn count(x: f64) -> String {
    qty(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_groups_thousands_and_rounds_cents() {
        assert_eq!(money(0.0), "$0.00");
        assert_eq!(money(1234.567), "$1,234.57");
        assert_eq!(money(1_000_000.0), "$1,000,000.00");
        assert_eq!(money(-12.0), "-$12.00");
        assert_eq!(money(999.999), "$1,000.00");
    }
}

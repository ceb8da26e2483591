//! Currencies and amounts: the codes the Azure Retail Prices API answers in
//! ([`crate::facts::retail_prices::CURRENCIES`]), and [`Money`], the one amount type `cost`,
//! `simulate` and the budget gate compare. Two amounts in different currencies never add or
//! compare: that is a [`Mixed`] error, which the commands turn into a located one.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::facts::retail_prices::{self, BASE_CURRENCY};

/// A currency the Retail Prices API prices in (and Azure bills in).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency(&'static str);

impl Currency {
    pub const USD: Currency = Currency(BASE_CURRENCY);

    /// `EUR`, `eur` → EUR; `None` for a code outside the supported table.
    pub fn parse(code: &str) -> Option<Currency> {
        retail_prices::currency(&code.trim().to_ascii_uppercase()).map(|(c, _)| Currency(c))
    }

    pub fn code(self) -> &'static str {
        self.0
    }

    /// The table's name of it (`Euro`).
    pub fn name(self) -> &'static str {
        retail_prices::currency(self.0).map_or("", |(_, n)| n)
    }

    pub fn is_usd(self) -> bool {
        self == Currency::USD
    }

    /// Digits after the decimal point an amount is shown with (ISO 4217 minor units: none for
    /// the yen and the won).
    pub fn decimals(self) -> usize {
        match self.0 {
            "JPY" | "KRW" => 0,
            _ => 2,
        }
    }

    /// Every supported code, comma separated (for messages).
    pub fn supported() -> String {
        retail_prices::CURRENCIES
            .iter()
            .map(|(c, _)| *c)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `$1,234.56`, `-$12.00` (USD); `EUR 1,234.56`, `JPY 123,457` (others).
    pub fn amount(self, x: f64) -> String {
        self.with(x, self.decimals())
    }

    /// A whole amount (`$40`, `EUR 40`): the tuner's rounded monthly figures.
    pub fn whole(self, x: f64) -> String {
        self.with(x, 0)
    }

    fn with(self, x: f64, d: usize) -> String {
        let scale = 10f64.powi(d as i32);
        let units = (x.abs() * scale).round() as u64;
        let neg = x < 0.0 && units > 0;
        let (whole, frac) = (units / scale as u64, units % scale as u64);
        let digits = whole.to_string();
        let mut grouped = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(ch);
        }
        let number = if d == 0 {
            grouped
        } else {
            format!("{grouped}.{frac:0d$}")
        };
        match (self.is_usd(), neg) {
            (true, false) => format!("${number}"),
            (true, true) => format!("-${number}"),
            (false, false) => format!("{} {number}", self.0),
            (false, true) => format!("-{} {number}", self.0),
        }
    }

    /// A unit price: below 1 with up to 4 decimals, at least 2 (`$0.045`, `EUR 0.0827`); above
    /// as [`Currency::amount`].
    pub fn unit(self, p: f64) -> String {
        if p == 0.0 || p.abs() >= 1.0 {
            return self.amount(p);
        }
        let s = format!("{p:.4}");
        let t = s.trim_end_matches('0');
        let decimals = t.split('.').nth(1).map_or(0, str::len);
        let n = if decimals < 2 {
            format!("{p:.2}")
        } else {
            t.to_string()
        };
        if self.is_usd() {
            format!("${n}")
        } else {
            format!("{} {n}", self.0)
        }
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Currency::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{s:?} is not a currency the Azure Retail Prices API prices in ({})",
                Currency::supported()
            ))
        })
    }
}

/// Two amounts in different currencies met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{left} and {right} do not mix: gpuform never adds or compares amounts in two currencies")]
pub struct Mixed {
    pub left: Currency,
    pub right: Currency,
}

/// An amount in a currency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Money {
    pub amount: f64,
    pub currency: Currency,
}

impl Money {
    pub fn new(amount: f64, currency: Currency) -> Self {
        Money { amount, currency }
    }

    fn same(self, other: Money) -> Result<(), Mixed> {
        if self.currency == other.currency {
            Ok(())
        } else {
            Err(Mixed {
                left: self.currency,
                right: other.currency,
            })
        }
    }

    pub fn checked_add(self, other: Money) -> Result<Money, Mixed> {
        self.same(other)?;
        Ok(Money::new(self.amount + other.amount, self.currency))
    }

    /// `self > other`, in one currency.
    pub fn exceeds(self, other: Money) -> Result<bool, Mixed> {
        self.same(other)?;
        Ok(self.amount > other.amount)
    }

    /// `self / other` as a percentage, in one currency (`None` when `other` is 0).
    pub fn percent_of(self, other: Money) -> Result<Option<f64>, Mixed> {
        self.same(other)?;
        Ok((other.amount > 0.0).then(|| self.amount / other.amount * 100.0))
    }

    /// `5000`, `5000 EUR`, `EUR 5000`, `5,000.50EUR`: an amount, with its currency when written
    /// (`None` when not).
    pub fn parse(text: &str) -> Result<(f64, Option<Currency>), String> {
        let t = text.trim();
        let letters: String = t.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        let number: String = t
            .chars()
            .filter(|c| !c.is_ascii_alphabetic() && !c.is_whitespace() && *c != ',')
            .collect();
        let currency = if letters.is_empty() {
            None
        } else {
            let at_end = t.ends_with(|c: char| c.is_ascii_alphabetic());
            let at_start = t.starts_with(|c: char| c.is_ascii_alphabetic());
            if !(at_end || at_start) || letters.len() != 3 {
                return Err(format!(
                    "`{text}` is not an amount: write a number, optionally with a currency code (5000, 5000 EUR)"
                ));
            }
            Some(Currency::parse(&letters).ok_or_else(|| {
                format!(
                    "`{letters}` is not a currency the Azure Retail Prices API prices in ({})",
                    Currency::supported()
                )
            })?)
        };
        let amount: f64 = number.parse().map_err(|_| {
            format!(
                "`{text}` is not an amount: write a number, optionally with a currency code (5000, 5000 EUR)"
            )
        })?;
        if !amount.is_finite() || amount < 0.0 {
            return Err(format!(
                "`{text}`: the amount must be a non-negative number"
            ));
        }
        Ok((amount, currency))
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.currency.amount(self.amount))
    }
}

/// A USD → currency rate with where it came from and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rate {
    /// Units of `to` per US dollar.
    pub per_usd: f64,
    pub to: Currency,
    /// Where the rate comes from, in words.
    pub source: String,
    /// `YYYY-MM-DD` (or RFC 3339) the rate was taken.
    pub as_of: String,
}

impl Rate {
    /// `0.9213 EUR per USD (SOURCE, DATE)`: what a converted line says.
    pub fn describe(&self) -> String {
        format!(
            "converted from USD at {:.4} {} per USD ({}, {})",
            self.per_usd,
            self.to,
            self.source,
            self.as_of.get(..10).unwrap_or(&self.as_of)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_print_in_their_currency() {
        let eur = Currency::parse("eur").unwrap();
        assert_eq!(Currency::USD.amount(1234.567), "$1,234.57");
        assert_eq!(Currency::USD.amount(-12.0), "-$12.00");
        assert_eq!(eur.amount(5000.0), "EUR 5,000.00");
        assert_eq!(
            Currency::parse("JPY").unwrap().amount(123456.7),
            "JPY 123,457"
        );
        assert_eq!(Currency::USD.unit(0.045), "$0.045");
        assert_eq!(eur.unit(0.5), "EUR 0.50");
        assert_eq!(eur.whole(39.6), "EUR 40");
        assert_eq!(Currency::USD.whole(-0.2), "$0");
        assert!(Currency::parse("XYZ").is_none());
    }

    #[test]
    fn amounts_in_two_currencies_never_mix() {
        let eur = Currency::parse("EUR").unwrap();
        let a = Money::new(10.0, eur);
        assert_eq!(a.checked_add(Money::new(1.0, eur)).unwrap().amount, 11.0);
        assert_eq!(
            a.exceeds(Money::new(1.0, Currency::USD)),
            Err(Mixed {
                left: eur,
                right: Currency::USD
            })
        );
    }

    #[test]
    fn amounts_parse_with_or_without_a_code() {
        let eur = Currency::parse("EUR").unwrap();
        assert_eq!(Money::parse("5000").unwrap(), (5000.0, None));
        assert_eq!(Money::parse("5000 EUR").unwrap(), (5000.0, Some(eur)));
        assert_eq!(Money::parse("EUR 5,000.5").unwrap(), (5000.5, Some(eur)));
        assert_eq!(Money::parse("5000eur").unwrap(), (5000.0, Some(eur)));
        assert!(
            Money::parse("5000 XYZ")
                .unwrap_err()
                .contains("not a currency")
        );
        assert!(Money::parse("-1").is_err());
        assert!(Money::parse("12e").is_err());
    }
}

//! Money as integer minor units plus an ISO 4217 currency. No floating point anywhere near money.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An ISO 4217 currency code, three uppercase ASCII letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Currency([u8; 3]);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("currency must be a three-letter ISO 4217 code such as \"TWD\", got {0:?}")]
    BadCurrency(String),
    #[error("amounts in different currencies ({0} and {1}) cannot be added")]
    CurrencyMismatch(Currency, Currency),
    #[error("amount is too large")]
    Overflow,
    #[error("{0:?} is not an amount in {1}; write it like {2}")]
    BadAmount(String, Currency, String),
}

impl Currency {
    pub fn parse(code: &str) -> Result<Self, MoneyError> {
        let bytes = code.as_bytes();
        if bytes.len() != 3 || !bytes.iter().all(u8::is_ascii_uppercase) {
            return Err(MoneyError::BadCurrency(code.to_owned()));
        }
        Ok(Self([bytes[0], bytes[1], bytes[2]]))
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("currency codes are ASCII")
    }

    /// How many decimal places the minor unit has, as payment providers count it (Stripe sends
    /// TWD in cents, JPY and KRW in whole units).
    pub fn minor_unit_digits(&self) -> u32 {
        match self.as_str() {
            "BIF" | "CLP" | "DJF" | "GNF" | "JPY" | "KMF" | "KRW" | "MGA" | "PYG" | "RWF" | "UGX" | "VND"
            | "VUV" | "XAF" | "XOF" | "XPF" => 0,
            "BHD" | "JOD" | "KWD" | "OMR" | "TND" => 3,
            _ => 2,
        }
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for Currency {
    type Error = MoneyError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Currency> for String {
    fn from(value: Currency) -> String {
        value.as_str().to_owned()
    }
}

/// An amount in minor units (cents, fen) of one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Money {
    /// Whole minor units: 38000 is TWD 380.00.
    pub minor: i64,
    /// ISO 4217, e.g. `TWD`.
    #[cfg_attr(feature = "ssr", schema(value_type = String, pattern = "^[A-Z]{3}$"))]
    pub currency: Currency,
}

impl Money {
    pub fn new(minor: i64, currency: Currency) -> Self {
        Self { minor, currency }
    }

    /// Reads an amount written in major units, such as `1000`, `1,000.50` or `380.5` for TWD, with
    /// no more decimals than the currency has and no sign.
    pub fn parse_major(text: &str, currency: Currency) -> Result<Money, MoneyError> {
        let digits = currency.minor_unit_digits() as usize;
        let example = Money::new(100_000 * 10i64.pow(digits as u32) / 100, currency).to_string();
        let bad = || MoneyError::BadAmount(text.to_owned(), currency, example[4..].to_owned());
        let (grouped, fraction) = text.trim().split_once('.').unwrap_or((text.trim(), ""));
        let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        let mut groups = grouped.split(',');
        let first = groups.next().unwrap_or_default();
        let rest: Vec<&str> = groups.collect();
        // A comma separates thousands only: "1,000.00" is a thousand, "500,00" is not an amount.
        let thousands = rest.iter().all(|group| group.len() == 3 && all_digits(group))
            && (rest.is_empty() || first.len() <= 3);
        if !all_digits(first)
            || !thousands
            || !(fraction.is_empty() || all_digits(fraction))
            || fraction.len() > digits
        {
            return Err(bad());
        }
        let whole: String = grouped.chars().filter(|c| *c != ',').collect();
        let padded = format!("{whole}{fraction:0<digits$}");
        padded.parse::<i64>().map(|minor| Money::new(minor, currency)).map_err(|_| bad())
    }

    pub fn checked_add(self, other: Money) -> Result<Money, MoneyError> {
        if self.currency != other.currency {
            return Err(MoneyError::CurrencyMismatch(self.currency, other.currency));
        }
        let minor = self.minor.checked_add(other.minor).ok_or(MoneyError::Overflow)?;
        Ok(Money::new(minor, self.currency))
    }
}

/// `TWD 380.00`, `JPY 1200`: the major unit, a decimal point where the currency has one.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.currency.minor_unit_digits();
        let sign = if self.minor < 0 { "-" } else { "" };
        let abs = self.minor.unsigned_abs();
        if digits == 0 {
            return write!(f, "{} {sign}{abs}", self.currency);
        }
        let scale = 10u64.pow(digits);
        write!(f, "{} {sign}{}.{:0width$}", self.currency, abs / scale, abs % scale, width = digits as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twd() -> Currency {
        Currency::parse("TWD").unwrap()
    }

    #[test]
    fn money_displays_in_major_units_without_floats() {
        assert_eq!(Money::new(38000, twd()).to_string(), "TWD 380.00");
        assert_eq!(Money::new(-5, twd()).to_string(), "TWD -0.05");
        assert_eq!(Money::new(1200, Currency::parse("JPY").unwrap()).to_string(), "JPY 1200");
        assert_eq!(Money::new(1500, Currency::parse("KWD").unwrap()).to_string(), "KWD 1.500");
    }

    #[test]
    fn amounts_are_read_in_major_units_exactly() {
        assert_eq!(Money::parse_major("1,000", twd()).unwrap().minor, 100_000);
        assert_eq!(Money::parse_major(" 380.5 ", twd()).unwrap().minor, 38_050);
        assert_eq!(Money::parse_major("1200", Currency::parse("JPY").unwrap()).unwrap().minor, 1200);
        assert_eq!(Money::parse_major("12,345,678.90", twd()).unwrap().minor, 1_234_567_890);
        for bad in [
            "",
            "-5",
            "1.234",
            "12a",
            ".5",
            "1e3",
            "99999999999999999999",
            "500,00",
            "1,0000",
            "1000,000",
            ",500",
        ] {
            let error = Money::parse_major(bad, twd()).unwrap_err();
            assert!(error.to_string().contains("write it like 1000.00"), "{bad}: {error}");
        }
        assert!(Money::parse_major("12.5", Currency::parse("JPY").unwrap()).is_err());
    }

    #[test]
    fn currencies_must_be_iso_codes() {
        assert!(Currency::parse("twd").is_err());
        assert!(Currency::parse("TW").is_err());
        assert!(Currency::parse("TWDX").is_err());
    }

    #[test]
    fn adding_different_currencies_is_refused() {
        let cny = Currency::parse("CNY").unwrap();
        let sum = Money::new(10000, cny).checked_add(Money::new(5000, cny)).unwrap();
        assert_eq!(sum.minor, 15000);
        assert!(Money::new(1, cny).checked_add(Money::new(1, twd())).is_err());
        assert_eq!(Money::new(i64::MAX, cny).checked_add(Money::new(1, cny)), Err(MoneyError::Overflow));
    }
}

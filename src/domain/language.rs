//! The languages the console, the tools' customer sentences and the wording speak: English,
//! Traditional Chinese as written in Taiwan and Simplified Chinese. Their words live in Project
//! Fluent files (`locales/<tag>/*.ftl`, one folder per language, editable by a translator) compiled
//! into the server, and are read through [`t!`](crate::t) with a literal key, so that a test can
//! hold every key used to every language's files. The browser gets the few it needs from the page
//! ([`page_words`]).
//!
//! Also here: choosing a language from a browser's `Accept-Language`, and amounts of money in a
//! language's way (grouping and separators from CLDR through ICU4X, a currency's usual digits).

use std::sync::LazyLock;

use icu_decimal::input::Decimal;
use icu_decimal::DecimalFormatter;
use serde::{Deserialize, Serialize};

use super::money::Money;

pub mod page_words;

#[cfg(feature = "ssr")]
fluent_templates::static_loader! {
    static WORDS = {
        locales: "./locales",
        fallback_language: "en",
        // Fluent wraps placeables in Unicode isolation marks by default; they show as stray
        // characters in attributes and plain-text exports, and the console's text runs one way.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// A language of the console.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Language {
    #[default]
    En,
    /// Traditional Chinese as written in Taiwan.
    ZhTw,
    /// Simplified Chinese as written in mainland China.
    ZhCn,
}

/// A value given to a message's placeable: text, or a number (which also picks a plural form).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Text(String),
    Number(i64),
}

impl From<&str> for Arg {
    fn from(value: &str) -> Self {
        Arg::Text(value.to_owned())
    }
}

impl From<String> for Arg {
    fn from(value: String) -> Self {
        Arg::Text(value)
    }
}

impl From<&String> for Arg {
    fn from(value: &String) -> Self {
        Arg::Text(value.clone())
    }
}

macro_rules! number_args {
    ($($number:ty),*) => {$(
        impl From<$number> for Arg {
            fn from(value: $number) -> Self {
                Arg::Number(i64::try_from(value).unwrap_or(i64::MAX))
            }
        }
    )*};
}
number_args!(i32, i64, u32, u64, usize);

/// The words of `key` in a language, with its placeables filled: `t!(language, "nav-operations")`,
/// `t!(language, "age-minutes", n = 3)`. Keys are literals so that the test of the locale files
/// finds every key the code asks for and the names it passes.
#[macro_export]
macro_rules! t {
    ($language:expr, $key:literal $(,)?) => {
        $crate::domain::language::Language::text($language, $key, &[])
    };
    ($language:expr, $key:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::domain::language::Language::text(
            $language,
            $key,
            &[$((stringify!($name), $crate::domain::language::Arg::from($value))),+],
        )
    };
}

impl Language {
    pub const ALL: [Language; 3] = [Language::En, Language::ZhTw, Language::ZhCn];

    /// The BCP 47 tag: `en`, `zh-TW`, `zh-CN`; also the folder of its locale files.
    pub fn tag(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::ZhTw => "zh-TW",
            Language::ZhCn => "zh-CN",
        }
    }

    /// The language's name in itself, as a menu of languages shows it.
    pub fn own_name(self) -> &'static str {
        match self {
            Language::En => "English",
            Language::ZhTw => "繁體中文",
            Language::ZhCn => "简体中文",
        }
    }

    /// The language a tag names, case-insensitively: `en`, `en-GB`; `zh-TW`, `zh-Hant`, `zh-HK`,
    /// `zh-Hant-TW`; `zh`, `zh-CN`, `zh-Hans`, `zh-SG`. `None` for any other language.
    pub fn parse(tag: &str) -> Option<Language> {
        let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
        let mut parts = tag.split('-');
        match parts.next()? {
            "en" => Some(Language::En),
            "zh" => {
                let rest: Vec<&str> = parts.collect();
                let traditional = rest.iter().any(|part| matches!(*part, "hant" | "tw" | "hk" | "mo"));
                Some(if traditional { Language::ZhTw } else { Language::ZhCn })
            }
            _ => None,
        }
    }

    /// The language a browser prefers among these, from its `Accept-Language` header: the highest
    /// `q` wins, the earlier of equals; `None` when it names none of them.
    pub fn from_accept_language(header: &str) -> Option<Language> {
        let mut best: Option<(u16, Language)> = None;
        for entry in header.split(',') {
            let mut fields = entry.split(';');
            let Some(language) = fields.next().and_then(Language::parse) else { continue };
            let quality = fields
                .filter_map(|field| field.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let quality = (quality.clamp(0.0, 1.0) * 1000.0).round() as u16;
            if quality > 0 && best.is_none_or(|(held, _)| quality > held) {
                best = Some((quality, language));
            }
        }
        best.map(|(_, language)| language)
    }

    #[cfg(feature = "ssr")]
    fn identifier(self) -> &'static fluent_templates::LanguageIdentifier {
        static IDENTIFIERS: LazyLock<[fluent_templates::LanguageIdentifier; 3]> = LazyLock::new(|| {
            Language::ALL.map(|language| language.tag().parse().expect("the tags are well formed"))
        });
        &IDENTIFIERS[self as usize]
    }

    /// The words of `key` with `args` filled; use [`t!`](crate::t), which keeps keys literal.
    #[cfg(feature = "ssr")]
    pub fn text(self, key: &str, args: &[(&'static str, Arg)]) -> String {
        use fluent_templates::fluent_bundle::FluentValue;
        use fluent_templates::Loader;
        use std::borrow::Cow;
        use std::collections::HashMap;

        if args.is_empty() {
            return WORDS.lookup(self.identifier(), key);
        }
        let args: HashMap<Cow<'static, str>, FluentValue> = args
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    Arg::Text(text) => FluentValue::from(text.clone()),
                    Arg::Number(number) => FluentValue::from(*number),
                };
                (Cow::Borrowed(*name), value)
            })
            .collect();
        WORDS.lookup_with_args(self.identifier(), key, &args)
    }

    /// The words of `key` with `args` filled, from the words the page gave the browser (always in
    /// the page's language, which is the only one the browser renders).
    #[cfg(not(feature = "ssr"))]
    pub fn text(self, key: &str, args: &[(&'static str, Arg)]) -> String {
        page_words::text(key, args)
    }

    /// An amount as people reading this language write it: grouped, with the currency's usual
    /// digits (none for JPY; TWD's cents only when there are any, as prices in Taiwan are whole
    /// dollars), and the currency as this language's words for it name it (`NT$1,580`,
    /// `EUR 12.50`, `¥1,200` in Simplified Chinese for CNY).
    pub fn money(self, money: Money) -> String {
        let digits = money.currency.minor_unit_digits();
        let whole_only = digits > 0
            && money.minor % 10i64.pow(digits) == 0
            && WHOLE_WHEN_EVEN.contains(&money.currency.as_str());
        let mut number = Decimal::from(money.minor.unsigned_abs());
        number.multiply_pow10(-(digits as i16));
        if whole_only {
            number.trunc(0);
        }
        let formatted = self.decimal_formatter().format(&number).to_string();
        let sign = if money.minor < 0 { "-" } else { "" };
        match self.currency_symbol(money.currency.as_str()) {
            Some(symbol) => format!("{sign}{symbol}{formatted}"),
            None => format!("{sign}{} {formatted}", money.currency),
        }
    }

    /// A whole number grouped the way this language does: `12,345`.
    pub fn count(self, count: u64) -> String {
        self.decimal_formatter().format(&Decimal::from(count)).to_string()
    }

    fn decimal_formatter(self) -> &'static DecimalFormatter {
        static FORMATTERS: LazyLock<[DecimalFormatter; 3]> = LazyLock::new(|| {
            Language::ALL.map(|language| {
                let locale: icu_locale_core::Locale =
                    language.tag().parse().expect("the tags are well formed");
                DecimalFormatter::try_new(locale.into(), Default::default())
                    .expect("the compiled CLDR data has every language here")
            })
        });
        &FORMATTERS[self as usize]
    }

    /// The symbol readers of this language know a currency by, where it is unambiguous to them;
    /// others are shown by their ISO code.
    fn currency_symbol(self, currency: &str) -> Option<&'static str> {
        match (self, currency) {
            (_, "TWD") => Some("NT$"),
            (Language::ZhCn, "CNY") => Some("¥"),
            (Language::ZhTw, "CNY") => Some("人民幣 "),
            (Language::En, "USD") => Some("US$"),
            (_, "EUR") => Some("€"),
            _ => None,
        }
    }
}

/// Currencies whose amounts are written without cents when there are none: cash in them has no
/// coins below the unit in use (CLDR's cash digits for TWD are 0).
const WHOLE_WHEN_EVEN: [&str; 1] = ["TWD"];

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.tag())
    }
}

impl TryFrom<String> for Language {
    type Error = String;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Language::parse(&value)
            .ok_or_else(|| format!("{value:?} is not a language of the console (en, zh-TW, zh-CN)"))
    }
}

impl From<Language> for String {
    fn from(value: Language) -> String {
        value.tag().to_owned()
    }
}

#[cfg(test)]
mod files;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Currency;

    fn amount(minor: i64, currency: &str) -> Money {
        Money::new(minor, Currency::parse(currency).unwrap())
    }

    #[test]
    fn new_taiwan_dollars_are_whole_unless_there_are_cents() {
        assert_eq!(Language::ZhTw.money(amount(158_000, "TWD")), "NT$1,580");
        assert_eq!(Language::En.money(amount(158_000, "TWD")), "NT$1,580");
        assert_eq!(Language::ZhCn.money(amount(38_000, "TWD")), "NT$380");
        assert_eq!(Language::ZhTw.money(amount(38_050, "TWD")), "NT$380.50");
        assert_eq!(Language::En.money(amount(123_456_700, "TWD")), "NT$1,234,567");
    }

    #[test]
    fn other_currencies_keep_their_digits_and_group_by_language() {
        assert_eq!(Language::En.money(amount(1_250, "EUR")), "€12.50");
        assert_eq!(Language::ZhTw.money(amount(123_400, "EUR")), "€1,234.00");
        assert_eq!(Language::En.money(amount(120_000, "JPY")), "JPY 120,000");
        assert_eq!(Language::ZhCn.money(amount(158_000, "CNY")), "¥1,580.00");
        assert_eq!(Language::ZhTw.money(amount(158_000, "CNY")), "人民幣 1,580.00");
        assert_eq!(Language::En.money(amount(158_000, "CNY")), "CNY 1,580.00");
        assert_eq!(Language::En.money(amount(-2_500, "USD")), "-US$25.00");
        assert_eq!(Language::En.money(amount(1_234_567, "KWD")), "KWD 1,234.567");
    }

    #[test]
    fn a_browser_picks_its_best_language_here() {
        assert_eq!(Language::from_accept_language("zh-TW,zh;q=0.9,en-US;q=0.8"), Some(Language::ZhTw));
        assert_eq!(Language::from_accept_language("zh-Hant-HK"), Some(Language::ZhTw));
        assert_eq!(Language::from_accept_language("fr-FR, zh;q=0.5, en;q=0.7"), Some(Language::En));
        assert_eq!(Language::from_accept_language("zh-Hans-CN;q=0.9, de"), Some(Language::ZhCn));
        assert_eq!(Language::from_accept_language("fr, de;q=0.5"), None);
        assert_eq!(Language::from_accept_language("en;q=0, zh-CN;q=0.1"), Some(Language::ZhCn));
        assert_eq!(Language::from_accept_language(""), None);
    }

    #[test]
    fn languages_read_back_from_their_tags() {
        for language in Language::ALL {
            assert_eq!(Language::parse(language.tag()), Some(language));
            let json = serde_json::to_string(&language).unwrap();
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), language);
        }
        assert!(serde_json::from_str::<Language>("\"fr\"").is_err());
    }
}

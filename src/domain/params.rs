//! Canonical operation parameters, their fingerprint, and a field-by-field diff.
//!
//! # The canonical form
//!
//! Parameters are one JSON object, written as:
//! - object keys sorted by Unicode code point (byte order of their UTF-8), each key once;
//! - no whitespace between tokens;
//! - strings escaped as JSON requires (`"`, `\` and control characters), everything else literal;
//! - numbers only as integers in the signed 64-bit range, written in decimal without sign `+`,
//!   leading zeros, fraction or exponent: a float anywhere is refused;
//! - money, under a key named `amount` or ending in `_amount`, always as an object with exactly
//!   `{"currency": "<ISO 4217>", "minor": <integer minor units>}` so the unit is never implied.
//!
//! The fingerprint is `sha256:` followed by the lowercase hex SHA-256 of the canonical text's
//! UTF-8 bytes. Two requests with the same fingerprint ask for the same thing, whatever the order of
//! their keys or their whitespace.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

use super::money::{Currency, Money};

const MAX_DEPTH: usize = 16;

/// Why a parameter set has no canonical form, naming the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("params.{field}: {problem}")]
pub struct InvalidParams {
    pub field: String,
    pub problem: String,
}

/// Parameters that passed the canonical rules, with their canonical text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalParams {
    value: Value,
    text: String,
}

/// `sha256:<hex>` of the canonical text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint(String);

/// One field that differs between the stored and the requested parameters. A field missing on one
/// side is `None` there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FieldDiff {
    pub field: String,
    pub stored: Option<Value>,
    pub requested: Option<Value>,
}

impl CanonicalParams {
    /// Checks `value` against the canonical rules.
    pub fn from_value(value: Value) -> Result<Self, InvalidParams> {
        let Value::Object(map) = &value else {
            return Err(InvalidParams {
                field: String::new(),
                problem: "parameters must be a JSON object".into(),
            });
        };
        check_object(map, "", 0)?;
        let text = canonical_json(&value);
        Ok(Self { value, text })
    }

    /// Parses JSON text and checks it.
    pub fn from_json(text: &str) -> Result<Self, InvalidParams> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| InvalidParams { field: String::new(), problem: format!("not valid JSON: {e}") })?;
        Self::from_value(value)
    }

    pub fn as_value(&self) -> &Value {
        &self.value
    }

    pub fn canonical_text(&self) -> &str {
        &self.text
    }

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(format!("sha256:{}", hex::encode(Sha256::digest(self.text.as_bytes()))))
    }

    /// The money under `field` (a top-level key), if any.
    pub fn money(&self, field: &str) -> Option<Money> {
        let object = self.value.get(field)?.as_object()?;
        let minor = object.get("minor")?.as_i64()?;
        let currency = Currency::parse(object.get("currency")?.as_str()?).ok()?;
        Some(Money::new(minor, currency))
    }

    /// Field-by-field differences, `stored` being `self`. Money objects compare as one field.
    pub fn diff(&self, requested: &CanonicalParams) -> Vec<FieldDiff> {
        let mut stored_fields = BTreeMap::new();
        let mut requested_fields = BTreeMap::new();
        flatten(&self.value, String::new(), &mut stored_fields);
        flatten(&requested.value, String::new(), &mut requested_fields);
        let mut names: Vec<&String> = stored_fields.keys().chain(requested_fields.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter_map(|name| {
                let stored = stored_fields.get(name);
                let requested = requested_fields.get(name);
                (stored != requested).then(|| FieldDiff {
                    field: name.clone(),
                    stored: stored.cloned(),
                    requested: requested.cloned(),
                })
            })
            .collect()
    }
}

impl Fingerprint {
    /// Accepts a stored fingerprint as written by [`CanonicalParams::fingerprint`].
    pub fn from_stored(text: String) -> Self {
        Self(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_money_key(key: &str) -> bool {
    key == "amount" || key.ends_with("_amount")
}

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

fn invalid(field: &str, problem: impl Into<String>) -> InvalidParams {
    InvalidParams { field: field.to_owned(), problem: problem.into() }
}

fn check_object(map: &Map<String, Value>, path: &str, depth: usize) -> Result<(), InvalidParams> {
    if depth > MAX_DEPTH {
        return Err(invalid(path, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    for (key, value) in map {
        let field = child_path(path, key);
        if is_money_key(key) {
            check_money(value, &field)?;
        } else {
            check_value(value, &field, depth + 1)?;
        }
    }
    Ok(())
}

fn check_value(value: &Value, path: &str, depth: usize) -> Result<(), InvalidParams> {
    match value {
        Value::Null | Value::Bool(_) | Value::String(_) => Ok(()),
        Value::Number(number) => {
            if number.is_i64() {
                Ok(())
            } else {
                Err(invalid(
                    path,
                    "numbers must be integers in the 64-bit range (send amounts in minor units)",
                ))
            }
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(index, item)| check_value(item, &format!("{path}[{index}]"), depth + 1)),
        Value::Object(map) => check_object(map, path, depth),
    }
}

fn check_money(value: &Value, path: &str) -> Result<(), InvalidParams> {
    let shape = "money must be {\"minor\": <integer minor units>, \"currency\": \"<ISO 4217 code>\"}";
    let Value::Object(map) = value else {
        return Err(invalid(path, shape));
    };
    if map.len() != 2 {
        return Err(invalid(path, shape));
    }
    match map.get("minor") {
        Some(Value::Number(n)) if n.is_i64() => {}
        _ => return Err(invalid(&format!("{path}.minor"), "must be an integer number of minor units")),
    }
    match map.get("currency") {
        Some(Value::String(code)) => {
            Currency::parse(code).map(|_| ()).map_err(|e| invalid(&format!("{path}.currency"), e.to_string()))
        }
        _ => Err(invalid(&format!("{path}.currency"), "must be a three-letter ISO 4217 code")),
    }
}

/// Any JSON value in the canonical form (sorted keys, no whitespace); used for parameters and for
/// the content that audit hashes cover.
pub fn canonical_json(value: &Value) -> String {
    let mut text = String::new();
    write_canonical(value, &mut text);
    text
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn flatten(value: &Value, path: String, out: &mut BTreeMap<String, Value>) {
    match value {
        Value::Object(map) if !is_money_key(path.rsplit('.').next().unwrap_or_default()) => {
            for (key, item) in map {
                flatten(item, child_path(&path, key), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                flatten(item, format!("{path}[{index}]"), out);
            }
        }
        leaf => {
            out.insert(path, leaf.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn refund(minor: i64) -> CanonicalParams {
        CanonicalParams::from_value(json!({
            "payment_intent": "pi_1043",
            "amount": {"minor": minor, "currency": "TWD"},
            "metadata": {"order": "1043", "line_item": "li_2"}
        }))
        .unwrap()
    }

    #[test]
    fn canonical_text_sorts_keys_and_drops_whitespace() {
        let params = CanonicalParams::from_json(
            "{ \"b\": 1, \"a\": {\"z\": true, \"y\": [2, \"é\\n\"]}, \"amount\": {\"minor\": 38000, \"currency\": \"TWD\"} }",
        )
        .unwrap();
        assert_eq!(
            params.canonical_text(),
            r#"{"a":{"y":[2,"é\n"],"z":true},"amount":{"currency":"TWD","minor":38000},"b":1}"#
        );
    }

    #[test]
    fn fingerprint_is_sha256_of_the_canonical_text() {
        let params = CanonicalParams::from_json(r#"{"a":1}"#).unwrap();
        assert_eq!(
            params.fingerprint().as_str(),
            "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"
        );
    }

    #[test]
    fn floats_and_implicit_units_are_refused_with_the_field_named() {
        let float =
            CanonicalParams::from_value(json!({"amount": {"minor": 380.5, "currency": "TWD"}})).unwrap_err();
        assert_eq!(float.field, "amount.minor");
        let bare = CanonicalParams::from_value(json!({"amount": 38000})).unwrap_err();
        assert_eq!(bare.field, "amount");
        let nested_float = CanonicalParams::from_value(json!({"x": {"ratio": 0.5}})).unwrap_err();
        assert_eq!(
            nested_float.to_string(),
            "params.x.ratio: numbers must be integers in the 64-bit range (send amounts in minor units)"
        );
        let currency =
            CanonicalParams::from_value(json!({"fee_amount": {"minor": 1, "currency": "usd"}})).unwrap_err();
        assert_eq!(currency.field, "fee_amount.currency");
        assert!(CanonicalParams::from_value(json!([1, 2])).is_err());
        assert!(CanonicalParams::from_value(json!({"n": u64::MAX})).is_err());
    }

    #[test]
    fn money_is_read_back_from_the_params() {
        let money = refund(38000).money("amount").unwrap();
        assert_eq!(money.to_string(), "TWD 380.00");
    }

    #[test]
    fn diff_names_each_changed_field_with_both_sides() {
        let stored = refund(10000);
        let mut requested_value = stored.as_value().clone();
        requested_value["amount"]["minor"] = json!(20000);
        requested_value["metadata"]["note"] = json!("again");
        let requested = CanonicalParams::from_value(requested_value).unwrap();
        let diff = stored.diff(&requested);
        assert_eq!(
            diff,
            vec![
                FieldDiff {
                    field: "amount".into(),
                    stored: Some(json!({"minor": 10000, "currency": "TWD"})),
                    requested: Some(json!({"minor": 20000, "currency": "TWD"})),
                },
                FieldDiff { field: "metadata.note".into(), stored: None, requested: Some(json!("again")) },
            ]
        );
        assert!(stored.diff(&refund(10000)).is_empty());
    }

    fn arbitrary_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "[a-z\u{e9}\u{4e2d} \"\\\\]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,6}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn pad(spaces: &mut impl Iterator<Item = usize>) -> String {
        " \n\t ".chars().take(spaces.next().unwrap_or(0) % 4).collect()
    }

    /// Writes `value` with keys in reverse order and random whitespace between tokens.
    fn reshuffled_text(value: &Value, spaces: &mut impl Iterator<Item = usize>) -> String {
        match value {
            Value::Object(map) => {
                let mut parts = Vec::new();
                for (key, item) in map.iter().rev() {
                    let (before, after) = (pad(spaces), pad(spaces));
                    parts.push(format!("{before}{}{after}:{}", json!(key), reshuffled_text(item, spaces)));
                }
                format!("{{{}{}}}", parts.join(","), pad(spaces))
            }
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(|item| reshuffled_text(item, spaces)).collect();
                format!("[{}{}]", pad(spaces), parts.join(" ,"))
            }
            scalar => format!("{}{}", pad(spaces), scalar),
        }
    }

    proptest! {
        #[test]
        fn fingerprint_ignores_key_order_and_whitespace(
            fields in prop::collection::btree_map("[a-z]{1,6}", arbitrary_json(), 0..6),
            spaces in prop::collection::vec(0usize..8, 64),
        ) {
            let value = Value::Object(fields.into_iter().collect());
            let canonical = CanonicalParams::from_value(value.clone()).unwrap();
            let text = reshuffled_text(&value, &mut spaces.into_iter().cycle());
            let reparsed = CanonicalParams::from_json(&text).unwrap();
            prop_assert_eq!(canonical.fingerprint(), reparsed.fingerprint());
            prop_assert_eq!(canonical.canonical_text(), reparsed.canonical_text());
            prop_assert!(canonical.diff(&reparsed).is_empty());
        }

        #[test]
        fn a_changed_amount_changes_the_fingerprint_and_shows_in_the_diff(a in 0i64..1_000_000, b in 0i64..1_000_000) {
            prop_assume!(a != b);
            let (stored, requested) = (refund(a), refund(b));
            prop_assert_ne!(stored.fingerprint(), requested.fingerprint());
            prop_assert_eq!(stored.diff(&requested).len(), 1);
        }
    }
}

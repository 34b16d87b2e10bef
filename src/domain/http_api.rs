//! A tenant's own HTTP API, as a declarative description says it works: the operation kinds it
//! serves and, for each, the request that performs it (method, path and body built from the
//! operation's stored parameters, its op id, tenant and key, nothing else), the idempotency key
//! header it honours if any (and what a re-send under it gets after a 5xx), the lookup that finds
//! an operation again if any, where its answers hold the external id and the status, and how its
//! statuses and HTTP codes map onto the domain's outcomes and failure classes. What it honours is its capabilities: the state machine and the
//! reconciler read them as they read a payment provider's.
//!
//! The description is JSON, `"format": "opledger/http-api/1"`. Unknown fields are refused, so a
//! misspelt one is an error at save time rather than a silently missing header.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::connection::{After5xx, Capabilities};
use super::failure::{classify_http_answer, FailureClass};
use super::machine::ProviderStatus;
use super::params::CanonicalParams;

/// The one format this build reads.
pub const FORMAT: &str = "opledger/http-api/1";

/// The operation kinds a description may not serve: money moves only through the payment
/// connectors, which read the payment before they send.
const RESERVED_KINDS: [&str; 1] = ["refund"];

/// The description of an HTTP API, as stored on its connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpApi {
    pub format: String,
    /// Where error answers hold their code and message, and which codes are the API's "no".
    #[serde(default)]
    pub errors: ErrorReading,
    /// HTTP codes whose meaning differs from the usual reading (`"409": "unknown"`).
    #[serde(default)]
    pub http_codes: BTreeMap<String, CodeMeaning>,
    /// The operation kinds it serves, by name.
    pub operations: BTreeMap<String, OperationSpec>,
}

/// Where an error answer holds its code and message (JSON pointers), and the codes that mean
/// the API decided not to do it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorReading {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub business_rejections: Vec<String>,
}

/// What an HTTP code proves about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeMeaning {
    /// It was done (a 2xx, or a code the API uses for "already done").
    Done,
    /// Nothing was done and the request may be made again (busy, rate limited).
    TransientUnavailable,
    /// The parameters were refused; nothing was done.
    InvalidParams,
    /// Permission denied; nothing was done.
    Forbidden,
    /// The API decided not to do it; nothing was done.
    BusinessRejection,
    /// It may or may not have been done.
    Unknown,
}

/// One operation kind: how it is sent, found and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationSpec {
    pub request: RequestSpec,
    /// The idempotency key it honours, if any.
    #[serde(default)]
    pub key: Option<KeySpec>,
    /// Where a 2xx answer holds the object's id and status.
    #[serde(default)]
    pub answer: AnswerSpec,
    /// How the operation is found again, if it can be.
    #[serde(default)]
    pub lookup: Option<LookupSpec>,
    /// The API's statuses and what each means; an answer without a status pointer is done.
    #[serde(default)]
    pub statuses: BTreeMap<String, StatusMeaning>,
}

/// The request that performs an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestSpec {
    pub method: String,
    /// The path below the connection's base URL, with placeholders (`/tickets/{params.ticket}`),
    /// each filled in percent-encoded.
    pub path: String,
    #[serde(default)]
    pub encoding: Encoding,
    /// The body, whose strings are templates; a string that is exactly one `{params.…}`
    /// placeholder takes the parameter's JSON value as it is.
    #[serde(default)]
    pub body: Option<Value>,
}

/// How a request's body is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    #[default]
    Json,
    Form,
}

/// The idempotency key an API honours: the header it reads, how long it remembers a key, the
/// longest key it takes, and what a re-send under the key gets after the API answered a 5xx
/// (`same_key`, `retry`, or `unknown` when left out, which is taken as `same_key`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySpec {
    pub header: String,
    pub remembered_s: u32,
    #[serde(default = "default_key_len")]
    pub max_len: usize,
    #[serde(default)]
    pub after_5xx: After5xx,
}

fn default_key_len() -> usize {
    255
}

/// Where an object's id and status are (JSON pointers into it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerSpec {
    #[serde(default = "default_id_pointer")]
    pub id: String,
    #[serde(default)]
    pub status: Option<String>,
}

impl Default for AnswerSpec {
    fn default() -> Self {
        Self { id: default_id_pointer(), status: None }
    }
}

fn default_id_pointer() -> String {
    "/id".into()
}

/// A lookup: `GET path?query`, the object at `object` in the answer (the whole answer when
/// empty), found only when every `match` pointer in it holds its rendered value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupSpec {
    pub path: String,
    #[serde(default)]
    pub query: BTreeMap<String, String>,
    #[serde(default)]
    pub object: String,
    #[serde(rename = "match", default)]
    pub matches: BTreeMap<String, String>,
    #[serde(flatten)]
    pub answer: AnswerSpec,
}

/// What one of the API's statuses means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusMeaning {
    Succeeded,
    Pending,
    NeedsAction,
    Failed,
}

/// Why a description is refused, naming where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {problem}")]
pub struct DescriptionError {
    pub at: String,
    pub problem: String,
}

fn refused(at: impl Into<String>, problem: impl Into<String>) -> DescriptionError {
    DescriptionError { at: at.into(), problem: problem.into() }
}

/// What fills a template: the operation's stored parameters, op id, tenant and idempotency key.
#[derive(Debug, Clone, Copy)]
pub struct Fill<'a> {
    pub params: &'a CanonicalParams,
    pub op_id: &'a str,
    pub tenant: &'a str,
    pub key: &'a str,
}

/// A request as it is to be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub method: String,
    pub path: String,
    pub body: Option<Value>,
    pub encoding: Encoding,
}

/// A lookup as it is to be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedLookup {
    pub path: String,
    pub query: Vec<(String, String)>,
}

/// What an object in an answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRead {
    pub external_id: Option<String>,
    /// The status it maps to; `None` when its status is one the description does not name.
    pub status: Option<ProviderStatus>,
    /// The status as the API wrote it.
    pub raw_status: Option<String>,
}

impl HttpApi {
    /// Reads and checks a description, with an error that says where it is wrong.
    pub fn parse(text: &str) -> Result<HttpApi, DescriptionError> {
        let api: HttpApi =
            serde_json::from_str(text).map_err(|error| refused("description", error.to_string()))?;
        api.check()?;
        Ok(api)
    }

    fn check(&self) -> Result<(), DescriptionError> {
        if self.format != FORMAT {
            return Err(refused("format", format!("must be \"{FORMAT}\", not {:?}", self.format)));
        }
        for (code, _) in &self.http_codes {
            if !code.parse::<u16>().is_ok_and(|code| (200..=599).contains(&code)) {
                return Err(refused(format!("http_codes.{code}"), "is not an HTTP status code"));
            }
        }
        for (at, pointer) in [("errors.code", &self.errors.code), ("errors.message", &self.errors.message)] {
            if let Some(pointer) = pointer {
                check_pointer(at, pointer)?;
            }
        }
        if self.operations.is_empty() {
            return Err(refused("operations", "names no operation kind; it must serve at least one"));
        }
        for (kind, spec) in &self.operations {
            let at = format!("operations.{kind}");
            check_kind(&at, kind)?;
            spec.check(&at)?;
        }
        Ok(())
    }

    /// The operation kinds it serves.
    pub fn kinds(&self) -> Vec<String> {
        self.operations.keys().cloned().collect()
    }

    /// How operations of `kind` are sent, if it serves them.
    pub fn operation(&self, kind: &str) -> Option<&OperationSpec> {
        self.operations.get(kind)
    }

    /// What the API honours for operations of `kind`: its key (how long, how long a key may be,
    /// what a re-send under it gets after a 5xx) and whether it can be looked up. An API that
    /// serves no such kind honours nothing.
    pub fn capabilities(&self, kind: &str) -> Capabilities {
        let spec = self.operations.get(kind);
        let key = spec.and_then(|spec| spec.key.as_ref());
        Capabilities {
            key_retention: key.map_or(chrono::Duration::zero(), |key| {
                chrono::Duration::seconds(i64::from(key.remembered_s))
            }),
            key_max_len: key.map_or(255, |key| key.max_len),
            after_5xx: key.map_or(After5xx::Unknown, |key| key.after_5xx),
            lookup: spec.is_some_and(|spec| spec.lookup.is_some()),
            payment_read: true,
            outcomes_later: spec.is_some_and(|spec| {
                spec.statuses.values().any(|meaning| matches!(meaning, StatusMeaning::Pending))
            }),
            lookup_lag: chrono::Duration::zero(),
        }
    }

    /// What an error answer of HTTP `status` with `body` proves, by the description's codes and
    /// then the usual reading, except that a 503 is not taken to prove nothing was done unless the
    /// description says so (a proxy may answer it after the API got the request); `None` when the
    /// answer means it was done.
    pub fn classify(&self, status: u16, body: &Value, retry_after_s: Option<u32>) -> Option<FailureClass> {
        let code = self.error_code(body);
        if code.as_deref().is_some_and(|code| self.errors.business_rejections.iter().any(|c| c == code)) {
            return Some(FailureClass::BusinessRejection);
        }
        match self.http_codes.get(&status.to_string()) {
            Some(CodeMeaning::Done) => None,
            Some(CodeMeaning::TransientUnavailable) => {
                Some(FailureClass::TransientUnavailable { retry_after_s })
            }
            Some(CodeMeaning::InvalidParams) => Some(FailureClass::InvalidParams),
            Some(CodeMeaning::Forbidden) => Some(FailureClass::Forbidden),
            Some(CodeMeaning::BusinessRejection) => Some(FailureClass::BusinessRejection),
            Some(CodeMeaning::Unknown) => Some(FailureClass::ServerError),
            None if status == 503 => Some(FailureClass::ServerError),
            None => classify_http_answer(status, None, retry_after_s),
        }
    }

    /// The error code an error answer holds, where the description says it is.
    pub fn error_code(&self, body: &Value) -> Option<String> {
        self.errors.code.as_deref().and_then(|pointer| text_at(body, pointer))
    }

    /// The error message an error answer holds, where the description says it is.
    pub fn error_message(&self, body: &Value) -> Option<String> {
        self.errors.message.as_deref().and_then(|pointer| text_at(body, pointer))
    }
}

impl OperationSpec {
    fn check(&self, at: &str) -> Result<(), DescriptionError> {
        let method = self.request.method.as_str();
        if !matches!(method, "POST" | "PUT" | "PATCH" | "DELETE") {
            return Err(refused(
                format!("{at}.request.method"),
                format!(
                    "must be POST, PUT, PATCH or DELETE (a request that changes something), not {method:?}"
                ),
            ));
        }
        check_path(&format!("{at}.request.path"), &self.request.path)?;
        if let Some(body) = &self.request.body {
            let body_at = format!("{at}.request.body");
            if !body.is_object() {
                return Err(refused(body_at, "must be a JSON object"));
            }
            if self.request.encoding == Encoding::Form
                && body.as_object().is_some_and(|fields| fields.values().any(|v| !v.is_string()))
            {
                return Err(refused(body_at, "a form body's values must all be strings"));
            }
            check_templates_in(&body_at, body)?;
        }
        if let Some(key) = &self.key {
            let key_at = format!("{at}.key");
            if !valid_header_name(&key.header) {
                return Err(refused(
                    format!("{key_at}.header"),
                    format!("{:?} is not an HTTP header name", key.header),
                ));
            }
            if key.remembered_s == 0 {
                return Err(refused(
                    format!("{key_at}.remembered_s"),
                    "must be more than 0 (leave \"key\" out for an API that honours no key)",
                ));
            }
            if key.max_len < 44 {
                return Err(refused(format!("{key_at}.max_len"), "must be at least 44 characters"));
            }
        }
        check_answer(&format!("{at}.answer"), &self.answer)?;
        if let Some(lookup) = &self.lookup {
            let lookup_at = format!("{at}.lookup");
            check_path(&format!("{lookup_at}.path"), &lookup.path)?;
            for (name, template) in &lookup.query {
                check_template(&format!("{lookup_at}.query.{name}"), template)?;
            }
            if !lookup.object.is_empty() {
                check_pointer(&format!("{lookup_at}.object"), &lookup.object)?;
            }
            for (pointer, template) in &lookup.matches {
                check_pointer(&format!("{lookup_at}.match"), pointer)?;
                check_template(&format!("{lookup_at}.match.{pointer}"), template)?;
            }
            check_answer(&lookup_at, &lookup.answer)?;
            if lookup.answer.status.is_some() != self.answer.status.is_some() {
                return Err(refused(
                    format!("{lookup_at}.status"),
                    "an operation's answer and its lookup either both name a status or neither does",
                ));
            }
            let identifies =
                lookup.query.values().chain(lookup.matches.values()).any(|t| names_the_intent(t))
                    || names_the_intent(&lookup.path);
            if !identifies {
                return Err(refused(
                    lookup_at,
                    "must find the operation by what it wrote downstream: its path, query or match names {op_id} or {key}",
                ));
            }
        }
        if self.answer.status.is_some() && self.statuses.is_empty() {
            return Err(refused(
                format!("{at}.statuses"),
                "must say what each status means, since the answer names a status",
            ));
        }
        if self.answer.status.is_none() && !self.statuses.is_empty() {
            return Err(refused(
                format!("{at}.statuses"),
                "are read only when answer.status says where the status is",
            ));
        }
        Ok(())
    }

    /// The request for the operation `fill` describes, or which parameter it lacks.
    pub fn render(&self, fill: &Fill) -> Result<Rendered, String> {
        let path = render_path(&self.request.path, fill)?;
        let body = self.request.body.as_ref().map(|body| render_value(body, fill)).transpose()?;
        Ok(Rendered { method: self.request.method.clone(), path, body, encoding: self.request.encoding })
    }

    /// The lookup for the operation `fill` describes, if the API has one.
    pub fn render_lookup(&self, fill: &Fill) -> Option<Result<RenderedLookup, String>> {
        let lookup = self.lookup.as_ref()?;
        Some((|| {
            let path = render_path(&lookup.path, fill)?;
            let query = lookup
                .query
                .iter()
                .map(|(name, template)| Ok((name.clone(), render_text(template, fill)?)))
                .collect::<Result<Vec<_>, String>>()?;
            Ok(RenderedLookup { path, query })
        })())
    }

    /// What a 2xx answer to the request says.
    pub fn read_answer(&self, body: &Value) -> ObjectRead {
        self.read(&self.answer, body)
    }

    /// The operation's object in a lookup's answer, if the answer holds it: `None` when it holds
    /// nothing there or what it holds is another operation's.
    pub fn found_in(&self, answer: &Value, fill: &Fill) -> Option<ObjectRead> {
        let lookup = self.lookup.as_ref()?;
        let object = if lookup.object.is_empty() { Some(answer) } else { answer.pointer(&lookup.object) };
        let object = object.filter(|object| !object.is_null())?;
        let all_match = lookup.matches.iter().all(|(pointer, template)| {
            let expected = render_text(template, fill).ok();
            expected.is_some() && object.pointer(pointer).map(value_text) == expected
        });
        all_match.then(|| self.read(&lookup.answer, object))
    }

    fn read(&self, spec: &AnswerSpec, object: &Value) -> ObjectRead {
        let external_id = object.pointer(&spec.id).map(value_text).filter(|id| !id.is_empty());
        let Some(pointer) = &spec.status else {
            return ObjectRead { external_id, status: Some(ProviderStatus::Succeeded), raw_status: None };
        };
        let raw_status = object.pointer(pointer).map(value_text);
        let status =
            raw_status.as_deref().and_then(|raw| self.statuses.get(raw)).map(|meaning| match meaning {
                StatusMeaning::Succeeded => ProviderStatus::Succeeded,
                StatusMeaning::Pending => ProviderStatus::Pending { needs_action: false },
                StatusMeaning::NeedsAction => ProviderStatus::Pending { needs_action: true },
                StatusMeaning::Failed => {
                    ProviderStatus::Failed { reason: raw_status.clone().unwrap_or_default() }
                }
            });
        ObjectRead { external_id, status, raw_status }
    }
}

fn check_kind(at: &str, kind: &str) -> Result<(), DescriptionError> {
    let well_formed = (1..=64).contains(&kind.len())
        && kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return Err(refused(at, "an operation kind is 1 to 64 lowercase letters, digits or '_'"));
    }
    if RESERVED_KINDS.contains(&kind) {
        return Err(refused(at, "refunds go through a payment provider's connection (stripe, adyen, paypal), never a described API"));
    }
    Ok(())
}

fn check_answer(at: &str, answer: &AnswerSpec) -> Result<(), DescriptionError> {
    check_pointer(&format!("{at}.id"), &answer.id)?;
    if let Some(status) = &answer.status {
        check_pointer(&format!("{at}.status"), status)?;
    }
    Ok(())
}

fn check_pointer(at: &str, pointer: &str) -> Result<(), DescriptionError> {
    if pointer.starts_with('/') {
        Ok(())
    } else {
        Err(refused(
            at,
            format!("{pointer:?} is not a JSON pointer (one that starts with '/', like \"/data/0/id\")"),
        ))
    }
}

fn check_path(at: &str, path: &str) -> Result<(), DescriptionError> {
    if !path.starts_with('/') || path.starts_with("//") {
        return Err(refused(
            at,
            "must start with a single '/': it is a path below the connection's base URL",
        ));
    }
    if path.contains(['?', '#']) || path.contains("..") {
        return Err(refused(at, "holds no query, fragment or '..'; a lookup's query goes under \"query\""));
    }
    check_template(at, path)
}

fn check_templates_in(at: &str, value: &Value) -> Result<(), DescriptionError> {
    match value {
        Value::String(template) => check_template(at, template),
        Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, item)| check_templates_in(&format!("{at}[{i}]"), item))
        }
        Value::Object(fields) => {
            fields.iter().try_for_each(|(name, field)| check_templates_in(&format!("{at}.{name}"), field))
        }
        _ => Ok(()),
    }
}

/// Every `{…}` in `template` names something a request may be built from.
fn check_template(at: &str, template: &str) -> Result<(), DescriptionError> {
    for piece in placeholders(template).map_err(|problem| refused(at, problem))? {
        let known = matches!(piece, "op_id" | "tenant" | "key")
            || piece
                .strip_prefix("params.")
                .is_some_and(|path| !path.is_empty() && path.split('.').all(|part| !part.is_empty()));
        if !known {
            return Err(refused(
                at,
                format!("{{{piece}}} is not a placeholder: use {{op_id}}, {{tenant}}, {{key}} or {{params.<name>}}"),
            ));
        }
    }
    Ok(())
}

/// Whether `template` names what identifies the operation downstream.
fn names_the_intent(template: &str) -> bool {
    placeholders(template).is_ok_and(|names| names.iter().any(|name| matches!(*name, "op_id" | "key")))
}

/// The placeholders of `template`, or why its braces do not pair.
fn placeholders(template: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("has a '}' without its '{'".into());
        }
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("has a '{' without its '}'")?;
        let name = &after[..close];
        if name.contains('{') {
            return Err("has a '{' inside a placeholder".into());
        }
        names.push(name);
        rest = &after[close + 1..];
    }
    Ok(names)
}

fn valid_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The value a placeholder stands for.
fn lookup_value(name: &str, fill: &Fill) -> Result<Value, String> {
    match name {
        "op_id" => Ok(Value::String(fill.op_id.to_owned())),
        "tenant" => Ok(Value::String(fill.tenant.to_owned())),
        "key" => Ok(Value::String(fill.key.to_owned())),
        _ => {
            let path = name.strip_prefix("params.").unwrap_or(name);
            let pointer: String = path.split('.').map(|part| format!("/{part}")).collect();
            fill.params
                .as_value()
                .pointer(&pointer)
                .cloned()
                .filter(|value| !value.is_null())
                .ok_or_else(|| format!("params.{path} is missing"))
        }
    }
}

/// A value as text: a string as it is, anything else as JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn text_at(body: &Value, pointer: &str) -> Option<String> {
    body.pointer(pointer).map(value_text).filter(|text| !text.is_empty())
}

fn render_with(template: &str, fill: &Fill, encode: fn(&str) -> String) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("a '{' without its '}'")?;
        out.push_str(&encode(&value_text(&lookup_value(&after[..close], fill)?)));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn render_text(template: &str, fill: &Fill) -> Result<String, String> {
    render_with(template, fill, str::to_owned)
}

/// What a parameter in a path is encoded from: all but letters, digits, `-`, `_` and `~` (a
/// `.` too, so that `..` stays a name).
const PATH_SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'~');

/// A path with each placeholder filled in as one percent-encoded segment, so that a parameter can
/// never reach another path than the description's.
fn render_path(template: &str, fill: &Fill) -> Result<String, String> {
    render_with(template, fill, |text| percent_encoding::utf8_percent_encode(text, PATH_SEGMENT).to_string())
}

fn render_value(template: &Value, fill: &Fill) -> Result<Value, String> {
    Ok(match template {
        Value::String(text) => match placeholders(text).ok().as_deref() {
            Some([only]) if text.len() == only.len() + 2 => lookup_value(only, fill)?,
            _ => Value::String(render_text(text, fill)?),
        },
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| render_value(item, fill)).collect::<Result<_, _>>()?)
        }
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| Ok((name.clone(), render_value(field, fill)?)))
                .collect::<Result<Map<_, _>, String>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests;

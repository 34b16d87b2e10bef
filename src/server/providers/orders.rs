//! Where the agent tools and the compensations read a tenant's orders: an order's line items,
//! what each cost, and the payment that paid for them. The tools derive an operation's id and
//! amount from it, so a model never supplies an amount, and a tenant can refund only orders its
//! own shop returns. Two sources, chosen per tenant: its Stripe account's Checkout (the payment
//! intent found by `metadata['order_id']`, its session and the session's line items), or the
//! shop's own orders endpoint (`GET {base}/orders/{id}`).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

use super::http::Endpoint;
use super::ConnectionSettings;
use crate::domain::connection::ProviderKind;
use crate::domain::money::{Currency, Money};

/// One line of an order, with what the customer paid for it in minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineItem {
    pub id: String,
    pub name: String,
    pub amount_minor: i64,
}

/// One paid order, as a shop's orders endpoint answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub id: String,
    /// ISO 4217, upper case.
    pub currency: String,
    /// The provider's reference of the payment: a Stripe PaymentIntent (`pi_…`), an Adyen
    /// payment's pspReference, a PayPal capture id. Shops may send it as `payment` too.
    #[serde(alias = "payment")]
    pub payment_intent: String,
    pub line_items: Vec<LineItem>,
    /// Where the customer is written to, when the shop says (Stripe Checkout's
    /// `customer_details.email`).
    #[serde(default)]
    pub customer_email: Option<String>,
    /// The connection the order was paid through, when the shop takes payments at several
    /// (`ecpay` for cards, `linepay` for the wallet): its refunds go there.
    #[serde(default)]
    pub gateway: Option<String>,
}

impl Order {
    /// What the customer paid: the sum of the line items.
    pub fn paid_minor(&self) -> i64 {
        self.line_items.iter().map(|item| item.amount_minor).sum()
    }

    pub fn line_item(&self, id: &str) -> Option<&LineItem> {
        self.line_items.iter().find(|item| item.id == id)
    }

    /// The name of line item `id` and what was paid for it, in the order's currency.
    pub fn money_of(&self, id: &str) -> Option<(String, Money)> {
        let item = self.line_item(id)?;
        let currency = Currency::parse(&self.currency).ok()?;
        Some((item.name.clone(), Money::new(item.amount_minor, currency)))
    }
}

/// The parameters of the refund of one line item at a provider of `kind`, the same whoever asks
/// for it (an agent's tool, a compensation, the demo), so that one intent always has one
/// fingerprint: the payment under the name the provider gives it (`payment_intent` at Stripe,
/// `payment` at Adyen and ECPay, `capture` at PayPal, `transaction` at LINE Pay), the amount paid for the item, the order and the item.
pub fn refund_params(kind: ProviderKind, order: &Order, item: &LineItem) -> Value {
    let payment = match kind {
        ProviderKind::Adyen | ProviderKind::Ecpay => "payment",
        ProviderKind::PayPal => "capture",
        ProviderKind::LinePay => "transaction",
        ProviderKind::Stripe
        | ProviderKind::Services
        | ProviderKind::Orders
        | ProviderKind::Http
        | ProviderKind::Email
        | ProviderKind::Smtp => "payment_intent",
    };
    serde_json::json!({
        (payment): order.payment_intent,
        "amount": {"minor": item.amount_minor, "currency": order.currency},
        "order": order.id,
        "line_item": item.id,
        "reason": "requested_by_customer",
    })
}

/// A shop's orders.
#[async_trait]
pub trait OrderSource: Send + Sync {
    /// The order `id`; `Ok(None)` when the shop has no such order, `Err` (in words) when the shop
    /// could not be asked.
    async fn order(&self, id: &str) -> Result<Option<Order>, String>;
}

/// The order source a connection's settings describe: a Stripe account's Checkout, or a shop's
/// own orders endpoint; `None` for kinds that hold no orders (a shop on Adyen or PayPal keeps its
/// orders in its own system: an `orders` connection).
pub fn order_source_for(settings: &ConnectionSettings) -> Option<Arc<dyn OrderSource>> {
    let ConnectionSettings { kind, base_url, secret, timeout, egress, .. } = *settings;
    let endpoint = || Endpoint::new(kind, base_url, secret, timeout, egress);
    match kind {
        ProviderKind::Stripe => Some(Arc::new(CheckoutOrders { endpoint: endpoint() })),
        ProviderKind::Orders => Some(Arc::new(ShopOrders { endpoint: endpoint() })),
        ProviderKind::Services
        | ProviderKind::Adyen
        | ProviderKind::PayPal
        | ProviderKind::Ecpay
        | ProviderKind::LinePay
        | ProviderKind::Http
        | ProviderKind::Email
        | ProviderKind::Smtp => None,
    }
}

/// Orders paid through Stripe Checkout: `GET /v1/payment_intents/search` by `metadata['order_id']`,
/// `GET /v1/checkout/sessions?payment_intent=` and `GET /v1/checkout/sessions/{id}/line_items`.
struct CheckoutOrders {
    endpoint: Endpoint,
}

fn first(list: &Value) -> Option<&Value> {
    list.get("data").and_then(Value::as_array).and_then(|data| data.first())
}

fn text<'a>(object: &'a Value, field: &str) -> Result<&'a str, String> {
    object.get(field).and_then(Value::as_str).ok_or_else(|| format!("the answer has no {field}"))
}

#[async_trait]
impl OrderSource for CheckoutOrders {
    async fn order(&self, id: &str) -> Result<Option<Order>, String> {
        if id.contains(['\'', '\\']) {
            return Ok(None);
        }
        let query = format!("metadata['order_id']:'{id}'");
        let found = self.endpoint.get_json("/v1/payment_intents/search", &[("query", &query)]).await?;
        let Some(intent) = first(&found) else { return Ok(None) };
        let payment_intent = text(intent, "id")?;
        let sessions =
            self.endpoint.get_json("/v1/checkout/sessions", &[("payment_intent", payment_intent)]).await?;
        let Some(session) = first(&sessions) else { return Ok(None) };
        let session_id = text(session, "id")?;
        let items = self
            .endpoint
            .get_json(&format!("/v1/checkout/sessions/{session_id}/line_items"), &[("limit", "100")])
            .await?;
        let line_items = items
            .get("data")
            .and_then(Value::as_array)
            .ok_or("the line items answer has no data")?
            .iter()
            .map(|item| {
                Ok(LineItem {
                    id: text(item, "id")?.to_owned(),
                    name: text(item, "description")?.to_owned(),
                    amount_minor: item
                        .get("amount_total")
                        .and_then(Value::as_i64)
                        .ok_or("a line item has no amount_total")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Some(Order {
            id: id.to_owned(),
            currency: text(intent, "currency")?.to_uppercase(),
            payment_intent: payment_intent.to_owned(),
            line_items,
            customer_email: session
                .pointer("/customer_details/email")
                .and_then(Value::as_str)
                .map(str::to_owned),
            gateway: None,
        }))
    }
}

/// A shop's own orders endpoint: `GET {base}/orders/{id}` answers an [`Order`] as JSON, or 404.
struct ShopOrders {
    endpoint: Endpoint,
}

#[async_trait]
impl OrderSource for ShopOrders {
    async fn order(&self, id: &str) -> Result<Option<Order>, String> {
        let path = format!("/orders/{}", utf8_percent(id));
        match self.endpoint.get_json_or_missing(&path).await? {
            None => Ok(None),
            Some(body) => {
                serde_json::from_value(body).map(Some).map_err(|e| format!("the order is malformed: {e}"))
            }
        }
    }
}

/// `text` percent-encoded for one path segment.
fn utf8_percent(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

//! The demo tenant `tw-ecpay` for `serve --demo`: a Taiwanese shop that takes cards through ECPay
//! and wallets through LINE Pay, neither of which takes an idempotency key. Its accounts are
//! mounted on the console's address (`/sandbox-ecpay`, `/sandbox-linepay`, and its shop's orders
//! endpoint at `/sandbox-tw-ecpay-shop`). ECPay's payment notifications are posted to the
//! tenant's webhook address, which saves each payment's TradeNo and gwsr. Its refunds show each
//! state such a gateway leads to:
//! - TW1043, card: 耳機保護殼 refunded and settled at ECPay's nightly close (succeeded); 藍牙耳機
//!   refunded after the close (accepted, waiting for the next one);
//! - TW1044, card: 保溫瓶's answer dropped; the reconciler finds the refund in ECPay's list against
//!   the one kept before the send (accepted, with ECPay's `sno`);
//! - TW1045, card: 茶具組 first tried at 20:20 Taiwan time, inside ECPay's nightly close, and held
//!   back (not sent, said until when); the reconciler sends it once ECPay can take it;
//! - TW2001, LINE Pay: 鳳梨酥禮盒 refunded at once (succeeded); 烏龍茶 answered 1198 (still
//!   processing: unknown), found in the refund list by the reconciler;
//! - TW2002, LINE Pay: 竹編提籃's answer lost to a 500 while a person refunded the same amount by hand
//!   in LINE Pay's merchant center: two new refunds of NT$380, so a person decides (needs review).
//!
//! Its users are `yu.admin` and `lin.support`, with the demo's password; it speaks Traditional
//! Chinese to them and to its customers.

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::get,
    Json, Router,
};
use chrono::{TimeZone, Utc};
use std::sync::Arc;

use super::DEMO_PASSWORD;
use crate::domain::{
    connection::{ProviderKind, ORDERS_PROVIDER},
    gateway::taipei,
    ids::{Actor, OpId, TenantId},
    language::Language,
    params::CanonicalParams,
    policy::Role,
};
use crate::server::egress::EgressPolicy;
use crate::server::ledger::accounts::AccountError;
use crate::server::ledger::connections::NewConnection;
use crate::server::ledger::executor::Executor;
use crate::server::ledger::{LedgerError, RegisterRequest};
use crate::server::providers::orders::{LineItem, Order};
use crate::server::providers::EcpayConnector;
use crate::server::sandbox::ecpay::{EcpayConfig, EcpaySandbox, NewPayment, TradeState};
use crate::server::sandbox::linepay::{LinePayConfig, LinePaySandbox};
use crate::server::sandbox::{new_secret_key, Fault, FaultKind};

/// The tenant, its people, and where its accounts are mounted.
pub const TENANT: &str = "tw-ecpay";
pub const USERS: [(&str, Role); 2] = [("yu.admin", Role::Admin), ("lin.support", Role::Support)];
pub const ECPAY_PATH: &str = "/sandbox-ecpay";
pub const LINEPAY_PATH: &str = "/sandbox-linepay";
pub const SHOP_PATH: &str = "/sandbox-tw-ecpay-shop";

/// The shop's orders: which gateway each was paid through, and the payment's reference there
/// (ECPay's MerchantTradeNo; LINE Pay's transaction id, known once the channel made it).
struct ShopOrder {
    id: &'static str,
    gateway: ProviderKind,
    reference: &'static str,
    items: &'static [(&'static str, &'static str, i64)],
    /// For a card payment: where it stands at ECPay when the demo starts.
    state: TradeState,
}

const ORDERS: [ShopOrder; 5] = [
    ShopOrder {
        id: "TW1043",
        gateway: ProviderKind::Ecpay,
        reference: "TW1043A",
        items: &[("li_1", "耳機保護殼", 380), ("li_2", "藍牙耳機", 2_990)],
        state: TradeState::Closed,
    },
    ShopOrder {
        id: "TW1044",
        gateway: ProviderKind::Ecpay,
        reference: "TW1044A",
        items: &[("li_1", "保溫瓶", 890), ("li_2", "杯套", 120)],
        state: TradeState::ToClose,
    },
    ShopOrder {
        id: "TW1045",
        gateway: ProviderKind::Ecpay,
        reference: "TW1045A",
        items: &[("li_1", "茶具組", 1_280), ("li_2", "茶巾", 150)],
        state: TradeState::Closed,
    },
    ShopOrder {
        id: "TW2001",
        gateway: ProviderKind::LinePay,
        reference: "",
        items: &[("li_1", "鳳梨酥禮盒", 450), ("li_2", "烏龍茶", 680)],
        state: TradeState::Closed,
    },
    ShopOrder {
        id: "TW2002",
        gateway: ProviderKind::LinePay,
        reference: "",
        items: &[("li_1", "竹編提籃", 380), ("li_2", "茶匙", 420)],
        state: TradeState::Closed,
    },
];

/// The shop's orders endpoint: `GET /orders/{id}` behind its key.
#[derive(Clone)]
struct Shop {
    key: Arc<String>,
    orders: Arc<std::sync::Mutex<Vec<Order>>>,
}

async fn order(State(shop): State<Shop>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let authorised = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.strip_prefix("Bearer ") == Some(shop.key.as_str()));
    if !authorised {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let orders = shop.orders.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match orders.iter().find(|order| order.id == id) {
        Some(order) => Json(order.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `tw-ecpay`'s accounts: ECPay, LINE Pay and its shop, made anew at every start.
pub struct TaiwanAccounts {
    ecpay: EcpaySandbox,
    ecpay_config: EcpayConfig,
    linepay: LinePaySandbox,
    linepay_config: LinePayConfig,
    shop: Shop,
}

impl TaiwanAccounts {
    pub fn new() -> Self {
        let ecpay_config = EcpayConfig {
            merchant_id: "3002607".into(),
            hash_key: uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
            hash_iv: uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
            credit_check_code: "59997889".into(),
        };
        let linepay_config = LinePayConfig {
            channel_id: "1656789012".into(),
            channel_secret: uuid::Uuid::new_v4().simple().to_string(),
        };
        Self {
            ecpay: EcpaySandbox::new(ecpay_config.clone()),
            ecpay_config,
            linepay: LinePaySandbox::new(linepay_config.clone()),
            linepay_config,
            shop: Shop { key: Arc::new(new_secret_key()), orders: Arc::default() },
        }
    }

    /// The accounts' HTTP surfaces, each with the path it is mounted at.
    pub fn routers(&self) -> [(&'static str, Router); 3] {
        let shop = Router::new().route("/orders/{id}", get(order)).with_state(self.shop.clone());
        [(ECPAY_PATH, self.ecpay.router()), (LINEPAY_PATH, self.linepay.router()), (SHOP_PATH, shop)]
    }

    /// Connects the tenant to its accounts on the console at `console`, pays its orders (ECPay's
    /// notifications posted to the tenant's webhook address) and makes its refunds, once.
    pub async fn seed(&self, executor: &Executor, console: &str) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        let tenant = TenantId::parse(TENANT).map_err(|e| LedgerError::Invalid(e.to_string()))?;
        let first = OpId::for_line_item("refund", "TW1043", "li_1")
            .map_err(|e| LedgerError::Invalid(e.to_string()))?;
        if ledger.reads().load_operation(&tenant, &first).await?.is_some() {
            return Ok(());
        }
        for (name, role) in USERS {
            match ledger.add_user(&tenant, name, role, DEMO_PASSWORD, "demo").await {
                Ok(()) | Err(AccountError::NameTaken(_)) => {}
                Err(AccountError::Store(error)) => return Err(error.into()),
                Err(other) => return Err(LedgerError::Invalid(other.to_string())),
            }
        }
        ledger.set_tenant_language(&tenant, Language::ZhTw, "demo").await?;
        for user in ledger.reads().tenant_users(&tenant).await? {
            ledger.set_user_language(&tenant, &user.id, Some(Language::ZhTw), "demo", Role::Admin).await?;
        }
        self.connect(executor, &tenant, console).await?;
        self.pay(console).await?;
        self.refund(executor, &tenant, console).await
    }

    async fn connect(
        &self,
        executor: &Executor,
        tenant: &TenantId,
        console: &str,
    ) -> Result<(), LedgerError> {
        let ledger = executor.ledger();
        let system = Actor::system("demo");
        let connections = [
            (
                "ecpay",
                ProviderKind::Ecpay,
                format!("{console}{ECPAY_PATH}"),
                self.ecpay_config.secret(),
                Some(self.ecpay_config.merchant_id.clone()),
            ),
            (
                "linepay",
                ProviderKind::LinePay,
                format!("{console}{LINEPAY_PATH}"),
                self.linepay_config.channel_secret.clone(),
                Some(self.linepay_config.channel_id.clone()),
            ),
            (
                ORDERS_PROVIDER,
                ProviderKind::Orders,
                format!("{console}{SHOP_PATH}"),
                self.shop.key.to_string(),
                None,
            ),
        ];
        for (name, kind, base_url, secret, account) in connections {
            let connection = NewConnection {
                name: name.into(),
                kind,
                base_url,
                secret,
                account,
                key_retention: None,
                description: None,
            };
            ledger.set_provider_connection(tenant, &system, connection).await?;
        }
        Ok(())
    }

    /// Pays every order: card payments at ECPay, whose notification goes to the tenant's webhook
    /// address; wallet payments at LINE Pay. The shop then lists them.
    async fn pay(&self, console: &str) -> Result<(), LedgerError> {
        let return_url = format!("{console}/webhooks/providers/{TENANT}/ecpay");
        let mut orders = Vec::new();
        for shop_order in &ORDERS {
            let paid: i64 = shop_order.items.iter().map(|(_, _, amount)| amount).sum();
            let reference = match shop_order.gateway {
                ProviderKind::Ecpay => {
                    let payment = NewPayment {
                        merchant_trade_no: shop_order.reference.into(),
                        amount: paid,
                        state: shop_order.state,
                        installments: 0,
                        red_dan: 0,
                        return_url: None,
                    };
                    let notice = self.ecpay.pay(&payment);
                    let posted = reqwest::Client::new().post(&return_url).form(&notice).send().await;
                    if !posted.is_ok_and(|answer| answer.status().is_success()) {
                        return Err(LedgerError::Invalid(format!(
                            "ECPay's payment notification for {} was not taken",
                            shop_order.reference
                        )));
                    }
                    shop_order.reference.to_owned()
                }
                _ => self.linepay.pay(shop_order.id, paid),
            };
            orders.push(Order {
                id: shop_order.id.into(),
                currency: "TWD".into(),
                payment_intent: reference,
                line_items: shop_order
                    .items
                    .iter()
                    .map(|(id, name, amount)| LineItem {
                        id: (*id).into(),
                        name: (*name).into(),
                        amount_minor: amount * 100,
                    })
                    .collect(),
                customer_email: Some(format!("customer-{}@example.com", shop_order.id.to_lowercase())),
                gateway: Some(shop_order.gateway.as_str().into()),
            });
        }
        *self.shop.orders.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = orders;
        Ok(())
    }

    /// The refunds, as the shop's agent asks for them, in the order that gives each its state.
    async fn refund(&self, executor: &Executor, tenant: &TenantId, console: &str) -> Result<(), LedgerError> {
        self.send(executor, tenant, "TW1043", "li_1").await?;
        self.ecpay.nightly_close();
        self.send(executor, tenant, "TW1043", "li_2").await?;
        self.ecpay.inject(Fault::once("TW1044A", FaultKind::DropResponse, 15_000));
        self.send(executor, tenant, "TW1044", "li_1").await?;
        let at_the_close = taipei()
            .from_local_datetime(
                &Utc::now().with_timezone(&taipei()).date_naive().and_hms_opt(20, 20, 0).unwrap_or_default(),
            )
            .single()
            .map_or_else(Utc::now, |at| at.with_timezone(&Utc));
        let ecpay = EcpayConnector::new(
            &format!("{console}{ECPAY_PATH}"),
            &self.ecpay_config.secret(),
            &self.ecpay_config.merchant_id,
            std::time::Duration::from_secs(10),
            &EgressPolicy::unrestricted(),
        )
        .map_err(LedgerError::Invalid)?
        .with_clock(move || at_the_close);
        let op_id = self.record(executor, tenant, "TW1045", "li_1").await?;
        executor.run_through(tenant, &op_id, "ecpay", Ok(Arc::new(ecpay))).await?;
        self.send(executor, tenant, "TW2001", "li_1").await?;
        let second = self.transaction("TW2001")?;
        self.linepay.inject(Fault::once(&second, FaultKind::ProcessingAfter, 0));
        self.send(executor, tenant, "TW2001", "li_2").await?;
        let basket = self.transaction("TW2002")?;
        self.linepay.inject(Fault::once(&basket, FaultKind::Error500After, 0));
        self.send(executor, tenant, "TW2002", "li_1").await?;
        self.linepay
            .refund(&basket, 380)
            .map_err(|code| LedgerError::Invalid(format!("LINE Pay refused the refund by hand ({code})")))?;
        Ok(())
    }

    /// The LINE Pay transaction id the shop's order `order` was paid with.
    fn transaction(&self, order: &str) -> Result<String, LedgerError> {
        let orders = self.shop.orders.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        orders
            .iter()
            .find(|o| o.id == order)
            .map(|o| o.payment_intent.clone())
            .ok_or_else(|| LedgerError::Invalid(format!("the shop has no order {order}")))
    }

    /// Records the refund of `item` of `order` at the gateway it was paid through, as the shop's
    /// agent asks for it.
    async fn record(
        &self,
        executor: &Executor,
        tenant: &TenantId,
        order_id: &str,
        item: &str,
    ) -> Result<OpId, LedgerError> {
        let ledger = executor.ledger();
        let (order, line_item) = {
            let orders = self.shop.orders.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let order = orders.iter().find(|o| o.id == order_id).cloned();
            let line_item = order.as_ref().and_then(|o| o.line_item(item).cloned());
            order.zip(line_item).ok_or_else(|| {
                LedgerError::Invalid(format!("the shop has no item {item} in order {order_id}"))
            })?
        };
        let provider = order.gateway.clone().unwrap_or_default();
        let kind = ProviderKind::parse(&provider).unwrap_or(ProviderKind::Ecpay);
        let params = ledger.line_item_refund(tenant, &provider, kind, &order, &line_item).await?;
        let op_id = OpId::for_line_item("refund", &order.id, item)
            .map_err(|e| LedgerError::Invalid(e.to_string()))?;
        let request = RegisterRequest {
            op_id: op_id.clone(),
            kind: "refund".into(),
            subject: format!("order:{}", order.id),
            provider,
            params: CanonicalParams::from_value(params).map_err(|e| LedgerError::Invalid(e.to_string()))?,
            requested_by: "shop-agent".into(),
            compensates: None,
            on_behalf_of: None,
            server_sends: true,
            key_retention: None,
        };
        ledger.register(tenant, &Actor::agent("shop-agent"), request).await?;
        Ok(op_id)
    }

    async fn send(
        &self,
        executor: &Executor,
        tenant: &TenantId,
        order: &str,
        item: &str,
    ) -> Result<(), LedgerError> {
        let op_id = self.record(executor, tenant, order, item).await?;
        executor.run(tenant, &op_id).await?;
        Ok(())
    }
}

impl Default for TaiwanAccounts {
    fn default() -> Self {
        Self::new()
    }
}

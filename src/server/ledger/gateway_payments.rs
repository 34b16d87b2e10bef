//! The payments of a tenant's gateways without a key, as far as their refunds need them: the ids
//! saved when a payment became known (ECPay's signed payment notification, or entered by the shop
//! or a person), kept per connection with an audit entry, and the refund parameters a line item of
//! an order is recorded with at the gateway the order was paid through. A refund whose ids were
//! never saved is refused before anything is recorded, in words that say how to save them.

use serde_json::{json, Value};

use super::{Ledger, LedgerError};
use crate::domain::{
    connection::ProviderKind,
    ecpay,
    gateway::SavedPayment,
    ids::{Actor, TenantId},
};
use crate::server::clock::now;
use crate::server::providers::orders::{refund_params, LineItem, Order};
use crate::server::store::gateway::SavedPaymentRecord;

impl Ledger {
    /// Keeps `payment`'s ids for `tenant`'s connection `connection` (`source`: `notification` when
    /// the gateway signed it, `entered` otherwise), replacing what was kept for that payment.
    pub async fn save_gateway_payment(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        connection: &str,
        payment: SavedPayment,
        source: &str,
    ) -> Result<(), LedgerError> {
        let Some(stored) = self.store.provider_connection(tenant, connection).await? else {
            return Err(LedgerError::Invalid(format!(
                "Tenant {tenant} has no connection named {connection}."
            )));
        };
        if stored.kind != ProviderKind::Ecpay {
            return Err(LedgerError::Invalid(format!(
                "Payments are saved for ECPay connections, and {connection} is a {} connection.",
                stored.kind.as_str()
            )));
        }
        let evidence = json!({
            "connection": connection,
            "payment": payment.payment,
            "ids": payment.ids.keys().collect::<Vec<_>>(),
            "paid_minor": payment.paid_minor,
            "currency": payment.currency,
            "full_refund_only": payment.full_refund_only,
            "source": source,
        });
        let audit = Self::action_entry(tenant, actor, "save_gateway_payment", evidence);
        let record = SavedPaymentRecord {
            tenant: tenant.clone(),
            connection: connection.to_owned(),
            payment,
            source: source.to_owned(),
            recorded_by: actor.name.clone(),
            recorded_at: now(),
        };
        Ok(self.store.save_payment(record, audit).await?)
    }

    /// The ids kept for `payment` at `tenant`'s connection `connection`.
    pub async fn saved_gateway_payment(
        &self,
        tenant: &TenantId,
        connection: &str,
        payment: &str,
    ) -> Result<Option<SavedPaymentRecord>, LedgerError> {
        Ok(self.store.saved_payment(tenant, connection, payment).await?)
    }

    /// The parameters of the refund of `item` of `order` at `provider` (a connection of `kind`): at
    /// ECPay, with the ids saved for the order's payment, or refused in words when none were saved;
    /// elsewhere, the same for whoever asks ([`refund_params`]).
    pub async fn line_item_refund(
        &self,
        tenant: &TenantId,
        provider: &str,
        kind: ProviderKind,
        order: &Order,
        item: &LineItem,
    ) -> Result<Value, LedgerError> {
        if kind != ProviderKind::Ecpay {
            return Ok(refund_params(kind, order, item));
        }
        let Some(saved) = self.saved_gateway_payment(tenant, provider, &order.payment_intent).await? else {
            return Err(LedgerError::InvalidField {
                field: "params.gwsr",
                problem: format!(
                    "ECPay payment {} of order {} has no saved ids: ECPay's refunds are sent with its TradeNo and looked up by its gwsr, which ECPay's payment notification carries when the order was made with NeedExtraPaidInfo=Y. Point ECPay's ReturnURL at this connection's webhook address, or save them with `opledger provider payment-add`; nothing was recorded",
                    order.payment_intent, order.id
                ),
            });
        };
        Ok(ecpay::refund_value(&saved.payment, item.amount_minor, &order.id, &item.id))
    }
}

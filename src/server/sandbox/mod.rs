//! Sandbox providers: Stripe, Adyen, PayPal, ECPay, LINE Pay and an email API in Resend's shape
//! (with an SMTP sink), and stand-ins for the chat channels notifications go to (Slack, Microsoft
//! Teams, LINE; see
//! [`chat`]), each serving the part of its provider's published API that opledger speaks, so that the demo and
//! the tests are real with no account anywhere; two sandboxes are two accounts.
//!
//! What every sandbox does the same way is written once: an [`account`] holds the faults set, the
//! answers remembered by key, the objects really created, the shop's orders and its ids; every
//! creating request goes through one keyed pipeline ([`pipeline`]); and one control API
//! ([`control`]: `_sandbox/faults`, `_sandbox/ledger`, and each provider's own control routes) sits
//! behind the account's key. Each provider's file (or folder, for Stripe) keeps only what its
//! provider does differently: its routes, its objects, and how it spells keys and refusals.

mod account;
pub mod adyen;
pub mod chat;
mod control;
pub mod ecpay;
mod faults;
mod keyed;
pub mod line;
pub mod linepay;
pub mod mail;
pub mod paypal;
mod pipeline;
pub mod slack;
pub mod stripe;
pub mod teams;

pub use account::CreatedObject;
pub use faults::{Fault, FaultKind};
pub use stripe::{new_secret_key, ReceivedWebhook, Sandbox, SandboxConfig, SentEvent};

use axum::Router;
use line::LineSandbox;
use slack::SlackSandbox;
use teams::TeamsSandbox;

/// The three stand-ins behind one key.
#[derive(Clone)]
pub struct ChatSandboxes {
    pub slack: SlackSandbox,
    pub teams: TeamsSandbox,
    pub line: LineSandbox,
}

impl ChatSandboxes {
    /// Stand-ins whose control routes take `key` as a bearer token; LINE's takes it as its one
    /// valid channel access token too.
    pub fn new(key: &str) -> Self {
        Self { slack: SlackSandbox::new(key), teams: TeamsSandbox::new(key), line: LineSandbox::new(key) }
    }

    /// Their routes: `/slack/services/{team}/{bot}/{secret}`, `/teams/workflows/{id}`,
    /// `/line/v2/bot/message/push`, and their control routes under `/_sandbox`.
    pub fn router(&self) -> Router {
        self.slack.router().merge(self.teams.router()).merge(self.line.router())
    }
}

//! The admin page: the tenant's users (and adding one) and its approval policy (adding and
//! removing rules).

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::policy::Role;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRuleView {
    pub id: String,
    /// The rule in words.
    pub summary: String,
    pub kind: String,
    pub provider: Option<String>,
    /// `TWD 1,000.00`, or `None` for every amount.
    pub threshold: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

#[server(prefix = "/rpc", endpoint = "users")]
pub async fn users() -> Result<Vec<UserView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Admin).await?;
    ssr::users(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Adds a user to the admin's tenant.
#[server(prefix = "/rpc", endpoint = "add_user")]
pub async fn add_user(
    csrf: String,
    name: String,
    role: String,
    password: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::add_user(&admin, &name, &role, &password).await.inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "approval_rules")]
pub async fn approval_rules() -> Result<Vec<ApprovalRuleView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Admin).await?;
    ssr::approval_rules(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Adds a rule to the approval policy: operations of `kind` (at `provider`, if given) from
/// `threshold` (e.g. `1000.00`, in `currency`) up need a manager's approval.
#[server(prefix = "/rpc", endpoint = "add_approval_rule")]
pub async fn add_approval_rule(
    csrf: String,
    kind: String,
    #[server(default)] provider: String,
    #[server(default)] threshold: String,
    #[server(default)] currency: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::add_approval_rule(&admin, &kind, &provider, &threshold, &currency)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "remove_approval_rule")]
pub async fn remove_approval_rule(csrf: String, id: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::remove_approval_rule(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, reads, unavailable, SignedIn};
    use crate::domain::money::{Currency, Money};
    use crate::domain::policy::ApprovalRule;
    use crate::domain::policy::Role;
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::accounts::AccountError;
    use crate::server::ledger::requests::form_key;
    use crate::server::ledger::workflows::capitalise;
    use crate::server::store::records::ApprovalRuleRecord;
    use crate::server::store::StoreError;

    pub async fn approval_rules(user: &SignedIn) -> Result<Vec<ApprovalRuleView>, AppError> {
        let rules = reads().approval_rules(&user.tenant).await.map_err(unavailable)?;
        Ok(rules
            .into_iter()
            .map(|record| ApprovalRuleView {
                summary: record.rule.sentence(),
                id: record.id,
                kind: record.rule.kind,
                provider: record.rule.provider,
                threshold: record.rule.threshold.map(|t| t.to_string()),
                created_by: record.created_by,
                created_at: record.created_at,
            })
            .collect())
    }

    pub async fn users(user: &SignedIn) -> Result<Vec<UserView>, AppError> {
        let users = reads().tenant_users(&user.tenant).await.map_err(unavailable)?;
        Ok(users
            .into_iter()
            .map(|u| UserView { name: u.name, role: u.role, created_at: u.created_at })
            .collect())
    }

    pub async fn add_user(
        admin: &SignedIn,
        name: &str,
        role: &str,
        password: &str,
    ) -> Result<String, AppError> {
        let role = Role::parse(role)
            .ok_or_else(|| AppError::Invalid(format!("There is no role named “{role}”.")))?;
        let name = name.trim();
        let ledger = expect_context::<AppState>().ledger;
        match ledger.add_user(&admin.tenant, name, role, password, &admin.name).await {
            Ok(()) => Ok(format!("{name} can now sign in as {}.", role.as_str())),
            Err(AccountError::Store(error)) => Err(unavailable(error)),
            Err(refused) => Err(AppError::Invalid(format!("{}.", capitalise(&refused.to_string())))),
        }
    }

    /// Adds a rule to the admin's tenant's approval policy.
    pub async fn add_approval_rule(
        admin: &SignedIn,
        kind: &str,
        provider: &str,
        threshold: &str,
        currency: &str,
    ) -> Result<String, AppError> {
        let kind = kind.trim();
        if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Err(AppError::Invalid("Write the kind as it is recorded, for example refund.".into()));
        }
        let provider = Some(provider.trim()).filter(|p| !p.is_empty()).map(str::to_owned);
        let threshold = match (threshold.trim(), currency.trim()) {
            ("", _) => None,
            (_, "") => {
                return Err(AppError::Invalid("A threshold needs its currency, for example TWD.".into()))
            }
            (amount, code) => {
                let currency = Currency::parse(&code.to_uppercase())
                    .map_err(|e| AppError::Invalid(format!("{}.", capitalise(&e.to_string()))))?;
                Some(
                    Money::parse_major(amount, currency)
                        .map_err(|e| AppError::Invalid(format!("{}.", capitalise(&e.to_string()))))?,
                )
            }
        };
        let rule = ApprovalRule { kind: kind.to_owned(), provider, threshold };
        let sentence = rule.sentence();
        let record = ApprovalRuleRecord {
            id: form_key()[..12].to_owned(),
            rule,
            created_by: admin.name.clone(),
            created_at: now(),
        };
        let ledger = expect_context::<AppState>().ledger;
        ledger.add_approval_rule(&admin.tenant, &actor(admin), record).await.map_err(unavailable)?;
        Ok(format!("From now on, {sentence}."))
    }

    pub async fn remove_approval_rule(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        let ledger = expect_context::<AppState>().ledger;
        match ledger.remove_approval_rule(&admin.tenant, &actor(admin), id).await {
            Ok(()) => Ok("The rule is removed; operations registered from now on no longer need it.".into()),
            Err(StoreError::NotFound) => Err(AppError::NotFound(format!("no approval rule {id}"))),
            Err(error) => Err(unavailable(error)),
        }
    }
}

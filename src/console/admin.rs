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

/// The approval policy and what its form offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyPage {
    pub rules: Vec<ApprovalRuleView>,
    /// The kinds of operation a rule can name: those recorded, and those the tools record.
    pub kinds: Vec<String>,
    pub providers: Vec<String>,
    /// The currencies of the tenant's recent operations.
    pub currencies: Vec<String>,
}

#[server(prefix = "/rpc", endpoint = "approval_rules")]
pub async fn approval_rules() -> Result<PolicyPage, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Admin).await?;
    ssr::approval_rules(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Adds a rule to the approval policy: operations of `kind` (at `provider`, if given) from
/// `threshold` (e.g. `1000.00`, in `currency`) up need a manager's approval. With `preview` set
/// to `yes`, says how many recent operations the rule would have caught and saves nothing.
#[server(prefix = "/rpc", endpoint = "add_approval_rule")]
pub async fn add_approval_rule(
    csrf: String,
    kind: String,
    #[server(default)] provider: String,
    #[server(default)] threshold: String,
    #[server(default)] currency: String,
    #[server(default)] preview: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    let asked = ssr::RuleForm { kind, provider, threshold, currency };
    ssr::add_approval_rule(&admin, &asked, preview.trim() == "yes")
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "remove_approval_rule")]
pub async fn remove_approval_rule(
    csrf: String,
    id: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    if confirmed.trim() != "yes" {
        let query = serde_urlencoded::to_string([("remove_rule", id.trim())]).unwrap_or_default();
        leptos_axum::redirect(&format!("/admin?{query}#confirm-remove"));
        return Ok(crate::console::operation::CONFIRM_FIRST.to_owned());
    }
    ssr::remove_approval_rule(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, reads, unavailable, SignedIn};
    use crate::domain::connection::{REFUNDS_PROVIDER, SERVICES_PROVIDER};
    use crate::domain::money::{Currency, Money};
    use crate::domain::policy::Role;
    use crate::domain::policy::{ApprovalRule, ANY_KIND};
    use crate::domain::wording::capitalised;
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::accounts::AccountError;
    use crate::server::ledger::requests::form_key;
    use crate::server::store::records::{ApprovalRuleRecord, OperationQuery};
    use crate::server::store::{Reads, StoreError};
    use std::sync::Arc;

    /// The kinds the tools and the compensations record, offered before any is recorded.
    const TOOL_KINDS: [&str; 4] = ["refund", "create_aftersale", "schedule_pickup", "cancel_aftersale"];

    /// How many of a kind's latest operations a rule's preview looks at.
    const PREVIEW_OPERATIONS: u32 = 500;

    /// The kinds and providers a rule may name: those the tenant's operations have, the tools'
    /// kinds, and the providers the server and the tenant connect to.
    async fn known_kinds_and_providers(
        store: &Arc<dyn Reads>,
        user: &SignedIn,
    ) -> Result<(Vec<String>, Vec<String>), AppError> {
        let (mut kinds, mut providers) =
            store.operation_kinds_and_providers(&user.tenant).await.map_err(unavailable)?;
        kinds.extend(TOOL_KINDS.iter().map(|k| (*k).to_owned()));
        providers.extend([REFUNDS_PROVIDER, SERVICES_PROVIDER].iter().map(|p| (*p).to_owned()));
        let own = store.provider_connections(&user.tenant).await.map_err(unavailable)?;
        providers.extend(own.into_iter().map(|connection| connection.name));
        for list in [&mut kinds, &mut providers] {
            list.sort();
            list.dedup();
        }
        Ok((kinds, providers))
    }

    pub async fn approval_rules(user: &SignedIn) -> Result<PolicyPage, AppError> {
        let store = reads();
        let rules = store.approval_rules(&user.tenant).await.map_err(unavailable)?;
        let (kinds, providers) = known_kinds_and_providers(&store, user).await?;
        let recent = OperationQuery { limit: 200, ..OperationQuery::default() };
        let mut currencies: Vec<String> = store
            .list_operations(&user.tenant, &recent)
            .await
            .map_err(unavailable)?
            .into_iter()
            .filter_map(|item| item.amount.map(|money| money.currency.to_string()))
            .chain(rules.iter().filter_map(|r| r.rule.threshold.map(|t| t.currency.to_string())))
            .collect();
        currencies.sort();
        currencies.dedup();
        let rules = rules
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
            .collect();
        Ok(PolicyPage { rules, kinds, providers, currencies })
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
            Err(refused) => Err(AppError::Invalid(format!("{}.", capitalised(&refused.to_string())))),
        }
    }

    /// The approval rule form as sent.
    #[derive(Debug, Clone, Default)]
    pub struct RuleForm {
        pub kind: String,
        pub provider: String,
        pub threshold: String,
        pub currency: String,
    }

    /// The rule `form` describes, checked against the kinds and providers that exist and read in
    /// its currency's own minor units; in words what is wrong otherwise.
    pub fn rule_of(
        form: &RuleForm,
        kinds: &[String],
        providers: &[String],
    ) -> Result<ApprovalRule, AppError> {
        let kind = form.kind.trim();
        if kind.is_empty() {
            return Err(AppError::Invalid(format!("Choose a kind, for example {}.", kinds.join(", "))));
        }
        if kind != ANY_KIND && !kinds.iter().any(|known| known == kind) {
            return Err(AppError::Invalid(format!(
                "No operation of kind “{kind}” is recorded or made by the tools; choose one of {}.",
                kinds.join(", ")
            )));
        }
        let provider = Some(form.provider.trim()).filter(|p| !p.is_empty()).map(str::to_owned);
        if let Some(provider) = provider.as_deref().filter(|p| !providers.iter().any(|known| known == p)) {
            return Err(AppError::Invalid(format!(
                "There is no provider named “{provider}”; choose one of {}, or leave it blank for any.",
                providers.join(", ")
            )));
        }
        let threshold = match (form.threshold.trim(), form.currency.trim()) {
            ("", "") => None,
            ("", _) => {
                return Err(AppError::Invalid("A currency needs its amount, for example 1000.00.".into()))
            }
            (_, "") => {
                return Err(AppError::Invalid("A threshold needs its currency, for example TWD.".into()))
            }
            (amount, code) => {
                let currency = Currency::parse(&code.to_uppercase())
                    .map_err(|e| AppError::Invalid(format!("{}.", capitalised(&e.to_string()))))?;
                let comma_hint = if amount.contains(',') {
                    " A comma may only separate thousands (1,000.00); write cents after a point."
                } else {
                    ""
                };
                Some(Money::parse_major(amount, currency).map_err(|e| {
                    AppError::Invalid(format!("{}.{comma_hint}", capitalised(&e.to_string())))
                })?)
            }
        };
        Ok(ApprovalRule { kind: kind.to_owned(), provider, threshold })
    }

    /// How many of the latest operations of the rule's kind it would have caught, in words.
    async fn caught_recently(
        store: &Arc<dyn Reads>,
        user: &SignedIn,
        rule: &ApprovalRule,
    ) -> Result<String, AppError> {
        let query = OperationQuery {
            kinds: vec![rule.kind.clone()],
            providers: rule.provider.iter().cloned().collect(),
            limit: PREVIEW_OPERATIONS,
            ..OperationQuery::default()
        };
        let latest = store.list_operations(&user.tenant, &query).await.map_err(unavailable)?;
        let Some(oldest) = latest.last().map(|item| item.created_at) else {
            return Ok(format!(
                "No {} operation is recorded yet, so it would have caught none so far.",
                rule.kind
            ));
        };
        let caught =
            latest.iter().filter(|item| rule.applies_to(&item.kind, &item.provider, item.amount)).count();
        Ok(format!(
            "It would have caught {caught} of the last {} {} operations (since {}).",
            latest.len(),
            rule.kind,
            oldest.format("%Y-%m-%d %H:%M UTC")
        ))
    }

    /// Adds a rule to the admin's tenant's approval policy, or with `preview` only says what it
    /// would have caught.
    pub async fn add_approval_rule(
        admin: &SignedIn,
        form: &RuleForm,
        preview: bool,
    ) -> Result<String, AppError> {
        let ledger = expect_context::<AppState>().ledger;
        let store = ledger.reads();
        let (kinds, providers) = known_kinds_and_providers(&store, admin).await?;
        let rule = rule_of(form, &kinds, &providers)?;
        let sentence = rule.sentence();
        let caught = caught_recently(&store, admin, &rule).await?;
        if preview {
            return Ok(format!("Preview, nothing saved: {sentence}. {caught}"));
        }
        let record = ApprovalRuleRecord {
            id: form_key()[..12].to_owned(),
            rule,
            created_by: admin.name.clone(),
            created_at: now(),
        };
        ledger.add_approval_rule(&admin.tenant, &actor(admin), record).await.map_err(unavailable)?;
        Ok(format!("From now on, {sentence}. {caught}"))
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

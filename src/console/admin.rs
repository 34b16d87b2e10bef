//! The admin pages' people and policy: the tenant's users (with status, source and last
//! sign-in; adding one, and each one's console language; changes to a person are in
//! [`super::people`]), the language its customers are told things in, and its approval policy
//! (adding and removing rules).

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::language::Language;
use crate::domain::people::{UserSource, UserStatus};
use crate::domain::policy::Role;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
    /// The console language the user (or an admin) chose; `None` follows their browser.
    pub language: Option<Language>,
    pub status: UserStatus,
    pub source: UserSource,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// Whether they sign in with a second factor.
    #[serde(default)]
    pub two_factor: bool,
    /// The admin looking at the list.
    pub is_you: bool,
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

/// Adds a user to the admin's tenant, with the console language `language` (a tag; empty follows
/// their browser).
#[server(prefix = "/rpc", endpoint = "add_user")]
pub async fn add_user(
    csrf: String,
    name: String,
    role: String,
    password: String,
    #[server(default)] language: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::add_user(&admin, &name, &role, &password, &language)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// The language the tenant's customers are told things in when a tool's caller names no
/// `locale` (English until an admin chooses another).
#[server(prefix = "/rpc", endpoint = "tenant_language")]
pub async fn tenant_language() -> Result<Language, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::tenant_language(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the language the tenant's customers are told things in (`language`, a tag).
#[server(prefix = "/rpc", endpoint = "set_tenant_language")]
pub async fn set_tenant_language(
    csrf: String,
    #[server(default)] language: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_tenant_language(&admin, &language).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the console language of the tenant's user `name` (`language`, a tag; empty follows their
/// browser). They see it from their next sign-in.
#[server(prefix = "/rpc", endpoint = "set_user_language")]
pub async fn set_user_language(
    csrf: String,
    name: String,
    #[server(default)] language: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_user_language(&admin, &name, &language)
        .await
        .inspect_err(crate::console::guard::set_error_status)
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
        return Ok(crate::console::operation::confirm_first(crate::console::language::current_language()));
    }
    ssr::remove_approval_rule(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, reads, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::connection::{REFUNDS_PROVIDER, SERVICES_PROVIDER};
    use crate::domain::money::{Currency, Money, MoneyError};
    use crate::domain::policy::Role;
    use crate::domain::policy::{ApprovalRule, ANY_KIND};
    use crate::domain::wording::{capitalised, lowercase_first, utc_time};
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::accounts::{AccountError, MIN_PASSWORD_CHARS};
    use crate::server::ledger::requests::form_key;
    use crate::server::store::records::{ApprovalRuleRecord, OperationQuery};
    use crate::server::store::{Reads, StoreError};
    use crate::t;
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

    /// A rule in words: `refund operations at stripe from TWD 1000.00 up need a manager's
    /// approval`, and so in each language, its threshold as written in the form.
    pub fn rule_in_words(rule: &ApprovalRule, language: Language) -> String {
        let kind_scope = if rule.kind == ANY_KIND { "any" } else { "one" };
        let provider_scope = if rule.provider.is_some() { "one" } else { "any" };
        let amount_scope = if rule.threshold.is_some() { "from" } else { "any" };
        let threshold = rule.threshold.map(|threshold| threshold.to_string()).unwrap_or_default();
        t!(
            language,
            "admin-rule-sentence",
            kind_scope = kind_scope,
            kind = rule.kind.as_str(),
            provider_scope = provider_scope,
            provider = rule.provider.as_deref().unwrap_or_default(),
            amount_scope = amount_scope,
            threshold = threshold,
        )
    }

    pub async fn approval_rules(user: &SignedIn) -> Result<PolicyPage, AppError> {
        let language = current_language();
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
                summary: rule_in_words(&record.rule, language),
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
            .map(|u| UserView {
                is_you: u.id == user.user_id,
                two_factor: u.has_two_factor(),
                name: u.name,
                role: u.role,
                created_at: u.created_at,
                language: u.language,
                status: u.status,
                source: u.source,
                last_sign_in_at: u.last_sign_in_at,
            })
            .collect())
    }

    /// The language a form's `language` field names: `None` when it is empty, a refusal in words
    /// when it names none of the console's.
    fn chosen_language(tag: &str, language: Language) -> Result<Option<Language>, AppError> {
        match tag.trim() {
            "" => Ok(None),
            tag => Language::parse(tag)
                .map(Some)
                .ok_or_else(|| AppError::Invalid(t!(language, "admin-language-unknown", tag = tag))),
        }
    }

    pub async fn add_user(
        admin: &SignedIn,
        name: &str,
        role: &str,
        password: &str,
        chosen: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let role = Role::parse(role)
            .ok_or_else(|| AppError::Invalid(t!(language, "admin-user-role-unknown", role = role)))?;
        let chosen = chosen_language(chosen, language)?;
        let name = name.trim();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.add_user(&admin.tenant, name, role, password, &admin.name).await {
            Ok(()) => {}
            Err(AccountError::Store(error)) => return Err(unavailable(error)),
            Err(AccountError::InvalidName) => {
                return Err(AppError::Invalid(t!(language, "admin-user-name-invalid")))
            }
            Err(AccountError::WeakPassword) => {
                return Err(AppError::Invalid(t!(
                    language,
                    "admin-user-password-weak",
                    min = MIN_PASSWORD_CHARS
                )))
            }
            Err(AccountError::NameTaken(taken)) => {
                return Err(AppError::Invalid(t!(language, "admin-user-name-taken", name = taken)))
            }
        }
        let role_words = role.label_in(language);
        let Some(chosen) = chosen else {
            return Ok(t!(language, "admin-user-added", name = name, role = role_words));
        };
        let added = ledger.reads().users_named(name, Some(&admin.tenant)).await.map_err(unavailable)?;
        let Some(user) = added.into_iter().next() else {
            return Err(AppError::NotFound(t!(language, "admin-user-not-found", name = name)));
        };
        ledger
            .set_user_language(&admin.tenant, &user.id, Some(chosen), &admin.name, Role::Admin)
            .await
            .map_err(unavailable)?;
        Ok(t!(language, "admin-user-added-in", name = name, role = role_words, language = chosen.own_name()))
    }

    /// The language the admin's tenant's customers are told things in; English until one is chosen.
    pub async fn tenant_language(admin: &SignedIn) -> Result<Language, AppError> {
        let chosen = reads().tenant_language(&admin.tenant).await.map_err(unavailable)?;
        Ok(chosen.unwrap_or_default())
    }

    pub async fn set_tenant_language(admin: &SignedIn, tag: &str) -> Result<String, AppError> {
        let language = current_language();
        let Some(chosen) = chosen_language(tag, language)? else {
            return Err(AppError::Invalid(t!(language, "admin-language-choose")));
        };
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger.set_tenant_language(&admin.tenant, chosen, &admin.name).await.map_err(unavailable)?;
        Ok(t!(language, "admin-tenant-language-saved", language = chosen.own_name()))
    }

    pub async fn set_user_language(admin: &SignedIn, name: &str, tag: &str) -> Result<String, AppError> {
        let language = current_language();
        let chosen = chosen_language(tag, language)?;
        let name = name.trim();
        let ledger = expect_context::<AppState>().ledger.clone();
        let named = ledger.reads().users_named(name, Some(&admin.tenant)).await.map_err(unavailable)?;
        let Some(user) = named.into_iter().next() else {
            return Err(AppError::NotFound(t!(language, "admin-user-not-found", name = name)));
        };
        match ledger.set_user_language(&admin.tenant, &user.id, chosen, &admin.name, Role::Admin).await {
            Ok(()) => {}
            Err(StoreError::NotFound) => {
                return Err(AppError::NotFound(t!(language, "admin-user-not-found", name = name)))
            }
            Err(error) => return Err(unavailable(error)),
        }
        Ok(match chosen {
            Some(chosen) => {
                t!(language, "admin-user-language-saved", name = name, language = chosen.own_name())
            }
            None => t!(language, "admin-user-language-browser", name = name),
        })
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
        language: Language,
    ) -> Result<ApprovalRule, AppError> {
        let kind = form.kind.trim();
        if kind.is_empty() {
            return Err(AppError::Invalid(t!(language, "admin-rule-kind-missing", kinds = kinds.join(", "))));
        }
        if kind != ANY_KIND && !kinds.iter().any(|known| known == kind) {
            return Err(AppError::Invalid(t!(
                language,
                "admin-rule-kind-unknown",
                kind = kind,
                kinds = kinds.join(", "),
            )));
        }
        let provider = Some(form.provider.trim()).filter(|p| !p.is_empty()).map(str::to_owned);
        if let Some(provider) = provider.as_deref().filter(|p| !providers.iter().any(|known| known == p)) {
            return Err(AppError::Invalid(t!(
                language,
                "admin-rule-provider-unknown",
                provider = provider,
                providers = providers.join(", "),
            )));
        }
        let threshold = match (form.threshold.trim(), form.currency.trim()) {
            ("", "") => None,
            ("", _) => return Err(AppError::Invalid(t!(language, "admin-rule-amount-missing"))),
            (_, "") => return Err(AppError::Invalid(t!(language, "admin-rule-currency-missing"))),
            (amount, code) => {
                let currency = Currency::parse(&code.to_uppercase())
                    .map_err(|error| AppError::Invalid(money_problem(error, false, language)))?;
                Some(Money::parse_major(amount, currency).map_err(|error| {
                    AppError::Invalid(money_problem(error, amount.contains(','), language))
                })?)
            }
        };
        Ok(ApprovalRule { kind: kind.to_owned(), provider, threshold })
    }

    /// What is wrong with a rule's amount or currency, in words; with `comma`, how to write a
    /// comma too.
    fn money_problem(error: MoneyError, comma: bool, language: Language) -> String {
        match error {
            MoneyError::BadCurrency(code) => t!(language, "admin-rule-currency-invalid", code = code),
            MoneyError::BadAmount(amount, currency, example) if comma => t!(
                language,
                "admin-rule-amount-invalid-comma",
                amount = amount,
                currency = currency.to_string(),
                example = example,
            ),
            MoneyError::BadAmount(amount, currency, example) => t!(
                language,
                "admin-rule-amount-invalid",
                amount = amount,
                currency = currency.to_string(),
                example = example,
            ),
            MoneyError::Overflow => t!(language, "admin-rule-amount-too-large"),
            // Reading one amount never mixes currencies.
            other @ MoneyError::CurrencyMismatch(..) => format!("{}.", capitalised(&other.to_string())),
        }
    }

    /// How many of the latest operations of the rule's kind it would have caught, in words.
    async fn caught_recently(
        store: &Arc<dyn Reads>,
        user: &SignedIn,
        rule: &ApprovalRule,
        language: Language,
    ) -> Result<String, AppError> {
        let query = OperationQuery {
            kinds: vec![rule.kind.clone()],
            providers: rule.provider.iter().cloned().collect(),
            limit: PREVIEW_OPERATIONS,
            ..OperationQuery::default()
        };
        let latest = store.list_operations(&user.tenant, &query).await.map_err(unavailable)?;
        let kind_scope = if rule.kind == ANY_KIND { "any" } else { "one" };
        let Some(oldest) = latest.last().map(|item| item.created_at) else {
            return Ok(t!(
                language,
                "admin-rule-caught-none",
                kind_scope = kind_scope,
                kind = rule.kind.as_str()
            ));
        };
        let caught =
            latest.iter().filter(|item| rule.applies_to(&item.kind, &item.provider, item.amount)).count();
        Ok(t!(
            language,
            "admin-rule-caught",
            caught = caught,
            total = latest.len(),
            kind_scope = kind_scope,
            kind = rule.kind.as_str(),
            since = utc_time(oldest, language),
        ))
    }

    /// Adds a rule to the admin's tenant's approval policy, or with `preview` only says what it
    /// would have caught.
    pub async fn add_approval_rule(
        admin: &SignedIn,
        form: &RuleForm,
        preview: bool,
    ) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let store = ledger.reads();
        let (kinds, providers) = known_kinds_and_providers(&store, admin).await?;
        let rule = rule_of(form, &kinds, &providers, language)?;
        let sentence = rule_in_words(&rule, language);
        let caught = caught_recently(&store, admin, &rule, language).await?;
        if preview {
            return Ok(t!(language, "admin-rule-preview", rule = sentence, caught = caught));
        }
        let record = ApprovalRuleRecord {
            id: form_key()[..12].to_owned(),
            rule,
            created_by: admin.name.clone(),
            created_at: now(),
        };
        ledger.add_approval_rule(&admin.tenant, &actor(admin), record).await.map_err(unavailable)?;
        Ok(t!(language, "admin-rule-added", rule = lowercase_first(&sentence), caught = caught))
    }

    pub async fn remove_approval_rule(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.remove_approval_rule(&admin.tenant, &actor(admin), id).await {
            Ok(()) => Ok(t!(language, "admin-rule-removed")),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "admin-rule-not-found", id = id)))
            }
            Err(error) => Err(unavailable(error)),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::domain::money::Currency;

        #[test]
        fn a_rule_reads_in_english_as_it_always_did() {
            let mut rule = ApprovalRule { kind: "refund".into(), provider: None, threshold: None };
            let sentence = |rule: &ApprovalRule| rule_in_words(rule, Language::En);
            assert_eq!(sentence(&rule), "refund operations need a manager's approval");
            rule.threshold = Some(Money::new(100_000, Currency::parse("TWD").unwrap()));
            assert_eq!(sentence(&rule), "refund operations from TWD 1000.00 up need a manager's approval");
            rule.provider = Some("stripe".into());
            assert_eq!(
                sentence(&rule),
                "refund operations at stripe from TWD 1000.00 up need a manager's approval"
            );
            rule.kind = ANY_KIND.into();
            rule.threshold = None;
            assert_eq!(sentence(&rule), "Operations of any kind at stripe need a manager's approval");
            for language in [Language::ZhTw, Language::ZhCn] {
                let words = rule_in_words(&rule, language);
                assert!(words.contains("stripe") && !words.contains("operations"), "{words}");
            }
        }
    }
}

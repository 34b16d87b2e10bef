//! The admin page: the tenant's console users (each one's console language with a form to change
//! it) and a form to add one, the language the tools tell its customers things in, the approval
//! policy (which operations need a manager) with forms to add and remove rules, the tenant's own
//! provider accounts with forms to set and remove them, its customer email templates, and its
//! webhook endpoints with their latest deliveries. Only admins open it; the server checks the
//! role for the page and again for every form.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::admin::{
    approval_rules, tenant_language, users, AddApprovalRule, AddUser, ApprovalRuleView, RemoveApprovalRule,
    SetTenantLanguage, SetUserLanguage,
};
use crate::console::connections::{
    provider_connections, ConnectionView, RemoveProviderConnection, SetProviderConnection,
    SetProviderWebhookSecret,
};
use crate::console::language::current_language;
use crate::console::webhooks::{
    webhook_endpoints, AddWebhookEndpoint, EndpointView, RemoveWebhookEndpoint, ResendWebhook,
};
use crate::domain::connection::ProviderKind;
use crate::domain::language::Language;
use crate::domain::policy::{Role, Section};
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};
use crate::ui::pages::admin_sso::SingleSignOn;
use crate::ui::pages::email_templates::EmailTemplates;

/// Given to `t!` where a sentence has a time, so that each language places it:
/// [`with_time`] puts the [`Time`] there.
const TIME_MARK: &str = "\u{E000}";
/// Around a name given to `t!` that the page shows as code: [`with_code`] puts it in `<code>`.
const CODE_START: char = '\u{E001}';
const CODE_END: char = '\u{E002}';

/// `name`, to be shown as code in a sentence made with `t!` (see [`with_code`]).
fn code(name: &str) -> String {
    format!("{CODE_START}{name}{CODE_END}")
}

/// A sentence made with `t!` with [`TIME_MARK`] for its time: its words with the time in place.
fn with_time(sentence: String, at: DateTime<Utc>) -> AnyView {
    match sentence.split_once(TIME_MARK) {
        Some((before, after)) => view! { {before.to_owned()}<Time at/>{after.to_owned()} }.into_any(),
        None => view! { {sentence}" "<Time at/> }.into_any(),
    }
}

/// A sentence made with `t!` with names given through [`code`]: its words with those in `<code>`.
fn with_code(sentence: String) -> AnyView {
    let mut parts = sentence.split(CODE_START);
    let first = parts.next().unwrap_or_default().to_owned();
    let rest: Vec<(String, String)> = parts
        .map(|part| {
            let (name, after) = part.split_once(CODE_END).unwrap_or((part, ""));
            (name.to_owned(), after.to_owned())
        })
        .collect();
    view! {
        {first}
        {rest.into_iter().map(|(name, after)| view! { <code>{name}</code>{after} }).collect_view()}
    }
    .into_any()
}

/// The options of a console language: the browser's first, then each language in its own words.
fn language_options(chosen: Option<Language>, language: Language) -> impl IntoView {
    view! {
        <option value="" selected=chosen.is_none()>{t!(language, "language-follow-browser")}</option>
        {Language::ALL
            .into_iter()
            .map(|option| view! {
                <option value=option.tag() lang=option.tag() selected=chosen == Some(option)>{option.own_name()}</option>
            })
            .collect_view()}
    }
}

#[component]
pub fn Admin() -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddUser>::new();
    let set_language = ServerAction::<SetUserLanguage>::new();
    let list = Resource::new(|| (), |_| users());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text=Section::Admin.label(language)/>
        <h1>{Section::Admin.label(language)}</h1>
        <Suspense>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                let users_csrf = csrf.clone();
                match list.await {
                    Ok(users) => view! {
                        <ApprovalPolicy/>
                        <ProviderAccounts/>
                        <EmailTemplates/>
                        <Webhooks/>
                        <Languages/>
                        <SingleSignOn/>
                        <section class="panel">
                            <h2>{t!(language, "admin-users-heading")}</h2>
                            <div class="table-wrap">
                            <table class="table" data-testid="users">
                                <thead><tr>
                                    <th scope="col">{t!(language, "admin-user-name")}</th>
                                    <th scope="col">{t!(language, "admin-user-role")}</th>
                                    <th scope="col">{t!(language, "admin-users-added")}</th>
                                    <th scope="col">{t!(language, "admin-user-language")}</th>
                                </tr></thead>
                                <tbody>
                                    {users.into_iter().map(|u| {
                                        let label = t!(language, "admin-user-language-of", name = u.name.clone());
                                        let csrf = users_csrf.clone();
                                        view! {
                                        <tr>
                                            <td>{u.name.clone()}</td>
                                            <td>{u.role.label_in(language)}</td>
                                            <td><Time at=u.created_at/></td>
                                            <td>
                                                <ActionForm action=set_language attr:class="inline-form" attr:data-answer-to="user-language-result"
                                                    attr:data-testid="user-language-form">
                                                    <input type="hidden" name="csrf" value=csrf/>
                                                    <input type="hidden" name="name" value=u.name/>
                                                    <select name="language" aria-label=label>
                                                        {language_options(u.language, language)}
                                                    </select>
                                                    <button type="submit" class="button button-quiet">{t!(language, "language-change")}</button>
                                                </ActionForm>
                                            </td>
                                        </tr>
                                    }.into_any()}).collect_view()}
                                </tbody>
                            </table>
                            </div>
                            <p class="muted small hint">{t!(language, "admin-users-language-hint")}</p>
                            <p class="action-result" role="status" id="user-language-result" data-testid="user-language-result"></p>
                        </section>
                        <section class="panel" data-testid="add-user">
                            <h2>{t!(language, "admin-add-user-heading")}</h2>
                            <ActionForm action=add attr:class="filters" attr:data-answer-to="users-result">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>{t!(language, "admin-user-name")}<input type="text" name="name" required autocomplete="off"/></label>
                                <label>{t!(language, "admin-user-role")}
                                    <select name="role">
                                        {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.label_in(language)}</option> }).collect_view()}
                                    </select>
                                </label>
                                <label>{t!(language, "admin-add-user-password")}<input type="password" name="password" required minlength="10" autocomplete="new-password"/></label>
                                <label>{t!(language, "admin-user-language")}
                                    <select name="language">{language_options(None, language)}</select>
                                </label>
                                <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-add-user-submit")}</button></div>
                            </ActionForm>
                            <p class="action-result" role="status" id="users-result"></p>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The language the tools tell the tenant's customers things in, when the agent's call names no
/// `locale`, with a form to choose it. (Each user's console language is set in the users list.)
#[component]
fn Languages() -> impl IntoView {
    let language = current_language();
    let set = ServerAction::<SetTenantLanguage>::new();
    let chosen = Resource::new(|| (), |_| tenant_language());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="languages">
            <h2>{t!(language, "admin-languages-heading")}</h2>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match chosen.await {
                        Ok(current) => view! {
                            <ActionForm action=set attr:class="filters" attr:data-answer-to="languages-result"
                                attr:data-testid="tenant-language-form">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>{t!(language, "admin-tenant-language")}
                                    <select name="language" data-testid="tenant-language" aria-describedby="tenant-language-hint">
                                        {Language::ALL
                                            .into_iter()
                                            .map(|option| view! {
                                                <option value=option.tag() lang=option.tag() selected=option == current>{option.own_name()}</option>
                                            })
                                            .collect_view()}
                                    </select>
                                </label>
                                <p class="muted small hint" id="tenant-language-hint">
                                    {with_code(t!(language, "admin-tenant-language-hint", locale = code("locale")))}
                                </p>
                                <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-tenant-language-save")}</button></div>
                            </ActionForm>
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="languages-result" data-testid="languages-result"></p>
        </section>
    }
}

#[component]
fn ApprovalPolicy() -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddApprovalRule>::new();
    let remove = ServerAction::<RemoveApprovalRule>::new();
    let rules = Resource::new(|| (), |_| approval_rules());
    let query = use_query_map();
    let removing = Memo::new(move |_| query.with(|q| q.get("remove_rule")));
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="approval-policy">
            <h2>{t!(language, "admin-policy-heading")}</h2>
            <p class="muted">{t!(language, "admin-policy-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match rules.await {
                        Ok(page) => view! {
                            {removing.get_untracked().and_then(|id| page.rules.iter().find(|r| r.id == id).cloned()).map(|rule| view! {
                                <ConfirmRemoval rule remove csrf=csrf.clone()/>
                            })}
                            <RuleList rules=page.rules remove csrf=csrf.clone()/>
                            <AddRuleForm add csrf kinds=page.kinds providers=page.providers currencies=page.currencies/>
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="policy-result" data-testid="policy-result"></p>
        </section>
    }
}

/// The removal of one rule asked about on its own, for a browser that sent the form without
/// confirming (no JavaScript).
#[component]
fn ConfirmRemoval(
    rule: ApprovalRuleView,
    remove: ServerAction<RemoveApprovalRule>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    view! {
        <section class="confirm" id="confirm-remove" data-testid="confirm-panel" aria-labelledby="confirm-remove-heading">
            <h3 id="confirm-remove-heading">{t!(language, "admin-rule-confirm-heading")}</h3>
            <p class="consequence">{t!(language, "admin-rule-remove-consequence", rule = rule.summary.as_str())}</p>
            <ActionForm action=remove attr:class="row-actions" attr:data-answer-to="policy-result">
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="id" value=rule.id/>
                <input type="hidden" name="confirmed" value="yes"/>
                <button type="submit" class="button danger" data-testid="confirm-yes">{t!(language, "admin-rule-confirm-yes")}</button>
                <a class="button secondary" href="/admin">{t!(language, "confirm-go-back")}</a>
            </ActionForm>
        </section>
    }
}

#[component]
fn RuleList(
    rules: Vec<ApprovalRuleView>,
    remove: ServerAction<RemoveApprovalRule>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if rules.is_empty() {
        return view! { <p class="empty-state">{t!(language, "admin-rules-empty")}</p> }.into_any();
    }
    view! {
        <ul class="compact-list" data-testid="approval-rules">
            {rules.into_iter().map(|rule| {
                let csrf = csrf.clone();
                let added = t!(language, "admin-rule-added-by", name = rule.created_by.as_str(), time = TIME_MARK);
                view! {
                <li>
                    {rule.summary.clone()}" "<span class="muted">{with_time(added, rule.created_at)}</span>" "
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="policy-result"
                        attr:data-confirm=t!(language, "admin-rule-remove-consequence", rule = rule.summary.as_str())>
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="id" value=rule.id/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="button danger">{t!(language, "admin-rule-remove")}</button>
                    </ActionForm>
                </li>
                }
                .into_any()
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// The form of a new rule: kinds and providers offered from those that exist, the amount in the
/// currency's major units with a point before the cents, and a preview of what it would have
/// caught before it is saved.
#[component]
fn AddRuleForm(
    add: ServerAction<AddApprovalRule>,
    csrf: String,
    kinds: Vec<String>,
    providers: Vec<String>,
    currencies: Vec<String>,
) -> impl IntoView {
    let language = current_language();
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="policy-result" attr:data-testid="add-rule">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "admin-rule-kind")}
                <select name="kind" required data-testid="rule-kind">
                    <option value="">{t!(language, "admin-rule-kind-choose")}</option>
                    <option value="*">{t!(language, "admin-rule-kind-any")}</option>
                    {kinds.into_iter().map(|kind| view! { <option value=kind.clone()>{kind.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label>{t!(language, "admin-rule-provider")}
                <select name="provider">
                    <option value="">{t!(language, "admin-rule-provider-any")}</option>
                    {providers.into_iter().map(|p| view! { <option value=p.clone()>{p.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label>{t!(language, "admin-rule-threshold")}<input type="text" name="threshold" placeholder="1000.00" size="10" inputmode="decimal" autocomplete="off" aria-describedby="amount-hint"/></label>
            <label>{t!(language, "admin-rule-currency")}<input type="text" name="currency" placeholder="TWD" size="4" maxlength="3" autocomplete="off" list="rule-currencies"/></label>
            <datalist id="rule-currencies">
                {currencies.into_iter().map(|c| view! { <option value=c/> }).collect_view()}
            </datalist>
            <p class="muted small hint" id="amount-hint">{t!(language, "admin-rule-amount-hint")}</p>
            <div class="filter-actions">
                <button type="submit" name="preview" value="yes" class="button secondary" data-answer-only="" data-testid="preview-rule">{t!(language, "admin-rule-preview-button")}</button>
                <button type="submit" class="button">{t!(language, "admin-rule-add")}</button>
            </div>
        </ActionForm>
    }
}

#[component]
fn ProviderAccounts() -> impl IntoView {
    let language = current_language();
    let intro = t!(
        language,
        "admin-accounts-intro",
        stripe = code("stripe"),
        adyen = code("adyen"),
        paypal = code("paypal"),
        orders = code("orders"),
        sandbox = code("sandbox"),
        email = code("email"),
        flag = code("--default-tenant"),
    );
    let set = ServerAction::<SetProviderConnection>::new();
    let remove = ServerAction::<RemoveProviderConnection>::new();
    let set_webhook_secret = ServerAction::<SetProviderWebhookSecret>::new();
    let connections = Resource::new(|| (), |_| provider_connections());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="provider-accounts">
            <h2>{t!(language, "admin-accounts-heading")}</h2>
            <p class="muted">{with_code(intro)}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match connections.await {
                        Ok(connections) => view! {
                            <ConnectionList connections remove set_webhook_secret csrf=csrf.clone()/>
                            <SetConnectionForm set csrf/>
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="accounts-result" data-testid="accounts-result"></p>
        </section>
    }
}

#[component]
fn ConnectionList(
    connections: Vec<ConnectionView>,
    remove: ServerAction<RemoveProviderConnection>,
    set_webhook_secret: ServerAction<SetProviderWebhookSecret>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if connections.is_empty() {
        return view! { <p class="empty-state">{t!(language, "admin-accounts-empty")}</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="connections">
            <thead><tr>
                <th scope="col">{t!(language, "admin-accounts-provider")}</th>
                <th scope="col">{t!(language, "admin-accounts-kind")}</th>
                <th scope="col">{t!(language, "admin-accounts-base-url")}</th>
                <th scope="col">{t!(language, "admin-accounts-col-secret")}</th>
                <th scope="col">{t!(language, "admin-accounts-retention")}</th>
                <th scope="col">{t!(language, "admin-accounts-col-set")}</th>
                <th scope="col">{t!(language, "admin-accounts-col-webhooks")}</th>
                <th scope="col">{t!(language, "admin-accounts-col-actions")}</th>
            </tr></thead>
            <tbody>
                {connections.into_iter().map(|c| {
                    let csrf = csrf.clone();
                    let (webhook_csrf, webhook_name) = (csrf.clone(), c.name.clone());
                    view! {
                        <tr>
                            <td>{c.name.clone()}</td>
                            <td>{c.kind}</td>
                            <td><code class="break">{c.base_url}</code></td>
                            <td>
                                <code>"…"{c.secret_last4}</code>
                                {c.account.map(|account| view! { <div class="muted small">{t!(language, "admin-accounts-account-named")}" "<code>{account}</code></div> })}
                            </td>
                            <td>
                                {if c.serves.is_empty() {
                                    view! { {c.key_retention.unwrap_or_else(|| t!(language, "none"))} }.into_any()
                                } else {
                                    view! {
                                        <ul class="small plain-list" data-testid="serves">
                                            {c.serves.into_iter().map(|served| view! { <li>{served}</li> }).collect_view()}
                                        </ul>
                                    }.into_any()
                                }}
                            </td>
                            <td>{c.updated_by}" "<Time at=c.updated_at/></td>
                            <td data-testid="provider-webhook">
                                {if c.has_webhooks {
                                    view! {
                                        <code class="break">{c.webhook_url}</code>
                                        <p class="muted">{if c.webhook_secret_set {
                                            t!(language, "admin-accounts-webhook-secret-set")
                                        } else {
                                            t!(language, "admin-accounts-webhook-secret-missing")
                                        }}</p>
                                        <ActionForm action=set_webhook_secret attr:class="inline-form" attr:data-answer-to="accounts-result">
                                            <input type="hidden" name="csrf" value=webhook_csrf/>
                                            <input type="hidden" name="name" value=webhook_name/>
                                            <label>{c.webhook_secret_name}<input type="password" name="secret" required autocomplete="off" size="12"/></label>
                                            <button type="submit" class="button button-quiet">{t!(language, "admin-accounts-save-secret")}</button>
                                        </ActionForm>
                                    }.into_any()
                                } else {
                                    view! { <span class="muted">{t!(language, "none")}</span> }.into_any()
                                }}
                            </td>
                            <td>
                                <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="accounts-result">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="name" value=c.name/>
                                    <button type="submit" class="button button-quiet">{t!(language, "admin-accounts-remove")}</button>
                                </ActionForm>
                            </td>
                        </tr>
                    }
                    .into_any()
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
    .into_any()
}

#[component]
fn SetConnectionForm(set: ServerAction<SetProviderConnection>, csrf: String) -> impl IntoView {
    let language = current_language();
    view! {
        <ActionForm action=set attr:class="filters" attr:data-answer-to="accounts-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "admin-accounts-provider")}<input type="text" name="name" required placeholder="stripe" size="10" autocomplete="off"/></label>
            <label>{t!(language, "admin-accounts-kind")}
                <select name="kind">
                    {ProviderKind::ALL.into_iter().map(|k| view! { <option value=k.as_str()>{k.as_str()}</option> }).collect_view()}
                </select>
            </label>
            <label>{t!(language, "admin-accounts-base-url")}<input type="url" name="base_url" required placeholder="https://api.stripe.com" size="28" autocomplete="off"/></label>
            <label>{t!(language, "admin-accounts-secret-key")}<input type="password" name="secret" required autocomplete="off"/></label>
            <label>{t!(language, "admin-accounts-account")}<input type="text" name="account" placeholder=t!(language, "admin-accounts-account-placeholder") size="24" autocomplete="off" aria-describedby="account-hint"/></label>
            <label>{t!(language, "admin-accounts-retention")}<input type="text" name="key_retention" placeholder=t!(language, "admin-accounts-retention-placeholder") size="12" autocomplete="off" aria-describedby="account-hint"/></label>
            <p class="muted small hint" id="account-hint">{t!(language, "admin-accounts-account-hint")}</p>
            <label class="wide-field">{t!(language, "admin-accounts-description")}
                <textarea name="description" rows="6" spellcheck="false" placeholder="{\"format\": \"opledger/http-api/1\", \"operations\": {…}}" aria-describedby="description-hint"></textarea>
            </label>
            <p class="muted small hint" id="description-hint">{t!(language, "admin-accounts-description-hint")}</p>
            <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-accounts-save")}</button></div>
        </ActionForm>
    }
}

#[component]
fn Webhooks() -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddWebhookEndpoint>::new();
    let remove = ServerAction::<RemoveWebhookEndpoint>::new();
    let resend = ServerAction::<ResendWebhook>::new();
    let webhooks = Resource::new(|| (), |_| webhook_endpoints());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="webhooks">
            <h2>{t!(language, "admin-webhooks-heading")}</h2>
            <p class="muted">{t!(language, "admin-webhooks-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match webhooks.await {
                        Ok(page) => view! {
                            <EndpointList endpoints=page.endpoints remove resend csrf=csrf.clone()/>
                            {if page.seals_secrets {
                                view! { <AddEndpointForm add csrf event_types=page.event_types/> }.into_any()
                            } else {
                                let needed = t!(
                                    language,
                                    "admin-webhooks-need-key",
                                    variable = code("OPLEDGER_SECRET_KEY"),
                                    command = code("openssl rand -hex 32"),
                                );
                                view! { <p class="empty-state">{with_code(needed)}</p> }.into_any()
                            }}
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="webhooks-result" data-testid="webhooks-result"></p>
        </section>
    }
}

#[component]
fn EndpointList(
    endpoints: Vec<EndpointView>,
    remove: ServerAction<RemoveWebhookEndpoint>,
    resend: ServerAction<ResendWebhook>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if endpoints.is_empty() {
        return view! { <p class="empty-state">{t!(language, "admin-webhooks-empty")}</p> }.into_any();
    }
    let (event, about, status, attempts, last_answer, created, actions) = (
        t!(language, "admin-delivery-event"),
        t!(language, "admin-delivery-about"),
        t!(language, "admin-delivery-status"),
        t!(language, "admin-delivery-attempts"),
        t!(language, "admin-delivery-last-answer"),
        t!(language, "admin-delivery-created"),
        t!(language, "admin-delivery-actions"),
    );
    endpoints
        .into_iter()
        .map(|endpoint| {
            let csrf_remove = csrf.clone();
            let csrf = csrf.clone();
            let heading = t!(language, "admin-webhook-deliveries-caption", url = endpoint.url.as_str());
            let added = t!(language, "admin-webhook-added-by", name = endpoint.created_by.as_str(), time = TIME_MARK);
            let (event, about, status, attempts, last_answer, created, actions) = (
                event.clone(),
                about.clone(),
                status.clone(),
                attempts.clone(),
                last_answer.clone(),
                created.clone(),
                actions.clone(),
            );
            view! {
                <div class="webhook-endpoint" data-testid="webhook-endpoint">
                    <h3><code>{endpoint.url.clone()}</code></h3>
                    <p class="muted">{events_in_words(&endpoint.event_types, language)}" · "{endpoint.id.clone()}" · "{with_time(added, endpoint.created_at)}</p>
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="webhooks-result"
                        attr:data-confirm=t!(language, "admin-webhook-remove-consequence", url = endpoint.url.as_str())>
                        <input type="hidden" name="csrf" value=csrf_remove/>
                        <input type="hidden" name="id" value=endpoint.id/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="button danger">{t!(language, "admin-webhook-remove")}</button>
                    </ActionForm>
                    {if endpoint.deliveries.is_empty() {
                        view! { <p class="empty-state">{t!(language, "admin-webhook-deliveries-empty")}</p> }.into_any()
                    } else {
                        view! {
                            <div class="table-wrap">
                            <table class="table" data-testid="webhook-deliveries">
                                <caption class="visually-hidden">{heading}</caption>
                                <thead><tr>
                                    <th scope="col">{event.clone()}</th>
                                    <th scope="col">{about.clone()}</th>
                                    <th scope="col">{status.clone()}</th>
                                    <th scope="col">{attempts.clone()}</th>
                                    <th scope="col">{last_answer.clone()}</th>
                                    <th scope="col">{created.clone()}</th>
                                    <th scope="col">{actions.clone()}</th>
                                </tr></thead>
                                <tbody>
                                    {endpoint.deliveries.into_iter().map(|delivery| {
                                        let csrf = csrf.clone();
                                        let state = delivery_status_words(&delivery.status, language);
                                        let state = match delivery.next_attempt_at {
                                            Some(next) => with_time(t!(language, "admin-delivery-next", status = state, time = TIME_MARK), next),
                                            None => view! { {state} }.into_any(),
                                        };
                                        view! {
                                            <tr data-status=delivery.status.clone()>
                                                <td data-label=event.clone()><code>{delivery.event_type}</code></td>
                                                <td data-label=about.clone()>{delivery.about}</td>
                                                <td data-label=status.clone()>{state}</td>
                                                <td data-label=attempts.clone()>{delivery.attempts}</td>
                                                <td data-label=last_answer.clone()>{delivery.last_answer.unwrap_or_default()}</td>
                                                <td data-label=created.clone()><Time at=delivery.created_at/></td>
                                                <td data-label=actions.clone()>
                                                    {(delivery.status != "pending").then(|| view! {
                                                        <ActionForm action=resend attr:class="inline-form" attr:data-answer-to="webhooks-result">
                                                            <input type="hidden" name="csrf" value=csrf/>
                                                            <input type="hidden" name="id" value=delivery.id/>
                                                            <button type="submit" class="button button-quiet">{t!(language, "admin-webhook-resend")}</button>
                                                        </ActionForm>
                                                    })}
                                                </td>
                                            </tr>
                                        }
                                        .into_any()
                                    }).collect_view()}
                                </tbody>
                            </table>
                            </div>
                        }.into_any()
                    }}
                </div>
            }
        })
        .collect_view()
        .into_any()
}

/// The form of a new endpoint: its URL and a checkbox per event type (the uncertain states and
/// partial success checked to begin with).
#[component]
fn AddEndpointForm(
    add: ServerAction<AddWebhookEndpoint>,
    csrf: String,
    event_types: Vec<String>,
) -> impl IntoView {
    const CHECKED_FIRST: [&str; 4] = [
        "operation.pending_approval",
        "operation.unknown",
        "operation.needs_review",
        "order.partial_success",
    ];
    let language = current_language();
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="webhooks-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "admin-webhook-url")}<input type="url" name="url" required placeholder="https://hooks.example.com/opledger" size="34" autocomplete="off"/></label>
            <fieldset class="choices">
                <legend>{t!(language, "admin-webhook-events")}</legend>
                {event_types.into_iter().enumerate().map(|(i, event_type)| {
                    let checked = CHECKED_FIRST.contains(&event_type.as_str());
                    view! {
                        <label class="choice"><input type="checkbox" name=format!("events[{i}]") value=event_type.clone() checked=checked/>{event_type.clone()}</label>
                    }
                    .into_any()
                }).collect_view()}
            </fieldset>
            <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-webhook-add")}</button></div>
        </ActionForm>
    }
}

/// An endpoint's event types as the page lists them: `every event` for `*`.
fn events_in_words(event_types: &[String], language: Language) -> String {
    if event_types.iter().any(|event_type| event_type == crate::domain::webhook::ALL_EVENTS) {
        return t!(language, "admin-webhook-every-event");
    }
    event_types.join(", ")
}

/// A delivery's status in words: `pending`, `delivered`, `failed` (given up).
fn delivery_status_words(status: &str, language: Language) -> String {
    match status {
        "pending" => t!(language, "admin-delivery-pending"),
        "delivered" => t!(language, "admin-delivery-delivered"),
        "failed" => t!(language, "admin-delivery-failed"),
        other => other.to_owned(),
    }
}

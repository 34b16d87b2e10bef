//! The admin page: the tenant's console users and a form to add one, the approval policy (which
//! operations need a manager) with forms to add and remove rules, the tenant's own provider
//! accounts with forms to set and remove them, its customer email templates, and its webhook endpoints with their latest
//! deliveries. Only admins open it; the
//! server checks the role for the page and again for every form.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::admin::{
    approval_rules, users, AddApprovalRule, AddUser, ApprovalRuleView, RemoveApprovalRule,
};
use crate::console::connections::{
    provider_connections, ConnectionView, RemoveProviderConnection, SetProviderConnection,
    SetProviderWebhookSecret,
};
use crate::console::webhooks::{
    webhook_endpoints, AddWebhookEndpoint, EndpointView, RemoveWebhookEndpoint, ResendWebhook,
};
use crate::domain::connection::ProviderKind;
use crate::domain::policy::Role;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};
use crate::ui::pages::email_templates::EmailTemplates;

#[component]
pub fn Admin() -> impl IntoView {
    let add = ServerAction::<AddUser>::new();
    let list = Resource::new(|| (), |_| users());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text="Admin"/>
        <h1>"Admin"</h1>
        <Suspense>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match list.await {
                    Ok(users) => view! {
                        <ApprovalPolicy/>
                        <ProviderAccounts/>
                        <EmailTemplates/>
                        <Webhooks/>
                        <section class="panel">
                            <h2>"Users of this tenant"</h2>
                            <div class="table-wrap">
                            <table class="table" data-testid="users">
                                <thead><tr><th scope="col">"Name"</th><th scope="col">"Role"</th><th scope="col">"Added"</th></tr></thead>
                                <tbody>
                                    {users.into_iter().map(|u| view! {
                                        <tr><td>{u.name}</td><td>{u.role.as_str()}</td><td><Time at=u.created_at/></td></tr>
                                    }.into_any()).collect_view()}
                                </tbody>
                            </table>
                            </div>
                        </section>
                        <section class="panel" data-testid="add-user">
                            <h2>"Add a user"</h2>
                            <ActionForm action=add attr:class="filters" attr:data-answer-to="users-result">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>"Name"<input type="text" name="name" required autocomplete="off"/></label>
                                <label>"Role"
                                    <select name="role">
                                        {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
                                    </select>
                                </label>
                                <label>"Password (10 characters or more)"<input type="password" name="password" required minlength="10" autocomplete="new-password"/></label>
                                <div class="filter-actions"><button type="submit" class="button">"Add user"</button></div>
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

#[component]
fn ApprovalPolicy() -> impl IntoView {
    let add = ServerAction::<AddApprovalRule>::new();
    let remove = ServerAction::<RemoveApprovalRule>::new();
    let rules = Resource::new(|| (), |_| approval_rules());
    let query = use_query_map();
    let removing = Memo::new(move |_| query.with(|q| q.get("remove_rule")));
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="approval-policy">
            <h2>"Approval policy"</h2>
            <p class="muted">"Operations registered from now on that match a rule wait for a manager's approval before they are sent. A threshold applies to amounts in its own currency only."</p>
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
    view! {
        <section class="confirm" id="confirm-remove" data-testid="confirm-panel" aria-labelledby="confirm-remove-heading">
            <h3 id="confirm-remove-heading">"Confirm: remove this rule"</h3>
            <p class="consequence">{format!("The rule “{}” will be removed: operations registered from now on that it caught are sent without a manager's approval.", rule.summary)}</p>
            <ActionForm action=remove attr:class="row-actions" attr:data-answer-to="policy-result">
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="id" value=rule.id/>
                <input type="hidden" name="confirmed" value="yes"/>
                <button type="submit" class="button danger" data-testid="confirm-yes">"Yes, remove it"</button>
                <a class="button secondary" href="/admin">"Go back"</a>
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
    if rules.is_empty() {
        return view! { <p class="empty-state">"No rules: every operation is sent without an approval. Add a rule below."</p> }.into_any();
    }
    view! {
        <ul class="compact-list" data-testid="approval-rules">
            {rules.into_iter().map(|rule| {
                let csrf = csrf.clone();
                view! {
                <li>
                    {rule.summary.clone()}" "<span class="muted">"(added by "{rule.created_by}" "<Time at=rule.created_at/>")"</span>" "
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="policy-result"
                        attr:data-confirm=format!("The rule “{}” will be removed: operations registered from now on that it caught are sent without a manager's approval.", rule.summary)>
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="id" value=rule.id/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="button danger">"Remove…"</button>
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
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="policy-result" attr:data-testid="add-rule">
            <input type="hidden" name="csrf" value=csrf/>
            <label>"Kind"
                <select name="kind" required data-testid="rule-kind">
                    <option value="">"choose…"</option>
                    <option value="*">"any kind"</option>
                    {kinds.into_iter().map(|kind| view! { <option value=kind.clone()>{kind.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Provider"
                <select name="provider">
                    <option value="">"any provider"</option>
                    {providers.into_iter().map(|p| view! { <option value=p.clone()>{p.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label>"From amount (blank for any)"<input type="text" name="threshold" placeholder="1000.00" size="10" inputmode="decimal" autocomplete="off" aria-describedby="amount-hint"/></label>
            <label>"Currency"<input type="text" name="currency" placeholder="TWD" size="4" maxlength="3" autocomplete="off" list="rule-currencies"/></label>
            <datalist id="rule-currencies">
                {currencies.into_iter().map(|c| view! { <option value=c/> }).collect_view()}
            </datalist>
            <p class="muted small hint" id="amount-hint">"In the currency's major unit, a point before the cents: 1000.00, or 1,000.00."</p>
            <div class="filter-actions">
                <button type="submit" name="preview" value="yes" class="button secondary" data-answer-only="" data-testid="preview-rule">"Preview"</button>
                <button type="submit" class="button">"Add rule"</button>
            </div>
        </ActionForm>
    }
}

#[component]
fn ProviderAccounts() -> impl IntoView {
    let set = ServerAction::<SetProviderConnection>::new();
    let remove = ServerAction::<RemoveProviderConnection>::new();
    let set_webhook_secret = ServerAction::<SetProviderWebhookSecret>::new();
    let connections = Resource::new(|| (), |_| provider_connections());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="provider-accounts">
            <h2>"Provider accounts"</h2>
            <p class="muted">"This tenant's own accounts: refunds at "<code>"stripe"</code>", "<code>"adyen"</code>" or "<code>"paypal"</code>", the shop's orders at "<code>"orders"</code>", after-sale tickets and pickups at "<code>"sandbox"</code>", customer emails at "<code>"email"</code>" (kind email or smtp, the account being the sender) and anything a system of the shop's own serves (kind http) go to them. Without one, only a tenant the operator gave the server's own account to (--default-tenant) can send anything. Base URLs must be public https addresses, unless the operator allowed more. A secret is sealed when it is saved and never shown again, only its last four characters."</p>
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
    if connections.is_empty() {
        return view! { <p class="empty-state">"No accounts of its own yet: add one below. Until then this tenant sends nothing, unless the operator gave it the server's own account."</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="connections">
            <thead><tr><th scope="col">"Provider"</th><th scope="col">"Kind"</th><th scope="col">"Base URL"</th><th scope="col">"Secret"</th><th scope="col">"Keys remembered"</th><th scope="col">"Set"</th><th scope="col">"Provider's webhooks"</th><th scope="col">"Actions"</th></tr></thead>
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
                                {c.account.map(|account| view! { <div class="muted small">"account "<code>{account}</code></div> })}
                            </td>
                            <td>
                                {if c.serves.is_empty() {
                                    view! { {c.key_retention.unwrap_or_else(|| "—".into())} }.into_any()
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
                                            "Signing secret set: its events settle accepted operations."
                                        } else {
                                            "No signing secret yet: its events are refused until one is set."
                                        }}</p>
                                        <ActionForm action=set_webhook_secret attr:class="inline-form" attr:data-answer-to="accounts-result">
                                            <input type="hidden" name="csrf" value=webhook_csrf/>
                                            <input type="hidden" name="name" value=webhook_name/>
                                            <label>{c.webhook_secret_name}<input type="password" name="secret" required autocomplete="off" size="12"/></label>
                                            <button type="submit" class="button button-quiet">"Save secret"</button>
                                        </ActionForm>
                                    }.into_any()
                                } else {
                                    view! { <span class="muted">"—"</span> }.into_any()
                                }}
                            </td>
                            <td>
                                <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="accounts-result">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="name" value=c.name/>
                                    <button type="submit" class="button button-quiet">"Remove"</button>
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
    view! {
        <ActionForm action=set attr:class="filters" attr:data-answer-to="accounts-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>"Provider"<input type="text" name="name" required placeholder="stripe" size="10" autocomplete="off"/></label>
            <label>"Kind"
                <select name="kind">
                    {ProviderKind::ALL.into_iter().map(|k| view! { <option value=k.as_str()>{k.as_str()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Base URL"<input type="url" name="base_url" required placeholder="https://api.stripe.com" size="28" autocomplete="off"/></label>
            <label>"Secret key"<input type="password" name="secret" required autocomplete="off"/></label>
            <label>"Account"<input type="text" name="account" placeholder="merchant account or client id" size="24" autocomplete="off" aria-describedby="account-hint"/></label>
            <label>"Keys remembered"<input type="text" name="key_retention" placeholder="the provider's window" size="12" autocomplete="off" aria-describedby="account-hint"/></label>
            <p class="muted small hint" id="account-hint">"Adyen names a merchant account, PayPal the REST app's client id (its secret is the secret key), and email and smtp the sender (Shop <support@shop.example>; smtp's base URL is smtp://host:587 or smtps://host:465); Stripe and the others none. Set how long keys are remembered (7d, 48h) only when the account's contract differs from the provider's window: 24 hours at Stripe, 31 days at Adyen, 45 days at PayPal."</p>
            <label class="wide-field">"API description, for an http connection"
                <textarea name="description" rows="6" spellcheck="false" placeholder="{\"format\": \"opledger/http-api/1\", \"operations\": {…}}" aria-describedby="description-hint"></textarea>
            </label>
            <p class="muted small hint" id="description-hint">"For a system of the shop's own (kind http): the operation kinds it serves, each one's request built from the operation's stored parameters, the idempotency key header it honours if any, and its lookup if any. What it honours decides what opledger does with a lost answer; one that honours neither is sent at most once. The README has an example."</p>
            <div class="filter-actions"><button type="submit" class="button">"Save account"</button></div>
        </ActionForm>
    }
}

#[component]
fn Webhooks() -> impl IntoView {
    let add = ServerAction::<AddWebhookEndpoint>::new();
    let remove = ServerAction::<RemoveWebhookEndpoint>::new();
    let resend = ServerAction::<ResendWebhook>::new();
    let webhooks = Resource::new(|| (), |_| webhook_endpoints());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="webhooks">
            <h2>"Webhooks"</h2>
            <p class="muted">"Other systems (a chat channel, the shop's backend) learn of changes as they happen: each event is signed (Standard Webhooks), sent at least once and in order per operation, and retried with growing waits for hours when the endpoint does not answer 2xx."</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match webhooks.await {
                        Ok(page) => view! {
                            <EndpointList endpoints=page.endpoints remove resend csrf=csrf.clone()/>
                            {if page.seals_secrets {
                                view! { <AddEndpointForm add csrf event_types=page.event_types/> }.into_any()
                            } else {
                                view! { <p class="empty-state">"Endpoints need a signing secret, which the server seals under its key: start it with OPLEDGER_SECRET_KEY set (for example from openssl rand -hex 32) to add one."</p> }.into_any()
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
    if endpoints.is_empty() {
        return view! { <p class="empty-state">"No endpoints: nothing is sent when operations change. Add one below."</p> }.into_any();
    }
    endpoints
        .into_iter()
        .map(|endpoint| {
            let csrf_remove = csrf.clone();
            let csrf = csrf.clone();
            let heading = format!("Recent deliveries to {}", endpoint.url);
            view! {
                <div class="webhook-endpoint" data-testid="webhook-endpoint">
                    <h3><code>{endpoint.url.clone()}</code></h3>
                    <p class="muted">{events_in_words(&endpoint.event_types)}" · "{endpoint.id.clone()}" · added by "{endpoint.created_by}" "<Time at=endpoint.created_at/></p>
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="webhooks-result"
                        attr:data-confirm=format!("The endpoint {} will be removed with what is still to be delivered to it: it gets no more events.", endpoint.url)>
                        <input type="hidden" name="csrf" value=csrf_remove/>
                        <input type="hidden" name="id" value=endpoint.id/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="button danger">"Remove…"</button>
                    </ActionForm>
                    {if endpoint.deliveries.is_empty() {
                        view! { <p class="empty-state">"Nothing sent yet: events come as operations change."</p> }.into_any()
                    } else {
                        view! {
                            <div class="table-wrap">
                            <table class="table" data-testid="webhook-deliveries">
                                <caption class="visually-hidden">{heading}</caption>
                                <thead><tr><th scope="col">"Event"</th><th scope="col">"About"</th><th scope="col">"Status"</th><th scope="col">"Attempts"</th><th scope="col">"Last answer"</th><th scope="col">"Created"</th><th scope="col">"Actions"</th></tr></thead>
                                <tbody>
                                    {endpoint.deliveries.into_iter().map(|delivery| {
                                        let csrf = csrf.clone();
                                        let status = match delivery.next_attempt_at {
                                            Some(next) => view! { {delivery.status.clone()}", next "<Time at=next/> }.into_any(),
                                            None => view! { {delivery.status.clone()} }.into_any(),
                                        };
                                        view! {
                                            <tr data-status=delivery.status.clone()>
                                                <td data-label="Event"><code>{delivery.event_type}</code></td>
                                                <td data-label="About">{delivery.about}</td>
                                                <td data-label="Status">{status}</td>
                                                <td data-label="Attempts">{delivery.attempts}</td>
                                                <td data-label="Last answer">{delivery.last_answer.unwrap_or_default()}</td>
                                                <td data-label="Created"><Time at=delivery.created_at/></td>
                                                <td data-label="Actions">
                                                    {(delivery.status != "pending").then(|| view! {
                                                        <ActionForm action=resend attr:class="inline-form" attr:data-answer-to="webhooks-result">
                                                            <input type="hidden" name="csrf" value=csrf/>
                                                            <input type="hidden" name="id" value=delivery.id/>
                                                            <button type="submit" class="button button-quiet">"Resend"</button>
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
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="webhooks-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>"URL"<input type="url" name="url" required placeholder="https://hooks.example.com/opledger" size="34" autocomplete="off"/></label>
            <fieldset class="choices">
                <legend>"Events"</legend>
                {event_types.into_iter().enumerate().map(|(i, event_type)| {
                    let checked = CHECKED_FIRST.contains(&event_type.as_str());
                    view! {
                        <label class="choice"><input type="checkbox" name=format!("events[{i}]") value=event_type.clone() checked=checked/>{event_type.clone()}</label>
                    }
                    .into_any()
                }).collect_view()}
            </fieldset>
            <div class="filter-actions"><button type="submit" class="button">"Add endpoint"</button></div>
        </ActionForm>
    }
}

/// An endpoint's event types as the page lists them: `every event` for `*`.
fn events_in_words(event_types: &[String]) -> String {
    if event_types.iter().any(|event_type| event_type == crate::domain::webhook::ALL_EVENTS) {
        return "every event".into();
    }
    event_types.join(", ")
}

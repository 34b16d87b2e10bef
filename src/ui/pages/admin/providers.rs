//! The provider accounts page (`/admin/providers`): the tenant's own accounts at its providers,
//! with forms to set and remove them, and its customer email templates.

use leptos::prelude::*;

use super::{code, with_code, AdminFrame, AdminTab};
use crate::console::connections::{
    provider_connections, ConnectionView, RemoveProviderConnection, SetProviderConnection,
    SetProviderWebhookSecret,
};
use crate::console::language::current_language;
use crate::domain::connection::ProviderKind;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, OfferList, Time, ViewerResource};
use crate::ui::pages::email_templates::EmailTemplates;

#[component]
pub fn AdminProviders() -> impl IntoView {
    view! {
        <AdminFrame tab=AdminTab::Providers>
            <ProviderAccounts/>
            <EmailTemplates/>
        </AdminFrame>
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
                                {if !c.offer.is_empty() {
                                    view! {
                                        {c.key_retention.clone().map(|retention| view! { <span>{retention}</span> })}
                                        <OfferList offer=c.offer.clone()/>
                                    }.into_any()
                                } else if c.serves.is_empty() {
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
                                        <p class="muted">{if c.signed_by_own_secret {
                                            t!(language, "admin-accounts-webhook-own-secret")
                                        } else if c.webhook_secret_set {
                                            t!(language, "admin-accounts-webhook-secret-set")
                                        } else {
                                            t!(language, "admin-accounts-webhook-secret-missing")
                                        }}</p>
                                        {(!c.signed_by_own_secret).then(|| view! {
                                            <ActionForm action=set_webhook_secret attr:class="inline-form" attr:data-answer-to="accounts-result">
                                                <input type="hidden" name="csrf" value=webhook_csrf/>
                                                <input type="hidden" name="name" value=webhook_name/>
                                                <label>{c.webhook_secret_name}<input type="password" name="secret" required autocomplete="off" size="12"/></label>
                                                <button type="submit" class="button button-quiet">{t!(language, "admin-accounts-save-secret")}</button>
                                            </ActionForm>
                                        })}
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

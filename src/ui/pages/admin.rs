//! The admin page: the tenant's console users and a form to add one, the approval policy (which
//! operations need a manager) with forms to add and remove rules, and the tenant's own provider
//! accounts with forms to set and remove them. Only admins open it; the
//! server checks the role for the page and again for every form.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::admin::{
    approval_rules, users, AddApprovalRule, AddUser, ApprovalRuleView, RemoveApprovalRule,
};
use crate::console::connections::{
    provider_connections, ConnectionView, RemoveProviderConnection, SetProviderConnection,
};
use crate::domain::connection::ProviderKind;
use crate::domain::policy::Role;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

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
                        <section class="panel">
                            <h2>"Users of this tenant"</h2>
                            <div class="table-wrap">
                            <table class="table" data-testid="users">
                                <thead><tr><th scope="col">"Name"</th><th scope="col">"Role"</th><th scope="col">"Added"</th></tr></thead>
                                <tbody>
                                    {users.into_iter().map(|u| view! {
                                        <tr><td>{u.name}</td><td>{u.role.as_str()}</td><td><Time at=u.created_at/></td></tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                            </div>
                        </section>
                        <section class="panel">
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
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="approval-policy">
            <h2>"Approval policy"</h2>
            <p class="muted">"Operations registered from now on that match a rule wait for a manager's approval before they are sent. A threshold applies to amounts in its own currency only."</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match rules.await {
                        Ok(rules) => view! { <RuleList rules remove csrf=csrf.clone()/><AddRuleForm add csrf/> }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="policy-result" data-testid="policy-result"></p>
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
                    {rule.summary}" "<span class="muted">"(added by "{rule.created_by}" "<Time at=rule.created_at/>")"</span>" "
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="policy-result">
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="id" value=rule.id/>
                        <button type="submit" class="button button-quiet">"Remove"</button>
                    </ActionForm>
                </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn AddRuleForm(add: ServerAction<AddApprovalRule>, csrf: String) -> impl IntoView {
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="policy-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>"Kind"<input type="text" name="kind" required placeholder="refund" size="12" autocomplete="off"/></label>
            <label>"Provider (blank for any)"<input type="text" name="provider" placeholder="stripe" size="10" autocomplete="off"/></label>
            <label>"From amount (blank for any)"<input type="text" name="threshold" placeholder="1000.00" size="10" inputmode="decimal" autocomplete="off"/></label>
            <label>"Currency"<input type="text" name="currency" placeholder="TWD" size="4" maxlength="3" autocomplete="off"/></label>
            <div class="filter-actions"><button type="submit" class="button">"Add rule"</button></div>
        </ActionForm>
    }
}

#[component]
fn ProviderAccounts() -> impl IntoView {
    let set = ServerAction::<SetProviderConnection>::new();
    let remove = ServerAction::<RemoveProviderConnection>::new();
    let connections = Resource::new(|| (), |_| provider_connections());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="provider-accounts">
            <h2>"Provider accounts"</h2>
            <p class="muted">"This tenant's own accounts: refunds at "<code>"stripe"</code>" and after-sale tickets and pickups at "<code>"sandbox"</code>" go to them. Without one, the server's connection is used. A secret is sealed when it is saved and never shown again, only its last four characters."</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match connections.await {
                        Ok(connections) => view! {
                            <ConnectionList connections remove csrf=csrf.clone()/>
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
    csrf: String,
) -> impl IntoView {
    if connections.is_empty() {
        return view! { <p class="empty-state">"No accounts of its own: this tenant uses the server's connections. Add one below."</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="connections">
            <thead><tr><th scope="col">"Provider"</th><th scope="col">"Kind"</th><th scope="col">"Base URL"</th><th scope="col">"Secret"</th><th scope="col">"Set"</th><th scope="col">"Actions"</th></tr></thead>
            <tbody>
                {connections.into_iter().map(|c| {
                    let csrf = csrf.clone();
                    view! {
                        <tr>
                            <td>{c.name.clone()}</td>
                            <td>{c.kind}</td>
                            <td><code>{c.base_url}</code></td>
                            <td><code>"…"{c.secret_last4}</code></td>
                            <td>{c.updated_by}" "<Time at=c.updated_at/></td>
                            <td>
                                <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="accounts-result">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="name" value=c.name/>
                                    <button type="submit" class="button button-quiet">"Remove"</button>
                                </ActionForm>
                            </td>
                        </tr>
                    }
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
            <div class="filter-actions"><button type="submit" class="button">"Save account"</button></div>
        </ActionForm>
    }
}

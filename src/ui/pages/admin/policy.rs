//! The approval policy page (`/admin/policy`): which operations need a manager, with forms to add
//! and remove rules, and the language the tools tell the tenant's customers things in.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::{code, with_code, with_time, AdminFrame, AdminTab, TIME_MARK};
use crate::console::admin::{
    approval_rules, tenant_language, AddApprovalRule, ApprovalRuleView, RemoveApprovalRule, SetTenantLanguage,
};
use crate::console::language::current_language;
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, ViewerResource};

#[component]
pub fn AdminPolicy() -> impl IntoView {
    view! {
        <AdminFrame tab=AdminTab::Policy>
            <ApprovalPolicy/>
            <Languages/>
        </AdminFrame>
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

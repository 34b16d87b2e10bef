//! The approval queue: operations that the tenant's approval policy holds for a manager, the
//! longest waiting first, each with its amount, its requester, its order's other operations, and
//! approve and deny forms (or why this viewer cannot decide: nobody approves their own request).
//! An approved operation is sent at once; an approval that expires before the send puts the
//! operation back here, marked as such.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::approvals::{approvals, PendingApproval};
use crate::console::language::current_language;
use crate::console::operation::Act;
use crate::domain::machine::CommandKind;
use crate::t;
use crate::ui::components::actions::{ActionResult, OperationActions};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time, ViewerResource};

#[component]
pub fn Approvals() -> impl IntoView {
    let act = ServerAction::<Act>::new();
    let queue = Resource::new(|| (), |_| approvals());
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    view! {
        <Title text=t!(language, "section-approvals")/>
        <LivePage/>
        <h1>{t!(language, "section-approvals")}</h1>
        <ActionResult/>
        <Transition>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match queue.await {
                    Ok(page) => {
                        let lede = t!(language, "approvals-lede", valid_for = &page.valid_for);
                        let body = if page.items.is_empty() {
                            view! { <section class="empty-state"><p>{t!(language, "approvals-empty")}</p></section> }.into_any()
                        } else {
                            page.items.into_iter().map(|item| view! {
                                <ApprovalCard item act csrf=csrf.clone() form_key=page.form_key.clone()/>
                            }).collect_view().into_any()
                        };
                        view! { <p class="lede">{lede}</p>{body} }.into_any()
                    }
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn ApprovalCard(
    item: PendingApproval,
    act: ServerAction<Act>,
    csrf: String,
    form_key: String,
) -> impl IntoView {
    let op_id = item.row.op_id.clone();
    let language = current_language();
    view! {
        <article class="approval-card" data-testid="approval" data-op-id=op_id.clone()>
            <div class="approval-head">
                <a class="mono" href=format!("/operations/{op_id}")>{op_id.clone()}</a>
                <span class="amount">{item.row.amount.clone().unwrap_or_else(|| t!(language, "approvals-no-amount"))}</span>
                <span>{t!(language, "approvals-kind-at", kind = &item.row.kind, provider = &item.row.provider)}</span>
                <span class="muted">
                    {t!(language, "approvals-requested-by")}<strong>{item.requested_by.clone()}</strong>
                    " · "{t!(language, "approvals-waiting-since")}<Time at=item.row.updated_at/>
                </span>
                {item.approval_expired_at.map(|at| view! {
                    <span class="badge" data-testid="approval-expired">{t!(language, "approvals-earlier-expired")}<Time at/></span>
                })}
            </div>
            {if item.order_history.is_empty() {
                view! { <p class="muted">{t!(language, "approvals-first-of-order", order = &item.row.subject)}</p> }.into_any()
            } else {
                view! {
                    <p>
                        {t!(language, "approvals-order-so-far")}
                        <a class="mono" href=format!("/orders/{}", item.row.subject)>{item.row.subject.clone()}</a>
                        {t!(language, "approvals-order-so-far-end")}
                    </p>
                    <ul class="compact-list">
                        {item.order_history.into_iter().map(|other| view! {
                            <li><StateBadge state=other.state/>" "<a class="mono" href=format!("/operations/{}", other.op_id)>{other.op_id.clone()}</a>" "{other.amount.unwrap_or_default()}</li>
                        }.into_any()).collect_view()}
                    </ul>
                }.into_any()
            }}
            {match item.refusal {
                Some(refusal) => view! { <p class="refusal" data-testid="refusal">{refusal}</p> }.into_any(),
                None => view! {
                    <OperationActions act actions=vec![CommandKind::Approve, CommandKind::Deny] consequences=Vec::new() csrf form_key op_id=op_id.clone() key_validity=String::new()/>
                }.into_any(),
            }}
        </article>
    }
}

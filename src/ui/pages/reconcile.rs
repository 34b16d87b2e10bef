//! The reconcile desk: every operation whose result is not known yet, the longest waiting first,
//! with why it is there and how long the provider still remembers its key, and the quick actions:
//! query the provider now, and re-send with the same key while the key is valid. The other
//! actions (mark succeeded, mark not happened, escalate) ask for evidence on the operation's page.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::language::current_language;
use crate::console::operation::Act;
use crate::console::reconcile::{reconcile_queue, DeskItem};
use crate::domain::machine::CommandKind;
use crate::t;
use crate::ui::components::actions::{ActionButton, ActionResult};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time, ViewerResource};

#[component]
pub fn Reconcile() -> impl IntoView {
    let act = ServerAction::<Act>::new();
    let queue = Resource::new(|| (), |_| reconcile_queue());
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    view! {
        <Title text=t!(language, "section-reconcile")/>
        <LivePage/>
        <h1>{t!(language, "section-reconcile")}</h1>
        <p class="lede">{t!(language, "reconcile-lede")}</p>
        <ActionResult/>
        <Transition>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match queue.await {
                    Ok(desk) if desk.items.is_empty() => view! {
                        <section class="empty-state"><p>{t!(language, "reconcile-empty")}</p></section>
                    }.into_any(),
                    Ok(desk) => view! { <DeskTable items=desk.items form_key=desk.form_key csrf act/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn DeskTable(items: Vec<DeskItem>, form_key: String, csrf: String, act: ServerAction<Act>) -> impl IntoView {
    let language = current_language();
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="desk">
                <thead><tr>
                    <th scope="col">{t!(language, "reconcile-col-state")}</th><th scope="col">{t!(language, "reconcile-col-op-id")}</th>
                    <th scope="col" class="num">{t!(language, "reconcile-col-amount")}</th>
                    <th scope="col">{t!(language, "reconcile-col-waiting-since")}</th><th scope="col">{t!(language, "reconcile-col-why")}</th>
                    <th scope="col">{t!(language, "reconcile-col-key")}</th><th scope="col">{t!(language, "reconcile-col-actions")}</th>
                </tr></thead>
                <tbody>
                    {items.into_iter().map(|item| {
                        let mut quick: Vec<CommandKind> = item
                            .actions
                            .iter()
                            .copied()
                            .filter(|k| matches!(k, CommandKind::ConfirmFound | CommandKind::ResendSameKey))
                            .collect();
                        quick.sort_by_key(|kind| *kind != CommandKind::ConfirmFound);
                        let more = item.actions.iter().any(|k| !quick.contains(k));
                        let none = item.actions.is_empty();
                        let op_id = item.row.op_id.clone();
                        view! {
                            <tr data-testid="desk-row">
                                <td><StateBadge state=item.row.state/></td>
                                <td><a class="mono" href=format!("/operations/{op_id}")>{op_id.clone()}</a></td>
                                <td class="num">{item.row.amount.clone().unwrap_or_else(|| t!(language, "none"))}</td>
                                <td><Time at=item.row.updated_at/></td>
                                <td>{item.why.clone()}</td>
                                <td>{item.key_validity.clone()}</td>
                                <td><div class="row-actions">
                                    {none.then(|| t!(language, "reconcile-none-for-role"))}
                                    {quick.into_iter().map(|kind| {
                                        let consequence = item.consequences.iter().find(|(k, _)| *k == kind).map(|(_, text)| text.clone());
                                        view! { <ActionButton act csrf=csrf.clone() form_key=form_key.clone() op_id=op_id.clone() kind consequence answer_to=format!("answer-{op_id}")/> }
                                    }).collect_view()}
                                    {more.then(|| view! { <a class="button secondary" href=format!("/operations/{op_id}")>{t!(language, "reconcile-more-actions")}</a> })}
                                </div>
                                <p class="action-result" role="status" id=format!("answer-{op_id}")></p></td>
                            </tr>
                        }
                        .into_any()
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

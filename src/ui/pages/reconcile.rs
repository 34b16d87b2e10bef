//! The reconcile desk: every operation whose result is not known yet, the longest waiting first,
//! with why it is there and how long the provider still remembers its key, and the quick actions:
//! query the provider now, and re-send with the same key while the key is valid. The other
//! actions (mark succeeded, mark not happened, escalate) ask for evidence on the operation's page.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::operation::Act;
use crate::console::reconcile::{reconcile_queue, DeskItem};
use crate::domain::machine::CommandKind;
use crate::ui::components::actions::{ActionButton, ActionResult};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time, ViewerResource};

#[component]
pub fn Reconcile() -> impl IntoView {
    let act = ServerAction::<Act>::new();
    let queue = Resource::new(|| (), |_| reconcile_queue());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text="Reconcile"/>
        <LivePage/>
        <h1>"Reconcile"</h1>
        <p class="lede">"Operations whose result is not known yet, the longest waiting first. Query the provider before anything else: a re-send is safe only while the provider remembers the key."</p>
        <ActionResult/>
        <Transition>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match queue.await {
                    Ok(desk) if desk.items.is_empty() => view! {
                        <section class="empty-state"><p>"Nothing to reconcile: every sent operation has a known result."</p></section>
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
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="desk">
                <thead><tr>
                    <th scope="col">"State"</th><th scope="col">"Op id"</th><th scope="col" class="num">"Amount"</th>
                    <th scope="col">"Waiting since"</th><th scope="col">"Why it is here"</th><th scope="col">"Key"</th><th scope="col">"Actions"</th>
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
                                <td class="num">{item.row.amount.clone().unwrap_or_else(|| "—".into())}</td>
                                <td><Time at=item.row.updated_at/></td>
                                <td>{item.why.clone()}</td>
                                <td>{item.key_validity.clone()}</td>
                                <td><div class="row-actions">
                                    {none.then_some("none for your role")}
                                    {quick.into_iter().map(|kind| {
                                        let consequence = item.consequences.iter().find(|(k, _)| *k == kind).map(|(_, text)| text.clone());
                                        view! { <ActionButton act csrf=csrf.clone() form_key=form_key.clone() op_id=op_id.clone() kind consequence answer_to=format!("answer-{op_id}")/> }
                                    }).collect_view()}
                                    {more.then(|| view! { <a class="button secondary" href=format!("/operations/{op_id}")>"More actions"</a> })}
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

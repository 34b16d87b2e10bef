//! The reconcile desk: every operation whose result is not known yet, the longest waiting first,
//! with why it is there and how long the provider still remembers its key, and the action that
//! settles most of them: query the provider now.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{reconcile_queue, DeskItem, QueryProvider};
use crate::ui::widgets::{ErrorPanel, Loading, StateBadge, Time, ViewerResource};

/// The result of the last query, in words, for screen readers too.
#[component]
pub fn QueryResult(action: ServerAction<QueryProvider>) -> impl IntoView {
    let text = move || match action.value().get() {
        Some(Ok(message)) => message,
        Some(Err(error)) => error.to_string(),
        None if action.pending().get() => "Asking the provider…".to_owned(),
        None => String::new(),
    };
    view! {
        <p class="query-result" class:filled=move || !text().is_empty() role="status" data-testid="query-result">
            {text}
        </p>
    }
}

/// The button that queries the provider for one operation; a plain form without JavaScript.
#[component]
pub fn QueryButton(action: ServerAction<QueryProvider>, op_id: String, csrf: String) -> impl IntoView {
    view! {
        <ActionForm action=action attr:class="inline-form">
            <input type="hidden" name="csrf" value=csrf/>
            <input type="hidden" name="op_id" value=op_id/>
            <button type="submit" class="button" disabled=move || action.pending().get()>"Query the provider now"</button>
        </ActionForm>
    }
}

#[component]
pub fn Reconcile() -> impl IntoView {
    let query = ServerAction::<QueryProvider>::new();
    let queue = Resource::new(move || query.version().get(), |_| reconcile_queue());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text="Reconcile"/>
        <h1>"Reconcile"</h1>
        <p class="lede">"Operations whose result is not known yet, the longest waiting first. Query the provider before anything else: a re-send is safe only while the provider remembers the key."</p>
        <QueryResult action=query/>
        <Transition fallback=Loading>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match queue.await {
                    Ok(items) if items.is_empty() => view! {
                        <section class="empty-state"><p>"Nothing to reconcile: every sent operation has a known result."</p></section>
                    }.into_any(),
                    Ok(items) => view! { <DeskTable items csrf action=query/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn DeskTable(items: Vec<DeskItem>, csrf: String, action: ServerAction<QueryProvider>) -> impl IntoView {
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="desk">
                <thead><tr>
                    <th scope="col">"State"</th><th scope="col">"Op id"</th><th scope="col" class="num">"Amount"</th>
                    <th scope="col">"Waiting since"</th><th scope="col">"Why it is here"</th><th scope="col">"Key"</th><th scope="col">"Action"</th>
                </tr></thead>
                <tbody>
                    {items.into_iter().map(|item| {
                        let csrf = csrf.clone();
                        view! {
                            <tr data-testid="desk-row">
                                <td><StateBadge state=item.row.state/></td>
                                <td><a class="mono" href=format!("/operations/{}", item.row.op_id)>{item.row.op_id.clone()}</a></td>
                                <td class="num">{item.row.amount.clone().unwrap_or_else(|| "—".into())}</td>
                                <td><Time at=item.row.updated_at/></td>
                                <td>{item.why.clone()}</td>
                                <td>{item.key_validity.clone()}</td>
                                <td>{item.can_query.then(|| view! { <QueryButton action op_id=item.row.op_id.clone() csrf/> })}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

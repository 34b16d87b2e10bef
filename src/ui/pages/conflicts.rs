//! Conflicts: requests that reused an op id with other parameters, refused and kept; each shown
//! beside the stored operation with a field-by-field diff.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::conflicts::{conflicts, ConflictView};
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time};

#[component]
pub fn Conflicts() -> impl IntoView {
    let data = Resource::new(|| (), |_| conflicts());
    view! {
        <Title text="Conflicts"/>
        <h1>"Conflicts"</h1>
        <p class="lede">"Requests that reused an op id with other parameters. They were refused and nothing was sent; the stored operation is unchanged."</p>
        <Suspense>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(list) if list.is_empty() => view! {
                        <section class="empty-state"><p>"No conflicting request has been refused. When a caller reuses an op id with other parameters, it appears here."</p></section>
                    }.into_any(),
                    Ok(list) => list.into_iter().map(|conflict| view! { <ConflictCard conflict/> }).collect_view().into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

fn shown(value: &Option<serde_json::Value>) -> String {
    value.as_ref().map_or_else(|| "(absent)".to_owned(), |v| v.to_string())
}

#[component]
fn ConflictCard(conflict: ConflictView) -> impl IntoView {
    view! {
        <section class="panel" data-testid="conflict">
            <h2>
                <a class="mono" href=format!("/operations/{}", conflict.op_id)>{conflict.op_id.clone()}</a>" "
                <StateBadge state=conflict.stored_state/>
            </h2>
            <p class="muted">"Refused request from "{conflict.requested_by.clone()}" at "<Time at=conflict.received_at/></p>
            <table class="table diff" data-testid="diff">
                <thead><tr><th scope="col">"Field"</th><th scope="col">"Stored"</th><th scope="col">"Requested"</th></tr></thead>
                <tbody>
                    {conflict.diff.iter().map(|d| view! {
                        <tr>
                            <td class="mono">{d.field.clone()}</td>
                            <td class="mono diff-old">{shown(&d.stored)}</td>
                            <td class="mono diff-new">{shown(&d.requested)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <div class="grid-2">
                <div><h3>"Stored parameters"</h3><pre class="code">{conflict.stored_params.clone()}</pre></div>
                <div><h3>"Refused request"</h3><pre class="code">{conflict.requested_params.clone()}</pre></div>
            </div>
        </section>
    }
}

//! Conflicts: requests that reused an op id with other parameters, refused and kept; each shown
//! beside the stored operation with a field-by-field diff.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::conflicts::{conflicts, ConflictView};
use crate::domain::money::{Currency, Money};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time};

#[component]
pub fn Conflicts() -> impl IntoView {
    let data = Resource::new(|| (), |_| conflicts());
    view! {
        <Title text="Conflicts"/>
        <LivePage/>
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

/// An amount as the parameters hold it (`{"minor": 10000, "currency": "CNY"}`), in its currency.
fn money_in(value: &serde_json::Value) -> Option<Money> {
    let currency = Currency::parse(value.get("currency")?.as_str()?).ok()?;
    Some(Money::new(value.get("minor")?.as_i64()?, currency))
}

/// A field's value in words: an amount in its currency (CNY 100.00, not `10000`), also when the
/// field is its minor units alone (`amount.minor`, its currency read beside it in `params`), text
/// without quotes, anything else as JSON.
fn shown(value: &Option<serde_json::Value>, field: &str, params: &str) -> String {
    let Some(value) = value else { return "(absent)".to_owned() };
    if let Some(money) = money_in(value) {
        return money.to_string();
    }
    let currency = field.strip_suffix("minor").and_then(|path| {
        let params: serde_json::Value = serde_json::from_str(params).ok()?;
        let at =
            path.split('.').filter(|part| !part.is_empty()).try_fold(&params, |node, part| node.get(part))?;
        Currency::parse(at.get("currency")?.as_str()?).ok()
    });
    match (value, currency) {
        (serde_json::Value::Number(minor), Some(currency)) if minor.as_i64().is_some() => {
            Money::new(minor.as_i64().unwrap_or_default(), currency).to_string()
        }
        (serde_json::Value::String(text), _) => text.clone(),
        (other, _) => other.to_string(),
    }
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
                            <td class="mono diff-old" data-label="Stored">{shown(&d.stored, &d.field, &conflict.stored_params)}</td>
                            <td class="mono diff-new" data-label="Requested">{shown(&d.requested, &d.field, &conflict.requested_params)}</td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
            <details class="disclosure">
                <summary>"Details: both sets of parameters as recorded"</summary>
                <div class="grid-2">
                    <div><h3>"Stored parameters"</h3><pre class="code">{conflict.stored_params.clone()}</pre></div>
                    <div><h3>"Refused request"</h3><pre class="code">{conflict.requested_params.clone()}</pre></div>
                </div>
            </details>
        </section>
    }
}

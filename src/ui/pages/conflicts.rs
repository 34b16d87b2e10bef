//! Conflicts: requests that reused an op id with other parameters, refused and kept; each shown
//! beside the stored operation with a field-by-field diff.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::conflicts::{conflicts, ConflictView};
use crate::console::language::current_language;
use crate::domain::language::Language;
use crate::domain::money::{Currency, Money};
use crate::t;
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{ErrorPanel, StateBadge, Time};

#[component]
pub fn Conflicts() -> impl IntoView {
    let data = Resource::new(|| (), |_| conflicts());
    let language = current_language();
    view! {
        <Title text=t!(language, "section-conflicts")/>
        <LivePage/>
        <h1>{t!(language, "section-conflicts")}</h1>
        <p class="lede">{t!(language, "conflicts-lede")}</p>
        <Suspense>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(list) if list.is_empty() => view! {
                        <section class="empty-state"><p>{t!(language, "conflicts-empty")}</p></section>
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

/// A field's value in words: an amount in its currency as `language` writes it (CNY 100.00, not
/// `10000`), also when the field is its minor units alone (`amount.minor`, its currency read beside
/// it in `params`), text without quotes, anything else as JSON.
fn shown(value: &Option<serde_json::Value>, field: &str, params: &str, language: Language) -> String {
    let Some(value) = value else { return t!(language, "conflicts-absent") };
    if let Some(money) = money_in(value) {
        return language.money(money);
    }
    let currency = field.strip_suffix("minor").and_then(|path| {
        let params: serde_json::Value = serde_json::from_str(params).ok()?;
        let at =
            path.split('.').filter(|part| !part.is_empty()).try_fold(&params, |node, part| node.get(part))?;
        Currency::parse(at.get("currency")?.as_str()?).ok()
    });
    match (value, currency) {
        (serde_json::Value::Number(minor), Some(currency)) if minor.as_i64().is_some() => {
            language.money(Money::new(minor.as_i64().unwrap_or_default(), currency))
        }
        (serde_json::Value::String(text), _) => text.clone(),
        (other, _) => other.to_string(),
    }
}

#[component]
fn ConflictCard(conflict: ConflictView) -> impl IntoView {
    let language = current_language();
    view! {
        <section class="panel" data-testid="conflict">
            <h2>
                <a class="mono" href=format!("/operations/{}", conflict.op_id)>{conflict.op_id.clone()}</a>" "
                <StateBadge state=conflict.stored_state/>
            </h2>
            <p class="muted">{t!(language, "conflicts-refused-from", who = &conflict.requested_by)}<Time at=conflict.received_at/></p>
            <table class="table diff" data-testid="diff">
                <thead><tr>
                    <th scope="col">{t!(language, "conflicts-field")}</th>
                    <th scope="col">{t!(language, "conflicts-stored")}</th>
                    <th scope="col">{t!(language, "conflicts-requested")}</th>
                </tr></thead>
                <tbody>
                    {conflict.diff.iter().map(|d| view! {
                        <tr>
                            <td class="mono">{d.field.clone()}</td>
                            <td class="mono diff-old" data-label=t!(language, "conflicts-stored")>{shown(&d.stored, &d.field, &conflict.stored_params, language)}</td>
                            <td class="mono diff-new" data-label=t!(language, "conflicts-requested")>{shown(&d.requested, &d.field, &conflict.requested_params, language)}</td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
            <details class="disclosure">
                <summary>{t!(language, "conflicts-details")}</summary>
                <div class="grid-2">
                    <div><h3>{t!(language, "conflicts-stored-params")}</h3><pre class="code">{conflict.stored_params.clone()}</pre></div>
                    <div><h3>{t!(language, "conflicts-refused-request")}</h3><pre class="code">{conflict.requested_params.clone()}</pre></div>
                </div>
            </details>
        </section>
    }
}

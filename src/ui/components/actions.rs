//! The forms that change operations: one per action the state machine allows the viewer, each a
//! plain HTML form (it works without JavaScript) carrying the session's CSRF token and an
//! idempotency key made by the server, and the line that says what the last action did.

use leptos::prelude::*;

use leptos_router::hooks::use_query_map;

use crate::console::forms::request_answer;
use crate::console::operation::Act;
use crate::console::orders::Compensate;
use crate::domain::{compensation::Compensation, machine::CommandKind};

/// What the last action did, in words (announced to screen readers too): after a form is sent,
/// the page's `done` parameter names the request whose answer to show; the form helper island
/// writes a refusal here ([`crate::ui::components::form_helper`]).
#[component]
pub fn ActionResult() -> impl IntoView {
    let query = use_query_map();
    let earlier = Resource::new(
        move || query.with(|q| q.get("done")),
        |key| async move {
            match key {
                Some(key) => request_answer(key).await.ok().flatten(),
                None => None,
            }
        },
    );
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let text = earlier.await.unwrap_or_default();
                let filled = !text.is_empty();
                view! {
                    <p class="action-result" class:filled=filled role="status" id="action-result" data-testid="action-result">
                        {text}
                    </p>
                }
            })}
        </Suspense>
    }
}

/// The form key of one action on one operation: unique per page load, operation and action.
pub fn key_for(form_key: &str, op_id: &str, what: &str) -> String {
    format!("{form_key}-{op_id}-{what}")
}

/// The hidden fields every action form carries.
#[component]
fn ActionFields(csrf: String, key: String, op_id: String, kind: CommandKind) -> impl IntoView {
    view! {
        <input type="hidden" name="csrf" value=csrf/>
        <input type="hidden" name="key" value=key/>
        <input type="hidden" name="op_id" value=op_id/>
        <input type="hidden" name="action" value=kind.as_str()/>
    }
}

/// A one-button action (query the provider, re-send with the same key).
#[component]
pub fn ActionButton(
    act: ServerAction<Act>,
    csrf: String,
    form_key: String,
    op_id: String,
    kind: CommandKind,
) -> impl IntoView {
    let key = key_for(&form_key, &op_id, kind.as_str());
    let label = match kind {
        CommandKind::ConfirmFound => "Query the provider now",
        other => other.label(),
    };
    view! {
        <ActionForm action=act attr:class="inline-form">
            <ActionFields csrf key op_id kind/>
            <button type="submit" class="button">{label}</button>
        </ActionForm>
    }
}

/// Every action `actions` offers on one operation, each with the fields it needs.
#[component]
pub fn OperationActions(
    act: ServerAction<Act>,
    actions: Vec<CommandKind>,
    csrf: String,
    form_key: String,
    op_id: String,
    key_validity: String,
) -> impl IntoView {
    let form = move |kind: CommandKind| {
        let (csrf, key, op_id) = (csrf.clone(), key_for(&form_key, &op_id, kind.as_str()), op_id.clone());
        let fields = match kind {
            CommandKind::ConfirmFound => view! {
                <p class="muted">"Looks the operation up at the provider by its op id; found means succeeded."</p>
            }.into_any(),
            CommandKind::ResendSameKey => view! {
                <p class="muted">"Sends the stored parameters again with the same idempotency key; the provider recognises it for "{key_validity.clone()}"."</p>
            }.into_any(),
            CommandKind::Approve => view! {
                <label>"Reason (optional)"<input type="text" name="reason" autocomplete="off"/></label>
            }.into_any(),
            CommandKind::Deny | CommandKind::Cancel => view! {
                <label>"Reason"<input type="text" name="reason" required autocomplete="off"/></label>
            }.into_any(),
            CommandKind::Escalate => view! {
                <label>"Note for the reviewer"<input type="text" name="reason" required autocomplete="off"/></label>
            }.into_any(),
            CommandKind::MarkSucceeded => view! {
                <label>"External id"<input type="text" name="external_id" required autocomplete="off" placeholder="re_…"/></label>
                <label>"Evidence"<input type="text" name="evidence" required autocomplete="off" placeholder="where you saw it"/></label>
            }.into_any(),
            CommandKind::MarkNotHappened => view! {
                <label>"Reason"<input type="text" name="reason" required autocomplete="off"/></label>
                <label>"Evidence"<input type="text" name="evidence" required autocomplete="off" placeholder="what shows nothing happened"/></label>
            }.into_any(),
            CommandKind::ExpireApproval | CommandKind::BeginAttempt | CommandKind::RecordOutcome | CommandKind::MarkUnknown => {
                return None;
            }
        };
        let label = match kind {
            CommandKind::ConfirmFound => "Query the provider now",
            other => other.label(),
        };
        Some(view! {
            <ActionForm action=act attr:class="action-form" attr:data-action=kind.as_str()>
                <ActionFields csrf key op_id kind/>
                {fields}
                <button type="submit" class="button" class:danger=matches!(kind, CommandKind::Deny | CommandKind::MarkNotHappened | CommandKind::Cancel)>{label}</button>
            </ActionForm>
        })
    };
    view! { <div class="action-forms">{actions.into_iter().filter_map(form).collect_view()}</div> }
}

/// The compensations one operation offers, each a form (a re-scheduled pickup asks for its date).
#[component]
pub fn CompensationForms(
    compensate: ServerAction<Compensate>,
    offers: Vec<Compensation>,
    csrf: String,
    form_key: String,
    op_id: String,
) -> impl IntoView {
    offers
        .into_iter()
        .map(|offer| {
            let key = key_for(&form_key, &op_id, offer.as_str());
            let (csrf, op_id) = (csrf.clone(), op_id.clone());
            view! {
                <ActionForm action=compensate attr:class="inline-form" attr:data-compensation=offer.as_str()>
                    <input type="hidden" name="csrf" value=csrf/>
                    <input type="hidden" name="key" value=key/>
                    <input type="hidden" name="op_id" value=op_id/>
                    <input type="hidden" name="compensation" value=offer.as_str()/>
                    {offer.needs_date().then(|| view! { <label>"New date"<input type="date" name="date" required/></label> })}
                    <button type="submit" class="button">{offer.label()}</button>
                </ActionForm>
            }
        })
        .collect_view()
}

//! The forms that change operations: one per action the state machine allows the viewer, each a
//! plain HTML form (it works without JavaScript) carrying the session's CSRF token and an
//! idempotency key made by the server, and the line that says what the last action did. Actions
//! are ranked (the safe look-up first and primary, destructive ones last and red); those that send
//! again or record a person's word carry their consequence in words (`data-confirm`), which the
//! form helper asks about in a dialog, and which the [`ConfirmPanel`] asks about without
//! JavaScript (the server refuses them unconfirmed and sends the browser there).

use leptos::prelude::*;

use leptos_router::hooks::use_query_map;

use crate::console::forms::request_answer;
use crate::console::language::current_language;
use crate::console::operation::{action_label, Act, Offer};
use crate::console::orders::Compensate;
use crate::domain::{compensation::Compensation, machine::CommandKind, wording::lowercase_first};
use crate::t;

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

/// What was typed into a form before it was sent for confirmation, to fill it in again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Typed {
    pub reason: String,
    pub external_id: String,
    pub evidence: String,
    pub date: String,
}

/// Whether an action only records a person's word or stops something: shown red, after the
/// safe ones.
fn destructive(kind: CommandKind) -> bool {
    matches!(kind, CommandKind::Deny | CommandKind::MarkNotHappened | CommandKind::Cancel)
}

/// The order actions are offered in: the safe look-up first, what cannot be undone last.
fn rank(kind: CommandKind) -> u8 {
    match kind {
        CommandKind::ConfirmFound => 0,
        CommandKind::Approve => 1,
        CommandKind::ResendSameKey => 2,
        CommandKind::Escalate => 3,
        CommandKind::MarkSucceeded => 4,
        _ => 5,
    }
}

/// The submit button of an action: primary for the safe look-up, red outline for the
/// destructive ones, `…` when a confirmation follows.
#[component]
fn ActionSubmit(kind: CommandKind, confirms: bool) -> impl IntoView {
    let label = action_label(kind, current_language());
    let label = if confirms { format!("{label}…") } else { label };
    view! {
        <button type="submit" class="button"
            class:primary=kind == CommandKind::ConfirmFound
            class:secondary=kind != CommandKind::ConfirmFound && !destructive(kind)
            class:danger=destructive(kind)>{label}</button>
    }
}

/// A one-button action (query the provider, re-send with the same key); `consequence` asks for a
/// confirmation first; its answer shows in the element `answer_to` names.
#[component]
pub fn ActionButton(
    act: ServerAction<Act>,
    csrf: String,
    form_key: String,
    op_id: String,
    kind: CommandKind,
    consequence: Option<String>,
    answer_to: String,
) -> impl IntoView {
    let key = key_for(&form_key, &op_id, kind.as_str());
    let confirms = consequence.is_some();
    view! {
        <ActionForm action=act attr:class="inline-form" attr:data-confirm=consequence attr:data-answer-to=answer_to>
            <ActionFields csrf key op_id kind/>
            {confirms.then(|| view! { <input type="hidden" name="confirmed" value=""/> })}
            <ActionSubmit kind confirms/>
        </ActionForm>
    }
}

/// The fields one action asks for, filled with what was `typed`; `None` for actions the console
/// does not offer.
fn action_fields(kind: CommandKind, key_validity: &str, typed: &Typed) -> Option<AnyView> {
    let language = current_language();
    Some(match kind {
        CommandKind::ConfirmFound => view! {
            <p class="muted">{t!(language, "operation-query-hint")}</p>
        }.into_any(),
        CommandKind::ResendSameKey => view! {
            <p class="muted">{t!(language, "operation-resend-hint", validity = key_validity)}</p>
        }.into_any(),
        CommandKind::Approve => view! {
            <label>{t!(language, "operation-reason-optional")}<input type="text" name="reason" autocomplete="off" value=typed.reason.clone()/></label>
        }.into_any(),
        CommandKind::Deny | CommandKind::Cancel => view! {
            <label>{t!(language, "operation-reason")}<input type="text" name="reason" required autocomplete="off" value=typed.reason.clone()/></label>
        }.into_any(),
        CommandKind::Escalate => view! {
            <label>{t!(language, "operation-reviewer-note")}<input type="text" name="reason" required autocomplete="off" value=typed.reason.clone()/></label>
        }.into_any(),
        CommandKind::MarkSucceeded => view! {
            <label>{t!(language, "operation-external-id")}<input type="text" name="external_id" required autocomplete="off" placeholder="re_…" value=typed.external_id.clone()/></label>
            <label>{t!(language, "operation-evidence")}<input type="text" name="evidence" required autocomplete="off" placeholder=t!(language, "operation-evidence-seen") value=typed.evidence.clone()/></label>
        }.into_any(),
        CommandKind::MarkNotHappened => view! {
            <label>{t!(language, "operation-reason")}<input type="text" name="reason" required autocomplete="off" value=typed.reason.clone()/></label>
            <label>{t!(language, "operation-evidence")}<input type="text" name="evidence" required autocomplete="off" placeholder=t!(language, "operation-evidence-nothing") value=typed.evidence.clone()/></label>
        }.into_any(),
        CommandKind::ExpireApproval | CommandKind::BeginAttempt | CommandKind::RecordOutcome | CommandKind::MarkUnknown => {
            return None;
        }
    })
}

/// Every action `actions` offers on one operation, each with the fields it needs: the safe ones
/// first; those with a consequence in `consequences` ask for a confirmation before they act.
#[component]
pub fn OperationActions(
    act: ServerAction<Act>,
    mut actions: Vec<CommandKind>,
    consequences: Vec<(CommandKind, String)>,
    csrf: String,
    form_key: String,
    op_id: String,
    key_validity: String,
) -> impl IntoView {
    actions.sort_by_key(|kind| rank(*kind));
    let form = move |kind: CommandKind| {
        let (csrf, key, op_id) = (csrf.clone(), key_for(&form_key, &op_id, kind.as_str()), op_id.clone());
        let fields = action_fields(kind, &key_validity, &Typed::default())?;
        let consequence = consequences.iter().find(|(k, _)| *k == kind).map(|(_, text)| text.clone());
        let confirms = consequence.is_some();
        Some(view! {
            <ActionForm action=act attr:class="action-form" attr:data-action=kind.as_str() attr:data-confirm=consequence>
                <ActionFields csrf key op_id kind/>
                {confirms.then(|| view! { <input type="hidden" name="confirmed" value=""/> })}
                {fields}
                <ActionSubmit kind confirms/>
            </ActionForm>
        })
    };
    view! { <div class="action-forms">{actions.into_iter().filter_map(form).collect_view()}</div> }
}

/// The confirmation of one action or compensation (`asked`, by name) on one operation, for a
/// browser that sent its form without confirming (no JavaScript): what it will do, and the form
/// again with what was typed, to send for real.
#[component]
pub fn ConfirmPanel(
    act: ServerAction<Act>,
    compensate: ServerAction<Compensate>,
    asked: String,
    typed: Typed,
    consequences: Vec<(CommandKind, String)>,
    offers: Vec<Offer>,
    csrf: String,
    form_key: String,
    op_id: String,
    key_validity: String,
) -> impl IntoView {
    let language = current_language();
    let back = format!("/operations/{op_id}");
    let action =
        CommandKind::parse(&asked).and_then(|kind| consequences.iter().find(|(k, _)| *k == kind).cloned());
    let offer = Compensation::parse(&asked).and_then(|c| offers.into_iter().find(|o| o.compensation == c));
    let body = match (action, offer) {
        (Some((kind, consequence)), _) => {
            let key = key_for(&form_key, &op_id, kind.as_str());
            let fields = action_fields(kind, &key_validity, &typed);
            let label = action_label(kind, language);
            view! {
                <h2 id="confirm-heading">{t!(language, "operation-confirm-heading", action = &label)}</h2>
                <p class="consequence" data-testid="consequence">{consequence}</p>
                <ActionForm action=act attr:class="action-form">
                    <ActionFields csrf key op_id kind/>
                    <input type="hidden" name="confirmed" value="yes"/>
                    {fields}
                    <div class="row-actions">
                        <button type="submit" class="button" class:danger=destructive(kind) data-testid="confirm-yes">{t!(language, "confirm-yes", action = lowercase_first(&label))}</button>
                        <a class="button secondary" href=back>{t!(language, "confirm-go-back")}</a>
                    </div>
                </ActionForm>
            }.into_any()
        }
        (None, Some(offer)) => view! {
            <h2 id="confirm-heading">{t!(language, "operation-confirm-heading", action = offer.compensation.label_in(language))}</h2>
            <p class="consequence" data-testid="consequence">{offer.consequence.clone()}</p>
            <CompensationForm compensate offer csrf form_key op_id confirmed=true date=typed.date/>
            <p><a class="button secondary" href=back>{t!(language, "confirm-go-back")}</a></p>
        }.into_any(),
        (None, None) => view! {
            <h2 id="confirm-heading">{t!(language, "operation-nothing-to-confirm")}</h2>
            <p>{t!(language, "operation-nothing-to-confirm-text")}</p>
        }.into_any(),
    };
    view! { <section class="panel confirm" id="confirm" aria-labelledby="confirm-heading" data-testid="confirm-panel">{body}</section> }
}

/// One compensation as a form (a re-scheduled pickup asks for its date), confirmed first unless
/// `confirmed`.
#[component]
fn CompensationForm(
    compensate: ServerAction<Compensate>,
    offer: Offer,
    csrf: String,
    form_key: String,
    op_id: String,
    confirmed: bool,
    #[prop(optional)] date: String,
    #[prop(optional_no_strip)] answer_to: Option<String>,
) -> impl IntoView {
    let language = current_language();
    let compensation = offer.compensation;
    let key = key_for(&form_key, &op_id, compensation.as_str());
    let words = compensation.label_in(language);
    let label = if confirmed {
        t!(language, "confirm-yes", action = lowercase_first(&words))
    } else {
        format!("{words}…")
    };
    view! {
        <ActionForm action=compensate attr:class="inline-form" attr:data-compensation=compensation.as_str()
            attr:data-confirm=(!confirmed).then(|| offer.consequence.clone()) attr:data-answer-to=answer_to>
            <input type="hidden" name="csrf" value=csrf/>
            <input type="hidden" name="key" value=key/>
            <input type="hidden" name="op_id" value=op_id/>
            <input type="hidden" name="compensation" value=compensation.as_str()/>
            <input type="hidden" name="confirmed" value=if confirmed { "yes" } else { "" }/>
            {compensation.needs_date().then(|| view! { <label>{t!(language, "operation-new-date")}<input type="date" name="date" required value=date/></label> })}
            <button type="submit" class="button secondary" data-testid=confirmed.then_some("confirm-yes")>{label}</button>
        </ActionForm>
    }
}

/// The compensations one operation offers, each a form that asks for a confirmation first; their
/// answers show in the element `answer_to` names, when given.
#[component]
pub fn CompensationForms(
    compensate: ServerAction<Compensate>,
    offers: Vec<Offer>,
    csrf: String,
    form_key: String,
    op_id: String,
    #[prop(optional)] answer_to: Option<String>,
) -> impl IntoView {
    offers
        .into_iter()
        .map(|offer| {
            view! {
                <CompensationForm compensate offer csrf=csrf.clone() form_key=form_key.clone() op_id=op_id.clone() confirmed=false answer_to=answer_to.clone()/>
            }
        })
        .collect_view()
}

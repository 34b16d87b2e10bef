//! One operation: its canonical parameters and fingerprint, the state timeline, every attempt,
//! the external ids with links to the provider's dashboard, how long the downstream key stays
//! valid, approvals, linked compensations, its audit trail, and the actions its state allows the
//! viewer.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::console::language::current_language;
use crate::console::operation::{
    operation, Act, AuditView, LinkedOperation, OperationDetail, RetryAfterFailure, RETRY,
};
use crate::console::orders::Compensate;
use crate::domain::{policy::Role, wording::attempt_outcome};
use crate::t;
use crate::ui::components::actions::{
    key_for, ActionResult, CompensationForms, ConfirmPanel, OperationActions, Typed,
};
use crate::ui::components::desk::{HoldingPanel, NotesPanel};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{
    slot, state_words, with_views, ErrorPanel, OfferList, StateBadge, Time, ViewerResource,
};

#[component]
pub fn OperationPage() -> impl IntoView {
    let params = use_params_map();
    let op_id = move || params.with(|p| p.get("op_id").unwrap_or_default());
    let act = ServerAction::<Act>::new();
    let compensate = ServerAction::<Compensate>::new();
    let retry = ServerAction::<RetryAfterFailure>::new();
    let detail = Resource::new(op_id, operation);
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    view! {
        <Title text=op_id()/>
        <LivePage/>
        <p class="breadcrumb"><a href="/operations">{t!(language, "section-operations")}</a>" / "</p>
        <Transition>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match detail.await {
                    Ok(detail) => view! { <Detail detail act compensate retry csrf/> }.into_any(),
                    Err(error) => view! { <h1 class="mono">{op_id()}</h1><ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

fn linked(operation: &LinkedOperation) -> impl IntoView {
    view! {
        <li>
            <StateBadge state=operation.state/>" "
            <a class="mono" href=format!("/operations/{}", operation.op_id)>{operation.op_id.clone()}</a>
            " ("{operation.kind.clone()}")"
        </li>
    }
}

/// The operation's page below its breadcrumb. Each section is its own type-erased view, so that the
/// page's view type stays shallow enough for the release build of the browser bundle.
#[component]
fn Detail(
    detail: OperationDetail,
    act: ServerAction<Act>,
    compensate: ServerAction<Compensate>,
    retry: ServerAction<RetryAfterFailure>,
    csrf: String,
) -> impl IntoView {
    let query = use_query_map();
    let asked = query.with_untracked(|q| q.get("confirm"));
    let typed = query.with_untracked(|q| Typed {
        reason: q.get("reason").unwrap_or_default(),
        external_id: q.get("external_id").unwrap_or_default(),
        evidence: q.get("evidence").unwrap_or_default(),
        date: q.get("date").unwrap_or_default(),
    });
    let retry_asked = asked.as_deref() == Some(RETRY);
    let retry_panel = retry_panel(&detail, retry, &csrf, retry_asked.then(|| typed.reason.clone()));
    let confirm = asked
        .filter(|asked| asked != RETRY)
        .map(|asked| confirm_panel(&detail, act, compensate, asked, typed, csrf.clone()));
    view! {
        {page_head(&detail)}
        {detail.archived.is_none().then(|| view! {
            <HoldingPanel holding=detail.holding.clone() csrf=csrf.clone() form_key=detail.form_key.clone()/>
        })}
        {confirm}
        {retry_panel}
        {actions_panel(&detail, act, compensate, &csrf)}
        <NotesPanel notes=detail.notes.clone() csrf=csrf.clone() form_key=detail.form_key.clone()/>
        {params_and_timeline(&detail)}
        {attempts_panel(&detail)}
        {external_and_approval(&detail)}
        {audit_trail(&detail)}
    }
}

/// The op id, its state, how it stands in words and the facts it was recorded with.
fn page_head(detail: &OperationDetail) -> AnyView {
    let language = current_language();
    let row = &detail.row;
    let until = detail.key_expires_at.map(|at| {
        with_views(t!(language, "operation-key-until", time = slot(0)), vec![view! { <Time at/> }.into_any()])
    });
    view! {
        <div class="page-head">
            <h1 class="mono" data-testid="op-id">{row.op_id.clone()}</h1>
            <StateBadge state=row.state/>
            {detail.cancel_requested.then(|| view! { <span class="badge">{t!(language, "operation-stop-requested")}</span> })}
            {detail.archived.is_some().then(|| view! { <span class="badge">{t!(language, "operation-archived-badge")}</span> })}
        </div>
        {detail.archived.clone().map(|from| {
            let words = t!(language, "operation-archived", closed = slot(0), file = slot(1));
            let parts = vec![view! { <Time at=from.closed_at/> }.into_any(), view! { <code>{from.object_path}</code> }.into_any()];
            view! { <p class="lede break" data-testid="archived">{with_views(words, parts)}</p> }
        })}
        <section class="told" data-testid="told">
            <p class="story-status">{detail.told.status.clone()}</p>
            <p class="say"><span class="say-label">{t!(language, "operation-tell-customer")}</span><q data-testid="say">{detail.told.for_customer.clone()}</q></p>
        </section>
        <dl class="facts">
            <div><dt>{t!(language, "operation-kind")}</dt><dd>{row.kind.clone()}</dd></div>
            <div><dt>{t!(language, "operation-order")}</dt><dd><a class="mono" href=format!("/orders/{}", row.subject)>{row.subject.clone()}</a></dd></div>
            <div><dt>{t!(language, "operation-provider")}</dt><dd>{row.provider.clone()}</dd></div>
            <div><dt>{t!(language, "operation-amount")}</dt><dd>{row.amount.clone().unwrap_or_else(|| t!(language, "none"))}</dd></div>
            <div><dt>{t!(language, "operation-requested-by")}</dt><dd>{detail.requested_by.clone()}</dd></div>
            <div class="fact-wide"><dt>{t!(language, "operation-sent-by")}</dt><dd data-testid="sender">{detail.sender.clone()}</dd></div>
            {detail.settling.clone().map(|settling| view! { <div class="fact-wide"><dt>{t!(language, "operation-settled-by")}</dt><dd data-testid="settling">{settling}</dd></div> })}
            {(!detail.offer.is_empty()).then(|| view! { <div class="fact-wide"><dt>{t!(language, "operation-provider-offers")}</dt><dd><OfferList offer=detail.offer.clone()/></dd></div> })}
            <div><dt>{t!(language, "operation-created")}</dt><dd><Time at=row.created_at/></dd></div>
            <div><dt>{t!(language, "operation-idempotency-key")}</dt><dd class="mono">{detail.idempotency_key.clone()}</dd></div>
            <div><dt>{t!(language, "operation-key-validity")}</dt><dd data-testid="key-validity">{detail.key_validity.clone()}
                {until}</dd></div>
            {detail.last_failure.clone().map(|failure| view! { <div><dt>{t!(language, "operation-last-failure")}</dt><dd>{attempt_outcome(&failure, language)}</dd></div> })}
            {(detail.conflicts > 0).then(|| view! {
                <div><dt>{t!(language, "operation-conflicting")}</dt><dd><a href="/conflicts">{t!(language, "operation-conflicts-refused", count = detail.conflicts)}</a></dd></div>
            })}
        </dl>

    }
    .into_any()
}

/// For an operation that failed at the provider: making it again on purpose, with a reason, as a
/// new operation linked to this one. Asked to confirm in a dialog, or, without JavaScript, on this
/// page again (`confirming` holds the reason typed).
fn retry_panel(
    detail: &OperationDetail,
    retry: ServerAction<RetryAfterFailure>,
    csrf: &str,
    confirming: Option<String>,
) -> Option<AnyView> {
    let consequence = detail.retry.clone()?;
    let language = current_language();
    let op_id = detail.row.op_id.clone();
    let key = key_for(&detail.form_key, &op_id, RETRY);
    let confirmed = confirming.is_some();
    let reason = confirming.unwrap_or_default();
    let csrf = csrf.to_owned();
    Some(
        view! {
            <section class="panel" class:confirm=confirmed id=confirmed.then_some("confirm") data-testid="retry">
                <h2>{if confirmed { t!(language, "operation-retry-confirm-heading") } else { t!(language, "operation-retry-heading") }}</h2>
                <p class="consequence">{consequence.clone()}</p>
                <ActionForm action=retry attr:class="action-form" attr:data-confirm=(!confirmed).then_some(consequence)>
                    <input type="hidden" name="csrf" value=csrf/>
                    <input type="hidden" name="key" value=key/>
                    <input type="hidden" name="op_id" value=op_id/>
                    <input type="hidden" name="confirmed" value=if confirmed { "yes" } else { "" }/>
                    <label>{t!(language, "operation-reason")}<input type="text" name="reason" required value=reason size="40" autocomplete="off"
                        placeholder=t!(language, "operation-retry-placeholder")/></label>
                    <button type="submit" class="button" data-testid=confirmed.then_some("confirm-yes")>
                        {if confirmed { t!(language, "operation-retry-yes") } else { t!(language, "operation-retry-button") }}
                    </button>
                </ActionForm>
            </section>
        }
        .into_any(),
    )
}

/// The confirmation asked for a risky action, with its consequences.
fn confirm_panel(
    detail: &OperationDetail,
    act: ServerAction<Act>,
    compensate: ServerAction<Compensate>,
    asked: String,
    typed: Typed,
    csrf: String,
) -> AnyView {
    let op_id = detail.row.op_id.clone();
    view! {
            <ConfirmPanel act compensate asked typed consequences=detail.consequences.clone() offers=detail.compensations.clone()
                csrf=csrf.clone() form_key=detail.form_key.clone() op_id=op_id.clone() key_validity=detail.key_validity.clone()/>
    }
    .into_any()
}

/// The actions the state machine allows the viewer, and the compensations on offer.
fn actions_panel(
    detail: &OperationDetail,
    act: ServerAction<Act>,
    compensate: ServerAction<Compensate>,
    csrf: &str,
) -> AnyView {
    let language = current_language();
    let op_id = detail.row.op_id.clone();
    let csrf = csrf.to_owned();
    view! {
        <section class="panel">
            <h2>{t!(language, "operation-actions-heading")}</h2>
            <ActionResult/>
            {if detail.actions.is_empty() {
                view! { <p class="muted">{t!(language, "operation-actions-none")}</p> }.into_any()
            } else {
                view! {
                    <OperationActions act actions=detail.actions.clone() consequences=detail.consequences.clone() csrf=csrf.clone() form_key=detail.form_key.clone()
                        op_id=op_id.clone() key_validity=detail.key_validity.clone()/>
                }.into_any()
            }}
            {(!detail.compensations.is_empty()).then(|| view! {
                <h3>{t!(language, "operation-compensate")}</h3>
                <p class="muted">{t!(language, "operation-compensate-hint")}</p>
                <div class="actions">
                    <CompensationForms compensate offers=detail.compensations.clone() csrf=csrf.clone() form_key=detail.form_key.clone() op_id=op_id.clone()/>
                </div>
            })}
        </section>

    }
    .into_any()
}

/// The canonical parameters and fingerprint beside the state timeline.
fn params_and_timeline(detail: &OperationDetail) -> AnyView {
    let language = current_language();
    let row = &detail.row;
    let timeline: Vec<AuditView> =
        detail.audit.iter().filter(|a| a.to_state.is_some() && a.from_state != a.to_state).cloned().collect();
    view! {
        <div class="grid-2">
            <section class="panel">
                <h2>{t!(language, "operation-params")}</h2>
                <pre class="code" data-testid="params">{detail.params.clone()}</pre>
                <p class="muted">{t!(language, "operation-fingerprint")}" "<code class="break">{detail.fingerprint.clone()}</code></p>
            </section>
            <section class="panel">
                <h2>{t!(language, "operation-timeline")}</h2>
                <ol class="timeline">
                    <li><span class="muted">{t!(language, "operation-recorded")}</span>" · "<Time at=row.created_at/></li>
                    {timeline.into_iter().map(|event| view! {
                        <li>
                            {event.from_state.as_deref().map(|s| state_words(s, language)).unwrap_or_default()}" → "
                            <strong>{event.to_state.as_deref().map(|s| state_words(s, language)).unwrap_or_default()}</strong>
                            " · "<Time at=event.at/>" · "{event.actor.clone()}
                            {event.reason.clone().map(|r| view! { <div class="muted">{r}</div> })}
                        </li>
                    }.into_any()).collect_view()}
                </ol>
            </section>
        </div>

    }
    .into_any()
}

/// Every attempt, with its outcome and the key it was sent under.
fn attempts_panel(detail: &OperationDetail) -> AnyView {
    let language = current_language();
    view! {
        <section class="panel">
            <h2>{t!(language, "operation-attempts")}</h2>
            {if detail.attempts.is_empty() {
                view! { <p class="muted">{t!(language, "operation-attempts-none")}</p> }.into_any()
            } else {
                view! {
                    <div class="table-wrap">
                        <table class="table" data-testid="attempts">
                            <thead><tr>
                                <th scope="col" class="num">"#"</th><th scope="col">{t!(language, "operation-started")}</th>
                                <th scope="col">{t!(language, "operation-in-flight-until")}</th><th scope="col" class="num">{t!(language, "operation-duration")}</th>
                                <th scope="col">{t!(language, "operation-outcome")}</th><th scope="col" class="num">"HTTP"</th><th scope="col">{t!(language, "operation-key-sent")}</th>
                                <th scope="col">{t!(language, "operation-sent-by")}</th><th scope="col">{t!(language, "operation-error")}</th>
                            </tr></thead>
                            <tbody>
                                {detail.attempts.iter().map(|a| view! {
                                    <tr>
                                        <td class="num">{a.number}</td>
                                        <td><Time at=a.started_at/></td>
                                        <td data-testid="send-deadline">{a.send_deadline.map(|at| view! { <Time at/> })}</td>
                                        <td class="num">{a.duration_ms.map_or_else(|| t!(language, "none"), |ms| t!(language, "operation-milliseconds", ms = ms))}</td>
                                        <td data-label=t!(language, "operation-outcome")>{attempt_outcome(&a.outcome, language)}</td>
                                        <td class="num">{a.http_status.map_or_else(|| t!(language, "none"), |s| s.to_string())}</td>
                                        <td class="mono">{a.idempotency_key.clone()}</td>
                                        <td>{a.sent_by.clone()}</td>
                                        <td>{a.error.clone().unwrap_or_default()}</td>
                                    </tr>
                                }.into_any()).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any()
            }}
        </section>

    }
    .into_any()
}

/// The external ids, the approval and the linked compensations.
fn external_and_approval(detail: &OperationDetail) -> AnyView {
    let language = current_language();
    view! {
        <div class="grid-2">
            <section class="panel">
                <h2>{t!(language, "operation-external-ids")}</h2>
                {if detail.external.is_empty() {
                    view! { <p class="muted">{t!(language, "operation-external-none")}</p> }.into_any()
                } else {
                    view! {
                        <ul class="compact-list" data-testid="external-ids">
                            {detail.external.iter().map(|e| view! {
                                <li>
                                    {match e.link.clone() {
                                        Some(link) => view! { <a class="mono" href=link rel="noreferrer" target="_blank">{e.external_id.clone()}</a> }.into_any(),
                                        None => view! { <span class="mono">{e.external_id.clone()}</span> }.into_any(),
                                    }}
                                    " "<span class="muted">{format!("{} {}", e.provider, e.ref_type)}" · "<Time at=e.recorded_at/></span>
                                </li>
                            }.into_any()).collect_view()}
                        </ul>
                    }.into_any()
                }}
            </section>
            <section class="panel">
                <h2>{t!(language, "operation-approval-heading")}</h2>
                {match detail.approval.clone() {
                    Some(approval) => {
                        let sentence = if approval.matches_params {
                            t!(language, "operation-approved", approver = slot(0), granted = slot(1), expires = slot(2))
                        } else {
                            t!(language, "operation-approved-other-params", approver = slot(0), granted = slot(1), expires = slot(2))
                        };
                        let views = vec![
                            view! { <strong>{approval.approver}</strong> }.into_any(),
                            view! { <Time at=approval.granted_at/> }.into_any(),
                            view! { <Time at=approval.expires_at/> }.into_any(),
                        ];
                        view! { <p>{with_views(sentence, views)}</p> }.into_any()
                    }
                    None => view! { <p class="muted">{t!(language, "operation-approval-none")}</p> }.into_any(),
                }}
                {detail.compensates.as_ref().map(|parent| view! { <p>{t!(language, "operation-compensates")}</p><ul class="compact-list">{linked(parent)}</ul> })}
                {detail.retry_of.as_ref().map(|failed| view! { <p>{t!(language, "operation-retry-of")}</p><ul class="compact-list">{linked(failed)}</ul> })}
                {detail.retried_by.as_ref().map(|retry| view! { <p>{t!(language, "operation-retried-by")}</p><ul class="compact-list" data-testid="retried-by">{linked(retry)}</ul> })}
                {(!detail.compensated_by.is_empty()).then(|| view! {
                    <p>{t!(language, "operation-compensated-by")}</p>
                    <ul class="compact-list">{detail.compensated_by.iter().map(linked).collect_view()}</ul>
                })}
            </section>
        </div>

    }
    .into_any()
}

/// The audit trail with its evidence behind "Details".
fn audit_trail(detail: &OperationDetail) -> AnyView {
    let language = current_language();
    view! {
        <section class="panel">
            <h2>{t!(language, "operation-audit")}</h2>
            <div class="table-wrap">
                <table class="table" data-testid="audit">
                    <thead><tr>
                        <th scope="col" class="num">{t!(language, "operation-audit-seq")}</th><th scope="col">{t!(language, "operation-audit-at")}</th>
                        <th scope="col">{t!(language, "operation-audit-actor")}</th><th scope="col">{t!(language, "operation-audit-action")}</th>
                        <th scope="col">{t!(language, "operation-audit-change")}</th><th scope="col">{t!(language, "operation-audit-reason")}</th>
                    </tr></thead>
                    <tbody>
                        {detail.audit.iter().map(|a| view! {
                            <tr>
                                <td class="num">{match a.seq { Some(seq) => seq.to_string(), None => t!(language, "operation-audit-sealing") }}</td>
                                <td><Time at=a.at/></td>
                                <td>{t!(language, "operation-audit-actor-role", actor = &a.actor,
                                    role = Role::parse(&a.role).map_or_else(|| a.role.clone(), |role| role.label_in(language)))}</td>
                                <td>{a.action.replace('_', " ")}</td>
                                <td>{match (&a.from_state, &a.to_state) {
                                    (Some(from), Some(to)) if from != to => {
                                        format!("{} → {}", state_words(from, language), state_words(to, language))
                                    }
                                    (None, Some(to)) => format!("→ {}", state_words(to, language)),
                                    _ => String::new(),
                                }}</td>
                                <td>
                                    {a.reason.clone().unwrap_or_default()}
                                    {(!matches!(a.evidence.as_str(), "" | "{}" | "null")).then(|| view! {
                                        <details class="evidence"><summary>{t!(language, "operation-audit-details")}</summary><code class="break">{a.evidence.clone()}</code></details>
                                    })}
                                </td>
                            </tr>
                        }.into_any()).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
    .into_any()
}

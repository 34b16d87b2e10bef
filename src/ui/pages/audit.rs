//! The audit page: every audit event of the tenant, newest first, filtered by time range, actor,
//! action, operation and order (all in the URL), a page at a time, each linked to its operation;
//! and the exports of the same filters as CSV or JSON Lines, which the server streams.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::{components::Form, hooks::use_query_map};

use crate::console::audit::{audit_events, AuditFilter, AuditPage};
use crate::console::language::current_language;
use crate::domain::{audit::OTHER_AUDIT_ACTIONS, language::Language, machine::CommandKind, policy::Role};
use crate::t;
use crate::ui::components::widgets::{
    chosen_in, slot, state_words, with_views, EmptyState, ErrorPanel, MultiChoice, Pager, Time,
};

/// An audit action in words for the filter (`add_user`: "add user"); the events show the codes.
fn action_words(action: &str, language: Language) -> String {
    match action {
        "approve" => t!(language, "audit-action-approve"),
        "deny" => t!(language, "audit-action-deny"),
        "expire_approval" => t!(language, "audit-action-expire-approval"),
        "begin_attempt" => t!(language, "audit-action-begin-attempt"),
        "record_outcome" => t!(language, "audit-action-record-outcome"),
        "mark_unknown" => t!(language, "audit-action-mark-unknown"),
        "confirm_found" => t!(language, "audit-action-confirm-found"),
        "resend_same_key" => t!(language, "audit-action-resend-same-key"),
        "escalate" => t!(language, "audit-action-escalate"),
        "mark_succeeded" => t!(language, "audit-action-mark-succeeded"),
        "mark_not_happened" => t!(language, "audit-action-mark-not-happened"),
        "cancel" => t!(language, "audit-action-cancel"),
        "register" => t!(language, "audit-action-register"),
        "refuse_conflict" => t!(language, "audit-action-refuse-conflict"),
        "add_user" => t!(language, "audit-action-add-user"),
        "create_api_token" => t!(language, "audit-action-create-api-token"),
        "revoke_api_token" => t!(language, "audit-action-revoke-api-token"),
        "rotate_api_token" => t!(language, "audit-action-rotate-api-token"),
        "reassign_api_token" => t!(language, "audit-action-reassign-api-token"),
        "add_approval_rule" => t!(language, "audit-action-add-approval-rule"),
        "remove_approval_rule" => t!(language, "audit-action-remove-approval-rule"),
        "set_provider_connection" => t!(language, "audit-action-set-provider-connection"),
        "set_provider_webhook_secret" => t!(language, "audit-action-set-provider-webhook-secret"),
        "remove_provider_connection" => t!(language, "audit-action-remove-provider-connection"),
        "set_email_template" => t!(language, "audit-action-set-email-template"),
        "remove_email_template" => t!(language, "audit-action-remove-email-template"),
        "set_retention" => t!(language, "audit-action-set-retention"),
        "remove_retention" => t!(language, "audit-action-remove-retention"),
        "archive_operations" => t!(language, "audit-action-archive-operations"),
        other => other.replace('_', " "),
    }
}

fn filter_from(query: &leptos_router::params::ParamsMap) -> AuditFilter {
    let get = |name: &str| query.get(name).filter(|v| !v.trim().is_empty());
    AuditFilter {
        from: get("from"),
        to: get("to"),
        actor: get("actor"),
        action: chosen_in(query, "action"),
        op_id: get("op_id"),
        subject: get("subject"),
        before: get("before"),
    }
}

#[component]
pub fn Audit() -> impl IntoView {
    let query = use_query_map();
    let filter = Memo::new(move |_| query.with(filter_from));
    let page = Resource::new(move || filter.get(), audit_events);
    let language = current_language();
    let lede = t!(language, "audit-lede", command = slot(0));
    view! {
        <Title text=t!(language, "section-audit")/>
        <h1>{t!(language, "section-audit")}</h1>
        <p class="lede">{with_views(lede, vec![view! { <code>"opledger audit verify"</code> }.into_any()])}</p>
        {move || view! { <FilterForm filter=filter.get()/> }}
        <Transition>
            {move || Suspend::new(async move {
                match page.await {
                    Ok(page) => view! { <EventTable page filter=filter.get_untracked()/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn FilterForm(filter: AuditFilter) -> impl IntoView {
    let language = current_language();
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    let query = filter.query_string(false);
    let export = move |format: &str| {
        if query.is_empty() {
            format!("/audit/export.{format}")
        } else {
            format!("/audit/export.{format}?{query}")
        }
    };
    let mut actions: Vec<(String, String)> = CommandKind::ALL
        .iter()
        .map(|kind| kind.as_str())
        .chain(OTHER_AUDIT_ACTIONS)
        .map(|action| (action.to_owned(), action_words(action, language)))
        .collect();
    actions.sort();
    let partial = filter.leaves_events_out().then(|| {
        let text = t!(language, "audit-partial-note", command = slot(0));
        let command = view! { <code>"opledger audit verify --partial"</code> }.into_any();
        view! { <p class="muted" data-testid="partial-note">{with_views(text, vec![command])}</p> }
    });
    view! {
        <Form method="GET" action="/audit" attr:class="filters" attr:aria-label=t!(language, "audit-filter-label")>
            <label>{t!(language, "audit-filter-from")}<input type="datetime-local" name="from" value=value(&filter.from)/></label>
            <label>{t!(language, "audit-filter-to")}<input type="datetime-local" name="to" value=value(&filter.to)/></label>
            <label>{t!(language, "audit-filter-actor")}<input type="text" name="actor" value=value(&filter.actor) placeholder="sam.support" size="12"/></label>
            <MultiChoice name="action" label=t!(language, "audit-filter-action") values=actions chosen=filter.action.clone()/>
            <label>{t!(language, "audit-filter-op-id")}<input type="text" name="op_id" value=value(&filter.op_id) placeholder="refund-1043-li_2" size="16"/></label>
            <label>{t!(language, "audit-filter-order")}<input type="text" name="subject" value=value(&filter.subject) placeholder="order:1043" size="12"/></label>
            <div class="filter-actions">
                <button type="submit" class="button" data-testid="apply-audit-filters">{t!(language, "audit-apply")}</button>
                <a href="/audit" class="button button-quiet">{t!(language, "audit-clear")}</a>
                <a href=export("csv") class="button button-quiet" data-testid="export-csv" download>{t!(language, "audit-export-csv")}</a>
                <a href=export("jsonl") class="button button-quiet" data-testid="export-jsonl" download>{t!(language, "audit-export-jsonl")}</a>
            </div>
        </Form>
        {partial}
    }
}

#[component]
fn EventTable(page: AuditPage, filter: AuditFilter) -> impl IntoView {
    let language = current_language();
    if page.events.is_empty() {
        let text = if filter.query_string(false).is_empty() {
            t!(language, "audit-empty")
        } else {
            t!(language, "audit-empty-filtered")
        };
        return view! { <EmptyState text/> }.into_any();
    }
    let first_page = filter.before.is_some().then(|| format!("/audit?{}", filter.query_string(false)));
    let next_page = page.next.clone().map(|cursor| {
        let next = AuditFilter { before: Some(cursor), ..filter.clone() };
        format!("/audit?{}", next.query_string(true))
    });
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="audit-events">
                <thead><tr>
                    <th scope="col" class="num">{t!(language, "audit-col-seq")}</th>
                    <th scope="col">{t!(language, "audit-col-at")}</th>
                    <th scope="col">{t!(language, "audit-col-actor")}</th>
                    <th scope="col">{t!(language, "audit-col-action")}</th>
                    <th scope="col">{t!(language, "audit-col-operation")}</th>
                    <th scope="col">{t!(language, "audit-col-change")}</th>
                    <th scope="col">{t!(language, "audit-col-reason")}</th>
                    <th scope="col">{t!(language, "audit-col-hash")}</th>
                </tr></thead>
                <tbody>
                    {page.events.into_iter().map(|event| view! {
                        <tr data-testid="audit-event">
                            <td class="num">{event.seq}</td>
                            <td class="nowrap"><Time at=event.at/></td>
                            <td>{t!(
                                language,
                                "audit-actor",
                                actor = &event.actor,
                                role = Role::parse(&event.role).map_or_else(|| event.role.clone(), |role| role.label_in(language)),
                            )}</td>
                            <td>{event.action.clone()}</td>
                            <td>{event.op_id.clone().map(|op_id| view! { <a class="mono" href=format!("/operations/{op_id}")>{op_id.clone()}</a> })}</td>
                            <td>{match (&event.from_state, &event.to_state) {
                                (Some(from), Some(to)) if from != to => {
                                    format!("{} → {}", state_words(from, language), state_words(to, language))
                                }
                                (None, Some(to)) => format!("→ {}", state_words(to, language)),
                                _ => String::new(),
                            }}</td>
                            <td>
                                {event.reason.clone().map(|reason| view! { <div>{reason}</div> })}
                                <details class="evidence"><summary>{t!(language, "audit-evidence")}</summary><code class="break">{event.evidence.clone()}</code></details>
                            </td>
                            <td class="mono" title=event.hash.clone()>{event.hash.chars().take(12).collect::<String>()}"…"</td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
        </div>
        <Pager first=first_page next=next_page first_label=t!(language, "audit-newest") next_label=t!(language, "audit-older")/>
    }
    .into_any()
}

//! The audit page: every audit event of the tenant, newest first, filtered by time range, actor,
//! action, operation and order (all in the URL), a page at a time, each linked to its operation;
//! and the exports of the same filters as CSV or JSON Lines, which the server streams.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::{components::Form, hooks::use_query_map};

use crate::console::audit::{audit_events, AuditFilter, AuditPage};
use crate::domain::{audit::OTHER_AUDIT_ACTIONS, machine::CommandKind};
use crate::ui::components::widgets::{chosen_in, EmptyState, ErrorPanel, MultiChoice, Pager, Time};

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
    view! {
        <Title text="Audit"/>
        <h1>"Audit"</h1>
        <p class="lede">"Every state change and every action of this tenant, newest first. Each event is chained to the one before it by hash, so an exported history can be checked offline with "<code>"opledger audit verify"</code>"."</p>
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
        .map(|action| (action.to_owned(), action.replace('_', " ")))
        .collect();
    actions.sort();
    let partial = filter.leaves_events_out().then(|| {
        view! { <p class="muted" data-testid="partial-note">"This filter leaves events out: an export of it verifies each event's hash ("<code>"opledger audit verify --partial"</code>"), not the whole chain. Clear every filter but the end time to export a chain that verifies end to end."</p> }
    });
    view! {
        <Form method="GET" action="/audit" attr:class="filters" attr:aria-label="Filter audit events">
            <label>"From (UTC)"<input type="datetime-local" name="from" value=value(&filter.from)/></label>
            <label>"To (UTC)"<input type="datetime-local" name="to" value=value(&filter.to)/></label>
            <label>"Actor"<input type="text" name="actor" value=value(&filter.actor) placeholder="sam.support" size="12"/></label>
            <MultiChoice name="action" label="Action" values=actions chosen=filter.action.clone()/>
            <label>"Op id"<input type="text" name="op_id" value=value(&filter.op_id) placeholder="refund-1043-li_2" size="16"/></label>
            <label>"Order"<input type="text" name="subject" value=value(&filter.subject) placeholder="order:1043" size="12"/></label>
            <div class="filter-actions">
                <button type="submit" class="button" data-testid="apply-audit-filters">"Apply"</button>
                <a href="/audit" class="button button-quiet">"Clear"</a>
                <a href=export("csv") class="button button-quiet" data-testid="export-csv" download>"Export CSV"</a>
                <a href=export("jsonl") class="button button-quiet" data-testid="export-jsonl" download>"Export JSON Lines"</a>
            </div>
        </Form>
        {partial}
    }
}

#[component]
fn EventTable(page: AuditPage, filter: AuditFilter) -> impl IntoView {
    if page.events.is_empty() {
        let text = if filter.query_string(false).is_empty() {
            "No events yet: every operation and every action on it will be recorded here."
        } else {
            "No event matches these filters. Loosen them, or clear them to see every event."
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
                    <th scope="col" class="num">"Seq"</th><th scope="col">"At"</th><th scope="col">"Actor"</th><th scope="col">"Action"</th>
                    <th scope="col">"Operation"</th><th scope="col">"Change"</th><th scope="col">"Reason and evidence"</th><th scope="col">"Hash"</th>
                </tr></thead>
                <tbody>
                    {page.events.into_iter().map(|event| view! {
                        <tr data-testid="audit-event">
                            <td class="num">{event.seq}</td>
                            <td class="nowrap"><Time at=event.at/></td>
                            <td>{format!("{} ({})", event.actor, event.role)}</td>
                            <td>{event.action.clone()}</td>
                            <td>{event.op_id.clone().map(|op_id| view! { <a class="mono" href=format!("/operations/{op_id}")>{op_id.clone()}</a> })}</td>
                            <td>{match (&event.from_state, &event.to_state) {
                                (Some(from), Some(to)) if from != to => format!("{from} → {to}"),
                                (None, Some(to)) => format!("→ {to}"),
                                _ => String::new(),
                            }}</td>
                            <td>
                                {event.reason.clone().map(|reason| view! { <div>{reason}</div> })}
                                <details class="evidence"><summary>"Evidence"</summary><code class="break">{event.evidence.clone()}</code></details>
                            </td>
                            <td class="mono" title=event.hash.clone()>{event.hash.chars().take(12).collect::<String>()}"…"</td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
        </div>
        <Pager first=first_page next=next_page first_label="← Newest events" next_label="Older events →"/>
    }
    .into_any()
}

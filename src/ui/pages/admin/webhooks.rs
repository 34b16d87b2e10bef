//! The webhooks page (`/admin/webhooks`): the tenant's webhook endpoints with their latest
//! deliveries, forms to add and remove one, and a resend.

use leptos::prelude::*;

use super::{code, with_code, with_time, AdminFrame, AdminTab, TIME_MARK};
use crate::console::language::current_language;
use crate::console::webhooks::{
    webhook_endpoints, AddWebhookEndpoint, EndpointView, RemoveWebhookEndpoint, ResendWebhook,
};
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

#[component]
pub fn AdminWebhooks() -> impl IntoView {
    view! {
        <AdminFrame tab=AdminTab::Webhooks>
            <Webhooks/>
        </AdminFrame>
    }
}

#[component]
fn Webhooks() -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddWebhookEndpoint>::new();
    let remove = ServerAction::<RemoveWebhookEndpoint>::new();
    let resend = ServerAction::<ResendWebhook>::new();
    let webhooks = Resource::new(|| (), |_| webhook_endpoints());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="webhooks">
            <h2>{t!(language, "admin-webhooks-heading")}</h2>
            <p class="muted">{t!(language, "admin-webhooks-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match webhooks.await {
                        Ok(page) => view! {
                            <EndpointList endpoints=page.endpoints remove resend csrf=csrf.clone()/>
                            {if page.seals_secrets {
                                view! { <AddEndpointForm add csrf event_types=page.event_types/> }.into_any()
                            } else {
                                let needed = t!(
                                    language,
                                    "admin-webhooks-need-key",
                                    variable = code("OPLEDGER_SECRET_KEY"),
                                    command = code("openssl rand -hex 32"),
                                );
                                view! { <p class="empty-state">{with_code(needed)}</p> }.into_any()
                            }}
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="webhooks-result" data-testid="webhooks-result"></p>
        </section>
    }
}

#[component]
fn EndpointList(
    endpoints: Vec<EndpointView>,
    remove: ServerAction<RemoveWebhookEndpoint>,
    resend: ServerAction<ResendWebhook>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if endpoints.is_empty() {
        return view! { <p class="empty-state">{t!(language, "admin-webhooks-empty")}</p> }.into_any();
    }
    let (event, about, status, attempts, last_answer, created, actions) = (
        t!(language, "admin-delivery-event"),
        t!(language, "admin-delivery-about"),
        t!(language, "admin-delivery-status"),
        t!(language, "admin-delivery-attempts"),
        t!(language, "admin-delivery-last-answer"),
        t!(language, "admin-delivery-created"),
        t!(language, "admin-delivery-actions"),
    );
    endpoints
        .into_iter()
        .map(|endpoint| {
            let csrf_remove = csrf.clone();
            let csrf = csrf.clone();
            let heading = t!(language, "admin-webhook-deliveries-caption", url = endpoint.url.as_str());
            let added = t!(language, "admin-webhook-added-by", name = endpoint.created_by.as_str(), time = TIME_MARK);
            let (event, about, status, attempts, last_answer, created, actions) = (
                event.clone(),
                about.clone(),
                status.clone(),
                attempts.clone(),
                last_answer.clone(),
                created.clone(),
                actions.clone(),
            );
            view! {
                <div class="webhook-endpoint" data-testid="webhook-endpoint">
                    <h3><code>{endpoint.url.clone()}</code></h3>
                    <p class="muted">{events_in_words(&endpoint.event_types, language)}" · "{endpoint.id.clone()}" · "{with_time(added, endpoint.created_at)}</p>
                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="webhooks-result"
                        attr:data-confirm=t!(language, "admin-webhook-remove-consequence", url = endpoint.url.as_str())>
                        <input type="hidden" name="csrf" value=csrf_remove/>
                        <input type="hidden" name="id" value=endpoint.id/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="button danger">{t!(language, "admin-webhook-remove")}</button>
                    </ActionForm>
                    {if endpoint.deliveries.is_empty() {
                        view! { <p class="empty-state">{t!(language, "admin-webhook-deliveries-empty")}</p> }.into_any()
                    } else {
                        view! {
                            <div class="table-wrap">
                            <table class="table" data-testid="webhook-deliveries">
                                <caption class="visually-hidden">{heading}</caption>
                                <thead><tr>
                                    <th scope="col">{event.clone()}</th>
                                    <th scope="col">{about.clone()}</th>
                                    <th scope="col">{status.clone()}</th>
                                    <th scope="col">{attempts.clone()}</th>
                                    <th scope="col">{last_answer.clone()}</th>
                                    <th scope="col">{created.clone()}</th>
                                    <th scope="col">{actions.clone()}</th>
                                </tr></thead>
                                <tbody>
                                    {endpoint.deliveries.into_iter().map(|delivery| {
                                        let csrf = csrf.clone();
                                        let state = delivery_status_words(&delivery.status, language);
                                        let state = match delivery.next_attempt_at {
                                            Some(next) => with_time(t!(language, "admin-delivery-next", status = state, time = TIME_MARK), next),
                                            None => view! { {state} }.into_any(),
                                        };
                                        view! {
                                            <tr data-status=delivery.status.clone()>
                                                <td data-label=event.clone()><code>{delivery.event_type}</code></td>
                                                <td data-label=about.clone()>{delivery.about}</td>
                                                <td data-label=status.clone()>{state}</td>
                                                <td data-label=attempts.clone()>{delivery.attempts}</td>
                                                <td data-label=last_answer.clone()>{delivery.last_answer.unwrap_or_default()}</td>
                                                <td data-label=created.clone()><Time at=delivery.created_at/></td>
                                                <td data-label=actions.clone()>
                                                    {(delivery.status != "pending").then(|| view! {
                                                        <ActionForm action=resend attr:class="inline-form" attr:data-answer-to="webhooks-result">
                                                            <input type="hidden" name="csrf" value=csrf/>
                                                            <input type="hidden" name="id" value=delivery.id/>
                                                            <button type="submit" class="button button-quiet">{t!(language, "admin-webhook-resend")}</button>
                                                        </ActionForm>
                                                    })}
                                                </td>
                                            </tr>
                                        }
                                        .into_any()
                                    }).collect_view()}
                                </tbody>
                            </table>
                            </div>
                        }.into_any()
                    }}
                </div>
            }
        })
        .collect_view()
        .into_any()
}

/// The form of a new endpoint: its URL and a checkbox per event type (the uncertain states and
/// partial success checked to begin with).
#[component]
fn AddEndpointForm(
    add: ServerAction<AddWebhookEndpoint>,
    csrf: String,
    event_types: Vec<String>,
) -> impl IntoView {
    const CHECKED_FIRST: [&str; 4] = [
        "operation.pending_approval",
        "operation.unknown",
        "operation.needs_review",
        "order.partial_success",
    ];
    let language = current_language();
    view! {
        <ActionForm action=add attr:class="filters" attr:data-answer-to="webhooks-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "admin-webhook-url")}<input type="url" name="url" required placeholder="https://hooks.example.com/opledger" size="34" autocomplete="off"/></label>
            <fieldset class="choices">
                <legend>{t!(language, "admin-webhook-events")}</legend>
                {event_types.into_iter().enumerate().map(|(i, event_type)| {
                    let checked = CHECKED_FIRST.contains(&event_type.as_str());
                    view! {
                        <label class="choice"><input type="checkbox" name=format!("events[{i}]") value=event_type.clone() checked=checked/>{event_type.clone()}</label>
                    }
                    .into_any()
                }).collect_view()}
            </fieldset>
            <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-webhook-add")}</button></div>
        </ActionForm>
    }
}

/// An endpoint's event types as the page lists them: `every event` for `*`.
fn events_in_words(event_types: &[String], language: Language) -> String {
    if event_types.iter().any(|event_type| event_type == crate::domain::webhook::ALL_EVENTS) {
        return t!(language, "admin-webhook-every-event");
    }
    event_types.join(", ")
}

/// A delivery's status in words: `pending`, `delivered`, `failed` (given up).
fn delivery_status_words(status: &str, language: Language) -> String {
    match status {
        "pending" => t!(language, "admin-delivery-pending"),
        "delivered" => t!(language, "admin-delivery-delivered"),
        "failed" => t!(language, "admin-delivery-failed"),
        other => other.to_owned(),
    }
}

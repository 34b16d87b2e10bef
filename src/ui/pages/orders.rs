//! Orders: the list of orders in partial success or pending confirmation and the most recently
//! changed ones, and one page per order built around its line items: each item with what was paid,
//! refunded and is still refundable, every operation on it in plain words with a sentence to tell
//! the customer, then the ids and the net effect behind a "Details" disclosure, and the
//! compensations its operations offer (each recorded as a new operation with its own state).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::console::language::current_language;
use crate::console::orders::{order, orders, Compensate, OperationStory, OrderDetail, ShopOrder};
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::actions::{ActionResult, CompensationForms};
use crate::ui::components::desk::{HoldingPanel, NotesPanel};
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{joined_or, ErrorPanel, OrderBadge, StateBadge, Time, ViewerResource};
use crate::ui::pages::overview::OrderList;

#[component]
pub fn Orders() -> impl IntoView {
    let data = Resource::new(|| (), |_| orders());
    let language = current_language();
    view! {
        <Title text=t!(language, "section-orders")/>
        <LivePage/>
        <h1>{t!(language, "section-orders")}</h1>
        <Suspense>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(page) => view! {
                        <section class="panel">
                            <h2>{t!(language, "orders-attention-heading")}</h2>
                            <OrderList orders=page.attention empty=t!(language, "orders-attention-empty")/>
                        </section>
                        <section class="panel">
                            <h2>{t!(language, "orders-recent-heading")}</h2>
                            <OrderList orders=page.recent empty=t!(language, "orders-recent-empty")/>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
pub fn OrderPage() -> impl IntoView {
    let params = use_params_map();
    let subject = move || params.with(|p| p.get("subject").unwrap_or_default());
    let compensate = ServerAction::<Compensate>::new();
    let detail = Resource::new(subject, order);
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    view! {
        <Title text=subject()/>
        <LivePage/>
        <p class="breadcrumb"><a href="/orders">{t!(language, "section-orders")}</a>" / "</p>
        <ActionResult/>
        <Transition>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match detail.await {
                    Ok(detail) => view! { <OrderBody detail compensate csrf/> }.into_any(),
                    Err(error) => view! { <h1 class="mono">{subject()}</h1><ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

fn id_list(ids: &[String], language: Language) -> AnyView {
    if ids.is_empty() {
        return view! { <span class="muted">{t!(language, "orders-none")}</span> }.into_any();
    }
    ids.iter()
        .map(|id| view! { <a class="mono" href=format!("/operations/{id}")>{id.clone()}</a>" " })
        .collect_view()
        .into_any()
}

/// One operation of an order in words: how it stands, what to tell the customer, and its id.
#[component]
fn Story(story: OperationStory) -> impl IntoView {
    let language = current_language();
    view! {
        <li class="story" data-testid="story" data-op-id=story.op_id.clone() data-state=story.state.as_str()>
            <div class="story-head">
                <StateBadge state=story.state/>
                <span class="muted">{t!(language, "orders-story-changed")}<Time at=story.updated_at/></span>
            </div>
            <p class="story-status">{story.told.status.clone()}</p>
            <p class="say"><span class="say-label">{t!(language, "orders-tell-customer")}</span><q data-testid="say">{story.told.for_customer.clone()}</q></p>
            <p class="muted small">
                <a class="mono" href=format!("/operations/{}", story.op_id)>{story.op_id.clone()}</a>
                {story.compensates.clone().map(|original| view! { " · "{t!(language, "orders-makes-up-for")}<a class="mono" href=format!("/operations/{original}")>{original.clone()}</a> })}
            </p>
        </li>
    }
}

#[component]
fn LineItems(shop: ShopOrder) -> impl IntoView {
    let language = current_language();
    view! {
        <dl class="facts money" data-testid="order-money">
            <div><dt>{t!(language, "orders-paid")}</dt><dd>{shop.paid.clone()}</dd></div>
            <div><dt>{t!(language, "orders-refunded")}</dt><dd data-testid="refunded">{shop.refunded.clone()}</dd></div>
            {shop.in_doubt.clone().map(|amount| view! { <div><dt>{t!(language, "orders-being-confirmed")}</dt><dd class="warn">{amount}</dd></div> })}
            <div><dt>{t!(language, "orders-still-refundable")}</dt><dd data-testid="refundable">{shop.refundable.clone()}</dd></div>
        </dl>
        <section class="panel" aria-labelledby="line-items-heading">
            <h2 id="line-items-heading">{t!(language, "orders-line-items")}</h2>
            <div class="line-items" data-testid="line-items">
                {shop.items.into_iter().map(|item| view! {
                    <article class="line-item" data-testid="line-item" data-item=item.id.clone()>
                        <header class="line-item-head">
                            <h3>{item.name.clone()}</h3>
                            <p class="line-item-money">
                                {t!(language, "orders-item-paid")}<strong>{item.paid.clone()}</strong>
                                " · "{t!(language, "orders-item-refunded")}<strong>{item.refunded.clone()}</strong>
                                {item.in_doubt.clone().map(|amount| view! { " · "{t!(language, "orders-item-being-confirmed")}<strong class="warn">{amount}</strong> })}
                                " · "{t!(language, "orders-item-still-refundable")}<strong>{item.refundable.clone()}</strong>
                            </p>
                        </header>
                        {if item.operations.is_empty() {
                            view! { <p class="muted">{t!(language, "orders-item-nothing-asked")}</p> }.into_any()
                        } else {
                            view! { <ul class="stories">{item.operations.into_iter().map(|story| view! { <Story story/> }).collect_view()}</ul> }.into_any()
                        }}
                    </article>
                }.into_any()).collect_view()}
            </div>
        </section>
    }
}

#[component]
fn OrderBody(detail: OrderDetail, compensate: ServerAction<Compensate>, csrf: String) -> impl IntoView {
    let language = current_language();
    let form_key = detail.form_key.clone();
    let offers = detail.compensations.clone();
    let order_name = detail
        .subject
        .strip_prefix("order:")
        .map_or_else(|| detail.subject.clone(), |id| t!(language, "orders-order-heading", id = id));
    let others = detail.other_operations.clone();
    view! {
        <div class="page-head">
            <h1>{order_name}</h1>
            <span data-testid="order-status"><OrderBadge status=detail.status/></span>
        </div>
        <HoldingPanel holding=detail.holding.clone() csrf=csrf.clone() form_key=form_key.clone()/>
        {match detail.shop.clone() {
            Ok(shop) => view! { <LineItems shop/> }.into_any(),
            Err(reason) => view! {
                <p class="notice" data-testid="shop-problem">{t!(language, "orders-shop-problem", reason = reason)}</p>
            }.into_any(),
        }}
        {(!others.is_empty()).then(|| view! {
            <section class="panel">
                <h2>{if detail.shop.is_ok() { t!(language, "orders-other-operations") } else { t!(language, "orders-operations") }}</h2>
                <ul class="stories">{others.into_iter().map(|story| view! { <Story story/> }).collect_view()}</ul>
            </section>
        })}
        <details class="panel disclosure">
            <summary>{t!(language, "orders-details")}</summary>
            <dl class="facts">
                <div><dt>{t!(language, "orders-completed")}</dt><dd>{id_list(&detail.completed, language)}</dd></div>
                <div><dt>{t!(language, "orders-not-done")}</dt><dd>{id_list(&detail.not_done, language)}</dd></div>
                <div><dt>{t!(language, "orders-not-yet-confirmed")}</dt><dd>{id_list(&detail.uncertain, language)}</dd></div>
                <div><dt>{t!(language, "orders-effects-in-force")}</dt><dd data-testid="effects-in-force">{id_list(&detail.effects_in_force, language)}</dd></div>
                <div><dt>{t!(language, "orders-net-refunded")}</dt><dd>{joined_or(&detail.net_refunded, &t!(language, "orders-nothing"))}</dd></div>
            </dl>
            <div class="table-wrap">
                <table class="table" data-testid="order-operations">
                    <thead><tr>
                        <th scope="col">{t!(language, "orders-col-state")}</th><th scope="col">{t!(language, "orders-col-op-id")}</th>
                        <th scope="col">{t!(language, "orders-col-kind")}</th><th scope="col">{t!(language, "orders-col-compensates")}</th>
                        <th scope="col" class="num">{t!(language, "orders-col-amount")}</th><th scope="col">{t!(language, "orders-col-external-ids")}</th>
                        <th scope="col">{t!(language, "orders-col-changed")}</th>
                    </tr></thead>
                    <tbody>
                        {detail.operations.into_iter().map(|row| view! {
                            <tr>
                                <td><StateBadge state=row.state/></td>
                                <td><a class="mono" href=format!("/operations/{}", row.op_id)>{row.op_id.clone()}</a></td>
                                <td>{row.kind.clone()}</td>
                                <td class="mono">{row.compensates.clone().unwrap_or_else(|| t!(language, "none"))}</td>
                                <td class="num">{row.amount.clone().unwrap_or_else(|| t!(language, "none"))}</td>
                                <td class="mono">{joined_or(&row.external_ids, &t!(language, "none"))}</td>
                                <td><Time at=row.updated_at/></td>
                            </tr>
                        }.into_any()).collect_view()}
                    </tbody>
                </table>
            </div>
        </details>
        {(!offers.is_empty()).then(|| view! {
            <section class="panel" data-testid="compensations">
                <h2>{t!(language, "orders-compensate-heading")}</h2>
                <p class="muted">{t!(language, "orders-compensate-hint")}</p>
                <div class="table-wrap">
                    <table class="table">
                        <thead><tr>
                            <th scope="col">{t!(language, "orders-col-state")}</th><th scope="col">{t!(language, "orders-col-op-id")}</th>
                            <th scope="col">{t!(language, "orders-col-kind")}</th><th scope="col">{t!(language, "orders-col-compensations")}</th>
                        </tr></thead>
                        <tbody>
                            {offers.into_iter().map(|offer| view! {
                                <tr>
                                    <td><StateBadge state=offer.state/></td>
                                    <td><a class="mono" href=format!("/operations/{}", offer.op_id)>{offer.op_id.clone()}</a></td>
                                    <td>{offer.kind.clone()}</td>
                                    <td><div class="row-actions">
                                        <CompensationForms compensate offers=offer.offers csrf=csrf.clone() form_key=form_key.clone() op_id=offer.op_id.clone() answer_to=format!("answer-{}", offer.op_id)/>
                                    </div>
                                    <p class="action-result" role="status" id=format!("answer-{}", offer.op_id)></p></td>
                                </tr>
                            }.into_any()).collect_view()}
                        </tbody>
                    </table>
                </div>
            </section>
        })}
        <NotesPanel notes=detail.notes.clone() csrf=csrf.clone() form_key=form_key.clone()/>
    }
}

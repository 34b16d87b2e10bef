//! Orders: the list of orders in partial success or pending confirmation and the most recently
//! changed ones, and one page per order with all of its operations, the roll-up and the net
//! effect (what really stands, by the operations' real states), and the compensations its
//! operations offer (each recorded as a new operation with its own state).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::console::orders::{order, orders, Compensate, OrderDetail};
use crate::ui::components::actions::{ActionResult, CompensationForms};
use crate::ui::components::widgets::{joined_or, ErrorPanel, OrderBadge, StateBadge, Time, ViewerResource};
use crate::ui::pages::overview::OrderList;

#[component]
pub fn Orders() -> impl IntoView {
    let data = Resource::new(|| (), |_| orders());
    view! {
        <Title text="Orders"/>
        <h1>"Orders"</h1>
        <Suspense>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(page) => view! {
                        <section class="panel">
                            <h2>"Partial success or pending confirmation"</h2>
                            <OrderList orders=page.attention empty="No order needs attention: none is half done or waiting for a confirmation."/>
                        </section>
                        <section class="panel">
                            <h2>"Recently changed"</h2>
                            <OrderList orders=page.recent empty="No orders yet: operations name their order as their subject."/>
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
    view! {
        <Title text=subject()/>
        <p class="breadcrumb"><a href="/orders">"Orders"</a>" / "</p>
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

fn id_list(ids: &[String]) -> AnyView {
    if ids.is_empty() {
        return view! { <span class="muted">"none"</span> }.into_any();
    }
    ids.iter()
        .map(|id| view! { <a class="mono" href=format!("/operations/{id}")>{id.clone()}</a>" " })
        .collect_view()
        .into_any()
}

#[component]
fn OrderBody(detail: OrderDetail, compensate: ServerAction<Compensate>, csrf: String) -> impl IntoView {
    let form_key = detail.form_key.clone();
    let offers = detail.compensations.clone();
    view! {
        <div class="page-head">
            <h1 class="mono">{detail.subject.clone()}</h1>
            <span data-testid="order-status"><OrderBadge status=detail.status/></span>
        </div>
        <dl class="facts">
            <div><dt>"Completed"</dt><dd>{id_list(&detail.completed)}</dd></div>
            <div><dt>"Not done"</dt><dd>{id_list(&detail.not_done)}</dd></div>
            <div><dt>"Not yet confirmed"</dt><dd>{id_list(&detail.uncertain)}</dd></div>
            <div><dt>"Effects in force"</dt><dd data-testid="effects-in-force">{id_list(&detail.effects_in_force)}</dd></div>
            <div><dt>"Net refunded"</dt><dd>{joined_or(&detail.net_refunded, "nothing")}</dd></div>
        </dl>
        <section class="panel">
            <h2>"Operations"</h2>
            <div class="table-wrap">
                <table class="table" data-testid="order-operations">
                    <thead><tr><th scope="col">"State"</th><th scope="col">"Op id"</th><th scope="col">"Kind"</th><th scope="col">"Compensates"</th><th scope="col" class="num">"Amount"</th><th scope="col">"External ids"</th><th scope="col">"Changed"</th></tr></thead>
                    <tbody>
                        {detail.operations.into_iter().map(|row| view! {
                            <tr>
                                <td><StateBadge state=row.state/></td>
                                <td><a class="mono" href=format!("/operations/{}", row.op_id)>{row.op_id.clone()}</a></td>
                                <td>{row.kind.clone()}</td>
                                <td class="mono">{row.compensates.clone().unwrap_or_else(|| "—".into())}</td>
                                <td class="num">{row.amount.clone().unwrap_or_else(|| "—".into())}</td>
                                <td class="mono">{joined_or(&row.external_ids, "—")}</td>
                                <td><Time at=row.updated_at/></td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
        {(!offers.is_empty()).then(|| view! {
            <section class="panel" data-testid="compensations">
                <h2>"Compensate"</h2>
                <p class="muted">"Each compensation is recorded as a new operation linked to the one it makes up for, then sent. It has its own state: only a succeeded compensation changes the net effect."</p>
                <div class="table-wrap">
                    <table class="table">
                        <thead><tr><th scope="col">"State"</th><th scope="col">"Op id"</th><th scope="col">"Kind"</th><th scope="col">"Compensations"</th></tr></thead>
                        <tbody>
                            {offers.into_iter().map(|offer| view! {
                                <tr>
                                    <td><StateBadge state=offer.state/></td>
                                    <td><a class="mono" href=format!("/operations/{}", offer.op_id)>{offer.op_id.clone()}</a></td>
                                    <td>{offer.kind.clone()}</td>
                                    <td><div class="row-actions">
                                        <CompensationForms compensate offers=offer.offers csrf=csrf.clone() form_key=form_key.clone() op_id=offer.op_id.clone()/>
                                    </div></td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
            </section>
        })}
    }
}

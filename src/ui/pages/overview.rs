//! The overview: counts by state, unknown results by age, what waits for people (approvals, the
//! needs-review queue, orders in partial success or pending confirmation), and two charts drawn as
//! SVG on the server: operations per hour by outcome, and time from unknown to settled.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::operations::OperationRow;
use crate::console::orders::OrderSummary;
use crate::console::overview::{overview, Bucket, HourOutcomes, OverviewData};
use crate::domain::machine::State;
use crate::ui::components::live::LivePage;
use crate::ui::components::widgets::{joined_or, ErrorPanel, OrderBadge, StateBadge, Time};

#[component]
pub fn Overview() -> impl IntoView {
    let data = Resource::new(|| (), |_| overview());
    view! {
        <Title text="Overview"/>
        <LivePage/>
        <h1>"Overview"</h1>
        <Suspense>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(data) => view! { <OverviewBody data/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn OverviewBody(data: OverviewData) -> impl IntoView {
    if data.total == 0 {
        return view! {
            <section class="empty-state">
                <h2>"No operations yet"</h2>
                <p>
                    "Agents and tools record each operation through the ledger API before sending it ("
                    <a href="/api/v1/openapi.json">"API description"</a>
                    "). Run "<code>"opledger serve --demo"</code>" to see the console with demo data."
                </p>
            </section>
        }
        .into_any();
    }
    let count_of = |state: State| data.counts.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n);
    let (unknown, needing_review) = (count_of(State::Unknown), count_of(State::NeedsReview));
    let aged: u64 = data.unknown_by_age.iter().map(|b| b.count).sum();
    let sample_note = (aged < unknown).then(|| {
        view! { <p class="muted">{format!("Ages of the {aged} unknown the longest.")}</p> }
    });
    view! {
        <section class="cards" aria-label="Operations by state">
            {data.counts.iter().map(|(state, count)| view! {
                <a class="card" href=format!("/operations?state={}", state.as_str()) data-testid=format!("count-{}", state.as_str())>
                    <StateBadge state=*state/>
                    <span class="card-number">{*count}</span>
                </a>
            }.into_any()).collect_view()}
            <div class="card card-total"><span>"All"</span><span class="card-number">{data.total}</span></div>
        </section>
        <div class="grid-2">
            <section class="panel">
                <h2>"Operations per hour, last 24 hours"</h2>
                <HourlyChart hours=data.hourly.clone()/>
            </section>
            <section class="panel">
                <h2>"Time from unknown to settled, last 7 days"</h2>
                <BarChart buckets=data.time_to_settle.clone() label="Settled operations by time taken" empty="No operation has gone from unknown to settled in the last 7 days."/>
            </section>
            <section class="panel">
                <h2>{format!("Unknown results by age ({unknown})")}</h2>
                <BarChart buckets=data.unknown_by_age.clone() label="Unknown operations by age" empty="No result is unknown: every sent operation has a confirmed outcome."/>
                {sample_note}
                <OperationList rows=data.oldest_uncertain.clone() empty=""/>
            </section>
            <section class="panel">
                <h2>"Waiting for people"</h2>
                <p>
                    <a href="/approvals">{format!("{} pending approval", data.pending_approvals)}</a>
                    " · "
                    <a href="/operations?state=needs_review">{if needing_review == 1 { "1 needs review".to_owned() } else { format!("{needing_review} need review") }}</a>
                </p>
                <OperationList rows=data.needs_review.clone() empty="Nothing needs review."/>
            </section>
        </div>
        <section class="panel">
            <h2>"Orders in partial success or pending confirmation"</h2>
            <OrderList orders=data.attention_orders.clone() empty="Every order is complete, compensated or failed cleanly."/>
        </section>
    }
    .into_any()
}

/// A compact list of operations linking to their pages.
#[component]
pub fn OperationList(rows: Vec<OperationRow>, empty: &'static str) -> impl IntoView {
    if rows.is_empty() {
        return view! { <p class="muted">{empty}</p> }.into_any();
    }
    view! {
        <ul class="compact-list">
            {rows.into_iter().map(|row| view! {
                <li>
                    <StateBadge state=row.state/>
                    " "<a href=format!("/operations/{}", row.op_id) class="mono">{row.op_id.clone()}</a>
                    " "<span class="muted">{row.amount.clone().unwrap_or_default()}" · changed "<Time at=row.updated_at/></span>
                </li>
            }.into_any()).collect_view()}
        </ul>
    }
    .into_any()
}

/// Orders with their roll-up status.
#[component]
pub fn OrderList(orders: Vec<OrderSummary>, empty: &'static str) -> impl IntoView {
    if orders.is_empty() {
        return view! { <p class="muted">{empty}</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table">
            <thead><tr><th scope="col">"Order"</th><th scope="col">"Status"</th><th scope="col">"Operations"</th><th scope="col">"Net refunded"</th><th scope="col">"Last change"</th></tr></thead>
            <tbody>
                {orders.into_iter().map(|order| view! {
                    <tr data-testid="order-row">
                        <td><a href=format!("/orders/{}", order.subject) class="mono">{order.subject.clone()}</a></td>
                        <td><OrderBadge status=order.status/></td>
                        <td>{order.operations}</td>
                        <td>{joined_or(&order.net_refunded, "—")}</td>
                        <td><Time at=order.updated_at/></td>
                    </tr>
                }.into_any()).collect_view()}
            </tbody>
        </table>
        </div>
    }
    .into_any()
}

const CHART_WIDTH: f64 = 480.0;
const CHART_HEIGHT: f64 = 160.0;

/// Stacked bars per hour: succeeded, not done, uncertain, not yet sent.
#[component]
fn HourlyChart(hours: Vec<HourOutcomes>) -> impl IntoView {
    let most =
        hours.iter().map(|h| h.succeeded + h.not_done + h.uncertain + h.open).max().unwrap_or(0).max(1);
    let slot = CHART_WIDTH / hours.len().max(1) as f64;
    let scale = |n: u64| n as f64 / most as f64 * (CHART_HEIGHT - 20.0);
    let bars = hours
        .iter()
        .enumerate()
        .flat_map(|(i, hour)| {
            let x = i as f64 * slot + 2.0;
            let mut top = CHART_HEIGHT - 16.0;
            let parts = [
                ("succeeded", hour.succeeded),
                ("rejected", hour.not_done),
                ("unknown", hour.uncertain),
                ("planned", hour.open),
            ];
            let label = format!(
                "{}: {} succeeded, {} not done, {} uncertain, {} not sent yet",
                hour.hour.format("%H:00 UTC"),
                hour.succeeded,
                hour.not_done,
                hour.uncertain,
                hour.open
            );
            parts
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .map(|(state, n)| {
                    let height = scale(n);
                    top -= height;
                    view! {
                        <rect x=x y=top width=slot - 4.0 height=height class=format!("fill-{state}")>
                            <title>{label.clone()}</title>
                        </rect>
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect_view();
    let ticks = hours
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 6 == 0)
        .map(|(i, hour)| {
            view! { <text x=i as f64 * slot + 2.0 y=CHART_HEIGHT - 2.0 class="chart-tick">{hour.hour.format("%H:00").to_string()}</text> }
        })
        .collect_view();
    view! {
        <svg class="chart" viewBox=format!("0 0 {CHART_WIDTH} {CHART_HEIGHT}") role="img" aria-label=format!("Operations created per hour by outcome; the tallest hour has {most}")>
            {bars}
            {ticks}
        </svg>
        <p class="legend">
            <span class="key fill-succeeded"></span>"succeeded "
            <span class="key fill-rejected"></span>"not done "
            <span class="key fill-unknown"></span>"uncertain "
            <span class="key fill-planned"></span>"not sent yet"
            " (hours in UTC)"
        </p>
    }
}

/// Horizontal bars, one per bucket, with the count written beside each.
#[component]
fn BarChart(buckets: Vec<Bucket>, label: &'static str, empty: &'static str) -> impl IntoView {
    let most = buckets.iter().map(|b| b.count).max().unwrap_or(0);
    if most == 0 {
        return view! { <p class="muted">{empty}</p> }.into_any();
    }
    let row_height = 24.0;
    let height = row_height * buckets.len() as f64;
    let bars = buckets
        .into_iter()
        .enumerate()
        .map(|(i, bucket)| {
            let y = i as f64 * row_height;
            let width = bucket.count as f64 / most as f64 * (CHART_WIDTH - 170.0);
            view! {
                <text x=0 y=y + 16.0 class="chart-label">{bucket.label.clone()}</text>
                <rect x=110 y=y + 4.0 width=width.max(1.0) height=row_height - 8.0 class="fill-bar"/>
                <text x=116.0 + width y=y + 16.0 class="chart-label">{bucket.count}</text>
            }
        })
        .collect_view();
    view! {
        <svg class="chart" viewBox=format!("0 0 {CHART_WIDTH} {height}") role="img" aria-label=label>{bars}</svg>
    }
    .into_any()
}

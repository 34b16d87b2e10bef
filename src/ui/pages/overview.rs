//! The overview: counts by state, unknown results by age, what waits for people (approvals, the
//! needs-review queue, orders in partial success or pending confirmation), the saved views with
//! their counts, and two charts drawn as
//! SVG on the server: operations per hour by outcome, and time from unknown to settled.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::language::current_language;
use crate::console::operations::OperationRow;
use crate::console::orders::OrderSummary;
use crate::console::overview::{overview, Bucket, HourOutcomes, OverviewData};
use crate::domain::machine::State;
use crate::t;
use crate::ui::components::actions::ActionResult;
use crate::ui::components::live::LivePage;
use crate::ui::components::saved_views::SavedViewsPanel;
use crate::ui::components::widgets::{joined_or, slot, with_views, ErrorPanel, OrderBadge, StateBadge, Time};

#[component]
pub fn Overview() -> impl IntoView {
    let language = current_language();
    let data = Resource::new(|| (), |_| overview());
    view! {
        <Title text=t!(language, "section-overview")/>
        <LivePage/>
        <h1>{t!(language, "section-overview")}</h1>
        <ActionResult/>
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
    let language = current_language();
    if data.total == 0 {
        let text = t!(language, "overview-empty-text", api = slot(0), command = slot(1));
        let views = vec![
            view! { <a href="/api/v1/openapi.json">{t!(language, "overview-empty-api")}</a> }.into_any(),
            view! { <code>"opledger serve --demo"</code> }.into_any(),
        ];
        return view! {
            <section class="empty-state">
                <h2>{t!(language, "overview-empty-title")}</h2>
                <p>{with_views(text, views)}</p>
            </section>
        }
        .into_any();
    }
    let count_of = |state: State| data.counts.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n);
    let (unknown, needing_review) = (count_of(State::Unknown), count_of(State::NeedsReview));
    let aged: u64 = data.unknown_by_age.iter().map(|b| b.count).sum();
    let sample_note = (aged < unknown).then(|| {
        view! { <p class="muted">{t!(language, "overview-sample-note", count = aged)}</p> }
    });
    view! {
        <section class="cards" aria-label=t!(language, "overview-cards-label")>
            {data.counts.iter().map(|(state, count)| view! {
                <a class="card" href=format!("/operations?state={}", state.as_str()) data-testid=format!("count-{}", state.as_str())>
                    <StateBadge state=*state/>
                    <span class="card-number">{language.count(*count)}</span>
                </a>
            }.into_any()).collect_view()}
            <div class="card card-total"><span>{t!(language, "overview-all")}</span><span class="card-number">{language.count(data.total)}</span></div>
        </section>
        <div class="grid-2">
            <section class="panel">
                <h2>{t!(language, "overview-hourly-title")}</h2>
                <HourlyChart hours=data.hourly.clone()/>
            </section>
            <section class="panel">
                <h2>{t!(language, "overview-settle-title")}</h2>
                <BarChart buckets=data.time_to_settle.clone() label=t!(language, "overview-settle-label") empty=t!(language, "overview-settle-empty")/>
            </section>
            <section class="panel">
                <h2>{t!(language, "overview-unknown-title", count = language.count(unknown))}</h2>
                <BarChart buckets=data.unknown_by_age.clone() label=t!(language, "overview-unknown-label") empty=t!(language, "overview-unknown-empty")/>
                {sample_note}
                <OperationList rows=data.oldest_uncertain.clone() empty=""/>
            </section>
            <section class="panel">
                <h2>{t!(language, "overview-waiting-title")}</h2>
                <p>
                    <a href="/approvals">{t!(language, "overview-pending-approval", count = data.pending_approvals)}</a>
                    " · "
                    <a href="/operations?state=needs_review">{t!(language, "overview-needs-review", count = needing_review)}</a>
                </p>
                <OperationList rows=data.needs_review.clone() empty=t!(language, "overview-needs-review-empty")/>
            </section>
        </div>
        <SavedViewsPanel/>
        <section class="panel">
            <h2>{t!(language, "overview-attention-title")}</h2>
            <OrderList orders=data.attention_orders.clone() empty=t!(language, "overview-attention-empty")/>
        </section>
    }
    .into_any()
}

/// A compact list of operations linking to their pages.
#[component]
pub fn OperationList(rows: Vec<OperationRow>, #[prop(into)] empty: String) -> impl IntoView {
    let language = current_language();
    if rows.is_empty() {
        return view! { <p class="muted">{empty}</p> }.into_any();
    }
    view! {
        <ul class="compact-list">
            {rows.into_iter().map(|row| view! {
                <li>
                    <StateBadge state=row.state/>
                    " "<a href=format!("/operations/{}", row.op_id) class="mono">{row.op_id.clone()}</a>
                    " "<span class="muted">{row.amount.clone().unwrap_or_default()}" · "{with_views(
                        t!(language, "overview-changed", time = slot(0)),
                        vec![view! { <Time at=row.updated_at/> }.into_any()],
                    )}</span>
                </li>
            }.into_any()).collect_view()}
        </ul>
    }
    .into_any()
}

/// Orders with their roll-up status.
#[component]
pub fn OrderList(orders: Vec<OrderSummary>, #[prop(into)] empty: String) -> impl IntoView {
    let language = current_language();
    if orders.is_empty() {
        return view! { <p class="muted">{empty}</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table">
            <thead><tr>
                <th scope="col">{t!(language, "overview-order")}</th>
                <th scope="col">{t!(language, "overview-order-status")}</th>
                <th scope="col">{t!(language, "overview-order-operations")}</th>
                <th scope="col">{t!(language, "overview-order-net-refunded")}</th>
                <th scope="col">{t!(language, "overview-order-last-change")}</th>
            </tr></thead>
            <tbody>
                {orders.into_iter().map(|order| view! {
                    <tr data-testid="order-row">
                        <td><a href=format!("/orders/{}", order.subject) class="mono">{order.subject.clone()}</a></td>
                        <td><OrderBadge status=order.status/></td>
                        <td>{order.operations}</td>
                        <td>{joined_or(&order.net_refunded, &t!(language, "none"))}</td>
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
    let language = current_language();
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
            let label = t!(
                language,
                "overview-hour-title",
                hour = hour.hour.format("%H:00 UTC").to_string(),
                succeeded = hour.succeeded,
                not_done = hour.not_done,
                uncertain = hour.uncertain,
                open = hour.open,
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
        <svg class="chart" viewBox=format!("0 0 {CHART_WIDTH} {CHART_HEIGHT}") role="img" aria-label=t!(language, "overview-hourly-label", most = most)>
            {bars}
            {ticks}
        </svg>
        <p class="legend">
            <span class="key fill-succeeded"></span>{t!(language, "overview-legend-succeeded")}" "
            <span class="key fill-rejected"></span>{t!(language, "overview-legend-not-done")}" "
            <span class="key fill-unknown"></span>{t!(language, "overview-legend-uncertain")}" "
            <span class="key fill-planned"></span>{t!(language, "overview-legend-not-sent")}
            " "{t!(language, "overview-legend-utc")}
        </p>
    }
}

/// Horizontal bars, one per bucket, with the count written beside each.
#[component]
fn BarChart(buckets: Vec<Bucket>, #[prop(into)] label: String, #[prop(into)] empty: String) -> impl IntoView {
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

//! Small pieces every page uses: state and order-status badges, times (UTC from the server, an
//! age and the chosen zone once hydrated), the panel that turns an [`AppError`] into a sentence
//! (and the right HTTP status when rendered on the server), the signed-in viewer, empty states,
//! pagers, and the checkbox filter of a closed set.

use chrono::{DateTime, Local, Utc};
use leptos::prelude::*;

use crate::console::language::current_language;
use crate::console::shell::Viewer;
use crate::console::AppError;
use crate::domain::{
    language::Language,
    machine::State,
    rollup::OrderStatus,
    wording::{ago, utc_time},
};
use crate::t;

/// The signed-in viewer, loaded once per page by the app shell.
pub type ViewerResource = Resource<Result<Option<Viewer>, AppError>>;

#[component]
pub fn StateBadge(state: State) -> impl IntoView {
    view! { <span class=format!("badge state-{}", state.as_str()) data-state=state.as_str()>{state.label_in(current_language())}</span> }
}

#[component]
pub fn OrderBadge(status: OrderStatus) -> impl IntoView {
    let class = format!(
        "badge order-{}",
        serde_json::to_value(status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    );
    view! { <span class=class>{status.label_in(current_language())}</span> }
}

/// A time: `2026-11-30 14:05:09 UTC` as the server renders it, then, once the page is
/// interactive, how long ago it was ("3 min ago"), with the whole time on hover in the zone the
/// reader chose for every page (their own, or UTC, in the footer).
/// An island of its own, for the static parts of a page.
#[island]
pub fn Time(at: DateTime<Utc>) -> impl IntoView {
    view! { <LocalTime at/> }
}

/// Where the reader's choice of zone for whole times is kept in the browser: `utc`, or the
/// reader's own zone when it is anything else.
pub const ZONE_CHOICE: &str = "opledger-zone";

/// Whether the reader chose to read times in UTC (in the browser; never on the server).
pub fn utc_chosen() -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|window| window.local_storage().ok().flatten())
            .and_then(|storage| storage.get_item(ZONE_CHOICE).ok().flatten())
            .is_some_and(|zone| zone == "utc")
    }
    #[cfg(not(feature = "hydrate"))]
    false
}

/// [`Time`] inside an island: its first render in the browser matches the server's, so hydration
/// never mismatches, and it turns to the age and the zone the reader chose once mounted.
#[component]
pub fn LocalTime(at: DateTime<Utc>) -> impl IntoView {
    let language = current_language();
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let text = move || if hydrated.get() { ago(at, Utc::now(), language) } else { utc_time(at, language) };
    let title = move || {
        if hydrated.get() && !utc_chosen() {
            let local = at.with_timezone(&Local);
            let time = local.format(&t!(language, "time-format")).to_string();
            t!(language, "time-yours", time = time, offset = local.format("%:z").to_string())
        } else {
            utc_time(at, language)
        }
    };
    view! { <time datetime=at.to_rfc3339() title=title>{text}</time> }
}

/// `items` joined with commas, or `none` when there are none.
pub fn joined_or(items: &[String], none: &str) -> String {
    if items.is_empty() {
        none.to_owned()
    } else {
        items.join(", ")
    }
}

/// An error as a sentence, with a way on. On the server it also sets the response's status.
#[component]
pub fn ErrorPanel(error: AppError) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::console::guard::set_error_status(&error);
    let language = current_language();
    let link = |href: &'static str, key_text: String| view! { <a href=href>{key_text}</a> }.into_any();
    let (title, next) = match &error {
        AppError::SignedOut => {
            (t!(language, "error-title-signed-out"), link("/login", t!(language, "error-next-sign-in")))
        }
        AppError::Forbidden => {
            (t!(language, "error-title-forbidden"), link("/", t!(language, "error-next-overview")))
        }
        AppError::TwoFactorFirst => (
            t!(language, "error-title-forbidden"),
            link("/account", t!(language, "two-factor-go-to-account")),
        ),
        AppError::NotFound(_) => (
            t!(language, "error-title-not-found"),
            link("/operations", t!(language, "error-next-operations")),
        ),
        AppError::Invalid(_) | AppError::InvalidField { .. } => {
            (t!(language, "error-title-invalid"), view! { <span></span> }.into_any())
        }
        _ => (t!(language, "error-title-other"), link("", t!(language, "error-next-try-again"))),
    };
    view! {
        <section class="error-panel" role="alert" data-testid="error">
            <h2>{title}</h2>
            <p>{error.words(language)}</p>
            <p>{next}</p>
        </section>
    }
}

/// What a list shows when it has nothing: a sentence that says what to do.
#[component]
pub fn EmptyState(#[prop(into)] text: String) -> impl IntoView {
    view! { <section class="empty-state" data-testid="empty"><p>{text}</p></section> }
}

/// The links of a keyset-paged list: back to its first page, on to its next one.
#[component]
pub fn Pager(
    first: Option<String>,
    next: Option<String>,
    #[prop(into)] first_label: String,
    #[prop(into)] next_label: String,
) -> impl IntoView {
    view! {
        <nav class="pager" aria-label=t!(current_language(), "pager-label")>
            {first.map(|href| view! { <a href=href>{first_label}</a> })}
            {next.map(|href| view! { <a href=href data-testid="next-page">{next_label}</a> })}
        </nav>
    }
}

/// What a page's URL chose for the [`MultiChoice`] `name`, as its filter keeps it: the values
/// comma-separated, whether they came as several `name=value` (the form) or as one (a link).
pub fn chosen_in(query: &leptos_router::params::ParamsMap, name: &str) -> Option<String> {
    let values: Vec<String> =
        query.get_all(name).unwrap_or_default().into_iter().filter(|v| !v.trim().is_empty()).collect();
    (!values.is_empty()).then(|| values.join(","))
}

/// A filter of a closed set: any of its `values` (value, words), as checkboxes in a disclosure
/// whose summary says what is chosen (`chosen`: the filter's values, comma-separated); each chosen
/// value is sent as its own `name=value`, so it works as a plain form. A value chosen by a link
/// but not offered stays chosen.
#[component]
pub fn MultiChoice(
    name: &'static str,
    #[prop(into)] label: String,
    mut values: Vec<(String, String)>,
    chosen: Option<String>,
) -> impl IntoView {
    let chosen: Vec<String> =
        chosen.unwrap_or_default().split(',').filter(|v| !v.is_empty()).map(str::to_owned).collect();
    for value in &chosen {
        if !values.iter().any(|(offered, _)| offered == value) {
            values.push((value.clone(), value.clone()));
        }
    }
    let summary = if chosen.is_empty() {
        t!(current_language(), "filter-any")
    } else {
        values
            .iter()
            .filter(|(value, _)| chosen.contains(value))
            .map(|(_, words)| words.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    view! {
        <div class="multi-field">
            <span class="multi-label" aria-hidden="true">{label.clone()}</span>
            <details class="multi-choice" data-testid=format!("filter-{name}")>
                <summary aria-label=format!("{label}: {summary}")>{summary.clone()}</summary>
                <fieldset>
                    <legend class="visually-hidden">{label}</legend>
                    {values.into_iter().map(|(value, words)| view! {
                        <label class="check">
                            <input type="checkbox" name=name value=value.clone() checked=chosen.contains(&value)/>
                            {words}
                        </label>
                    }).collect_view()}
                </fieldset>
            </details>
        </div>
    }
}

/// A state as the ledger records it (`needs_review`), in words of `language`; as recorded when it
/// is not one the console knows.
pub fn state_words(state: &str, language: Language) -> String {
    State::parse(state).map_or_else(|| state.to_owned(), |state| state.label_in(language))
}

/// A stand-in for a view in a translated sentence: pass `slot(i)` as a placeable's value, and
/// [`with_views`] puts the `i`th view where the language put that placeable, in its word order.
pub fn slot(index: usize) -> String {
    char::from_u32(0xE000 + index as u32).map(String::from).unwrap_or_default()
}

/// `text` as the content of a `<textarea>`: the renderer writes a textarea's children as they are
/// (a browser reads them as raw text), so they are escaped here, and the browser shows the text as
/// it was typed; a `</textarea>` typed into it cannot end the element.
pub fn textarea_text(text: &str) -> String {
    crate::domain::notice::html_escaped(text)
}

/// A translated sentence whose [`slot`]s are replaced by `views` (a link, a time, a number in
/// bold), wherever each language puts them.
pub fn with_views(text: String, views: Vec<AnyView>) -> Vec<AnyView> {
    let mut views: Vec<Option<AnyView>> = views.into_iter().map(Some).collect();
    let (mut out, mut piece) = (Vec::new(), String::new());
    for c in text.chars() {
        match views.get_mut((c as u32).wrapping_sub(0xE000) as usize) {
            Some(view) => {
                if !piece.is_empty() {
                    out.push(std::mem::take(&mut piece).into_any());
                }
                out.extend(view.take());
            }
            None => piece.push(c),
        }
    }
    if !piece.is_empty() {
        out.push(piece.into_any());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::language::Language;

    fn html(views: Vec<AnyView>) -> String {
        views.into_iter().map(|view| view.to_html()).collect()
    }

    #[test]
    fn views_go_where_each_language_puts_their_placeables() {
        let views = || vec![view! { <b>"7"</b> }.into_any(), view! { <i>"x"</i> }.into_any()];
        let english =
            t!(Language::En, "bulk-run-started", who = slot(0), time = slot(1), filter = "every operation");
        assert_eq!(
            html(with_views(english, views())),
            "Query the provider, started by <b>7</b> at <i>x</i> over every operation."
        );
        let chinese = t!(Language::ZhTw, "bulk-run-started", who = slot(0), time = slot(1), filter = "全部");
        assert_eq!(
            html(with_views(chinese, views())),
            "由 <b>7</b> 於 <i>x</i> 開始向服務商查詢，範圍：全部。"
        );
        let counts = t!(
            Language::En,
            "bulk-preview-counts",
            n = 1,
            matching = slot(0),
            filter = "f",
            actionable = slot(1)
        );
        assert_eq!(
            html(with_views(counts, views())),
            "<b>7</b> operation matches the filter: f. <i>x</i> of them can be queried now (unknown, needs review or silent submitted ones)."
        );
    }
}

/// What a gateway offers for refunds, label by label.
#[component]
pub fn OfferList(offer: Vec<(String, String)>) -> impl IntoView {
    view! {
        <dl class="small offer" data-testid="offer">
            {offer.into_iter().map(|(label, words)| view! { <dt>{label}</dt><dd>{words}</dd> }).collect_view()}
        </dl>
    }
}

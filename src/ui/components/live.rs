//! Pages that follow changes. Every signed-in page's footer holds one island that opens the
//! tenant's change stream (`/live/operations`): it says something only when the connection to the
//! server is lost, and on a page that shows state (marked by [`LivePage`]) it reloads the page
//! when operations change, unless something was typed into the page or a confirmation is open;
//! then it offers the reload instead of losing what was typed. A page whose list follows the
//! stream itself (the operations list) is left to it: one stream a page. The island also holds
//! the one choice of zone for whole times on every page (the reader's own, or UTC).

use leptos::prelude::*;

use crate::console::language::current_language;
use crate::t;

/// Marks a page that shows operations' state: it reloads itself when they change after it was
/// rendered (the time it carries).
#[component]
pub fn LivePage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    let rendered_at = crate::server::clock::now().to_rfc3339();
    #[cfg(not(feature = "ssr"))]
    let rendered_at = String::new();
    view! { <span hidden data-live-page=rendered_at></span> }
}

/// Opens the live stream in the browser: every `changed` event bumps `changes` and sets `latest`
/// to the time of the latest change it reports; `connected` is `None` until the stream opens,
/// then whether it is open.
pub fn follow_changes(changes: RwSignal<u32>, latest: RwSignal<String>, connected: RwSignal<Option<bool>>) {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        use wasm_bindgen::{closure::Closure, JsCast};
        let Ok(source) = web_sys::EventSource::new("/live/operations") else { return };
        let on_change =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                latest.set(event.data().as_string().unwrap_or_default());
                changes.update(|n| *n += 1);
            });
        let _ = source.add_event_listener_with_callback("changed", on_change.as_ref().unchecked_ref());
        let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| connected.set(Some(true)));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| connected.set(Some(false)));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let handlers = send_wrapper::SendWrapper::new((source, on_change, on_open, on_error));
        on_cleanup(move || handlers.0.close());
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = (changes, latest, connected);
}

/// The connection to the server, shown only when it is lost, and the reload of a live page.
#[island]
pub fn ConnectionState() -> impl IntoView {
    let interactive = RwSignal::new(false);
    Effect::new(move |_| interactive.set(true));
    let changes = RwSignal::new(0u32);
    let latest = RwSignal::new(String::new());
    let connected = RwSignal::new(None::<bool>);
    let stale = RwSignal::new(false);
    // A page whose list follows the stream itself (and says whether it is live) needs no second
    // stream: a browser keeps few connections to one server open at once.
    #[cfg(feature = "hydrate")]
    let page_follows_itself = browser::has_live_list();
    #[cfg(not(feature = "hydrate"))]
    let page_follows_itself = false;
    if !page_follows_itself {
        follow_changes(changes, latest, connected);
    }
    #[cfg(feature = "hydrate")]
    let typed = browser::watch_typing();
    Effect::new(move |previous: Option<u32>| {
        let count = changes.get();
        if previous.is_some_and(|previous| previous != count) {
            #[cfg(feature = "hydrate")]
            browser::page_changed(&latest.get_untracked(), typed, stale);
        }
        count
    });
    let reload = move |_| {
        #[cfg(feature = "hydrate")]
        browser::reload();
    };
    let language = current_language();
    let utc = RwSignal::new(false);
    Effect::new(move |_| utc.set(crate::ui::components::widgets::utc_chosen()));
    let choose_zone = move |event: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        browser::choose_zone(&event_target_value(&event));
        #[cfg(not(feature = "hydrate"))]
        let _ = event;
    };
    view! {
        <label class="zone-choice">
            {t!(language, "zone-choice")}" "
            <select data-testid="zone-choice" on:change=choose_zone prop:value=move || if utc.get() { "utc" } else { "local" }>
                <option value="local">{t!(language, "zone-yours")}</option>
                <option value="utc">{t!(language, "zone-utc")}</option>
            </select>
        </label>
        <div class="connection" data-testid="connection" data-interactive=move || interactive.get().to_string() role="status" aria-live="polite">
            {move || (connected.get() == Some(false)).then(|| view! {
                <p class="toast toast-warn" data-testid="connection-lost">{t!(language, "connection-lost")}</p>
            })}
            {move || stale.get().then(|| view! {
                <p class="toast" data-testid="stale">
                    {t!(language, "page-changed")}" "
                    <button type="button" class="button" on:click=reload>{t!(language, "reload")}</button>
                </p>
            })}
        </div>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::*;
    use wasm_bindgen::{closure::Closure, JsCast};

    /// Whether anything has been typed into the page since it loaded.
    pub fn watch_typing() -> RwSignal<bool> {
        let typed = RwSignal::new(false);
        if let Some(document) = web_sys::window().and_then(|window| window.document()) {
            let on_input = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| typed.set(true));
            let _ = document.add_event_listener_with_callback("input", on_input.as_ref().unchecked_ref());
            on_input.forget();
        }
        typed
    }

    /// Whether the page holds a list that follows the change stream on its own.
    pub fn has_live_list() -> bool {
        web_sys::window()
            .and_then(|window| window.document())
            .and_then(|document| document.query_selector("[data-live-list]").ok().flatten())
            .is_some()
    }

    /// Keeps the reader's choice of zone for every page, and shows this one in it.
    pub fn choose_zone(zone: &str) {
        if let Some(storage) = web_sys::window().and_then(|window| window.local_storage().ok().flatten()) {
            let _ = storage.set_item(crate::ui::components::widgets::ZONE_CHOICE, zone);
        }
        reload();
    }

    pub fn reload() {
        if let Some(window) = web_sys::window() {
            let _ = window.location().reload();
        }
    }

    /// Operations changed at `latest`: a live page rendered before then reloads, or offers to when a
    /// reload would lose something.
    pub fn page_changed(latest: &str, typed: RwSignal<bool>, stale: RwSignal<bool>) {
        let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
        let has = |selector: &str| document.query_selector(selector).ok().flatten().is_some();
        let Some(rendered_at) = document
            .query_selector("[data-live-page]")
            .ok()
            .flatten()
            .and_then(|marker| marker.get_attribute("data-live-page"))
        else {
            return;
        };
        let time = |text: &str| chrono::DateTime::parse_from_rfc3339(text).ok();
        if let (Some(changed), Some(rendered)) = (time(latest), time(&rendered_at)) {
            if changed <= rendered {
                return;
            }
        }
        if typed.get_untracked() || has("dialog[open]") {
            stale.set(true);
        } else {
            reload();
        }
    }
}

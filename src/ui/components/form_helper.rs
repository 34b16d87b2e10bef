//! The one island every page has for its forms. Every change form posts to a server function
//! (`/rpc/…`) and works as a plain form: the server acts, then sends the browser back to the page,
//! which shows the answer (`?done=<key>`, see [`crate::console::forms`]). Once the page is
//! interactive, this island sends such forms in the background instead, so that a refusal shows
//! beside the form with nothing typed lost, and only a change that was made reloads the page: with
//! the answer kept for the reloaded page to show where the form names (`data-answer-to`, an
//! element's id: beside the row acted on, or the page's answer when the row is gone), otherwise to
//! its `done` answer when the form carries a request key. A form with a
//! `data-confirm` sentence and an unconfirmed `confirmed` field asks first, in a dialog. The island
//! also gives the page its one keyboard shortcut (`/` moves to the search box) and, on a page
//! reached from another, puts the focus on its heading.

use leptos::prelude::*;

#[island]
pub fn FormHelper() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| browser::install());
    view! { <span class="form-helper" hidden></span> }
}

#[cfg(feature = "hydrate")]
mod browser {
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        Document, Element, FormData, HtmlFormElement, HtmlInputElement, RequestInit, Response,
        UrlSearchParams,
    };

    use crate::console::AppError;
    use leptos::server_fn::error::FromServerFnError;

    /// Where an answer waits in the session's storage for the page that reloads after its change.
    const KEPT_ANSWER: &str = "opledger-answer";

    /// Shows an answer kept by the page before it reloaded, then sends change forms in the
    /// background from now on.
    pub fn install() {
        let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
        show_kept_answer(&document);
        let on_submit =
            Closure::<dyn FnMut(web_sys::SubmitEvent)>::new(move |event: web_sys::SubmitEvent| {
                let Some(form) = event.target().and_then(|target| target.dyn_into::<HtmlFormElement>().ok())
                else {
                    return;
                };
                let action = form.get_attribute("action").unwrap_or_default();
                if !action.starts_with("/rpc/") || !form.method().eq_ignore_ascii_case("post") {
                    return;
                }
                event.prevent_default();
                let submitter = event.submitter();
                let confirmed = form
                    .query_selector("input[name=\"confirmed\"]")
                    .ok()
                    .flatten()
                    .and_then(|input| input.dyn_into::<HtmlInputElement>().ok());
                match (form.get_attribute("data-confirm"), confirmed) {
                    (Some(consequence), Some(confirmed)) if confirmed.value() != "yes" => {
                        super::confirm::ask(form, submitter, consequence, confirmed, action);
                    }
                    _ => leptos::task::spawn_local(send(form, submitter, action)),
                }
            });
        let _ = document.add_event_listener_with_callback("submit", on_submit.as_ref().unchecked_ref());
        on_submit.forget();
        search_on_slash(&document);
        focus_heading(&document);
    }

    /// A page reached from another of the console starts with its heading focused, as a screen
    /// reader user expects after following a link, unless the address names a place or something
    /// already has focus.
    fn focus_heading(document: &Document) {
        let from_here = web_sys::window()
            .map(|window| window.location())
            .and_then(|location| Some((location.origin().ok()?, location.hash().ok()?)))
            .is_some_and(|(origin, hash)| hash.is_empty() && document.referrer().starts_with(&origin));
        let idle = document.active_element().is_none_or(|element| element.tag_name() == "BODY");
        let heading = document
            .query_selector("main h1")
            .ok()
            .flatten()
            .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok());
        if let (true, true, Some(heading)) = (from_here, idle, heading) {
            let _ = heading.set_attribute("tabindex", "-1");
            let _ = heading.focus();
        }
    }

    /// `/` anywhere but in a field moves to the top bar's search box.
    fn search_on_slash(document: &Document) {
        let on_key =
            Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |event: web_sys::KeyboardEvent| {
                if event.key() != "/" || event.ctrl_key() || event.meta_key() || event.alt_key() {
                    return;
                }
                let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
                let typing = document.active_element().is_some_and(|element| {
                    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                        || element.has_attribute("contenteditable")
                });
                let search = document
                    .get_element_by_id("global-search")
                    .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok());
                if let (false, Some(search)) = (typing, search) {
                    event.prevent_default();
                    let _ = search.focus();
                }
            });
        let _ = document.add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
        on_key.forget();
    }

    /// What the server made of a form.
    enum Reply {
        /// The change was made; its answer in words.
        Answer(String),
        /// The server sends the browser to another page (a bulk run's progress).
        Go(String),
    }

    /// Sends `form` as `submitter` would (its name and value go with the fields). An answer to a
    /// button marked `data-answer-only` (a preview) shows beside the form and changes nothing.
    pub(super) async fn send(form: HtmlFormElement, submitter: Option<web_sys::HtmlElement>, action: String) {
        set_buttons_disabled(&form, true);
        let pressed = submitter.as_ref().and_then(|button| {
            Some((button.get_attribute("name")?, button.get_attribute("value").unwrap_or_default()))
        });
        let answer_only = submitter.as_ref().is_some_and(|button| button.has_attribute("data-answer-only"));
        match post(&form, pressed, &action).await {
            Ok(Reply::Answer(answer)) if answer_only => {
                show(&answer_place(&form), &answer, false);
                set_buttons_disabled(&form, false);
            }
            Ok(Reply::Answer(answer)) => after_change(&form, &answer),
            Ok(Reply::Go(url)) => {
                let _ = web_sys::window().map(|window| window.location().assign(&url));
            }
            Err(refusal) => {
                let place = field_place(&form, &refusal).unwrap_or_else(|| answer_place(&form));
                show(&place, &refusal.to_string(), true);
                set_buttons_disabled(&form, false);
            }
        }
    }

    /// Where a refusal of one field shows: the form's `data-error-for="<field>"` element, with the
    /// field marked invalid and focused; `None` for any other refusal, or a form without one.
    fn field_place(form: &HtmlFormElement, refusal: &AppError) -> Option<Element> {
        let AppError::InvalidField { field, .. } = refusal else { return None };
        if !field.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let place = form.query_selector(&format!("[data-error-for=\"{field}\"]")).ok().flatten()?;
        if let Ok(Some(input)) = form.query_selector(&format!("[name=\"{field}\"]")) {
            let _ = input.set_attribute("aria-invalid", "true");
            if let Some(id) = Some(place.id()).filter(|id| !id.is_empty()) {
                let _ = input.set_attribute("aria-describedby", &id);
            }
            if let Ok(input) = input.dyn_into::<web_sys::HtmlElement>() {
                let _ = input.focus();
            }
        }
        Some(place)
    }

    /// Posts the form as the browser would, asking for the answer itself rather than a redirect.
    async fn post(
        form: &HtmlFormElement,
        pressed: Option<(String, String)>,
        action: &str,
    ) -> Result<Reply, AppError> {
        let language = crate::console::language::current_language();
        let unreachable = |_: JsValue| AppError::Invalid(crate::t!(language, "error-unreachable"));
        let window = web_sys::window().ok_or_else(|| unreachable(JsValue::NULL))?;
        let fields = FormData::new_with_form(form).map_err(unreachable)?;
        if let Some((name, value)) = pressed {
            fields.append_with_str(&name, &value).map_err(unreachable)?;
        }
        let body = UrlSearchParams::new_with_str_sequence_sequence(fields.as_ref()).map_err(unreachable)?;
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_body(body.as_ref());
        let headers = web_sys::Headers::new().map_err(unreachable)?;
        headers.set("Accept", "application/json").map_err(unreachable)?;
        init.set_headers(headers.as_ref());
        let response: Response = JsFuture::from(window.fetch_with_str_and_init(action, &init))
            .await
            .and_then(|value| value.dyn_into())
            .map_err(unreachable)?;
        let text = JsFuture::from(response.text().map_err(unreachable)?)
            .await
            .map_err(unreachable)?
            .as_string()
            .unwrap_or_default();
        let headers = response.headers();
        let sent_on = headers.get(leptos::server_fn::redirect::REDIRECT_HEADER).ok().flatten();
        if let (Some(_), Ok(Some(location))) = (sent_on, headers.get("location")) {
            Ok(Reply::Go(location))
        } else if response.ok() {
            Ok(Reply::Answer(serde_json::from_str::<String>(&text).unwrap_or_default()))
        } else {
            Err(AppError::de(text.into()))
        }
    }

    /// After a change: the page again, with its answer.
    fn after_change(form: &HtmlFormElement, answer: &str) {
        let Some(window) = web_sys::window() else { return };
        let location = window.location();
        let key = form
            .query_selector("input[name=\"key\"]")
            .ok()
            .flatten()
            .and_then(|input| input.dyn_into::<web_sys::HtmlInputElement>().ok())
            .map(|input| input.value());
        match (form.get_attribute("data-answer-to"), key) {
            (None, Some(key)) => {
                let query = UrlSearchParams::new_with_str(&location.search().unwrap_or_default())
                    .unwrap_or_else(|_| UrlSearchParams::new().expect("an empty query"));
                query.delete("done");
                query.append("done", &key);
                let path = location.pathname().unwrap_or_default();
                let _ = location.assign(&format!("{path}?{}", String::from(query.to_string())));
            }
            (to, _) => {
                if let (Some(to), Ok(Some(storage))) = (to, window.session_storage()) {
                    let kept = serde_json::json!({"to": to, "answer": answer}).to_string();
                    let _ = storage.set_item(KEPT_ANSWER, &kept);
                }
                let _ = location.reload();
            }
        }
    }

    fn show_kept_answer(document: &Document) {
        let Some(storage) = web_sys::window().and_then(|window| window.session_storage().ok().flatten())
        else {
            return;
        };
        let Ok(Some(kept)) = storage.get_item(KEPT_ANSWER) else { return };
        let _ = storage.remove_item(KEPT_ANSWER);
        let Ok(kept) = serde_json::from_str::<serde_json::Value>(&kept) else { return };
        let (Some(to), Some(answer)) = (kept["to"].as_str(), kept["answer"].as_str()) else { return };
        // Beside the thing acted on when it is still on the page, else at the page's answer.
        if let Some(place) =
            document.get_element_by_id(to).or_else(|| document.get_element_by_id("action-result"))
        {
            show(&place, answer, false);
        }
    }

    /// Where the form's answer shows: the element it names, else the page's action result, else
    /// a line of its own at the form's end.
    fn answer_place(form: &HtmlFormElement) -> Element {
        let document = form.owner_document().expect("a form in a document");
        let named = form.get_attribute("data-answer-to").and_then(|id| document.get_element_by_id(&id));
        named.or_else(|| document.get_element_by_id("action-result")).unwrap_or_else(|| {
            if let Ok(Some(own)) = form.query_selector(".form-answer") {
                return own;
            }
            let own = document.create_element("p").expect("a paragraph");
            own.set_class_name("form-answer");
            let _ = own.set_attribute("role", "alert");
            let _ = form.append_child(&own);
            own
        })
    }

    fn show(place: &Element, text: &str, failed: bool) {
        place.set_text_content(Some(text));
        let classes = place.class_list();
        let _ = classes.add_1("filled");
        let _ = if failed { classes.add_1("failed") } else { classes.remove_1("failed") };
    }

    fn set_buttons_disabled(form: &HtmlFormElement, disabled: bool) {
        let Ok(buttons) = form.query_selector_all("button") else { return };
        for index in 0..buttons.length() {
            let Some(button) = buttons.item(index).and_then(|node| node.dyn_into::<Element>().ok()) else {
                continue;
            };
            let _ = if disabled {
                button.set_attribute("disabled", "")
            } else {
                button.remove_attribute("disabled")
            };
        }
    }
}

/// The confirmation of a risky form: a `<dialog>` restating what it will do (the form's
/// `data-confirm`), with "Go back" first and focused; the form is sent once the person confirms.
#[cfg(feature = "hydrate")]
mod confirm {
    use wasm_bindgen::{closure::Closure, JsCast};
    use web_sys::{Document, Element, HtmlDialogElement, HtmlElement, HtmlFormElement, HtmlInputElement};

    use crate::console::language::current_language;
    use crate::domain::wording::lowercase_first;
    use crate::t;

    fn element(document: &Document, tag: &str, class: &str, text: &str) -> Option<Element> {
        let element = document.create_element(tag).ok()?;
        if !class.is_empty() {
            element.set_class_name(class);
        }
        element.set_text_content(Some(text));
        Some(element)
    }

    pub fn ask(
        form: HtmlFormElement,
        submitter: Option<HtmlElement>,
        consequence: String,
        confirmed: HtmlInputElement,
        action: String,
    ) {
        let Some(document) = form.owner_document() else { return };
        let language = current_language();
        let label = submitter
            .as_ref()
            .and_then(|button| button.text_content())
            .map(|text| text.trim().trim_end_matches('…').to_owned())
            .unwrap_or_else(|| t!(language, "confirm"));
        let built = (|| {
            let dialog = document.create_element("dialog").ok()?.dyn_into::<HtmlDialogElement>().ok()?;
            dialog.set_class_name("confirm-dialog");
            dialog.set_attribute("aria-labelledby", "confirm-dialog-title").ok()?;
            dialog.set_attribute("data-testid", "confirm-dialog").ok()?;
            let title =
                element(&document, "h2", "", &t!(language, "confirm-question", action = label.as_str()))?;
            title.set_id("confirm-dialog-title");
            let text = element(&document, "p", "consequence", &consequence)?;
            let buttons = element(&document, "div", "row-actions", "")?;
            let back = element(&document, "button", "button secondary", &t!(language, "confirm-go-back"))?;
            back.set_attribute("type", "button").ok()?;
            back.set_attribute("autofocus", "").ok()?;
            let yes = element(
                &document,
                "button",
                "button danger",
                &t!(language, "confirm-yes", action = lowercase_first(&label)),
            )?;
            yes.set_attribute("type", "button").ok()?;
            yes.set_attribute("data-testid", "confirm-yes").ok()?;
            buttons.append_child(&back).ok()?;
            buttons.append_child(&yes).ok()?;
            for part in [&title, &text, &buttons] {
                dialog.append_child(part).ok()?;
            }
            document.body()?.append_child(&dialog).ok()?;
            Some((dialog, back, yes))
        })();
        let Some((dialog, back, yes)) = built else { return };
        let closing = dialog.clone();
        let refocus = submitter.clone();
        let on_back = Closure::<dyn FnMut()>::new(move || {
            closing.close();
        });
        back.add_event_listener_with_callback("click", on_back.as_ref().unchecked_ref()).ok();
        on_back.forget();
        let removing = dialog.clone();
        let on_close = Closure::<dyn FnMut()>::new(move || {
            removing.remove();
            if let Some(button) = &refocus {
                let _ = button.focus();
            }
        });
        dialog.add_event_listener_with_callback("close", on_close.as_ref().unchecked_ref()).ok();
        on_close.forget();
        let confirming = dialog.clone();
        let mut pending = Some((form, submitter, confirmed, action));
        let on_yes = Closure::<dyn FnMut()>::new(move || {
            let Some((form, submitter, confirmed, action)) = pending.take() else { return };
            confirmed.set_value("yes");
            confirming.remove();
            leptos::task::spawn_local(super::browser::send(form, submitter, action));
        });
        yes.add_event_listener_with_callback("click", on_yes.as_ref().unchecked_ref()).ok();
        on_yes.forget();
        let _ = dialog.show_modal();
    }
}

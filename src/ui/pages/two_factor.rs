//! The second step of a sign-in (`/login/two-factor`): after a right password, a person with
//! two-factor sign-in types a code from their app, or one of their recovery codes, in a plain HTML
//! form posting to `/login/two-factor` (it works with JavaScript off). A wrong code comes back
//! here with the reason; after five minutes, the sign-in starts again. It speaks the browser's
//! language.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::language::current_language;
use crate::console::two_factor::second_step_for;
use crate::domain::language::Language;
use crate::t;

fn problem_text(code: &str, language: Language) -> Option<String> {
    match code {
        "invalid" => Some(t!(language, "two-factor-wrong-code")),
        "expired" => Some(t!(language, "login-problem-expired")),
        "unavailable" => Some(t!(language, "error-unavailable")),
        _ => None,
    }
}

#[component]
pub fn SecondStep() -> impl IntoView {
    let language = current_language();
    let query = use_query_map();
    let problem = problem_text(&query.with_untracked(|q| q.get("error")).unwrap_or_default(), language);
    let pending = Resource::new(|| (), |_| second_step_for());
    view! {
        <Title text=t!(language, "two-factor-step-title")/>
        <section class="login-card">
            <h1>{t!(language, "two-factor-step-title")}</h1>
            <Suspense fallback=|| ()>
                {move || {
                    let problem = problem.clone();
                    Suspend::new(async move {
                        match pending.await {
                            Ok(pending) => view! {
                                <p>{t!(language, "two-factor-step-for", name = pending.name)}</p>
                                {problem.map(|text| view! { <p class="notice notice-error" role="alert">{text}</p> })}
                                <form method="post" action="/login/two-factor" class="stack">
                                    <input type="hidden" name="csrf" value=pending.csrf/>
                                    <label>
                                        {t!(language, "two-factor-code")}
                                        <input type="text" name="code" required autofocus inputmode="numeric"
                                            autocomplete="one-time-code" maxlength="24" aria-describedby="code-hint"/>
                                        <span id="code-hint" class="field-hint">{t!(language, "two-factor-code-hint")}</span>
                                    </label>
                                    <button type="submit" class="button">{t!(language, "two-factor-verify")}</button>
                                </form>
                            }.into_any(),
                            Err(_) => view! {
                                <p class="notice notice-error" role="alert">{t!(language, "two-factor-step-expired")}</p>
                                <p><a href="/login">{t!(language, "reset-to-sign-in")}</a></p>
                            }.into_any(),
                        }
                    })
                }}
            </Suspense>
        </section>
    }
}

//! The page a one-time password link opens: the person it is for, and a plain HTML form (it works
//! with JavaScript off) posting the new password twice to `/password-reset`. A link that is used,
//! expired or unknown says so, and whom to ask. It speaks the browser's language.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::language::current_language;
use crate::console::people::password_reset_for;
use crate::domain::language::Language;
use crate::t;

fn problem_text(code: &str, language: Language) -> Option<String> {
    match code {
        "mismatch" => Some(t!(language, "reset-problem-mismatch")),
        "weak" => Some(t!(language, "reset-problem-weak")),
        "unavailable" => Some(t!(language, "error-unavailable")),
        _ => None,
    }
}

#[component]
pub fn PasswordReset() -> impl IntoView {
    let language = current_language();
    let query = use_query_map();
    let param = move |name: &str| query.with_untracked(|q| q.get(name)).unwrap_or_default();
    let token = param("token");
    let problem = problem_text(&param("error"), language);
    let asked = token.clone();
    let person = Resource::new(move || asked.clone(), password_reset_for);
    view! {
        <Title text=t!(language, "reset-title")/>
        <section class="login-card">
            <h1>{t!(language, "reset-title")}</h1>
            <Suspense fallback=|| ()>
                {move || {
                    let token = token.clone();
                    let problem = problem.clone();
                    Suspend::new(async move {
                        match person.await {
                            Ok(name) => view! {
                                <p>{t!(language, "reset-for", name = name)}</p>
                                {problem.map(|text| view! { <p class="notice notice-error" role="alert">{text}</p> })}
                                <form method="post" action="/password-reset" class="stack">
                                    <input type="hidden" name="token" value=token/>
                                    <label>
                                        {t!(language, "reset-new-password")}
                                        <input type="password" name="password" autocomplete="new-password" required minlength="10" autofocus/>
                                    </label>
                                    <label>
                                        {t!(language, "reset-new-password-again")}
                                        <input type="password" name="password_again" autocomplete="new-password" required minlength="10"/>
                                    </label>
                                    <button type="submit" class="button">{t!(language, "reset-submit")}</button>
                                </form>
                                <p class="hint">{t!(language, "reset-hint")}</p>
                            }.into_any(),
                            Err(_) => view! {
                                <p class="notice notice-error" role="alert">{t!(language, "reset-link-dead")}</p>
                                <p><a href="/login">{t!(language, "reset-to-sign-in")}</a></p>
                            }.into_any(),
                        }
                    })
                }}
            </Suspense>
        </section>
    }
}

//! The sign-in page: a plain HTML form posting `username` and `password` (and the session's CSRF
//! token) to `/login`, which works with JavaScript off. A refused attempt comes back here with
//! the name kept and the reason in words.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::shell::sign_in_token;

fn problem_text(code: &str) -> Option<&'static str> {
    match code {
        "invalid" => Some("That name and password do not match. Check both (and the tenant, if your name is used in more than one) and try again."),
        "expired" => Some("The sign-in form had expired. It has been renewed; please sign in again."),
        "unavailable" => Some("The server could not reach its database. Try again in a moment."),
        _ => None,
    }
}

#[component]
pub fn Login() -> impl IntoView {
    let query = use_query_map();
    let token = Resource::new(|| (), |_| sign_in_token());
    let param = move |name: &str| query.with_untracked(|q| q.get(name)).unwrap_or_default();
    let problem = problem_text(&param("error"));
    let signed_out = !param("signed_out").is_empty();
    let next = param("next");
    let username = param("username");
    let tenant = param("tenant");
    view! {
        <Title text="Sign in"/>
        <section class="login-card">
            <h1>"Sign in to opledger"</h1>
            {problem.map(|text| view! { <p class="notice notice-error" role="alert">{text}</p> })}
            {signed_out.then(|| view! { <p class="notice" role="status">"You are signed out."</p> })}
            <form method="post" action="/login" class="stack">
                <label>
                    "Name"
                    <input type="text" name="username" autocomplete="username" required autofocus value=username/>
                </label>
                <label>
                    "Password"
                    <input type="password" name="password" autocomplete="current-password" required/>
                </label>
                <label>
                    <span>"Tenant "<span class="optional">"(optional)"</span></span>
                    <input type="text" name="tenant" autocomplete="organization" aria-describedby="tenant-hint" value=tenant/>
                    <span id="tenant-hint" class="field-hint">"Needed only when more than one tenant uses your sign-in."</span>
                </label>
                <input type="hidden" name="next" value=next/>
                <Suspense fallback=|| ()>
                    {move || Suspend::new(async move {
                        let csrf = token.await.unwrap_or_default();
                        view! { <input type="hidden" name="csrf" value=csrf/> }
                    })}
                </Suspense>
                <button type="submit" class="button">"Sign in"</button>
            </form>
            <p class="hint">"Accounts are made by an admin, or with "<code>"opledger user add"</code>"."</p>
        </section>
    }
}

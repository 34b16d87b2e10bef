//! The sign-in page: a plain HTML form posting `username` and `password` (and the session's CSRF
//! token) to `/login`, which works with JavaScript off. A refused attempt comes back here with
//! the name kept and the reason in words. When an organisation signs in through its identity
//! provider, a second form asks for a work e-mail or the organisation's name and continues there
//! (`/login/sso`); `/login?account=acme.example` names the organisation's button. It speaks the
//! browser's language.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::language::current_language;
use crate::console::shell::sign_in_token;
use crate::console::sso::{company_sign_in, sign_in_problem};
use crate::domain::language::Language;
use crate::t;

fn problem_text(code: &str, language: Language) -> Option<String> {
    match code {
        "invalid" => Some(t!(language, "login-problem-invalid")),
        "expired" => Some(t!(language, "login-problem-expired")),
        "unavailable" => Some(t!(language, "error-unavailable")),
        "two_factor_expired" => Some(t!(language, "two-factor-step-expired")),
        _ => None,
    }
}

/// Where the command goes in the hint about accounts: each language places it in its sentence.
const COMMAND: &str = "\u{E000}";

#[component]
pub fn Login() -> impl IntoView {
    let language = current_language();
    let query = use_query_map();
    let token = Resource::new(|| (), |_| sign_in_token());
    let param = move |name: &str| query.with_untracked(|q| q.get(name)).unwrap_or_default();
    let account = param("account");
    let problem = problem_text(&param("error"), language)
        .or_else(|| sign_in_problem(&param("error"), &account, language));
    let company = Resource::new(
        {
            let account = account.clone();
            move || account.clone()
        },
        company_sign_in,
    );
    let accounts = t!(language, "login-accounts-hint", command = COMMAND);
    let (accounts_before, accounts_after) = match accounts.split_once(COMMAND) {
        Some((before, after)) => (before.to_owned(), after.to_owned()),
        None => (accounts.clone(), String::new()),
    };
    let signed_out = !param("signed_out").is_empty();
    let password_set = !param("reset").is_empty();
    let next = param("next");
    let next_for_company = next.clone();
    let username = param("username");
    let tenant = param("tenant");
    view! {
        <Title text=t!(language, "login-title")/>
        <section class="login-card">
            <h1>{t!(language, "login-heading")}</h1>
            {problem.map(|text| view! { <p class="notice notice-error" role="alert">{text}</p> })}
            {signed_out.then(|| view! { <p class="notice" role="status">{t!(language, "login-signed-out")}</p> })}
            {password_set.then(|| view! { <p class="notice" role="status">{t!(language, "login-password-set")}</p> })}
            <form method="post" action="/login" class="stack">
                <label>
                    {t!(language, "login-name")}
                    <input type="text" name="username" autocomplete="username" required autofocus value=username/>
                </label>
                <label>
                    {t!(language, "login-password")}
                    <input type="password" name="password" autocomplete="current-password" required/>
                </label>
                <label>
                    <span>{t!(language, "login-tenant")}" "<span class="optional">{t!(language, "login-tenant-optional")}</span></span>
                    <input type="text" name="tenant" autocomplete="organization" aria-describedby="tenant-hint" value=tenant/>
                    <span id="tenant-hint" class="field-hint">{t!(language, "login-tenant-hint")}</span>
                </label>
                <input type="hidden" name="next" value=next/>
                <Suspense fallback=|| ()>
                    {move || Suspend::new(async move {
                        let csrf = token.await.unwrap_or_default();
                        view! { <input type="hidden" name="csrf" value=csrf/> }
                    })}
                </Suspense>
                <button type="submit" class="button">{t!(language, "login-submit")}</button>
            </form>
            <p class="hint">{accounts_before}<code>"opledger user add"</code>{accounts_after}</p>
            <Suspense fallback=|| ()>
                {move || Suspend::new({
                    let (account, next) = (account.clone(), next_for_company.clone());
                    async move {
                        let company = company.await.unwrap_or_default();
                        let csrf = token.await.unwrap_or_default();
                        company.offered.then(|| {
                            let button = match company.display_name {
                                Some(name) => t!(language, "sso-login-with", name = name),
                                None => t!(language, "sso-login-continue"),
                            };
                            view! {
                                <form method="post" action="/login/sso" class="stack" data-testid="company-sign-in">
                                    <h2>{t!(language, "sso-login-heading")}</h2>
                                    <label>
                                        {t!(language, "sso-login-account")}
                                        <input type="text" name="account" autocomplete="email" required value=account
                                            aria-describedby="company-hint"/>
                                    </label>
                                    <span id="company-hint" class="field-hint">{t!(language, "sso-login-account-hint")}</span>
                                    <input type="hidden" name="next" value=next/>
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <button type="submit" class="button">{button}</button>
                                </form>
                            }
                        })
                    }
                })}
            </Suspense>
        </section>
    }
}

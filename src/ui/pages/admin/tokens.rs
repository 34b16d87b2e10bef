//! The admin's API tokens: a table of the tenant's tokens (name, scopes, who created each and
//! when, last use with its client address, expiry, status) with a rotate form (a grace period for
//! the old secret) and a revoke button on each active one, both confirmed in a dialog, and a form
//! to create one (name, scopes, expiry in days). A new or rotated secret is shown once, in the
//! section's answer. Only admins open it; the server checks the role and the tenant for the list
//! and again for every form.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use crate::console::api_tokens::{api_tokens, ApiTokenView, CreateApiToken, RevokeApiToken, RotateApiToken};
use crate::console::language::current_language;
use crate::domain::api_token::Scope;
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

/// Given to `t!` where a sentence has a time, so that each language places it: [`with_time`]
/// puts the [`Time`] there.
const TIME_MARK: &str = "\u{E000}";

/// A sentence made with `t!` with [`TIME_MARK`] for its time: its words with the time in place.
fn with_time(sentence: String, at: DateTime<Utc>) -> AnyView {
    match sentence.split_once(TIME_MARK) {
        Some((before, after)) => view! { {before.to_owned()}<Time at/>{after.to_owned()} }.into_any(),
        None => view! { {sentence}" "<Time at/> }.into_any(),
    }
}

/// A scope's name in words.
fn scope_words(scope: &str, language: Language) -> String {
    match Scope::parse(scope) {
        Some(Scope::Tools) => t!(language, "tokens-scope-tools"),
        Some(Scope::Read) => t!(language, "tokens-scope-read"),
        Some(Scope::Write) => t!(language, "tokens-scope-write"),
        None => scope.to_owned(),
    }
}

/// What a scope lets a token call, for the create form's hint.
fn scope_hint(scope: Scope, language: Language) -> String {
    match scope {
        Scope::Tools => t!(language, "tokens-scope-tools-hint"),
        Scope::Read => t!(language, "tokens-scope-read-hint"),
        Scope::Write => t!(language, "tokens-scope-write-hint"),
    }
}

/// A token's status in words.
fn status_words(status: &str, language: Language) -> String {
    match status {
        "active" => t!(language, "tokens-status-active"),
        "expired" => t!(language, "tokens-status-expired"),
        "revoked" => t!(language, "tokens-status-revoked"),
        other => other.to_owned(),
    }
}

/// A grace period's choice in words.
fn grace_words(hours: u32, language: Language) -> String {
    match hours {
        0 => t!(language, "tokens-grace-none"),
        1 => t!(language, "tokens-grace-hour"),
        24 => t!(language, "tokens-grace-day"),
        168 => t!(language, "tokens-grace-week"),
        hours => t!(language, "tokens-grace-hours", hours = hours),
    }
}

#[component]
pub fn ApiTokens() -> impl IntoView {
    let language = current_language();
    let create = ServerAction::<CreateApiToken>::new();
    let revoke = ServerAction::<RevokeApiToken>::new();
    let rotate = ServerAction::<RotateApiToken>::new();
    let tokens = Resource::new(|| (), |_| api_tokens());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="api-tokens" aria-labelledby="api-tokens-heading">
            <h2 id="api-tokens-heading">{t!(language, "tokens-heading")}</h2>
            <p class="muted">{t!(language, "tokens-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match tokens.await {
                        Ok(page) => view! {
                            <TokenList tokens=page.tokens grace_choices=page.grace_choices_hours revoke rotate csrf=csrf.clone()/>
                            <CreateTokenForm create csrf default_days=page.default_expiry_days max_days=page.max_expiry_days/>
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" aria-live="polite" id="tokens-result" data-testid="tokens-result"></p>
        </section>
    }
}

#[component]
fn TokenList(
    tokens: Vec<ApiTokenView>,
    grace_choices: Vec<u32>,
    revoke: ServerAction<RevokeApiToken>,
    rotate: ServerAction<RotateApiToken>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if tokens.is_empty() {
        return view! { <p class="empty-state" data-testid="tokens-empty">{t!(language, "tokens-empty")}</p> }.into_any();
    }
    let columns = [
        t!(language, "tokens-col-name"),
        t!(language, "tokens-col-scopes"),
        t!(language, "tokens-col-created-by"),
        t!(language, "tokens-col-created"),
        t!(language, "tokens-col-last-use"),
        t!(language, "tokens-col-expires"),
        t!(language, "tokens-col-status"),
        t!(language, "tokens-col-actions"),
    ];
    let [name, scopes, created_by, created, last_use, expires, status, actions] = columns.clone();
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="api-token-list">
            <caption class="visually-hidden">{t!(language, "tokens-heading")}</caption>
            <thead><tr>
                {columns.into_iter().map(|column| view! { <th scope="col">{column}</th> }).collect_view()}
            </tr></thead>
            <tbody>
                {tokens.into_iter().map(|token| {
                    let (csrf_rotate, csrf_revoke) = (csrf.clone(), csrf.clone());
                    let grace_choices = grace_choices.clone();
                    let active = token.status == "active";
                    let scope_list = token.scopes.iter().map(|scope| scope_words(scope, language)).collect::<Vec<_>>().join(", ");
                    let creator = if token.created_by.is_empty() { t!(language, "tokens-created-by-unknown") } else { token.created_by.clone() };
                    let last = match (token.last_used_at, token.last_used_from.clone()) {
                        (Some(at), Some(from)) => with_time(t!(language, "tokens-last-use-from", time = TIME_MARK, address = from), at),
                        (Some(at), None) => view! { <Time at/> }.into_any(),
                        (None, _) => view! { <span class="muted">{t!(language, "tokens-never-used")}</span> }.into_any(),
                    };
                    let expiry = match (token.expires_at, token.status.as_str()) {
                        (Some(at), "expired") => view! { <strong class="status-expired">{with_time(t!(language, "tokens-expired-at", time = TIME_MARK), at)}</strong> }.into_any(),
                        (Some(at), _) => view! { <Time at/> }.into_any(),
                        (None, _) => view! { {t!(language, "tokens-never-expires")} }.into_any(),
                    };
                    let old_secret = token.old_secret_until.map(|until| view! {
                        <br/><span class="muted small">{with_time(t!(language, "tokens-old-secret-until", time = TIME_MARK), until)}</span>
                    });
                    let grace_id = format!("grace-{}", token.name);
                    let (name_rotate, name_revoke) = (token.name.clone(), token.name.clone());
                    let rotate_consequence = t!(language, "tokens-rotate-consequence", name = token.name.as_str());
                    let revoke_consequence = t!(language, "tokens-revoke-consequence", name = token.name.as_str());
                    let grace_label = t!(language, "tokens-grace-label", name = token.name.as_str());
                    let revoke_label = t!(language, "tokens-revoke-named", name = token.name.as_str());
                    view! {
                        <tr data-testid="api-token" data-name=token.name.clone() data-status=token.status.clone()>
                            <td data-label=name.clone()><code>{token.name.clone()}</code></td>
                            <td data-label=scopes.clone()>{scope_list}</td>
                            <td data-label=created_by.clone()>{creator}</td>
                            <td data-label=created.clone()><Time at=token.created_at/></td>
                            <td data-label=last_use.clone()>{last}</td>
                            <td data-label=expires.clone()>{expiry}</td>
                            <td data-label=status.clone()>{status_words(&token.status, language)}{old_secret}</td>
                            <td data-label=actions.clone()>
                                {active.then(|| view! {
                                    <ActionForm action=rotate attr:class="inline-form" attr:data-answer-to="tokens-result"
                                        attr:data-testid="rotate-token"
                                        attr:data-confirm=rotate_consequence>
                                        <input type="hidden" name="csrf" value=csrf_rotate/>
                                        <input type="hidden" name="name" value=name_rotate/>
                                        <input type="hidden" name="confirmed" value=""/>
                                        <label for=grace_id.clone() class="visually-hidden">{grace_label}</label>
                                        <select name="grace_hours" id=grace_id data-testid="rotate-grace">
                                            {grace_choices.into_iter().map(|hours| view! {
                                                <option value=hours.to_string() selected=hours == 24>{grace_words(hours, language)}</option>
                                            }).collect_view()}
                                        </select>
                                        <button type="submit" class="button button-quiet">{t!(language, "tokens-rotate")}</button>
                                    </ActionForm>
                                    <ActionForm action=revoke attr:class="inline-form" attr:data-answer-to="tokens-result"
                                        attr:data-testid="revoke-token"
                                        attr:data-confirm=revoke_consequence>
                                        <input type="hidden" name="csrf" value=csrf_revoke/>
                                        <input type="hidden" name="name" value=name_revoke/>
                                        <input type="hidden" name="confirmed" value=""/>
                                        <button type="submit" class="button danger"
                                            aria-label=revoke_label>{t!(language, "tokens-revoke")}</button>
                                    </ActionForm>
                                })}
                            </td>
                        </tr>
                    }
                    .into_any()
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
    .into_any()
}

/// The form of a new token: its name, a checkbox per scope (agent tools checked to begin with, as
/// most tokens are an agent's) and its expiry in days.
#[component]
fn CreateTokenForm(
    create: ServerAction<CreateApiToken>,
    csrf: String,
    default_days: u32,
    max_days: u32,
) -> impl IntoView {
    let language = current_language();
    view! {
        <h3>{t!(language, "tokens-create-heading")}</h3>
        <ActionForm action=create attr:class="filters" attr:data-answer-to="tokens-result" attr:data-testid="create-token">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "tokens-name")}
                <input type="text" name="name" required maxlength="64" size="20" placeholder="support-agent" autocomplete="off"
                    data-testid="token-name"/>
            </label>
            <fieldset class="choices" aria-describedby="token-scopes-hint">
                <legend>{t!(language, "tokens-scopes")}</legend>
                {Scope::ALL.into_iter().enumerate().map(|(i, scope)| view! {
                    <label class="choice">
                        <input type="checkbox" name=format!("scopes[{i}]") value=scope.as_str() checked=scope == Scope::Tools
                            data-testid=format!("token-scope-{}", scope.as_str())/>
                        {scope_words(scope.as_str(), language)}
                    </label>
                }).collect_view()}
            </fieldset>
            <ul class="muted small hint" id="token-scopes-hint">
                {Scope::ALL.into_iter().map(|scope| view! { <li>{scope_hint(scope, language)}</li> }).collect_view()}
            </ul>
            <label>{t!(language, "tokens-expires-in-days")}
                <input type="number" name="expires_in_days" value=default_days.to_string() min="1" max=max_days.to_string()
                    step="1" required inputmode="numeric" aria-describedby="token-expiry-hint" data-testid="token-days"/>
            </label>
            <p class="muted small hint" id="token-expiry-hint">{t!(language, "tokens-expiry-hint", days = default_days, max = max_days)}</p>
            <div class="filter-actions"><button type="submit" class="button" data-testid="create-token-submit">{t!(language, "tokens-create")}</button></div>
        </ActionForm>
    }
}

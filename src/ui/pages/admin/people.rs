//! The people page (`/admin`): the tenant's console users with their role, status, where they
//! sign in from and when they last did, each one's console language, a form to change a person
//! (a new role, deactivation or reactivation, sign-out everywhere, a one-time password link, a
//! reset of their two-factor sign-in), whether they sign in with a second factor,
//! each with a reason kept in the audit trail, and a form to add someone.

use leptos::prelude::*;

use super::{language_options, AdminFrame, AdminTab};
use crate::console::admin::{users, AddUser, SetUserLanguage, UserView};
use crate::console::language::current_language;
use crate::console::people::ChangePerson;
use crate::domain::language::Language;
use crate::domain::people::{UserSource, UserStatus};
use crate::domain::policy::Role;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

#[component]
pub fn AdminPeople() -> impl IntoView {
    let language = current_language();
    let add = ServerAction::<AddUser>::new();
    let set_language = ServerAction::<SetUserLanguage>::new();
    let change = ServerAction::<ChangePerson>::new();
    let list = Resource::new(|| (), |_| users());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <AdminFrame tab=AdminTab::People>
        <Suspense>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match list.await {
                    Ok(users) => {
                        let active: Vec<String> = users
                            .iter()
                            .filter(|user| user.status == UserStatus::Active)
                            .map(|user| user.name.clone())
                            .collect();
                        view! {
                        <section class="panel">
                            <h2>{t!(language, "admin-users-heading")}</h2>
                            <p class="muted">{t!(language, "people-intro")}</p>
                            <div class="table-wrap">
                            <table class="table" data-testid="users">
                                <thead><tr>
                                    <th scope="col">{t!(language, "admin-user-name")}</th>
                                    <th scope="col">{t!(language, "admin-user-role")}</th>
                                    <th scope="col">{t!(language, "people-status")}</th>
                                    <th scope="col">{t!(language, "people-source")}</th>
                                    <th scope="col">{t!(language, "two-factor-column")}</th>
                                    <th scope="col">{t!(language, "people-last-sign-in")}</th>
                                    <th scope="col">{t!(language, "admin-users-added")}</th>
                                    <th scope="col">{t!(language, "admin-user-language")}</th>
                                    <th scope="col">{t!(language, "people-change")}</th>
                                </tr></thead>
                                <tbody>
                                    {users.into_iter().map(|user| {
                                        let heirs = active.iter().filter(|name| **name != user.name).cloned().collect();
                                        view! { <PersonRow user heirs set_language change csrf=csrf.clone() language/> }
                                    }).collect_view()}
                                </tbody>
                            </table>
                            </div>
                            <p class="muted small hint">{t!(language, "admin-users-language-hint")}</p>
                            <p class="action-result" role="status" id="user-language-result" data-testid="user-language-result"></p>
                            <p class="action-result" role="status" id="people-result" data-testid="people-result"></p>
                        </section>
                        <section class="panel" data-testid="add-user">
                            <h2>{t!(language, "admin-add-user-heading")}</h2>
                            <ActionForm action=add attr:class="filters" attr:data-answer-to="users-result">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>{t!(language, "admin-user-name")}<input type="text" name="name" required autocomplete="off"/></label>
                                <label>{t!(language, "admin-user-role")}
                                    <select name="role">
                                        {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.label_in(language)}</option> }).collect_view()}
                                    </select>
                                </label>
                                <label>{t!(language, "admin-add-user-password")}<input type="password" name="password" required minlength="10" autocomplete="new-password"/></label>
                                <label>{t!(language, "admin-user-language")}
                                    <select name="language">{language_options(None, language)}</select>
                                </label>
                                <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-add-user-submit")}</button></div>
                            </ActionForm>
                            <p class="action-result" role="status" id="users-result"></p>
                        </section>
                    }.into_any()
                    }
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
        </AdminFrame>
    }
}

/// One person: who they are, and the forms that change their language and the rest.
#[component]
fn PersonRow(
    user: UserView,
    /// The other active people, who may take over this person's API tokens.
    heirs: Vec<String>,
    set_language: ServerAction<SetUserLanguage>,
    change: ServerAction<ChangePerson>,
    csrf: String,
    language: Language,
) -> impl IntoView {
    let label = t!(language, "admin-user-language-of", name = user.name.clone());
    let active = user.status == UserStatus::Active;
    let (status_class, status_words) = if active {
        ("badge state-succeeded", t!(language, "people-status-active"))
    } else {
        ("badge state-cancelled", t!(language, "people-status-deactivated"))
    };
    let source_words = match user.source {
        UserSource::Local => t!(language, "people-source-local"),
        UserSource::Sso => t!(language, "people-source-sso"),
    };
    let two_factor = match (user.source, user.two_factor) {
        (UserSource::Sso, _) => {
            view! { <span class="muted">{t!(language, "two-factor-by-provider")}</span> }.into_any()
        }
        (UserSource::Local, true) => {
            view! { <span class="badge state-succeeded">{t!(language, "two-factor-state-on")}</span> }
                .into_any()
        }
        (UserSource::Local, false) => {
            view! { <span class="muted">{t!(language, "two-factor-state-off")}</span> }.into_any()
        }
    };
    let name = user.name.clone();
    let row_name = name.clone();
    let shown_name = name.clone();
    let role = user.role.label_in(language);
    let you = user.is_you.then(|| view! { " "<span class="muted small">{t!(language, "people-you")}</span> });
    let last_sign_in = match user.last_sign_in_at {
        Some(at) => view! { <Time at/> }.into_any(),
        None => view! { <span class="muted">{t!(language, "people-never")}</span> }.into_any(),
    };
    let created_at = user.created_at;
    let chosen = user.language;
    let language_csrf = csrf.clone();
    let change_form = view! { <ChangeForm user heirs change csrf language/> };
    view! {
        <tr data-testid="person" data-name=row_name>
            <td>{shown_name}{you}</td>
            <td data-label=t!(language, "admin-user-role")>{role}</td>
            <td data-label=t!(language, "people-status")><span class=status_class>{status_words}</span></td>
            <td data-label=t!(language, "people-source")>{source_words}</td>
            <td data-label=t!(language, "two-factor-column") data-testid="person-two-factor">{two_factor}</td>
            <td data-label=t!(language, "people-last-sign-in")>{last_sign_in}</td>
            <td data-label=t!(language, "admin-users-added")><Time at=created_at/></td>
            <td>
                <ActionForm action=set_language attr:class="inline-form" attr:data-answer-to="user-language-result"
                    attr:data-testid="user-language-form">
                    <input type="hidden" name="csrf" value=language_csrf/>
                    <input type="hidden" name="name" value=name/>
                    <select name="language" aria-label=label>
                        {language_options(chosen, language)}
                    </select>
                    <button type="submit" class="button button-quiet">{t!(language, "language-change")}</button>
                </ActionForm>
            </td>
            <td>{change_form}</td>
        </tr>
    }
}

/// The change form of one person, behind a disclosure: what to do (only what the rules allow for
/// them: a new role for someone else who signs in with a password (a company account's role comes
/// from its groups), deactivation for someone else, a password link for an active local user),
/// the new role, who takes over their API tokens if they are deactivated, and the reason for the
/// audit trail.
#[component]
fn ChangeForm(
    user: UserView,
    heirs: Vec<String>,
    change: ServerAction<ChangePerson>,
    csrf: String,
    language: Language,
) -> impl IntoView {
    let active = user.status == UserStatus::Active;
    let others = !user.is_you;
    let role_here = others && active && user.source == UserSource::Local;
    let options = [
        ("role", role_here, t!(language, "people-do-role")),
        ("sign_out", active, t!(language, "people-do-sign-out")),
        ("reset_password", active && user.source == UserSource::Local, t!(language, "people-do-reset")),
        (
            "reset_two_factor",
            user.two_factor && user.source == UserSource::Local,
            t!(language, "two-factor-do-reset"),
        ),
        ("deactivate", others && active, t!(language, "people-do-deactivate")),
        ("reactivate", !active, t!(language, "people-do-reactivate")),
    ];
    let summary = t!(language, "people-change-of", name = user.name.clone());
    view! {
        <details class="disclosure person-change">
            <summary aria-label=summary>{t!(language, "people-change-open")}</summary>
            <ActionForm action=change attr:class="stack" attr:data-answer-to="people-result" attr:data-testid="change-person">
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="name" value=user.name.clone()/>
                <label>{t!(language, "people-change-what")}
                    <select name="change">
                        {options
                            .into_iter()
                            .filter(|(_, offered, _)| *offered)
                            .map(|(value, _, words)| view! { <option value=value>{words}</option> })
                            .collect_view()}
                    </select>
                </label>
                {role_here.then(|| view! {
                    <label>{t!(language, "people-new-role")}
                        <select name="role">
                            {Role::ALL
                                .into_iter()
                                .map(|role| view! { <option value=role.as_str() selected=role == user.role>{role.label_in(language)}</option> })
                                .collect_view()}
                        </select>
                    </label>
                })}
                {(others && active).then(|| view! {
                    <label>{t!(language, "people-tokens-to")}
                        <select name="tokens_to">
                            <option value="">{t!(language, "people-tokens-to-none")}</option>
                            {heirs.into_iter().map(|heir| { let value = heir.clone(); view! { <option value=value>{heir}</option> } }).collect_view()}
                        </select>
                    </label>
                })}
                <label>{t!(language, "people-reason")}
                    <input type="text" name="reason" required maxlength="500" autocomplete="off"
                        placeholder=t!(language, "people-reason-example")/>
                </label>
                <button type="submit" class="button">{t!(language, "people-apply")}</button>
            </ActionForm>
        </details>
    }
}

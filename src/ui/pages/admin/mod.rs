//! The admin pages, each short, under `/admin` with their own navigation: people (`/admin`: the
//! tenant's console users, their status, source and last sign-in, adding one, each one's console
//! language, and changing a person: role, deactivation, sign-out everywhere, a password link),
//! sign-in and access (`/admin/access`: session lifetimes and the API tokens), provider accounts and customer email templates
//! (`/admin/providers`), the approval policy and the customers' language (`/admin/policy`),
//! webhooks (`/admin/webhooks`), and notifications (`/admin/notifications`: the channels, shared
//! destinations, rules and the delivery log). Only admins open them; the server checks the role
//! for every page and again for every form.

mod access;
mod notifications;
mod people;
mod policy;
mod providers;
mod retention;
mod sso;
mod tokens;
mod webhooks;

pub use access::AdminAccess;
pub use notifications::AdminNotifications;
pub use people::AdminPeople;
pub use policy::AdminPolicy;
pub use providers::AdminProviders;
pub use retention::AdminRetention;
pub use webhooks::AdminWebhooks;

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::language::current_language;
use crate::domain::language::Language;
use crate::domain::policy::Section;
use crate::t;
use crate::ui::components::widgets::Time;

/// Given to `t!` where a sentence has a time, so that each language places it:
/// [`with_time`] puts the [`Time`] there.
const TIME_MARK: &str = "\u{E000}";
/// Around a name given to `t!` that the page shows as code: [`with_code`] puts it in `<code>`.
const CODE_START: char = '\u{E001}';
const CODE_END: char = '\u{E002}';

/// `name`, to be shown as code in a sentence made with `t!` (see [`with_code`]).
fn code(name: &str) -> String {
    format!("{CODE_START}{name}{CODE_END}")
}

/// A sentence made with `t!` with [`TIME_MARK`] for its time: its words with the time in place.
fn with_time(sentence: String, at: DateTime<Utc>) -> AnyView {
    match sentence.split_once(TIME_MARK) {
        Some((before, after)) => view! { {before.to_owned()}<Time at/>{after.to_owned()} }.into_any(),
        None => view! { {sentence}" "<Time at/> }.into_any(),
    }
}

/// A sentence made with `t!` with names given through [`code`]: its words with those in `<code>`.
fn with_code(sentence: String) -> AnyView {
    let mut parts = sentence.split(CODE_START);
    let first = parts.next().unwrap_or_default().to_owned();
    let rest: Vec<(String, String)> = parts
        .map(|part| {
            let (name, after) = part.split_once(CODE_END).unwrap_or((part, ""));
            (name.to_owned(), after.to_owned())
        })
        .collect();
    view! {
        {first}
        {rest.into_iter().map(|(name, after)| view! { <code>{name}</code>{after} }).collect_view()}
    }
    .into_any()
}

/// The options of a console language: the browser's first, then each language in its own words.
fn language_options(chosen: Option<Language>, language: Language) -> impl IntoView {
    view! {
        <option value="" selected=chosen.is_none()>{t!(language, "language-follow-browser")}</option>
        {Language::ALL
            .into_iter()
            .map(|option| view! {
                <option value=option.tag() lang=option.tag() selected=chosen == Some(option)>{option.own_name()}</option>
            })
            .collect_view()}
    }
}

/// The admin pages, in the order their navigation lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AdminTab {
    People,
    Access,
    Providers,
    Policy,
    Webhooks,
    Notifications,
    Retention,
}

impl AdminTab {
    const ALL: [AdminTab; 7] = [
        AdminTab::People,
        AdminTab::Access,
        AdminTab::Providers,
        AdminTab::Policy,
        AdminTab::Webhooks,
        AdminTab::Notifications,
        AdminTab::Retention,
    ];

    fn path(self) -> &'static str {
        match self {
            AdminTab::People => "/admin",
            AdminTab::Access => "/admin/access",
            AdminTab::Providers => "/admin/providers",
            AdminTab::Policy => "/admin/policy",
            AdminTab::Webhooks => "/admin/webhooks",
            AdminTab::Notifications => "/admin/notifications",
            AdminTab::Retention => "/admin/retention",
        }
    }

    fn label(self, language: Language) -> String {
        match self {
            AdminTab::People => t!(language, "admin-tab-people"),
            AdminTab::Access => t!(language, "admin-tab-access"),
            AdminTab::Providers => t!(language, "admin-tab-providers"),
            AdminTab::Policy => t!(language, "admin-tab-policy"),
            AdminTab::Webhooks => t!(language, "admin-tab-webhooks"),
            AdminTab::Notifications => t!(language, "admin-tab-notifications"),
            AdminTab::Retention => t!(language, "admin-tab-retention"),
        }
    }
}

/// One admin page: its title, the admin heading, the navigation between the admin pages (the
/// current one marked for screen readers too), then the page's own sections.
#[component]
fn AdminFrame(tab: AdminTab, children: Children) -> impl IntoView {
    let language = current_language();
    let section = Section::Admin.label(language);
    view! {
        <Title text=format!("{} · {section}", tab.label(language))/>
        <h1>{section}</h1>
        <nav class="subnav" aria-label=t!(language, "admin-nav-label")>
            <ul>
                {AdminTab::ALL
                    .into_iter()
                    .map(|each| view! {
                        <li><a href=each.path() aria-current=(each == tab).then_some("page")>{each.label(language)}</a></li>
                    })
                    .collect_view()}
            </ul>
        </nav>
        {children()}
    }
}

//! The sign-in and access page (`/admin/access`): how long console sessions live, how a
//! person's access is taken away at once, the tenant's API tokens and its single sign-on.

use leptos::prelude::*;

use super::sso::SingleSignOn;
use super::tokens::ApiTokens;
use super::{code, with_code, AdminFrame, AdminTab};
use crate::console::language::current_language;
use crate::console::people::session_settings;
use crate::t;
use crate::ui::components::widgets::ErrorPanel;

#[component]
pub fn AdminAccess() -> impl IntoView {
    let language = current_language();
    let settings = Resource::new(|| (), |_| session_settings());
    view! {
        <AdminFrame tab=AdminTab::Access>
            <section class="panel" data-testid="sessions">
                <h2>{t!(language, "access-sessions-heading")}</h2>
                <Suspense>
                    {move || Suspend::new(async move {
                        match settings.await {
                            Ok(settings) => view! {
                                <p>{t!(language, "access-sessions-lifetimes", idle = settings.idle_minutes, absolute = settings.absolute_hours)}</p>
                                <p class="muted small hint">{with_code(t!(
                                    language,
                                    "access-sessions-flags",
                                    idle = code("--session-idle"),
                                    max = code("--session-max"),
                                ))}</p>
                                <p class="muted">{t!(language, "access-leaving")}</p>
                            }.into_any(),
                            Err(error) => view! { <ErrorPanel error/> }.into_any(),
                        }
                    })}
                </Suspense>
            </section>
            <ApiTokens/>
            <SingleSignOn/>
        </AdminFrame>
    }
}

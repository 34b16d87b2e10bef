//! The sign-in and access page (`/admin/access`): how long console sessions live, how a
//! person's access is taken away at once, whether the tenant requires two-factor sign-in of its
//! managers and admins, the tenant's API tokens and its single sign-on.

use leptos::prelude::*;

use super::sso::SingleSignOn;
use super::tokens::ApiTokens;
use super::{code, with_code, AdminFrame, AdminTab};
use crate::console::language::current_language;
use crate::console::people::session_settings;
use crate::console::two_factor::{two_factor_requirement, SetTwoFactorRequired};
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, ViewerResource};

#[component]
pub fn AdminAccess() -> impl IntoView {
    let language = current_language();
    let settings = Resource::new(|| (), |_| session_settings());
    let required = Resource::new(|| (), |_| two_factor_requirement());
    let set_required = ServerAction::<SetTwoFactorRequired>::new();
    let viewer = expect_context::<ViewerResource>();
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
            <section class="panel" data-testid="two-factor-requirement">
                <h2>{t!(language, "two-factor-requirement-heading")}</h2>
                <Suspense>
                    {move || Suspend::new(async move {
                        let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                        match required.await {
                            Ok(on) => view! {
                                <p>{if on { t!(language, "two-factor-required-now-on") } else { t!(language, "two-factor-required-now-off") }}</p>
                                <p class="muted small hint">{t!(language, "two-factor-requirement-hint")}</p>
                                <ActionForm action=set_required attr:class="inline-form" attr:data-answer-to="two-factor-requirement-result">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="required" value=if on { "off" } else { "on" }/>
                                    <button type="submit" class="button">
                                        {if on { t!(language, "two-factor-require-off") } else { t!(language, "two-factor-require-on") }}
                                    </button>
                                </ActionForm>
                                <p class="action-result" role="status" id="two-factor-requirement-result"></p>
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

//! "Your account" (`/account`), reached from the name in the page header: the signed-in person's
//! own two-factor sign-in, and the way to their notifications (`/account/notifications`). Set it up (a QR code drawn on the server, and the secret written out
//! for typing), confirm it with a first code (the ten recovery codes show once), or turn it off
//! with a current code. Every form is a plain HTML form that works with JavaScript off. A
//! manager or admin whose tenant requires it, and who has not set it up, is sent here from every
//! other page.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::account::{my_account, AccountView, ConfirmTwoFactor, StartTwoFactor, TurnOffTwoFactor};
use crate::console::language::current_language;
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::widgets::ErrorPanel;

#[component]
pub fn AccountPage() -> impl IntoView {
    let language = current_language();
    let account = Resource::new(|| (), |_| my_account());
    view! {
        <Title text=t!(language, "account-title")/>
        <h1>{t!(language, "account-title")}</h1>
        <Suspense>
            {move || Suspend::new(async move {
                match account.await {
                    Ok(account) => view! { <TwoFactorPanel account language/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn TwoFactorPanel(account: AccountView, language: Language) -> impl IntoView {
    let start = ServerAction::<StartTwoFactor>::new();
    let confirm = ServerAction::<ConfirmTwoFactor>::new();
    let turn_off = ServerAction::<TurnOffTwoFactor>::new();
    let csrf = account.csrf.clone();
    let who = t!(language, "account-who", name = account.name.clone(), tenant = account.tenant.clone());
    let body = if !account.offered {
        view! { <p data-testid="two-factor-sso">{t!(language, "two-factor-refused-sso")}</p> }.into_any()
    } else if account.on {
        let left = t!(language, "two-factor-on", count = account.recovery_codes_left);
        let off = if account.may_turn_off {
            view! {
                <ActionForm action=turn_off attr:class="stack" attr:data-answer-to="account-result" attr:data-testid="turn-off-two-factor">
                    <input type="hidden" name="csrf" value=csrf.clone()/>
                    <label>{t!(language, "two-factor-code")}
                        <input type="text" name="code" required inputmode="numeric" autocomplete="one-time-code" maxlength="24"/>
                    </label>
                    <button type="submit" class="button button-quiet">{t!(language, "two-factor-turn-off")}</button>
                </ActionForm>
            }
            .into_any()
        } else {
            view! { <p class="muted">{t!(language, "two-factor-required-stays")}</p> }.into_any()
        };
        view! {
            <p><span class="badge state-succeeded" data-testid="two-factor-state">{t!(language, "two-factor-state-on")}</span>" "{left}</p>
            {off}
        }
        .into_any()
    } else if let Some(enrolling) = account.enrolling.clone() {
        let qr_label = t!(language, "two-factor-qr-label");
        view! {
            <ol class="stack two-factor-steps">
                <li>
                    <p>{t!(language, "two-factor-scan")}</p>
                    <div class="qr-code" role="img" aria-label=qr_label data-testid="two-factor-qr" inner_html=enrolling.qr_svg></div>
                    <p>{t!(language, "two-factor-type-secret")}</p>
                    <p><code class="two-factor-secret" data-testid="two-factor-secret">{enrolling.secret}</code></p>
                </li>
                <li>
                    <ActionForm action=confirm attr:class="stack" attr:data-testid="confirm-two-factor">
                        <input type="hidden" name="csrf" value=csrf.clone()/>
                        <label>{t!(language, "two-factor-first-code")}
                            <input type="text" name="code" required inputmode="numeric" autocomplete="one-time-code"
                                pattern="[0-9 ]{6,7}" maxlength="7" autofocus/>
                        </label>
                        <button type="submit" class="button">{t!(language, "two-factor-confirm")}</button>
                    </ActionForm>
                </li>
            </ol>
        }
        .into_any()
    } else if !account.seals_secrets {
        view! { <p class="notice notice-error" role="alert">{t!(language, "two-factor-no-key")}</p> }
            .into_any()
    } else {
        view! {
            <p>{t!(language, "two-factor-intro")}</p>
            <ActionForm action=start attr:data-testid="start-two-factor">
                <input type="hidden" name="csrf" value=csrf.clone()/>
                <button type="submit" class="button">{t!(language, "two-factor-start")}</button>
            </ActionForm>
        }
        .into_any()
    };
    let codes = account.new_recovery_codes.clone();
    let shown_codes = (!codes.is_empty()).then(|| {
        view! {
            <div class="notice" role="status" data-testid="new-recovery-codes">
                <p>{t!(language, "two-factor-recovery-once")}</p>
                <ol class="recovery-codes">
                    {codes.into_iter().map(|code| view! { <li><code>{code}</code></li> }).collect_view()}
                </ol>
            </div>
        }
    });
    let must = account.must_enrol.then(|| {
        view! { <p class="notice notice-error" role="alert" data-testid="two-factor-must">{t!(language, "two-factor-must-enrol")}</p> }
    });
    view! {
        <section class="panel" data-testid="account">
            <p>{who}</p>
            <p><a href="/account/notifications" data-testid="my-notifications-link">{t!(language, "notify-my-link")}</a></p>
        </section>
        <section class="panel" data-testid="two-factor">
            <h2>{t!(language, "two-factor-heading")}</h2>
            {must}
            {shown_codes}
            {body}
            <p class="action-result" role="status" id="account-result" data-testid="account-result"></p>
        </section>
    }
}

//! "Your notifications" (`/account/notifications`), reached from "Your account": where the
//! signed-in person is told (their e-mail address, their LINE user id), their time zone and quiet
//! hours, what they mute for themselves (an event, a channel; escalations still reach them), and
//! the newest deliveries to them with where each stands. Whatever the form holds, it changes the
//! signed-in person's own settings alone.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::language::current_language;
use crate::console::notifications::{
    my_notifications, MyNotificationsView, SetMyNotifications, OWN_DELIVERIES_SHOWN,
};
use crate::domain::language::Language;
use crate::domain::notification::{Channel, NotifyEvent};
use crate::t;
use crate::ui::components::notifications::{channel_words, event_words, DeliveryTable};
use crate::ui::components::widgets::{ErrorPanel, ViewerResource};

/// The time zones the form suggests; any IANA name is taken.
const COMMON_ZONES: [&str; 7] = [
    "Asia/Taipei",
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Tokyo",
    "Europe/London",
    "America/New_York",
    "UTC",
];

#[component]
pub fn MyNotificationsPage() -> impl IntoView {
    let language = current_language();
    let mine = Resource::new(|| (), |_| my_notifications());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text=t!(language, "notify-my-title")/>
        <p class="muted"><a href="/account">{t!(language, "notify-my-back")}</a></p>
        <h1>{t!(language, "notify-my-title")}</h1>
        <Suspense>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match mine.await {
                    Ok(mine) => view! { <Choices mine csrf language/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The place beside a field where a refusal of it shows (see the form helper).
fn field_error(field: &'static str) -> impl IntoView {
    view! { <span class="field-error" id=format!("my-{field}-error") data-error-for=field aria-live="polite"></span> }
}

#[component]
fn Choices(mine: MyNotificationsView, csrf: String, language: Language) -> impl IntoView {
    let save = ServerAction::<SetMyNotifications>::new();
    let MyNotificationsView { name, email, line_user_id, time_zone, quiet_hours, mutes, deliveries } = mine;
    let muted = |text: String| mutes.contains(&text);
    let mut index = 0_usize;
    let mut next_index = move || {
        index += 1;
        format!("mutes[{}]", index - 1)
    };
    let event_boxes: Vec<_> = NotifyEvent::ALL
        .into_iter()
        .map(|event| {
            let value = format!("event:{}", event.as_str());
            (next_index(), muted(value.clone()), value, event_words(event, language))
        })
        .collect();
    let channel_boxes: Vec<_> = [Channel::Email, Channel::Line]
        .into_iter()
        .map(|channel| {
            let value = format!("channel:{}", channel.as_str());
            (next_index(), muted(value.clone()), value, channel_words(channel, language))
        })
        .collect();
    let boxes = |boxes: Vec<(String, bool, String, String)>| {
        boxes
            .into_iter()
            .map(|(field, checked, value, words)| view! {
                <label class="choice"><input type="checkbox" name=field value=value checked=checked/>{words}</label>
            })
            .collect_view()
    };
    let log = if deliveries.is_empty() {
        view! { <p class="empty-state" data-testid="my-notify-empty">{t!(language, "notify-my-log-empty")}</p> }.into_any()
    } else {
        let caption = t!(language, "notify-my-log-heading");
        view! { <DeliveryTable deliveries language resend=None answer_to="my-notify-result" caption/> }
            .into_any()
    };
    view! {
        <section class="panel" data-testid="my-notify-settings" aria-labelledby="my-notify-heading">
            <h2 id="my-notify-heading">{t!(language, "notify-my-heading", name = name)}</h2>
            <p class="muted">{t!(language, "notify-my-intro")}</p>
            <ActionForm action=save attr:class="stack" attr:data-testid="my-notify-form" attr:data-answer-to="my-notify-result">
                <input type="hidden" name="csrf" value=csrf/>
                <label>{t!(language, "notify-my-email")}
                    <input type="email" name="email" value=email.unwrap_or_default() autocomplete="email" placeholder="name@example.com"/>
                    {field_error("email")}
                </label>
                <label>{t!(language, "notify-my-line")}
                    <span class="field-hint" id="my-line-hint">{t!(language, "notify-my-line-hint")}</span>
                    <input type="text" name="line_user_id" value=line_user_id.unwrap_or_default() autocomplete="off"
                        aria-describedby="my-line-hint" pattern="[UCR][0-9a-f]{32}" maxlength="33" spellcheck="false"/>
                    {field_error("line_user_id")}
                </label>
                <label>{t!(language, "notify-my-time-zone")}
                    <span class="field-hint" id="my-zone-hint">{t!(language, "notify-my-time-zone-hint")}</span>
                    <input type="text" name="time_zone" value=time_zone.unwrap_or_default() list="common-time-zones"
                        aria-describedby="my-zone-hint" autocomplete="off" placeholder="Asia/Taipei" spellcheck="false"/>
                    <datalist id="common-time-zones">
                        {COMMON_ZONES.into_iter().map(|zone| view! { <option value=zone></option> }).collect_view()}
                    </datalist>
                    {field_error("time_zone")}
                </label>
                <label>{t!(language, "notify-my-quiet-hours")}
                    <span class="field-hint" id="my-quiet-hint">{t!(language, "notify-my-quiet-hours-hint")}</span>
                    <input type="text" name="quiet_hours" value=quiet_hours.unwrap_or_default() aria-describedby="my-quiet-hint"
                        autocomplete="off" placeholder="22:00-07:30" size="12"/>
                    {field_error("quiet_hours")}
                </label>
                <fieldset class="choices">
                    <legend>{t!(language, "notify-my-mute-events")}</legend>
                    {boxes(event_boxes)}
                </fieldset>
                <fieldset class="choices">
                    <legend>{t!(language, "notify-my-mute-channels")}</legend>
                    {boxes(channel_boxes)}
                </fieldset>
                <span class="field-error" id="my-mutes-error" data-error-for="mutes" aria-live="polite"></span>
                <p class="muted small">{t!(language, "notify-my-mutes-hint")}</p>
                <div><button type="submit" class="button">{t!(language, "notify-my-save")}</button></div>
            </ActionForm>
            <p class="action-result" role="status" id="my-notify-result" data-testid="my-notify-result"></p>
        </section>
        <section class="panel" data-testid="my-notify-log" aria-labelledby="my-notify-log-heading">
            <h2 id="my-notify-log-heading">{t!(language, "notify-my-log-heading")}</h2>
            <p class="muted">{t!(language, "notify-my-log-intro", count = OWN_DELIVERIES_SHOWN)}</p>
            {log}
        </section>
    }
    .into_any()
}

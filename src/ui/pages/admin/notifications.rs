//! The notifications page (`/admin/notifications`): what waits for a person reaches them where
//! they work. The channels the tenant sends on (its SMTP server, its LINE account), the shared
//! destinations (a Slack or Teams channel, a LINE group, a shared mailbox), the rules (which
//! event, who hears it, on which channel, when, reminded how often, escalated to whom) and the
//! log of the newest deliveries with a "send again"; each section says what it does.

use leptos::prelude::*;

use super::{code, with_code, with_time, AdminFrame, AdminTab, TIME_MARK};
use crate::console::language::current_language;
use crate::console::notifications::{
    notification_settings, AddNotifyDestination, AddNotifyRule, DestinationView, LineView, NotificationsView,
    RemoveNotifyAccount, RemoveNotifyDestination, RemoveNotifyRule, ResendNotification, RuleView,
    SetNotifyLine, SetNotifySmtp, SmtpView, TENANT_DELIVERIES_SHOWN,
};
use crate::domain::language::Language;
use crate::domain::notification::{Channel, NotifyEvent};
use crate::domain::policy::Role;
use crate::t;
use crate::ui::components::notifications::{
    audience_words, channel_words, escalation_words, event_words, first_message_words, reminder_words,
    DeliveryTable,
};
use crate::ui::components::widgets::{ErrorPanel, ViewerResource};

#[component]
pub fn AdminNotifications() -> impl IntoView {
    let language = current_language();
    let page = Resource::new(|| (), |_| notification_settings());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <AdminFrame tab=AdminTab::Notifications>
            <p class="muted" data-testid="notify-intro">{t!(language, "notify-admin-intro")}</p>
            <Suspense>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match page.await {
                        Ok(page) => view! { <Sections page csrf language/> }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Suspense>
        </AdminFrame>
    }
}

/// The place beside a form field where a refusal of that field shows (see the form helper).
fn field_error(form: &'static str, field: &'static str) -> impl IntoView {
    view! { <span class="field-error" id=format!("{form}-{field}-error") data-error-for=field aria-live="polite"></span> }
}

#[component]
fn Sections(page: NotificationsView, csrf: String, language: Language) -> impl IntoView {
    let NotificationsView { smtp, line, destinations, rules, deliveries, seals_secrets } = page;
    let destination_names: Vec<String> =
        destinations.iter().map(|destination| destination.name.clone()).collect();
    let need_key = (!seals_secrets).then(|| {
        let needed = t!(
            language,
            "notify-need-key",
            variable = code("OPLEDGER_SECRET_KEY"),
            command = code("openssl rand -hex 32"),
        );
        view! { <p class="notice notice-error" role="alert">{with_code(needed)}</p> }
    });
    view! {
        {need_key}
        <Channels smtp line csrf=csrf.clone() language/>
        <Destinations destinations csrf=csrf.clone() language/>
        <Rules rules destination_names csrf=csrf.clone() language/>
        <DeliveryLog deliveries csrf language/>
    }
    .into_any()
}

#[component]
fn Channels(
    smtp: Option<SmtpView>,
    line: Option<LineView>,
    csrf: String,
    language: Language,
) -> impl IntoView {
    let set_smtp = ServerAction::<SetNotifySmtp>::new();
    let set_line = ServerAction::<SetNotifyLine>::new();
    let remove = ServerAction::<RemoveNotifyAccount>::new();
    let remove_form = move |account: &'static str, consequence: String, csrf: String| {
        view! {
            <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="notify-channels-result"
                attr:data-confirm=consequence>
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="account" value=account/>
                <input type="hidden" name="confirmed" value=""/>
                <button type="submit" class="button danger">{t!(language, "notify-remove")}</button>
            </ActionForm>
        }
    };
    let password_set = smtp.as_ref().is_some_and(|smtp| smtp.password_set);
    let smtp_now = match &smtp {
        Some(smtp) => {
            let password = if smtp.password_set {
                t!(language, "notify-smtp-password-set")
            } else {
                t!(language, "notify-smtp-password-unset")
            };
            let summary = t!(
                language,
                "notify-smtp-now",
                host = smtp.host.as_str(),
                port = u32::from(smtp.port),
                security = smtp.security.as_str(),
                from = smtp.from.as_str(),
            );
            let user = smtp.username.clone().map(|name| t!(language, "notify-smtp-now-user", name = name));
            view! {
                <p data-testid="notify-smtp-now">{summary}" "{user}" "{password}" "
                    {remove_form("smtp", t!(language, "notify-smtp-remove-consequence"), csrf.clone())}
                </p>
            }
            .into_any()
        }
        None => view! { <p class="empty-state">{t!(language, "notify-smtp-none")}</p> }.into_any(),
    };
    let line_now = match &line {
        Some(line) => view! {
            <p data-testid="notify-line-now">
                {t!(language, "notify-line-now", base = line.api_base.as_str(), last4 = line.token_last4.as_str())}" "
                {remove_form("line", t!(language, "notify-line-remove-consequence"), csrf.clone())}
            </p>
        }
        .into_any(),
        None => view! { <p class="empty-state">{t!(language, "notify-line-none")}</p> }.into_any(),
    };
    let smtp = smtp.unwrap_or(SmtpView {
        host: String::new(),
        port: 587,
        security: "starttls".into(),
        username: None,
        password_set: false,
        from: String::new(),
    });
    let security_options = [
        ("starttls", t!(language, "notify-smtp-security-starttls")),
        ("tls", t!(language, "notify-smtp-security-tls")),
        ("none", t!(language, "notify-smtp-security-none")),
    ];
    let password_hint = if password_set { t!(language, "notify-smtp-password-keep") } else { String::new() };
    let (smtp_csrf, line_csrf) = (csrf.clone(), csrf);
    view! {
        <section class="panel" data-testid="notify-channels" aria-labelledby="notify-channels-heading">
            <h2 id="notify-channels-heading">{t!(language, "notify-channels-heading")}</h2>
            <p class="muted">{t!(language, "notify-channels-intro")}</p>
            <h3>{t!(language, "notify-smtp-heading")}</h3>
            {smtp_now}
            <ActionForm action=set_smtp attr:class="filters" attr:data-testid="notify-smtp-form"
                attr:data-answer-to="notify-channels-result">
                <input type="hidden" name="csrf" value=smtp_csrf/>
                <label>{t!(language, "notify-smtp-host")}
                    <input type="text" name="host" required value=smtp.host placeholder="smtp.example.com" autocomplete="off"/>
                    {field_error("smtp", "host")}
                </label>
                <label>{t!(language, "notify-smtp-port")}
                    <input type="number" name="port" min="1" max="65535" value=smtp.port.to_string() inputmode="numeric"/>
                    {field_error("smtp", "port")}
                </label>
                <label>{t!(language, "notify-smtp-security")}
                    <select name="security">
                        {security_options.into_iter().map(|(value, words)| view! {
                            <option value=value selected=smtp.security == value>{words}</option>
                        }).collect_view()}
                    </select>
                    {field_error("smtp", "security")}
                </label>
                <label>{t!(language, "notify-smtp-username")}
                    <input type="text" name="username" value=smtp.username.unwrap_or_default() autocomplete="off"/>
                    {field_error("smtp", "username")}
                </label>
                <label>{t!(language, "notify-smtp-password")}
                    <input type="password" name="password" autocomplete="new-password" placeholder=password_hint/>
                    {field_error("smtp", "password")}
                </label>
                <label>{t!(language, "notify-smtp-from")}
                    <input type="email" name="from_address" required value=smtp.from placeholder="ops@example.com" autocomplete="off"/>
                    {field_error("smtp", "from_address")}
                </label>
                <div class="filter-actions"><button type="submit" class="button">{t!(language, "notify-smtp-save")}</button></div>
            </ActionForm>
            <h3>{t!(language, "notify-line-heading")}</h3>
            {line_now}
            <ActionForm action=set_line attr:class="filters" attr:data-testid="notify-line-form"
                attr:data-answer-to="notify-channels-result">
                <input type="hidden" name="csrf" value=line_csrf/>
                <label class="grow">{t!(language, "notify-line-api-base")}
                    <input type="url" name="api_base" placeholder="https://api.line.me" autocomplete="off"/>
                    {field_error("line", "api_base")}
                </label>
                <label class="grow">{t!(language, "notify-line-token")}
                    <input type="password" name="channel_token" required autocomplete="off"/>
                    {field_error("line", "channel_token")}
                </label>
                <div class="filter-actions"><button type="submit" class="button">{t!(language, "notify-line-save")}</button></div>
            </ActionForm>
            <p class="muted small hint">{t!(language, "notify-line-hint")}</p>
            <p class="action-result" role="status" id="notify-channels-result" data-testid="notify-channels-result"></p>
        </section>
    }
    .into_any()
}

#[component]
fn Destinations(destinations: Vec<DestinationView>, csrf: String, language: Language) -> impl IntoView {
    let add = ServerAction::<AddNotifyDestination>::new();
    let remove = ServerAction::<RemoveNotifyDestination>::new();
    let list = if destinations.is_empty() {
        view! { <p class="empty-state">{t!(language, "notify-destinations-empty")}</p> }.into_any()
    } else {
        let (name, channel, target, added, actions) = (
            t!(language, "notify-destination-name"),
            t!(language, "notify-destination-channel"),
            t!(language, "notify-destination-shown-target"),
            t!(language, "notify-destination-added-by"),
            t!(language, "notify-log-actions"),
        );
        view! {
            <div class="table-wrap">
            <table class="table" data-testid="notify-destinations">
                <thead><tr>
                    <th scope="col">{name.clone()}</th>
                    <th scope="col">{channel.clone()}</th>
                    <th scope="col">{target.clone()}</th>
                    <th scope="col">{added.clone()}</th>
                    <th scope="col">{actions.clone()}</th>
                </tr></thead>
                <tbody>
                    {destinations.into_iter().map(|destination| {
                        let by = t!(language, "admin-webhook-added-by", name = destination.created_by.as_str(), time = TIME_MARK);
                        let consequence = t!(language, "notify-destination-remove-consequence", name = destination.name.as_str());
                        let (row_csrf, row_name) = (csrf.clone(), destination.name.clone());
                        view! {
                            <tr data-testid="notify-destination" data-name=destination.name.clone()>
                                <td data-label=name.clone()><code>{destination.name.clone()}</code></td>
                                <td data-label=channel.clone()>{channel_words(destination.channel, language)}</td>
                                <td data-label=target.clone()>{destination.shown_target}</td>
                                <td data-label=added.clone()>{with_time(by, destination.created_at)}</td>
                                <td data-label=actions.clone()>
                                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="notify-destinations-result"
                                        attr:data-confirm=consequence>
                                        <input type="hidden" name="csrf" value=row_csrf/>
                                        <input type="hidden" name="name" value=row_name/>
                                        <input type="hidden" name="confirmed" value=""/>
                                        <button type="submit" class="button danger">{t!(language, "notify-remove")}</button>
                                    </ActionForm>
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
        }
        .into_any()
    };
    view! {
        <section class="panel" data-testid="notify-destinations-section" aria-labelledby="notify-destinations-heading">
            <h2 id="notify-destinations-heading">{t!(language, "notify-destinations-heading")}</h2>
            <p class="muted">{t!(language, "notify-destinations-intro")}</p>
            {list}
            <p class="action-result" role="status" id="notify-destinations-result" data-testid="notify-destinations-result"></p>
            <h3>{t!(language, "notify-destination-add-heading")}</h3>
            <ActionForm action=add attr:class="filters" attr:data-testid="notify-destination-form"
                attr:data-answer-to="notify-destinations-result">
                <input type="hidden" name="csrf" value=csrf/>
                <label>{t!(language, "notify-destination-name")}
                    <input type="text" name="name" required maxlength="40" pattern="[a-z0-9\\-]{1,40}" placeholder="ops-slack" autocomplete="off"/>
                    {field_error("destination", "name")}
                </label>
                <label>{t!(language, "notify-destination-channel")}
                    <select name="channel">
                        {[Channel::Slack, Channel::Teams, Channel::Line, Channel::Email].into_iter().map(|channel| view! {
                            <option value=channel.as_str()>{channel_words(channel, language)}</option>
                        }).collect_view()}
                    </select>
                    {field_error("destination", "channel")}
                </label>
                <label class="grow">{t!(language, "notify-destination-target")}
                    <input type="text" name="target" required autocomplete="off" placeholder="https://hooks.slack.com/services/…"/>
                    {field_error("destination", "target")}
                </label>
                <div class="filter-actions"><button type="submit" class="button">{t!(language, "notify-destination-add")}</button></div>
            </ActionForm>
            <p class="muted small hint">{t!(language, "notify-destination-target-hint")}</p>
        </section>
    }
    .into_any()
}

/// The options of an audience: each role, then each destination.
fn audience_options(destination_names: &[String], language: Language) -> impl IntoView {
    view! {
        <optgroup label=t!(language, "notify-audience-roles")>
            {Role::ALL.into_iter().map(|role| view! {
                <option value=format!("role:{}", role.as_str())>{t!(language, "notify-audience-role", role = role.label_in(language))}</option>
            }).collect_view()}
        </optgroup>
        {(!destination_names.is_empty()).then(|| view! {
            <optgroup label=t!(language, "notify-audience-destinations")>
                {destination_names.iter().map(|name| view! {
                    <option value=format!("destination:{name}")>{t!(language, "notify-audience-destination", name = name.as_str())}</option>
                }).collect_view()}
            </optgroup>
        })}
    }
}

#[component]
fn Rules(
    rules: Vec<RuleView>,
    destination_names: Vec<String>,
    csrf: String,
    language: Language,
) -> impl IntoView {
    let add = ServerAction::<AddNotifyRule>::new();
    let remove = ServerAction::<RemoveNotifyRule>::new();
    let list = if rules.is_empty() {
        view! { <p class="empty-state">{t!(language, "notify-rules-empty")}</p> }.into_any()
    } else {
        let labels = (
            t!(language, "notify-rule-event"),
            t!(language, "notify-rule-audience"),
            t!(language, "notify-rule-channel"),
            t!(language, "notify-rule-after"),
            t!(language, "notify-rule-remind-every"),
            t!(language, "notify-rule-escalation"),
            t!(language, "notify-log-actions"),
        );
        let (event, who, channel, when, reminders, escalation, actions) = labels;
        view! {
            <div class="table-wrap">
            <table class="table" data-testid="notify-rules">
                <thead><tr>
                    <th scope="col">{event.clone()}</th>
                    <th scope="col">{who.clone()}</th>
                    <th scope="col">{channel.clone()}</th>
                    <th scope="col">{when.clone()}</th>
                    <th scope="col">{reminders.clone()}</th>
                    <th scope="col">{escalation.clone()}</th>
                    <th scope="col">{actions.clone()}</th>
                </tr></thead>
                <tbody>
                    {rules.into_iter().map(|each| {
                        let rule = &each.rule;
                        let consequence = t!(language, "notify-rule-remove-consequence", event = event_words(rule.event, language));
                        let (row_csrf, row_id) = (csrf.clone(), each.id.clone());
                        view! {
                            <tr data-testid="notify-rule" data-id=each.id.clone() data-event=rule.event.as_str()>
                                <td data-label=event.clone()>{event_words(rule.event, language)}</td>
                                <td data-label=who.clone()>{audience_words(&rule.audience, language)}</td>
                                <td data-label=channel.clone()>{channel_words(rule.channel, language)}</td>
                                <td data-label=when.clone()>{first_message_words(rule, language)}</td>
                                <td data-label=reminders.clone()>{reminder_words(rule, language)}</td>
                                <td data-label=escalation.clone()>{escalation_words(rule, language)}</td>
                                <td data-label=actions.clone()>
                                    <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="notify-rules-result"
                                        attr:data-confirm=consequence>
                                        <input type="hidden" name="csrf" value=row_csrf/>
                                        <input type="hidden" name="id" value=row_id/>
                                        <input type="hidden" name="confirmed" value=""/>
                                        <button type="submit" class="button danger">{t!(language, "notify-remove")}</button>
                                    </ActionForm>
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
        }
        .into_any()
    };
    view! {
        <section class="panel" data-testid="notify-rules-section" aria-labelledby="notify-rules-heading">
            <h2 id="notify-rules-heading">{t!(language, "notify-rules-heading")}</h2>
            <p class="muted">{t!(language, "notify-rules-intro")}</p>
            {list}
            <p class="action-result" role="status" id="notify-rules-result" data-testid="notify-rules-result"></p>
            <h3>{t!(language, "notify-rule-add-heading")}</h3>
            <ActionForm action=add attr:class="filters" attr:data-testid="notify-rule-form"
                attr:data-answer-to="notify-rules-result">
                <input type="hidden" name="csrf" value=csrf/>
                <label>{t!(language, "notify-rule-event")}
                    <select name="event">
                        {NotifyEvent::ALL.into_iter().map(|event| view! {
                            <option value=event.as_str()>{event_words(event, language)}</option>
                        }).collect_view()}
                    </select>
                    {field_error("rule", "event")}
                </label>
                <label>{t!(language, "notify-rule-audience")}
                    <select name="audience">
                        {audience_options(&destination_names, language)}
                        <option value="people">{t!(language, "notify-audience-people-below")}</option>
                    </select>
                    {field_error("rule", "audience")}
                </label>
                <label>{t!(language, "notify-rule-people")}
                    <input type="text" name="people" placeholder="maria, sam" autocomplete="off"/>
                    {field_error("rule", "people")}
                </label>
                <label>{t!(language, "notify-rule-channel")}
                    <select name="channel">
                        {Channel::ALL.into_iter().map(|channel| view! {
                            <option value=channel.as_str()>{channel_words(channel, language)}</option>
                        }).collect_view()}
                    </select>
                    {field_error("rule", "channel")}
                </label>
                <label>{t!(language, "notify-rule-after")}
                    <input type="text" name="after" value="0" size="8" placeholder="15m" autocomplete="off"/>
                    {field_error("rule", "after")}
                </label>
                <label>{t!(language, "notify-rule-remind-every")}
                    <input type="text" name="remind_every" size="8" placeholder="30m" autocomplete="off"/>
                    {field_error("rule", "remind_every")}
                </label>
                <label>{t!(language, "notify-rule-escalate-after")}
                    <input type="text" name="escalate_after" size="8" placeholder="2h" autocomplete="off"/>
                    {field_error("rule", "escalate_after")}
                </label>
                <label>{t!(language, "notify-rule-escalate-to")}
                    <select name="escalate_to">
                        <option value="">{t!(language, "notify-none")}</option>
                        {audience_options(&destination_names, language)}
                    </select>
                    {field_error("rule", "escalate_to")}
                </label>
                <div class="filter-actions"><button type="submit" class="button">{t!(language, "notify-rule-add")}</button></div>
            </ActionForm>
            <p class="muted small hint">{t!(language, "notify-rule-spans-hint")}</p>
        </section>
    }
    .into_any()
}

#[component]
fn DeliveryLog(
    deliveries: Vec<crate::console::notifications::NotifyDeliveryView>,
    csrf: String,
    language: Language,
) -> impl IntoView {
    let resend = ServerAction::<ResendNotification>::new();
    let log = if deliveries.is_empty() {
        view! { <p class="empty-state" data-testid="notify-log-empty">{t!(language, "notify-log-empty")}</p> }
            .into_any()
    } else {
        let caption = t!(language, "notify-log-caption", count = TENANT_DELIVERIES_SHOWN);
        view! { <DeliveryTable deliveries language resend=Some((resend, csrf)) answer_to="notify-log-result" caption/> }.into_any()
    };
    view! {
        <section class="panel" data-testid="notify-log" aria-labelledby="notify-log-heading">
            <h2 id="notify-log-heading">{t!(language, "notify-log-heading")}</h2>
            <p class="muted">{t!(language, "notify-log-intro", count = TENANT_DELIVERIES_SHOWN)}</p>
            {log}
            <p class="action-result" role="status" id="notify-log-result" data-testid="notify-log-result"></p>
        </section>
    }
    .into_any()
}

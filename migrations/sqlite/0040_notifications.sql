-- Notifications. A tenant's settings for telling its people: its SMTP server and its LINE official
-- account (the channel access token sealed under the server's key, like a provider's secret).
create table notify_settings (
    tenant text primary key not null references tenants (id),
    smtp_host text,
    smtp_port integer,
    smtp_security text,
    smtp_username text,
    sealed_smtp_password text,
    smtp_from text,
    line_api_base text,
    sealed_line_token text,
    line_token_last4 text,
    updated_by text not null,
    updated_at_us integer not null
) strict;

-- Shared destinations by name: a Slack or Teams channel's webhook (its URL is a secret, so it is
-- sealed, and shown by its host), a LINE group, a shared mailbox.
create table notify_destinations (
    tenant text not null references tenants (id),
    name text not null,
    channel text not null,
    sealed_target text not null,
    shown_target text not null,
    created_by text not null,
    created_at_us integer not null,
    primary key (tenant, name)
) strict;

-- Rules: an event, who hears it (role:NAME, people:NAME,NAME or destination:NAME), on which
-- channel, after how long, reminded how often, escalated to whom after how long.
create table notify_rules (
    tenant text not null references tenants (id),
    id text not null,
    event text not null,
    audience text not null,
    channel text not null,
    after_s integer not null,
    remind_every_s integer,
    escalate_after_s integer,
    escalate_to text,
    created_by text not null,
    created_at_us integer not null,
    primary key (tenant, id)
) strict;

-- What a rule watches: a subject (an operation waiting in a state, a finished bulk run, a failing
-- endpoint) and the next stage of the rule's sequence it is due for. Written in the transaction of
-- the change that began the wait; the notifier turns each due stage into deliveries.
create table notify_watches (
    tenant text not null,
    rule_id text not null,
    subject text not null,
    since_us integer not null,
    waits_in text not null,
    stage text not null,
    next_at_us integer not null,
    primary key (tenant, rule_id, subject)
) strict;
create index notify_watches_due on notify_watches (next_at_us);
create index notify_watches_of_subject on notify_watches (tenant, subject);

-- The notification outbox: one row per stage and recipient, its id the same wherever it is
-- written, so that it is written once; sent at least once; a send that was interrupted is sent
-- again only on a channel that recognises the retry.
create table notify_deliveries (
    tenant text not null,
    id text not null,
    rule_id text not null,
    event text not null,
    subject text not null,
    since_us integer not null,
    waits_in text not null,
    stage text not null,
    recipient text not null,
    channel text not null,
    status text not null default 'pending',
    attempts integer not null default 0,
    next_attempt_at_us integer not null,
    lease_until_us integer,
    last_attempt_at_us integer,
    last_error text,
    reference text,
    created_at_us integer not null,
    primary key (tenant, id)
) strict;
create index notify_deliveries_due on notify_deliveries (next_attempt_at_us) where status = 'pending';
create index notify_deliveries_recent on notify_deliveries (tenant, created_at_us);
create index notify_deliveries_of_recipient on notify_deliveries (tenant, recipient, created_at_us);

-- A person's own ways to be told, and their choices: what they mute, and their quiet hours
-- (22:00-07:30) in their time zone (an IANA name such as Asia/Taipei).
alter table users add column email text;
alter table users add column line_user_id text;
alter table users add column time_zone text;
alter table users add column quiet_hours text;
create table notify_mutes (
    tenant text not null,
    user_id text not null,
    muted text not null,
    primary key (tenant, user_id, muted)
) strict;

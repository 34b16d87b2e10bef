-- The support desk.
--
-- Who holds an item (an operation, or an order by its subject): at most one person at a time,
-- never a lock (anyone still reads and acts). `item_kind` is `operation` or `order`;
-- `item_id` the op id or the order's subject. A claim is a person's own; an assignment names who
-- made it in `assigned_by`.
create table claims (
    tenant text not null references tenants (id),
    item_kind text not null,
    item_id text not null,
    holder_id text not null,
    holder_name text not null,
    assigned_by text,
    held_since_us bigint not null,
    primary key (tenant, item_kind, item_id)
);
create index claims_by_holder on claims (tenant, holder_id);

-- Internal notes on items, each version a row of its own: an edit adds the next version and the
-- earlier ones stay. `mentions` is a JSON list of the names of the people it mentions.
create table notes (
    tenant text not null references tenants (id),
    note_id text not null,
    version integer not null,
    item_kind text not null,
    item_id text not null,
    body text not null,
    author_id text not null,
    author text not null,
    mentions text not null,
    at_us bigint not null,
    primary key (tenant, note_id, version)
);
create index notes_by_item on notes (tenant, item_kind, item_id);

-- Saved views of the operations list: a filter (its URL query) saved by name, a person's own
-- (`scope` their user id) or shared with the tenant (`scope` empty); a shared one may be the
-- default of a role.
create table saved_views (
    tenant text not null references tenants (id),
    id text not null,
    scope text not null,
    name text not null,
    filter text not null,
    default_for text,
    created_by text not null,
    created_at_us bigint not null,
    primary key (tenant, id)
);
create unique index saved_views_by_name on saved_views (tenant, scope, name);

-- A tenant's customer email templates: the subject and plain-text body an agent's
-- send_customer_email renders for an order, by name.
create table email_templates (
    tenant text not null references tenants (id),
    name text not null,
    subject text not null,
    body text not null,
    updated_by text not null,
    updated_at_us bigint not null,
    primary key (tenant, name)
);

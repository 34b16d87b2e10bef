-- External references: the provider's ids of what an operation created (stripe/refund/re_7f3a).
create table external_refs (
    tenant text not null,
    op_id text not null,
    provider text not null,
    ref_type text not null,
    external_id text not null,
    recorded_at_us integer not null,
    primary key (tenant, provider, external_id),
    foreign key (tenant, op_id) references operations (tenant, op_id)
) strict;
create index external_refs_by_operation on external_refs (tenant, op_id);
create index external_refs_by_id on external_refs (tenant, external_id);

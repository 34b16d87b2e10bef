-- What a token may do, until when, who made it, when and from where it was last used, and its
-- rotation. scopes: a comma-separated list of tools, read and write (tokens made before keep all
-- three). expires_at_us: null never expires (tokens made before keep working). created_by: the
-- person or command that made it; created_by_user_id: the console user, null from the command
-- line, so that deactivating that user revokes it. last_used_*: written at most once a minute
-- per token by each instance. previous_secret_hash: the secret a rotation replaced, accepted until
-- previous_valid_until_us.
alter table api_tokens add column scopes text not null default 'tools,read,write';
alter table api_tokens add column expires_at_us bigint;
alter table api_tokens add column created_by text not null default '';
alter table api_tokens add column created_by_user_id text;
alter table api_tokens add column last_used_at_us bigint;
alter table api_tokens add column last_used_from text;
alter table api_tokens add column previous_secret_hash text;
alter table api_tokens add column previous_valid_until_us bigint;
alter table api_tokens add column rotated_at_us bigint;
create unique index api_tokens_by_previous_secret on api_tokens (previous_secret_hash);
create index api_tokens_by_creator on api_tokens (tenant, created_by_user_id);

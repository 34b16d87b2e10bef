-- A tenant's own HTTP API's description (JSON, format opledger/http-api/1), for connections of
-- kind http: the operation kinds it serves, their requests, keys, lookups and statuses.
alter table provider_connections add column description text;

-- Whether the server sends the operation itself (a tool call, a console action, a compensation),
-- rather than the agent that registered it. Such an operation left `planned` by a crash or a spent
-- retry budget is picked up again by the dispatcher; an agent's own operation is left to the agent.
alter table operations add column server_sends integer not null default 0;

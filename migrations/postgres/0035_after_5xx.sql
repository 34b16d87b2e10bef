-- What a re-send under an operation's key gets after its provider answered a server error (5xx),
-- as the provider's capabilities said when the operation was recorded: 'same_key' (the error is
-- replayed), 'retry' (the re-send is run again) or 'unknown' (taken as 'same_key'). Operations
-- recorded before it was known say 'unknown'.
alter table operations add column after_5xx text not null default 'unknown';

# The admin page: users and their languages, the customers' language, the approval policy, the
# provider accounts, the customer email templates and the webhooks; and the once-only forms'
# refusals.

## Users

admin-users-heading = Users of this tenant
admin-user-name = Name
admin-user-role = Role
admin-users-added = Added
admin-user-language = Language
admin-user-language-of = Console language of { $name }
admin-users-language-hint = A user sees a new console language from their next sign-in. “As the browser asks” follows the language their browser asks for.
admin-add-user-heading = Add a user
admin-add-user-password = Password (10 characters or more)
admin-add-user-submit = Add user
admin-user-added = { $name } can now sign in as { $role }.
admin-user-added-in = { $name } can now sign in as { $role }, and reads the console in { $language }.
admin-user-role-unknown = There is no role named “{ $role }”.
admin-user-name-invalid = A user name is 1 to 64 letters, digits, '.', '-', '_' or '@'.
admin-user-password-weak = A password needs at least { $min } characters.
admin-user-name-taken = A user named { $name } exists already in this tenant.
admin-user-not-found = no user named { $name } in this tenant
admin-user-language-saved = { $name } reads the console in { $language } from their next sign-in.
admin-user-language-browser = { $name } reads the console in the language their browser asks for, from their next sign-in.

## Languages

admin-languages-heading = Languages
admin-tenant-language = Customers' language
admin-tenant-language-hint = The tools tell customers things in this language when the agent's call names no { $locale }.
admin-tenant-language-save = Save language
admin-tenant-language-saved = Customers are now told things in { $language } when a call names no locale.
admin-language-choose = Choose a language.
admin-language-unknown = “{ $tag }” is not one of the console's languages: choose English, 繁體中文 or 简体中文.

## Approval policy

admin-policy-heading = Approval policy
admin-policy-intro = Operations registered from now on that match a rule wait for a manager's approval before they are sent. A threshold applies to amounts in its own currency only.
# A rule in words. The scopes pick the wording: kind_scope is "any" for every kind, provider_scope
# "any" for every provider, amount_scope "any" for every amount.
admin-rule-sentence =
    { $kind_scope ->
        [any] Operations of any kind
       *[one] { $kind } operations
    }{ $provider_scope ->
        [any] {""}
       *[one] {" "}at { $provider }
    }{ $amount_scope ->
        [any] {""}
       *[from] {" "}from { $threshold } up
    } need a manager's approval
admin-rule-added-by = (added by { $name } { $time })
admin-rule-remove = Remove…
admin-rule-remove-consequence = The rule “{ $rule }” will be removed: operations registered from now on that it caught are sent without a manager's approval.
admin-rule-confirm-heading = Confirm: remove this rule
admin-rule-confirm-yes = Yes, remove it
admin-rules-empty = No rules: every operation is sent without an approval. Add a rule below.
admin-rule-kind = Kind
admin-rule-kind-choose = choose…
admin-rule-kind-any = any kind
admin-rule-provider = Provider
admin-rule-provider-any = any provider
admin-rule-threshold = From amount (blank for any)
admin-rule-currency = Currency
admin-rule-amount-hint = In the currency's major unit, a point before the cents: 1000.00, or 1,000.00.
admin-rule-preview-button = Preview
admin-rule-add = Add rule
admin-rule-kind-missing = Choose a kind, for example { $kinds }.
admin-rule-kind-unknown = No operation of kind “{ $kind }” is recorded or made by the tools; choose one of { $kinds }.
admin-rule-provider-unknown = There is no provider named “{ $provider }”; choose one of { $providers }, or leave it blank for any.
admin-rule-amount-missing = A currency needs its amount, for example 1000.00.
admin-rule-currency-missing = A threshold needs its currency, for example TWD.
admin-rule-currency-invalid = Currency must be a three-letter ISO 4217 code such as "TWD", got "{ $code }".
admin-rule-amount-invalid = "{ $amount }" is not an amount in { $currency }; write it like { $example }.
admin-rule-amount-invalid-comma = "{ $amount }" is not an amount in { $currency }; write it like { $example }. A comma may only separate thousands (1,000.00); write cents after a point.
admin-rule-amount-too-large = Amount is too large.
admin-rule-caught-none =
    { $kind_scope ->
        [any] No operation
       *[one] No { $kind } operation
    } is recorded yet, so it would have caught none so far.
admin-rule-caught =
    It would have caught { $caught } of the last { $total } { $kind_scope ->
        [any] operations
       *[one] { $kind } operations
    } (since { $since }).
admin-rule-preview = Preview, nothing saved: { $rule }. { $caught }
admin-rule-added = From now on, { $rule }. { $caught }
admin-rule-removed = The rule is removed; operations registered from now on no longer need it.
admin-rule-not-found = no approval rule { $id }

## Provider accounts

admin-accounts-heading = Provider accounts
admin-accounts-intro = This tenant's own accounts: refunds at { $stripe }, { $adyen } or { $paypal }, the shop's orders at { $orders }, after-sale tickets and pickups at { $sandbox }, customer emails at { $email } (kind email or smtp, the account being the sender) and anything a system of the shop's own serves (kind http) go to them. Without one, only a tenant the operator gave the server's own account to ({ $flag }) can send anything. Base URLs must be public https addresses, unless the operator allowed more. A secret is sealed when it is saved and never shown again, only its last four characters.
admin-accounts-empty = No accounts of its own yet: add one below. Until then this tenant sends nothing, unless the operator gave it the server's own account.
admin-accounts-provider = Provider
admin-accounts-kind = Kind
admin-accounts-base-url = Base URL
admin-accounts-col-secret = Secret
admin-accounts-retention = Keys remembered
admin-accounts-col-set = Set
admin-accounts-col-webhooks = Provider's webhooks
admin-accounts-col-actions = Actions
admin-accounts-account-named = account
admin-accounts-webhook-own-secret = ECPay signs its payment notifications with this connection's HashKey and HashIV: paste this address as the order's ReturnURL (with NeedExtraPaidInfo=Y), and each card payment's TradeNo and gwsr are saved for its refunds.
admin-accounts-webhook-secret-set = Signing secret set: its events settle accepted operations.
admin-accounts-webhook-secret-missing = No signing secret yet: its events are refused until one is set.
admin-accounts-save-secret = Save secret
admin-accounts-remove = Remove
admin-accounts-secret-key = Secret key
admin-accounts-account = Account
admin-accounts-account-placeholder = merchant account or client id
admin-accounts-retention-placeholder = the provider's window
admin-accounts-account-hint = Adyen names a merchant account, PayPal the REST app's client id (its secret is the secret key), ECPay its MerchantID (the secret is HashKey:HashIV:CreditCheckCode from the vendor console), LINE Pay its Channel ID (the secret is the channel secret), and email and smtp the sender (Shop <support@shop.example>; smtp's base URL is smtp://host:587 or smtps://host:465); Stripe and the others none. Set how long keys are remembered (7d, 48h) only when the account's contract differs from the provider's window: 24 hours at Stripe, 31 days at Adyen, 45 days at PayPal.
admin-accounts-description = API description, for an http connection
admin-accounts-description-hint = For a system of the shop's own (kind http): the operation kinds it serves, each one's request built from the operation's stored parameters, the idempotency key header it honours if any, and its lookup if any. What it honours decides what opledger does with a lost answer; one that honours neither is sent at most once. docs/any-downstream.md has an example.
admin-accounts-save = Save account
admin-accounts-retention-per-kind = per operation kind
admin-accounts-retention-window = { $window } (the provider's window)
admin-serves-key-and-lookup = { $kind }: key kept { $window }, { $after_5xx }, looked up
admin-serves-key-only = { $kind }: key kept { $window }, { $after_5xx }, no lookup
admin-serves-lookup-only = { $kind }: no key, looked up
admin-serves-at-most-once = { $kind }: no key, no lookup: at most once
admin-serves-5xx-same-key = a re-send after a 5xx gets the 5xx again
admin-serves-5xx-retry = re-sent after a 5xx
admin-serves-5xx-unknown = not re-sent after a 5xx (not known to be run again)
admin-accounts-secret-hmac = HMAC key
admin-accounts-secret-webhook-id = Webhook id
admin-accounts-secret-signing = Signing secret
admin-accounts-webhook-secret-saved = Saved: { $name }'s webhooks are now verified with this signing secret.
admin-accounts-not-found = no connection to { $name }
admin-accounts-kind-unknown = There is no provider kind “{ $kind }”.
admin-accounts-retention-invalid = “{ $text }” is not a length of time: write it as 24h, 7d or 45days.
admin-accounts-saved = Operations at { $name } now go to this tenant's own account.
admin-accounts-removed = Removed: operations at { $name } now use the server's connection, if it has one.

## Webhooks

admin-webhooks-heading = Webhooks
admin-webhooks-intro = Other systems (a chat channel, the shop's backend) learn of changes as they happen: each event is signed (Standard Webhooks), sent at least once and in order per operation, and retried with growing waits for hours when the endpoint does not answer 2xx.
admin-webhooks-need-key = Endpoints need a signing secret, which the server seals under its key: start it with { $variable } set (for example from { $command }) to add one.
admin-webhooks-empty = No endpoints: nothing is sent when operations change. Add one below.
admin-webhook-deliveries-caption = Recent deliveries to { $url }
admin-webhook-added-by = added by { $name } { $time }
admin-webhook-every-event = every event
admin-webhook-remove = Remove…
admin-webhook-remove-consequence = The endpoint { $url } will be removed with what is still to be delivered to it: it gets no more events.
admin-webhook-deliveries-empty = Nothing sent yet: events come as operations change.
admin-delivery-event = Event
admin-delivery-about = About
admin-delivery-status = Status
admin-delivery-attempts = Attempts
admin-delivery-last-answer = Last answer
admin-delivery-created = Created
admin-delivery-actions = Actions
admin-delivery-pending = pending
admin-delivery-delivered = delivered
admin-delivery-failed = failed
admin-delivery-next = { $status }, next { $time }
admin-webhook-resend = Resend
admin-webhook-url = URL
admin-webhook-events = Events
admin-webhook-add = Add endpoint
admin-webhook-remove-unconfirmed = Nothing removed: confirm the removal (it drops what is still to be delivered to the endpoint).
admin-delivery-answered = answered { $status }
admin-webhook-added = Added. Its signing secret, shown this once (verify the webhook-signature header with it): { $secret }
admin-webhook-removed = Removed: nothing more is sent to that endpoint.
admin-webhook-not-found = no webhook endpoint { $id }
admin-delivery-not-found = no webhook delivery { $id }
admin-delivery-resent = It is sent again within seconds, from its first attempt.
admin-delivery-still-sending = It is still being sent: wait for its next attempt, or until it is given up.

## Once-only forms (every page's change forms)

admin-request-key-invalid = This form has no valid request key; reload the page.
admin-request-in-progress = This request is already being carried out; its result shows when it is done.
admin-request-other = This form was already used for another request; reload the page.

## Customer email templates

templates-heading = Customer emails
templates-intro = What agents may write to a customer about an order (the { $tool } tool), sent through this tenant's email account (kind email or smtp). Each message is recorded with its text before it is sent and sent once; through SMTP, which can neither recognise a repeat nor be asked, a message whose answer is lost waits for a person.
templates-name = Name
templates-subject = Subject
templates-subject-example = Your refund for order {"{"}order{"}"}
templates-body = Body (plain text)
templates-placeholders = Placeholders: { $placeholders }.
templates-save = Save template
templates-empty = No templates yet: add one below, and agents can send it to an order's customer.
templates-col-text = Subject and body
templates-col-set = Set
templates-col-actions = Actions
templates-remove = Remove
templates-saved = Saved: agents can now send “{ $name }” to a customer.
templates-removed = Removed the template “{ $name }”.
templates-not-found = no template { $name }

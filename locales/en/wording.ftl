# Operations in plain words (src/domain/wording.rs): what an operation is, how it stands for a
# support agent, the one sentence to tell the customer, and what risky actions do.
# English sentences are capitalised by the code where they start with a name or a noun.

## Providers as an agent knows them (Stripe and PayPal keep their names).
wording-provider-services = the after-sale service
wording-provider-email = the email service

## How long a provider remembers an idempotency key.
wording-retention-minutes =
    { $n ->
        [one] { $n } minute
       *[other] { $n } minutes
    }
wording-retention-hours =
    { $n ->
        [one] { $n } hour
       *[other] { $n } hours
    }
wording-retention-days =
    { $n ->
        [one] { $n } day
       *[other] { $n } days
    }

## How a provider settles a lost or pending answer. $provider is a provider's name, $window a
## retention above.
wording-settling-key-and-lookup = A lost answer is found by asking { $provider } for the op id it was sent with; { $provider } remembers a key { $window }, after which nothing is re-sent without a person.
wording-settling-key-only = { $provider } cannot be asked about it: a lost answer is settled by re-sending with the same key; { $provider } remembers a key { $window }, after which nothing is re-sent without a person.
wording-settling-lookup-only = { $provider } takes no idempotency key, so nothing is ever sent to it twice by itself: a lost answer is looked up by the op id, and a lookup that finds nothing goes to a person.
wording-settling-at-most-once = { $provider } takes no idempotency key and cannot be asked what it did: it is sent at most once, and a lost answer goes straight to a person with what was seen.
# The following sentences are added after the one above; in English they start with a space.
wording-settling-5xx-same-key = {" "}After a server error (5xx), { $provider } answers a re-send under the same key with that error again, so a 5xx is never settled by a re-send: only by what { $provider } says of the operation, or by a person.
wording-settling-5xx-retry = {" "}After a server error (5xx), { $provider } runs a re-send under the same key again, so a 5xx is settled as a lost answer is: re-sent with the same key while the key is remembered.
wording-settling-5xx-unknown = {" "}Whether { $provider } runs a re-send under the same key again after a server error (5xx) is not known, so a 5xx is never settled by a re-send: only by what { $provider } says of the operation, or by a person.
wording-settling-adyen = {" "}Adyen answers every refund “received”: its REFUND webhook says whether it was done.
wording-settling-paypal = {" "}A PENDING refund is read again by its id until PayPal completes or fails it.
wording-settling-stripe = {" "}A pending refund is read again by its id, or settled by Stripe's webhook, until it succeeds or fails.
wording-settling-no-payment-read = {" "}What is left to refund comes from the shop's order and this ledger's refunds, since { $provider } has no read of the payment.

## What an operation is, for the agent, in lower case (the code capitalises it where it starts
## a sentence). $amount is an amount, $item the name of the order's line item, $kind the kind's
## machine name in words ("issue coupon") for kinds the console has no words for.
wording-noun-refund = refund
wording-noun-refund-amount = refund of { $amount }
wording-noun-refund-item = refund for { $item }
wording-noun-refund-amount-item = refund of { $amount } for { $item }
wording-noun-aftersale = after-sale ticket
wording-noun-aftersale-item = after-sale ticket for { $item }
wording-noun-pickup = pickup
wording-noun-pickup-item = pickup for { $item }
wording-noun-email = email to the customer
wording-noun-email-item = email to the customer for { $item }
wording-noun-cancel-aftersale = cancellation of the after-sale ticket
wording-noun-cancel-aftersale-item = cancellation of the after-sale ticket for { $item }
wording-noun-other = { $kind }
wording-noun-other-amount = { $kind } of { $amount }
wording-noun-other-item = { $kind } for { $item }
wording-noun-other-amount-item = { $kind } of { $amount } for { $item }

## What the agent must not do again, in "Do not { $verb } again".
wording-verb-refund = refund it
wording-verb-aftersale = open a ticket
wording-verb-pickup = schedule it
wording-verb-email = send it
wording-verb-cancel-aftersale = cancel it
wording-verb-other = send it

## The operation as the customer is told about it.
wording-customer-refund = your refund
wording-customer-refund-amount = your refund of { $amount }
wording-customer-aftersale = your after-sale request
wording-customer-pickup = the pickup of your item
wording-customer-email = our email
wording-customer-cancel-aftersale = the cancellation of your after-sale request
wording-customer-other = your request ({ $kind })

## How each state stands (status) and what to tell the customer (customer). $noun is one of the
## wording-noun-* above, $provider a provider's name, $verb one of wording-verb-*, $customer_noun
## one of wording-customer-*, $reason one of wording-reason-*.
wording-planned-status = { $noun } is recorded and not yet sent to { $provider }; nothing has happened yet.
wording-planned-customer = We are processing { $customer_noun } now and will confirm it shortly.
wording-pending-approval-status = { $noun } waits for a manager's approval; nothing has been sent to { $provider }.
wording-pending-approval-customer = { $customer_noun } is being reviewed by our team; we will let you know once it is approved.
wording-approved-status = { $noun } was approved and is waiting to be sent to { $provider }.
wording-approved-customer = { $customer_noun } was approved and is being processed.
wording-denied-status = { $noun } was denied by a manager; nothing was sent to { $provider }.
wording-denied-customer = We are sorry: { $customer_noun } was not approved. A colleague will explain why.
wording-submitted-status = { $noun } was sent to { $provider }, which has not answered yet. Do not { $verb } again.
# Told to the customer while the result is in doubt (submitted, unknown, needs review).
wording-checking-customer = Please do not ask for it again: { $customer_noun } is being confirmed with { $provider }, and we will tell you as soon as it is.
wording-accepted-refund-status = { $provider } accepted the { $noun }; the bank has not confirmed it yet. Do not { $verb } again.
wording-accepted-status = { $provider } accepted the { $noun } and has not confirmed it is done yet. Do not { $verb } again.
wording-accepted-refund-customer = { $customer_noun } is being processed by the bank; we will confirm as soon as it is complete, so please do not ask for it again.
wording-accepted-customer = { $customer_noun } is being processed; we will confirm as soon as it is complete, so please do not ask for it again.
wording-succeeded-status = { $provider } confirmed the { $noun }. It is done; do not { $verb } again.
wording-succeeded-refund-customer = { $customer_noun } has been issued; your bank may take a few days to show it.
wording-succeeded-email-customer = { $customer_noun } has been sent.
wording-succeeded-customer = { $customer_noun } is done.
wording-failed-status = { $provider } accepted the { $noun }, then it failed there: { $reason }. Nothing moved; it can be made again on purpose.
wording-failed-customer = We could not complete { $customer_noun }: { $reason }. We will arrange it again and let you know.
wording-rejected-status = { $provider } declined the { $noun }; nothing was done.
wording-rejected-customer = We could not complete { $customer_noun }; we are looking into it and will get back to you.
wording-unknown-status = { $noun } was sent to { $provider }, which did not answer in time; we are checking whether it happened. Do not { $verb } again.
wording-needs-review-status = { $noun } was sent to { $provider }, and checking has not settled whether it happened; a reconciler is reviewing it. Do not { $verb } again.
# The provider confirmed it, then reported that it failed after all (Adyen's REFUND_FAILED); it waits for a person. $reason is one of wording-reason-*.
wording-failed-after-success-status = { $provider } confirmed the { $noun }, then reported that it failed after all: { $reason }. A person is checking whether anything moved and will settle it. Do not { $verb } again.
wording-failed-after-success-refund-customer = { $customer_noun } was reversed by the payment network after it was issued; a colleague is checking it and will contact you.
wording-failed-after-success-customer = { $customer_noun } did not go through after all; a colleague is checking it and will contact you.
wording-cancelled-status = { $noun } was cancelled; nothing more will be sent to { $provider }.
wording-cancelled-customer = { $customer_noun } was cancelled.
# Sent to a downstream that takes no idempotency key and cannot be asked, and its answer was lost.
wording-unanswerable-status = { $noun } was handed to { $provider }, which cannot recognise a repeat or be asked what it did: nobody can tell whether it arrived, and it is never sent again by itself. A person will check; do not { $verb } again.
wording-unanswerable-customer = If { $customer_noun } has not reached you, please let us know: a colleague is checking it and will get back to you.

## Why a provider failed an operation after accepting it (Stripe's failure_reason).
wording-reason-expired-card = the card it was going back to has expired or was cancelled
wording-reason-lost-card = the card it was going back to was reported lost or stolen
wording-reason-declined = the customer's bank declined it
wording-reason-insufficient-funds = the shop's balance at the provider could not cover it
wording-reason-disputed = the payment was disputed while it was pending
wording-reason-merchant-request = it was cancelled at the shop's request
wording-reason-canceled = it was cancelled there
wording-reason-unknown = for a reason the provider did not give
# $reason is the provider's own code in words ("new reason").
wording-reason-other = for a reason the provider calls { $reason }

## What a risky action does, asked before it is taken. $validity says how long the provider still
## remembers the key ("23 h left").
wording-consequence-resend = The { $noun } will be sent to { $provider } again with the same idempotency key ({ $validity }). If the first send went through, { $provider } answers with it and nothing happens twice; once the key has expired, a re-send could do it a second time.
wording-consequence-cancel = The { $noun } will not be sent again. If it was already sent, cancelling does not undo it.
wording-consequence-mark-not-happened = The { $noun } will be recorded as not done, on your word and evidence, and nothing is sent. If { $provider } did it after all, the ledger will say otherwise than the customer's account.
wording-compensation-cancel-ticket = The { $noun } will be cancelled at { $provider }. It is recorded as a new operation, sent at once.
wording-compensation-refund = A { $noun } will be sent to { $provider }: the customer gets the money back. It is recorded as a new operation, sent at once.
wording-compensation-reschedule = A new { $noun } will be scheduled at { $provider } on the date you give. It is recorded as a new operation, sent at once.
wording-retry = A new { $noun } will be sent to { $provider } under an op id and key of its own, linked to this one, and checked against the approval policy like any other. Make it again only once you know why the first failed.

## Compensations a person may record (Compensation::label_in).
wording-compensation-label-cancel-ticket = Cancel the after-sale ticket
wording-compensation-label-refund = Refund the line item
wording-compensation-label-reschedule = Re-schedule the pickup

## What an attempt's failure class means (FailureClass::explanation_in).
wording-failure-not-sent = The request never reached the provider; it is safe to send again.
wording-failure-invalid-params = The provider refused the parameters; nothing was done.
wording-failure-forbidden = The provider denied permission; nothing was done.
wording-failure-business-rejection = The provider declined the request; nothing was done.
wording-failure-failed-at-provider = The provider accepted it, then it failed there; nothing moved.
wording-failure-transient-unavailable = The provider was busy and did not process the request; it may be retried later with the same key.
wording-failure-timeout = The request was sent but no answer came back: it may have happened. Do not send it again; it is being checked.
wording-failure-server-error = The provider answered with a server error after receiving the request: it may have happened. Only a lookup can settle it.

## How one send ended (attempts' outcome).
wording-outcome-succeeded = Succeeded
wording-outcome-open = In flight: no answer yet
wording-outcome-no-report = No outcome was reported: it may have happened
wording-outcome-timeout = No answer in time: it may have happened
wording-outcome-server-error = The provider failed after receiving it: it may have happened
wording-outcome-not-sent = Never reached the provider
wording-outcome-invalid-params = Refused by the provider: invalid parameters
wording-outcome-forbidden = Refused by the provider: not permitted
wording-outcome-business-rejection = Declined by the provider
wording-outcome-accepted = Accepted: the provider has it, its result pending
wording-outcome-failed-at-provider = Accepted, then failed at the provider: nothing moved
wording-outcome-transient-unavailable = The provider was busy and did not process it
wording-settling-lookup-by-list = { $provider } takes no idempotency key, so nothing is ever sent to it twice: the payment's refunds are listed just before the send, and a lost answer is settled by listing them again and finding the one refund of this amount that is new; nothing new after the gateway's lag goes to a person with what both lists showed.
wording-settling-ecpay = {" "}ECPay accepts a refund and closes it at its nightly close (20:15 Taiwan time); no refund is sent from 20:15 to 20:30.
wording-held-status = { $noun } is recorded and was not sent: { $provider } could not take it just now (its nightly close, its rate limit, or its records could not be read). Nothing left; it is sent by itself as soon as { $provider } can take it. Do not { $verb } again.
wording-held-customer = { $customer_noun } is recorded and will go out shortly; we will confirm it to you.

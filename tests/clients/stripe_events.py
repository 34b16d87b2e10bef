"""Verifies Stripe webhook events as a Stripe endpoint would, with the official `stripe` package's
`Webhook.construct_event` (its own check of the `Stripe-Signature` scheme, independent of
opledger's).

Usage: stripe_events.py SECRET < events.json, where events.json is a JSON list of
{"payload", "signature"}. Prints one line per event, "<event id> <event type>", and exits 1 at the
first event whose signature does not verify.
"""

import json
import sys

import stripe


def main() -> int:
    secret = sys.argv[1]
    for sent in json.load(sys.stdin):
        try:
            event = stripe.Webhook.construct_event(sent["payload"], sent["signature"], secret)
        except stripe.SignatureVerificationError as error:
            print(f"does not verify: {error}")
            return 1
        print(f"{event['id']} {event['type']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Verifies webhooks as an endpoint would, with the `standardwebhooks` package (an implementation
of the Standard Webhooks specification independent of opledger's).

Usage: verify_webhooks.py SECRET < received.json, where received.json is a JSON list of
{"webhook_id", "webhook_timestamp", "webhook_signature", "body"} as the sandbox's receiver records
them. Prints one line per webhook, "<webhook-id> <event type>", and exits 1 at the first webhook
whose signature does not verify.
"""

import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main() -> int:
    secret = sys.argv[1]
    received = json.load(sys.stdin)
    verifier = Webhook(secret)
    for webhook in received:
        headers = {
            "webhook-id": webhook["webhook_id"],
            "webhook-timestamp": webhook["webhook_timestamp"],
            "webhook-signature": webhook["webhook_signature"],
        }
        try:
            payload = verifier.verify(webhook["body"], headers)
        except WebhookVerificationError as error:
            print(f"{webhook['webhook_id']} does not verify: {error}")
            return 1
        print(f"{webhook['webhook_id']} {payload['type']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

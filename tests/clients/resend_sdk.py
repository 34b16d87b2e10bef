"""Drives opledger's Resend-shaped mail sandbox with Resend's own Python package.

Usage: resend_sdk.py <base url> <api key>. Sends one email under an idempotency key, sends it again
under the same key, sends another body under that key, and reads the first back; prints what each
answered as one JSON object.
"""

import json
import sys

import resend

base_url, api_key = sys.argv[1], sys.argv[2]
resend.api_url = base_url
resend.api_key = api_key

message = {
    "from": "Acme Support <support@acme.example>",
    "to": ["customer-1043@example.com"],
    "subject": "Your refund for order 1043",
    "text": "Hello, your refund is on its way.",
}
options = {"idempotency_key": "acme:email-1043-refund_issued"}

first = resend.Emails.send(message, options)
replayed = resend.Emails.send(message, options)
try:
    resend.Emails.send({**message, "subject": "Something else"}, options)
    conflict = None
except resend.exceptions.ResendError as error:
    conflict = error.error_type
read = resend.Emails.get(first["id"])

print(json.dumps({
    "first": first["id"],
    "replayed": replayed["id"],
    "conflict": conflict,
    "read_subject": read["subject"],
}))

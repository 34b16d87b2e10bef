"""Drives opledger's LINE Pay sandbox with a client written from LINE Pay's Online API v3 reference.

Python's standard library only (hmac, hashlib, base64, uuid, urllib, json): no LINE Pay package.
Every request carries X-LINE-ChannelId, a fresh UUID v4 in X-LINE-Authorization-Nonce and
X-LINE-Authorization = Base64(HMAC-SHA256(channel secret, channel secret + API path + body or
query string + nonce)), as developers-pay.line.me/online/pre-requisites defines it.

Reads a JSON object on standard input: the sandbox's `base_url`, the `channel_id`, the
`channel_secret` and a paid `transaction` id (a string: it is larger than a double holds). Prints
one JSON object of what it observed, every LINE Pay id as a string: a refund of 380
(`POST /v3/payments/{transactionId}/refund`), the payment's details after it (`GET
/v3/payments?transactionId=…`; whether the ids came as JSON numbers, what is left), a refund of
more than is left, and a request signed with another secret.
"""

import base64
import hashlib
import hmac
import json
import sys
import urllib.request
import uuid

given = json.load(sys.stdin)
base_url = given["base_url"]
channel_id = given["channel_id"]
transaction = given["transaction"]


def sign(secret, path, content, nonce):
    message = (secret + path + content + nonce).encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def call(method, path, query="", body=None, secret=None):
    """One signed request; LINE Pay's answer as text, parsed by the caller."""
    secret = secret or given["channel_secret"]
    content = body if body is not None else query
    nonce = str(uuid.uuid4())
    url = base_url + path + ("?" + query if query else "")
    request = urllib.request.Request(
        url,
        data=body.encode("utf-8") if body is not None else None,
        method=method,
        headers={
            "Content-Type": "application/json",
            "X-LINE-ChannelId": channel_id,
            "X-LINE-Authorization-Nonce": nonce,
            "X-LINE-Authorization": sign(secret, path, content, nonce),
        },
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        return response.read().decode("utf-8")


def refund(amount, secret=None):
    body = json.dumps({"refundAmount": amount}, separators=(",", ":"))
    return json.loads(call("POST", f"/v3/payments/{transaction}/refund", body=body, secret=secret))


observed = {}

made = refund(380)
observed["refund"] = {
    "returnCode": made["returnCode"],
    "refundTransactionId": str(made.get("info", {}).get("refundTransactionId")),
}

# Python reads JSON integers exactly, however large: the ids survive as LINE Pay sent them.
details = json.loads(call("GET", "/v3/payments", query=f"transactionId={transaction}"))
payment = details["info"][0]
refund_list = payment.get("refundList", [])
observed["details"] = {
    "returnCode": details["returnCode"],
    "transactionId": str(payment["transactionId"]),
    "refundTransactionIds": [str(entry["refundTransactionId"]) for entry in refund_list],
    "ids_were_numbers": isinstance(payment["transactionId"], int)
    and all(isinstance(entry["refundTransactionId"], int) for entry in refund_list),
    "left": sum(pay["amount"] for pay in payment["payInfo"])
    - sum(abs(entry["refundAmount"]) for entry in refund_list),
}

observed["too_much"] = {"returnCode": refund(10_000)["returnCode"]}
observed["wrong_secret"] = {"returnCode": refund(1, secret="not-the-channel-secret")["returnCode"]}

print(json.dumps(observed))

"""Drives opledger's Adyen sandbox with Adyen's own Python library.

Reads a JSON object on standard input: the sandbox's `base_url` (its Checkout API is under
`/v71`), `api_key`, `merchant_account`, the `payment` pspReference of a paid order, what was
`paid` for it and its `currency`, and the webhook's `hmac_key`. Prints one JSON object of what it
observed: the refund's answer, the same key's replay, the errors each wrong request raised (by
the library's exception class and Adyen's errorCode), a refund of more than was paid (received,
then refused in its notification), and whether
`Adyen.util.is_valid_hmac_notification` accepts the notifications the sandbox sent (and refuses
one altered).
"""

import copy
import json
import sys
import time
import urllib.request

import Adyen
from Adyen.exceptions import AdyenAPIResponseError

given = json.load(sys.stdin)
adyen = Adyen.Adyen(xapikey=given["api_key"], platform="test")
modifications = adyen.checkout.modifications_api
modifications.baseUrl = given["base_url"] + "/v71"


def refund(value, key, api=modifications):
    request = {
        "amount": {"currency": given["currency"], "value": value},
        "merchantAccount": given["merchant_account"],
        "reference": key,
    }
    return api.refund_captured_payment(request, given["payment"], idempotency_key=key)


def refused(call):
    try:
        call()
    except AdyenAPIResponseError as error:
        return {"class": type(error).__name__, "status": error.status_code, "error_code": error.error_code}
    return None


observed = {}
first = refund(1000, "sdk-refund-1")
observed["refund"] = {"status_code": first.status_code, "body": first.message, "psp": first.psp}
again = refund(1000, "sdk-refund-1")
observed["replay"] = {"status_code": again.status_code, "body": again.message}
observed["same_key_other_body"] = refused(lambda: refund(2000, "sdk-refund-1"))
over = refund(given["paid"] + 1, "sdk-refund-2")
observed["too_much"] = {"status_code": over.status_code, "status": over.message["status"]}
observed["other_merchant"] = refused(
    lambda: modifications.refund_captured_payment(
        {"amount": {"currency": given["currency"], "value": 100}, "merchantAccount": "SomeoneElseECOM", "reference": "x"},
        given["payment"],
        idempotency_key="sdk-refund-3",
    )
)
wrong_key = Adyen.Adyen(xapikey="AQE-not-the-key", platform="test").checkout.modifications_api
wrong_key.baseUrl = modifications.baseUrl
observed["wrong_api_key"] = refused(lambda: refund(100, "sdk-refund-4", api=wrong_key))
observed["long_key"] = refused(lambda: refund(100, "k" * 65))

notifications = []
for _ in range(50):
    request = urllib.request.Request(given["base_url"] + "/_sandbox/notifications", headers={"X-API-Key": given["api_key"]})
    with urllib.request.urlopen(request) as answer:
        notifications = json.load(answer)["data"]
    if len(notifications) >= 2:
        break
    time.sleep(0.1)
observed["notifications"] = len(notifications)
observed["notification_items"] = [n["notificationItems"][0]["NotificationRequestItem"] for n in notifications]
observed["hmac_valid"] = [Adyen.util.is_valid_hmac_notification(n, given["hmac_key"]) for n in notifications]
if notifications:
    altered = copy.deepcopy(notifications[0])
    altered["notificationItems"][0]["NotificationRequestItem"]["amount"]["value"] += 1
    observed["altered_valid"] = Adyen.util.is_valid_hmac_notification(altered, given["hmac_key"])
print(json.dumps(observed))

"""Drives opledger's PayPal sandbox with PayPal's own server SDK (`paypal-server-sdk`).

Reads a JSON object on standard input: the sandbox's `base_url`, the REST app's `client_id` and
`client_secret`, the `capture` id of a paid order and its `currency`. The SDK's configuration
points its base URI at the sandbox and gets its token by the client credentials. Prints one JSON
object of what it observed: a refund made with `paypal_request_id`, the same request id replayed,
`get_refund`, a second request under a request id still in flight (409), and the 422s PayPal
answers (more than is left, a used invoice id, a TWD amount with cents), each by `details[0].issue`.
"""

import json
import sys
import threading
import time
import urllib.request

from paypalserversdk.configuration import Configuration, Environment, Server
from paypalserversdk.exceptions.api_exception import ApiException
from paypalserversdk.exceptions.error_exception import ErrorException
from paypalserversdk.http.auth.o_auth_2 import ClientCredentialsAuthCredentials
from paypalserversdk.models.money import Money
from paypalserversdk.models.refund_request import RefundRequest
from paypalserversdk.paypal_serversdk_client import PaypalServersdkClient

given = json.load(sys.stdin)
config = Configuration(
    environment=Environment.SANDBOX,
    client_credentials_auth_credentials=ClientCredentialsAuthCredentials(
        o_auth_client_id=given["client_id"], o_auth_client_secret=given["client_secret"]
    ),
)
config.environments = {Environment.SANDBOX: {Server.DEFAULT: given["base_url"]}}
client = PaypalServersdkClient(config=config)
payments = client.payments


def refund(value, request_id, invoice):
    body = RefundRequest(amount=Money(currency_code=given["currency"], value=value), invoice_id=invoice, custom_id=invoice)
    options = {"capture_id": given["capture"], "paypal_request_id": request_id, "prefer": "return=representation", "body": body}
    return payments.refund_captured_payment(options)


def refused(call):
    try:
        call()
    except ErrorException as error:
        issue = error.details[0].issue if error.details else None
        return {"status": error.response_code, "name": error.name, "issue": issue}
    except ApiException as error:
        return {"status": error.response_code}
    return None


observed = {}
first = refund("100", "sdk-request-1", "sdk-invoice-1")
observed["refund"] = {"status_code": first.status_code, "id": first.body.id, "status": first.body.status}
again = refund("100", "sdk-request-1", "sdk-invoice-1")
observed["replay"] = {"status_code": again.status_code, "id": again.body.id}
read = payments.get_refund({"refund_id": first.body.id})
observed["get_refund"] = {
    "id": read.body.id,
    "status": read.body.status,
    "value": read.body.amount.value,
    "currency": read.body.amount.currency_code,
    "custom_id": read.body.custom_id,
}
observed["too_much"] = refused(lambda: refund("999999", "sdk-request-2", "sdk-invoice-2"))
observed["invoice_used"] = refused(lambda: refund("1", "sdk-request-3", "sdk-invoice-1"))
observed["cents_in_twd"] = refused(lambda: refund("1.50", "sdk-request-4", "sdk-invoice-4"))

fault = json.dumps({"match": "sdk-request-5", "fault": "delay", "ms": 1500}).encode()
request = urllib.request.Request(
    given["base_url"] + "/_sandbox/faults",
    data=fault,
    headers={"Authorization": "Bearer " + given["client_secret"], "Content-Type": "application/json"},
)
urllib.request.urlopen(request).close()
slow = {}
thread = threading.Thread(target=lambda: slow.update(answer=refund("10", "sdk-request-5", "sdk-invoice-5")))
thread.start()
time.sleep(0.5)
observed["in_flight"] = refused(lambda: refund("10", "sdk-request-5", "sdk-invoice-5"))
thread.join()
observed["slow"] = {"status_code": slow["answer"].status_code, "status": slow["answer"].body.status}
print(json.dumps(observed))

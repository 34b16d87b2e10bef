"""The official Stripe Python client reads an order from the sandbox the way opledger's order source
does: the payment intent by metadata['order_id'], its Checkout session, the session's line items.

Usage: stripe_orders.py BASE_URL SECRET_KEY. Exits 0 and prints what it read when every check holds.
"""

import sys

import stripe


def main(base_url: str, secret_key: str) -> None:
    client = stripe.StripeClient(secret_key, base_addresses={"api": base_url}, max_network_retries=0)

    found = client.v1.payment_intents.search(params={"query": "metadata['order_id']:'1043'"})
    assert len(found.data) == 1, found
    intent = found.data[0]
    assert intent.id == "pi_1043" and intent.currency == "twd" and intent.amount == 158000, intent
    assert intent.metadata["order_id"] == "1043"

    sessions = client.v1.checkout.sessions.list(params={"payment_intent": intent.id})
    assert len(sessions.data) == 1, sessions
    session = sessions.data[0]
    assert session.payment_intent == intent.id and session.amount_total == 158000, session

    items = client.v1.checkout.sessions.line_items.list(session.id)
    described = [(item.id, item.description, item.amount_total, item.currency) for item in items.data]
    assert described == [
        ("li_1", "Bluetooth headphones", 120000, "twd"),
        ("li_2", "Headphone case", 38000, "twd"),
    ], described

    nothing = client.v1.payment_intents.search(params={"query": "metadata['order_id']:'9999'"})
    assert nothing.data == [], nothing
    print(f"stripe {stripe.VERSION}: read order 1043 through {intent.id}, {session.id} and {len(described)} line items")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

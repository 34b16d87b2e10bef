"""Fixtures for the tests against a running opledger server and its Stripe sandbox.

The server, the sandbox and a token come from the environment (scripts/agent_clients.py sets it):
OPLEDGER_URL, OPLEDGER_TOKEN, OPLEDGER_TENANT, OPLEDGER_STRIPE_URL, OPLEDGER_STRIPE_KEY and, for
the DBOS test, OPLEDGER_POSTGRES_URL. A test that needs one that is missing fails, naming it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import stripe

from opledger import AsyncLedger, Ledger

AMOUNT = 38000
CURRENCY = "TWD"


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(
            f"{name} is not set: these tests run against a live opledger server and its Stripe sandbox "
            "(scripts/agent_clients.py sets OPLEDGER_URL, OPLEDGER_TOKEN, OPLEDGER_TENANT, "
            "OPLEDGER_STRIPE_URL, OPLEDGER_STRIPE_KEY and OPLEDGER_POSTGRES_URL)",
            pytrace=False,
        )
    return value


@dataclass(frozen=True)
class Server:
    url: str
    token: str
    tenant: str
    stripe_url: str
    stripe_key: str


class Sandbox:
    """The Stripe sandbox's control API: orders to refund, faults, and what it really created."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(
            base_url=server.stripe_url, headers={"Authorization": f"Bearer {server.stripe_key}"}, timeout=10
        )

    def new_order(self) -> tuple[str, str]:
        """A paid order of its own (one line item of AMOUNT), so refunds never run out of money."""
        order = f"t{uuid.uuid4().hex[:12]}"
        payment_intent = f"pi_{order}"
        body = {
            "id": order,
            "currency": CURRENCY,
            "payment_intent": payment_intent,
            "line_items": [{"id": "li_1", "name": "Headphone case", "amount_minor": AMOUNT}],
        }
        self.http.post("/v1/_sandbox/orders", json=body).raise_for_status()
        return order, payment_intent

    def fault(self, match: str, fault: str, ms: int = 0, times: int = 1) -> None:
        body = {"match": match, "fault": fault, "times": times, "ms": ms}
        self.http.post("/v1/_sandbox/faults", json=body).raise_for_status()

    def refunds(self, op_id: str) -> list[dict[str, Any]]:
        """Every refund the sandbox really created for `op_id` in this tenant."""
        created = self.http.get("/v1/_sandbox/ledger").raise_for_status().json()["data"]
        return [
            o
            for o in created
            if o["type"] == "refund"
            and o["metadata"].get("op_id") == op_id
            and o["metadata"].get("tenant") == self.server.tenant
        ]


@pytest.fixture(scope="session")
def server() -> Server:
    return Server(
        url=env("OPLEDGER_URL"),
        token=env("OPLEDGER_TOKEN"),
        tenant=env("OPLEDGER_TENANT"),
        stripe_url=env("OPLEDGER_STRIPE_URL"),
        stripe_key=env("OPLEDGER_STRIPE_KEY"),
    )


@pytest.fixture(scope="session")
def sandbox(server: Server) -> Iterator[Sandbox]:
    box = Sandbox(server)
    yield box
    box.http.close()


@pytest.fixture(scope="session")
def stripe_sdk(server: Server) -> None:
    """The official SDK, pointed at the sandbox, one try per call."""
    stripe.api_key = server.stripe_key
    stripe.api_base = server.stripe_url
    stripe.max_network_retries = 0


@pytest.fixture
def short_stripe_timeout() -> Iterator[None]:
    """The SDK gives up on an answer after 2 s (sync and async), as a client in a hurry does."""
    stripe.default_http_client = stripe.RequestsClient(timeout=2, async_fallback_client=stripe.HTTPXClient(timeout=2))
    yield
    stripe.default_http_client = None


@pytest.fixture
def ledger(server: Server) -> Iterator[Ledger]:
    with Ledger(server.url, server.token) as client:
        yield client


@pytest.fixture
async def aledger(server: Server) -> AsyncIterator[AsyncLedger]:
    async with AsyncLedger(server.url, server.token) as client:
        yield client


@dataclass(frozen=True)
class Intent:
    """One refund to make: its order, payment and op id, as a shop's business intent names them."""

    order: str
    payment_intent: str
    line: str = "li_1"
    amount: int = AMOUNT

    @property
    def op_id(self) -> str:
        return f"refund-{self.order}-{self.line}"

    def begin_args(self) -> dict[str, Any]:
        return {
            "kind": "refund",
            "op_id": self.op_id,
            "subject": f"order:{self.order}",
            "provider": "stripe",
            "params": {"payment_intent": self.payment_intent, "amount": {"minor": self.amount, "currency": CURRENCY}},
        }


@pytest.fixture
def intent(sandbox: Sandbox) -> Intent:
    return Intent(*sandbox.new_order())

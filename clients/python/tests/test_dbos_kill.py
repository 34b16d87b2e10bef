"""The DBOS example killed right after its refund reached Stripe, then started again.

DBOS recovers the workflow and runs the refund step again (at least once); the client finds the
refund recorded as sent with no outcome, so the step does not send, and the workflow waits for the
ledger to look the refund up. Exactly one refund exists at the end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from conftest import AMOUNT, CURRENCY, Intent, Sandbox, Server, env
from opledger import Ledger

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dbos_refund.py"


@pytest.fixture
def system_database() -> Iterator[str]:
    """A fresh PostgreSQL database for DBOS, dropped afterwards."""
    admin = env("OPLEDGER_POSTGRES_URL")
    name = f"opledger_dbos_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(admin)
    yield urlunsplit(("postgresql", parts.netloc, f"/{name}", parts.query, ""))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_example(server: Server, intent: Intent, database_url: str) -> subprocess.Popen[str]:
    environment = {
        **os.environ,
        "OPLEDGER_URL": server.url,
        "OPLEDGER_TOKEN": server.token,
        "STRIPE_API_KEY": server.stripe_key,
        "STRIPE_API_BASE": server.stripe_url,
        "DBOS_SYSTEM_DATABASE_URL": database_url,
    }
    command = [sys.executable, str(EXAMPLE), intent.order, intent.line, str(AMOUNT), CURRENCY, intent.payment_intent]
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_killed_after_the_send_recovers_without_sending_again(
    server: Server, sandbox: Sandbox, intent: Intent, ledger: Ledger, system_database: str
) -> None:
    sandbox.fault(intent.op_id, "drop_response", ms=60000)
    first = start_example(server, intent, system_database)
    try:
        deadline = time.monotonic() + 60
        while not sandbox.refunds(intent.op_id):
            assert first.poll() is None, f"the first run ended before its send: {first.communicate()}"
            assert time.monotonic() < deadline, "the first run never sent its refund"
            time.sleep(0.1)
        assert ledger.get(intent.op_id)["state"] == "submitted"
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate()

    second = start_example(server, intent, system_database)
    try:
        out, err = second.communicate(timeout=180)
    finally:
        second.kill()
    assert second.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])

    [created] = sandbox.refunds(intent.op_id)
    assert result["workflow_id"] == f"refund-line-item-{intent.order}-{intent.line}"
    assert (result["op_id"], result["state"], result["refund_id"]) == (intent.op_id, "succeeded", created["id"])
    assert result["sent_now"] is False
    view = ledger.get(intent.op_id)
    assert view["state"] == "succeeded"
    assert view["external_refs"] == [f"stripe/refund/{created['id']}"]
    assert len(view["attempts"]) == 1

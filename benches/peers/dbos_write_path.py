"""The write path's peer: the same three-step protocol (register the intent, begin an attempt,
report its outcome) as a DBOS Transact workflow of three steps on PostgreSQL, each step one
transaction on the application's tables (DBOS checkpoints each step's completion in its system
database on the same server), measured the
way benches/write_path.rs measures opledger: the median and 99th percentile of one operation after
20 warm-ups, then operations per second for 2,000 operations from 8 and from 32 clients at once.

Run by scripts/bench.sh in a virtual environment it makes (`pip install dbos`); it creates a
database of its own on the server at OPLEDGER_TEST_POSTGRES_URL and drops it afterwards. Prints
Markdown rows.
"""

import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import threading

import psycopg

ADMIN_URL = os.environ.get("OPLEDGER_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
SEQUENTIAL, WARM_UP, CONCURRENT = 200, 20, 2000
DATABASE = f"opledger_peer_dbos_{os.getpid()}"


def url_of(database: str) -> str:
    base = ADMIN_URL.rsplit("/", 1)[0].replace("postgres://", "postgresql://", 1)
    return f"{base}/{database}"


def admin(statement: str) -> None:
    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(statement)


admin(f"create database {DATABASE}")
try:
    from dbos import DBOS, DBOSConfig

    config: DBOSConfig = {
        "name": "opledger-peer",
        "system_database_url": url_of(DATABASE + "_sys"),
        "run_admin_server": False,
        "sys_db_pool_size": 40,
    }
    DBOS(config=config)

    connections = threading.local()

    def write(*statements: tuple[str, dict]) -> None:
        """Runs `statements` in one transaction on this thread's connection to the application's database."""
        if not hasattr(connections, "db"):
            connections.db = psycopg.connect(url_of(DATABASE))
        with connections.db.transaction():
            for statement, values in statements:
                connections.db.execute(statement, values)

    @DBOS.step()
    def register(op_id: str) -> None:
        write((
            "insert into operations (op_id, subject, params, state, version, updated_at) "
            "values (%(op)s, %(subject)s, %(params)s, 'planned', 1, now())",
            {"op": op_id, "subject": f"order:{op_id}", "params": '{"amount":{"currency":"TWD","minor":38000}}'},
        ))

    @DBOS.step()
    def begin_attempt(op_id: str) -> None:
        write(
            ("insert into attempts (op_id, number, started_at) values (%(op)s, 1, now())", {"op": op_id}),
            ("update operations set state = 'submitted', version = version + 1 where op_id = %(op)s", {"op": op_id}),
        )

    @DBOS.step()
    def record_outcome(op_id: str) -> None:
        write(
            ("update attempts set outcome = 'succeeded', finished_at = now() where op_id = %(op)s and number = 1", {"op": op_id}),
            ("update operations set state = 'succeeded', version = version + 1 where op_id = %(op)s", {"op": op_id}),
            ("insert into external_refs (op_id, external_id) values (%(op)s, %(ref)s)", {"op": op_id, "ref": f"re_{op_id}"}),
        )

    @DBOS.workflow()
    def protocol(op_id: str) -> None:
        register(op_id)
        begin_attempt(op_id)
        record_outcome(op_id)

    with psycopg.connect(url_of(DATABASE), autocommit=True) as connection:
        connection.execute(
            "create table operations (op_id text primary key, subject text not null, params text not null, "
            "state text not null, version bigint not null, updated_at timestamptz not null)"
        )
        connection.execute(
            "create table attempts (op_id text not null references operations, number int not null, "
            "started_at timestamptz not null, finished_at timestamptz, outcome text, primary key (op_id, number))"
        )
        connection.execute(
            "create table external_refs (op_id text not null references operations, external_id text not null, "
            "primary key (op_id, external_id))"
        )
    DBOS.launch()

    for n in range(WARM_UP):
        protocol(f"refund-w{n}-li_1")
    samples = []
    for n in range(SEQUENTIAL):
        started = time.perf_counter()
        protocol(f"refund-s{n}-li_1")
        samples.append(time.perf_counter() - started)
    samples.sort()
    p50, p99 = statistics.median(samples), samples[int(len(samples) * 0.99)]
    print(f"| DBOS Transact (postgres) | sequential, one operation | {p50 * 1000:.2f} ms (p99 {p99 * 1000:.2f} ms) |")
    for clients in (8, 32):
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=clients) as pool:
            list(pool.map(protocol, (f"refund-c{clients}x{n}-li_1" for n in range(CONCURRENT))))
        rate = CONCURRENT / (time.perf_counter() - started)
        print(f"| DBOS Transact (postgres) | {clients} clients | {rate:.0f} ops/s |")
    DBOS.destroy()
finally:
    admin(f"drop database if exists {DATABASE} with (force)")
    admin(f"drop database if exists {DATABASE}_sys with (force)")

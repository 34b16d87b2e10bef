"""Reads an opledger archive folder with DuckDB, as an auditor would: every file of operations and
every segment of the audit chain under the folder, by their typed columns and the JSON record.
Prints what it read as one JSON object."""

import json
import sys

import duckdb

folder = sys.argv[1]
files = f"{folder}/*/operations/**/*.parquet"
segments = f"{folder}/*/audit/*.parquet"
connection = duckdb.connect()
rows = connection.execute(
    f"select op_id, state, amount_minor, json_extract_string(record, '$.attempts[0].outcome') "
    f"from read_parquet('{files}') order by op_id"
).fetchall()
states = dict(
    connection.execute(f"select state, count(*) from read_parquet('{files}') group by state").fetchall()
)
audit_records, audit_first_seq = connection.execute(
    f"select count(*), min(seq) from read_parquet('{segments}')"
).fetchone()
print(
    json.dumps(
        {
            "operations": len(rows),
            "op_ids": [row[0] for row in rows],
            "states": states,
            "amounts": [row[2] for row in rows],
            "first_outcomes": [row[3] for row in rows],
            "audit_records": audit_records,
            "audit_first_seq": audit_first_seq,
        }
    )
)

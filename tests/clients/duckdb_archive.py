"""Reads an opledger archive folder with DuckDB, as an auditor would: every Parquet file under the
folder, by its typed columns and the JSON record. Prints what it read as one JSON object."""

import json
import sys

import duckdb

folder = sys.argv[1]
files = f"{folder}/**/*.parquet"
connection = duckdb.connect()
rows = connection.execute(
    f"select op_id, state, amount_minor, json_extract_string(record, '$.attempts[0].outcome') "
    f"from read_parquet('{files}') order by op_id"
).fetchall()
states = dict(
    connection.execute(f"select state, count(*) from read_parquet('{files}') group by state").fetchall()
)
print(
    json.dumps(
        {
            "operations": len(rows),
            "op_ids": [row[0] for row in rows],
            "states": states,
            "amounts": [row[2] for row in rows],
            "first_outcomes": [row[3] for row in rows],
        }
    )
)

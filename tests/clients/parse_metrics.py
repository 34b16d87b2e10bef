"""Parses a Prometheus text exposition with the official `prometheus_client` parser and prints
every sample as one JSON object per line: {"name", "labels", "value"}; metric families are checked
for their type as the parser reads them. Exits non-zero when the text does not parse.

Usage: parse_metrics.py < metrics.txt
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    text = sys.stdin.read()
    for family in text_string_to_metric_families(text):
        if family.type not in ("counter", "gauge", "histogram", "summary", "untyped"):
            print(f"unexpected type {family.type} of {family.name}", file=sys.stderr)
            return 1
        for sample in family.samples:
            print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                              "labels": sample.labels, "value": sample.value}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run KQL queries on synthetic tables with duckdb-kql (PyPI `duckdb-kql[duckdb]`).

stdin: {"tables": {NAME: {"columns": [[col, kql_type], ...], "rows": [[...], ...]}},
        "queries": [KQL, ...]}
stdout: one JSON list per query: its rows as objects (datetimes as ISO 8601 text).
Exit 3 when duckdb-kql or duckdb is not installed (the test says so and skips outside CI).
"""
import json
import sys

try:
    import duckdb_kql  # noqa: F401
    import duckdb  # noqa: F401
except ImportError as e:
    print(f"duckdb-kql missing: {e}", file=sys.stderr)
    sys.exit(3)

SQL_TYPES = {
    "datetime": "TIMESTAMP",
    "string": "VARCHAR",
    "real": "DOUBLE",
    "int": "INTEGER",
    "long": "BIGINT",
    "boolean": "BOOLEAN",
}


def main():
    req = json.load(sys.stdin)
    con = duckdb_kql.connect()
    for name, t in req["tables"].items():
        cols = ", ".join(f'"{c}" {SQL_TYPES[ty]}' for c, ty in t["columns"])
        con.execute(f'CREATE TABLE "{name}" ({cols})')
        # many rows a statement: executemany runs one statement a row (seconds for 10,000)
        marks = "(" + ", ".join("?" for _ in t["columns"]) + ")"
        rows = t["rows"]
        for i in range(0, len(rows), 500):
            chunk = rows[i : i + 500]
            values = ", ".join(marks for _ in chunk)
            con.execute(f'INSERT INTO "{name}" VALUES {values}', [v for r in chunk for v in r])
    out = []
    for q in req["queries"]:
        rel = duckdb_kql.kql(con, q)
        names = [d[0] for d in rel.description]
        rows = []
        for r in rel.fetchall():
            rows.append({n: (v.isoformat() if hasattr(v, "isoformat") else v) for n, v in zip(names, r)})
        out.append(rows)
    json.dump(out, sys.stdout, default=str)


main()

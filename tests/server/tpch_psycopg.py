"""The 22 TPC-H queries through psycopg 3 (issue 14): server-side binding (the extended protocol)
and results in binary format. Prints one JSON line per query: {"query": "q01", "header": [...],
"rows": [[...], ...]} (values as text, SQL NULL as null), or {"query": ..., "error": "..."}.

Usage: python3 tpch_psycopg.py PORT USER QUERY_FILE...
"""
import datetime
import decimal
import json
import os
import sys

import psycopg


def text(value):
    if value is None:
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat(sep=' ') if isinstance(value, datetime.datetime) else value.isoformat()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def main():
    port, user, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with psycopg.connect(host='127.0.0.1', port=int(port), user=user, dbname='shoal',
                         autocommit=True) as conn:
        for path in files:
            name = os.path.basename(path).replace('.sql', '')
            sql = open(path).read().strip().rstrip(';')
            try:
                with conn.cursor(binary=True) as cur:
                    # prepare=True: Parse / Bind / Execute, the statement kept server-side.
                    cur.execute(sql, prepare=True)
                    header = [d.name for d in cur.description]
                    rows = [[text(v) for v in row] for row in cur.fetchall()]
                print(json.dumps({'query': name, 'header': header, 'rows': rows}), flush=True)
            except psycopg.Error as e:
                print(json.dumps({'query': name, 'error': f'{e.sqlstate} {e}'}), flush=True)


if __name__ == '__main__':
    main()

# psycopg 3's start-up and a typical session: connect, a parameterised query, a server-side
# cursor (for the queries it sends), as recorded into psycopg.sql. Usage: python3 psycopg_client.py DSN
import sys

import psycopg

with psycopg.connect(sys.argv[1]) as conn:
    with conn.cursor() as cur:
        cur.execute("select %s::int + 1", (1,))
        print("psycopg", cur.fetchone()[0])
        cur.execute("select table_name from information_schema.tables where table_schema = %s "
                    "order by table_name", ("public",))
        print("psycopg tables", [r[0] for r in cur.fetchall()])

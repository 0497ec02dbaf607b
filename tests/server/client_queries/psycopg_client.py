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
    # Arrays in text and in binary (array_send) results, decoded by psycopg by their type OIDs.
    query = "select array[1, null, 3] as a, array['x', 'y z'] as t, array[[1], [2]] as m"
    with conn.cursor() as cur:
        cur.execute(query)
        print("psycopg arrays", cur.fetchone())
    with conn.cursor(binary=True) as cur:
        cur.execute(query)
        print("psycopg binary arrays", cur.fetchone())

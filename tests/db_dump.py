#!/usr/bin/env python3
"""Prints every row of an SQLite database, table by table in key order, blobs
as a hash of their bytes: two databases hold the same content exactly when
their dumps are equal. Usage: db_dump.py DB [TABLE...] (all tables by default).
"""
import hashlib
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
wanted = set(sys.argv[2:])
tables = [r[0] for r in db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
for table in tables:
    if wanted and table not in wanted:
        continue
    for row in db.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
        cells = [hashlib.sha1(v).hexdigest()[:16] if isinstance(v, bytes) else repr(v) for v in row]
        print(table, *cells)

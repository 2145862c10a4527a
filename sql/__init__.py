"""``make sql``: DuckDB on this machine with every dataset's versions as tables (``python -m sql``)."""

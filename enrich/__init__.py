"""``make enrich``: a file of addresses (a log, a CSV, JSON lines) enriched with every dataset's answer, here."""

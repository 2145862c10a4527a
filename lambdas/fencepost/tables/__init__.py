"""Every dataset as a table: a version's pieces as a Parquet file for query engines (``tables.schema``), with a bucket
key that makes the range join an equi-join (``tables.buckets``), written streamed (``tables.parquet_table``), and the
SQL of the join written once for DuckDB, Trino (Athena) and Spark SQL (``tables.join_sql``, ``tables.address_sql``,
``tables.dialects``). No Lambda function imports this room (pyarrow is not in their asset).
"""

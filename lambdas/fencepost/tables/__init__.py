"""Every dataset as a table: a version's pieces as a Parquet file for query engines (``tables.schema``), with a bucket
key that makes the range join an equi-join (``tables.buckets``), written streamed (``tables.parquet_table``), and the
SQL of the join (``tables.join_sql``). No Lambda function imports this room (pyarrow is not in their asset).
"""

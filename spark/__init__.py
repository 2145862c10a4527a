"""The Glue Spark job that enriches rows with datasets' tables (``enrich_job``), runnable locally with pyspark."""

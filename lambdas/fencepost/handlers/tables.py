"""Entry point of the tables function: each version written as Parquet and registered in the Glue Data Catalog
(messages from its queue); wired in ``fencepost.bootstrap.tables_wiring``. Its asset is its own (pyarrow:
``infra.packaging.build_tables``)."""

from __future__ import annotations

from fencepost.bootstrap.tables_wiring import tables_function

wired = tables_function()
handler = wired.handler

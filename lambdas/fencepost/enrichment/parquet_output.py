"""``--out-format parquet``: every input row with its answers, as one Parquet file written a row group per batch (so
memory holds one batch whatever the input's size), compressed with zstd.

Every column is text (null where a row has no value): first the input's own, by its form:

- one address a line: ``ip``, the line as read;
- CSV and TSV: the header's names (without a header: ``c1``, ``c2``, ...), then ``_more``: the cells past them, if
  a row has more (joined by the separator), else null; a row with fewer has null in the rest;
- a log (``alb``, ``cloudfront``, ``vpc-flow``, ``s3-access``): its layout's field names (a CloudFront log's from its
  ``#Fields:`` line), then ``_more`` as above;
- JSON lines: ``line``, the object as read;

then the answers' ``<dataset>.<field>`` columns, as the CSV output names them. No cell is guarded as a spreadsheet
formula: Parquet is read by query engines, not spreadsheets. pyarrow is imported when a file is written (the Lambda
functions never write Parquet: jobs in the bucket write CSV, TSV or JSON lines).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any, Final

from fencepost.enrichment.engine import Batch
from fencepost.enrichment.inputs import Reader, Rows
from fencepost.enrichment.outputs import OutputError
from fencepost.enrichment.shape import Column

FORM: Final = "parquet"
MORE: Final = "_more"


class ParquetOutput:
    """Takes a job's batches as its text writer does (``rows`` returns no text: the batch goes to the file)."""

    def __init__(self, path: str, reader: Reader, columns: Sequence[Column]) -> None:
        self.path, self.reader, self.columns = path, reader, list(columns)
        self._names: list[str] | None = None
        self._file: Any = None

    def without_header(self) -> ParquetOutput:
        return self

    def header(self) -> str:
        return ""

    def rows(self, batch: Batch, rows: Rows) -> str:
        own = self._own(rows)
        answers = self._answers(batch)
        self._write(own, answers)
        return ""

    def close(self) -> None:
        """Ends the file (a job with no row writes one of no row, with the columns it knows)."""
        if self._file is None:
            self._write({name: [] for name in self._input_names([])}, {column.name: [] for column in self.columns})
        self._file.close()

    def _input_names(self, widths: Sequence[int]) -> list[str]:
        if self._names is None:
            form = self.reader.form
            if form == "lines":
                self._names = ["ip"]
            elif form == "jsonl":
                self._names = ["line"]
            else:
                names = list(self.reader.names or [f"c{n + 1}" for n in range(max(widths, default=1))])
                self._names = _unique([*names, MORE])
        return self._names

    def _own(self, rows: Rows) -> dict[str, list[str | None]]:
        form = self.reader.form
        if form in ("lines", "jsonl"):
            return {self._input_names([])[0]: list(rows.lines)}
        if rows.fields is not None:
            cells = rows.fields
        else:
            cells = list(csv.reader(rows.lines, delimiter=self.reader.separator))
        names = self._input_names([len(row) for row in cells[:1]])
        width = len(names) - 1
        columns: list[list[str | None]] = [[] for _ in names]
        for row in cells:
            for index in range(width):
                columns[index].append(row[index] if index < len(row) else None)
            columns[width].append(self.reader.separator.join(row[width:]) if len(row) > width else None)
        return dict(zip(names, columns, strict=True))

    def _answers(self, batch: Batch) -> dict[str, list[str | None]]:
        cells = {
            known: [column.cell(objects) or None for column in self.columns] for known, objects in batch.objects.items()
        }
        empty: list[str | None] = [None] * len(self.columns)
        per_row = [empty if known < 0 else cells[known] for known in batch.ids.tolist()]
        return {column.name: [row[index] for row in per_row] for index, column in enumerate(self.columns)}

    def _write(self, own: dict[str, list[str | None]], answers: dict[str, list[str | None]]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._file is None:
            clash = sorted(set(own) & set(answers))
            if clash:
                raise OutputError(f"the input has a column named {clash[0]!r}, as an answer's column is named")
        columns = {**own, **answers}
        if self._file is None:
            schema = pa.schema([(name, pa.string()) for name in columns])
            self._file = pq.ParquetWriter(self.path, schema, compression="zstd")
        table = pa.table({name: pa.array(values, pa.string()) for name, values in columns.items()})
        self._file.write_table(table)


def _unique(names: Sequence[str]) -> list[str]:
    """A header's names, each once: a name met again gets ``_2``, ``_3``, ... (a table's columns are named once)."""
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        unique.append(name if count == 1 else f"{name}_{count}")
    return unique

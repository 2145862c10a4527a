"""The models of ``GET /enrich/{job}`` and ``GET /enrich`` (``fencepost.http.job_routes``): an enrichment job in the
bucket, as its objects say (``core.storage.job_keys``), its summary as the loader writes it
(``fencepost.enrichment.job_files.job_summary``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

State = Literal["waiting", "queued", "running", "done", "failed"]
STATE = (
    "`waiting`: objects under `_enrich/<job>/` (its inputs) but no job file yet; `queued`: the job file is written, "
    "the job not yet planned; `running`: planned, its parts being enriched; `done`: every part joined into `out/`, "
    "the summary written; `failed`: see `reason`."
)


class BadRow(BaseModel):
    model_config = ConfigDict(extra="allow")

    input: str = Field(description="The input's key.")
    line: int = Field(description="Its line number in the input (1 is the first).")
    reason: str


class JobOutput(BaseModel):
    input: str = Field(description="The input's key, under `_enrich/<job>/in/`.")
    output: str = Field(description="Its output's key, under `_enrich/<job>/out/`.")
    rows: int
    parts: int = Field(description="The parts it was cut into, joined in order.")


class JobStatus(BaseModel):
    """The job, by state: `running` with `parts` and `parts_done`; `done` with the summary's counts (the fields below,
    as the loader wrote them); `failed` with `reason`."""

    model_config = ConfigDict(extra="allow")

    job: str
    state: State = Field(description=STATE)
    submitted_at: str | None = Field(description="When the job file was written (ISO 8601, UTC); null: not yet.")
    parts: int | None = Field(None, description="`running` and `done`: the parts its inputs were cut into.")
    parts_done: int | None = Field(None, description="`running`: the parts enriched so far.")
    inputs: list[str] | None = Field(None, description="`running`: the inputs' keys, as planned.")
    started_at: str | None = Field(None, description="`done`: when the job was planned.")
    finished_at: str | None = Field(None, description="`done` and `failed`: when it ended.")
    reason: str | None = Field(None, description="`failed`: why, naming the input, part or line.")
    rows: int | None = Field(None, description="`done`: the rows written (every input row is kept).")
    bad_rows: int | None = Field(None, description="`done`: rows without a usable address, kept without answers.")
    first_bad_rows: list[BadRow] | None = Field(None, description="`done`: the first 20 bad rows, by input.")
    versions: dict[str, dict[str, int]] | None = Field(
        None, description="`done`: rows answered by each version (a keyed dataset's: rows joined with each version)."
    )
    no_version_at: dict[str, int] | None = Field(None, description="`done`: rows no kept version answered.")
    outputs: list[JobOutput] | None = Field(None, description="`done`: each input's output.")
    bytes_in: int | None = None
    bytes_out: int | None = None
    worker_seconds: float | None = Field(None, description="`done`: the seconds the parts took, added up.")


class ListedJob(BaseModel):
    job: str
    state: State = Field(description=STATE)
    submitted_at: str | None = Field(description="When the job file was written; null: not yet.")
    parts: int | None = Field(description="The parts its inputs were cut into; null before it is planned.")
    parts_done: int | None = Field(description="The parts enriched so far; null before it is planned.")
    rows: int | None = Field(description="`done`: the rows written.")
    bad_rows: int | None = Field(description="`done`: rows without a usable address.")
    outputs: int | None = Field(description="`done`: how many outputs (`GET /enrich/{job}` names them).")
    finished_at: str | None = Field(description="`done` and `failed`: when it ended.")
    reason: str | None = Field(description="`failed`: why.")


class JobList(BaseModel):
    jobs: list[ListedJob] = Field(description="A page of jobs, in the bucket's order of their names.")
    next: str | None = Field(description="The cursor of the next page; null on the last page.")

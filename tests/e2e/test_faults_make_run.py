"""``make run FAULTS=...``: the entry point says which faults it injects and with which seed, counts them at stop,
refuses a bad spec before starting anything; without ``FAULTS`` nothing sits before DynamoDB Local and moto."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from local.config import StackConfig
from local.stack import LocalStack
from tests.support import ROOT
from tests.support.stacks import start, stop


def test_make_run_with_faults_says_them_loads_under_them_and_counts_them_at_stop(tmp_path: Path) -> None:
    running = start(tmp_path, "--faults", "dynamodb.error=0.3,s3.error=0.3,s3.cut=0.2", "--faults-seed", "5")
    try:
        running.wait_ready("sample", 1)  # the sample, loaded under faults
        statuses = [running.get("/lookup", ip="8.8.8.8", dataset="sample")[0] for _ in range(40)]
        assert set(statuses) <= {200, 503}
        assert 200 in statuses
    finally:
        output = stop(running)
    assert "Faults          dynamodb.error=0.3,s3.error=0.3,s3.cut=0.2, FAULTS_SEED=5: DynamoDB's at" in output
    last = [line for line in output.splitlines() if "faults injected (FAULTS_SEED=5)" in line][-1]
    assert "DynamoDB 0 requests" not in last
    assert "S3 0 requests" not in last
    assert "InternalServerError" in last
    assert "cut bodies" in last


def test_a_bad_faults_spec_stops_make_run_before_anything_starts_saying_why(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "local", "--data-dir", str(tmp_path)]
    for given, says in (
        (["--faults", "dynamodb.eror=0.1"], "unknown fault 'dynamodb.eror' in FAULTS: the faults are dynamodb.error"),
        (["--faults", "s3.cut=2"], "s3.cut=2: a rate is a share of requests from 0 to 1"),
        (["--faults", "s3.cut=0.1", "--faults-seed", "x"], "argument --faults-seed: invalid int value: 'x'"),
    ):
        done = subprocess.run([*command, *given], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 2
        assert says in done.stderr
    env["FAULTS"] = "loader.kill=x"
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert (done.returncode, "loader.kill=x: a number of kills" in done.stderr) == (2, True)
    assert not (tmp_path / "dynamodb.log").exists()  # nothing was started


def test_without_faults_the_clients_talk_to_dynamodb_local_and_moto_on_their_own_ports() -> None:
    config = StackConfig.ephemeral(http_port=None)
    with LocalStack(config) as stack:
        assert stack.faults is None
        assert (stack.dynamodb_front, stack.s3_front, stack.children) == (None, None, None)
        assert stack.dynamodb is not None
        assert stack.moto is not None
        assert stack.dynamodb.port == config.dynamodb_port
        assert stack.moto.port == config.aws_port
        assert stack.dynamodb_endpoint == f"http://127.0.0.1:{config.dynamodb_port}"
        assert os.environ["AWS_ENDPOINT_URL_S3"] == f"http://127.0.0.1:{config.aws_port}"

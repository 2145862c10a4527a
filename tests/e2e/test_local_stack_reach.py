"""Who can reach ``make run``'s stack, and how the commands beside it find it: every listener bound to 127.0.0.1 (the
banner saying so), the state file naming its ports while it runs, ``local/env.sh`` and the admin targets acting on
that stack alone, and a second stack on the same data dir refused."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from local.state import STATE_NAME
from tests.support import ROOT
from tests.support.stacks import Running, start, stop


def _tree(pid: int) -> set[int]:
    """``pid`` and every process below it."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent and child not in found]
        found.update(children)
        frontier += children
    return found


def _address(hexed: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    raw = bytes.fromhex(hexed)
    if len(raw) == 4:
        return ipaddress.IPv4Address(raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))  # four host-order 32-bit words
    return ipaddress.IPv6Address(words)


def listening(pids: set[int]) -> dict[int, str]:
    """Every TCP port the processes listen on, and the address each is bound to (/proc/net/tcp and tcp6)."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found: dict[int, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                host, port = fields[1].split(":")
                address = _address(host)
                mapped = getattr(address, "ipv4_mapped", None)
                found[int(port, 16)] = str(mapped or address)
    return found


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    data_dir = tmp_path_factory.mktemp("reach")
    running = start(data_dir)
    try:
        running.wait_ready("sample", 1)
        yield running, data_dir
    finally:
        if running.process.poll() is None:
            output = stop(running)
            assert "Listening on    127.0.0.1 only: " in output
            assert not (data_dir / STATE_NAME).exists()  # removed at stop


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")
def test_every_listener_of_the_stack_is_on_127_0_0_1(stack: tuple[Running, Path]) -> None:
    running, _ = stack
    ports = listening(_tree(running.process.pid))

    assert {running.aws_port, running.dynamodb_port, int(running.api.rsplit(":", 1)[1])} <= set(ports)
    assert {port: address for port, address in ports.items() if not ipaddress.ip_address(address).is_loopback} == {}


def test_the_state_file_names_the_stack_while_it_runs(stack: tuple[Running, Path]) -> None:
    running, data_dir = stack
    kept = json.loads((data_dir / STATE_NAME).read_text())

    assert kept["pid"] == running.process.pid
    assert kept["api"] == running.api
    assert kept["aws"] == f"http://127.0.0.1:{running.aws_port}"
    assert kept["environment"]["DEFAULT_DATASET"] == "sample"


def _bash(script: str, data_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The script's output as a terminal shows it: a line rewritten after a carriage return (a progress line) is
    its last text."""
    env = {**os.environ, "DATA_DIR": str(data_dir), "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"}
    for name in [name for name in env if name.startswith("AWS_")]:
        del env[name]
    run = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, check=False)
    shown = "\n".join(line.rsplit("\r", 1)[-1].rstrip() for line in run.stdout.decode().split("\n"))
    return subprocess.CompletedProcess(run.args, run.returncode, shown, run.stderr.decode())


def test_env_sh_points_curl_and_the_aws_cli_at_the_running_stack(stack: tuple[Running, Path], tmp_path: Path) -> None:
    running, data_dir = stack
    (tmp_path / "geo.csv").write_text("start,end,country\n1.0.0.0,1.0.255.255,AU\n")
    script = f"""set -e
    source {ROOT}/local/env.sh
    echo "$API"
    aws s3 cp geo.csv s3://ranges/envsh/geo.csv
    curl -s "$API/lookup?ip=8.8.8.8"
    """
    run = _bash(script, data_dir, tmp_path)

    assert run.returncode == 0, run.stderr
    api, upload, answer = run.stdout.splitlines()
    assert api == running.api
    assert upload == "upload: ./geo.csv to s3://ranges/envsh/geo.csv"
    assert running.s3.get_object(Bucket="ranges", Key="envsh/geo.csv")["Body"].read().startswith(b"start,end")
    assert json.loads(answer)["dataset"] == "sample"  # make run's default dataset


def test_env_sh_without_a_stack_says_so_and_sets_nothing(tmp_path: Path) -> None:
    run = _bash(f'source {ROOT}/local/env.sh; echo "status $? API=[$API]"', tmp_path, tmp_path)

    assert run.stdout.strip() == "status 1 API=[]"
    assert f"no local stack is running from {tmp_path}" in run.stderr


def test_the_admin_command_acts_on_the_stack_of_its_data_dir(stack: tuple[Running, Path]) -> None:
    _, data_dir = stack
    env = {**os.environ, "DATA_DIR": str(data_dir)}
    run = subprocess.run(
        [sys.executable, "-m", "local.admin", "status", "sample"], env=env, capture_output=True, text=True, check=False
    )

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["name"] == "sample"


def test_a_second_stack_on_the_same_data_dir_is_refused(stack: tuple[Running, Path]) -> None:
    running, data_dir = stack
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "local", "--data-dir", str(data_dir), "--http-port", "0", "--aws-port", "0"]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)

    assert run.returncode == 1
    assert re.search(rf"a local stack already runs from .* \(process {running.process.pid}, API ", run.stderr)
    assert (data_dir / STATE_NAME).exists()  # the first stack's, untouched

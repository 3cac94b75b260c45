"""run_info.json is read without holding its ``resolved_execution_plans`` (issue 11).

A 10,000-task run's file is 38 MB, nearly all of it that section, which scoring never
reads: reading it whole was the largest thing a cold report held (the peak RSS target).
:func:`~inspector.results.runinfo.read_without_plans` must give exactly the bytes the
in-memory cut (:func:`~inspector.results.runinfo.member_span`) gives, on every layout and
wherever its chunks fall, and the run read from it must be the same.
"""

from __future__ import annotations

import functools
import json
import os
import tracemalloc
from pathlib import Path

import pytest

from inspector.results import runinfo
from inspector.results.reader import _run_info
from inspector.results.run_files import RunFiles

TASKS = 4000


def _plans(tasks: int) -> dict[str, object]:
    return {
        f"cat_{i % 7:03d}/q{i:06d}": {
            str(n): {"attempt": n, "strategy": "avg", "seed": i * 3 + n} for n in (1, 2, 3)
        }
        for i in range(tasks)
    }


def _document(tasks: int = TASKS, **extra: object) -> dict[str, object]:
    return {
        "schema_version": "agentcompass.run_info.v3",
        "run_id": "run-1",
        "request": {"benchmark": "bench", "k": 3},
        "resolved_execution_plans": _plans(tasks),
        **extra,
    }


@functools.cache
def _layouts() -> dict[str, bytes]:
    """Files as AgentCompass writes them and as it does not."""
    usual = json.dumps(_document(), indent=2, sort_keys=True).encode()
    # The plans last: nothing after the member to cut up to.
    last = json.dumps(
        {"a_first": 1, "resolved_execution_plans": _plans(TASKS)}, indent=2
    ).encode()
    twice = usual[:-2] + b',\n  "resolved_execution_plans": {}\n}'
    flat = json.dumps(_document(2 * TASKS), sort_keys=True).encode()  # no indentation
    no_plans = json.dumps(
        {"run_id": "run-1", "blob": ["x" * 100] * 20000}, indent=2, sort_keys=True
    ).encode()
    small = json.dumps(_document(10), indent=2, sort_keys=True).encode()
    return {
        "usual": usual,
        "plans-last": last,
        "key-twice": twice,
        "not-indented": flat,
        "no-plans": no_plans,
        "small": small,
    }


def _expected(data: bytes) -> bytes:
    span = runinfo.plans_span(data)
    return data if span is None else data[: span[0]] + data[span[1] :]


def _read(path: Path, max_bytes: int | None = None) -> bytes | None:
    fd = os.open(path, os.O_RDONLY)
    try:
        return runinfo.read_without_plans(fd, os.fstat(fd).st_size, max_bytes)
    finally:
        os.close(fd)


@pytest.mark.parametrize("chunk", [5, 4093, 1 << 16, 1 << 20])
@pytest.mark.parametrize("layout", sorted(_layouts()))
def test_the_streamed_cut_gives_the_in_memory_cuts_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, chunk: int
) -> None:
    data = _layouts()[layout]
    path = tmp_path / "run_info.json"
    path.write_bytes(data)
    monkeypatch.setattr(runinfo, "_CHUNK", chunk)
    got = _read(path)
    assert got == _expected(data)
    if layout == "usual":
        assert len(got) < 1000 < len(data) // 1000  # cut indeed


def test_the_layouts_cover_both_outcomes() -> None:
    """The cases above include files that are cut and files that are kept whole."""
    cut = {name for name, data in _layouts().items() if runinfo.plans_span(data) is not None}
    assert cut == {"usual"}


def test_a_file_beyond_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "run_info.json"
    path.write_bytes(_layouts()["usual"])
    assert _read(path, max_bytes=len(path.read_bytes()) - 1) is None
    assert _read(path, max_bytes=len(path.read_bytes())) == _expected(path.read_bytes())


def test_run_info_is_read_without_holding_its_plans(tmp_path: Path) -> None:
    """The largest allocation while reading a 15 MB run_info.json stays far below it."""
    data = json.dumps(_document(60000), indent=2, sort_keys=True).encode()
    assert len(data) > 15_000_000
    (tmp_path / "run_info.json").write_bytes(data)
    files = RunFiles(tmp_path)
    tracemalloc.start()
    try:
        value = _run_info(files, problems := [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert problems == []
    assert value == {k: v for k, v in json.loads(data).items() if k != "resolved_execution_plans"}
    assert peak < 4 * 1024**2, peak


def test_a_broken_file_is_described_as_it_is(tmp_path: Path) -> None:
    """JSON broken before the plans: the message gives the line of the whole file, as
    reading it whole does (the cut bytes would put it elsewhere)."""
    good = json.dumps(_document(), indent=2, sort_keys=True).encode()
    broken = good.replace(b'"run_id": "run-1"', b'"run_id": "run-1" oops', 1)
    assert broken != good
    (tmp_path / "run_info.json").write_bytes(broken)
    problems: list = []
    assert _run_info(RunFiles(tmp_path), problems) is None
    [problem] = problems
    line = broken[: broken.index(b"oops")].count(b"\n") + 1
    assert problem.path == "run_info.json"
    assert f"line {line} " in problem.message, problem.message


def test_the_runs_list_reads_run_info_without_its_plans(tmp_path: Path) -> None:
    """The runs list's summary reads run_info.json as the reader does: a results root of
    hundreds of runs would otherwise parse every run's plans (most of each file) before
    its first row is shown."""
    from inspector.results.discover import summarize_run

    document = _document(60000, status="completed", started_at="2026-01-02T03:04:05")
    (tmp_path / "run_info.json").write_bytes(
        json.dumps(document, indent=2, sort_keys=True).encode()
    )
    tracemalloc.start()
    try:
        summary = summarize_run(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert summary.problems == ()
    assert (summary.run_id, summary.status, summary.started_at) == (
        "run-1",
        "completed",
        "2026-01-02T03:04:05",
    )
    assert peak < 4 * 1024**2, peak


def test_the_runs_list_describes_a_broken_file_as_it_is(tmp_path: Path) -> None:
    from inspector.results.discover import summarize_run

    good = json.dumps(_document(), indent=2, sort_keys=True).encode()
    broken = good.replace(b'"run_id": "run-1"', b'"run_id": "run-1" oops', 1)
    (tmp_path / "run_info.json").write_bytes(broken)
    [problem] = summarize_run(tmp_path).problems
    line = broken[: broken.index(b"oops")].count(b"\n") + 1
    assert problem.path == "run_info.json"
    assert f"line {line} " in problem.message, problem.message

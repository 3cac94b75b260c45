"""Checking a large result.json's trajectory as JSON without building it (issue 53, item 2/4).

    .venv/bin/python benchmarks/bench_validate.py [--sizes-mb 1 5 20] [--repeat 7]
        [--workdir DIR]

Writes one ``result.json`` per size (a trajectory of that many MB, written as AgentCompass
writes it: ``indent=2, ensure_ascii=False``, a little non-ASCII text in every step), then
times in this process, on files in the page cache, in --repeat interleaved rounds (a noisy
neighbour slows every candidate of a round alike), the median of each:

  read        open and read the bytes (the floor every ratio is against)
  old-cut     read, cut the trajectory out by its layout, orjson the rest (main before
              issue 53: the trajectory bytes were not checked at all)
  skip        read + ``parse_result_without_trajectory`` (msgspec checks every byte as
              JSON and builds no trajectory; UTF-8 and long integers checked beside it)
  msgspec     read + msgspec's decode into ``dict[str, Raw]`` alone (no UTF-8 check)
  utf8-whole  read + ``bytes.decode()`` alone (the UTF-8 check as it was)
  utf8        read + the UTF-8 check ``skip`` makes, 64 KiB at a time
  simdjson    read + ``simdjson.Parser().parse`` (pysimdjson, when installed: a SIMD
              validator that checks UTF-8 too; it builds no Python objects until asked),
              one parser kept for every file
  simd+cut    simdjson, then old-cut: the least a skipping parse built on it would cost
  orjson      read + orjson parsing everything (what a reader without skipping does)
  json        read + ``json.loads`` of the text (AgentCompass's reader)

and prints ms per file, MB/s, and each ratio to the read floor of the same round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

from inspector.results.lean import _is_utf8
from inspector.results.runinfo import member_span, parse_result_without_trajectory

try:
    import simdjson  # type: ignore[import-not-found]
except ImportError:  # not a dependency: measured when installed
    simdjson = None

TRAJECTORY_KEY = b'\n  "trajectory": '
_RAW = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode


def write_result(path: Path, megabytes: float) -> None:
    """A result.json whose trajectory is about ``megabytes`` MB."""
    step_text = "The agent looked up the order — résumé of step {i}; " * 20
    steps = []
    size = 0
    i = 0
    while size < megabytes * 1_000_000:
        step = {
            "step_id": i,
            "role": "assistant",
            "content": step_text.format(i=i),
            "tool_calls": [{"name": "find_order", "arguments": {"order_id": f"#W{i:07d}"}}],
            "observation": {"status": "ok", "items": list(range(i % 20)), "price": i * 0.25},
        }
        steps.append(step)
        size += len(json.dumps(step, indent=2, ensure_ascii=False).encode()) + 8
        i += 1
    payload = {
        "status": "completed",
        "metrics": {"correct": True, "reward": 1.0},
        "final_answer": "Done — the order was changed.",
        "trajectory": {"schema_version": "ACTF_v1.0", "steps": steps},
        "issues": [],
        "artifacts": {},
        "analysis_result": {},
        "meta": {"benchmark": {}, "harness": {}},
        "retry_count": 0,
    }
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


def read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        chunks = []
        while chunk := os.read(fd, max(size, 1 << 16)):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def old_cut(data: bytes) -> Any:
    """What main did before issue 53 (the trajectory's bytes cut out unchecked)."""
    start, end = member_span(data, TRAJECTORY_KEY) or (0, 0)
    return orjson.loads(data[:start] + data[end:])


_SIMD = simdjson.Parser() if simdjson is not None else None


def simdjson_parse(data: bytes) -> Any:
    """Validate (UTF-8 included) with a parser kept between files, as a reader would."""
    assert _SIMD is not None
    _SIMD.parse(data)


def simdjson_cut(data: bytes) -> Any:
    """The least a skipping parse built on pysimdjson would do: validate the whole file,
    then parse the members around the trajectory (cut out by its layout) with orjson."""
    simdjson_parse(data)
    return old_cut(data)


CANDIDATES: dict[str, Callable[[bytes], Any] | None] = {
    "read": lambda data: None,
    "old-cut": old_cut,
    "skip": parse_result_without_trajectory,
    "msgspec": _RAW,
    "utf8-whole": bytes.decode,
    "utf8": _is_utf8,
    "simdjson": simdjson_parse if simdjson is not None else None,
    "simd+cut": simdjson_cut if simdjson is not None else None,
    "orjson": orjson.loads,
    "json": lambda data: json.loads(data.decode()),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 5, 20])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-validate-"))
    workdir.mkdir(parents=True, exist_ok=True)
    names = [name for name, run in CANDIDATES.items() if run is not None]
    if simdjson is None:
        print("pysimdjson is not installed: its row is left out")
    for megabytes in args.sizes_mb:
        path = workdir / f"result-{megabytes:g}mb.json"
        if not path.exists():
            write_result(path, megabytes)
        data = read(path)
        assert parse_result_without_trajectory(data) is not None, "the skipping parse declined"
        size = len(data)
        # Enough calls per measurement for ~50 ms of reading, at least 3.
        calls = max(3, int(0.05 / max(_once(path, CANDIDATES["read"]), 1e-6)))
        times: dict[str, list[float]] = {name: [] for name in names}
        ratios: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(args.repeat):
            round_times = {}
            for name in names:
                run = CANDIDATES[name]
                assert run is not None
                start = time.perf_counter()
                for _ in range(calls):
                    _once(path, run)
                round_times[name] = (time.perf_counter() - start) / calls
            for name in names:
                times[name].append(round_times[name])
                ratios[name].append(round_times[name] / round_times["read"])
        print(
            f"\nresult.json of {size / 1e6:.1f} MB ({megabytes:g} MB trajectory), "
            f"{args.repeat} rounds x {calls} calls, medians:"
        )
        print(f"  {'':10} {'ms':>8} {'MB/s':>8} {'x read':>8}")
        for name in names:
            median = statistics.median(times[name])
            print(
                f"  {name:10} {median * 1e3:8.2f} {size / median / 1e6:8.0f} "
                f"{statistics.median(ratios[name]):8.2f}"
            )


def _once(path: Path, run: Callable[[bytes], Any]) -> float:
    start = time.perf_counter()
    run(read(path))
    return time.perf_counter() - start


if __name__ == "__main__":
    main()

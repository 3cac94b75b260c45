"""Task entries as cache records: marshal with hand-written checks against msgspec Structs.

    .venv/bin/python benchmarks/bench_records.py RUN [--repeat 7]

Reads RUN once (no cache), then times, in this process and in interleaved rounds, what a
task store does with every entry of a run: ``encode`` (entries to bytes, as written at
the end of a cold read) and ``decode`` (bytes to checked entries, as on a reopen), for
``marshal`` (the tuples of the old hand-written codec, checked in Python) and ``msgspec``
(msgpack of array-like Structs, checked by the decoder). Prints medians and min-max and
the bytes each makes. The store keeps whichever is faster by more than the spread.
"""

from __future__ import annotations

import argparse
import gc
import marshal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _timed(function: Any, *args: Any) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        out = function(*args)
        return time.perf_counter() - start, out
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import os

    os.environ["INSPECTOR_CACHE"] = "0"
    from inspector.loading import door, records
    from inspector.results.reader import read_run

    entries = read_run(Path(args.run)).entries
    ways: dict[str, tuple[Any, Any]] = {}
    try:
        from inspector.loading import entry_data

        def marshal_encode(items: list[Any]) -> bytes:
            return marshal.dumps([entry_data.encode_entry(e) for e in items])

        def marshal_decode(raw: bytes) -> list[Any]:
            return [entry_data.decode_entry(d) for d in marshal.loads(raw)]

        ways["marshal"] = (marshal_encode, marshal_decode)
    except ImportError:  # the hand-written codec is gone: msgspec alone
        pass
    entries_decoder = records.decoder(list[records.EntryRec])

    def msgspec_encode(items: list[Any]) -> bytes:
        return bytes(records.ENCODER.encode([door.entry_record(e) for e in items]))

    def msgspec_decode(raw: bytes) -> list[Any]:
        return [records.task_entry(rec) for rec in entries_decoder.decode(raw)]

    ways["msgspec"] = (msgspec_encode, msgspec_decode)
    times: dict[str, dict[str, list[float]]] = {w: {"encode": [], "decode": []} for w in ways}
    sizes = {}
    for _ in range(args.repeat):
        for name, (encode, decode) in ways.items():
            took, raw = _timed(encode, entries)
            times[name]["encode"].append(took)
            took, back = _timed(decode, raw)
            times[name]["decode"].append(took)
            assert len(back) == len(entries) and all(b is not None for b in back)
            sizes[name] = len(raw)
    print(f"{len(entries)} entries, {args.repeat} interleaved rounds (ms: median, min-max)")
    for name, parts in times.items():
        cells = [
            f"{part} {statistics.median(v) * 1e3:7.1f} ({min(v) * 1e3:.1f}-{max(v) * 1e3:.1f})"
            for part, v in parts.items()
        ]
        print(f"{name:>8}: {'   '.join(cells)}   {sizes[name] / 1e6:.2f} MB")


if __name__ == "__main__":
    main()

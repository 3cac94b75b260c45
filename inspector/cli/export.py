"""``inspector export RUN|ROOT --format eee|parquet|csv|jsonl --out DIR``.

A run is exported into ``DIR``; a results root's runs each into ``DIR/<path of the run under the root>`` (EEE: all into one datastore tree,
``DIR/data/...``; ``--format parquet --dataset``: one Parquet dataset of the whole root,
``DIR/<table>/benchmark=…/model=…/<run>.parquet``). Neither ``DIR`` nor any file written may
lie inside the run or the root, every link followed (:mod:`inspector.output_files`). A run
that cannot be recomputed is named on stderr and the others are still
exported (exit 2 when any failed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspector.answers.run import Unusable, load_session, say_on_stderr
from inspector.cli.common import EXIT_OK, EXIT_UNUSABLE
from inspector.export import FORMATS, ExportError, write_dataset, write_export
from inspector.output_files import OutputError, output_target
from inspector.results.discover import find_runs, is_run
from inspector.results.problems import RunReadError


def register(subparsers: Any) -> None:
    export = subparsers.add_parser(
        "export",
        help="write a run (or every run under a root) as EEE, Parquet, CSV or JSONL files",
        description=(
            "Recompute and write: eee = Every Eval Ever 0.3.0 aggregate JSON + per-attempt "
            "JSONL (attempt = epoch); parquet = the runs, series (with intervals), tasks, "
            "attempts, issues and pass@j tables (--dataset: one Hive-partitioned dataset); "
            "csv / jsonl = the rows of `inspector tasks --series all`. Never writes into a "
            "result directory."
        ),
    )
    export.add_argument("path", help="a run directory or a results root")
    export.add_argument("--format", choices=FORMATS, required=True)
    export.add_argument("--out", default=".", metavar="DIR", help="destination (default: .)")
    export.add_argument(
        "--dataset",
        action="store_true",
        help="with --format parquet: one dataset of every run, partitioned by benchmark and "
        "model (DIR/<table>/benchmark=…/model=…/<run>.parquet, Hive style)",
    )
    export.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    source, out = Path(args.path), Path(args.out)
    if args.dataset and args.format != "parquet":
        raise Unusable("--dataset is a Parquet dataset: use it with --format parquet")
    if is_run(source):
        targets = [(source, out)]
        relatives = ["."]
    else:
        try:
            runs = find_runs(source)
        except RunReadError as exc:
            raise Unusable(str(exc)) from None
        if not runs:
            raise Unusable(f"{args.path}: no runs found")
        # EEE records go to one datastore tree (their names are unique); the others per run.
        targets = [
            (source / run.relative, out if args.format == "eee" or args.dataset
             else out / run.relative)
            for run in runs
        ]  # fmt: skip
        relatives = [run.relative for run in runs]
    inputs = [source, *(path for path, _ in targets)]
    try:
        output_target(out, inputs, folder=True)
    except OutputError as exc:
        raise Unusable(str(exc)) from None
    failed = 0
    for (path, destination), relative in zip(targets, relatives, strict=True):
        try:
            session = load_session(str(path))
            if args.dataset:
                files = write_dataset(session, destination, relative, inputs)
            else:
                files = write_export(session, args.format, destination, inputs)
            for written in files:
                print(written)
        except BrokenPipeError:
            raise
        except (Unusable, ExportError, OutputError, ImportError, OSError) as exc:
            say_on_stderr(f"inspector: {exc}")
            failed += 1
    sys.stdout.flush()
    return EXIT_UNUSABLE if failed else EXIT_OK

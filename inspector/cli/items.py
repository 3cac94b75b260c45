"""``inspector items ROOT`` (tasks across every run under a root, flagged) and ``inspector
errors RUN|ROOT [--against RUN|ROOT]`` (error fingerprints). The rows and the
fingerprints are made by :mod:`inspector.views.items` and :mod:`inspector.views.fingerprints`
from the runs :mod:`inspector.answers.items` reads."""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

from inspector.answers.items import Skipped, root_fingerprints, root_items, runs_at
from inspector.answers.run import Unusable, say_on_stderr
from inspector.cli.output import write_exact
from inspector.engine import strict_json
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError
from inspector.results.reader import OnProgress
from inspector.views.csv_cells import csv_writer
from inspector.views.fingerprints import (
    CUT,
    PREFIX,
    FingerprintChange,
    FingerprintGroup,
    Fingerprints,
    against,
)
from inspector.views.items import FORMATS, MIN_MODELS, as_csv, as_json, as_table, item_rows
from inspector.views.visible import visible


def _progress() -> OnProgress | None:
    """Runs read so far, on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        return None

    def said(done: int, total: int) -> None:
        sys.stderr.write(f"\rreading runs {done}/{total}" + ("\r\033[K" if done == total else ""))
        sys.stderr.flush()

    return said


def _skipped(skipped: Sequence[Skipped]) -> None:
    for item in skipped:
        say_on_stderr(f"inspector: left out {item.run}: {item.reason}")


def cmd_items(args: Any) -> int:
    """``inspector items ROOT [--benchmark ID] [--min-models N] [--format table|json|csv]``."""
    try:
        runs, skipped = root_items(args.path, Overrides(), _progress())
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    _skipped(skipped)
    if not runs and not skipped:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    rows = item_rows(runs, benchmark=args.benchmark, min_models=args.min_models)
    if args.format == "json":
        text = as_json(rows)
    elif args.format == "csv":
        text = as_csv(rows)
        if sys.stdout.isatty():
            text = "\n".join(visible(line, one_line=True) for line in text.splitlines()) + "\n"
    else:
        text = as_table(rows)
    write_exact(text)
    return 0


def _groups(path: str) -> Fingerprints:
    try:
        found, skipped = root_fingerprints(path, Overrides(), _progress())
        if not found.runs and not skipped and not runs_at(path):
            raise Unusable(f"{path}: no runs here (a run has run_info.json or a details/ folder)")
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    _skipped(skipped)
    return found


def errors_table(
    groups: Sequence[FingerprintGroup | FingerprintChange],
    runs: tuple[int, int] | None = None,
) -> str:
    """One line per fingerprint (with ``--against``: its status, before → after, ratio) and
    its literal example on the next, made visible on a terminal or not (a table is read by a
    person); ``runs``: the two sides' run counts (``--against``)."""
    shown = functools.partial(visible, one_line=True)
    lines = []
    for item in groups:
        g = item.group if isinstance(item, FingerprintChange) else item
        head = f"{g.attempts:>6} attempts {g.tasks:>5} tasks {g.runs:>4} runs  "
        if isinstance(item, FingerprintChange):
            ratio = "" if item.ratio is None else f" ×{item.ratio:.2f}"
            head = f"{item.status:<5} {item.before:>6} → {item.after:<6}{ratio:<7} "
        lines.append(head + shown(g.fingerprint))
        lines.append("      e.g. " + shown(g.example))
    lines.append(f"{len(groups)} fingerprints")
    cut = sum(1 for i in groups if (i.group if isinstance(i, FingerprintChange) else i).cut)
    if cut:
        lines.append(f"{cut} of them ending in {CUT}: messages longer than {PREFIX} characters, "
                     f"read (and shown) up to there")  # fmt: skip
    if runs is not None:
        per_run = "; × compares attempts per run" if runs[0] != runs[1] else ""
        lines.append(f"runs: {runs[0]} before, {runs[1]} after{per_run}")
    return "\n".join(lines) + "\n"


def cmd_errors(args: Any) -> int:
    """``inspector errors RUN|ROOT [--against RUN|ROOT] [--format table|json|csv]``."""
    after = _groups(args.path)
    items: list[Any] = after.groups()
    runs = None
    if args.against is not None:
        before = _groups(args.against)
        runs = (len(before.runs), len(after.runs))
        items = against(before.groups(), items, runs)
    if args.format == "json":
        text = strict_json.dumps([i.to_json() for i in items], ensure_ascii=False, indent=2) + "\n"
    elif args.format == "csv":
        import io

        out = io.StringIO()
        writer = csv_writer(out)
        head = list(items[0].to_json()) if items else ["fingerprint"]
        writer.writerow(head)
        writer.writerows([i.to_json()[h] for h in head] for i in items)
        text = out.getvalue()
        if sys.stdout.isatty():
            text = "\n".join(visible(line, one_line=True) for line in text.splitlines()) + "\n"
    else:
        text = errors_table(items, runs)
    write_exact(text)
    return 0


def register(subparsers: Any, command: str) -> None:
    """Add ``command`` (``items`` or ``errors``) to the ``inspector`` command."""
    if command == "errors":
        _register_errors(subparsers)
        return
    items = subparsers.add_parser(
        "items",
        help="every task id over every finished run under a root, flagged",
        description=(
            "Read every finished run under ROOT (in parallel) and print one row per benchmark "
            "and task id: runs, models, attempts, solved / failed / errored / unavailable "
            "attempts, the mean of the recomputed headline value, and flags: never_solved, "
            "always_errors, verifier_suspect, flips_within_model, one_model_only."
        ),
    )
    items.add_argument("path", help="a results root (or one run)")
    items.add_argument("--benchmark", metavar="ID", help="only this benchmark's tasks")
    items.add_argument(
        "--min-models", type=int, default=MIN_MODELS, metavar="N",
        help=f"never_solved needs the task evaluated by N models (default {MIN_MODELS})",
    )  # fmt: skip
    items.add_argument("--format", choices=FORMATS, default="table")
    items.set_defaults(func=cmd_items)


def _register_errors(subparsers: Any) -> None:
    errors = subparsers.add_parser(
        "errors",
        help="error fingerprints of a run or of every run under a root",
        description=(
            "Every issue of every attempt and retry record, reduced to a fingerprint (phase, "
            "code and the message with numbers, hex, UUIDs, paths, timestamps, durations, "
            "ports and quoted values replaced), with the attempts, tasks and runs carrying it "
            f"and one literal example (a message is read up to its first {PREFIX} characters). "
            "--against: new, grown, gone and same fingerprints, in attempts per run when the "
            "two sides have different numbers of runs."
        ),
    )
    errors.add_argument("path", help="a run directory or a results root")
    errors.add_argument("--against", metavar="RUN|ROOT", help="the side to compare with")
    errors.add_argument("--format", choices=FORMATS, default="table")
    errors.set_defaults(func=cmd_errors)

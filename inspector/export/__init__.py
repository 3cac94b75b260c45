"""Writing a recomputed run to files others read: EEE, Parquet, CSV, JSONL.

``write_export(session, fmt, out, inputs)`` writes one run's files into the folder ``out``,
each under a name made from the run id:

- ``eee``: EEE's datastore layout, ``data/<benchmark>/<developer>/<model>/<uuid>.json``
  (aggregate) and ``<uuid>_samples.jsonl`` (per attempt) beside it, see
  :mod:`inspector.export.eee`;
- ``parquet``: ``<run>.tasks.parquet`` and ``<run>.attempts.parquet``, schema in
  :mod:`inspector.export.tables`;
- ``csv`` / ``jsonl``: ``<run>.tasks.csv`` / ``<run>.tasks.jsonl``, the rows of
  ``inspector tasks RUN --series all --format csv|jsonl``.

Every file goes through :func:`inspector.output_files.write_output`: refused (one line naming
it) when, every link followed, it lies inside a result directory (``inputs``) or is not a
regular file, and written to a temporary name beside it then renamed into place, so a reader
never sees half a file.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from inspector import __version__
from inspector.engine import strict_json
from inspector.export.eee import aggregate_record, datastore_names, instance_record
from inspector.export.tables import attempt_rows, task_rows, write_parquet
from inspector.output_files import Writer, write_output
from inspector.results.lazy import read_attempt_payload
from inspector.results.problems import ResultFileError
from inspector.views.audit import LedgerTask, task_filter
from inspector.views.task_rows import task_json, write_task_rows

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session

FORMATS = ("eee", "parquet", "csv", "jsonl")


class ExportError(ValueError):
    """An export that cannot be written; ``str()`` is the one-line message."""


def file_stem(run_id: str) -> str:
    """A file name from a run id: letters, digits, ``.``, ``-`` and ``_`` kept, the rest ``_``."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", run_id).strip(".") or "run"
    return stem[:120]


def _write(path: Path, inputs: Sequence[Path], write: Writer, *, binary: bool = False) -> None:
    write_output(path, inputs, write, binary=binary, new_folders=True)


def all_task_rows(session: Session) -> Iterator[LedgerTask]:
    """Every series' task rows in report order: ``inspector tasks --series all``."""
    rec = session.recomputation
    assert rec is not None
    for series in rec.report.series:
        yield from task_filter(rec, series.series_id)


def write_export(session: Session, fmt: str, out: Path, inputs: Sequence[Path]) -> list[Path]:
    """Write one run in ``fmt`` into ``out``, never inside ``inputs`` (the run and the root
    read); return the files written.

    Raises:
        OutputError: a file cannot be written there (one line naming it).
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")
    rec = session.recomputation
    assert rec is not None
    stem = file_stem(session.run.run_id)
    if fmt in ("csv", "jsonl"):
        path = out / f"{stem}.tasks.{fmt}"
        _write(path, inputs, lambda f: write_task_rows(f, fmt, all_task_rows(session)))
        return [path]
    if fmt == "parquet":
        tasks = task_rows(session.run.run_id, (task_json(t) for t in all_task_rows(session)))
        paths = [out / f"{stem}.tasks.parquet", out / f"{stem}.attempts.parquet"]
        rows = (tasks, attempt_rows(session.run.run_id, rec))
        for path, kind, table in zip(paths, ("tasks", "attempts"), rows, strict=True):
            _write(path, inputs, partial(write_parquet, kind=kind, rows=table), binary=True)
        return paths
    return _write_eee(session, out, stem, inputs)


def _write_eee(session: Session, out: Path, stem: str, inputs: Sequence[Path]) -> list[Path]:
    run, rec = session.run, session.recomputation
    assert rec is not None
    first = aggregate_record(rec, run.run_info, run_id=run.run_id, samples=None,
                             inspector_version=__version__)  # fmt: skip
    folder, file_uuid = datastore_names(
        first,
        "\0".join((run.run_id, first["evaluation_id"], rec.plan.label, rec.plan.derived or "")),
    )
    lines = io.StringIO()
    rows = 0
    primary = rec.plan.contract.primary_id
    name = f"{primary} on {rec.plan.benchmark_id or 'unknown'}"
    for task in rec.tasks:
        entry = run.entry_for(task.task_id)
        for index in sorted(task.attempts):
            try:
                payload = read_attempt_payload(run, entry, index) if entry else {}
            except ResultFileError:
                payload = {}
            record = instance_record(
                task, task.attempts[index], payload, evaluation_id=first["evaluation_id"],
                evaluation_name=name, model_id=first["model_info"]["id"], primary=primary,
            )  # fmt: skip
            lines.write(strict_json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            rows += 1
    data = lines.getvalue().encode("utf-8")
    samples_name = f"{folder}/{file_uuid}_samples.jsonl"
    samples_path = out / samples_name
    _write(samples_path, inputs, lambda f: f.write(data), binary=True)
    samples = {"format": "jsonl", "file_path": samples_name, "hash_algorithm": "sha256",
               "checksum": hashlib.sha256(data).hexdigest(), "total_rows": rows}  # fmt: skip
    record = dict(first, detailed_evaluation_results=samples)
    path = out / folder / f"{file_uuid}.json"
    _write(
        path,
        inputs,
        lambda f: f.write(strict_json.dumps(record, indent=2, ensure_ascii=False) + "\n"),
    )
    return [path, samples_path]

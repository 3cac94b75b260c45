"""Writing a recomputed run to files others read: EEE, Parquet, CSV, JSONL.

``write_export(session, fmt, out, inputs)`` writes one run's files into the folder ``out``,
each under a name made from the run id:

- ``eee``: EEE's datastore layout, ``data/<benchmark>/<developer>/<model>/<uuid>.json``
  (aggregate) and ``<uuid>_samples.jsonl`` (per attempt) beside it, see
  :mod:`inspector.export.eee`;
- ``parquet``: ``<run>.<table>.parquet`` for the tables ``runs``, ``series``, ``tasks``,
  ``attempts``, ``issues`` and ``pass_curves``, schemas in
  :mod:`inspector.export.run_tables` and
  :mod:`inspector.export.tables`; or, for a results root, one Parquet dataset
  (:func:`write_dataset`): ``<table>/benchmark=<b>/model=<m>/<run>.parquet``, Hive
  partitioning, the key values percent-encoded as Hive and DuckDB read them;
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
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from inspector import __version__
from inspector.engine import strict_json
from inspector.export.eee import aggregate_record, datastore_names, instance_record
from inspector.export.run_tables import KEYS, TABLES, all_task_rows, arrow_tables, run_tables
from inspector.export.tables import import_pyarrow, write_parquet
from inspector.output_files import Writer, write_output
from inspector.results.lazy import ground_truth, read_attempt_payload
from inspector.results.problems import ResultFileError
from inspector.views.task_rows import write_task_rows

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
        _write(path, inputs, lambda f: write_task_rows(f, fmt, all_task_rows(rec)))
        return [path]
    if fmt == "parquet":
        import_pyarrow()
        tables = arrow_tables(run_tables(session))
        paths = {name: out / f"{stem}.{name}.parquet" for name in TABLES}
        return _write_tables(tables, paths, inputs)
    return _write_eee(session, out, stem, inputs)


def write_dataset(session: Session, out: Path, path: str, inputs: Sequence[Path]) -> list[Path]:
    """One run of a results root (``path``: its folder under the root) into the root's
    Parquet dataset in ``out``: ``<table>/benchmark=<b>/model=<m>/<file>.parquet``, the
    files without the key columns (the folder names hold them), each file named after
    the run's folder under the root (unique in the root); never inside ``inputs``."""
    import_pyarrow()
    rows = run_tables(session, path)
    keys = rows["runs"][0]
    folders = "/".join(f"{key}={quote(keys[key], safe='')}" for key in KEYS)
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    named = session.run.run_id if path == "." else path.replace("/", "__")
    name = f"{file_stem(named)}-{digest}.parquet"
    tables = {table: data.drop_columns(list(KEYS)) for table, data in arrow_tables(rows).items()}
    paths = {table: out / table / folders / name for table in TABLES}
    return _write_tables(tables, paths, inputs)


def _write_tables(
    tables: dict[str, Any], paths: dict[str, Path], inputs: Sequence[Path]
) -> list[Path]:
    """Each table to its path through the one output writer."""
    for name in TABLES:
        _write(paths[name], inputs, partial(write_parquet, table=tables[name]), binary=True)
    return [paths[name] for name in TABLES]


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
        try:  # not held with the task: read again from its task.json
            task = replace(task, ground_truth=ground_truth(run, task))
        except ResultFileError:
            task = replace(task, ground_truth=None)
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

"""Writing a recomputed run to files others read: EEE, Parquet, CSV, JSONL.

``write_export(session, fmt, out)`` writes one run's files into the folder ``out`` (never a
result directory: :func:`check_destination`), each under a name made from the run id:

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

Every file is written to a temporary name in ``out`` and renamed into place, so a reader
never sees half a file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from inspector import __version__
from inspector.export.eee import aggregate_record, datastore_names, instance_record
from inspector.export.run_tables import KEYS, TABLES, all_task_rows, arrow_tables, run_tables
from inspector.export.tables import import_pyarrow, write_parquet
from inspector.results.lazy import read_attempt_payload
from inspector.results.problems import ResultFileError
from inspector.views.task_rows import write_task_rows

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session

FORMATS = ("eee", "parquet", "csv", "jsonl")


class ExportError(ValueError):
    """An export that cannot be written; ``str()`` is the one-line message."""


def check_destination(out: Path, sources: list[Path]) -> None:
    """Refuse an ``out`` that is, or lies inside, one of the result directories ``sources``."""
    target = Path(os.path.realpath(out))
    for source in sources:
        base = Path(os.path.realpath(source))
        if target == base or base in target.parents:
            raise ExportError(
                f"{out}: the export folder is inside the result directory {source}; "
                "the inspector never writes there (choose another --out)"
            )


def file_stem(run_id: str) -> str:
    """A file name from a run id: letters, digits, ``.``, ``-`` and ``_`` kept, the rest ``_``."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", run_id).strip(".") or "run"
    return stem[:120]


def _atomic_write(path: Path, write: Callable[[Any], None], *, binary: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        mode = "wb" if binary else "w"
        with open(fd, mode, **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_export(session: Session, fmt: str, out: Path) -> list[Path]:
    """Write one run in ``fmt`` into ``out``; return the files written."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")
    rec = session.recomputation
    assert rec is not None
    stem = file_stem(session.run.run_id)
    if fmt in ("csv", "jsonl"):
        path = out / f"{stem}.tasks.{fmt}"
        _atomic_write(path, lambda f: write_task_rows(f, fmt, all_task_rows(rec)))
        return [path]
    if fmt == "parquet":
        import_pyarrow()
        tables = arrow_tables(run_tables(session))
        return _write_tables(tables, {name: out / f"{stem}.{name}.parquet" for name in TABLES})
    return _write_eee(session, out, stem)


def write_dataset(session: Session, out: Path, path: str) -> list[Path]:
    """One run of a results root (``path``: its folder under the root) into the root's
    Parquet dataset in ``out``: ``<table>/benchmark=<b>/model=<m>/<file>.parquet``, the
    files without the key columns (the folder names hold them), each file named after
    the run's folder under the root (unique in the root)."""
    import_pyarrow()
    rows = run_tables(session, path)
    keys = rows["runs"][0]
    folders = "/".join(f"{key}={quote(keys[key], safe='')}" for key in KEYS)
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    named = session.run.run_id if path == "." else path.replace("/", "__")
    name = f"{file_stem(named)}-{digest}.parquet"
    tables = {table: data.drop_columns(list(KEYS)) for table, data in arrow_tables(rows).items()}
    return _write_tables(tables, {table: out / table / folders / name for table in TABLES})


def _write_tables(tables: dict[str, Any], paths: dict[str, Path]) -> list[Path]:
    """Each table to a temporary name beside its path, then all renamed into place."""
    tmp = {name: p.with_name(f".{p.name}.tmp") for name, p in paths.items()}
    try:
        for name, table in tables.items():
            tmp[name].parent.mkdir(parents=True, exist_ok=True)
            write_parquet(tmp[name], table)
        for name in TABLES:
            os.replace(tmp[name], paths[name])
    finally:
        for src in tmp.values():
            src.unlink(missing_ok=True)
    return [paths[name] for name in TABLES]


def _write_eee(session: Session, out: Path, stem: str) -> list[Path]:

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
            lines.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            rows += 1
    data = lines.getvalue().encode("utf-8")
    samples_name = f"{folder}/{file_uuid}_samples.jsonl"
    samples_path = out / samples_name
    _atomic_write(samples_path, lambda f: f.write(data), binary=True)
    samples = {"format": "jsonl", "file_path": samples_name, "hash_algorithm": "sha256",
               "checksum": hashlib.sha256(data).hexdigest(), "total_rows": rows}  # fmt: skip
    record = dict(first, detailed_evaluation_results=samples)
    path = out / folder / f"{file_uuid}.json"
    _atomic_write(path, lambda f: f.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n"))
    return [path, samples_path]

"""Files the user hands the inspector (``--contract FILE``, ``--hierarchy FILE``, and the
gate's ``--policy FILE`` through :func:`read_user_file`), read and checked before anything
is scored: each problem is one line naming the file.

The shape of a file (which keys, which types) is checked by pydantic models; what the values
mean (one primary, known kinds and reducers, hierarchy weights and leaves) by the engine's own
constructors, exactly as AgentCompass checks them. pydantic is imported only here, and this
module only when such a file is given: never in the per-task path, nor in a plain ``report``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from inspector.engine.contract import (
    MetricContract,
    MetricDisplay,
    MetricSpec,
    make_metric_contract,
    normalize_metric_id,
)
from inspector.engine.errors import ContractError, HierarchyError
from inspector.engine.hierarchy import parse_hierarchy
from inspector.results.file_io import JsonError, open_regular, parse_json, read_all
from inspector.results.layout import RUN_FILE_MAX_BYTES


class UserFileError(ValueError):
    """A file the user gave that cannot be used; ``str()`` is one line naming the file."""


class _Shape(BaseModel):
    """A JSON object with exactly these keys, of exactly these JSON types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class DisplayDump(_Shape):
    """``MetricDisplay`` as AgentCompass dumps it."""

    label: str
    description: str | None = None
    unit: str | None = None
    precision: int | None = None


class SpecDump(_Shape):
    """``MetricSpec`` as AgentCompass dumps it."""

    kind: str
    reducers: list[str] = []
    primary: bool = False
    role: str | None = None
    display: DisplayDump | None = None


class ContractDump(_Shape):
    """AgentCompass's own ``MetricContract.model_dump()``: ``{"metrics": {id: spec}}``."""

    metrics: dict[str, SpecDump]


class DisplayArgs(_Shape):
    """The presentation of one metric in a contract file (``label`` optional)."""

    label: str | None = None
    description: str | None = None
    unit: str | None = None
    precision: int | None = None


class ContractArgs(_Shape):
    """A contract file holding ``make_metric_contract``'s arguments."""

    primary: str
    binary: list[str] = []
    scalar: list[str] = []
    labels: dict[str, str] = {}
    display: dict[str, DisplayArgs] = {}


def _first_problem(exc: ValidationError) -> str:
    """pydantic's first error as ``where: what`` (the rest follow from fixing it)."""
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    what = _PLAIN.get(error["type"], error["msg"])
    return f"{where}: {what}" if where else what


_PLAIN = {"extra_forbidden": "unknown key", "missing": "missing key"}
"""pydantic's error types said in the file's words."""


def read_user_file(path: str | Path, what: str, max_bytes: int = RUN_FILE_MAX_BYTES) -> bytes:
    """The bytes of a file the user gave, read by the rules of a run's own files:
    only a regular file (a FIFO or a device is refused by its type, never opened for
    reading), at most ``max_bytes`` (refused by its size before a byte is read);
    :class:`UserFileError` naming the file when it cannot be read."""
    with contextlib.ExitStack() as stack:
        try:
            handle = stack.enter_context(open_regular(path))
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise UserFileError(f"{path}: cannot read {what}: larger than {_size(max_bytes)}")
            data = read_all(handle.fileno(), size, max_bytes)
            if data is None:
                raise UserFileError(f"{path}: cannot read {what}: grew while read")
            return data
        except OSError as exc:
            raise UserFileError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    raise AssertionError("unreachable")  # pragma: no cover


def _size(limit: int) -> str:
    return f"{limit // 1024**2} MiB" if limit >= 1024**2 else f"{limit // 1024} KiB"


def read_json(path: str | Path, what: str) -> Any:
    """The JSON document in ``path`` (:func:`read_user_file`, at most
    :data:`~inspector.results.layout.RUN_FILE_MAX_BYTES`), parsed as AgentCompass's
    ``json.loads`` parses (nesting and all); :class:`UserFileError` naming the file."""
    data = read_user_file(path, what)
    try:
        return parse_json(data)
    except JsonError as exc:
        raise UserFileError(f"{path}: cannot read {what}: {exc}") from None


def contract_from_data(data: object, *, source: str = "") -> MetricContract:
    """A contract from a parsed contract file: AgentCompass's ``MetricContract`` dump
    (``{"metrics": {...}}``) or ``make_metric_contract``'s arguments
    (``{"primary", "binary", "scalar", "labels", "display"}``).

    Raises:
        ContractError: the shape is wrong (the first problem, where it is) or the
            contract is one AgentCompass would refuse.
    """
    if not isinstance(data, dict):
        raise ContractError("a contract file must hold a JSON object")
    try:
        if "metrics" in data:
            return _from_dump(ContractDump.model_validate(data), source)
        return _from_args(ContractArgs.model_validate(data), source)
    except ValidationError as exc:
        form = "MetricContract dump" if "metrics" in data else "contract file"
        raise ContractError(f"{form}: {_first_problem(exc)}") from None


def _from_dump(dump: ContractDump, source: str) -> MetricContract:
    metrics: dict[str, MetricSpec] = {}
    for raw_id, spec in dump.metrics.items():
        metric_id = normalize_metric_id(raw_id)
        if metric_id in metrics:
            raise ContractError(f"duplicate metric id {metric_id!r}")
        display = spec.display
        metrics[metric_id] = MetricSpec(
            kind=spec.kind,
            reducers=tuple(r.strip().lower() for r in spec.reducers),
            primary=spec.primary,
            role=spec.role,
            display=None if display is None else MetricDisplay(**display.model_dump()),
        )
    return MetricContract(metrics, source=source)


def _from_args(args: ContractArgs, source: str) -> MetricContract:
    labels = dict(args.labels)
    display: dict[str, dict[str, Any]] = {}
    for metric_id, fields in args.display.items():
        if fields.label is not None:
            labels.setdefault(metric_id, fields.label)
        display[metric_id] = fields.model_dump(exclude={"label"})
    return make_metric_contract(
        args.primary, args.binary, args.scalar, labels, display=display, source=source
    )


def read_contract(path: str) -> MetricContract:
    """The contract in the file ``path``; :class:`UserFileError` naming it when it is not one."""
    data = read_json(path, "the contract file")
    try:
        return contract_from_data(data, source=f"--contract {path}")
    except ContractError as exc:
        raise UserFileError(f"{path}: invalid contract: {exc}") from None


def read_hierarchy(path: str) -> dict[str, Any]:
    """The ``category_hierarchy`` in the file ``path``, checked as AgentCompass checks it;
    :class:`UserFileError` naming the file when it is not one."""
    data = read_json(path, "the hierarchy file")
    if not isinstance(data, dict):
        raise UserFileError(f"{path}: a hierarchy file must hold a JSON object")
    try:
        parse_hierarchy(data)
    except HierarchyError as exc:
        raise UserFileError(f"{path}: invalid hierarchy: {exc}") from None
    except RecursionError:
        raise UserFileError(f"{path}: invalid hierarchy: nested too deeply") from None
    return data

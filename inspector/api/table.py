"""The errors of :mod:`inspector.api` and its :class:`Table`: a sequence of rows and
``to_frame`` (pandas, polars and pyarrow, the ``frames`` extra, imported only there)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import fields
from typing import Any, Generic, Literal, TypeVar, overload

from inspector.api.rows import ROW_TYPES

FRAMES_EXTRA = "pip install 'agentcompass-inspector[frames]'"


class InspectorError(Exception):
    """A run or root the inspector cannot use; ``str()`` is the one-line message naming the
    file (the command line's)."""


R = TypeVar("R")


class Table(Sequence[R], Generic[R]):
    """The rows of one table (a sequence of frozen row objects) and :meth:`to_frame`."""

    __slots__ = ("name", "rows")

    def __init__(self, name: str, rows: Sequence[R]) -> None:
        self.name = name
        self.rows: tuple[R, ...] = tuple(rows)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(ROW_TYPES[self.name]))

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> R: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[R]: ...
    def __getitem__(self, index: int | slice) -> R | Sequence[R]:
        return self.rows[index]

    def __iter__(self) -> Iterator[R]:
        return iter(self.rows)

    def __repr__(self) -> str:
        return f"<Table {self.name}: {len(self.rows)} rows>"

    def to_arrow(self) -> Any:
        """The rows as a pyarrow Table with the Parquet export's schema (pyarrow: the
        ``frames``, ``sql`` or ``parquet`` extra)."""
        import pyarrow as pa

        from inspector.export.run_tables import schemas

        arrays = {name: [_plain(getattr(row, name)) for row in self.rows] for name in self.columns}
        return pa.Table.from_pydict(arrays, schema=schemas()[self.name])

    def to_frame(self, kind: Literal["pandas", "polars"] = "pandas") -> Any:
        """A pandas (default) or polars DataFrame of the rows, with the Parquet export's
        column types (through pyarrow); needs the ``frames`` extra.

        Raises:
            InspectorError: pandas, polars or pyarrow is not installed (the line says how).
        """
        if kind not in ("pandas", "polars"):
            raise ValueError(f"kind must be 'pandas' or 'polars', not {kind!r}")
        try:
            table = self.to_arrow()
            if kind == "polars":
                import polars

                return polars.from_arrow(table)
            import pandas  # noqa: F401  (to_pandas needs it: said plainly when missing)
        except ImportError as exc:
            raise InspectorError(f"to_frame needs {exc.name}: {FRAMES_EXTRA}") from None
        return table.to_pandas()


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value

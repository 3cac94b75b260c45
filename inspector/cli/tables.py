"""Text tables for the terminal (``table`` and ``markdown`` output of ``tasks``, ``diff``,
``stats``): every cell from a result file shown with control and invisible characters made
visible, never obeyed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from inspector.views.visible import visible


def number_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _cell(value: Any, markdown: bool) -> str:
    text = visible(str(value if value is not None else "—")).replace("\n", "␊")
    return text.replace("|", "\\|") if markdown else text


def table(
    out: TextIO, headers: Sequence[str], rows: Iterable[Sequence[Any]], *, markdown: bool = False
) -> None:
    cells = [[_cell(v, markdown) for v in row] for row in rows]
    if markdown:
        out.write("| " + " | ".join(headers) + " |\n")
        out.write("|" + "|".join("---" for _ in headers) + "|\n")
        for row in cells:
            out.write("| " + " | ".join(row) + " |\n")
        return
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    last = len(headers) - 1
    out.write(
        "  ".join(
            h.ljust(w) if i < last else h
            for i, (h, w) in enumerate(zip(headers, widths, strict=True))
        )
        + "\n"
    )
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(
            "  ".join(
                c.ljust(w) if i < last else c
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
            + "\n"
        )

"""Text tables for the terminal (``table`` and ``markdown`` output of ``tasks``, ``diff``,
``stats``): every cell from a result file shown with control and invisible characters made
visible, never obeyed; columns as wide as their cells in terminal cells, and ids that read
the same told apart by their code points (:mod:`inspector.views.text_cells`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from inspector.views.text_cells import cell_width, pad, tell_twins_apart
from inspector.views.visible import markdown_literal, visible


def _cell(value: Any, markdown: bool) -> str:
    return line(str(value if value is not None else "—"), markdown=markdown)


def line(text: str, *, markdown: bool) -> str:
    """One line of a text report with text from result files in it: made visible on one
    line, and in Markdown reading as the same text once rendered."""
    return markdown_literal(text) if markdown else visible(text, one_line=True)


def table(
    out: TextIO, headers: Sequence[str], rows: Iterable[Sequence[Any]], *, markdown: bool = False
) -> None:
    cells = [[_cell(v, markdown) for v in row] for row in rows]
    for column in range(len(headers)):
        twins = tell_twins_apart(row[column] for row in cells)
        for row in cells if twins else ():
            row[column] = twins.get(row[column], row[column])
    if markdown:
        out.write("| " + " | ".join(headers) + " |\n")
        out.write("|" + "|".join("---" for _ in headers) + "|\n")
        for row in cells:
            out.write("| " + " | ".join(row) + " |\n")
        out.write("\n")  # a line right after a GFM table is one more row of it
        return
    widths = [
        max([cell_width(h), *(cell_width(r[i]) for r in cells)]) for i, h in enumerate(headers)
    ]
    last = len(headers) - 1
    out.write(
        "  ".join(
            pad(h, w) if i < last else h
            for i, (h, w) in enumerate(zip(headers, widths, strict=True))
        )
        + "\n"
    )
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(
            "  ".join(
                pad(c, w) if i < last else c
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
            + "\n"
        )

"""``summary.md`` exactly as AgentCompass renders it (spec §8.3, §10 items 41, 49, 53)."""

from __future__ import annotations

from html import escape
from typing import Any

import tabulate as _tabulate

from inspector.engine.report import MetricBreakdown, MetricReport, MetricSeries

REFERENCE_MARK = " (reference)"
"""After a failed evaluation's reference value, wherever one is shown (as AgentCompass's
summary.md marks it)."""

# AgentCompass does not install wcwidth, so tabulate pads by character count (item 49).
_tabulate.WIDE_CHARS_MODE = False

FAILED_FOOTER = (
    "\n**Evaluation failed:** no official score. Values labelled reference exclude all tasks "
    "with final FATAL issues.\n"
)


def render_summary_markdown(model: str, benchmark_id: str, report: MetricReport) -> str:
    """The text of ``summary.md`` for ``report``; ``benchmark_id`` is upper-cased here."""
    name = benchmark_id.upper()
    text = _single(model, name, report) if report.k == 1 else _repeated(model, name, report)
    if report.evaluation_failed:
        text += FAILED_FOOTER
    return text


def _header(model: str, name: str, primary: MetricSeries) -> list[str]:
    c = primary.counts
    return [
        f"# {markdown_text(name)} Evaluation Results",
        "",
        f"**Model:** {_inline_code(model)}",
        "",
        f"**Total:** {c.total}",
        f"**Evaluated:** {c.evaluated}/{c.total}",
        f"**Invalidated:** {c.invalidated}",
        f"**Error:** {c.error}",
    ]


def _single(model: str, name: str, report: MetricReport) -> str:
    primary = report.summary_series
    lines = _header(model, name, primary)
    lines += ["", "## Metrics", ""]
    _table(
        lines,
        ["Metric", "Value"],
        [[markdown_text(s.metric_id), markdown_text(_series_value(s))] for s in report.series],
    )
    _breakdown(lines, "category", report, primary, "categories")
    _breakdown(lines, "hierarchy", report, primary, "hierarchy")
    return "\n".join(lines) + "\n"


def _repeated(model: str, name: str, report: MetricReport) -> str:
    lines = _header(model, name, report.summary_series)
    lines += [
        "",
        f"**Attempt plan:** `k={report.k}`, strategy `{report.strategy}`, "
        f"aggregation `{report.aggregation}`",
        "",
        "## Metrics",
        "",
    ]
    rows = []
    for s in report.series:
        c = s.counts
        rows.append(
            [
                markdown_text(f"{s.label} ({s.reducer}@{s.k})"),
                s.role,
                s.reducer,
                s.aggregation,
                markdown_text(_series_value(s)),
                str(c.evaluated),
                str(c.error),
                str(c.unavailable),
                str(c.total),
            ]
        )
    _table(
        lines,
        [
            "Metric",
            "Role",
            "Reducer",
            "Formula",
            "Value",
            "Evaluated",
            "Error",
            "Unavailable",
            "Total",
        ],
        rows,
    )
    lines += ["", "Full metric data: [metrics.json](metrics.json)"]
    return "\n".join(lines) + "\n"


def _breakdown(
    lines: list[str], title: str, report: MetricReport, primary: MetricSeries, field_name: str
) -> None:
    parts = getattr(primary, field_name)
    keys = sorted(parts)
    if not keys:
        return
    rows = []
    for key in keys:
        row = [markdown_text(key)]
        for s in report.series:
            row.append(markdown_text(_breakdown_value(getattr(s, field_name).get(key), s)))
        c = parts[key].counts
        row += [str(c.total), str(c.evaluated), str(c.error)]
        rows.append(row)
    lines += ["", f"## Details: {title}", ""]
    _table(
        lines, [title, *(s.metric_id for s in report.series), "total", "evaluated", "error"], rows
    )


def _table(lines: list[str], headers: list[str], rows: list[list[str]]) -> None:
    table = _tabulate.tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    lines.extend(table.splitlines())


def format_value(value: float | None, series: MetricSeries) -> str:
    """A value with the series' precision (default 4) and unit; ``-`` for null."""
    if value is None:
        return "-"
    display = series.display
    precision = display.precision if display and display.precision is not None else 4
    text = f"{value:.{precision}f}"
    if display and display.unit:
        text = f"{text} {display.unit}"
    return text


def _series_value(series: MetricSeries) -> str:
    if series.reference_value is not None:
        return format_value(series.reference_value, series) + REFERENCE_MARK
    return format_value(series.value, series)


def _breakdown_value(part: MetricBreakdown | None, series: MetricSeries) -> str:
    if part is None:
        return "-"
    if part.reference_value is not None:
        return format_value(part.reference_value, series) + REFERENCE_MARK
    return format_value(part.value, series)


def markdown_text(value: Any) -> str:
    text = str(value).replace("\r", " ").replace("\n", " ")
    return escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _inline_code(value: Any) -> str:
    text = str(value).replace("\r", " ").replace("\n", " ")
    delimiter = "`"
    while delimiter in text:
        delimiter += "`"
    return f"{delimiter}{text}{delimiter}"

"""Text from result files in a Markdown output reads as the same text once rendered.

``leaderboard``, ``diff``, ``stats`` and ``gate`` write Markdown for a pull request, a wiki or
``$GITHUB_STEP_SUMMARY``. A run folder, a model, a task id or a category from the results
may hold HTML (``<!--`` hides what follows, ``<img src=…>`` loads a picture) or Markdown
(``[x](…)`` links, ``**x**`` shouts): each output is rendered here with markdown-it
(CommonMark, raw HTML on, as GitHub takes it, with GFM tables and strikethrough) and must
hold no element but the inspector's own, with every hostile text shown as it is.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from inspector.cli.main import main
from inspector.views.visible import markdown_literal, visible
from tests.conftest import FIXTURE_RUNS
from tests.robustness.renamed_tasks import copy_with_task_ids

HOSTILE = "x<!-- <img src=https://e.com/t.png> [ok](https://e.com) **PASS** _i_ ~~s~~ &amp;"
"""One text that would be markup: every id, category and model below holds it."""
FOLDER = HOSTILE.replace("/", "_")
"""The same as a folder name (run ``a …``)."""
TASK_IDS = {"taubench_retail_4b4b27df": "task " + HOSTILE, "taubench_telecom_fd442edb": "t2<b>"}
OURS = {"table", "thead", "tbody", "tr", "th", "td", "h1", "h2", "h3", "p", "ul", "ol", "li"}
"""The elements the inspector's own Markdown makes."""
RENDER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _run(run: Path, only: str | None) -> None:
    copy_with_task_ids(
        run, dict(TASK_IDS, **({} if only is None else {"taubench_airline_7f283c06": only}))
    )
    for task_file in run.glob("details/*/*/task.json"):  # a category that would be markup
        data = json.loads(task_file.read_text(encoding="utf-8"))
        if data["task_id"] in TASK_IDS.values():
            data["category"] = "cat " + HOSTILE
            task_file.write_text(json.dumps(data), encoding="utf-8")
    info = run / "run_info.json"
    info.write_text(info.read_text(encoding="utf-8").replace("claude-sonnet-4-5", "m " + HOSTILE))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markdown") / "root"
    _run(root / ("a " + FOLDER), None)
    _run(root / "b", "only in b " + HOSTILE)
    return root


def _markdown(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) in (0, 1, 2)
    return capsys.readouterr().out


def commands(root: Path) -> dict[str, list[str]]:
    a, b = str(next(p for p in root.iterdir() if p.name != "b")), str(root / "b")
    return {
        "leaderboard": ["leaderboard", str(root), "--format", "markdown"],
        "diff": ["diff", a, b, "--format", "markdown"],
        "stats": ["stats", a, "--format", "markdown"],
        "stats-root": ["stats", str(root), "--format", "markdown"],
        "gate": ["gate", str(root), "--format", "markdown"],
    }


@pytest.mark.parametrize("name", ["leaderboard", "diff", "stats", "stats-root", "gate"])
def test_markdown_shows_result_text_as_text(
    name: str, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _markdown(commands(root)[name], capsys)
    assert "x<!--" in html.unescape(out.replace("\\", "")), "the hostile text should be there"
    rendered = RENDER.render(out)
    tags = set(re.findall(r"<(/?[a-zA-Z][a-zA-Z0-9]*|!--)", rendered))
    assert {t.lstrip("/") for t in tags} <= OURS, sorted(tags)
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert visible(HOSTILE) in text or visible(FOLDER) in text


def test_markdown_literal_escapes_only_what_could_be_markup() -> None:
    assert markdown_literal("k1_micro correct.avg@3 a-b (c)") == "k1_micro correct.avg@3 a-b (c)"
    assert markdown_literal("a<!--") == "a\\<!--"
    assert markdown_literal("_x_ [y](z) `c` a|b") == "\\_x\\_ \\[y\\](z) \\`c\\` a\\|b"
    assert markdown_literal("two\nlines\x1b") == "two␊lines␛"


@pytest.mark.parametrize(
    "argv",
    [
        ["diff", "compare_a", "compare_b", "--format", "markdown"],
        ["stats", "k3_pass", "--format", "markdown"],
    ],
)
def test_a_table_ends_where_its_rows_end(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A line after a GFM table without a blank line is read as one more row: the counts
    legend and the paired statistics must not become rows of the table above them."""
    out = _markdown(
        [
            a if a.startswith("-") or a in ("diff", "stats", "markdown") else str(FIXTURE_RUNS / a)
            for a in argv
        ],
        capsys,
    )
    tables = out.count("\n|---|")
    rendered = RENDER.render(out)
    rows = re.findall(r"<tr>\s*<t[dh]>([^<]*)</t[dh]>", rendered)
    written = [line for line in out.splitlines() if line.startswith("| ")]
    assert tables and len(rows) == len(written), [r for r in rows if f"| {r}" not in out]

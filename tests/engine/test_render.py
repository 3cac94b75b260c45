"""``summary.md`` (spec §8.3; §10 items 6, 41, 49, 53). Expected texts are written out by hand."""

from __future__ import annotations

from inspector.engine.contract import make_metric_contract
from inspector.engine.render import render_summary_markdown

from .conftest import BINARY_ONLY, BINARY_REWARD, ERROR, FATAL, attempt, report_of, task

T, F = True, False


def _md(report) -> str:
    return render_summary_markdown("m-1", "demo", report)


def test_item_41_k1_layout_uses_metric_ids_and_breakdowns() -> None:
    tasks = [
        task("t1", {"correct": T, "reward": 0.5}, category="math"),
        task("t2", attempt(1, {"correct": F}, issues=[ERROR]), category="math"),
        task("t3", {"correct": T, "reward": 1}),
    ]
    expected = """\
# DEMO Evaluation Results

**Model:** `m-1`

**Total:** 3
**Evaluated:** 3/3
**Invalidated:** 0
**Error:** 1

## Metrics

| Metric   | Value   |
|----------|---------|
| correct  | 0.6667  |
| reward   | 0.7500  |

## Details: category

| category          | correct   | reward   | total   | evaluated   | error   |
|-------------------|-----------|----------|---------|-------------|---------|
| __uncategorized__ | 1.0000    | 1.0000   | 1       | 1           | 0       |
| math              | 0.5000    | 0.5000   | 2       | 2           | 1       |
"""
    assert _md(report_of(tasks, contract=BINARY_REWARD)) == expected


def test_item_41_k1_hierarchy_breakdown_is_sorted_by_path() -> None:
    tasks = [task("t1", {"correct": T}, category="b"), task("t2", {"correct": F}, category="a")]
    tree = {"overall": {"aggregation": "unweighted", "children": {"b": {}, "a": {}}}}
    text = _md(report_of(tasks, hierarchy=tree))
    assert text.endswith(
        """\
## Details: hierarchy

| hierarchy   | correct   | total   | evaluated   | error   |
|-------------|-----------|---------|-------------|---------|
| overall     | 0.5000    | 2       | 2           | 0       |
| overall/a   | 0.0000    | 1       | 1           | 0       |
| overall/b   | 1.0000    | 1       | 1           | 0       |
"""
    )


def test_item_41_k_gt_1_layout_uses_labels_and_no_breakdowns() -> None:
    tasks = [
        task("t1", {"correct": T, "reward": 0.5}, {"correct": F, "reward": 1}, category="x"),
        task("t2", {"correct": T, "reward": 1.0}, {"correct": T, "reward": 1.0}, category="y"),
    ]
    expected = """\
# DEMO Evaluation Results

**Model:** `m-1`

**Total:** 2
**Evaluated:** 2/2
**Invalidated:** 0
**Error:** 0

**Attempt plan:** `k=2`, strategy `avg`, aggregation `micro_weighted`

## Metrics

| Metric           | Role      | Reducer   | Formula        | Value   | Evaluated   | Error   | Unavailable   | Total   |
|------------------|-----------|-----------|----------------|---------|-------------|---------|---------------|---------|
| Correct (avg@2)  | headline  | avg       | micro_weighted | 0.7500  | 2           | 0       | 0             | 2       |
| Correct (pass@2) | headline  | pass      | micro_weighted | 1.0000  | 2           | 0       | 0             | 2       |
| Reward (avg@2)   | auxiliary | avg       | micro_weighted | 0.8750  | 2           | 0       | 0             | 2       |

Full metric data: [metrics.json](metrics.json)
"""
    assert _md(report_of(tasks, k=2, contract=BINARY_REWARD)) == expected


def test_item_41_k_gt_1_header_counts_come_from_the_strategy_series() -> None:
    # avg@3 is in state error, pass@3 is evaluated: the avg report's header shows avg@3.
    tasks = [task("t", {"correct": T}, None, None)]
    avg_text = _md(report_of(tasks, k=3))
    assert "**Evaluated:** 0/1\n" in avg_text
    pass_tasks = [task("t", {"correct": T}, None, attempt(3), k=3, strategy="pass")]
    pass_text = _md(report_of(pass_tasks, k=3, strategy="pass"))
    assert "**Evaluated:** 1/1\n" in pass_text
    assert "strategy `pass`" in pass_text


def test_item_06_failed_evaluation_marks_reference_values_and_adds_the_footer() -> None:
    tasks = [
        task("t1", {"correct": T}, category="a"),
        task("t2", attempt(1, {"correct": T}, issues=[FATAL]), category="b"),
    ]
    expected = """\
# DEMO Evaluation Results

**Model:** `m-1`

**Total:** 2
**Evaluated:** 1/2
**Invalidated:** 1
**Error:** 1

## Metrics

| Metric   | Value              |
|----------|--------------------|
| correct  | 1.0000 (reference) |

## Details: category

| category   | correct            | total   | evaluated   | error   |
|------------|--------------------|---------|-------------|---------|
| a          | 1.0000 (reference) | 1       | 1           | 0       |
| b          | -                  | 1       | 0           | 1       |

**Evaluation failed:** no official score. Values labelled reference exclude all tasks with final FATAL issues.
"""
    assert _md(report_of(tasks)) == expected


def test_precision_unit_and_cell_escaping() -> None:
    contract = make_metric_contract(
        "score",
        scalar=["score", "cost"],
        labels={"cost": "Cost | `usd` <b>&"},
        display={"score": {"precision": 1, "unit": "pts"}, "cost": {"precision": 0}},
    )
    tasks = [task("t", {"score": 0.25, "cost": 2.5}, {"score": 0.35, "cost": 3.5})]
    text = render_summary_markdown("m`x", "b", report_of(tasks, k=2, contract=contract))
    assert "**Model:** ``m`x``\n" in text
    # 0.3 with precision 1 and a unit; 3 with precision 0; label escaped
    assert "| Score (avg@2)" in text and "| 0.3 pts " in text
    assert "| Cost \\| \\`usd\\` &lt;b&gt;&amp; (avg@2) |" in text
    assert "| 3       |" in text


def test_item_49_cells_are_padded_by_character_count() -> None:
    tasks = [
        task("t1", {"correct": T}, category="数学数学数学数学数学数学"),
        task("t2", {"correct": F}, category="a"),
    ]
    text = _md(report_of(tasks, contract=BINARY_ONLY))
    assert text.endswith(
        """\
| category     | correct   | total   | evaluated   | error   |
|--------------|-----------|---------|-------------|---------|
| a            | 0.0000    | 1       | 1           | 0       |
| 数学数学数学数学数学数学 | 1.0000    | 1       | 1           | 0       |
"""
    )


def test_item_53_csi_sequences_do_not_count_towards_width() -> None:
    red = "\x1b[1;31mdanger-zone-category\x1b[0m"  # 20 visible characters
    tasks = [task("t1", {"correct": T}, category=red), task("t2", {"correct": F}, category="a")]
    text = _md(report_of(tasks, contract=BINARY_ONLY))
    assert text.endswith(
        "| category             | correct   | total   | evaluated   | error   |\n"
        "|----------------------|-----------|---------|-------------|---------|\n"
        f"| {red} | 1.0000    | 1       | 1           | 0       |\n"
        "| a                    | 0.0000    | 1       | 1           | 0       |\n"
    )


def test_item_53_osc8_hyperlinks_count_only_their_text() -> None:
    link = "\x1b]8;;http://example.com/x\x1b\\hyperlink-text-long\x1b]8;;\x1b\\"
    # Markdown escaping doubles each backslash, so the written cell is
    # ESC]8;;URI ESC\ \hyperlink-text-long ESC]8;; ESC\ \  whose visible text is
    # "\hyperlink-text-long\" (21 characters). ESC sorts before "a".
    written = link.replace("\\", "\\\\")
    tasks = [task("t1", {"correct": T}, category="a"), task("t2", {"correct": F}, category=link)]
    text = _md(report_of(tasks, contract=BINARY_ONLY))
    assert text.endswith(
        "| category              | correct   | total   | evaluated   | error   |\n"
        "|-----------------------|-----------|---------|-------------|---------|\n"
        f"| {written} | 0.0000    | 1       | 1           | 0       |\n"
        "| a                     | 1.0000    | 1       | 1           | 0       |\n"
    )

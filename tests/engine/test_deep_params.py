"""Benchmark params nested as deeply as AgentCompass's summary cannot copy (issue 39).

AgentCompass 1.0.1 deep-merges ``request.benchmark.params`` (``copy.deepcopy``) before it
scores; measured with ``../shared/oracle/ac_oracle.py`` on k3_avg_hierarchy with its
hierarchy replaced by a chain of N unweighted nodes: N = 245 (params nested 493 levels) is
scored (metrics.json equal to the inspector's), N = 246 (495 levels) and more end in
RecursionError. The inspector refuses the same runs, naming run_info.json, and never
shows a RecursionError."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.resolve import PARAMS_MAX_DEPTH, nesting
from tests.conftest import FIXTURE_RUNS


def _deep_run(tmp_path: Path, levels: int) -> Path:
    run = tmp_path / f"deep_{levels}"
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", run)
    text = '{"aggregation": "leaf"}'
    for i in range(levels):
        name = "debugging" if i == 0 else f"c{i}"
        text = f'{{"aggregation": "unweighted", "children": {{"{name}": {text}}}}}'
    info = json.loads((run / "run_info.json").read_text(encoding="utf-8"))
    info["request"]["benchmark"]["params"]["category_hierarchy"] = "@@"
    dumped = json.dumps(info, indent=2, sort_keys=True).replace('"@@"', f'{{"overall": {text}}}')
    (run / "run_info.json").write_text(dumped + "\n", encoding="utf-8")
    return run


def test_nesting_counts_objects_and_arrays() -> None:
    assert (nesting(1), nesting({}), nesting([{}]), nesting({"a": [1, {"b": {}}]})) == (0, 1, 2, 4)


@pytest.mark.parametrize(
    ("levels", "scored"), [(245, True), (246, False), (320, False), (460, False), (490, False)]
)
def test_params_too_deep_for_agentcompass_are_refused(
    levels: int, scored: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _deep_run(tmp_path, levels)
    depth = 2 * levels + 3  # params, category_hierarchy, overall; each level: node, children
    if levels < 400:  # deeper, json.loads itself runs out of stack here
        info = json.loads((run / "run_info.json").read_text(encoding="utf-8"))
        assert nesting(info["request"]["benchmark"]["params"]) == depth
    assert (depth <= PARAMS_MAX_DEPTH) is scored
    code = main(["report", str(run), "--json"])
    out, err = capsys.readouterr()
    if scored:
        assert code == 0 and len(json.loads(out)["series"][0]["hierarchy"]) == levels + 1
    else:
        assert code == 2 and err.count("\n") == 1
        assert (
            f"{run / 'run_info.json'}: " in err and "nested" in err and "RecursionError:" not in err
        )

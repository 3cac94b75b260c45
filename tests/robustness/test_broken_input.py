"""Broken input: every defect is a named LoadProblem, and the headless commands say where.

tests/results checks the reader's LoadProblem for each defect of its catalogue
(``tests/results/helpers.py: DEFECTS``). Here: the defect classes it does not build (JSON
nested past what a parser can read, a category too deep to name, a non-UTF-8 task index, an
empty run_info.json, a directory where result.json belongs, a symbolic link inside the run),
the refusals only the engine sees (spec §10 item 13: undeclared metric, a binary metric that
is not a bool, a plan that differs from the run's) — and, for all of them, what ``inspector
report`` does: exit 2 with one line on stderr naming the file where AgentCompass refuses the
run, or, where AgentCompass reads on without the task, AgentCompass's numbers and a warning
on stderr naming the file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.results.reader import read_run
from tests.conftest import CONFORMANCE, FIXTURE_RUNS
from tests.results.helpers import BASE_RUN, DEFECTS, dump, first_task, load, rel

DEEP = 100_000


def _nest(depth: int) -> str:
    return "[" * depth + "]" * depth


def _replace_value(path: Path, key: str, raw: str) -> None:
    """Set ``key`` of the JSON object in ``path`` to the raw JSON text ``raw``."""
    value = load(path)
    value[key] = "@@VALUE@@"
    path.write_text(json.dumps(value, indent=2).replace('"@@VALUE@@"', raw), encoding="utf-8")


def deep_result_json(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    _replace_value(path, "final_answer", _nest(DEEP))
    return rel(run, path)


def deep_task_json(run: Path) -> str:
    path = first_task(run) / "task.json"
    _replace_value(path, "ground_truth", _nest(DEEP))
    return rel(run, path)


def deep_run_info_json(run: Path) -> str:
    _replace_value(run / "run_info.json", "notes", _nest(DEEP))
    return "run_info.json"


def category_too_deep_to_name(run: Path) -> str:
    # Parsable (orjson reads up to 1024 levels) but str() of it exceeds Python's recursion limit.
    path = first_task(run) / "task.json"
    _replace_value(path, "category", _nest(1020))
    return rel(run, path)


def non_utf8_task_json(run: Path) -> str:
    path = first_task(run) / "task.json"
    path.write_bytes(path.read_bytes().replace(b'"category"', b'"cat\xc3\x28egory"', 1))
    return rel(run, path)


def empty_run_info(run: Path) -> str:
    (run / "run_info.json").write_bytes(b"")
    return "run_info.json"


def result_json_a_directory(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    path.unlink()
    path.mkdir()
    return rel(run, path)


def result_symlinked_inside(run: Path) -> str:
    # AgentCompass's `contained` refuses any symbolic link in a result path, even one that
    # stays inside the run.
    path = first_task(run) / "attempt-1" / "result.json"
    copy = path.with_name("result.copy.json")
    shutil.move(path, copy)
    path.symlink_to(copy.name)
    return rel(run, path)


def deep_metrics_json(run: Path) -> str:
    (run / "metrics.json").write_text(_nest(DEEP), encoding="utf-8")
    return "metrics.json"


# name -> (defect, blocking): reader-level classes tests/results does not build.
READER_DEFECTS: dict[str, tuple[Callable[[Path], str], bool]] = {
    "deep_result_json": (deep_result_json, True),
    "deep_task_json": (deep_task_json, True),
    "deep_run_info_json": (deep_run_info_json, True),
    "category_too_deep_to_name": (category_too_deep_to_name, True),
    "non_utf8_task_json": (non_utf8_task_json, True),
    "empty_run_info": (empty_run_info, True),
    # AgentCompass asks is_file(): a directory is no result, and the task is skipped.
    "result_json_a_directory": (result_json_a_directory, False),
    "result_symlinked_inside": (result_symlinked_inside, True),
    "deep_metrics_json": (deep_metrics_json, False),
}


def _edit_result(run: Path, change: Callable[[dict], object]) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    value = load(path)
    change(value)
    dump(path, value)
    return rel(run, path)


def undeclared_metric(run: Path) -> str:
    return _edit_result(run, lambda v: v["metrics"].update(bogus=True))


def binary_metric_is_one(run: Path) -> str:
    return _edit_result(run, lambda v: v["metrics"].update(correct=1))


def attempt_plan_differs_from_the_run(run: Path) -> str:
    path = first_task(run) / "task.json"
    value = load(path)
    value["attempt_plan"]["k"] = 2
    dump(path, value)
    return rel(run, path)


# Refusals the engine finds (the reader loads these files without a problem).
ENGINE_REFUSALS: dict[str, Callable[[Path], str]] = {
    "undeclared_metric": undeclared_metric,
    "binary_metric_is_one": binary_metric_is_one,
    "attempt_plan_differs_from_the_run": attempt_plan_differs_from_the_run,
}


def _copy(tmp_path: Path, source: Path) -> Path:
    target = tmp_path / "runs" / source.name
    shutil.copytree(source, target, symlinks=True)
    (target / "oracle_case.json").unlink(missing_ok=True)
    return target


def _report(
    run: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, list[str]]:
    code = main(["report", str(run), *extra])
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def _errors(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("inspector: warning:")]


@pytest.mark.parametrize("name", sorted(READER_DEFECTS))
def test_defect_is_one_named_load_problem(name: str, tmp_path: Path) -> None:
    defect, blocking = READER_DEFECTS[name]
    run = _copy(tmp_path, CONFORMANCE / BASE_RUN)
    expected = defect(run)
    problems = read_run(run).problems
    assert [(p.path, p.blocking) for p in problems] == [(expected, blocking)], [
        p.line() for p in problems
    ]
    assert "\n" not in problems[0].message


def test_nesting_messages_say_so(tmp_path: Path) -> None:
    run = _copy(tmp_path, CONFORMANCE / BASE_RUN)
    deep_result_json(run)
    (problem,) = read_run(run).problems
    assert "nested too deeply" in problem.message


@pytest.mark.parametrize(
    ("where", "key"),
    [("result", "final_answer"), ("task", "ground_truth"), ("run_info", "notes")],
)
def test_a_number_too_long_to_read_is_a_problem_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, key: str
) -> None:
    """Python's json (AgentCompass's reader) refuses integers of more than 4300 digits; the
    inspector said ``ValueError: Exceeds the limit…`` for the whole run instead."""
    run = _copy(tmp_path, CONFORMANCE / BASE_RUN)
    path = {
        "result": first_task(run) / "attempt-1" / "result.json",
        "task": first_task(run) / "task.json",
        "run_info": run / "run_info.json",
    }[where]
    _replace_value(path, key, "7" * 5000)
    problems = read_run(run).problems
    assert [p.path for p in problems] == [rel(run, path)], [p.line() for p in problems]
    assert "a number too long to read" in problems[0].message
    code = main(["report", str(run), "--json"])
    err = capsys.readouterr().err
    (line,) = _errors(err.splitlines())  # one line, naming the file, as for any bad JSON
    assert code == 2 and line.startswith(f"inspector: {path}: a number too long to read")


ALL_DEFECTS = {
    **{name: (defect, blocking) for name, (defect, blocking, _) in DEFECTS.items()},
    **READER_DEFECTS,
    **{name: (defect, True) for name, defect in ENGINE_REFUSALS.items()},
}


@pytest.mark.parametrize("name", sorted(ALL_DEFECTS))
def test_report_names_the_file(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused: exit 2, nothing on stdout, one line naming the file. Otherwise: a report and
    a warning naming the file."""
    defect, blocking = ALL_DEFECTS[name]
    run = _copy(tmp_path, CONFORMANCE / BASE_RUN)
    expected = defect(run)
    code, out, err = _report(run, capsys, "--json")
    assert "Traceback" not in "\n".join(err)
    named = f"{run / expected}: " if expected else f"{run}"
    if blocking:
        assert code == 2, err
        assert out == ""
        (line,) = _errors(err)
        assert line.startswith(f"inspector: {named}"), (line, expected)
    else:
        assert code == 0, err
        json.loads(out)
        assert _errors(err) == []
        assert any(line.startswith(f"inspector: warning: {named}") for line in err), err


def test_dropped_task_matches_agentcompass_and_warns(capsys: pytest.CaptureFixture[str]) -> None:
    """fixtures/runs/load_problems: the index of chat_v3_8 names attempt-1 but its result.json
    is gone. AgentCompass skips the task (total 9 of 10); so does report, and says which file."""
    run = FIXTURE_RUNS / "load_problems"
    folder = next((run / "details" / "normal").glob("chat_v3_8--*"))
    missing = folder / "attempt-1" / "result.json"
    assert not missing.exists() and (folder / "task.json").is_file()

    code, out, err = _report(run, capsys, "--json")
    assert code == 0
    assert out == (run / "metrics.json").read_text(encoding="utf-8")
    assert json.loads(out)["series"][0]["counts"]["total"] == 9
    (warning,) = [line for line in err if "chat_v3_8" in line]
    assert warning.startswith(f"inspector: warning: {missing}: ")
    assert "skips this task" in warning

    code, out, _ = _report(run, capsys, "--markdown")
    assert code == 0
    assert out == (run / "summary.md").read_text(encoding="utf-8")

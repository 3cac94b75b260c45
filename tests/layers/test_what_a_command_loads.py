"""A command loads what it needs (issue 12): each command family's module only for its own
command, the checks of a root only for a root, scipy.stats only for McNemar's test; the app
starts with the overview of one run only (other screens are imported when first opened).

Each command runs in a fresh interpreter (as ``inspector ...`` does) and reports the modules
it ended with; the cache folder is the test's own (``XDG_CACHE_HOME``, set by conftest).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import FIXTURE_RUNS, ROOT

RUN = str(FIXTURE_RUNS / "k3_avg_hierarchy")

PROBE = """
import json, os, sys
from inspector.cli.main import main
code = main(sys.argv[1:])
with open(os.environ["PROBE_OUT"], "w") as out:
    json.dump([code, sorted(sys.modules)], out)
"""

ROOT_WORK = {
    "inspector.answers.root", "inspector.cli.check_root", "inspector.loading.many",
    "inspector.views.leaderboard", "inspector.views.runs_view",
}  # fmt: skip
"""The checks of every run under a root, the runs list and the leaderboard."""
OTHER_FAMILIES = {
    "inspector.cli.check", "inspector.cli.leaderboard", "inspector.cli.tasks",
    "inspector.cli.diff", "inspector.cli.export", "inspector.cli.stats",
}  # fmt: skip


def loaded(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    env = dict(os.environ, PROBE_OUT=str(out))
    subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, check=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    code, modules = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0, (args, code)
    return set(modules)


def test_report_answered_from_the_cache_loads_only_the_report_family(tmp_path: Path) -> None:
    loaded(tmp_path, "report", RUN, "--json")  # the report cache now holds the answer
    modules = loaded(tmp_path, "report", RUN, "--json")
    assert "inspector.cli.report" in modules and "inspector.loading.reports" in modules
    assert modules & (ROOT_WORK | OTHER_FAMILIES) == set()
    assert "inspector.answers.check" not in modules and "inspector.views.differences" not in modules
    # the answer from the cache: no reader, no engine (not even its data model), no worker
    # processes, no statistics, nothing that mirrors a URL, no JSON parser (orjson loads
    # uuid, datetime and platform). (tempfile is loaded: platformdirs, which finds the cache
    # folder, imports it.)
    never = {"inspector.session", "inspector.loading.reading", "inspector.engine.reduction",
             "inspector.engine.model", "inspector.loading.tasks",
             "inspector.loading.remote", "multiprocessing", "concurrent.futures", "scipy",
             "numpy", "orjson"}  # fmt: skip
    assert modules & never == set()


def test_check_of_one_run_loads_no_root_work(tmp_path: Path) -> None:
    modules = loaded(tmp_path, "check", RUN)
    assert "inspector.cli.check" in modules and "inspector.answers.check" in modules
    assert modules & ROOT_WORK == set()
    assert modules & (OTHER_FAMILIES - {"inspector.cli.check"}) == set()


def test_intervals_load_scipy_special_not_scipy_stats(tmp_path: Path) -> None:
    modules = loaded(tmp_path, "stats", RUN, "--format", "json")
    assert "scipy.special" in modules and "inspector.cli.stats" in modules
    assert "scipy.stats" not in modules


APP_LATER = {
    "inspector.app.screens.runs", "inspector.app.screens.tasks", "inspector.app.screens.help",
    "inspector.app.screens.table_export", "inspector.views.compare", "inspector.views.attribution",
    "markdown_it",
}  # fmt: skip
"""A root's runs screen, a count's task list, help (Markdown), the table export dialog,
what-if comparisons and retries: each imported when first asked for."""


def test_the_app_imports_only_what_one_runs_overview_needs() -> None:
    probe = "import sys, inspector.app.app; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True
    )  # fmt: skip
    modules = set(done.stdout.split())
    assert "inspector.app.screens.overview" in modules
    assert modules & (ROOT_WORK | APP_LATER) == set()
    assert modules & {"scipy", "numpy", "multiprocessing"} == set()


def test_report_json_renders_no_summary(tmp_path: Path) -> None:
    """summary.md is made for --markdown only: 'report --json' read in full, and answered
    after a task folder changed (the score table's answer), load no tabulate (which loads
    importlib.metadata, ~60 ms); --markdown does."""
    run = tmp_path / "run"
    subprocess.run(["cp", "-r", RUN, str(run)], check=True)
    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read
    modules = loaded(tmp_path, "report", str(run), "--json")
    assert "inspector.session" in modules  # read and scored here
    assert "tabulate" not in modules
    result = sorted(run.glob("details/*/*/attempt-1/result.json"))[0]
    result.write_bytes(result.read_bytes())  # its change time moves
    modules = loaded(tmp_path, "report", str(run), "--json")
    assert "inspector.loading.reopen" in modules and "tabulate" not in modules
    assert "tabulate" in loaded(tmp_path, "report", str(run), "--markdown")


FRAME_LIBRARIES = {"pandas", "polars", "duckdb"}
"""The optional extras of issue 52: DataFrames (inspector.api's to_frame) and SQL."""


def test_dataframe_and_sql_libraries_load_only_where_asked_for(tmp_path: Path) -> None:
    """``inspector sql`` loads DuckDB and not polars; the API loads none until ``to_frame``;
    ``report`` and ``tasks`` load none of them (and not the API). (pyarrow and DuckDB
    themselves import pandas when it is installed, as they build or are handed Arrow tables:
    the Parquet export did before issue 52; tests/layers' import contract keeps the
    inspector's own modules from importing it.)"""
    modules = loaded(tmp_path, "sql", RUN, "select count(*) from tasks")
    assert "duckdb" in modules and "inspector.api" in modules
    assert "polars" not in modules
    for argv in (("report", RUN, "--json"), ("tasks", RUN, "--format", "jsonl")):
        modules = loaded(tmp_path, *argv)
        assert modules & (FRAME_LIBRARIES | {"inspector.api", "inspector.cli.sql"}) == set(), argv
    probe = (
        "import sys; from inspector.api import open_run; r = open_run(sys.argv[1]); "
        "before = sorted(sys.modules); r.tasks.to_frame(kind='polars'); "
        "print(' '.join(before)); print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, RUN], cwd=ROOT, check=True, capture_output=True, text=True
    )  # fmt: skip
    before, after = (set(line.split()) for line in done.stdout.splitlines())
    assert before & FRAME_LIBRARIES == set()
    assert "polars" in after and "duckdb" not in after

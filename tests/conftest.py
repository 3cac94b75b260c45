"""Shared test helpers: where the conformance runs and fixtures are."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Runs written by AgentCompass itself, committed with the repository (fixtures/conformance/README.md).
CONFORMANCE = ROOT / "fixtures" / "conformance"
# The workplace's reference folder, when it sits beside the clone: it may only add runs.
SHARED_CONFORMANCE = (ROOT / ".." / "shared" / "conformance").resolve()
FIXTURE_RUNS = ROOT / "fixtures" / "runs"


def _runs_in(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if (p / "metrics.json").is_file())


def conformance_runs() -> list[Path]:
    """Every AgentCompass-written run: the repository's, then those only ../shared/conformance has."""
    runs = {p.name: p for p in _runs_in(CONFORMANCE)}
    for extra in _runs_in(SHARED_CONFORMANCE):
        runs.setdefault(extra.name, extra)
    return [runs[name] for name in sorted(runs)]


def script(relative: str) -> ModuleType:
    """A script of the repository (``fixtures/make_big_attempt.py``, a benchmark) imported
    as a module by its path: those folders are not packages."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def conformance_run(name: str) -> Path:
    """One AgentCompass-written run by folder name (the repository's copy when it has one)."""
    return next(p for p in conformance_runs() if p.name == name)


REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()
"""Each test's reports so far, by phase (``setup``, ``call``): for its fixtures' teardown."""


def open_session(path: Path | str, overrides: Any = None) -> Any:
    """A run read and scored through the door (:func:`inspector.loading.read`); a run that
    cannot be read fails the test."""
    from inspector import loading

    result = loading.read(path, overrides)
    if isinstance(result, loading.Failed):
        raise AssertionError(result.message)
    return result.session


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


def _passed(item: pytest.Item) -> bool:
    return all(report.passed for report in item.stash.get(REPORTS, {}).values())


@pytest.fixture(scope="session", autouse=True)
def _sweep_temporaries(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """A test process whose tests all passed removes its temporary folders as it ends (the
    last fixture to go). pytest would remove them too, but after every process has ended,
    from the one process that started them, one file at a time: ~19 s with both cores idle
    at the end of every run. A process with a failure keeps its folders, as pytest does
    (``tmp_path_retention_policy``)."""
    yield
    if hasattr(request.config, "workerinput") and request.session.testsfailed == 0:
        shutil.rmtree(tmp_path_factory.getbasetemp(), ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_home(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[None]:
    """No test reads or writes the user's real cache or config, nor another test's: what
    the app shows may depend on its cache (numbers labelled as cached). The folder goes
    when the test passes (its caches are kept with a failure, as its ``tmp_path`` is)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    # One reader process per app or command: the suite already runs two test processes per
    # core (pytest_xdist_auto_num_workers below), and the fixture runs are small. The
    # inspector's default (one per core) is what the tests that need several readers set.
    monkeypatch.setenv("INSPECTOR_WORKERS", "1")
    # Not a GitHub Actions log even when the suite runs in one: stdout would be wrapped in
    # ::stop-commands:: markers (inspector.cli.output); the tests of it set GITHUB_ACTIONS.
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    yield
    if _passed(request.node):
        shutil.rmtree(home, ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    """Compile the inspector's bytecode once, before the test processes start (the
    controller; an xdist worker finds it done). Where ``PYTHONDONTWRITEBYTECODE`` is set (as
    on this project's CI machines) no interpreter writes it, and each of the suite's ~150
    interpreters (the test processes, their fork servers, every ``inspector`` subprocess)
    compiled every module it imports from source again. Compiled files go where Python
    puts them (``__pycache__``, ignored by git); a stale one is recompiled (its source's
    time and size are in it)."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    for package in ("inspector", "widgets", "tests"):
        compileall.compile_dir(ROOT / package, quiet=1)
    if config.getoption("numprocesses", None):
        _rewrite_tests_once(config)


def _rewrite_tests_once(config: pytest.Config) -> None:
    """Write pytest's assertion-rewritten test modules to its cache once, here, for the test
    processes to read. Where ``PYTHONDONTWRITEBYTECODE`` is set pytest writes no such cache,
    and each test process rewrote all ~250 test modules itself (about half of its 7 s of
    collection, measured by cProfile). pytest's own functions do the rewriting and the
    writing (private ones: pytest is pinned; a change there only means no cache)."""
    if config.getoption("assertmode") != "rewrite":
        return
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        state = config.stash[assertstate_key]
        for source in sorted((ROOT / "tests").rglob("*.py")):
            if not (source.name.startswith("test_") or source.name == "conftest.py"):
                continue
            cache = get_cache_dir(source)
            pyc = cache / (source.name[:-3] + PYC_TAIL)
            if _read_pyc(source, pyc, state.trace) is None:  # absent or stale
                cache.mkdir(exist_ok=True)
                _write_pyc(state, _rewrite_test(source, config)[1], source.stat(), pyc)
    except (ImportError, AttributeError, KeyError, OSError, SyntaxError):
        return  # the test processes rewrite what they need, as without this


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: known only when it is loaded
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: two test processes per available core (``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still decides when set). The app tests spend much of their time waiting (Pilot pauses,
    reader processes, subprocesses of the command line), so one process per core leaves
    the cores a third idle; two keep them busy (``benchmarks/bench_suite.py`` measures it).
    Each test's app or command then has one reader process (``_isolated_home``)."""
    import os

    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return 2 * len(os.sched_getaffinity(0))


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before pytest-xdist's own choice
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n`` with no ``--dist``: pytest-xdist's work stealing, not its ``load``. ``load``
    queues tests on each process ahead of time and never takes them back: in a measured run
    three processes finished at 224 s and the fourth ran its queue alone until 263 s, the
    cores 90 % idle. With work stealing an idle process takes half the queue of the one
    with most tests waiting. A ``--dist`` given on the command line is obeyed."""
    args = config.invocation_params.args
    if config.getvalue("dist") != "load" or any(str(a).startswith("--dist") for a in args):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


LONG_FIRST = (
    "tests/robustness/test_rendered_output.py",
    "tests/robustness/test_interrupts.py",
    "tests/robustness/test_fuzz_runs.py",
    "tests/app/test_large_tasks.py",
    "tests/remote/",
    "tests/robustness/",
    "tests/app/",
    "tests/snapshots/",
    "tests/loading/",
    "tests/packaging/",
    "tests/layers/",
)
"""Where the long tests are, longest first (seconds each, against milliseconds for the
engine's). Work stealing (:func:`pytest_xdist_make_scheduler`) gives each process a quarter
of the list in order, and an idle process takes the second half of a busy one's queue: with
the long ones first, they start early and the run does not end waiting on one of them."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first (:data:`LONG_FIRST`), every group in collection order."""

    def rank(item: pytest.Item) -> int:
        path = Path(str(item.path)).relative_to(ROOT).as_posix()
        return next((n for n, p in enumerate(LONG_FIRST) if path.startswith(p)), len(LONG_FIRST))

    items.sort(key=rank)

"""Property-based fuzzing of the reader, the engine, the CLI and the screens' readers.

Each example copies a conformance or sample run and damages a few of its files:
truncation, byte flips, empty files, non-UTF-8 bytes, deletions, folders in place of
files, symbolic links out of the run and inside it, a task folder copied into a second
state folder, and JSON edits at any depth (values swapped for other JSON, for hostile text,
for huge numbers, for nesting past any parser's limit; keys dropped). Then it reads,
recomputes and reports the run, and reads what the task and diagnostics screens read.
No exception may escape except the documented ones:

- ``read_run`` raises only ``RunReadError`` (a path that is not a directory);
- ``score_run`` raises nothing: a refusal is ``session.refusal``;
- the CLI answers 0, 1 or 2, never a traceback; 2 comes with one line on stderr;
- the screens' readers (payloads, retry records, documents) raise only
  ``ResultFileError``, and what they return renders.

Budget: ``INSPECTOR_FUZZ_EXAMPLES`` examples per test (default below, well under a minute
in all), no example database, and a fixed seed (``INSPECTOR_FUZZ_SEED``, default 0) so CI
is repeatable; set another seed to explore. On failure hypothesis prints the falsifying
example with the seed (``note``) and a ``@reproduce_failure`` blob (``print_blob``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st
from rich.console import Console

from inspector.app.diagnostics import attempt_sources
from inspector.app.payloads import read_payload
from inspector.cli.main import main
from inspector.results.problems import ResultFileError
from inspector.results.reader import read_run
from inspector.session import score_run
from tests.conftest import FIXTURE_RUNS, conformance_runs
from widgets.attempt_card import attempt_table
from widgets.literal import literal, one_line

SAMPLE_RUNS = sorted(p for p in FIXTURE_RUNS.iterdir() if p.is_dir())
RUNS = conformance_runs() + SAMPLE_RUNS

SEED = int(os.environ.get("INSPECTOR_FUZZ_SEED", "0"))
EXAMPLES = int(os.environ.get("INSPECTOR_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HOSTILE_PIECES = (
    "\x1b", "[", "]", "2J", "\x07", "\x08", "\r", "\n", "\t", "\u202e", "\u200d", "\ufeff",
    "\x85", "\ud800", "|", "`", "&", "<", ">", "[bold]", "[/]", "[link=x]", "数", "🧪", " ", "a",
)  # fmt: skip
HOSTILE_TEXT = st.lists(st.sampled_from(HOSTILE_PIECES), max_size=8).map("".join)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([2**64, -(2**70), 10**400, 1e308, -0.0, 0.5])
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | HOSTILE_TEXT
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=5) | HOSTILE_TEXT, children, max_size=3)
    ),
    max_leaves=6,
)
DEPTHS = st.sampled_from([900, 1000, 1023, 1025, 5000, 100_000])

MUTATIONS = (
    "truncate",
    "flip",
    "empty",
    "non_utf8",
    "delete",
    "dir",
    "symlink_out",
    "symlink_in",
    "swap_value",
    "drop_key",
    "deep_value",
    "nan_value",
    "second_state_folder",
)


def _files(run: Path) -> list[Path]:
    return sorted(
        p
        for p in run.rglob("*")
        if p.is_file() and not p.is_symlink() and p.name != "oracle_case.json"
    )


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path into a JSON value (the value itself first)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return doc


def _edit_json(path: Path, how: str, data: st.DataObject) -> None:
    try:
        doc = json.loads(path.read_bytes())
    except (ValueError, RecursionError):  # not JSON, or already nested too deeply
        return
    paths = list(_paths(doc))
    where = data.draw(st.sampled_from(paths), label="json path")
    marker = "@@FUZZ@@"
    if how == "drop_key":
        if not where or not isinstance(doc, dict | list):
            return
        parent = doc
        for key in where[:-1]:
            parent = parent[key]
        del parent[where[-1]]
        text = json.dumps(doc, ensure_ascii=False)
    elif how == "swap_value":
        text = json.dumps(
            _set(doc, where, data.draw(JSON_VALUES, label="value")), ensure_ascii=False
        )
    else:
        text = json.dumps(_set(doc, where, marker), ensure_ascii=False)
        if how == "deep_value":
            depth = data.draw(DEPTHS, label="depth")
            raw = data.draw(st.sampled_from(["[]", '{"a":}']), label="shape")
            open_, close = (raw[0], raw[-1]) if raw == "[]" else ('{"a":', "}")
            replacement = (
                open_ * depth + "0" + close * depth if raw != "[]" else "[" * depth + "]" * depth
            )
        else:  # nan_value
            replacement = data.draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        text = text.replace(f'"{marker}"', replacement)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


def _mutate(run: Path, target: Path, how: str, data: st.DataObject, outside: Path) -> None:
    raw = target.read_bytes()
    if how == "truncate":
        target.write_bytes(raw[: data.draw(st.integers(0, max(len(raw) - 1, 0)), label="cut")])
    elif how == "flip":
        if raw:
            i = data.draw(st.integers(0, len(raw) - 1), label="byte")
            target.write_bytes(raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1 :])
    elif how == "empty":
        target.write_bytes(b"")
    elif how == "non_utf8":
        target.write_bytes(b"\xff\xfe" + raw)
    elif how == "delete":
        target.unlink()
    elif how == "dir":
        target.unlink()
        target.mkdir()
    elif how == "symlink_out":
        copy = outside / target.name
        copy.write_bytes(raw)
        target.unlink()
        os.symlink(copy, target)
    elif how == "symlink_in":
        copy = target.with_name(target.name + ".copy")
        target.rename(copy)
        os.symlink(copy.name, target)
    elif how == "second_state_folder":
        folders = sorted({p.parent for p in run.glob("details/*/*/task.json")})
        if folders:
            folder = data.draw(st.sampled_from(folders), label="task folder")
            state = data.draw(
                st.sampled_from(["normal", "error", "fatal", "running"]), label="state"
            )
            copy = run / "details" / state / folder.name
            if not copy.exists():
                shutil.copytree(folder, copy, symlinks=True)
    else:
        _edit_json(target, how, data)


def _damaged_run(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> Path:
    note(f"INSPECTOR_FUZZ_SEED={SEED}")
    source = data.draw(st.sampled_from(RUNS), label="run")
    work = tmp_path_factory.mktemp("fuzz")
    run = work / "run"
    outside = work / "outside"
    outside.mkdir()
    shutil.copytree(source, run, symlinks=True)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        files = _files(run)
        if not files:
            break
        target = data.draw(st.sampled_from(files), label="file")
        how = data.draw(st.sampled_from(MUTATIONS), label="how")
        _mutate(run, target, how, data, outside)
    return run


@seed(SEED)
@settings(FUZZ, max_examples=EXAMPLES or 300)
@given(data=st.data())
def test_mutated_runs_never_crash(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = _damaged_run(data, tmp_path_factory)
    loaded = read_run(run)  # must not raise for anything inside the run
    for problem in loaded.problems:
        assert "\n" not in problem.message
        assert not Path(problem.path).is_absolute()
    session = score_run(loaded)
    assert (session.recomputation is None) == (session.refusal is not None)

    for argv in (
        ["report", str(run), "--json"],
        ["report", str(run), "--markdown"],
        ["check", str(run)],
    ):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
        assert code in (0, 1, 2), (argv, code)
        assert "Traceback" not in err.getvalue()
        if code == 2:
            assert out.getvalue() == ""
            errors = [
                line
                for line in err.getvalue().splitlines()
                if not line.startswith("inspector: warning:")
            ]
            assert len(errors) == 1, errors


def _render(renderable: Any) -> str:
    console = Console(width=80, color_system="truecolor", force_terminal=True, file=io.StringIO())
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


@seed(SEED)
@settings(FUZZ, max_examples=EXAMPLES or 150)
@given(data=st.data())
def test_screens_read_mutated_attempts_without_crashing(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """What the task and diagnostics screens read and render, for every attempt folder."""
    run = _damaged_run(data, tmp_path_factory)
    loaded = read_run(run)
    tasks = {task.task_id: task for task in loaded.tasks}
    entries = loaded.entries
    if len(entries) > 3:  # the damaged folders first, then a few others
        damaged = [
            e for e in entries if any(p.path.startswith(e.folder + "/") for p in loaded.problems)
        ]
        rest = data.draw(
            st.lists(st.sampled_from(entries), max_size=2, unique_by=id), label="entries"
        )
        entries = damaged[:2] + rest
    for entry in entries:
        for index in sorted(entry.attempt_dirs) or [1]:
            payload, problem = None, None
            try:
                payload = read_payload(loaded, entry, index)
            except ResultFileError as exc:
                problem = exc.problem.message
            task = tasks.get(entry.task_id or "")
            attempt = task.attempts.get(index) if task is not None else None
            _render(attempt_table(attempt, retries=0, payload=payload, payload_error=problem))
            for source in attempt_sources(loaded, entry, index, payload, payload_problem=problem):
                _render(one_line(source.label))
                try:
                    document = source.open()
                except ResultFileError:
                    continue
                for line in document.lines(0, 50):
                    shown = _render(literal(line))
                    assert "\x1b]" not in shown and "\x07" not in shown
                document.find("x", 0)

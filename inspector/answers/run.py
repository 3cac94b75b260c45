"""A run opened for an answer rather than for browsing: its session, and what ``report``
prints.

The command line and the app's runs and leaderboard screens both ask these questions, so
they live here, below both, above the one door (:mod:`inspector.loading`); the run's check
against its stored ``metrics.json`` is :mod:`inspector.answers.check`, the same questions for
every run under a root :mod:`inspector.answers.root`. Nothing here
prints except :func:`say_on_stderr`, the default for warnings; bad input is an
:class:`Unusable` (one line naming the file), never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector import loading
from inspector.loading import WARNING_PREFIX, Outputs, shown
from inspector.overrides import Overrides
from inspector.views.visible import inert_in_workflow_log, visible

if TYPE_CHECKING:  # pragma: no cover
    # Only named: a report answered from the cache never loads the session or the engine.
    from inspector.session import Session

Say = Callable[[str], None]
"""Where warnings and notes go, one line at a time."""


class Unusable(Exception):
    """Input the inspector cannot use; ``str()`` is the one-line message naming the file."""


def _open(opening: Callable[[], Any], path: str) -> Any:
    """``opening()`` (the door's :func:`~inspector.loading.answer` or
    :func:`~inspector.loading.read` of ``path``), any failure it did not foresee said as
    :class:`Unusable` naming ``path`` (``diff``'s two runs, each ``check ROOT`` run: the
    last-resort handler cannot know which). ``INSPECTOR_DEBUG`` lets the traceback
    through."""
    try:
        return opening()
    except Unusable:
        raise
    except Exception as exc:
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        raise Unusable(f"{shown(path)}: {type(exc).__name__}: {exc}") from exc


def say_on_stderr(line: str) -> None:
    """One line for the terminal: names and messages from result files made visible; a
    remote run's cache folder shown as its URL; in a GitHub Actions log never a workflow
    command (:func:`~inspector.views.visible.inert_in_workflow_log`)."""
    text = visible(shown(line), one_line=True)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        text = inert_in_workflow_log(text)
    with contextlib.suppress(BrokenPipeError):
        print(text, file=sys.stderr)


def say_root(line: str) -> None:
    """A line about what a command over a root could not search, on stderr."""
    say_on_stderr(f"inspector: {line}")


def load_session(
    path: str,
    overrides: Overrides | None = None,
    *,
    say: Say = say_on_stderr,
    fresh: bool = False,
) -> Session:
    """Read, resolve and recompute; raise :class:`Unusable` where AgentCompass would refuse.

    A plan that differs from the run's (``--k`` / ``--strategy``) is applied as a derived
    plan (``inspector.engine.whatif``). Warnings and notes for stderr go to ``say``.
    ``fresh``: every file is read, nothing is taken from the store.
    """
    result = _open(lambda: loading.read(path, overrides, fresh=fresh), path)
    return _loaded(path, result, say).session


def _loaded(path: str, result: Any, say: Say) -> loading.Loaded:
    """The loaded run, its warnings and notes said; :class:`Unusable` when it cannot be
    read or scored."""
    if isinstance(result, loading.Failed):
        raise Unusable(result.message)
    assert isinstance(result, loading.Loaded)
    for problem in result.session.run.problems:
        if not problem.blocking:
            say(f"{WARNING_PREFIX}{Path(path) / problem.path}: {problem.message}")
    if result.refusal is not None:
        raise Unusable(result.refusal)
    for note in result.notes:
        say(note)
    return result


def load_outputs(
    path: str,
    overrides: Overrides,
    *,
    cached: bool = True,
    say: Say = say_on_stderr,
    extra_answers: Callable[[Session], dict[str, Any]] | None = None,
) -> tuple[Outputs, str | None]:
    """What ``report`` / ``check`` print, and what came from the store, in words (None:
    nothing); from the store when the run is unchanged (``cached=False``: every file is
    read, nothing is taken from the store). Warnings and notes go to ``say``, with
    ``path`` as given. ``extra_answers``: further answers about the run, kept with its
    report (:func:`inspector.loading.answer`'s ``also``).
    """
    result = _open(
        lambda: loading.answer(path, overrides, fresh=not cached, also=extra_answers), path
    )
    if isinstance(result, loading.Refused):  # as a read says it (:func:`_loaded`)
        for rel, text in result.warnings:
            say(f"{WARNING_PREFIX}{Path(path) / rel}: {text}")
        raise Unusable(result.refusal)
    if isinstance(result, loading.CachedReport):
        outputs, source = result.outputs, "the whole answer (the run's files are unchanged)"
        if result.read_again:
            kept = result.folders - result.read_again
            source = f"{kept} of {result.folders} task folders (their files are unchanged)"
    else:
        lines: list[str] = []
        try:
            loaded = _loaded(path, result, lines.append)
        except Unusable:
            for line in lines:
                say(line)
            raise
        assert loaded.outputs is not None
        outputs, hits = loaded.outputs, loaded.cache_hits
        total = len(loaded.session.run.entries)
        source = f"{hits} of {total} task folders (their files are unchanged)" if hits else None
    for line in stderr_lines(outputs, path):
        say(line)
    return outputs, source


def stderr_lines(outputs: Outputs, path: str | Path) -> list[str]:
    """What a report says on stderr besides the report: its load warnings (the files named
    under ``path``) and its notes."""
    warnings = [f"{WARNING_PREFIX}{Path(path) / rel}: {text}" for rel, text in outputs.warnings]
    return warnings + list(outputs.notes)


def warnings_in(
    said: Sequence[str], under_root: Callable[[str], str] = lambda text: text
) -> tuple[str, ...]:
    """The load warnings among lines said (``file: message``, without the prefix)."""
    return tuple(
        under_root(line.removeprefix(WARNING_PREFIX))
        for line in said
        if line.startswith(WARNING_PREFIX)
    )

"""The `inspector` command: headless reports and checks, and the app.

Exit codes: 0 success (``check``: stored equals recomputed), 1 ``check`` found differences,
2 unusable input (one line naming the file on stderr; never a traceback for bad data). What the
commands print goes through :mod:`inspector.cli.output` (visible stand-ins on a terminal, exact
bytes to a pipe or file, a closed pipe never changes the exit status). Each command family has
its module in this package (``register(subparsers)`` and ``cmd_*``), imported only when its
command is asked for (or for help and completion); this one parses and dispatches, and starts
the app.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector import __version__, loading
from inspector.answers.run import Unusable, say_on_stderr
from inspector.cli.common import EXIT_OK, EXIT_UNUSABLE, local_path, localize
from inspector.cli.interrupts import interruptible
from inspector.cli.output import command_stdout, write_exact
from inspector.engine.errors import EngineError, HierarchyError
from inspector.results.problems import RunReadError

if TYPE_CHECKING:  # pragma: no cover
    from inspector.app.app import InspectorApp

COMMANDS = ("report", "check", "serve", "tasks", "diff", "export", "stats", "leaderboard", "items",
            "errors", "gate", "bundle", "sql")  # fmt: skip
"""Every subcommand; anything else on the command line is a path for the app."""
LISTED = ("report", "check", "serve", "leaderboard", "tasks", "diff", "export", "stats", "items",
          "errors", "gate", "bundle", "sql")  # fmt: skip
"""The subcommands in the order ``inspector --help`` lists them."""
RUNS_SCREEN_WORK = ("inspector.answers.root",)
"""What the app's reader processes run for the runs screen (the checks of many runs)."""
ROOT_WORK = ("scipy.special",)
"""What they need besides when the app opens on the runs screen: every run's headline
interval is computed there (Student's t from scipy.special, slow to import), imported once in
the fork server while the interface starts, not in each reader process while the runs are
checked (docs/decisions/startup-imports.md)."""
USAGE = (
    "inspector [-h] [-V] [--watch SECONDS] [PATH ...]\n"
    f"       inspector {{{','.join(COMMANDS)}}} ..."
)


def _add_app_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--watch",
        type=float,
        metavar="SECONDS",
        help="the app reloads every SECONDS (a run that is still going); key a toggles it",
    )


def app_parser() -> argparse.ArgumentParser:
    """``inspector [--watch SECONDS] [PATH ...]``: the app."""
    parser = argparse.ArgumentParser(prog="inspector", usage=USAGE, description="Open the app.")
    parser.add_argument("-V", "--version", action="version", version=f"inspector {__version__}")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="run directories or results roots")
    _add_app_options(parser)
    return parser


def cmd_app(options: argparse.Namespace) -> int:
    """``inspector [PATH ...] [--watch SECONDS]``: paths that exist and a terminal, or one line."""
    for path in options.paths:
        if not os.path.lexists(path):
            raise Unusable(f"no such command or run directory: {path}")
    # textual draws on stderr and reads stdin; textual-serve's browser sessions talk to the
    # app through pipes, with a driver of their own.
    streams = (sys.stdin, sys.stdout, sys.stderr)
    if not os.environ.get("TEXTUAL_DRIVER") and not all(s.isatty() for s in streams):
        raise Unusable(
            "the app needs a terminal (stdin, stdout and stderr); for output to a pipe or a "
            "file use `inspector report PATH` (or check, tasks, diff)"
        )
    with loading.results_read(options.paths):
        app = _build_app(options, ends_on_signals=True)
        app.run()
    return int(app.return_code or 0)


def build_app(argv: list[str]) -> InspectorApp:
    """The app for ``inspector [PATH ...] [--watch SECONDS]``."""
    return _build_app(app_parser().parse_args(argv))


def _build_app(options: argparse.Namespace, *, ends_on_signals: bool = False) -> InspectorApp:
    try:
        paths = [Path(local_path(p)) for p in options.paths]
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    # Before textual is imported (and starts threads): the run's cached report, or its
    # reader processes already at work; the runs screen's checks (inspector.answers.root) are
    # loaded once in the fork server the reader processes come from.
    early = loading.prepare_app(paths, preload=RUNS_SCREEN_WORK, root_preload=ROOT_WORK)
    from inspector.app.app import InspectorApp  # textual: only now
    from inspector.app.settings import Settings  # resolve and the engine: only for the app

    settings = Settings(
        watch=options.watch is not None,
        watch_seconds=options.watch or 5.0,
        early=early,
        ends_on_signals=ends_on_signals,
    )
    return InspectorApp(paths, settings=settings)


def cmd_serve(args: argparse.Namespace) -> int:
    from inspector.app.web import serve  # textual-serve, aiohttp: serve only

    return serve(Path(args.path), host=args.host, port=args.port, max_sessions=args.max_sessions)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``inspector`` parser: with ``command``, that subcommand alone (only its module is
    imported), else every one (help, completion)."""
    parser = argparse.ArgumentParser(
        prog="inspector",
        usage=USAGE,
        description="Recompute, audit and browse AgentCompass evaluation runs.",
        epilog=(
            "inspector [PATH ...] opens the app on run directories or results roots "
            "(no PATH: the runs under the current folder, else the bundled sample run); "
            "it needs a terminal. Exit codes: 0 ok, 1 check/diff found differences, "
            "2 unusable input or an unknown command."
        ),
    )
    parser.add_argument("-V", "--version", action="version", version=f"inspector {__version__}")
    parser.add_argument(
        "--print-completion",
        choices=["bash", "zsh", "tcsh"],
        metavar="SHELL",
        help="print a shell completion script (bash, zsh, tcsh) and exit; "
        'e.g. eval "$(inspector --print-completion bash)"',
    )
    _add_app_options(parser.add_argument_group("the app (inspector [--watch SECONDS] [PATH ...])"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="inspector")
    for name in LISTED if command is None else (command,):
        _register(sub, name)
    return parser


def _register(sub: Any, command: str) -> None:
    """Add ``command`` to the parser. Each command family's module is imported here, for its
    own command only: ``report --json`` answered from the cache loads neither the checks of
    a root, the leaderboard nor the statistics (``stats`` / ``diff`` load scipy)."""
    if command == "report":
        from inspector.cli import report

        report.register(sub)
    elif command == "check":
        from inspector.cli import check

        check.register(sub)
    elif command == "serve":
        _register_serve(sub)
    elif command == "leaderboard":
        from inspector.cli import leaderboard

        leaderboard.register(sub)
    elif command == "tasks":
        from inspector.cli import tasks

        tasks.register(sub)
    elif command == "diff":
        from inspector.cli import diff

        diff.register(sub)
    elif command == "export":
        from inspector.cli import export

        export.register(sub)
    elif command == "gate":
        from inspector.cli import gate

        gate.register(sub)
    elif command == "bundle":
        from inspector.cli import bundle

        bundle.register(sub)
    elif command == "sql":
        from inspector.cli import sql

        sql.register(sub)
    elif command in ("items", "errors"):
        from inspector.cli import items

        items.register(sub, command)
    else:
        assert command == "stats", command
        from inspector.cli import stats

        stats.register(sub)


def _register_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve the app to a web browser (textual-serve)")
    serve.add_argument("path", nargs="?", default=".", help="a run directory or results root")
    serve.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (0: any free one)")
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="browser sessions at once, each a full app (default 4)",
    )
    serve.set_defaults(func=cmd_serve)


def print_completion(shell: str) -> int:
    """A completion script for ``shell`` (shtab, from the parser itself): commands, options,
    choices, and folder / file names where a run directory or a FILE is asked for."""
    import shtab  # only when a completion script is asked for

    parser = build_parser()
    parsers = [parser]
    while parsers:
        for action in parsers.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            elif action.metavar == "FILE":
                action.complete = shtab.FILE  # type: ignore[attr-defined]
            elif not action.option_strings and action.dest in ("path", "a", "b"):
                action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
    write_exact(shtab.complete(parser, shell=shell))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """The ``inspector`` command; Ctrl-C ends it at once, saying ``interrupted``, exit 130
    (:mod:`inspector.cli.interrupts`)."""
    return interruptible(lambda: _main(argv))


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (argv[0] in COMMANDS or argv[0].startswith("--print-completion")
                 or argv[0] in ("-h", "--help")):  # fmt: skip
        parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
        args = parser.parse_args(argv)
        if args.print_completion:
            return print_completion(args.print_completion)
        if args.command is None:
            parser.print_help()
            return EXIT_UNUSABLE
    else:
        args = app_parser().parse_args(argv)
        args.func = cmd_app
    try:
        if args.func is cmd_app:  # textual draws on the terminal itself
            return cmd_app(args)
        with loading.results_read(_results_of(args)):  # the cache is never kept inside them
            localize(args)
            with command_stdout():
                return int(args.func(args))
    except Unusable as exc:
        say_on_stderr(f"inspector: {exc}")
        return EXIT_UNUSABLE
    except (EngineError, HierarchyError) as exc:
        say_on_stderr(f"inspector: {_named(args)}{exc}")
        return EXIT_UNUSABLE
    except Exception as exc:  # never a traceback for bad data
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        say_on_stderr(f"inspector: {_named(args)}{type(exc).__name__}: {exc}")
        return EXIT_UNUSABLE


def _results_of(args: argparse.Namespace) -> list[str]:
    """The runs and roots a command reads (its local paths: a URL's mirror is the cache's)."""
    names = ("path", "a", "b", "against")
    return [
        p
        for p in (getattr(args, n, None) for n in names)
        if isinstance(p, str) and not loading.is_url(p)
    ]


def _named(args: argparse.Namespace) -> str:
    """What the last-resort handler names: the command's run (``diff``: both), never an
    empty name."""
    paths = [getattr(args, name, None) for name in ("path", "a", "b")]
    named = " / ".join(path for path in paths if isinstance(path, str) and path)
    return f"{named}: " if named else ""

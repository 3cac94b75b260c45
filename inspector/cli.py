"""The `inspector` command: headless reports and checks, and the app.

Exit codes: 0 success (``check``: stored equals recomputed), 1 ``check`` found differences,
2 unusable input (one line naming the file on stderr; never a traceback for bad data). What the
commands print goes through :mod:`inspector.cli_output` (visible stand-ins on a terminal, exact
bytes to a pipe or file, a closed pipe never changes the exit status).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector import __version__, loading
from inspector.cli_output import command_stdout, write_exact
from inspector.engine.errors import ContractError, EngineError, HierarchyError
from inspector.loading.report_cache import WARNING_PREFIX, Outputs
from inspector.overrides import Overrides
from inspector.results.layout import parse_json
from inspector.results.problems import RunReadError
from inspector.visible import visible

if TYPE_CHECKING:  # pragma: no cover
    from inspector.app import InspectorApp
    from inspector.session import Session

EXIT_OK, EXIT_DIFFERS, EXIT_UNUSABLE = 0, 1, 2
COMMANDS = ("report", "check", "serve", "tasks", "diff", "export", "stats", "leaderboard")
"""Every subcommand; anything else on the command line is a path for the app."""
LIGHT_COMMANDS = ("report", "check", "serve")
"""Commands that start without loading the audit code (``tasks``, ``diff``)."""
USAGE = (
    "inspector [-h] [-V] [--watch SECONDS] [PATH ...]\n"
    f"       inspector {{{','.join(COMMANDS)}}} ..."
)


class Unusable(Exception):
    """Input the inspector cannot use; ``str()`` is the one-line message naming the file."""


def _read_json_file(path: str, what: str) -> object:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise Unusable(f"{path}: cannot read {what}: {reason}") from None


def _overrides(args: argparse.Namespace) -> Overrides:
    contract = None
    if getattr(args, "contract", None):
        from inspector.engine.contract import contract_from_json

        try:
            contract = contract_from_json(
                _read_json_file(args.contract, "the contract file"),
                source=f"--contract {args.contract}",
            )
        except ContractError as exc:
            raise Unusable(f"{args.contract}: invalid contract: {exc}") from None
    hierarchy = None
    if getattr(args, "hierarchy", None):
        hierarchy = _read_json_file(args.hierarchy, "the hierarchy file")
        if not isinstance(hierarchy, dict):
            raise Unusable(f"{args.hierarchy}: a hierarchy file must hold a JSON object")
    return Overrides(
        k=getattr(args, "k", None),
        strategy=getattr(args, "strategy", None),
        aggregation=getattr(args, "aggregation", None),
        hierarchy=hierarchy,
        contract=contract,
        benchmark_id=getattr(args, "benchmark", None),
    )


def _stderr(line: str) -> None:
    """One line for the terminal: names and messages from result files made visible; a
    remote run's cache folder shown as its URL."""
    from inspector.loading.remote import shown

    with contextlib.suppress(BrokenPipeError):
        print(visible(shown(line), one_line=True), file=sys.stderr)


def _localize(args: argparse.Namespace) -> None:
    """Replace URL arguments (``s3://…``) by the local mirror of what they name."""
    from inspector.loading import remote

    for name in ("path", "a", "b"):
        value = getattr(args, name, None)
        if isinstance(value, str) and remote.is_url(value):
            try:
                setattr(args, name, remote.local_path(value, say=_warn))
            except RunReadError as exc:
                raise Unusable(str(exc)) from None


def _warn(line: str) -> None:
    _stderr(f"{WARNING_PREFIX}{line}")


def load_session(
    path: str,
    overrides: Overrides | None = None,
    *,
    say: Callable[[str], None] = _stderr,
    reuse_cache: bool = True,
) -> Session:
    """Read, resolve and recompute; raise :class:`Unusable` where AgentCompass would refuse.

    A plan that differs from the run's (``--k`` / ``--strategy``) is applied as a derived
    plan (``inspector.engine.whatif``). Warnings and notes for stderr go to ``say``.
    ``reuse_cache=False`` reads every file (the cache may not stand in for reading).
    """
    result = loading.open(path, loading.Request(overrides=overrides, reuse_cache=reuse_cache))
    loaded = _loaded(path, result, say)
    return loaded.session


def _loaded(path: str, result: loading.Event, say: Callable[[str], None]) -> loading.Loaded:
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


def load_outputs(path: str, overrides: Overrides, *, cached: bool = True) -> Outputs:
    """What ``report`` / ``check`` print; from the cache when the run is unchanged
    (``cached=False``: every file is read, nothing is taken from the cache).

    Warnings and notes go to stderr either way, with ``path`` as given.
    """
    outputs, _ = load_outputs_from(path, overrides, cached=cached)
    return outputs


def load_outputs_from(
    path: str,
    overrides: Overrides,
    *,
    cached: bool = True,
    say: Callable[[str], None] | None = None,
) -> tuple[Outputs, str | None]:
    """:func:`load_outputs`, and what came from the cache, in words (None: nothing);
    warnings and notes go to ``say`` (default: stderr)."""
    say = say or _stderr
    request = loading.Request(
        overrides=overrides, reuse_cache=cached, answer_from_cache=cached, outputs=True
    )
    result = loading.open(path, request)
    if isinstance(result, loading.CachedReport):
        outputs, source = result.outputs, "the whole answer (the run's files are unchanged)"
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
    for line in outputs.stderr_lines(path):
        say(line)
    return outputs, source


def check_run(
    path: str,
    overrides: Overrides,
    *,
    cached: bool = False,
    say: Callable[[str], None] | None = None,
) -> tuple[list[Any], Outputs, str | None]:
    """Where a run's stored metrics.json differs from its recomputation, the outputs, and
    what came from the cache (``cached=False``, as ``check``: every file is read).

    Raises:
        Unusable: the run cannot be read or scored, or has no readable metrics.json.
    """
    outputs, source = load_outputs_from(path, overrides, cached=cached, say=say)
    if outputs.stored_metrics_text is None:
        raise Unusable(f"{Path(path) / 'metrics.json'}: no readable stored metrics.json to check")
    from inspector.session import compare_reports

    stored = parse_json(outputs.stored_metrics_text.encode("utf-8"))
    return compare_reports(stored, json.loads(outputs.metrics_json)), outputs, source


def cmd_report(args: argparse.Namespace) -> int:
    outputs = load_outputs(args.path, _overrides(args))
    write_exact(outputs.summary_markdown if args.markdown else outputs.metrics_json)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from inspector.results.discover import is_run

    if os.path.isdir(args.path) and not is_run(Path(args.path)):
        from inspector.check_root import cmd_check_root

        return cmd_check_root(args, _overrides(args))
    as_json = getattr(args, "format", "text") == "json"
    try:
        # check reads what it judges: the cache stands in for reading only with --cached.
        outputs, source = load_outputs_from(args.path, _overrides(args), cached=args.cached)
        if args.cached and not as_json:
            print(f"--cached: from the cache: {source or 'nothing (every file was read)'}")
        if outputs.stored_metrics_text is None:
            raise Unusable(
                f"{Path(args.path) / 'metrics.json'}: no readable stored metrics.json to check"
            )
        # Parsed as the reader parses it (orjson, then the standard library).
        from inspector.session import compare_reports

        stored = parse_json(outputs.stored_metrics_text.encode("utf-8"))
        differences = compare_reports(stored, json.loads(outputs.metrics_json))
    except (Unusable, EngineError, HierarchyError) as exc:
        if as_json:
            problem = str(exc) if isinstance(exc, Unusable) else f"{args.path}: {exc}"
            _check_json(args.path, "unusable", None, [], problem)
        raise
    if as_json:
        status = "differs" if differences else "equal"
        _check_json(args.path, status, outputs.tasks, differences, None)
    elif not differences:
        print(f"ok: the stored metrics.json equals the recomputation ({outputs.tasks} tasks)")
    else:
        print(f"metrics.json differs from the recomputation in {len(differences)} places:")
        for difference in differences:
            print(f"  {visible(difference.line(), one_line=True)}")
    return EXIT_DIFFERS if differences else EXIT_OK


def _check_json(
    path: str, status: str, tasks: int | None, differences: Sequence[Any], problem: str | None
) -> None:
    """``check --format json``: one object (status equal / differs / unusable)."""
    data = {
        "path": path,
        "status": status,
        "tasks": tasks,
        "differences": [
            {"where": d.where, "stored": d.stored, "recomputed": d.recomputed} for d in differences
        ],
        "problem": problem,
    }
    write_exact(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


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
    app = _build_app(options)
    app.run()
    return int(app.return_code or 0)


def build_app(argv: list[str]) -> InspectorApp:
    """The app for ``inspector [PATH ...] [--watch SECONDS]``."""
    return _build_app(app_parser().parse_args(argv))


def _build_app(options: argparse.Namespace) -> InspectorApp:
    from inspector.loading.remote import local_path

    try:
        paths = [Path(local_path(p, say=_warn)) for p in options.paths]
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    # Before textual is imported (and starts threads): the run's cached report, or its
    # reader processes already at work.
    early = loading.prepare_app(paths)
    from inspector.app import InspectorApp, Settings

    settings = Settings(
        watch=options.watch is not None, watch_seconds=options.watch or 5.0, early=early
    )
    return InspectorApp(paths, settings=settings)


def cmd_serve(args: argparse.Namespace) -> int:
    from inspector.app import serve

    return serve(Path(args.path), host=args.host, port=args.port, max_sessions=args.max_sessions)


def _add_plan_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("plan overrides (derived plans are labelled as such)")
    group.add_argument("--k", type=int, help="score with k attempts (attempts 1..k of the run)")
    group.add_argument("--strategy", choices=["avg", "pass"], help="attempt strategy")
    group.add_argument("--aggregation", choices=["micro_weighted", "category_mean"])
    group.add_argument("--hierarchy", metavar="FILE", help="category_hierarchy JSON file")
    group.add_argument(
        "--contract", metavar="FILE",
        help="metric contract JSON: AgentCompass's MetricContract dump, or make_metric_contract's "
        "arguments",
    )  # fmt: skip
    group.add_argument(
        "--benchmark", metavar="ID", help="benchmark id (built-in contract and formulas)"
    )


def build_parser(*, audit_commands: bool = True) -> argparse.ArgumentParser:
    """The ``inspector`` parser; ``audit_commands=False`` leaves out ``tasks`` and ``diff``
    (their module loads the audit code: ``report`` and ``check`` start faster without)."""
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

    report = sub.add_parser(
        "report", help="print the recomputed report (metrics.json or summary.md)"
    )
    report.add_argument("path", help="a run directory or its URL (s3://, gs://, az://, https://)")
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="as metrics.json (default)")
    fmt.add_argument("--markdown", action="store_true", help="as summary.md")
    _add_plan_options(report)
    report.set_defaults(func=cmd_report)

    check = sub.add_parser(
        "check", help="exit 0 when the stored metrics.json equals the recomputation"
    )
    check.add_argument(
        "path", help="a run directory or its URL, or a results root (every run beneath it)"
    )
    check.add_argument(
        "--cached",
        action="store_true",
        help="let the cache stand in for reading unchanged files (faster; says what it used)",
    )
    check.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: one object with status (equal / differs / unusable), tasks, "
        "differences (where, stored, recomputed) and problem",
    )
    _add_plan_options(check)
    check.set_defaults(func=cmd_check)

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

    from inspector import leaderboard

    leaderboard.register(sub)

    if audit_commands:
        from inspector import cli_audit

        cli_audit.register(sub)
        from inspector import cli_export

        cli_export.register(sub)
        from inspector import cli_stats

        cli_stats.register(sub)
    return parser


def print_completion(shell: str) -> int:
    """A completion script for ``shell`` (shtab, from the parser itself): commands, options,
    choices, and folder / file names where a run directory or a FILE is asked for."""
    import shtab

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
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (argv[0] in COMMANDS or argv[0].startswith("--print-completion")
                 or argv[0] in ("-h", "--help")):  # fmt: skip
        parser = build_parser(audit_commands=argv[0] not in LIGHT_COMMANDS)
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
        _localize(args)
        with command_stdout():
            return int(args.func(args))
    except Unusable as exc:
        _stderr(f"inspector: {exc}")
        return EXIT_UNUSABLE
    except (EngineError, HierarchyError) as exc:
        _stderr(f"inspector: {getattr(args, 'path', '')}: {exc}")
        return EXIT_UNUSABLE
    except Exception as exc:  # never a traceback for bad data
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        _stderr(f"inspector: {getattr(args, 'path', '')}: {type(exc).__name__}: {exc}")
        return EXIT_UNUSABLE

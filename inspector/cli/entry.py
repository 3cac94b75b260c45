"""The ``inspector`` console script: SIGINT is taken (:mod:`inspector.cli.interrupts`)
before the command line is imported, so that a Ctrl-C during its imports ends it as one
at any other time does."""

from __future__ import annotations

from inspector.cli.interrupts import interruptible


def main() -> int:
    """``inspector``: :func:`inspector.cli.main.main`."""
    return interruptible(_command, restore=False)


def _command() -> int:
    from inspector.cli.main import main as command  # the command line: once SIGINT is taken

    return command()

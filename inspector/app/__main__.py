"""``python -m inspector.app [PATH ...]``: run the app (used by ``serve``)."""

from __future__ import annotations

import sys
from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.settings import Settings


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    InspectorApp([Path(a) for a in args], settings=Settings(ends_on_signals=True)).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

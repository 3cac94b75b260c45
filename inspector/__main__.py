"""`python -m inspector` is the `inspector` command."""

from __future__ import annotations

from inspector.cli.entry import main

if __name__ == "__main__":
    raise SystemExit(main())

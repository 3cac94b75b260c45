"""`python -m inspector` is the `inspector` command."""

from __future__ import annotations

from inspector.cli import main

raise SystemExit(main())

#!/usr/bin/env python3
"""Score many run directories with AgentCompass in one process (development only, not CI).

Run with the oracle's venv (AgentCompass imported once instead of once per run)::

    $ACVENV/bin/python tests/engine/oracle_batch.py RESULT.json RUN_DIR [RUN_DIR ...]

Each run is scored by ``/work/shared/oracle/ac_oracle.py``'s ``main([RUN_DIR])`` (its
``summary`` path), which writes ``metrics.json`` / ``summary.md`` into the run directory.
``RESULT.json`` maps each run directory to ``[accepted, last lines of stderr]``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.environ.get("ORACLE_DIR", "/work/shared/oracle"))

import ac_oracle  # the oracle's own module, on the path above


def score(run_dir: str) -> tuple[bool, str]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = ac_oracle.main([run_dir])
    except SystemExit as exc:
        return exc.code in (0, None), (err.getvalue() + str(exc.code))[-400:]
    except Exception as exc:  # AgentCompass refusing the run
        return False, f"{type(exc).__name__}: {exc}"[-400:]
    return code in (0, None), err.getvalue()[-400:]


def main(argv: list[str]) -> int:
    # Absolute first: the oracle changes the current folder while it scores.
    target, runs = os.path.abspath(argv[0]), [os.path.abspath(run) for run in argv[1:]]
    results = {run_dir: score(run_dir) for run_dir in runs}
    with open(target, "w", encoding="utf-8") as out:
        json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Reader processes see the environment of the process that made their pool, as a forked
process would, also when they come from the fork server, which keeps the environment it
started with: an app started after the cache folder changed (``XDG_CACHE_HOME``, as each
test sets its own) would otherwise keep its reports in the old folder, and find none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = """
import os
from inspector.loading import processes

def cache_home():
    return os.environ["XDG_CACHE_HOME"]

if __name__ == "__main__":
    os.environ["XDG_CACHE_HOME"] = "/first"
    processes.start_forkserver()
    print(processes.shared_pool().submit(cache_home).result())
    processes.shutdown_shared_pool()  # as an app ends
    os.environ["XDG_CACHE_HOME"] = "/second"  # the next app, with another folder
    print(processes.shared_pool().submit(cache_home).result())
    processes.end_pools()
"""


def test_a_new_shared_pool_sees_the_environment_of_now_not_the_fork_servers(tmp_path: Path) -> None:
    script = tmp_path / "pools.py"  # a file: the fork server's children import __main__
    script.write_text(SCRIPT)
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=environ
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["/first", "/second"]

"""The runs and roots a command reads, so that the cache is never kept inside them.

``XDG_CACHE_HOME`` or ``HOME`` may lie inside the results (GitLab CI caches only paths
under the project folder: ``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``, then ``inspector gate
.``). A command names what it reads with :func:`results_read`; the names go into its
environment, so the reader processes it starts know them too, and
:func:`inspector.loading.store.cache_root` gives no cache folder inside one of them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

RESULTS_READ = "INSPECTOR_RESULTS_READ"
"""The runs and roots read, as a JSON list of real paths in the environment."""


@contextlib.contextmanager
def results_read(paths: Iterable[str | os.PathLike[str]]) -> Iterator[None]:
    """While a command reads ``paths`` (runs or roots): nothing is cached inside them."""
    before = os.environ.get(RESULTS_READ)
    os.environ[RESULTS_READ] = json.dumps(sorted({os.path.realpath(p) for p in paths}))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(RESULTS_READ, None)
        else:
            os.environ[RESULTS_READ] = before


def inside_results(folder: Path) -> str | None:
    """The results read that ``folder`` (every link followed) lies inside, else None."""
    try:
        read = json.loads(os.environ.get(RESULTS_READ) or "[]")
    except ValueError:
        return None
    real = os.path.realpath(folder) + os.sep
    for results in read if isinstance(read, list) else ():
        if isinstance(results, str) and real.startswith(results.rstrip(os.sep) + os.sep):
            return results
    return None

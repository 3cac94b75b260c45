"""Keeping the cyclic garbage collector off the large, long-lived data of an open run.

A 50,000-task run is millions of small objects that live as long as the run is open. Each
full collection of the cyclic garbage collector walks all of them — about half a second
on the UI thread, at whatever moment allocation triggers it (a sort, a keystroke).
:func:`keep` moves everything alive into the collector's permanent generation
(:func:`gc.freeze`), where it is never walked; reference counting still frees it.
:func:`release` hands it back before a run is read again, so cycles among the replaced
data can still be collected. While a run is read and scored (in a worker), :func:`paused`
keeps the collector from walking the objects being built, over and over, as they pile up.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def keep() -> None:
    """Exempt every object alive now from full collections (call once a run is loaded)."""
    gc.freeze()


def release() -> None:
    """Let full collections see the exempted objects again (call before re-reading)."""
    gc.unfreeze()


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; what it built is then kept (:func:`keep`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        keep()
        if enabled:
            gc.enable()

"""A pool ended at once (Ctrl-C) leaves nothing for Python's exit hook to wake: 3.11's
``concurrent.futures.process._python_exit`` writes to each pool thread's wakeup pipe, racing
the thread closing it (EBADF, a traceback after ``interrupted``)."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import process as pools

from inspector.loading.processes import end_pool


def test_an_ended_pool_is_not_woken_at_exit() -> None:
    pool = ProcessPoolExecutor(max_workers=1)
    pool.submit(time.sleep, 30)
    thread = pool._executor_manager_thread
    assert thread is not None and thread in pools._threads_wakeups
    end_pool(pool, wait=5.0)
    assert thread not in pools._threads_wakeups
    thread.join(10)
    assert not thread.is_alive()

"""Where the sandbox's synchronous work runs: on the event loop, or in the thread pool.

Handlers, authentication of agents and the webhook worker's bookkeeping are synchronous
database work. None of it waits for anything the event loop does: its only wait is for the
database lock, whose other holders (the slow-payment settler thread, calls in the pool)
never wait for the loop while they hold it. So it runs on the event loop, one call at a
time, without a thread hop each (the hops were about a fifth of the sandbox's CPU).

While a seam has an alteration attached (a fault mode) the work goes to the thread pool as
before: an alteration may hold a window open for a concurrent request to slip in
(``execute-not-atomic`` sleeps between two transactions), which needs calls running side by
side.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool

from reference.kernel.settings import ServerSettings

P = ParamSpec("P")
T = TypeVar("T")


async def call_sync(
    settings: ServerSettings, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """``func(*args, **kwargs)``: on the event loop, or in the thread pool in a fault mode."""
    if settings.seams.attached:
        return await run_in_threadpool(func, *args, **kwargs)
    return func(*args, **kwargs)

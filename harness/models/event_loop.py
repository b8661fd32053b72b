"""The event loop games are played in: asyncio's own, except that LiteLLM's per-call set-up runs inline for
providers whose set-up never blocks.

`litellm.acompletion` hands its synchronous set-up (`completion`: mapping parameters, building the request and the
logging object) to the loop's default executor and awaits it. For most providers that set-up does no I/O, so the
thread hop buys nothing and costs on every call: a hand-off to a thread, a contest for the GIL, a wake-up of the
loop through its self-pipe, and a wait for the loop to come round to the result, which with hundreds of games in
flight is the time it takes to serve every other ready game. Here `run_in_executor` runs the first function a call
hands it at once and returns a finished future, when the calling task says that work cannot block
(harness.models.client says so only for providers whose set-up does no I/O); every other executor job, such as the
DNS lookup of a new connection, keeps its thread. The loop is asyncio's own (BENCHMARKS.md compares uvloop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_setup_inline: ContextVar[bool] = ContextVar("setup_inline", default=False)


class GameLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, whose default executor runs work inline for a task inside `run_inline(True)`."""

    def run_in_executor(  # type: ignore[override]  # typeshed spells *args with TypeVarTuple; same signature
        self, executor: Executor | None, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        if executor is not None or not _setup_inline.get():
            return super().run_in_executor(executor, func, *args)
        # One job only: the call's set-up. Whatever the task hands the executor later in the same block (a DNS
        # lookup for a new connection, say) and any task it starts go to threads as usual.
        _setup_inline.set(False)
        future: asyncio.Future[T] = self.create_future()
        try:
            future.set_result(func(*args))
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # delivered to the awaiting caller, as a thread's failure would be
            future.set_exception(exc)
        return future


@contextmanager
def run_inline(enabled: bool) -> Iterator[None]:
    """Within this block, the calling task's next default-executor job runs at once on the loop, if `enabled`: only
    for work known never to block (harness.models.client decides which providers' set-up qualifies); later jobs, and the
    tasks it starts, use threads as usual."""
    token = _setup_inline.set(enabled)
    try:
        yield
    finally:
        _setup_inline.reset(token)


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in a new GameLoop, as asyncio.run does."""
    with asyncio.Runner(loop_factory=GameLoop) as runner:
        return runner.run(main)

"""Provider back-offs announced to whoever shows progress: the retry layer (harness.models.client) says each wait as it
starts, the live display (harness.run.live_progress) counts them down. Nothing here changes how calls are retried."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

BackoffListener = Callable[[str, str | None, float], None]  # model, error kind, seconds until the retry

_listeners: list[BackoffListener] = []


def backoff(model: str, error_kind: str | None, wait_s: float) -> None:
    """Say that a call to `model` failed with `error_kind` and is retried in `wait_s` seconds."""
    for listener in list(_listeners):
        with contextlib.suppress(Exception):  # a display must never break a call
            listener(model, error_kind, wait_s)


@contextlib.contextmanager
def listening(listener: BackoffListener) -> Iterator[None]:
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)

"""SessionOptions: the resolved options of one session of play (games at once, worker processes, re-asks, provider
retries and waits, request deadlines, the display), the one object that goes from session/ (which resolves it,
harness.session.options) through run/ to the games, instead of each setting as a loose argument."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.schema.config import RetryPolicy, RunConfig
from harness.schema.records import SeatConfig


class SessionOptions(BaseModel):
    """The resolved options of one session."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int  # games in flight at once, across every run of the session
    workers: int = 1  # processes the games are spread over
    reply_retries: int  # re-asks after an invalid reply
    retry: RetryPolicy  # provider errors: retries and backoff waits
    timeout_s: float | None = None  # every seat's request deadline; None: each seat keeps its own
    model_limits: dict[str, int] = {}  # games in flight at once per model (a sweep's models[].concurrency)
    show_progress: bool = True
    yes: bool = True  # start a run of more than LARGE_RUN games without asking

    def over_run(self, config: RunConfig) -> RunConfig:
        """The run's configuration played with these options (its identity, and so its digest, stays)."""
        seats = config.seats
        if self.timeout_s is not None:
            seats = tuple(with_timeout(seat, self.timeout_s) for seat in seats)
        return config.model_copy(
            update={"seats": seats, "reply_retries": self.reply_retries, "retry": self.retry}
        )


def with_timeout(seat: SeatConfig, timeout_s: float) -> SeatConfig:
    """The seat with another request deadline (an operational setting: the run's identity stays)."""
    return seat.model_copy(update={"params": seat.params.model_copy(update={"timeout_s": timeout_s})})

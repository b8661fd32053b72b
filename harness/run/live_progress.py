"""The live progress display of a run (rich): games done, moves, running mean score, tokens and cost, provider
retries with their back-off waits counted down, and the time left at this session's pace of moves.
"""

from __future__ import annotations

import time
from collections import Counter
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from harness.schema.records import GameResult, MoveRecord


class _Stats(ProgressColumn):
    """The figures after the bar, re-rendered on every refresh so that countdowns tick."""

    def __init__(self, owner: RunProgress) -> None:
        super().__init__()
        self.owner = owner

    def render(self, task: Task) -> Text:
        return Text.from_markup(self.owner.stats())


def move_usage(record: MoveRecord) -> tuple[int, float, int]:
    """A move's tokens, its cost (0 when unknown) and whether that cost is unknown (1), as `moves_done` takes them."""
    cost = record.cost_usd
    return record.usage.total_tokens, cost or 0.0, int(cost is None)


class RunProgress:
    def __init__(
        self, total_games: int, enabled: bool, console: Console | None = None, expected_moves: int = 0
    ) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal
        self.moves = 0
        self.tokens = 0
        self.cost = 0.0  # over the moves whose cost is known
        self.unpriced_moves = 0  # moves of a model LiteLLM has no price for: their cost is unknown, not $0
        self.scores: list[int] = []
        self.interrupted = 0
        self.expected_moves = expected_moves
        self.started = time.monotonic()
        self.retries: Counter[str] = Counter()  # provider errors retried, by kind
        self.waits: list[float] = []  # when each back-off under way ends (monotonic seconds)
        self._progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            _Stats(self),
            TimeElapsedColumn(),
            console=self.console,
            disable=not self.enabled,
            refresh_per_second=4,
        )
        self._task = self._progress.add_task("games", total=total_games)

    def stats(self) -> str:
        mean = f"{sum(self.scores) / len(self.scores):.2f}" if self.scores else "-"
        parts = [f"moves {self.moves}", f"mean score {mean}", f"tokens {self.tokens:,}", self.cost_text()]
        if self.interrupted:
            parts.append(f"[red]interrupted {self.interrupted}[/red]")
        if self.retries:
            kinds = ", ".join(f"{kind} {n}" for kind, n in self.retries.most_common(3))
            parts.append(f"[yellow]provider retries {sum(self.retries.values())} ({kinds})[/yellow]")
        now = time.monotonic()
        self.waits = [end for end in self.waits if end > now]
        if self.waits:
            parts.append(
                f"[yellow]{len(self.waits)} waiting, next retry in {min(self.waits) - now:.0f}s[/yellow]"
            )
        eta = self.eta_s()
        parts.append(f"ETA {_duration(eta)}" if eta is not None else "ETA -")
        return " · ".join(parts)

    def cost_text(self) -> str:
        """The cost so far; "unpriced" while no move's cost is known, never $0 for an unknown price."""
        if self.unpriced_moves and self.unpriced_moves == self.moves:
            return "cost unpriced"
        return f"cost ${self.cost:.4f}" + (" + unpriced" if self.unpriced_moves else "")

    def eta_s(self) -> float | None:
        """Seconds left at this session's pace, or None before the first move (no pace yet)."""
        elapsed = time.monotonic() - self.started
        if not self.moves or not self.expected_moves or elapsed <= 0:
            return None
        return max(self.expected_moves - self.moves, 0) / (self.moves / elapsed)

    def moves_done(self, count: int, tokens: int, cost: float, unpriced: int = 0) -> None:
        """`count` moves played, `unpriced` of them of unknown cost (`cost` is the others')."""
        self.moves += count
        self.tokens += tokens
        self.cost += cost
        self.unpriced_moves += unpriced

    def backoff(self, model: str, error_kind: str | None, wait_s: float) -> None:
        """A provider error, retried after `wait_s` seconds (see harness.models.retry_events)."""
        self.retries[error_kind or "error"] += 1
        self.waits.append(time.monotonic() + wait_s)

    def game_done(self, result: GameResult) -> None:
        if result.status == "complete":
            self.scores.append(result.fireworks_score)
        else:
            self.interrupted += 1
        self._progress.update(self._task, advance=1)

    def __enter__(self) -> RunProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.__exit__(kind, exc, tb)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"

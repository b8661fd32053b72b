"""The live progress display of a run: games done, moves, running mean score, tokens and cost (rich)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.records import GameResult


class RunProgress:
    def __init__(self, total_games: int, enabled: bool, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal
        self.moves = 0
        self.tokens = 0
        self.cost = 0.0
        self.scores: list[int] = []
        self.interrupted = 0
        self._progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            console=self.console,
            disable=not self.enabled,
        )
        self._task = self._progress.add_task("games", total=total_games, stats=self._stats())

    def _stats(self) -> str:
        mean = f"{sum(self.scores) / len(self.scores):.2f}" if self.scores else "-"
        parts = [
            f"moves {self.moves}",
            f"mean score {mean}",
            f"tokens {self.tokens:,}",
            f"cost ${self.cost:.4f}",
        ]
        if self.interrupted:
            parts.append(f"[red]interrupted {self.interrupted}[/red]")
        return " · ".join(parts)

    def moves_done(self, count: int, tokens: int, cost: float) -> None:
        self.moves += count
        self.tokens += tokens
        self.cost += cost
        self._progress.update(self._task, stats=self._stats())

    def game_done(self, result: GameResult) -> None:
        if result.status == "complete":
            self.scores.append(result.fireworks_score)
        else:
            self.interrupted += 1
        self._progress.update(self._task, advance=1, stats=self._stats())

    def __enter__(self) -> RunProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.__exit__(kind, exc, tb)

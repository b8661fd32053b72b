"""The report's rows: a run, a game, a tracked move and a log the report could not read, filled by load.py."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.schema.log_file import GameStatus
from harness.view.tracking_score import Tracking


class RunInfo(BaseModel):
    """One run directory as recorded: configuration, provenance and how many of its games finished."""

    model_config = ConfigDict(frozen=True)

    name: str  # the folder's name, led by its parents where another run of the report has the same (run_labels)
    path: str
    run_id: str | None
    created_at: str | None
    models: list[str]
    scaffolds: list[str]
    params: list[str]  # generation parameters that were set, e.g. "temperature=0.3"
    players: list[int]
    seed_sets: list[str]
    seeds: list[int]
    git_commit: str | None
    git_dirty: bool | None
    harness_version: str | None
    header_commits: list[str]  # commits recorded by the game logs (a continued run can span several)
    status: str | None
    status_reason: str | None
    games_planned: int | None
    games_logged: int
    games_complete: int
    games_interrupted: int
    games_unfinished: int
    games_skipped: int  # logs that could not be read (named in the report's "Logs skipped")


class SkippedLog(BaseModel):
    """A game log (or judge file) the report could not read; it is named in a warning and left out."""

    model_config = ConfigDict(frozen=True)

    run: str
    path: str
    problem: str


class GameRow(BaseModel):
    """One game: where it ran, who played, its result. Scores of games that are not complete are not counted."""

    model_config = ConfigDict(frozen=True)

    run: str
    run_id: str
    game_id: str
    group: str
    model: str
    scaffold: str
    seats: str
    players: int
    seed_set: str
    seed: int
    deal: str  # the deck's digest (schema/cards.py deck_digest): games of one deal share it whatever set named the seed
    repeat: int  # which play of this seed; repeats of one deal count as one deal when pairing
    k: int | None  # best-of-k samples per move, when every seat uses the same k (1 for single-call scaffolds)
    seat_players: list[str]  # each seat's model:scaffold (and k, when the seat sets it), in position order
    status: GameStatus
    interrupted_reason: str | None
    end_reason: str | None
    fireworks_score: int | None  # at the end of a complete game, or at the interruption
    engine_score: int | None
    perfect: bool | None
    struck_out: bool | None
    moves: int
    lives_lost: int | None
    hints_given: int | None
    # Counted over every attempt of the game (its moves' calls and the failed calls of its interruptions):
    calls: int
    attempts: int
    retries: int
    invalid_replies: int
    provider_errors: int
    error_kinds: dict[str, int]  # attempts per error kind (an open set: whatever kinds the log holds)
    replies_cut: int = 0  # rejected replies (or reasoning) the log keeps only the start of (Attempt.cut)
    failed_moves: int  # moves that could not be made (one per interruption)
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost_usd: float | None  # None: not known (an attempt of an unpriced model, see total_cost), never a guessed $0
    latency_s: float  # summed over the logged moves' attempts
    cached_tokens: int = 0  # prompt tokens read from a provider's prompt cache (counted in prompt_tokens)
    cache_write_tokens: int = 0  # prompt tokens written to it
    cache_saving_usd: float | None = None  # what prompt caching saved (total_saving); None: nothing recorded


class TrackedMove(BaseModel):
    """A move of a complete game whose seat keeps working memory (Mycroft), with its measured state tracking."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    game_id: str
    group: str
    turn: int
    tracking: Tracking

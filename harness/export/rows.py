"""The schemas of every exported row and file: one pydantic model each, with a description per column.

Rows have a fixed set of columns with fixed types, so that every row of a file shares one Arrow schema: lists
instead of dicts keyed by move index, and variable nested data in a JSON string column (`extra`). The column
descriptions here are the ones the dataset card prints; change a column and its card entry changes with it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ChatMessage(BaseModel):
    """One chat message in the {"role", "content"} form chat templates and TRL read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class Rating(BaseModel):
    """One candidate move's rating, null where the reply gave none or an invalid one.

    Wrapped in an object rather than written as a bare number because pyarrow's JSON reader (which
    `datasets.load_dataset("json")` uses) corrupts a list of numbers whose first element is null: the list offsets
    count the null but the values do not, so every later list in the block shifts (apache/arrow#51305,
    huggingface/datasets#5531). A null field inside an object is read correctly.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    rating: float | None


class RowMeta(BaseModel):
    """The metadata columns every dataset row carries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="the run the game belongs to (manifest.json run_id)")
    game_id: str = Field(description="the game within its run, e.g. 2p-standard-seed3")
    seed: int = Field(description="the seed of the dealt deck")
    seed_set: str = Field(description="the seed set the seed came from (standard, heldout, custom, ...)")
    players: int = Field(description="number of players in the game, 2-5")
    seat: int = Field(description="the seat that moved, 0-based; seat 0 moves first")
    turn: int = Field(description="1-based number of the move in the game")
    model: str = Field(description="LiteLLM model string of the call (log rows) or of the seat (other rows)")
    scaffold: str = Field(description="prompt scaffold of the seat (watson, sherlock, mycroft, ...)")
    role: str = Field(
        description='the call\'s role within the move: "player" for single-call scaffolds; for multi-call ones '
        "sample-N, baseline or a specialist role, and the decider (selector, aggregator) that chose the move"
    )
    final_score: int = Field(description="fireworks at the end of the game (the paper's score)")
    engine_score: int = Field(description="the game's score with 0 after three strikes (AH2AC2 convention)")


class LogRow(RowMeta):
    """HanabiLogs: one model call of one move, as sent and received."""

    messages: list[ChatMessage] = Field(
        description="the final attempt's messages exactly as sent (system, user, and for a re-asked call the "
        "earlier bad reply and the harness's feedback), then the accepted reply as the last assistant message"
    )
    reasoning: str | None = Field(description="the provider's reasoning trace of the accepted reply, or null")
    attempts: int = Field(description="requests the call needed (1 = accepted at once)")


class DecisionRowMeta(RowMeta):
    """The metadata of a row about one decided move, and the prompt that decided it."""

    prompt: list[ChatMessage] = Field(
        description="the first request of the call that chose the move (system, user): the player call, or the "
        "decider of a multi-call scaffold"
    )


class RewardRow(DecisionRowMeta):
    """HanabiRewards: one decided move with the model's rating of every legal move."""

    completion: list[ChatMessage] = Field(
        description="the accepted reply, as a single assistant message (TRL's conversational prompt-completion)"
    )
    candidate_moves: list[str] = Field(
        description="the legal moves in the order the model saw them (HLE text)"
    )
    candidate_ratings: list[Rating] = Field(
        description="the model's rating in [-1, 1] of each candidate move, parallel to candidate_moves, as "
        '{"rating": x}; x is null where the reply gave none or an invalid one'
    )
    ratings_complete: bool = Field(description="true when every candidate move has a rating")
    chosen_move_index: int = Field(description="index into candidate_moves of the move played")
    chosen_move: str = Field(description="the move played (HLE text)")
    reason: str = Field(description="the reason the reply gave for its move")
    attempts: int = Field(description="requests the deciding call needed (1 = accepted at once)")
    extra: str = Field(
        description="JSON object string: invalid_ratings (move index -> value given), tracking (measured "
        "state tracking, Mycroft), memory (the seat's notes, Mycroft), move (the structured move)"
    )


class PreferenceRow(DecisionRowMeta):
    """Preferences: the best-rated move of a decision against one move the model rated lower."""

    chosen: list[ChatMessage] = Field(
        description="one assistant message: a reply in that call's output format choosing the best-rated move"
    )
    rejected: list[ChatMessage] = Field(
        description="one assistant message: the same reply choosing the lower-rated move"
    )
    chosen_move_index: int = Field(description="index of the best-rated move among the legal moves")
    chosen_move: str = Field(description="the best-rated move (HLE text)")
    chosen_rating: float = Field(description="the model's rating of the chosen move")
    rejected_move_index: int = Field(description="index of the lower-rated move")
    rejected_move: str = Field(description="the lower-rated move (HLE text)")
    rejected_rating: float = Field(description="the model's rating of the rejected move")
    rating_gap: float = Field(description="chosen_rating - rejected_rating (at least --margin)")
    played_move_index: int = Field(description="index of the move the model actually played")


class HanabLiveCard(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    suit_index: int = Field(alias="suitIndex")
    rank: int


class HanabLiveAction(BaseModel):
    """0 play and 1 discard (target: card order); 2 colour clue and 3 rank clue (target: player, value)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[0, 1, 2, 3]
    target: int
    value: int | None = None


class HanabLiveOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: Literal["No Variant"] = "No Variant"


class HanabLiveGame(BaseModel):
    """A replay in hanab.live's JSON game format ("Watch Specific Replay" -> "JSON data")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: list[str]
    deck: list[HanabLiveCard]
    actions: list[HanabLiveAction]
    options: HanabLiveOptions = HanabLiveOptions()


class SourceRunInfo(BaseModel):
    """A run an export read, with what identifies the code that played it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    path: str
    git_commits: list[str | None]  # the commits of the games' headers (a continued run may span several)
    git_dirty: bool | None  # the working tree was dirty when the run was created
    harness_version: str | None


class ExportedSeed(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed_set: str
    seed: int


class ExportedGame(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    game_id: str
    seed_set: str
    seed: int
    players: int
    fireworks_score: int
    engine_score: int


class Filters(BaseModel):
    """Which games and seats an export takes. An empty tuple or None means no restriction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: tuple[str, ...] = ()
    scaffolds: tuple[str, ...] = ()
    players: tuple[int, ...] = ()
    seed_sets: tuple[str, ...] = ()
    min_score: int | None = None
    margin: float | None = None  # preferences only


class ExportManifest(BaseModel):
    """export_manifest.json: what an export holds and how it was made; read by the contamination guard."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["hanabi-eval-export"] = "hanabi-eval-export"
    format: str
    created_at: str
    command: str
    harness_version: str
    files: list[str]
    filters: Filters
    rows: int
    games: int
    moves: int
    skipped_incomplete: int
    source_runs: list[SourceRunInfo]
    seeds: list[ExportedSeed]
    game_list: list[ExportedGame]

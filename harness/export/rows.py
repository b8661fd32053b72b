"""The schemas of every exported row and file. Rows have non-null columns, so every file of a kind shares one
Arrow schema (harness/export/schema.py); the column descriptions are the ones the dataset card prints."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.schema.cards import MAX_PLAYERS, MAX_SCORE, MIN_PLAYERS
from harness.schema.errors import Refused
from harness.schema.records import checked


class ChatMessage(BaseModel):
    """One chat message in the {"role", "content"} form chat templates and TRL read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class TrainMessage(ChatMessage):
    """A chat message with the per-message training weight that weighted SFT readers use (OpenAI fine-tuning's
    `weight`; Axolotl via `message_field_training`): 1 for the accepted reply, 0 for everything else."""

    weight: int


class RowMeta(BaseModel):
    """The metadata columns every dataset row carries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="the run the game belongs to (manifest.json run_id)")
    game_id: str = Field(description="the game within its run, e.g. 2p-standard-seed3")
    seed: int = Field(description="the seed of the dealt deck")
    seed_set: str = Field(description="the seed set the seed came from (standard, heldout, custom, ...)")
    repeat: int = Field(description="which play of the seed this game is (0 = the first); repeats share a deck")
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

    messages: list[TrainMessage] = Field(
        description="the call's first request (system, user) and the accepted reply as the last assistant message, "
        "each with a training `weight` (1 only on the accepted reply); with --repair-dialogue, the accepted "
        "attempt's messages exactly as sent instead, rejected replies and the harness's feedback included (weight 0)"
    )
    reasoning: str = Field(description="the provider's reasoning trace of the accepted reply; empty when none")
    attempts: int = Field(description="requests the call needed (1 = accepted at once)")
    rejected_replies: int = Field(
        description="replies of this call the harness rejected and re-asked (unparseable, illegal, ...)"
    )
    repair_dialogue: bool = Field(
        description="true when `messages` holds rejected replies and feedback (only with --repair-dialogue)"
    )


class DecisionRowMeta(RowMeta):
    """The metadata of a row about one decided move, and the prompt that decided it."""

    prompt: list[ChatMessage] = Field(
        description="the first request of the call that chose the move (system, user): the player call, or the "
        "decider of a multi-call scaffold; never a rejected reply or the harness's feedback"
    )
    rejected_replies: int = Field(
        description="replies of the deciding call the harness rejected before the accepted one"
    )


class RewardRow(DecisionRowMeta):
    """HanabiRewards: one decided move with the model's rating of every legal move."""

    completion: list[ChatMessage] = Field(
        description="the accepted reply, as a single assistant message (TRL's conversational prompt-completion)"
    )
    candidate_moves: list[str] = Field(
        description="the legal moves in the order the model saw them (HLE text)"
    )
    candidate_ratings: list[float] = Field(
        description="the model's rating in [-1, 1] of each candidate move, parallel to candidate_moves; 0.0 where "
        "candidate_rated is false"
    )
    candidate_rated: list[bool] = Field(
        description="parallel to candidate_moves: false where the reply gave no rating or an invalid one (the value "
        "given is in extra's invalid_ratings)"
    )
    ratings_complete: bool = Field(description="true when every candidate move has a rating")
    engine_values: list[float] = Field(
        description="parallel to candidate_moves: each move's expected final fireworks score when it is made and the "
        "team plays on with the built-in player, from `hanabi-eval values` rollouts; all 0.0 where engine_rollouts is 0"
    )
    engine_value_se: list[float] = Field(
        description="parallel to candidate_moves: the standard error of each engine value; 0.0 where "
        "engine_rollouts is 0 or 1 (a single rollout has no standard error)"
    )
    engine_rollouts: int = Field(
        description="rollouts behind each engine value (the values command's --rollouts); 0 when the decision has "
        "no values (not computed for its run, or before its --from-turn)"
    )
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
    chosen_rating: float = Field(
        description="the model's rating of the chosen move (in a repair pair 0.0 when the move was not rated)"
    )
    rejected_move_index: int = Field(description="index of the lower-rated move; -1 in a repair pair")
    rejected_move: str = Field(description="the lower-rated move (HLE text); empty in a repair pair")
    rejected_rating: float = Field(description="the model's rating of the rejected move; 0.0 in a repair pair")
    rating_gap: float = Field(
        description="chosen_rating - rejected_rating (at least --margin); 0.0 in a repair pair"
    )
    played_move_index: int = Field(description="index of the move the model actually played")
    pair_index: int = Field(
        description="0 for the move's pair against its worst-rated move; 1, 2, ... for further pairs of the same "
        "move (only with --pairs-per-move above 1), against moves rated progressively higher"
    )
    pair_kind: str = Field(
        description='"ratings": a pair of written replies from the model\'s ratings; "repair" (only with '
        "--repair-dialogue): the model's accepted reply chosen over a reply of the same call the harness rejected"
    )
    rejected_error: str = Field(
        description='for a "repair" pair, the error kind the harness gave the rejected reply (unparseable, '
        'illegal_move, ...); empty for "ratings" pairs'
    )


class HanabLiveCard(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    suit_index: int = Field(alias="suitIndex")
    rank: int


class HanabLiveAction(BaseModel):
    """0 play and 1 discard (target: card order); 2 colour clue and 3 rank clue (target: player, value)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[0, 1, 2, 3]
    target: int
    value: int = 0  # 0 on plays and discards, as hanab.live's validateJSON (command_replay_create.go) requires


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
    players: list[int] = []  # the player counts the seed was played at
    games: int = 1  # how many exported games were dealt from the seed (player counts, repeats and runs together)


class ExportedGame(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    game_id: str
    seed_set: str
    seed: int
    repeat: int = 0
    players: int
    fireworks_score: int
    engine_score: int


class Filters(BaseModel):
    """Which games and seats an export takes, each filter checked here. An empty tuple or None: no restriction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: tuple[str, ...] = ()
    scaffolds: tuple[str, ...] = ()
    players: tuple[int, ...] = ()
    seed_sets: tuple[str, ...] = ()
    min_score: int | None = None
    margin: float | None = None  # preferences only

    @field_validator("players")
    @classmethod
    def _players(cls, counts: tuple[int, ...]) -> tuple[int, ...]:
        if any(not MIN_PLAYERS <= players <= MAX_PLAYERS for players in counts):
            raise ValueError(f"is outside {MIN_PLAYERS}-{MAX_PLAYERS}")
        return counts

    @field_validator("min_score")
    @classmethod
    def _min_score(cls, score: int | None) -> int | None:
        if score is not None and not 0 <= score <= MAX_SCORE:
            raise ValueError(f"is outside 0-{MAX_SCORE}")
        return score

    @field_validator("margin")
    @classmethod
    def _margin(cls, margin: float | None) -> float | None:
        if margin is not None and not 0 < margin <= 2:
            raise ValueError("must be above 0 and at most 2 (ratings lie in [-1, 1])")
        return margin


class ExportOptions(BaseModel):
    """How the rows were built (not which games): the choices a reader of the data must know, checked here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repair_dialogue: bool = False  # hanabilogs: rejected replies kept in `messages` (weight 0); preferences: pairs
    pairs_per_move: int | None = None  # preferences: most pairs per decided move; None = every pair
    max_game_bytes: int | None = None  # preferences: a game's pairs beyond this size are left out, smallest gaps first


PREFERENCES_ONLY = ("margin", "pairs_per_move", "max_game_kb")  # options of --format preferences alone
DEFAULT_MARGIN = 0.5
DEFAULT_PAIRS_PER_MOVE = 1
DEFAULT_MAX_GAME_KB = 1000


def export_settings(fmt: str, given: dict[str, Any]) -> tuple[Filters, ExportOptions]:
    """The checked filters and options of a `fmt` export from `given` (option names to values; a
    `pairs_per_move` or `max_game_kb` of 0: no limit); an option of another format is refused."""
    for name in PREFERENCES_ONLY:
        if name in given and fmt != "preferences":
            raise Refused(f"{flag(name)} applies only to --format preferences")
    if given.get("repair_dialogue") and fmt not in ("hanabilogs", "preferences"):
        raise Refused("--repair-dialogue applies only to --format hanabilogs and preferences")
    preferences = fmt == "preferences"
    filters = checked(
        Filters,
        {
            **{key: tuple(given.get(key, ())) for key in ("models", "scaffolds", "players", "seed_sets")},
            "min_score": given.get("min_score"),
            "margin": given.get("margin", DEFAULT_MARGIN) if preferences else None,
        },
        flag,
    )
    repair = bool(given.get("repair_dialogue"))
    if not preferences:
        return filters, ExportOptions(repair_dialogue=repair)
    pairs = given.get("pairs_per_move", DEFAULT_PAIRS_PER_MOVE)
    budget = given.get("max_game_kb", DEFAULT_MAX_GAME_KB) * 1000
    return filters, ExportOptions(repair_dialogue=repair, pairs_per_move=pairs or None, max_game_bytes=budget or None)


def flag(option: str) -> str:
    """The export flag of an option: `--min-score` for min_score; the filters by model and scaffold are `--model`."""
    return "--" + {"models": "model", "scaffolds": "scaffold", "seed_sets": "seed_set"}.get(option, option).replace(
        "_", "-"
    )


class ReplayEnd(BaseModel):
    """Where hanab.live ends one exported game, beside where HLE ended it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    game_id: str
    file: str
    hle_moves: int
    hle_score: int
    hanablive_actions: int
    hanablive_score: int
    hanablive_end: str  # strikeout, final round, max score, no playable card, or "log ends" if hanab.live goes on


class PreferenceSize(BaseModel):
    """The measured size of a preferences file per game."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mean_bytes_per_game: int
    max_bytes_per_game: int
    max_game: str
    by_scaffold_players: dict[str, int]  # "scaffold/Np" -> mean bytes per game
    dropped_pairs: int = 0  # pairs left out to keep games within max_game_bytes


class EngineValuesSource(BaseModel):
    """Where a HanabiRewards export's engine values come from: one run's values files made with one setting."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    bot: str  # the built-in player that played the rollouts
    rollouts: int  # `hanabi-eval values --rollouts`
    base_seed: int  # `hanabi-eval values --seed`
    games: int  # exported games with values of these settings
    decisions: int  # exported rows with values of these settings


class ExportManifest(BaseModel):
    """export_manifest.json: what an export holds and how it was made; read by the contamination guard."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["hanabi-eval-export"] = "hanabi-eval-export"
    format: str
    schema_version: int = 1  # exports made before the schema was versioned are version 1
    options: ExportOptions = ExportOptions()
    created_at: str
    command: str
    harness_version: str
    files: list[str]
    filters: Filters
    rows: int
    games: int
    moves: int
    skipped_incomplete: int
    skipped_corrupt: list[str] = []  # game logs left out because a line is not a valid record
    source_runs: list[SourceRunInfo]
    seeds: list[ExportedSeed]
    game_list: list[ExportedGame]
    hle_played_on: int = 0  # hanablive: games HLE played on after hanab.live would have ended them
    replay_ends: list[ReplayEnd] = []  # hanablive only: every game's end on hanab.live beside HLE's
    preference_size: PreferenceSize | None = None  # preferences only
    engine_values: list[EngineValuesSource] = []  # hanabirewards only: the settings of the rows' engine values

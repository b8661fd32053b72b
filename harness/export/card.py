"""An export's dataset card (templates/dataset_card.md.j2) and manifest, counted from what was written."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from statistics import mean

import yaml
from pydantic import BaseModel, ConfigDict

from harness import __version__
from harness.export.engine_values import values_sources
from harness.export.hanablive import replay_with_end
from harness.export.rows import (
    EngineValuesSource,
    ExportedSeed,
    ExportManifest,
    ExportOptions,
    Filters,
    PreferenceSize,
    ReplayEnd,
    RowMeta,
    SourceRunInfo,
)
from harness.export.schema import ROW_MODELS, SCHEMA_VERSION, features, type_words
from harness.export.source import ExportGame, Selection
from harness.schema.errors import Refused
from harness.schema.paths import template_environment
from harness.schema.records import MoveRecord
from harness.schema.value_records import ValuesUnreadable


class Tally:
    """What the data files held, measured while they are written: rows, bytes per game, replay ends."""

    def __init__(self) -> None:
        self.rows = 0
        self.bytes = 0
        self.game_bytes: Counter[tuple[str, str]] = Counter()
        self.replay_ends: list[ReplayEnd] = []
        self.dropped = [0]  # preference pairs left out to keep games within the size budget (filled by the rows)

    def counted(self, game: ExportGame, line: str) -> str:
        """Count a line of a data file into the rows and the bytes (of its game)."""
        size = len(line.encode("utf-8"))
        self.rows += 1
        self.bytes += size
        self.game_bytes[(game.run_id, game.header.game_id)] += size
        return line

    def lines(self, rows: Iterable[tuple[ExportGame, BaseModel]]) -> Iterator[str]:
        for game, row in rows:
            yield self.counted(game, row.model_dump_json() + "\n")

    def replay(self, game: ExportGame, moves: list[MoveRecord]) -> Iterator[str]:
        data, end = replay_with_end(game, moves)
        self.replay_ends.append(end)
        yield self.counted(game, data.model_dump_json(by_alias=True) + "\n")  # hanab.live's field names

    def preference_size(self, selection: Selection) -> PreferenceSize:
        """Bytes per game over every selected game (a game without a pair counts as 0 bytes)."""
        keys = [(g.run_id, g.header.game_id) for g in selection.games]
        sizes = {key: self.game_bytes.get(key, 0) for key in keys}
        groups: dict[str, list[int]] = {}
        for game in selection.games:
            scaffolds = "+".join(sorted({game.header.seats[s].scaffold for s in game.seats}))
            key = f"{scaffolds}/{game.header.players}p"
            groups.setdefault(key, []).append(sizes[(game.run_id, game.header.game_id)])
        largest = max(sizes, key=lambda k: sizes[k])
        return PreferenceSize(
            mean_bytes_per_game=round(mean(sizes.values())),
            max_bytes_per_game=sizes[largest],
            max_game=f"{largest[0]}/{largest[1]}",
            by_scaffold_players={k: round(mean(v)) for k, v in sorted(groups.items())},
            dropped_pairs=self.dropped[0],
        )


class Column(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    description: str


class ScoreLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    players: int
    games: int
    mean: float
    minimum: int
    maximum: int
    engine_mean: float


class RunSeeds(BaseModel):
    """The seeds one run contributed at one player count, and how many plays of each."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    seed_set: str
    players: int
    seeds: list[int]
    plays: dict[int, int]  # seed -> plays exported (more than 1 with repeats)


class CardFacts(BaseModel):
    """Everything the card template prints, already counted."""

    model_config = ConfigDict(frozen=True)

    format: str
    schema_version: int
    options: ExportOptions
    dataset_info: str  # the YAML of the card's dataset_info (features and split size), from the declared schema
    run_seeds: list[RunSeeds]
    corrupt: list[str]
    replay_ends: list[ReplayEnd]  # hanablive: the games hanab.live ends before HLE did
    replays_cut: int
    preference_size: PreferenceSize | None
    dropped_pairs: int
    engine_values: list[EngineValuesSource]  # hanabirewards: the settings of the rows' engine values, per run
    valued_rows: int  # hanabirewards: rows with engine values
    data_files: list[str]
    rows: int
    games: int
    moves: int
    skipped_incomplete: int
    models: list[str]
    scaffolds: list[str]
    players: list[int]
    seeds: dict[str, list[int]]
    score_counts: list[tuple[int, int]]  # (fireworks score, games)
    scores: list[ScoreLine]  # per player count
    overall: ScoreLine | None
    command: str
    created_at: str
    source_runs: list[SourceRunInfo]
    filters: Filters
    data_columns: list[Column]
    meta_columns: list[Column]


def columns(schema: type[BaseModel], own: bool) -> list[Column]:
    """The schema's columns: its own (own=True) or the shared metadata columns."""
    shared = set(RowMeta.model_fields)
    return [
        Column(name=name, type=type_words(schema, name), description=field.description or "")
        for name, field in schema.model_fields.items()
        if (name not in shared) == own
    ]


def dataset_info(fmt: str, rows: int, size: int) -> str:
    """The card's `dataset_info` block: the declared features and the split's rows and bytes, as YAML."""
    split = {"name": "train", "num_bytes": size, "num_examples": rows}
    info = {"features": features(ROW_MODELS[fmt]), "splits": [split]}
    return yaml.safe_dump({"dataset_info": info}, sort_keys=False).rstrip("\n")


def run_seeds(selection: Selection) -> list[RunSeeds]:
    plays: dict[tuple[str, str, int], Counter[int]] = {}
    for game in selection.games:
        key = (game.run_id, game.header.seed_set, game.header.players)
        plays.setdefault(key, Counter())[game.header.seed] += 1
    return [
        RunSeeds(run_id=r, seed_set=s, players=p, seeds=sorted(c), plays=dict(sorted(c.items())))
        for (r, s, p), c in sorted(plays.items())
    ]


def _score_line(players: int, scores: list[tuple[int, int]]) -> ScoreLine:
    fireworks = [s for s, _ in scores]
    return ScoreLine(
        players=players,
        games=len(scores),
        mean=round(mean(fireworks), 2),
        minimum=min(fireworks),
        maximum=max(fireworks),
        engine_mean=round(mean(e for _, e in scores), 2),
    )


def exported_moves(fmt: str, selection: Selection, tally: Tally) -> int:
    """The moves the data holds: a replay's whole game (HLE's count), a dataset's selected seats' moves."""
    return sum(end.hle_moves for end in tally.replay_ends) if fmt == "hanablive" else selection.moves


def card_facts(
    fmt: str,
    selection: Selection,
    tally: Tally,
    data_files: list[str],
    command: str,
    created_at: str,
    filters: Filters,
    options: ExportOptions,
) -> CardFacts:
    games = selection.games
    seats = [g.header.seats[s] for g in games for s in sorted(g.seats)]
    by_players: dict[int, list[tuple[int, int]]] = {}
    seeds: dict[str, set[int]] = {}
    for game in games:
        score = (game.result.fireworks_score, game.result.engine_score)
        by_players.setdefault(game.header.players, []).append(score)
        seeds.setdefault(game.header.seed_set, set()).add(game.header.seed)
    schema = ROW_MODELS[fmt]
    sources = _engine_sources(selection) if fmt == "hanabirewards" else []
    cut = [end for end in tally.replay_ends if end.hanablive_actions < end.hle_moves]
    return CardFacts(
        format=fmt,
        schema_version=SCHEMA_VERSION,
        options=options,
        dataset_info=dataset_info(fmt, tally.rows, tally.bytes),
        dropped_pairs=tally.dropped[0],
        engine_values=sources,
        valued_rows=sum(s.decisions for s in sources),
        run_seeds=run_seeds(selection),
        corrupt=selection.corrupt,
        replay_ends=cut,
        replays_cut=len(cut),
        preference_size=tally.preference_size(selection) if fmt == "preferences" else None,
        data_files=data_files,
        rows=tally.rows,
        games=len(games),
        moves=exported_moves(fmt, selection, tally),
        skipped_incomplete=selection.skipped_incomplete,
        models=sorted({s.model for s in seats}),
        scaffolds=sorted({s.scaffold for s in seats}),
        players=sorted(by_players),
        seeds={name: sorted(found) for name, found in sorted(seeds.items())},
        score_counts=sorted(Counter(g.result.fireworks_score for g in games).items()),
        scores=[_score_line(p, s) for p, s in sorted(by_players.items())],
        overall=_score_line(0, [s for scores in by_players.values() for s in scores]),
        command=command,
        created_at=created_at,
        source_runs=selection.runs,
        filters=filters,
        data_columns=columns(schema, own=True),
        meta_columns=columns(schema, own=False) if fmt != "hanablive" else [],
    )


def _engine_sources(selection: Selection) -> list[EngineValuesSource]:
    try:
        return values_sources(selection)
    except ValuesUnreadable as exc:
        raise Refused(f"{exc}; delete that file and run `hanabi-eval values` on the run again") from None


TEMPLATES = Path(__file__).with_name("templates")  # the export's own templates, beside its code


def render_card(facts: CardFacts) -> str:
    """The dataset card (README.md of an export); runs of blank lines collapse to one."""
    text = template_environment(TEMPLATES).get_template("dataset_card.md.j2").render(card=facts)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def manifest(facts: CardFacts, selection: Selection, tally: Tally) -> ExportManifest:
    seeds: dict[tuple[str, int], list[int]] = {}
    for game in selection.games:
        seeds.setdefault((game.header.seed_set, game.header.seed), []).append(game.header.players)
    return ExportManifest(
        format=facts.format,
        schema_version=facts.schema_version,
        options=facts.options,
        created_at=facts.created_at,
        command=facts.command,
        harness_version=__version__,
        files=[*facts.data_files, "README.md"],
        filters=facts.filters,
        rows=facts.rows,
        games=facts.games,
        moves=facts.moves,
        skipped_incomplete=facts.skipped_incomplete,
        skipped_corrupt=selection.corrupt,
        source_runs=selection.runs,
        seeds=[
            ExportedSeed(seed_set=s, seed=n, players=sorted(set(p)), games=len(p))
            for (s, n), p in sorted(seeds.items())
        ],
        game_list=[g.summary() for g in selection.games],
        hle_played_on=facts.replays_cut,
        replay_ends=tally.replay_ends,
        preference_size=facts.preference_size,
        engine_values=facts.engine_values,
    )

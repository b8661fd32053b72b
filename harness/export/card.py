"""The dataset card (README.md) and the machine-readable manifest (export_manifest.json) of an export.

Every number here is counted from the selection and the rows actually written; the wording is in
prompts/export_card.md.j2. Column descriptions come from the row schemas, so the card always matches the file.
"""

from __future__ import annotations

import types
import typing
from collections import Counter
from statistics import mean
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness import __version__
from harness.export.rows import (
    ChatMessage,
    ExportedSeed,
    ExportManifest,
    Filters,
    LogRow,
    PreferenceRow,
    Rating,
    RewardRow,
    RowMeta,
    SourceRunInfo,
)
from harness.export.source import Selection

ROW_SCHEMAS: dict[str, type[BaseModel]] = {
    "hanabilogs": LogRow,
    "hanabirewards": RewardRow,
    "preferences": PreferenceRow,
}


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


class CardFacts(BaseModel):
    """Everything the card template prints, already counted."""

    model_config = ConfigDict(frozen=True)

    format: str
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


def type_name(annotation: Any) -> str:
    """A column type in words: 'list of {role, content} messages', 'string or null', ..."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in args if a is not type(None)]
        return " or ".join(type_name(a) for a in inner) + (" or null" if len(inner) < len(args) else "")
    if origin is list:
        return f"list of {type_name(args[0])}"
    if annotation is ChatMessage:
        return "{role, content} messages"
    if annotation is Rating:
        return "{rating} objects"
    names = {str: "string", int: "int", float: "float", bool: "bool"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def columns(schema: type[BaseModel], own: bool) -> list[Column]:
    """The schema's columns: its own (own=True) or the shared metadata columns."""
    shared = set(RowMeta.model_fields)
    return [
        Column(name=name, type=type_name(field.annotation), description=field.description or "")
        for name, field in schema.model_fields.items()
        if (name not in shared) == own
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


def card_facts(
    fmt: str,
    selection: Selection,
    rows: int,
    data_files: list[str],
    command: str,
    created_at: str,
    filters: Filters,
) -> CardFacts:
    games = selection.games
    seats = [g.header.seats[s] for g in games for s in sorted(g.seats)]
    by_players: dict[int, list[tuple[int, int]]] = {}
    seeds: dict[str, set[int]] = {}
    for game in games:
        score = (game.result.fireworks_score, game.result.engine_score)
        by_players.setdefault(game.header.players, []).append(score)
        seeds.setdefault(game.header.seed_set, set()).add(game.header.seed)
    schema = ROW_SCHEMAS.get(fmt)
    return CardFacts(
        format=fmt,
        data_files=data_files,
        rows=rows,
        games=len(games),
        moves=selection.moves,
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
        data_columns=columns(schema, own=True) if schema else [],
        meta_columns=columns(schema, own=False) if schema else [],
    )


def render_card(facts: CardFacts) -> str:
    from harness.scaffold import render_template

    return render_template("export_card.md.j2", card=facts)


def manifest(facts: CardFacts, selection: Selection) -> ExportManifest:
    pairs = sorted({(g.header.seed_set, g.header.seed) for g in selection.games})
    return ExportManifest(
        format=facts.format,
        created_at=facts.created_at,
        command=facts.command,
        harness_version=__version__,
        files=[*facts.data_files, "README.md"],
        filters=facts.filters,
        rows=facts.rows,
        games=facts.games,
        moves=facts.moves,
        skipped_incomplete=facts.skipped_incomplete,
        source_runs=selection.runs,
        seeds=[ExportedSeed(seed_set=s, seed=n) for s, n in pairs],
        game_list=[g.summary() for g in selection.games],
    )

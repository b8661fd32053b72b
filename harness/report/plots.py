"""The report's figures, drawn with matplotlib's Agg canvas and returned as PNG data URIs for embedding.

Each function takes figures already computed elsewhere and only draws them; it returns None when there is nothing
to draw. No pyplot state is used, so drawing is deterministic and safe to repeat.
"""

from __future__ import annotations

import base64
import io
import textwrap
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.cards import MAX_SCORE
from harness.report.load import GameRow
from harness.report.references import Convention, Reference
from harness.report.summary import HeatCell, PlayersSummary
from harness.report.tracking import TrackingByTurn

_PALETTE = [
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
]


def _wrap(text: str, width: int = 38) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def colors_for(groups: Sequence[str]) -> dict[str, str]:
    return {group: _PALETTE[i % len(_PALETTE)] for i, group in enumerate(sorted(groups))}


def _data_uri(figure: Figure) -> str:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def scores_by_players(
    summaries: Sequence[PlayersSummary],
    convention: Convention,
    references: Sequence[Reference],
    colors: dict[str, str],
) -> str | None:
    """Mean score per player count for each group, with its 95% bootstrap interval; published self-play scores
    under the same convention drawn as labelled dashed segments at their player count."""
    if not summaries:
        return None
    counts = sorted({s.players for s in summaries})
    groups = sorted({s.group for s in summaries})
    position = {players: i for i, players in enumerate(counts)}
    figure = Figure(figsize=(max(6.0, 2.6 * len(counts) + 1.5), 4.8))
    axes = figure.add_subplot()
    width = 0.6
    for index, group in enumerate(groups):
        offset = (index - (len(groups) - 1) / 2) * (width / max(len(groups), 1))
        for summary in (s for s in summaries if s.group == group):
            stats = summary.fireworks if convention == "fireworks" else summary.engine
            if stats.mean is None:
                continue
            x = position[summary.players] + offset
            if stats.mean_ci is not None:
                low, high = stats.mean - stats.mean_ci.low, stats.mean_ci.high - stats.mean
                axes.errorbar(
                    x, stats.mean, yerr=[[low], [high]], color=colors[group], capsize=3, lw=1.2, zorder=3
                )
            axes.plot(x, stats.mean, "o", color=colors[group], zorder=4)
        axes.plot([], [], "o", color=colors[group], label=_wrap(group))
    drawn = False
    for reference in references:
        for players in counts:
            if reference.applies_to(convention, players):
                x = position[players]
                axes.hlines(
                    reference.score, x - 0.45, x + 0.45, colors="#555555", linestyles="dashed", lw=1, zorder=1
                )
                axes.annotate(
                    f"{reference.label} {reference.score:g} ({reference.cite})",
                    (x - 0.45, reference.score),
                    xytext=(0, 2),
                    textcoords="offset points",
                    fontsize=6.5,
                    color="#444444",
                    zorder=2,
                    bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 0.3},
                )
                drawn = True
    if drawn:
        axes.plot([], [], ls="dashed", color="#555555", lw=1, label="published self-play score")
    axes.set_xticks(range(len(counts)), [f"{p} players" for p in counts])
    axes.set_xlim(-0.6, len(counts) - 0.4)
    axes.set_ylim(-0.8, MAX_SCORE + 1)
    axes.set_ylabel("mean score" + (" (0 after three strikes)" if convention != "fireworks" else ""))
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=8, frameon=False)
    return _data_uri(figure)


def scaffold_model_heatmap(cells: Sequence[HeatCell]) -> str | None:
    """Mean fireworks score of each scaffold (rows) with each model (columns)."""
    if not cells:
        return None
    scaffolds = sorted({c.scaffold for c in cells})
    models = sorted({c.model for c in cells})
    grid = np.full((len(scaffolds), len(models)), np.nan)
    games = np.zeros_like(grid, dtype=int)
    for cell in cells:
        row, column = scaffolds.index(cell.scaffold), models.index(cell.model)
        grid[row, column] = cell.mean
        games[row, column] = cell.games
    figure = Figure(figsize=(max(4.5, 1.9 * len(models) + 2.5), max(2.5, 0.8 * len(scaffolds) + 1.6)))
    axes = figure.add_subplot()
    image = axes.imshow(np.ma.masked_invalid(grid), cmap="viridis", vmin=0, vmax=MAX_SCORE, aspect="auto")
    for (row, column), value in np.ndenumerate(grid):
        text = "no games" if np.isnan(value) else f"{value:.2f}\nn={games[row, column]}"
        shade = "#444444" if np.isnan(value) else "white" if value < 15 else "black"
        axes.text(column, row, text, ha="center", va="center", fontsize=9, color=shade)
    axes.set_xticks(range(len(models)), [_wrap(m, 22) for m in models], fontsize=8)
    axes.set_yticks(range(len(scaffolds)), scaffolds, fontsize=8)
    axes.set_xlabel("model")
    axes.set_ylabel("scaffold")
    figure.colorbar(image, ax=axes, label="mean score")
    return _data_uri(figure)


def score_distributions(rows: Sequence[GameRow], colors: dict[str, str]) -> str | None:
    """How many complete games ended at each fireworks score, one panel per group, with the mean marked."""
    scores: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        if row.status == "complete" and row.fireworks_score is not None:
            scores[row.group].append(row.fireworks_score)
    if not scores:
        return None
    groups = sorted(scores)
    columns = min(3, len(groups))
    lines = -(-len(groups) // columns)
    figure = Figure(figsize=(4.2 * columns, 2.8 * lines))
    for index, group in enumerate(groups):
        axes = figure.add_subplot(lines, columns, index + 1)
        values = scores[group]
        counts = np.bincount(values, minlength=MAX_SCORE + 1)
        axes.bar(range(MAX_SCORE + 1), counts, color=colors[group], width=0.85)
        axes.axvline(float(np.mean(values)), color="black", ls="dashed", lw=1)
        axes.set_title(_wrap(f"{group} ({len(values)} games)", 45), fontsize=8)
        axes.set_xlim(-0.7, MAX_SCORE + 0.7)
        axes.set_xlabel("score", fontsize=8)
        axes.set_ylabel("games", fontsize=8)
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.tick_params(labelsize=7)
    figure.tight_layout()
    return _data_uri(figure)


def tracking_over_turns(rows: Sequence[TrackingByTurn]) -> str | None:
    """Measured state-tracking accuracy per bin of turns: one line of two panels (own hand, others) per group."""
    if not rows:
        return None
    groups = sorted({r.group for r in rows})
    figure = Figure(figsize=(10, 2.8 * len(groups)))
    styles = {"exact": ("exact match", "-"), "precision": ("precision", "--"), "recall": ("recall", ":")}
    for line, group in enumerate(groups):
        mine = [r for r in rows if r.group == group]
        turns = [(r.first_turn + r.last_turn) / 2 for r in mine]
        for column, side in enumerate(("own", "others")):
            axes = figure.add_subplot(len(groups), 2, 2 * line + column + 1)
            for measure, (label, style) in styles.items():
                values = [getattr(r, f"{side}_{measure}") for r in mine]
                axes.plot(turns, values, style, marker="o", ms=3, label=label)
            title = "own hand" if side == "own" else "other players' knowledge"
            axes.set_title(_wrap(f"{group}: {title}", 55), fontsize=8)
            axes.set_ylim(-0.03, 1.03)
            axes.set_xlabel("turn", fontsize=8)
            axes.tick_params(labelsize=7)
            axes.grid(alpha=0.3)
            if line == 0 and column == 0:
                axes.legend(fontsize=7)
    figure.tight_layout()
    return _data_uri(figure)

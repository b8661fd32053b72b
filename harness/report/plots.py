"""The report's figures, drawn with matplotlib's Agg canvas (no pyplot state, so drawing is deterministic) and
returned as PNG data URIs; None when there is nothing to draw."""

from __future__ import annotations

import base64
import io
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from harness.report.bestofk import KPoint
from harness.report.costs import Spend
from harness.report.crossplay import CrossPlay, matrix
from harness.report.references import Convention, Reference
from harness.report.rows import GameRow
from harness.report.stats import Interval
from harness.report.summary import HeatCell, PlayersSummary
from harness.report.tracking import TrackingByTurn
from harness.schema.cards import MAX_SCORE

_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
_PALETTE += ["#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]


def _wrap(text: str, width: int = 38) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def colors_for(groups: Sequence[str]) -> dict[str, str]:
    return {group: _PALETTE[i % len(_PALETTE)] for i, group in enumerate(sorted(groups))}


def _data_uri(figure: Figure) -> str:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _error_bar(mean: float, interval: Interval) -> list[list[float]]:
    """matplotlib's yerr for an interval around `mean`: never negative, though a percentile bootstrap interval is not
    bound to hold the sample mean (or may miss it by a rounding error)."""
    return [[max(mean - interval.low, 0.0)], [max(interval.high - mean, 0.0)]]


def _key_below(axes: Axes, **title: Any) -> None:
    """The key of the plotted groups, below the plot."""
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8, frameon=False, **title)


def _spread(values: list[float], gap: float) -> list[float]:
    """Label positions near `values` (sorted ascending) with at least `gap` between neighbours."""
    placed: list[float] = []
    for value in values:
        placed.append(max(value, placed[-1] + gap) if placed else value)
    overflow = placed[-1] - (MAX_SCORE + 0.5) if placed else 0.0
    if overflow > 0:  # pushed past the top: shift the stack down as a whole
        placed = [p - overflow for p in placed]
    return placed


def scores_by_players(
    summaries: Sequence[PlayersSummary],
    convention: Convention,
    references: Sequence[Reference],
    colors: dict[str, str],
) -> str | None:
    """Mean score per player count for each group, with its 95% bootstrap interval; published self-play scores
    under the same convention drawn as dashed segments at their player count, each tagged with a number that the
    key beside the plot names (agent, score, source), so labels never overlap."""
    if not summaries:
        return None
    counts = sorted({s.players for s in summaries})
    groups = sorted({s.group for s in summaries})
    position = {players: i for i, players in enumerate(counts)}
    figure = Figure(figsize=(max(7.0, 2.4 * len(counts) + 3.0), 5.2))
    axes = figure.add_subplot()
    width = 0.5
    for index, group in enumerate(groups):
        offset = (index - (len(groups) - 1) / 2) * (width / max(len(groups), 1))
        for summary in (s for s in summaries if s.group == group):
            stats = summary.fireworks if convention == "fireworks" else summary.engine
            if stats.mean is None:
                continue
            x = position[summary.players] + offset
            if stats.mean_ci is not None:
                axes.errorbar(
                    x,
                    stats.mean,
                    yerr=_error_bar(stats.mean, stats.mean_ci),
                    color=colors[group],
                    capsize=3,
                    lw=1.2,
                    zorder=3,
                )
            axes.plot(x, stats.mean, "o", color=colors[group], zorder=4)
        axes.plot([], [], "o", color=colors[group], label=_wrap(group))
    key: list[tuple[int, str]] = []
    for players in counts:
        drawn = sorted(
            (r for r in references if r.applies_to(convention, players)), key=lambda r: (r.score, r.label)
        )
        x = position[players]
        tags = _spread([r.score for r in drawn], gap=1.0)
        for reference, tag_y in zip(drawn, tags, strict=True):
            number = len(key) + 1
            key.append((number, f"{reference.label}: {reference.score:g} ({reference.cite}), {players}p"))
            axes.hlines(
                reference.score, x - 0.4, x + 0.4, colors="#666666", linestyles="dashed", lw=1, zorder=1
            )
            axes.plot([x + 0.4, x + 0.44], [reference.score, tag_y], color="#999999", lw=0.6, zorder=1)
            axes.text(
                x + 0.45,
                tag_y,
                str(number),
                fontsize=8,
                va="center",
                ha="left",
                color="#333333",
                zorder=2,
                bbox={"facecolor": "white", "edgecolor": "#bbbbbb", "boxstyle": "round,pad=0.15", "lw": 0.5},
            )
    axes.set_xticks(range(len(counts)), [f"{p} players" for p in counts])
    axes.set_xlim(-0.6, len(counts) - 0.3)
    axes.set_ylim(-0.8, MAX_SCORE + 1)
    axes.set_xlabel("player count")
    axes.set_ylabel(
        "mean score out of 25" + (" (0 after three strikes)" if convention != "fireworks" else "")
    )
    title = "fireworks at the end (main score)" if convention == "fireworks" else "0 after three strikes"
    axes.set_title(f"Mean score per player count, {title}, with 95% bootstrap intervals", fontsize=10)
    axes.grid(axis="y", alpha=0.3)
    if key:
        marker_handles: list[Artist] = [
            Line2D([], [], ls="none", marker=f"${n}$", color="#333333", ms=7 + 2 * len(str(n)))
            for n, _ in key
        ]
        references_key = axes.legend(
            marker_handles,
            [_wrap(text, 48) for _, text in key],
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=8,
            frameon=False,
            title="published self-play scores (dashed)",
            title_fontsize=8,
        )
        axes.add_artist(references_key)
        references_key.set_clip_on(False)  # add_artist clips to the axes; the key sits beside them
    _key_below(axes, title="groups (points: mean; bars: 95% interval)", title_fontsize=8)
    return _data_uri(figure)


def scaffold_model_heatmap(cells: Sequence[HeatCell]) -> str | None:
    """Mean fireworks score of each scaffold (rows) with each model (columns); None for fewer than two cells, which
    compare nothing."""
    scaffolds = sorted({c.scaffold for c in cells})
    models = sorted({c.model for c in cells})
    if len(scaffolds) * len(models) < 2:
        return None
    grid = np.full((len(scaffolds), len(models)), np.nan)
    games = np.zeros_like(grid, dtype=int)
    for cell in cells:
        row, column = scaffolds.index(cell.scaffold), models.index(cell.model)
        grid[row, column] = cell.mean
        games[row, column] = cell.games
    figure = Figure(figsize=(max(4.5, 1.9 * len(models) + 2.5), max(2.5, 0.8 * len(scaffolds) + 1.6)))
    axes = figure.add_subplot()
    image = _score_cells(axes, grid, games, 9)
    axes.set_xticks(range(len(models)), [_wrap(m, 22) for m in models], fontsize=8)
    axes.set_yticks(range(len(scaffolds)), scaffolds, fontsize=8)
    axes.set_xlabel("model")
    axes.set_ylabel("scaffold")
    axes.set_title(
        "Mean score by scaffold and model (fireworks at the end, player counts pooled)", fontsize=10
    )
    figure.colorbar(image, ax=axes, label="mean score out of 25")
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
        games = f"{len(values)} game{'s' if len(values) != 1 else ''}"
        axes.set_title(_wrap(f"{group} ({games})", 45), fontsize=8)
        axes.set_xlim(-0.7, MAX_SCORE + 0.7)
        axes.set_xlabel("score", fontsize=8)
        axes.set_ylabel("games", fontsize=8)
        cast(MaxNLocator, axes.yaxis.get_major_locator()).set_params(integer=True)
        axes.tick_params(labelsize=7)
    figure.suptitle(
        "Score distributions of complete games (fireworks at the end; dashed: the mean)", fontsize=10
    )
    figure.tight_layout()
    return _data_uri(figure)


def _score_cells(axes: Axes, means: np.ndarray, games: np.ndarray, empty_size: int) -> AxesImage:
    """Draw a grid of mean scores (NaN: no games), each cell labelled with its mean and games."""
    image = axes.imshow(np.ma.masked_invalid(means), cmap="viridis", vmin=0, vmax=MAX_SCORE, aspect="auto")
    for (row, column), value in np.ndenumerate(means):
        if np.isnan(value):
            axes.text(column, row, "no games", ha="center", va="center", fontsize=empty_size, color="#444444")
        else:
            shade = "white" if value < 15 else "black"
            text = f"{value:.2f}\nn={games[row, column]}"
            axes.text(column, row, text, ha="center", va="center", fontsize=9, color=shade)
    return image


def tracking_over_turns(rows: Sequence[TrackingByTurn]) -> str | None:
    """Measured state-tracking accuracy per bin of turns, one line of two panels (own hand, others) per group; where
    an LLM judge rated the same turns, its mean overall rating per bin is drawn in both panels beside them."""
    if not rows:
        return None
    groups = sorted({r.group for r in rows})
    judged = any(r.judge_overall is not None for r in rows)
    figure = Figure(figsize=(10, 2.9 * len(groups) + 0.5))
    styles = {"exact": ("exact match", "-"), "precision": ("precision", "--"), "recall": ("recall", ":")}
    for line, group in enumerate(groups):
        mine = [r for r in rows if r.group == group]
        for column, side in enumerate(("own", "others")):
            axes = figure.add_subplot(len(groups), 2, 2 * line + column + 1)
            for measure, (label, style) in styles.items():
                axes.plot(*_by_bin(mine, f"{side}_{measure}"), style, marker="o", ms=3, label=label)
            if judged:
                judge = _by_bin(mine, "judge_overall")
                axes.plot(*judge, "-", color="black", marker="s", ms=3, label="judge: overall rating")
            title = "own hand" if side == "own" else "other players' knowledge"
            axes.set_title(_wrap(f"{group}: {title}", 55), fontsize=8)
            axes.set_ylim(-0.03, 1.03)
            axes.set_xlabel("turn (middle of a bin)", fontsize=8)
            axes.set_ylabel("share (0-1)", fontsize=8)
            axes.tick_params(labelsize=7)
            axes.grid(alpha=0.3)
            if line == 0 and column == 0:
                axes.legend(fontsize=7)
    heading = "State tracking over the game: measured accuracy"
    figure.suptitle(heading + (" and the judge's rating" if judged else ""), fontsize=10)
    figure.tight_layout()
    return _data_uri(figure)


def _by_bin(rows: list[TrackingByTurn], field: str) -> tuple[list[float], list[float]]:
    """The middle turn of each bin and its `field`, where the bin has one."""
    points = [((r.first_turn + r.last_turn) / 2, getattr(r, field)) for r in rows if getattr(r, field) is not None]
    return [x for x, _ in points], [y for _, y in points]


def score_against_cost(points: Sequence[Spend], colors: dict[str, str]) -> str | None:
    """Mean score of each priced group against its cost per game; unpriced groups are left out (named in the
    report). None unless at least two groups paid something: with fewer there is no trade-off to show."""
    priced = [p for p in points if p.cost_per_game is not None and p.mean_score is not None]
    if sum((p.cost_per_game or 0.0) > 0 for p in priced) < 2:
        return None
    figure = Figure(figsize=(7.5, 4.8))
    axes = figure.add_subplot()
    for point in priced:
        assert point.cost_per_game is not None and point.mean_score is not None  # kept only when priced and scored
        color = colors.get(point.name, "#333333")
        axes.plot(point.cost_per_game, point.mean_score, "o", color=color, ms=7, label=_wrap(point.name))
    costs = [p.cost_per_game or 0.0 for p in priced]
    if min(costs) > 0 and max(costs) / min(costs) > 50:
        axes.set_xscale("log")
    else:
        axes.set_xlim(-0.03 * max(costs), max(costs) * 1.15)  # room for the markers of $0 groups
    return _score_axes(
        axes, "cost per game (USD, every attempt of every game)", "Score against cost, per group (priced groups only)"
    )


def best_of_k_curve(points: Sequence[KPoint]) -> str | None:
    """Mean score against k (samples per move), one line per model and base prompt, with 95% intervals."""
    if not points:
        return None
    figure = Figure(figsize=(7.5, 4.8))
    axes = figure.add_subplot()
    curves = sorted({p.curve for p in points})
    for index, curve in enumerate(curves):
        mine = sorted((p for p in points if p.curve == curve and p.mean is not None), key=lambda p: p.k)
        color = _PALETTE[index % len(_PALETTE)]
        axes.plot([p.k for p in mine], [p.mean or 0.0 for p in mine], "-o", color=color, label=_wrap(curve))
        for point in mine:
            if point.ci is not None and point.mean is not None:
                axes.errorbar(point.k, point.mean, yerr=_error_bar(point.mean, point.ci), color=color, capsize=3, lw=1)
    ks = sorted({p.k for p in points})
    axes.set_xticks(ks, [str(k) for k in ks])
    return _score_axes(
        axes, "k (samples per move; 1 = a single call)", "Best-of-K: mean score against k, with 95% bootstrap intervals"
    )


def _score_axes(axes: Axes, xlabel: str, title: str) -> str:
    """Finish a plot of mean fireworks score (y) against `xlabel`, its key below it, and return the figure's URI."""
    axes.set_ylim(-0.8, MAX_SCORE + 1)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("mean score out of 25 (fireworks at the end)")
    axes.set_title(title, fontsize=10)
    axes.grid(alpha=0.3)
    _key_below(axes)
    return _data_uri(cast(Figure, axes.figure))


def crossplay_matrix(cross: CrossPlay | None) -> str | None:
    """Mean score of each cross-play cell: one seat's player (rows) with every other seat's player (columns)."""
    if cross is None or not cross.players:  # cross-play games, but none with one seat of A and the rest B
        return None
    grid = matrix(cross)
    size = len(cross.players)
    values = np.array([[np.nan if c is None or c.mean is None else c.mean for c in line] for line in grid])
    games = np.array([[0 if c is None else c.games for c in line] for line in grid])
    figure = Figure(figsize=(max(5.0, 1.9 * size + 3.0), max(3.0, 1.0 * size + 2.0)))
    axes = figure.add_subplot()
    image = _score_cells(axes, values, games, 8)
    labels = [_wrap(p, 24) for p in cross.players]
    axes.set_xticks(range(size), labels, fontsize=8)
    axes.set_yticks(range(size), labels, fontsize=8)
    axes.set_xlabel("player of every other seat")
    axes.set_ylabel("player of one seat")
    axes.set_title("Cross-play: mean score (fireworks at the end); diagonal: self-play", fontsize=10)
    figure.colorbar(image, ax=axes, label="mean score out of 25")
    return _data_uri(figure)

"""Score statistics: mean with standard error, median, interquartile mean (the 25% trimmed mean, as in
rliable), bootstrap intervals and paired comparisons.

Intervals are scipy.stats.bootstrap intervals (BOOTSTRAP), each from a generator seeded alike, so the same
logs give the same report. Resamples are drawn in batches of at most BATCH_VALUES values to bound memory; the
generator gives the same stream whatever the batch.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats

BATCH_VALUES = 1 << 20  # resampled values drawn at once (8 MB of floats)

# scipy renamed `random_state` to `rng` in 1.15; pass the generator under whichever name this scipy takes.
_RNG_ARGUMENT = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"

Statistic = Callable[..., np.ndarray]


class Interval(BaseModel):
    model_config = ConfigDict(frozen=True)

    low: float
    high: float


class Estimate(BaseModel):
    """A mean with its standard error and 95% bootstrap interval (None where too few values)."""

    model_config = ConfigDict(frozen=True)

    n: int
    mean: float | None = None
    se: float | None = None  # sample standard deviation / sqrt(n); needs 2 values
    ci: Interval | None = None


class ScoreStats(BaseModel):
    """Summary of one set of game scores. Figures are None when there are too few games for them."""

    model_config = ConfigDict(frozen=True)

    n: int
    mean: float | None = None
    se: float | None = None  # sample standard deviation / sqrt(n); needs 2 games
    mean_ci: Interval | None = None
    median: float | None = None
    iqm: float | None = None
    iqm_ci: Interval | None = None


class PairedStats(BaseModel):
    """A seed-by-seed comparison of A and B: differences are A - B."""

    model_config = ConfigDict(frozen=True)

    pairs: int
    a_mean: float
    b_mean: float
    mean_difference: float
    ci: Interval | None  # needs 2 pairs
    probability_of_improvement: float  # share of pairs where A > B, ties counting half
    a_better: int
    ties: int
    b_better: int


class BootstrapSettings(BaseModel):
    """Every interval's bootstrap, as the report states it."""

    model_config = ConfigDict(frozen=True)

    method: str = "percentile"
    resamples: int = 9999
    confidence: float = 0.95
    seed: int = 2025


BOOTSTRAP = BootstrapSettings()


def _iqm(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Interquartile mean: the mean after dropping the lowest and highest quarter (25% trimmed mean)."""
    return stats.trim_mean(values, 0.25, axis=axis)


def bootstrap_interval(values: Sequence[float] | np.ndarray, statistic: Statistic) -> Interval | None:
    """95% percentile bootstrap interval of `statistic`, reproducible; None for fewer than 2 values."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return None
    if np.all(data == data[0]):  # every resample is the same: the interval is the value itself
        value = float(statistic(data))
        return Interval(low=value, high=value)
    result = stats.bootstrap(
        (data,),
        statistic,
        n_resamples=BOOTSTRAP.resamples,
        confidence_level=BOOTSTRAP.confidence,
        method=BOOTSTRAP.method,
        vectorized=True,
        batch=max(1, BATCH_VALUES // data.size),
        **{_RNG_ARGUMENT: np.random.default_rng(BOOTSTRAP.seed)},
    )
    return Interval(low=float(result.confidence_interval.low), high=float(result.confidence_interval.high))


def ratio(count: float, total: float) -> float | None:
    return count / total if total else None


def average(values: Sequence[float]) -> float | None:
    """The mean, None for no values."""
    return float(np.mean(values)) if len(values) else None


def estimate(values: Sequence[float] | np.ndarray) -> Estimate:
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Estimate(n=0)
    se = float(np.std(data, ddof=1) / np.sqrt(data.size)) if data.size >= 2 else None
    return Estimate(n=int(data.size), mean=float(np.mean(data)), se=se, ci=bootstrap_interval(data, np.mean))


def score_stats(values: Sequence[float]) -> ScoreStats:
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return ScoreStats(n=0)
    mean = estimate(data)
    return ScoreStats(
        n=mean.n,
        mean=mean.mean,
        se=mean.se,
        mean_ci=mean.ci,
        median=float(np.median(data)),
        iqm=float(_iqm(data)),
        iqm_ci=bootstrap_interval(data, _iqm),
    )


def paired_stats(a: Sequence[float], b: Sequence[float]) -> PairedStats:
    """Compare paired scores (a[i] and b[i] come from the same seed and player count)."""
    first = np.asarray(a, dtype=float)
    second = np.asarray(b, dtype=float)
    if first.shape != second.shape or first.size == 0:
        raise ValueError("paired comparisons need two equally long, non-empty score lists")
    differences = first - second
    a_better = int(np.sum(differences > 0))
    ties = int(np.sum(differences == 0))
    return PairedStats(
        pairs=int(first.size),
        a_mean=float(np.mean(first)),
        b_mean=float(np.mean(second)),
        mean_difference=float(np.mean(differences)),
        ci=bootstrap_interval(differences, np.mean),
        probability_of_improvement=(a_better + 0.5 * ties) / first.size,
        a_better=a_better,
        ties=ties,
        b_better=int(first.size) - a_better - ties,
    )

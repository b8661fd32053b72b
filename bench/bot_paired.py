"""Paired self-play comparison of bot versions: the mean per-deal score difference, with its standard error.

Usage: .venv/bin/python bench/bot_paired.py --players 2 --seeds 1000-1999 --variant "LAST_TOKEN_DECK=(0,0,0,0)"

Each deal (deck seed) is played by the base version and by every `--variant`, every seat by the same version, so
the luck of the deal cancels out of their difference. A version is written as any of:
  (nothing)           the smart bot of this checkout (the default base)
  NAME=VALUE ...      that bot with constants of harness/bots/smart.py set to Python literals, space-separated,
                      e.g. "MISREAD_PENALTY=(0.3,0.3,0.3,0.3)"
  bot=NAME            another built-in bot of this checkout, e.g. bot=cautious
  rev=COMMIT          the smart bot (or bot=NAME) of another git commit: its harness/, taken with `git archive`
Prints, per player count, each version's mean fireworks with its standard error, then per variant the mean of
base minus variant over the same deals with its standard error, and how many deals the two played differently
(their move sequences differ; 0 means the variant plays every deal move for move like the base).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

from bench.options import BenchParser, bot_build, positive_int
from bench.parallel import map_chunked
from harness.bots import DEFAULT_BOT, bot_names, smart
from harness.schema.cards import MAX_SEED, MIN_SEED

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Version:
    """One way of playing: a bot of this checkout or of another commit, with some constants set."""

    text: str  # as written on the command line ("" for the base as committed)
    bot: str = DEFAULT_BOT
    settings: tuple[tuple[str, Any], ...] = ()
    rev: str | None = None

    @property
    def label(self) -> str:
        return self.text or f"{self.bot} (this checkout)"


@dataclass(frozen=True)
class Deal:
    """One deal played to the end by one version."""

    fireworks: int
    moves: str  # a digest of the game's move sequence


def parse_version(text: str) -> Version:
    """A version from its command-line spelling (see the module docstring); ValueError names what is wrong."""
    bot, rev, settings = DEFAULT_BOT, None, []
    for part in text.split():
        name, sep, value = part.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"{part!r} is not NAME=VALUE")
        if name == "bot":
            if value not in bot_names():
                raise ValueError(f"no bot {value!r}; use one of {', '.join(bot_names())}")
            bot = value
        elif name == "rev":
            rev = value
        else:
            settings.append((name, _setting(name, value)))
    if settings and (rev is not None or bot != DEFAULT_BOT):
        raise ValueError(f"{text!r}: constants can be set only on this checkout's {DEFAULT_BOT} bot")
    return Version(text, bot, tuple(settings), rev)


def _setting(name: str, value: str) -> Any:
    """A constant of harness/bots/smart.py and its new value, of the same type (and length, for a tuple)."""
    current = getattr(smart, name, None)
    if not name.isupper() or current is None or isinstance(current, type | ModuleType):
        raise ValueError(f"{name} is not a constant of harness/bots/smart.py")
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise ValueError(f"{name}={value}: the value is not a Python literal") from None
    if isinstance(current, float) and isinstance(parsed, int):
        parsed = float(parsed)
    same_shape = type(parsed) is type(current) and (
        not isinstance(current, tuple) or len(parsed) == len(current)
    )
    if not same_shape:
        raise ValueError(f"{name}={value}: {name} is {current!r}; give a value of the same kind")
    return parsed


def seed_range(text: str) -> range:
    """An argparse type: `N` (deals 0..N-1) or `FIRST-LAST` (both included)."""
    first, sep, last = text.partition("-")
    try:
        seeds = range(int(first), int(last) + 1) if sep else range(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed count or a range like 1000-1999") from None
    if not seeds or seeds.start < MIN_SEED or seeds.stop - 1 > MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text!r} names no seeds in {MIN_SEED}-{MAX_SEED}")
    return seeds


def checkout(rev: str, into: Path) -> Path:
    """Write the harness/ of git commit `rev` into a folder below `into`; the folder to put on sys.path."""
    tree = into / rev.replace("/", "_")
    if not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "harness"], capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise ValueError(f"rev={rev}: {archive.stderr.decode(errors='replace').strip() or 'git archive failed'}")
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


@contextmanager
def harness_from(tree: str | None) -> Iterator[None]:
    """Import `harness` from `tree` (another commit's) inside the block, and this checkout's again after it."""
    if tree is None:
        yield
        return

    def ours() -> dict[str, ModuleType]:
        return {k: m for k, m in sys.modules.items() if k == "harness" or k.startswith("harness.")}

    saved = ours()
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, tree)
    try:
        yield
    finally:
        sys.path.remove(tree)
        for name in ours():
            del sys.modules[name]
        sys.modules.update(saved)


@contextmanager
def settings_applied(settings: tuple[tuple[str, Any], ...]) -> Iterator[None]:
    """The smart bot's constants set for the block, and restored after it."""
    module = importlib.import_module("harness.bots.smart")
    old = [(name, getattr(module, name)) for name, _ in settings]
    for name, value in settings:
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in old:
            setattr(module, name, value)


def play_deals(version: Version, tree: str | None, players: int, seeds: list[int]) -> list[Deal]:
    """Play each deal to the end with every seat played by `version` (from `tree`, if another commit's)."""
    with harness_from(tree), settings_applied(version.settings):
        game_module = importlib.import_module("harness.engine.game")
        play_out = importlib.import_module("harness.play.values").play_out
        bot = importlib.import_module("harness.bots").get_bot(version.bot)
        deals = []
        for seed in seeds:
            game = game_module.Game(players, game_module.deck_for_seed(seed))
            fireworks = play_out(game, bot)
            moves = " ".join(entry.move.description for entry in game.history)
            deals.append(Deal(fireworks, hashlib.sha256(moves.encode()).hexdigest()[:16]))
        return deals


def mean_and_stderr(values: list[float]) -> tuple[float, float]:
    stderr = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return statistics.fmean(values), stderr


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--base", default="", help="the version every variant is compared with (default: smart)")
    parser.add_argument(
        "--variant", action="append", default=[], help="a version to compare with the base (repeatable)"
    )
    parser.add_argument(
        "--seeds", type=seed_range, default=range(1000), help="N (deals 0..N-1) or FIRST-LAST (default 1000)"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=[2, 3, 4, 5])
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)"
    )
    args = parser.parse_args(argv)
    if args.quick:  # a few deals, one variant of each kind, over the same process pool
        args.seeds, args.players, args.jobs = range(4), [2], min(args.jobs, 2)
        args.variant = args.variant or ["LAST_TOKEN_DECK=(0,0,0,0)", "bot=cautious", "rev=HEAD"]
    if not args.variant:
        parser.error("give at least one --variant to compare with the base")
    try:
        base = parse_version(args.base)
        variants = [parse_version(text) for text in args.variant]
    except ValueError as problem:
        parser.error(str(problem))

    seeds = list(args.seeds)
    with tempfile.TemporaryDirectory(prefix="bot-paired-") as scratch:
        trees: dict[Version, str | None] = {}
        for version in [base, *variants]:
            try:
                trees[version] = None if version.rev is None else str(checkout(version.rev, Path(scratch)))
            except ValueError as problem:
                parser.error(str(problem))
        print(f"seeds {seeds[0]}-{seeds[-1]} ({len(seeds)} deals), {args.jobs} job(s); base: {base.label}")
        print(f"the smart bot of this harness: {bot_build()}; another commit's (rev=): its Python source")
        started = time.perf_counter()
        for players in args.players:
            played = {
                version: map_chunked(partial(play_deals, version, trees[version], players), seeds, args.jobs)
                for version in [base, *variants]
            }
            print(f"\n{players} players")
            for version, deals in played.items():
                mean, stderr = mean_and_stderr([d.fireworks for d in deals])
                print(f"  {version.label}: mean {mean:.3f} (s.e. {stderr:.3f})")
            for version in variants:
                pairs = list(zip(played[base], played[version], strict=True))
                diff, stderr = mean_and_stderr([float(a.fireworks - b.fireworks) for a, b in pairs])
                differ = sum(a.moves != b.moves for a, b in pairs)
                print(
                    f"  base - [{version.label}]: {diff:+.3f} (s.e. {stderr:.3f}), "
                    f"{differ} of {len(pairs)} deals played differently"
                )
        print(f"\ntotal {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()

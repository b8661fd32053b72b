"""What prompt caching saves on Anthropic's prices: the same games played with and without it, through a scripted
Anthropic Messages server.

Each scaffold's games are played twice with `hanabi-eval run --model anthropic/claude-sonnet-4-5` against
tests/fakeserver.py's FakeAnthropicServer, which caches as Anthropic does (a prefix up to a cache_control mark of at
least 1,024 tokens, read by a later request at a tenth of the input price; written at 1.25 times it) and answers every
prompt with the same legal move: once with prompt caching (the default) and once with `--prompt-cache off`, each
against a server of its own. Costs are LiteLLM's, at its prices for the model. The table gives, per scaffold and
player count: calls, prompt tokens per call, the cacheable shares (BENCHMARKS.md section 4's two measures, on these
games: the share of a call's prompt that is an exact cl100k token prefix of the previous call's, and of the same
seat's previous call of the same role), the share of prompt tokens the server read from its cache, the cost of the
games without and with caching, and what caching saved of the prompt's cost and of the whole cost.
Run: python bench/prompt_cache.py [--scaffolds mycroft hgroup-sherlock hgroup-watson] [--players 2 5] [--seeds 1,2]
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after an installed harness (see options.py)

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench-not-a-key")  # the scripted server takes any

from bench.options import BenchParser, int_in, seed_list  # noqa: E402
from bench.tokens import tokens  # noqa: E402
from harness.cli.main import main as cli  # noqa: E402
from harness.models.client import litellm  # noqa: E402
from harness.models.prompt_cache import common_length  # noqa: E402
from harness.schema.log_file import read_game_log  # noqa: E402
from harness.schema.records import Attempt  # noqa: E402
from harness.strategies.scaffold import scaffold_names  # noqa: E402
from tests.fakeserver import FakeAnthropicServer, Reply, careful_player, legal_moves_in  # noqa: E402

MODEL = "anthropic/claude-sonnet-4-5"


def answer(request: dict[str, object]) -> Reply:
    """A legal move in the prompt's format, or a short report where the prompt lists no moves (a mixture's analysts)."""
    if not legal_moves_in(request):
        return Reply(content="Analysis: a clue that enables a play is worth the most here.")
    return careful_player(request)


def play(scaffold: str, players: int, seeds: str, out: Path, cache: str) -> list[list[Attempt]]:
    """The games' attempts, per game, played with `--prompt-cache cache` against a fresh scripted server."""
    with FakeAnthropicServer(answer) as server, contextlib.redirect_stdout(io.StringIO()):
        argv = ["run", "--model", MODEL, "--api-base", server.base_url, "--scaffold", scaffold, "--players",
                str(players), "--seeds", seeds, "--max-tokens", "1000", "--prompt-cache", cache, "--out", str(out),
                "--no-progress"]  # fmt: skip
        code = cli(argv)
    if code != 0:
        raise SystemExit(f"prompt_cache.py: {scaffold} at {players} players exited {code}")
    games = []
    for path in sorted(out.glob("*/games/*.jsonl")):
        contents = read_game_log(path)
        games.append([a for m in contents.moves for c in m.calls for a in c.attempts])
    return games


def cacheable_shares(out: Path) -> tuple[float, float]:
    """BENCHMARKS.md section 4's two measures on these games: the mean share of a call's prompt that is an exact token
    prefix of the previous call's prompt in the game, and of the same seat's previous call of the same role."""
    by_game, by_seat = [], []
    for path in sorted(out.glob("*/games/*.jsonl")):
        previous: list[int] | None = None
        seat_role: dict[tuple[int, str], list[int]] = {}
        for record in read_game_log(path).moves:
            for call in record.calls:
                sent = tokens("\n".join(m.content for m in call.attempts[-1].messages))
                if previous is not None:
                    by_game.append(common_length(sent, previous) / len(sent))
                key = (record.seat, call.role)
                if key in seat_role:
                    by_seat.append(common_length(sent, seat_role[key]) / len(sent))
                previous = seat_role[key] = sent
    return statistics.fmean(by_game or [0.0]), statistics.fmean(by_seat or [0.0])


def prompt_cost(attempts: list[Attempt]) -> float:
    """What the attempts' prompts cost at the model's prices: fresh input, cache reads and cache writes."""
    entry = litellm().model_cost[MODEL.split("/", 1)[1]]
    total = 0.0
    for a in attempts:
        usage = a.usage
        fresh = usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens
        total += fresh * entry["input_cost_per_token"] + usage.cached_tokens * entry["cache_read_input_token_cost"]
        total += usage.cache_write_tokens * entry["cache_creation_input_token_cost"]
    return total


def measure(scaffold: str, players: int, seeds: str, root: Path) -> dict[str, float]:
    off = [a for game in play(scaffold, players, seeds, root / "off", "off") for a in game]
    on = [a for game in play(scaffold, players, seeds, root / "on", "on") for a in game]
    if [[m.content for m in a.messages] for a in on] != [[m.content for m in a.messages] for a in off]:
        raise SystemExit(f"prompt_cache.py: {scaffold}: the cached games' prompts differ from the uncached ones")
    prompt = sum(a.usage.prompt_tokens for a in on)
    cost_off, cost_on = sum(a.cost_usd or 0.0 for a in off), sum(a.cost_usd or 0.0 for a in on)
    input_off, input_on = prompt_cost(off), prompt_cost(on)
    return {
        "calls": len(on),
        "prompt": prompt / len(on),
        "cacheable": cacheable_shares(root / "off")[0],
        "cacheable_seat": cacheable_shares(root / "off")[1],
        "cached": sum(a.usage.cached_tokens for a in on) / prompt,
        "cost_off": cost_off,
        "cost_on": cost_on,
        "saving_prompt": 1 - input_on / input_off,
        "saving": 1 - cost_on / cost_off,
    }


def main() -> None:
    parser = BenchParser(__doc__)
    names = scaffold_names()
    parser.add_argument(
        "--scaffolds", nargs="+", default=["mycroft", "hgroup-sherlock", "hgroup-watson"], choices=names,
        metavar="SCAFFOLD",
    )  # fmt: skip
    parser.add_argument("--players", type=int_in(2, 5), nargs="+", default=[2, 5])
    parser.add_argument("--seeds", type=seed_list, default="1,2")
    args = parser.parse_args()
    if args.quick:  # one 2-player Mycroft game each way
        args.scaffolds, args.players, args.seeds = ["mycroft"], [2], "1"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scaffold in args.scaffolds:
            for players in args.players:
                figures = measure(scaffold, players, args.seeds, Path(tmp) / f"{scaffold}-{players}")
                rows.append((scaffold, players, figures))
    print(f"prompt caching on Anthropic's prices ({MODEL}, cached reads at 1/10, writes at 1.25x; prefixes >= 1,024 "
          f"tokens), seeds {args.seeds}")  # fmt: skip
    print(f"{'scaffold':18s} {'players':>7s} {'calls':>5s} {'prompt/call':>11s} {'cacheable: call':>15s} "
          f"{'seat+role':>9s} {'cached':>6s} {'cost, no cache':>14s} {'cost, cached':>12s} {'saved, prompt':>13s} "
          f"{'saved, all':>10s}")  # fmt: skip
    for scaffold, players, f in rows:
        print(
            f"{scaffold:18s} {players:7d} {f['calls']:5.0f} {f['prompt']:11,.0f} {f['cacheable']:15.1%} "
            f"{f['cacheable_seat']:9.1%} {f['cached']:6.1%} {'$' + format(f['cost_off'], '.4f'):>14s} "
            f"{'$' + format(f['cost_on'], '.4f'):>12s} {f['saving_prompt']:13.1%} {f['saving']:10.1%}"
        )


if __name__ == "__main__":
    main()

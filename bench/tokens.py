"""Tokens per move for every scaffold, and how much of each prompt a provider's prompt cache could reuse.

Plays offline games (the built-in player answers in each scaffold's format) and counts, with LiteLLM's bundled
cl100k tokenizer, the prompt and completion tokens of every call of a move, and the cacheable share: the fraction of
a call's prompt (system + user, as sent) that is an exact token prefix of the previous call's prompt in the same
game, and of the same seat's previous call of the same role. Providers discount such prefixes (usually above a
minimum length, e.g. 1,024 tokens), so the figure is an upper bound on what caching can save.
Run: python bench/tokens.py [--players 2 5] [--seeds 1,2] [--scaffolds watson sherlock ...]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.options import BenchParser, int_in, seed_list
from harness.cli.main import main as cli
from harness.schema.log_file import read_game_log
from harness.strategies.scaffold import scaffold_names

_ENCODER = None


def tokens(text: str) -> list[int]:
    global _ENCODER
    if _ENCODER is None:
        from litellm.litellm_core_utils.default_encoding import encoding

        _ENCODER = encoding
    return _ENCODER.encode(text, disallowed_special=())


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def measure(scaffold: str, players: int, seeds: str, out: Path) -> dict[str, float]:
    argv = ["run", "--scaffold", scaffold, "--players", str(players), "--seeds", seeds, "--no-progress"]
    assert cli([*argv, "--out", str(out)]) == 0
    per_move_prompt, per_move_completion, shares_game, shares_seat = [], [], [], []
    for path in sorted(out.glob("*/games/*.jsonl")):
        previous_in_game: list[int] | None = None
        previous_by_seat_role: dict[tuple[int, str], list[int]] = {}
        for record in read_game_log(path).moves:
            prompt_total = completion_total = 0
            for call in record.calls:
                final = call.attempts[-1]
                sent = tokens("\n".join(m.content for m in final.messages))
                prompt_total += len(sent)
                completion_total += len(tokens(final.reply or ""))
                if previous_in_game is not None:
                    shares_game.append(common_prefix(sent, previous_in_game) / len(sent))
                key = (record.seat, call.role)
                if key in previous_by_seat_role:
                    shares_seat.append(common_prefix(sent, previous_by_seat_role[key]) / len(sent))
                previous_in_game = sent
                previous_by_seat_role[key] = sent
            per_move_prompt.append(prompt_total)
            per_move_completion.append(completion_total)
    return {
        "prompt": statistics.fmean(per_move_prompt),
        "completion": statistics.fmean(per_move_completion),
        "calls": sum(len(r.calls) for p in out.glob("*/games/*.jsonl") for r in read_game_log(p).moves)
        / len(per_move_prompt),
        "cached_game": statistics.fmean(shares_game) if shares_game else 0.0,
        "cached_seat": statistics.fmean(shares_seat) if shares_seat else 0.0,
    }


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--players", type=int_in(2, 5), nargs="+", default=[2, 5])
    parser.add_argument("--seeds", type=seed_list, default="1,2")
    names = scaffold_names()
    parser.add_argument("--scaffolds", nargs="+", default=names, choices=names, metavar="SCAFFOLD")
    args = parser.parse_args()
    if args.quick:  # one 2-player game of a text-reply and a JSON-reply scaffold
        args.players, args.seeds, args.scaffolds = [2], "1", ["watson", "sherlock"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scaffold in args.scaffolds:
            for players in args.players:
                figures = measure(scaffold, players, args.seeds, Path(tmp) / f"{scaffold}-{players}")
                rows.append((scaffold, players, figures))
    print(
        "tokens per move (cl100k), all calls of a move; cacheable = exact prefix shared with the previous prompt"
    )
    header = ("scaffold", "players", "calls", "prompt", "completion", "cacheable vs previous call",
              "cacheable vs same seat+role")  # fmt: skip
    print(f"{header[0]:24s} {header[1]:>7s} {header[2]:>5s} {header[3]:>8s} {header[4]:>10s} {header[5]:>27s} "
          f"{header[6]:>28s}")  # fmt: skip
    for scaffold, players, f in rows:
        print(
            f"{scaffold:24s} {players:7d} {f['calls']:5.1f} {f['prompt']:8.0f} {f['completion']:10.0f} "
            f"{f['cached_game']:27.1%} {f['cached_seat']:28.1%}"
        )


if __name__ == "__main__":
    main()

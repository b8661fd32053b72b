"""Snapshot every output of hanabi-eval, normalised, to show that a change keeps behaviour identical.

    python scripts/snapshot.py make OUT_DIR    # run the battery on this checkout's code, write the snapshot
    python scripts/snapshot.py compare A B     # list the files that differ; exit code 0 if none, 1 if any

`make` runs a fixed, offline battery of `hanabi-eval` commands (`python -m harness.cli`, this checkout on
PYTHONPATH) in a scratch folder, with the built-in players and the scripted server of tests/fakeserver.py, and
writes to OUT_DIR every file they wrote (files/, tree.txt), each command's exit code, stdout and stderr
(commands/) and one line per refused input (refused.txt). What differs between two runs of the same code
(times, durations, paths, ports, run ids, the git commit and dirty state, package versions) becomes a
placeholder: by JSON key or table column where it can, else by its exact string or its one phrase.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakeserver import Reply

CHECKOUT = Path(__file__).resolve().parents[1]
COMMAND_TIMEOUT_S = 900
PARALLEL = 3  # commands at once: the games are CPU-bound, and a sweep spreads over two worker processes

# ---- the battery's inputs ----------------------------------------------------------------------------------

SCAFFOLDS = [
    "best-of-5-sherlock",
    "best-of-5-watson",
    "best-of-k-sherlock,k=2",
    "best-of-k-spin-bench,k=2",
    "best-of-k-watson,k=2",
    "hgroup-sherlock",
    "hgroup-watson",
    "moa-sherlock",
    "moa-watson",
    "mycroft",
    "mycroft-plus",
    "sherlock",
    "sherlock-plus",
    "spin-bench",
    "spin-bench-no-deductions",
    "spin-bench-no-deductions-no-discards",
    "watson",
    "watson-plus",
]

INPUTS: dict[str, str] = {
    "all-scaffolds.toml": "\n".join(
        [
            'name = "all-scaffolds"',
            "players = [2]",
            'seeds = ["1"]',
            "scaffolds = [" + ", ".join(f'"{s}"' for s in SCAFFOLDS) + "]",
            "concurrency = 40",
            "",
            "[[models]]",
            'model = "local/smart"',
            "",
            "[[models]]",
            'model = "local/cautious"',
            "concurrency = 20",
            "",
        ]
    ),
    "teams.yaml": "\n".join(
        [
            "name: teams-yaml",
            "players: [3]",
            'seeds: ["5"]',
            "concurrency: 4",
            "teams:",
            '  - seats: ["local/smart:watson", "local/cautious:sherlock", "local/smart:hgroup-watson"]',
            '    rotation: "off"',
            "crossplay:",
            "  - {one: local/cautious, rest: local/smart, scaffold: spin-bench, players: [2, 3]}",
            "",
        ]
    ),
    "seeds.jsonl": '{"seed": 11}\n',
    "misspelt-seeds.jsonl": '{"seed": 13, "dek": []}\n',
    "twice-seeds.jsonl": '{"seed": 14}\n{"seed": 14}\n',
    "unknown-key-sweep.toml": 'name = "x"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
    '[[models]]\nmodel = "local/smart"\ntemprature = 0.5\n',
    "twice-scaffold-sweep.toml": 'name = "x"\nplayers = [2]\nseeds = ["1"]\n'
    'scaffolds = ["watson", "watson"]\n[[models]]\nmodel = "local/smart"\n',
    "bad-url-sweep.toml": 'name = "x"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
    '[[models]]\nmodel = "openai/x"\napi_base = "ftp://127.0.0.1:1/v1"\n',
    "nan-wait-sweep.toml": 'name = "x"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
    '[retry]\nwait_base_s = nan\n[[models]]\nmodel = "local/smart"\n',
    "a-file": "not a folder\n",
}

# ---- the scripted servers ----------------------------------------------------------------------------------


class Scripts:
    """The replies of the scripted servers: each a function of the request alone (and of whether that very
    request was seen before), so that the order in which concurrent games ask changes no answer."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()

    def _first_ask(self, request: dict[str, Any]) -> tuple[bool, int]:
        messages = request.get("messages", [])
        key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        with self._lock:
            count = self._seen.get(key, 0)
            self._seen[key] = count + 1
        fresh = count == 0 and all(m.get("role") != "assistant" for m in messages)
        return fresh, int(key[:8], 16)

    def misbehaving(self, request: dict[str, Any]) -> Reply:
        """A model that answers some first asks badly: a 500, a 429, prose without a move, a reply cut off by
        the token limit; the same request asked again (a retry) and every re-ask get a good answer."""
        from tests.fakeserver import Reply, careful_player

        fresh, pick = self._first_ask(request)
        if fresh:
            match pick % 11:
                case 0:
                    return Reply(status=500)
                case 1:
                    return Reply(status=429, headers={"Retry-After": "0"})
                case 2:
                    return Reply(content="I would play my oldest card, it feels right.")
                case 3:
                    good = careful_player(request).content or ""
                    return Reply(content=good[: len(good) // 2], finish_reason="length")
        return careful_player(request)

    def good(self, request: dict[str, Any]) -> Reply:
        from tests.fakeserver import careful_player

        return careful_player(request)

    def judge(self, request: dict[str, Any]) -> Reply:
        """A judge whose ratings follow the turn; some first asks get prose, which the harness re-asks."""
        from tests.fakeserver import Reply

        fresh, pick = self._first_ask(request)
        if fresh and pick % 7 == 0:
            return Reply(content="The deductions look mostly right to me.")
        text = " ".join(str(m.get("content") or "") for m in request.get("messages", []))
        found = re.search(r" at turn (\d+)", text)
        turn = int(found.group(1)) if found else 0
        verdict = {
            "overall_rating": (turn % 5) / 4,
            "deduction_accuracy": (turn % 3) / 2,
            "history_integration": 0.75,
            "state_tracking_quality": (turn % 2) / 1,
            "detailed_feedback": f"turn {turn}: the negative information on card1 was dropped",
            "key_issues": ["missed a negative inference"] if turn % 2 else [],
            "strengths": ["kept the clued ranks"],
        }
        return Reply(content=json.dumps(verdict))


# ---- running commands --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    label: str
    argv: tuple[str, ...]
    code: int
    stdout: str
    stderr: str


class Battery:
    """The scratch folder, the environment of every command and what each command did."""

    def __init__(self, scratch: Path, urls: dict[str, str]) -> None:
        self.scratch = scratch
        self.urls = urls  # name -> base URL of a scripted server
        self.outcomes: dict[str, Outcome] = {}
        self.refused: list[str] = []  # labels of the refused inputs, in the battery's order
        self._lock = threading.Lock()
        self.env = command_env()
        self.cpu_s = 0.0  # the commands' CPU time, user and system

    def hanabi(self, label: str, command: str) -> Outcome:
        """Run `hanabi-eval COMMAND` (split as a shell would) in the scratch folder; record it as `label`."""
        args = tuple(shlex.split(command))
        started = time.monotonic()
        code, stdout, stderr, cpu_s = run_child(
            (sys.executable, "-m", "harness.cli", *args), self.scratch, self.env
        )
        outcome = Outcome(label, args, code, stdout, stderr)
        with self._lock:
            if label in self.outcomes:
                raise ValueError(f"two commands are labelled {label}")
            self.outcomes[label] = outcome
            self.cpu_s += cpu_s
            wall_s = time.monotonic() - started
            print(f"{wall_s:6.1f} s {cpu_s:6.1f} s CPU  exit {code}  {label}", file=sys.stderr, flush=True)
        return outcome

    def one(self, pattern: str) -> str:
        """The one path below the scratch folder that matches `pattern`, relative to it."""
        found = sorted(self.scratch.glob(pattern))
        if len(found) != 1:
            raise RuntimeError(f"{pattern} matches {len(found)} paths below {self.scratch}, not one")
        return str(found[0].relative_to(self.scratch))


def run_child(argv: tuple[str, ...], cwd: Path, env: dict[str, str]) -> tuple[int, str, str, float]:
    """Run a command to its end: its exit code, stdout, stderr and CPU time (user and system, of it and of the
    processes it waited for)."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    output: dict[str, bytes] = {}

    def drain(name: str, stream: IO[bytes]) -> None:
        output[name] = stream.read()
        stream.close()

    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(target=drain, args=("stdout", process.stdout)),
        threading.Thread(target=drain, args=("stderr", process.stderr)),
    ]
    for reader in readers:
        reader.start()
    watchdog = threading.Timer(COMMAND_TIMEOUT_S, process.kill)  # a command that hangs fails the battery
    watchdog.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        watchdog.cancel()
    process.returncode = code = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    if code < 0:
        raise RuntimeError(f"{' '.join(argv)} ended by signal {-code}")
    return (
        code,
        output["stdout"].decode("utf-8", "backslashreplace"),
        output["stderr"].decode("utf-8", "backslashreplace"),
        usage.ru_utime + usage.ru_stime,
    )


def command_env() -> dict[str, str]:
    """The environment of every command: this one without keys, provider or harness settings, colour or
    terminal size; a fixed width, time zone and locale; the checkout on PYTHONPATH."""
    dropped = re.compile(
        r"(_KEY|_TOKEN|_SECRET|_PASSWORD)$|^(OPENAI|ANTHROPIC|AZURE|GEMINI|GOOGLE|XAI|DEEPSEEK|HF|HUGGING|LITELLM"
        r"|HANABI_EVAL|INSPECT|RAY)_|^(FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TTY_COMPATIBLE|TTY_INTERACTIVE|COLUMNS"
        r"|LINES|PYTHONPATH|PYTHONHASHSEED|PYTHONSTARTUP|BROWSER|TERM|NO_COLOR|JUPYTER_COLUMNS|JUPYTER_LINES)$"
    )
    env = {key: value for key, value in os.environ.items() if not dropped.search(key)}
    env.update(
        PYTHONPATH=str(CHECKOUT),
        COLUMNS="200",
        LINES="50",
        NO_COLOR="1",
        TERM="dumb",
        TZ="UTC",
        LC_ALL="C.UTF-8",
        LANG="C.UTF-8",
        PYTHONIOENCODING="utf-8",
    )
    return env


def in_parallel(tasks: list[Callable[[], None]], workers: int = PARALLEL) -> None:
    """Run the tasks (each a chain of commands in order), at most `workers` at once; a failure is raised."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(task) for task in tasks]:
            future.result()


# ---- the battery -------------------------------------------------------------------------------------------

OUT = "--out results --no-progress"
FAKE = "--model openai/fake-model --retry-wait 0"
MYCROFT = "results/local-smart-mycroft-3p-custom-*"
VALUED = "results/openai-fake-model-sherlock-2p-custom-*"
REPEATS = "results/local-cautious-watson-plus-2p-custom-x2-*"
COMMANDS = (
    "run",
    "resume",
    "runs",
    "scaffolds",
    "export",
    "report",
    "judge",
    "values",
    "view",
    "import-inspect",
)


def play(b: Battery, filler: list[Callable[[], None]]) -> None:
    """Every game of the battery, three chains at once (then `filler`); the judge and the values after the
    runs they read."""
    bad, good, judge = b.urls["misbehaving"], b.urls["good"], b.urls["judge"]

    def sweeps() -> None:
        b.hanabi("run-sweep-all-scaffolds", f"run --config inputs/all-scaffolds.toml --workers 2 {OUT}")
        b.hanabi("run-sweep-teams-yaml", f"run --config inputs/teams.yaml {OUT}")

    def local() -> None:
        b.hanabi("run-mycroft-3p", f"run --model local/smart --scaffold mycroft --players 3 --seeds 1 {OUT}")
        # one request at a time: the judgements are written in the order the answers come
        judging = (
            f"judge {b.one(MYCROFT)} --model openai/judge --api-base {judge} --retry-wait 0 --concurrency 1"
        )
        b.hanabi("judge-mycroft", judging)
        b.hanabi("judge-mycroft-again", judging)
        tiny = f"run --model local/cautious --scaffold watson --seeds 7 --run-name tiny {OUT}"
        b.hanabi("run-tiny", tiny)
        b.hanabi("run-tiny-again", tiny)
        b.hanabi(
            "run-sherlock-3-4-5p",
            f"run --model local/smart --scaffold sherlock --players 3 4 5 --seeds 1 {OUT}",
        )
        b.hanabi(
            "run-mixed-rotation-all",
            "run --seat local/smart:watson --seat local/cautious:sherlock,temperature=0.5 "
            f"--seat local/smart:mycroft-plus --rotation all --seeds 2 {OUT}",
        )
        b.hanabi(
            "run-repeats", f"run --model local/cautious --scaffold watson-plus --seeds 1 --repeats 2 {OUT}"
        )
        b.hanabi(
            "values-workers", "values results/tiny --rollouts 1 --from-turn 60 --workers 2 --no-progress"
        )

    def served() -> None:
        b.hanabi(
            "run-fake-misbehaving",
            f"run {FAKE} --api-base {bad} --scaffold sherlock --seeds 1,2 --concurrency 1 {OUT}",
        )
        b.hanabi(
            "run-fake-interrupted",
            f"run {FAKE} --api-base {bad} --scaffold watson --seeds 3 --max-retries 0 "
            f"--run-name fake-interrupted {OUT}",
        )
        b.hanabi("runs-interrupted", "runs results/fake-interrupted")
        b.hanabi(
            "resume-fake-interrupted",
            f"resume results/fake-interrupted --api-base {good} --max-retries 2 --no-progress",
        )
        b.hanabi(
            "run-fake-direct-client",
            f"run {FAKE} --client openai --api-base {bad} --scaffold spin-bench --seeds 4 --concurrency 1 "
            f"--provider-retries 2 {OUT}",
        )
        valuing = f"values {b.one(VALUED)} --rollouts 2 --seed 7 --from-turn 25 --no-progress"
        b.hanabi("values", valuing)
        b.hanabi("values-again", valuing)
        b.hanabi(
            "run-best-of-k-seed-file",
            "run --model local/smart --scaffold best-of-k-watson --k 2 --players 3 "
            f"--seeds inputs/seeds.jsonl --temperature 0.7 --max-tokens 900 {OUT}",
        )
        b.hanabi(
            "run-moa-3p", f"run --model local/cautious --scaffold moa-watson --players 3 --seeds 6 {OUT}"
        )

    in_parallel([sweeps, local, served, *filler])


def damage(b: Battery) -> None:
    """Copies of finished runs, each damaged in one way: under damaged/ those that are only read, under
    rewritten/ those a command writes into (so that no command reads a folder while another writes it)."""
    tiny = b.scratch / "results" / "tiny"

    def copy(source: Path, name: str, same_id: bool = False) -> Path:
        """A copy of a run; with a run id of its own (its folder's name and 000000), unless `same_id`."""
        target = b.scratch / name
        shutil.copytree(source, target)
        manifest = target / "manifest.json"
        if not same_id and manifest.is_file():
            old = json.dumps(json.loads(manifest.read_text(encoding="utf-8"))["run_id"])
            new = json.dumps(f"{target.name}-000000")
            for path in [manifest, *(target / "games").glob("*.jsonl")]:
                path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        return target

    def log_of(name: str) -> tuple[Path, list[str]]:
        (log,) = sorted((copy(tiny, name) / "games").glob("*.jsonl"))
        return log, log.read_text(encoding="utf-8").splitlines(keepends=True)

    (copy(tiny, "damaged/manifest-not-json") / "manifest.json").write_text("{not json", encoding="utf-8")
    (copy(tiny, "damaged/manifest-empty") / "manifest.json").write_text("", encoding="utf-8")
    (copy(tiny, "damaged/manifest-wrong-record") / "manifest.json").write_text(
        '{"run_id": 5}\n', encoding="utf-8"
    )
    (copy(tiny, "damaged/status-not-a-record") / "status.json").write_text("[]\n", encoding="utf-8")
    (copy(tiny, "rewritten/status-not-a-record") / "status.json").write_text("[]\n", encoding="utf-8")
    for name in ("damaged/log-corrupt-line", "rewritten/log-corrupt-line"):
        log, lines = log_of(name)
        log.write_text("".join([*lines[:4], "this is not a record\n", *lines[5:]]), encoding="utf-8")
    log, lines = log_of("damaged/log-repeated-line")
    log.write_text("".join([*lines[:10], lines[9], *lines[10:]]), encoding="utf-8")
    log, lines = log_of("damaged/log-deleted-line")
    log.write_text("".join([*lines[:10], *lines[11:]]), encoding="utf-8")
    log, lines = log_of("damaged/log-not-replaying")
    record = json.loads(lines[12])
    record["digest_after"] = "0" * len(str(record["digest_after"]))
    lines[12] = json.dumps(record, separators=(",", ":")) + "\n"
    log.write_text("".join(lines), encoding="utf-8")
    log, lines = log_of("damaged/log-invalid-utf8")
    log.write_bytes("".join(lines[:3]).encode() + b"\xff\xfe\n" + "".join(lines[4:]).encode())
    for name in ("damaged/log-torn-tail", "rewritten/log-torn-tail"):
        log, lines = log_of(name)
        log.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    logs = sorted((copy(b.scratch / b.one(REPEATS), "damaged/log-of-another-game") / "games").glob("*.jsonl"))
    shutil.copy(logs[0], logs[1])  # the first play's log over the second's
    values = sorted((copy(b.scratch / b.one(VALUED), "damaged/values-corrupt") / "values").glob("*.jsonl"))[0]
    values.write_text("{}\n" + values.read_text(encoding="utf-8"), encoding="utf-8")
    judged = sorted((copy(b.scratch / b.one(MYCROFT), "damaged/judge-corrupt") / "judge").glob("*.jsonl"))[0]
    judged.write_text(judged.read_text(encoding="utf-8") + '{"turn": "x"}\n', encoding="utf-8")
    copy(tiny, "damaged/copied/tiny", same_id=True)
    sweep = copy(b.scratch / "results" / "teams-yaml", "damaged/sweep-not-json")
    (sweep / "sweep.json").write_text("{", encoding="utf-8")
    other = b.scratch / "damaged" / "other-sweep" / "teams-yaml"  # that name, another sweep
    other.mkdir(parents=True)
    shutil.copy(b.scratch / "results" / "all-scaffolds" / "sweep.json", other / "sweep.json")


LOG_DAMAGE = " ".join(
    f"damaged/log-{name}"
    for name in (
        "corrupt-line",
        "repeated-line",
        "deleted-line",
        "not-replaying",
        "of-another-game",
        "invalid-utf8",
    )
)


def read(b: Battery) -> None:
    """Everything that reads the runs: listings, the viewer site, reports, exports, and the damaged copies."""
    fake, mycroft, repeats = b.one(VALUED), b.one(MYCROFT), b.one(REPEATS)
    sherlock = b.one("results/local-smart-sherlock-345p-custom-*")
    mixed = b.one("results/team-*")

    def site_and_reports() -> None:
        b.hanabi("view-site", "view results --out reports/viewer")  # before the reports, which link to it
        b.hanabi("report-all", "report results --out reports/all")
        b.hanabi("report-by-run", "report results --out reports/by-run --by run")

    def listings_and_small_reports() -> None:
        b.hanabi("runs", "runs results")
        b.hanabi("runs-damaged", "runs damaged")
        b.hanabi("runs-empty-folder", "runs inputs/empty")
        b.hanabi(
            "report-seats-players",
            f"report results/teams-yaml {mixed} --out reports/seats --by seats players",
        )
        b.hanabi("report-tiny", "report results/tiny --out reports/tiny --by model players")
        b.hanabi("report-tiny-force", f"report results/tiny {repeats} --out reports/tiny --force")
        b.hanabi(
            "report-damaged",
            f"report {LOG_DAMAGE} damaged/values-corrupt damaged/judge-corrupt --out reports/damaged",
        )
        b.hanabi("view-damaged", f"view {LOG_DAMAGE} damaged/manifest-not-json --out sites/damaged")
        b.hanabi("view-site-tiny", "view results/tiny --out sites/tiny")
        b.hanabi("view-site-tiny-force", f"view results/tiny {repeats} --out sites/tiny --force")

    def exports() -> None:
        b.hanabi(
            "export-hanabilogs",
            f"export {fake} results/fake-interrupted results/tiny {repeats} --format hanabilogs "
            "--out exports/hanabilogs",
        )
        b.hanabi(
            "export-hanabilogs-force",
            "export results/tiny --format hanabilogs --out exports/hanabilogs --force",
        )
        b.hanabi(
            "export-hanabilogs-repair",
            f"export {fake} results/fake-interrupted --format hanabilogs --repair-dialogue "
            "--out exports/hanabilogs-repair",
        )
        b.hanabi(
            "export-hanabirewards",
            f"export {fake} {mycroft} results/teams-yaml --format hanabirewards --out exports/hanabirewards",
        )
        b.hanabi(
            "export-preferences",
            f"export {fake} {sherlock} --format preferences --pairs-per-move 2 --margin 0.4 "
            "--out exports/preferences",
        )
        b.hanabi(
            "export-preferences-repair",
            f"export {fake} --format preferences --pairs-per-move all --repair-dialogue --max-game-kb 60 "
            "--out exports/preferences-repair",
        )
        b.hanabi(
            "export-hanablive", "export results --format hanablive --players 2 3 --out exports/hanablive"
        )
        b.hanabi("export-to-replace", "export results/tiny --format hanabilogs --out exports/replaced")
        b.hanabi(
            "export-replace-other-kind",
            "export results/tiny --format hanablive --out exports/replaced --force",
        )
        b.hanabi(
            "export-filtered",
            "export results --format hanabilogs --model local/cautious --scaffold watson sherlock "
            "--seed-set custom --min-score 10 --out exports/filtered",
        )
        b.hanabi("export-damaged", f"export {LOG_DAMAGE} --format hanabirewards --out exports/damaged")
        b.hanabi("values-damaged-log", "values rewritten/log-corrupt-line --rollouts 1 --no-progress")
        b.hanabi("resume-torn-tail", "resume rewritten/log-torn-tail --no-progress")
        b.hanabi("resume-status-not-a-record", "resume rewritten/status-not-a-record --no-progress")
        b.hanabi(
            "run-exclude-seeds-skip",
            "run --model local/smart --seeds 1,21 --exclude-seeds-of exports/hanabirewards "
            "--skip-excluded-seeds --out results-late --no-progress",
        )

    in_parallel([site_and_reports, listings_and_small_reports, exports])


# Inputs refused before anything is read: option values, and files this script writes under inputs/.
OPTION_REFUSALS = [
    ("no-command", ""),
    ("unknown-command", "frobnicate"),
    *[
        (f"run-{label}", f"run --out refused --no-progress {options}")
        for label, options in [
            ("timeout-nan", "--timeout nan"),
            ("timeout-inf", "--timeout inf"),
            ("timeout-negative", "--timeout -1"),
            ("timeout-not-a-number", "--timeout soon"),
            ("concurrency-zero", "--concurrency 0"),
            ("workers-zero", "--workers 0"),
            ("workers-too-many", "--workers 999"),
            ("max-retries-negative", "--max-retries -1"),
            ("retry-wait-nan", "--retry-wait nan"),
            ("retry-wait-max-zero", "--retry-wait-max 0"),
            ("retry-wait-over-max", "--retry-wait 10 --retry-wait-max 5"),
            ("scaffold-near-miss", "--scaffold sherlok"),
            ("scaffold-unknown", "--scaffold no-such-scaffold"),
            ("players-6", "--players 6"),
            ("players-twice", "--players 2 2"),
            ("repeats-zero", "--repeats 0"),
            ("seeds-empty", "--seeds ''"),
            ("seeds-empty-entry", "--seeds 1,,2"),
            ("seeds-twice", "--seeds 3,3"),
            ("seeds-negative", "--seeds -1"),
            ("seeds-unknown-set", "--seeds no-such-set"),
            ("seeds-set-and-its-seed", "--seeds standard,1"),
            ("seed-file-misspelt-key", "--seeds inputs/misspelt-seeds.jsonl"),
            ("seed-file-seed-twice", "--seeds inputs/twice-seeds.jsonl"),
            ("one-seat", "--seat local/smart"),
            ("seat-scaffold-near-miss", "--seat local/smart:sherlok --seat local/smart"),
            ("seat-temperature", "--seat local/smart,temperature=9 --seat local/smart"),
            ("seat-unknown-key", "--seat local/smart,colour=red --seat local/smart"),
            ("seat-key-twice", "--seat local/smart,k=2,k=3 --seat local/smart"),
            ("seat-and-model", "--model local/smart --seat local/smart --seat local/cautious"),
            ("seat-and-players", "--seat local/smart --seat local/cautious --players 3"),
            ("api-base-ftp", "--model openai/x --api-base ftp://127.0.0.1:8000/v1"),
            ("api-base-port", "--model openai/x --api-base http://127.0.0.1:99999/v1"),
            ("api-base-no-host", "--model openai/x --api-base http:///v1"),
            ("run-name-path", "--run-name ../escape"),
            ("run-name-too-long", f"--run-name {'n' * 300}"),
            ("model-empty", "--model ''"),
            ("model-unknown-bot", "--model local/genius"),
            ("model-delay-too-long", "--model local/smart@700000ms"),
            ("model-missing-key", "--model openai/gpt-4.1"),
            ("client-openai-local", "--client openai --model local/smart"),
            ("client-openai-no-api-base", "--client openai --model openai/x"),
            ("temperature-3", "--temperature 3"),
            ("temperature-nan", "--temperature nan"),
            ("max-tokens-zero", "--max-tokens 0"),
            ("truncation-below-max-tokens", "--max-tokens 100 --max-tokens-on-truncation 50"),
            ("reasoning-effort-unknown", "--reasoning-effort extreme"),
            ("thinking-budget-negative", "--thinking-budget -5"),
            ("k-8", "--scaffold best-of-k-watson --k 8"),
            ("k-on-single-call-scaffold", "--scaffold watson --k 3"),
            ("skip-without-exclude", "--skip-excluded-seeds"),
            ("exclude-not-an-export", "--exclude-seeds-of inputs"),
            ("too-many-games", "--seeds standard --players 2 3 4 5 --repeats 30"),
            ("config-missing", "--config inputs/no-such-sweep.toml"),
            ("config-unknown-key", "--config inputs/unknown-key-sweep.toml"),
            ("config-scaffold-twice", "--config inputs/twice-scaffold-sweep.toml"),
            ("config-bad-url", "--config inputs/bad-url-sweep.toml"),
            ("config-nan-wait", "--config inputs/nan-wait-sweep.toml"),
            ("config-and-model", "--config inputs/all-scaffolds.toml --model local/smart"),
            ("config-and-run-name", "--config inputs/all-scaffolds.toml --run-name x"),
        ]
    ],
    ("run-out-through-file", "run --out inputs/a-file/runs --no-progress"),
    ("run-out-empty", "run --out '' --no-progress"),
    ("resume-missing", "resume results/no-such-run"),
    ("resume-a-file", "resume inputs/a-file"),
    ("report-missing", "report results/no-such-run --out refused/report"),
    ("report-by-unknown", "report inputs --out refused/report --by colour"),
    ("export-format-unknown", "export inputs --format parquet --out refused/x"),
    ("export-no-out", "export inputs --format hanabilogs"),
    ("export-missing-run", "export results/no-such-run --format hanabilogs --out refused/x"),
    ("values-missing-run", "values results/no-such-run"),
    ("values-not-a-run", "values inputs"),
    ("view-missing-run", "view results/no-such-run --out refused/site"),
    ("view-port-70000", "view inputs --port 70000"),
    ("runs-missing-folder", "runs no-such-folder"),
    ("runs-a-file", "runs inputs/a-file"),
    ("import-inspect-missing-log", "import-inspect no-such-log.eval --out refused"),
    ("import-inspect-out-through-file", "import-inspect inputs/a-file --out inputs/a-file/x"),
]


def folder_refusals(b: Battery) -> list[tuple[str, str]]:
    """Inputs refused for what the battery's run folders, exports, reports and sites hold (run after them)."""
    url, mycroft, valued = b.urls["good"], b.one(MYCROFT), b.one(VALUED)
    judge = f"judge {mycroft} --model openai/j --api-base {url}"
    pref = "export results/tiny --format preferences --out refused/x"
    logs = "export results/tiny --format hanabilogs"
    return [
        ("run-out-inside-run", "run --out results/tiny/inner --no-progress"),
        ("run-run-name-other-config", "run --out results --run-name tiny --seeds 8 --no-progress"),
        (
            "run-exclude-exported-seeds",
            "run --out refused --seeds 1,21 --exclude-seeds-of exports/hanabirewards",
        ),
        ("run-config-other-sweep", "run --config inputs/teams.yaml --out damaged/other-sweep --no-progress"),
        ("resume-timeout-nan", "resume results/tiny --timeout nan"),
        ("resume-concurrency-negative", "resume results/tiny --concurrency -3"),
        ("resume-api-base-bad", "resume results/tiny --api-base 'not a url'"),
        ("resume-sweep-api-base", f"resume results/teams-yaml --api-base {url}"),
        ("resume-manifest-not-json", "resume damaged/manifest-not-json"),
        ("resume-manifest-empty", "resume damaged/manifest-empty"),
        ("resume-manifest-wrong-record", "resume damaged/manifest-wrong-record"),
        ("resume-sweep-not-json", "resume damaged/sweep-not-json"),
        *[(f"resume-{path.split('/')[1]}", f"resume {path} --no-progress") for path in LOG_DAMAGE.split()],
        (
            "rerun-corrupt-log",
            "run --model local/cautious --scaffold watson --seeds 7 --run-name log-corrupt-line "
            "--out damaged --no-progress",
        ),
        ("report-out-inside-run", "report results --out results/tiny/report"),
        ("report-out-a-file", "report results/tiny --out inputs/a-file"),
        ("report-out-holding-runs", "report results/tiny --out results"),
        ("report-out-exists", "report results/tiny --out reports/all"),
        ("report-force-over-other-files", "report results/tiny --out inputs --force"),
        ("report-by-twice", "report results/tiny --out refused/report --by model model"),
        ("report-out-blank", "report results/tiny --out ' '"),
        ("report-copied-run", "report results/tiny damaged/copied --out refused/report"),
        ("report-manifest-not-json", "report damaged/manifest-not-json --out refused/report"),
        ("export-margin-other-format", "export results/tiny --format hanablive --margin 0.5 --out refused/x"),
        ("export-margin-zero", f"{pref} --margin 0"),
        ("export-margin-nan", f"{pref} --margin nan"),
        ("export-pairs-zero", f"{pref} --pairs-per-move 0"),
        ("export-max-game-kb-negative", f"{pref} --max-game-kb -1"),
        ("export-pairs-other-format", f"{logs} --pairs-per-move 2 --out refused/x"),
        ("export-max-game-kb-other-format", f"{logs} --max-game-kb 5 --out refused/x"),
        (
            "export-repair-hanablive",
            "export results/tiny --format hanablive --repair-dialogue --out refused/x",
        ),
        ("export-players-7", f"{logs} --players 7 --out refused/x"),
        ("export-min-score-26", f"{logs} --min-score 26 --out refused/x"),
        ("export-no-matching-game", f"{logs} --model openai/none --out refused/x"),
        (
            "export-no-complete-game",
            "export damaged/log-torn-tail --format hanabilogs --out refused/x",
        ),
        ("export-out-exists", f"{logs} --out exports/hanabilogs"),
        ("export-out-of-another-kind", "export results/tiny --format hanablive --out exports/hanabilogs"),
        ("export-force-not-an-export", f"{logs} --out inputs --force"),
        ("export-out-inside-run", f"{logs} --out results/tiny/export"),
        ("export-copied-run", "export results/tiny damaged/copied --format hanabilogs --out refused/x"),
        ("export-manifest-empty", "export damaged/manifest-empty --format hanabilogs --out refused/x"),
        ("judge-built-in-player", f"judge {mycroft} --model local/smart"),
        ("judge-no-mycroft-moves", f"judge results/tiny --model openai/judge --api-base {url}"),
        ("judge-api-base-port-0", f"judge {mycroft} --model openai/j --api-base http://127.0.0.1:0/v1"),
        ("judge-concurrency-zero", f"{judge} --concurrency 0"),
        ("judge-retry-wait-over-max", f"{judge} --retry-wait 5 --retry-wait-max 1"),
        ("judge-max-retries-negative", f"{judge} --max-retries -1"),
        ("judge-timeout-nan", f"{judge} --timeout nan"),
        ("judge-temperature-5", f"{judge} --temperature 5"),
        ("judge-other-judge-model", f"judge {mycroft} --model openai/other-judge --api-base {url}"),
        ("values-rollouts-zero", "values results/tiny --rollouts 0"),
        ("values-rollouts-1001", "values results/tiny --rollouts 1001"),
        ("values-from-turn-zero", "values results/tiny --from-turn 0"),
        ("values-workers-zero", "values results/tiny --workers 0"),
        ("values-manifest-not-json", "values damaged/manifest-not-json"),
        ("values-other-settings", f"values {valued} --rollouts 3 --seed 7 --no-progress"),
        ("view-out-and-port", "view results/tiny --out refused/site --port 8000"),
        ("view-force-without-out", "view results/tiny --force"),
        ("view-out-a-file", "view results/tiny --out inputs/a-file"),
        ("view-out-overlaps-runs", "view results --out results/tiny/site"),
        ("view-out-exists", "view results/tiny --out reports/viewer"),
        ("view-force-over-other-files", "view results/tiny --out inputs --force"),
    ]


def task(b: Battery, label: str, command: str) -> Callable[[], None]:
    def run() -> None:
        b.hanabi(label, command)

    return run


def refusing(b: Battery, cases: list[tuple[str, str]]) -> list[Callable[[], None]]:
    return [task(b, f"refused-{label}", command) for label, command in cases]


def battery(b: Battery) -> None:
    for name, text in INPUTS.items():
        (b.scratch / "inputs" / name).write_text(text, encoding="utf-8")
    (b.scratch / "inputs" / "empty").mkdir()
    b.hanabi("version", "--version")
    b.hanabi("scaffolds", "scaffolds")
    helps = [task(b, f"help-{name}", f"{name} --help") for name in COMMANDS]
    play(b, [task(b, "help", "--help"), *helps, *refusing(b, OPTION_REFUSALS)])
    damage(b)
    read(b)
    late = folder_refusals(b)
    b.refused = [label for label, _ in [*OPTION_REFUSALS, *late]]
    in_parallel(refusing(b, late))


# ---- normalising -------------------------------------------------------------------------------------------

TIME_KEYS = ("created_at", "updated_at", "started_at", "finished_at", "generated_at", "since", "exported_at")
SECONDS_KEYS = ("latency_s", "latency_mean_s", "latency_median_s", "wall_s")
VERSION_KEYS = (  # a manifest's `versions` (hanabi-eval's own version stays: it is the code's)
    "python",
    "platform",
    "litellm",
    "hanabi-learning-environment",
    "pydantic",
    "jinja2",
    "openai",
    "anthropic",
)
JSON_STRING = r'"(?:[^"\\]|\\.)*"'
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
DATE_TIME = re.compile(r"\b(\d{4}-\d\d-\d\d)([T ])(\d\d:\d\d)(:\d\d)?(\.\d+)?([+-]\d\d:\d\d|Z)?")
BINARY = (".png", ".jpg", ".gif", ".ico", ".woff", ".woff2", ".eval", ".zip", ".parquet")
# Table columns whose cells vary from run to run, by heading: in CSV files, and in report.md's and .html's
CSV_COLUMNS = {
    "git_dirty": "<GIT-DIRTY>",
    "latency_s": "<SECONDS>",
    "latency_mean_s": "<SECONDS>",
    "latency_median_s": "<SECONDS>",
}
TABLE_COLUMNS = {"latency / move, mean (s)": "<SECONDS>", "latency / move, median (s)": "<SECONDS>"}


def _key(keys: tuple[str, ...], value: str) -> re.Pattern[str]:
    return re.compile(r'("(?:' + "|".join(re.escape(k) for k in keys) + r')"\s*:\s*)(' + value + ")")


TIME_FIELD = _key(TIME_KEYS, JSON_STRING)
SECONDS_FIELD = _key(SECONDS_KEYS, NUMBER.pattern)
VERSION_FIELD = _key(VERSION_KEYS, JSON_STRING)
DIRTY_FIELD = _key(("dirty", "git_dirty"), "true|false")
PID_FIELD = _key(("pid",), NUMBER.pattern)
COMMIT_FIELD = _key(("commit", "git_commit"), r'"[0-9a-f]{40}"')  # a commit made while the battery ran
HOST_FIELD = _key(("host",), JSON_STRING)


def _shape(match: re.Match[str]) -> str:
    """A date and time with its digits replaced by what they stand for: its format stays visible."""
    separator, seconds, fraction, zone = match.group(2), match.group(4), match.group(5), match.group(6)
    return (
        f"YYYY-MM-DD{separator}hh:mm"
        + (":ss" if seconds else "")
        + ("." + "f" * (len(fraction) - 1) if fraction else "")
        + (zone or "")
    )


class Normaliser:
    """Replaces what varies between two runs of the same code with fixed placeholders."""

    def __init__(self, scratch: Path, urls: dict[str, str], commits: set[str]) -> None:
        exact: dict[str, str] = {}
        for name, url in urls.items():
            exact[url.split("//", 1)[1].split("/", 1)[0]] = f"127.0.0.1:<PORT-{name}>"
        for path, name in (
            (scratch, "<SCRATCH>"),
            (Path(sys.executable), "<PYTHON>"),
            (Path(sys.prefix), "<VENV>"),
            (CHECKOUT, "<CHECKOUT>"),
        ):
            exact[str(path)] = name
            exact[str(path.resolve())] = name
        for commit in commits:  # the checkout's HEAD when the battery began and ended
            for length in (40, 12):  # as records and `--version` give it
                exact[commit[:length]] = "<GIT-COMMIT>"
        for run_id, folder in run_ids(scratch).items():
            exact[run_id] = f"{folder}-<RUN-ID>"
        self.exact = sorted(exact.items(), key=lambda item: -len(item[0]))
        self._exact = re.compile("|".join(re.escape(k) for k, _ in self.exact))
        self._lookup = dict(self.exact)

    def text(self, text: str, json_file: bool = False) -> str:
        """Text printed or written: JSON values by their key; in other text (tables, pages, Markdown, output)
        also every ISO date and time, and the phrases that give a duration."""
        text = self._exact.sub(lambda m: self._lookup[m.group(0)], text)
        text = TIME_FIELD.sub(lambda m: m.group(1) + DATE_TIME.sub(_shape, m.group(2)), text)
        text = SECONDS_FIELD.sub(r"\1<SECONDS>", text)
        text = VERSION_FIELD.sub(r'\1"<VERSION>"', text)
        text = DIRTY_FIELD.sub(r'\1"<GIT-DIRTY>"', text)
        text = COMMIT_FIELD.sub(r'\1"<GIT-COMMIT>"', text)
        text = PID_FIELD.sub(r"\1<PID>", text)
        text = HOST_FIELD.sub(r'\1"<HOST>"', text)
        if json_file:
            return text
        text = DATE_TIME.sub(_shape, text)
        # uncommitted changes: said after the commit in reports and by --version (not said of a clean tree)
        text = text.replace("<GIT-COMMIT> (uncommitted changes)", "<GIT-COMMIT>")
        text = text.replace("<GIT-COMMIT>, with uncommitted changes", "<GIT-COMMIT>")
        text = re.sub(r"(`<GIT-COMMIT>` \| )(yes|no)( \|)", r"\1<GIT-DIRTY>\3", text)  # a dataset card's runs
        # the end of a run: "wall time │ 0m 03s this session"; a viewer site: "... to DIR in 0.4 s; open ..."
        text = re.sub(r"(wall time +│ )(?:\d+h )?\d+m \d\ds", r"\1<WALL>", text)
        text = re.sub(r"( in )\d+\.\d s(; open )", r"\1<SECONDS> s\2", text)
        # the viewer's attempts: "finish_reason stop · 712 + 132 tokens · 0.05 s · $0.0000"
        text = re.sub(r"(\d \+ [\d,]+ tokens · )\d+(?:\.\d+)? s\b", r"\1<SECONDS> s", text)
        return text

    def csv(self, text: str) -> str:
        """A CSV file: the cells of the columns that vary get their placeholder (where writing the file again
        as it was read gives the same bytes, so that nothing else changes; else the file stays as it is)."""
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows or not any(column in rows[0] for column in CSV_COLUMNS):
            return text
        terminator = "\r\n" if "\r\n" in text else "\n"
        if _csv_text(rows, terminator) != text:
            return text
        indices = {i: CSV_COLUMNS[c] for i, c in enumerate(rows[0]) if c in CSV_COLUMNS}
        for row in rows[1:]:
            for index, placeholder in indices.items():
                if index < len(row) and _varies(row[index]):
                    row[index] = placeholder
        return _csv_text(rows, terminator)

    def markdown(self, text: str) -> str:
        """report.md: the cells of the table columns that vary (by heading) get their placeholder."""
        lines = text.split("\n")
        replace: dict[int, str] = {}
        for number, line in enumerate(lines):
            if not line.startswith("|"):
                replace = {}
                continue
            cells = re.split(r"(?<!\\)\|", line)
            if number + 1 < len(lines) and re.fullmatch(r"\|(?: *:?-+:? *\|)+", lines[number + 1]):
                replace = {
                    i: TABLE_COLUMNS[c.strip()] for i, c in enumerate(cells) if c.strip() in TABLE_COLUMNS
                }
                continue
            for index, placeholder in replace.items():
                if index < len(cells) and _varies(cells[index].strip()):
                    cells[index] = f" {placeholder} "
            lines[number] = "|".join(cells)
        return "\n".join(lines)

    def html(self, text: str) -> str:
        """report.html: the cells of the table columns that vary (by heading) get their placeholder."""

        def table(match: re.Match[str]) -> str:
            body = match.group(0)
            headings = [
                re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th\b[^>]*>(.*?)</th>", body, re.S)
            ]
            replace = {i: TABLE_COLUMNS[h] for i, h in enumerate(headings) if h in TABLE_COLUMNS}
            if not replace:
                return body

            def row(match: re.Match[str]) -> str:
                cells = re.split(r"(<td\b[^>]*>)", match.group(0))  # text, tag, cell, tag, cell, ...
                for index, placeholder in replace.items():
                    at = 2 * index + 2
                    if at < len(cells):
                        content, end, rest = cells[at].partition("</td>")
                        if _varies(content.strip()):
                            cells[at] = placeholder + end + rest
                return "".join(cells)

            return re.sub(r"<tr\b[^>]*>(?:(?!</tr>).)*<td\b.*?</tr>", row, body, flags=re.S)

        return re.sub(r"<table\b.*?</table>", table, text, flags=re.S)

    def path(self, relative: Path) -> Path:
        """A file's path, normalised as text is: a hanab.live replay's name holds its run id."""
        return Path(self._exact.sub(lambda m: self._lookup[m.group(0)], str(relative)))

    def file(self, path: Path) -> bytes:
        data = path.read_bytes()
        if path.suffix in BINARY or b"\0" in data:
            return data  # PNG figures: as they are
        text = data.decode("utf-8", "surrogateescape")  # a log damaged with invalid UTF-8 is normalised too
        text = self.text(text, json_file=path.suffix in (".json", ".jsonl"))
        if path.suffix == ".csv":
            text = self.csv(text)
        elif path.name == "report.md":
            text = self.markdown(text)
        elif path.name == "report.html":
            text = self.html(text)
        return text.encode("utf-8", "surrogateescape")


def _varies(cell: str) -> bool:
    """A cell holding what varies: a number (a latency) or a truth value (a dirty tree), not an empty one."""
    return bool(NUMBER.fullmatch(cell)) or cell in ("True", "False", "true", "false")


def _csv_text(rows: list[list[str]], terminator: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator=terminator).writerows(rows)
    return out.getvalue()


def run_ids(scratch: Path) -> dict[str, str]:
    """Every run id in a manifest or a game log's header below the scratch folder, with its folder's name: a
    new run's id is its folder's name and six random hex digits."""
    found: dict[str, str] = {}
    pattern = re.compile(r'"run_id":\s*"([A-Za-z0-9._+-]+)-([0-9a-f]{6})"')
    for path in [*scratch.rglob("manifest.json"), *scratch.rglob("games/*.jsonl")]:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
        for match in pattern.finditer(head):
            found[f"{match.group(1)}-{match.group(2)}"] = match.group(1)
    return found


def git_commit() -> str | None:
    done = subprocess.run(
        ["git", "-C", str(CHECKOUT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or None


# ---- writing and comparing snapshots -----------------------------------------------------------------------


def write_snapshot(b: Battery, out: Path, norm: Normaliser) -> None:
    files = out / "files"
    tree: dict[Path, str] = {}
    for path in walk(b.scratch):
        relative = path.relative_to(b.scratch)
        if relative.parts[0] == "inputs" and relative.parts[1:2] != ("empty",):
            continue
        named = norm.path(relative)
        if named in tree:
            raise RuntimeError(f"two paths are {named} once normalised")
        tree[named] = "dir" if path.is_dir() else "file"
        if tree[named] == "file":
            target = files / named
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(norm.file(path))
    listing = "".join(f"{kind} {named}\n" for named, kind in sorted(tree.items()))
    (out / "tree.txt").write_text(listing, encoding="utf-8")
    commands = out / "commands"
    commands.mkdir()
    refused = set(b.refused)
    for label, outcome in sorted(b.outcomes.items()):
        if label.startswith("refused-") and label.removeprefix("refused-") in refused:
            continue
        text = (
            f"$ hanabi-eval {' '.join(_quoted(a) for a in outcome.argv)}\n"
            f"exit code: {outcome.code}\n"
            f"--- stdout ---\n{outcome.stdout}"
            f"--- stderr ---\n{outcome.stderr}"
        )
        (commands / f"{label}.txt").write_text(norm.text(text), encoding="utf-8")
    lines = []
    for label in b.refused:
        outcome = b.outcomes[f"refused-{label}"]
        line = f"{label} | hanabi-eval {' '.join(_quoted(a) for a in outcome.argv)} | exit {outcome.code} | "
        line += outcome.stderr.rstrip("\n").replace("\n", " ⏎ ")
        if outcome.stdout:
            line += " | stdout: " + outcome.stdout.rstrip("\n").replace("\n", " ⏎ ")
        lines.append(norm.text(line))
    (out / "refused.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _quoted(arg: str) -> str:
    return arg if arg and re.fullmatch(r"[\w@%+=:,./-]+", arg) else json.dumps(arg)


def walk(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            yield Path(folder) / name


def make(out: Path, keep: bool) -> int:
    started = time.monotonic()
    if out.exists() and any(out.iterdir()):
        print(f"{out} is not empty; give a new or empty folder", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(CHECKOUT))
    from tests.fakeserver import FakeModelServer

    scratch = Path(tempfile.mkdtemp(prefix="hanabi-snapshot-"))
    (scratch / "inputs").mkdir()
    check_checkout(scratch)
    head = git_commit()
    scripts = Scripts()
    with (
        FakeModelServer(scripts.misbehaving, "fake-model") as bad,
        FakeModelServer(scripts.good, "fake-model") as good,
        FakeModelServer(scripts.judge, "judge") as judge,
    ):
        urls = {"misbehaving": bad.base_url, "good": good.base_url, "judge": judge.base_url}
        b = Battery(scratch, urls)
        try:
            battery(b)
        except BaseException:
            print(f"the battery stopped; its scratch folder is kept: {scratch}", file=sys.stderr)
            raise
    commits = {commit for commit in (head, git_commit()) if commit}
    write_snapshot(b, out, Normaliser(scratch, urls, commits))
    if keep:
        print(f"scratch folder kept: {scratch}")
    else:
        shutil.rmtree(scratch)
    failed = [o.label for o in b.outcomes.values() if o.code not in (0, 1, 2)]
    print(
        f"snapshot of {CHECKOUT} written to {out}: {len(b.outcomes)} commands ({len(b.refused)} refused "
        f"inputs) in {time.monotonic() - started:.0f} s ({b.cpu_s:.0f} s CPU)"
        + (f"; exit codes other than 0, 1, 2: {', '.join(failed)}" if failed else "")
    )
    return 0


def check_checkout(scratch: Path) -> None:
    """The commands must run this checkout's code (not what the venv's editable install points at), and the
    plots need matplotlib's font cache before the first report (building it prints a line on stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", "import harness, matplotlib.font_manager; print(harness.__file__)"],
        cwd=scratch,
        env=command_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    where = Path(done.stdout.strip()).resolve()
    if not where.is_relative_to(CHECKOUT):
        raise RuntimeError(f"the commands would import harness from {where}, not from {CHECKOUT}")


def compare(a: Path, b: Path) -> int:
    for side in (a, b):
        if not (side / "tree.txt").is_file():
            print(f"{side} is not a snapshot (no tree.txt)", file=sys.stderr)
            return 2
    left = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    right = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    differences = 0
    for relative in sorted(left | right):
        if relative not in right:
            print(f"only in {a}: {relative}")
        elif relative not in left:
            print(f"only in {b}: {relative}")
        else:
            old, new = (a / relative).read_bytes(), (b / relative).read_bytes()
            if old == new:
                continue
            print(f"differs: {relative}{first_difference(old, new)}")
        differences += 1
    print(f"{differences} file(s) differ" if differences else "identical")
    return 1 if differences else 0


def first_difference(old: bytes, new: bytes) -> str:
    """Where two files first differ: the line (and column) for text, the sizes for binary files."""
    try:
        old_lines, new_lines = old.decode("utf-8").splitlines(), new.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return f" (binary, {len(old)} and {len(new)} bytes)"
    for number, (x, y) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if x != y:
            column = next(
                (i for i, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), min(len(x), len(y))
            )
            start = max(0, column - 60)
            return (
                f"\n    line {number}, column {column + 1}:"
                f"\n    - {x[start : start + 200]}\n    + {y[start : start + 200]}"
            )
    if len(old_lines) == len(new_lines):
        return " (the same lines, other line endings)"
    fewer = "first" if len(old_lines) < len(new_lines) else "second"
    return (
        f"\n    the {fewer} has {abs(len(old_lines) - len(new_lines))} line(s) fewer (the same up to there)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("make", help="run the battery and write a normalised snapshot")
    made.add_argument("out", type=Path, metavar="OUT_DIR", help="a new or empty folder")
    made.add_argument("--keep", action="store_true", help="keep the scratch folder (its path is printed)")
    compared = commands.add_parser("compare", help="list the files that differ between two snapshots")
    compared.add_argument("a", type=Path)
    compared.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        return make(args.out, args.keep)
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())

"""The state-tracking judge (`hanabi-eval judge`, the paper's Appendix E.3): an LLM grades each Mycroft turn's
deduction block against HLE's knowledge rebuilt by replaying the log (never the model's own deductions), into
`<run>/judge/` (judgements, every request, judge.json); a rerun judges only turns not judged."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness import __version__
from harness.engine.game import Game, HistoryEntry, Knowledge
from harness.engine.replay import ReplayMismatch, replay
from harness.models.client import FatalModelError, ModelClient, ProviderGaveUp, close_clients, run_calls
from harness.run.interrupt import stopped_by_ctrl_c
from harness.run.lock import RunLock
from harness.run.manifest import git_state
from harness.run.store import RunDir, write_json_atomic
from harness.schema.config import RetryPolicy
from harness.schema.disk import explain
from harness.schema.errors import EXIT_FAILED, Ended, Refused
from harness.schema.judge_records import JUDGE_DIR, RATINGS, JudgeRecord, judge_files, read_judgements
from harness.schema.log_file import LogCorrupt
from harness.schema.moves import MoveKind
from harness.schema.paths import prompts_dir
from harness.schema.records import (
    Attempt,
    Call,
    GameHeader,
    Message,
    MoveRecord,
    SeatConfig,
    now_iso,
    storable_parsed,
)
from harness.schema.secrets import public_command, safe_url
from harness.strategies.memory import keeps_notes
from harness.strategies.rendering import render_template
from harness.strategies.scaffold import load_scaffold

ATTEMPTS_DIR = "attempts"
RECORD = "judge.json"
TEMPLATES = ("judge/system.j2", "judge/user.j2", "judge/feedback.j2")
MAX_REPLY_CHARS = 100_000  # a longer judge reply is refused unread


class JudgeUnreachable(RuntimeError):
    """The judge model cannot be called at all (bad key, unknown model): judge_runs stops with it, and
    cli/judge.py catches it, says so and exits 1."""


class Verdict(BaseModel):
    """The judge's reply, read strictly: four ratings in [0, 1], feedback, issues and strengths."""

    model_config = ConfigDict(extra="ignore")

    overall_rating: float = Field(ge=0.0, le=1.0)
    deduction_accuracy: float = Field(ge=0.0, le=1.0)
    history_integration: float = Field(ge=0.0, le=1.0)
    state_tracking_quality: float = Field(ge=0.0, le=1.0)
    detailed_feedback: str = Field(strict=True)
    key_issues: list[str] = Field(strict=True)
    strengths: list[str] = Field(strict=True)

    @field_validator(*RATINGS, mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number from 0.0 to 1.0")
        return value


class TurnToJudge(BaseModel):
    model_config = ConfigDict(frozen=True)

    game_id: str
    turn: int
    seat: int
    messages: list[Message]


class JudgeOutcome(BaseModel):
    """What one session of judging a run did."""

    games: int = 0
    already: int = 0  # turns judged by an earlier session
    judged: list[JudgeRecord] = []
    failed: list[tuple[str, int, str]] = []  # (game id, turn, why)
    not_asked: int = 0  # turns left for the next session when the judge could not be called at all
    stopped: str | None = None  # why the judge could not be called at all
    requests: int = 0  # requests sent in this session, good or bad
    tokens: int = 0
    cost_usd: float = 0.0  # as the provider reported it, over the requests whose cost is known
    unpriced_requests: int = 0  # answered by a judge LiteLLM has no price for: cost unknown, not $0
    means: dict[str, float] = {}  # each rating's mean over the run's judgements, earlier sessions' included

    def cost_text(self) -> str:
        """The session's cost as said to the user: never $0 for an unknown price."""
        if self.unpriced_requests:
            known = f"${self.cost_usd:.4f} + " if self.cost_usd else ""
            return f"cost {known}unpriced (LiteLLM has no price for the judge model)"
        return f"${self.cost_usd:.4f} as reported by the provider"


_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL)


def _json_of(reply: str) -> Any:
    """The JSON value a reply holds, bare or in one ```json fence (ValueError or RecursionError if none)."""
    body = reply.strip()
    fenced = _FENCE.match(body)
    body = fenced.group("body") if fenced else body
    return storable_parsed(json.loads(body), body)


def read_verdict(text: str | None) -> Verdict | tuple[str, str]:
    """The verdict in a reply, or (error kind, problem). Accepted: one JSON object, bare or in one ```json fence."""
    if not text or not text.strip():
        return "empty_reply", "the reply was empty"
    if len(text) > MAX_REPLY_CHARS:
        return "unparseable", f"the reply is longer than {MAX_REPLY_CHARS:,} characters"
    try:
        raw = _json_of(text)
    except (ValueError, RecursionError):
        return "unparseable", "it is not one JSON object (give the object alone, without text around it)"
    if not isinstance(raw, dict):
        return "unparseable", "it is JSON but not an object"
    try:
        return Verdict.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or "reply"
        kind = "missing_field" if error["type"] == "missing" else "unparseable"
        return kind, f"{field}: {error['msg']}"



def keeps_working_memory(record: MoveRecord) -> bool:
    """Whether a move was made by a working-memory (Mycroft-style) scaffold."""
    try:
        return keeps_notes(load_scaffold(record.scaffold))
    except Refused:
        return record.memory is not None


def deduction_block(record: MoveRecord) -> str | None:
    """The move's deduction block as the model wrote it: from its working memory, else from its reply's JSON."""
    found: Any = None
    if record.memory is not None:
        found = record.memory.get("deductions", record.memory.get("deduction"))
    if found is None and record.calls:
        try:
            raw = _json_of(record.calls[-1].final.reply or "")
        except (ValueError, RecursionError):
            raw = None
        if isinstance(raw, dict):
            found = raw.get("deductions", raw.get("deduction"))
    if found is None:
        return None
    if isinstance(found, str):
        return found
    if isinstance(found, dict):  # one line per player, compact
        return "\n".join(
            f"{json.dumps(str(k))}: {json.dumps(v, ensure_ascii=False)}" for k, v in found.items()
        )
    return json.dumps(found, ensure_ascii=False)


def _hinted(knowledge: Knowledge) -> str:
    colour = f"colour {knowledge.color}" if knowledge.color else "colour unknown"
    rank = f"rank {knowledge.rank}" if knowledge.rank else "rank unknown"
    return f"{colour}, {rank}"


def _event(entry: HistoryEntry) -> str:
    who = f"P{entry.player}"
    move = entry.move
    if move.kind is MoveKind.PLAY:
        outcome = "onto the fireworks" if entry.scored else "and it failed (a life token lost)"
        return f"{who} played card{move.card_index}, a {entry.card}, {outcome}"
    if move.kind is MoveKind.DISCARD:
        return f"{who} discarded card{move.card_index}, a {entry.card}"
    value = f"colour {move.color}" if move.kind is MoveKind.REVEAL_COLOR else f"rank {move.rank}"
    touched = ", ".join(f"card{i}" for i in entry.revealed)
    return f"{who} clued P{entry.target_player} {value}, touching {touched}"


def _truth(game: Game, seat: int) -> list[dict[str, Any]]:
    hands = game.hands()
    found = []
    for offset in range(game.players):
        player = (seat + offset) % game.players
        cards = [
            {
                "index": i,
                "card": hands[player][i] if offset else None,
                "hinted": _hinted(k),
                "colors": list(k.could_be_colors),
                "ranks": list(k.could_be_ranks),
            }
            for i, k in enumerate(game.knowledge(player))
        ]
        found.append(
            {"label": "you" if offset == 0 else f"player+{offset}", "player": player, "cards": cards}
        )
    return found


def turns_to_judge(header: GameHeader, moves: Sequence[MoveRecord]) -> list[TurnToJudge]:
    """Every working-memory move of a game log with the judge's messages, the truth rebuilt by replaying the log."""
    system = render_template("judge/system.j2").strip()
    previous: dict[int, MoveRecord] = {}
    turns = []
    for step in replay(header.players, header.deck, moves, where=f"game {header.game_id}"):
        game, record = step.game, step.record
        assert record is not None  # a log's moves are records
        if keeps_working_memory(record):
            before = previous.get(record.seat)
            since = before.turn if before is not None else 0
            context = {
                "seat": record.seat,
                "turn": record.turn,
                "players": header.players,
                "history": [{"turn": e.turn, "text": _event(e)} for e in game.history if e.turn > since],
                "life_tokens": game.life_tokens,
                "info_tokens": game.info_tokens,
                "deck_size": game.deck_size,
                "fireworks": game.fireworks,
                "discards": sorted(game.discards()),
                "truth": _truth(game, record.seat),
                "previous_turn": before.turn if before is not None else None,
                "previous_block": deduction_block(before) if before is not None else None,
                "block": deduction_block(record),
            }
            user = render_template("judge/user.j2", **context).strip()
            turns.append(
                TurnToJudge(
                    game_id=header.game_id,
                    turn=record.turn,
                    seat=record.seat,
                    messages=[Message(role="system", content=system), Message(role="user", content=user)],
                )
            )
            previous[record.seat] = record
    return turns



async def ask_judge(
    client: ModelClient, turn: TurnToJudge, reply_retries: int, attempts: list[Attempt]
) -> Verdict | str:
    """Ask until a usable verdict or the re-asks run out: the verdict, or why there is none; attempts go
    into `attempts` as they arrive (for a caller stopped half-way). Raises FatalModelError when the judge
    cannot be called at all (bad key, unknown model)."""
    messages = list(turn.messages)
    problem: str | None = None
    for _ in range(reply_retries + 1):
        try:
            got = await client.call(messages, {}, len(attempts) + 1)
        except ProviderGaveUp as exc:
            attempts.extend(exc.attempts)
            return str(exc)
        except FatalModelError as exc:
            attempts.extend(exc.attempts)
            raise
        attempts.extend(got)
        final = got[-1]
        verdict = read_verdict(final.reply)
        if isinstance(verdict, Verdict):
            return verdict
        kind, problem = verdict
        attempts[-1] = final.rejected(kind, problem)  # a long reply kept as its start, length and digest
        feedback = render_template("judge/feedback.j2", problem=problem).strip()
        messages = [
            *messages,
            Message(role="assistant", content=attempts[-1].reply or ""),
            Message(role="user", content=feedback),
        ]
    return f"no usable verdict after {len(attempts)} attempts ({problem})"



def append_line(path: Path, line: str) -> None:
    """Append one JSON line durably, first cutting off a torn last line left by a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size:
            handle.seek(max(0, size - 1))
            if handle.read(1) != b"\n":
                handle.seek(0)
                data = handle.read()
                handle.truncate(data.rfind(b"\n") + 1)
        handle.seek(0, os.SEEK_END)
        handle.write(line.encode("utf-8") + b"\n")
        handle.flush()
        os.fsync(handle.fileno())


def open_record(judge_dir: Path, seat: SeatConfig, command: list[str]) -> None:
    """Create `judge.json`, or check that it names this judge; add this session to it."""
    prompts = "".join((prompts_dir() / name).read_text(encoding="utf-8") for name in TEMPLATES)
    identity = {
        "judge_model": seat.model,
        "params": seat.params.model_dump(mode="json", exclude={"timeout_s"}, exclude_none=True),
        "templates": hashlib.sha256(prompts.encode()).hexdigest()[:12],
    }
    path = judge_dir / RECORD
    session = {
        "started_at": now_iso(),
        "command": public_command(command),
        "api_base": safe_url(seat.api_base),
    }
    if path.exists():
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            raise Refused(f"{path} is not valid JSON; move the judge folder aside to judge again") from None
        if record.get("identity") != identity:
            held = record.get("identity", {}).get("judge_model")
            raise Refused(
                f"{judge_dir} holds judgements by another judge ({held}, or other settings or prompts); judge "
                "with the same --model and settings, or move that folder aside"
            )
        record.setdefault("sessions", []).append(session)
    else:
        record = {
            "identity": identity,
            "created_at": now_iso(),
            "harness_version": __version__,
            "git": git_state(),
            "sessions": [session],
        }
    judge_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, record)


def _record(outcome: JudgeOutcome, judge_dir: Path, turn: TurnToJudge, status: str, call: Call) -> None:
    """Log a call's attempts with its status (judged, failed or stopped); add them to the session's totals."""
    line = {"game_id": turn.game_id, "turn": turn.turn, "seat": turn.seat, "status": status}
    line["call"] = call.model_dump(mode="json")
    append_line(judge_dir / ATTEMPTS_DIR / f"{turn.game_id}.jsonl", json.dumps(line))
    outcome.requests += len(call.attempts)
    outcome.tokens += sum(a.usage.total_tokens for a in call.attempts)
    outcome.cost_usd += sum(a.cost_usd or 0.0 for a in call.attempts)
    outcome.unpriced_requests += sum(a.cost_unknown for a in call.attempts)



async def judge_run(run: RunDir, client: ModelClient, reply_retries: int, concurrency: int) -> JudgeOutcome:
    """Judge every working-memory turn of a run not judged yet. Once the judge cannot be called at all
    (`stopped` says why), the turns not yet asked are left for the next session."""
    judge_dir = run.path / JUDGE_DIR
    outcome = JudgeOutcome()
    pending: list[TurnToJudge] = []
    for game in run.games():  # each log read as every reader reads it: checked, and replayed from its deal
        if isinstance(game, LogCorrupt):
            raise Refused(f"{game.path}: {game}; the log cannot be replayed, so it cannot be judged")
        header = game.facts.header
        try:
            turns = turns_to_judge(header, game.moves)
        except ReplayMismatch as exc:
            where = run.game_path(header.game_id)
            raise Refused(f"{where}: {exc}; the log cannot be replayed, so it cannot be judged") from None
        if not turns:
            continue
        outcome.games += 1
        judged = read_judgements(judge_dir / f"{header.game_id}.jsonl").judgements
        done = {(j.turn, j.seat) for j in judged}
        outcome.already += sum((t.turn, t.seat) in done for t in turns)
        pending.extend(t for t in turns if (t.turn, t.seat) not in done)
    gate = asyncio.Semaphore(concurrency)

    def call(attempts: list[Attempt]) -> Call:
        return Call(role="judge", model=client.seat.model, attempts=attempts)

    async def one(turn: TurnToJudge) -> None:
        async with gate:
            if outcome.stopped is not None:  # the judge cannot be called: the turns not yet asked wait
                outcome.not_asked += 1
                return
            answered: list[Attempt] = []
            try:
                verdict = await ask_judge(client, turn, reply_retries, answered)
            except asyncio.CancelledError:  # stopped (Ctrl-C): the replies already in are kept and counted
                if answered:
                    _record(outcome, judge_dir, turn, "stopped", call(answered))
                raise
            except FatalModelError as exc:  # calls already in flight finish and are counted
                verdict = str(exc)
                if outcome.stopped is None:
                    outcome.stopped = verdict
        if isinstance(verdict, str):
            _record(outcome, judge_dir, turn, "failed", call(answered))
            outcome.failed.append((turn.game_id, turn.turn, verdict))
            return
        _record(outcome, judge_dir, turn, "judged", call(answered))
        judgement = JudgeRecord(
            game_id=turn.game_id, turn=turn.turn, seat=turn.seat, judge_model=client.seat.model, **verdict.model_dump()
        )
        append_line(judge_dir / f"{turn.game_id}.jsonl", judgement.model_dump_json())
        outcome.judged.append(judgement)

    await asyncio.gather(*(one(turn) for turn in pending))
    judgements = [j for path in judge_files(run.path) for j in read_judgements(path).judgements]
    if judgements:  # every session's, this one's included
        outcome.means = {name: sum(getattr(j, name) for j in judgements) / len(judgements) for name in RATINGS}
    return outcome


def runs_with_memory_games(runs: list[Path], paths: list[Path]) -> list[Path]:
    """The runs below `paths` that hold working-memory games; a damaged log, or none, is refused."""
    found = []
    for path in runs:
        memory = False
        for game in RunDir(path).games():
            if isinstance(game, LogCorrupt):
                raise Refused(f"{game}; repair or remove that log")
            memory = memory or any(keeps_working_memory(m) for m in game.moves)
        if memory:
            found.append(path)
    if not found:
        named = ", ".join(str(p) for p in paths)
        raise Refused(f"{named}: no Mycroft (working-memory) moves to judge; run with --scaffold mycroft first")
    return found


def judge_runs(
    runs: list[Path],
    seat: SeatConfig,
    policy: RetryPolicy,
    reply_retries: int,
    concurrency: int,
    command: list[str],
    on_run: Callable[[RunDir, JudgeOutcome], None],
) -> int:
    """Judge every run under its judge folder's lock, telling `on_run` of each session; the turns unjudged.
    Raises JudgeUnreachable after the run whose session found the judge cannot be called."""
    client = ModelClient(seat, policy)
    failed = 0
    try:
        for path in runs:
            run = RunDir(path)
            judge_dir = path / JUDGE_DIR
            judge_dir.mkdir(exist_ok=True)
            with RunLock(judge_dir):
                open_record(judge_dir, seat, command)

                async def session(run: RunDir = run) -> JudgeOutcome:
                    try:
                        return await judge_run(run, client, reply_retries, concurrency)
                    finally:
                        await close_clients()

                outcome = run_calls(session())
            on_run(run, outcome)
            if outcome.stopped is not None:
                raise JudgeUnreachable(outcome.stopped)
            failed += len(outcome.failed)
    except KeyboardInterrupt:  # as every long session stops: one line, exit code 130
        raise stopped_by_ctrl_c("the judgements made so far are kept") from None
    except OSError as exc:
        raise Ended(f"hanabi-eval: error: {explain(exc)}", EXIT_FAILED) from None
    return failed

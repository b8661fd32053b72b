"""RunManifest: the typed manifest.json of a run directory, written when the run is created and extended by
one session record each time it is played again.

The fields keep the names and order of the JSON that runs have always written, and every model keeps keys it
does not know (extra="allow"), so a manifest written by any version loads, and writing it back changes nothing
but what was added.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.schema.config import ModelPrice, RecordedConfig, SessionOptions


class _Recorded(BaseModel):
    """A part of the manifest: unknown keys are kept, in their order, and written back as they were."""

    model_config = ConfigDict(extra="allow")

    def to_json(self) -> dict[str, Any]:
        """The JSON object as written to disk: only the keys it was made or read with (declared ones in the order
        runs have always written them, then unknown ones), numbers as they were, NaN included, so that writing back
        a manifest of an older version changes nothing but what was added."""
        return self.model_dump(exclude_unset=True)


class GitState(_Recorded):
    commit: str | None = None  # None: not run from a git checkout
    dirty: bool | None = None  # uncommitted changes (untracked files count)


class SeedRecord(_Recorded):
    """One deal of the run, listed once however many times it is played."""

    seed: int
    seed_set: str
    deck: list[str] = []


class PlannedGame(_Recorded):
    """One game of the run's plan (harness.run.store.GamePlan as JSON)."""

    game_id: str
    players: int
    seed: int
    seed_set: str
    seats: list[dict[str, Any]] = []
    repeat: int = 0


class SessionRecord(_Recorded):
    """One session that played the run: when, by which command, and the settings it changed (not part of the
    run's identity): servers, deadlines, retry limits, games at once."""

    started_at: str
    command: list[str] = []
    api_bases: list[str | None] = []
    deployments: list[list[dict[str, Any]]] = []
    timeouts_s: list[float] = []
    reply_retries: int | None = Field(default=None, ge=0)
    retry: dict[str, Any] = {}
    concurrency: int | None = Field(default=None, ge=1)  # absent in sessions recorded before it was
    took_over_lock_of: Any = None  # the lock holder this session replaced, when that one was gone
    prompt_cache: Literal["on", "off"] | None = None  # absent in sessions recorded before prompt caching
    max_cost_usd: float | None = Field(default=None, ge=0)  # the session's budget (--max-cost), when it had one
    prices: dict[str, ModelPrice] = {}  # prices the user gave, per model (USD per million tokens)


class SweepRecord(_Recorded):
    """sweep.json, a sweep folder's record: the sweep's name, the digest of its runs, and its configuration as
    played (harness.session.sweep.SweepConfig as JSON, read there), with the file and command it came from."""

    name: str
    digest: str
    config: dict[str, Any]


class RunManifest(_Recorded):
    """manifest.json: what a run is (its configuration and digest), how to reproduce it (command, versions, git
    commit, seeds with their decks, the parameters sent per seat), its planned games and the sessions that played
    it. Fields a manifest lacks (written by an older version) stay absent when it is written back."""

    run_id: str
    created_at: str
    command: list[str] = []
    config_digest: str
    config: RecordedConfig  # seats without secrets; fields an older version did not write stay absent on writing back
    sent_params: list[dict[str, Any]] = []  # per seat, as sent to LiteLLM (absent in older runs)
    versions: dict[str, str] = {}
    git: GitState = GitState()
    seeds: list[SeedRecord] = []
    games: list[PlannedGame] = []
    sessions: list[SessionRecord] = []

    def with_session(self, session: SessionRecord) -> RunManifest:
        """This manifest with one more session recorded."""
        return self.model_copy(update={"sessions": [*self.sessions, session]})

    def session_options(self) -> SessionOptions:
        """The options the run recorded, which a resumed run keeps unless told otherwise: the last session's games
        at once, prompt caching, budget and prices, the re-asks and provider retries the run was created with (each
        seat keeps its own deadline)."""
        recorded = next((s.concurrency for s in reversed(self.sessions) if s.concurrency), None)
        retries = {"reply_retries": self.config.reply_retries, "retry": self.config.retry}
        last = self.sessions[-1] if self.sessions else None
        kept: dict[str, Any] = {}
        if last is not None:  # the last session's prompt caching, budget and prices
            if last.prompt_cache is not None:
                kept["prompt_cache"] = last.prompt_cache == "on"
            kept.update(max_cost_usd=last.max_cost_usd, prices=last.prices)
        return SessionOptions(**retries, **({"concurrency": recorded} if recorded else {}), **kept)

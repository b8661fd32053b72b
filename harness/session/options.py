"""SessionOptions: how one session plays its games (games at once, worker processes, re-asks, provider retries and
waits, request deadlines, the display), resolved once from the command line over what its source records, and
shared by run, sweep, resume and the workers.

These settings may change from one session of a run to the next: they are recorded in each session's entry of the
manifest but are not part of the run's identity. Their source is one of three:
- a single run: the defaults (SESSION_DEFAULTS);
- a sweep: the sweep file's settings (or, on resume, the sweep.json record of them);
- a resumed run: what its manifest records (the configuration's retry settings, the last session's concurrency).
In each case `resolve` puts the options given on the command line (None: not given) over the source's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.run.options import SessionOptions
from harness.schema.config import RetryPolicy, RunConfig
from harness.schema.errors import Refused
from harness.schema.manifest import RunManifest
from harness.schema.records import DEFAULT_TIMEOUT_S
from harness.session.sweep import SweepConfig

SESSION_DEFAULTS: dict[str, float] = {
    "timeout": DEFAULT_TIMEOUT_S,
    "concurrency": 8,
    "max_retries": 3,
    "provider_retries": 6,
    "retry_wait": 2.0,
    "retry_wait_max": 120.0,
}


class GivenOptions(BaseModel):
    """The session options as the command line gives them; None: not given (the source's setting stands)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout: float | None = None
    concurrency: int | None = None
    workers: int = 1
    max_retries: int | None = None
    provider_retries: int | None = None
    retry_wait: float | None = None
    retry_wait_max: float | None = None
    show_progress: bool = True
    yes: bool = True  # start a run of more than LARGE_RUN games without asking


def _said(flag: str, key: str, seconds: float, given: float | None, source_name: str) -> str:
    """Where a retry wait came from, as the user can find it: its flag, or the source's setting."""
    if given is not None:
        return f"{flag} {seconds:g}"
    if source_name == "the default":
        return f"{seconds:g} s, the default of {flag}"
    return f"{seconds:g} s, retry.{key} in {source_name}"


def over_sweep(options: SessionOptions, sweep: SweepConfig) -> SweepConfig:
    """The sweep with these options in place of its own settings (they are what its runs play with and what
    its sweep.json records)."""
    return sweep.model_copy(
        update={
            "concurrency": options.concurrency,
            "reply_retries": options.reply_retries,
            "retry": options.retry,
            "timeout_s": options.timeout_s,
        }
    )


def defaults() -> SessionOptions:
    """The options of a single run started from the command line, before any is given."""
    return SessionOptions(
        concurrency=int(SESSION_DEFAULTS["concurrency"]),
        reply_retries=int(SESSION_DEFAULTS["max_retries"]),
        retry=RetryPolicy(
            provider_retries=int(SESSION_DEFAULTS["provider_retries"]),
            wait_base_s=SESSION_DEFAULTS["retry_wait"],
            wait_max_s=SESSION_DEFAULTS["retry_wait_max"],
        ),
        timeout_s=SESSION_DEFAULTS["timeout"],
    )


def of_sweep(sweep: SweepConfig) -> SessionOptions:
    """The options a sweep file (or a sweep folder's record) sets."""
    return SessionOptions(
        concurrency=sweep.concurrency,
        reply_retries=sweep.reply_retries,
        retry=sweep.retry,
        timeout_s=sweep.timeout_s,
        model_limits=sweep.model_limits(),
    )


def of_run(config: RunConfig, manifest: RunManifest | None) -> SessionOptions:
    """The options a run recorded: its configuration's retry settings and its last session's concurrency (each
    seat keeps its own deadline)."""
    recorded = manifest.last_concurrency() if manifest is not None else None
    return SessionOptions(
        concurrency=recorded or int(SESSION_DEFAULTS["concurrency"]),
        reply_retries=config.reply_retries,
        retry=config.retry,
    )


def resolve(given: GivenOptions, source: SessionOptions, source_name: str = "the default") -> SessionOptions:
    """The session's options: each one given on the command line over the source's setting. Refused when
    they contradict each other (a first retry wait longer than the longest), naming each as the user can find it:
    its flag, or `source_name` ("the default", "the sweep file", "the run's record")."""
    retry = {
        key: value
        for key, value in (
            ("provider_retries", given.provider_retries),
            ("wait_base_s", given.retry_wait),
            ("wait_max_s", given.retry_wait_max),
        )
        if value is not None
    }
    retry_policy = source.retry.model_copy(update=retry)
    if retry_policy.wait_base_s > retry_policy.wait_max_s:
        first = _said("--retry-wait", "wait_base_s", retry_policy.wait_base_s, given.retry_wait, source_name)
        longest = _said("--retry-wait-max", "wait_max_s", retry_policy.wait_max_s, given.retry_wait_max, source_name)
        raise Refused(
            f"the first retry wait ({first}) is longer than the longest ({longest}); give a --retry-wait-max of at "
            f"least {retry_policy.wait_base_s:g}, or a shorter --retry-wait"
        )
    return source.model_copy(
        update={
            "concurrency": source.concurrency if given.concurrency is None else given.concurrency,
            "workers": given.workers,
            "reply_retries": source.reply_retries if given.max_retries is None else given.max_retries,
            "retry": retry_policy,
            "timeout_s": source.timeout_s if given.timeout is None else given.timeout,
            "show_progress": given.show_progress,
            "yes": given.yes,
        }
    )

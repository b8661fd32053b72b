"""The static site (`hanabi-eval view PATH... --out DIR`): the same pages the server shows, written to a folder that
opens from disk with no server and fetches nothing.

The folder is written whole and renamed into place, never half a site. An existing site is replaced only with
--force, a folder that is not a site never, and a site is never written into a run folder. DIR/site.json lists every
page (schema/viewer_site.py): how a report beside the site links its games to their pages.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness import __version__
from harness.export.writer import check_apart, check_place, check_replaceable, write_export
from harness.run.store import RunDir, find_runs
from harness.schema.errors import Refused
from harness.schema.records import now_iso
from harness.schema.viewer_site import SITE_INDEX, SiteIndex, SiteRun, read_site_index
from harness.web.catalog import Catalog, RunEntry
from harness.web.game_page import build_game_page
from harness.web.pages import (
    ASSETS,
    INDEX,
    asset,
    game_page_path,
    render_game,
    render_index,
    render_run,
    run_page_path,
)


def check_out(out: Path, force: bool, sources: list[Path]) -> None:
    """Refuse an --out that would overwrite something or cannot be written, before any log is read."""
    check_place(out, "site")
    check_apart(out, find_runs(sources), "site")
    if out.exists() and any(out.iterdir()):
        if not (out / SITE_INDEX).is_file():
            raise Refused(
                f"--out {out} is a folder that holds other files, not a viewer site; choose a new or empty folder"
            )
        if not force:
            raise Refused(f"--out {out} already holds a viewer site; pass --force to replace it")
        check_replaceable(out, _site_files(out), "viewer site")
    _probe(out)


def _site_files(out: Path) -> set[str] | None:
    """The files the site in `out` wrote: its index's pages, the index itself and its assets (those of any
    version); None when its index cannot be read."""
    index = read_site_index(out)
    if index is None:
        return None
    pages = {page for run in index.runs for page in (run.page, *run.games.values())}
    assets = {p.relative_to(out).as_posix() for p in (out / "assets").rglob("*")}
    return {INDEX, SITE_INDEX, *pages, *assets}


def _probe(out: Path) -> None:
    """Create (and remove) a folder where the site's staging folder will go, so that an unwritable --out is named
    now rather than after every page was rendered."""
    created = [p for p in reversed(out.parents) if not p.exists()]
    probe = out.parent / f".{out.name}.probe-{uuid.uuid4().hex[:8]}"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        probe.mkdir()
        (probe / "x").write_bytes(b"")
    except OSError as exc:
        raise Refused(
            f"--out {out} cannot be written ({exc.strerror or exc}); choose a writable folder"
        ) from None
    finally:
        shutil.rmtree(probe, ignore_errors=True)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()


_RUNS: list[tuple[RunEntry, RunDir]] = []  # a worker process's copy of the runs, sent once when it starts


def _keep_runs(runs: list[RunEntry]) -> None:
    _RUNS[:] = [(run, RunDir(Path(run.path))) for run in runs]  # each run's reader reads its manifest once


def _game_html(task: tuple[int, str]) -> str:
    """One game page's HTML, by the run's place in _RUNS and the page's name (in a worker, a task is these two
    small values: the run, with every game's summary, crosses to each worker once, not once per page)."""
    number, page = task
    run, folder = _RUNS[number]
    game = run.game(page)
    assert game is not None  # pages come from the run's own list
    return render_game(run, build_game_page(folder, game))


def write_site(catalog: Catalog, out: Path, sources: list[str], jobs: int = 1) -> SiteIndex:
    """Write every page of the catalog's runs to `out` (checked with check_out first); return the site's index.
    With `jobs` above 1, game pages are rendered by that many processes (one core each), written in order."""
    runs = catalog.runs()
    index = SiteIndex(
        generated_at=now_iso(),
        harness_version=__version__,
        runs=[
            SiteRun(
                path=str(Path(run.path).resolve()),
                name=run.name,
                page=run_page_path(run),
                games={g.game_id: game_page_path(run, g.page) for g in run.games},
            )
            for run in runs
        ],
    )
    tasks = [(number, game.page) for number, run in enumerate(runs) for game in run.games]

    def files(pages: Iterator[str]) -> Iterator[tuple[str, list[str]]]:
        for name in ASSETS:
            yield f"assets/{name}", [asset(name).decode("utf-8")]
        yield INDEX, [render_index(runs, sources)]
        for run in runs:
            yield run_page_path(run), [render_run(run)]
        for number, page in tasks:
            yield game_page_path(runs[number], page), [next(pages)]
        yield SITE_INDEX, [index.model_dump_json(indent=1)]

    if jobs <= 1 or len(tasks) < 2:
        _keep_runs(runs)
        write_export(out, files(map(_game_html, tasks)))
    else:
        workers = min(jobs, len(tasks))
        with ProcessPoolExecutor(max_workers=workers, initializer=_keep_runs, initargs=(runs,)) as pool:
            write_export(out, files(pool.map(_game_html, tasks, chunksize=4)))
    return index

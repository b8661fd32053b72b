"""Links from a report to the game viewer's pages when a viewer site sits beside it (schema/viewer_site.py),
only to pages the site's index lists and that are on disk."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.report.rows import RunInfo
from harness.schema.viewer_site import SITE_BESIDE_REPORT, read_site_index


class SiteLinks(BaseModel):
    """Relative links from the report's folder, by the run's name in the report (RunInfo.name, one per run)."""

    model_config = ConfigDict(frozen=True)

    site: str | None = None  # the site's folder, relative to the report
    runs: dict[str, str] = {}
    games: dict[str, dict[str, str]] = {}

    def run(self, name: str) -> str | None:
        return self.runs.get(name)

    def game(self, run: str, game_id: str) -> str | None:
        return self.games.get(run, {}).get(game_id)


def site_links(report_folder: Path, runs: Sequence[RunInfo]) -> SiteLinks:
    folder = report_folder.resolve().parent / SITE_BESIDE_REPORT
    index = read_site_index(folder)
    if index is None:
        return SiteLinks()
    prefix = Path(os.path.relpath(folder, report_folder.resolve())).as_posix()
    links: dict[str, str] = {}
    games: dict[str, dict[str, str]] = {}
    for run in runs:
        found = index.run_of(Path(run.path))
        if found is None or not (folder / found.page).is_file():
            continue
        links[run.name] = f"{prefix}/{found.page}"
        games[run.name] = {
            game_id: f"{prefix}/{page}" for game_id, page in found.games.items() if (folder / page).is_file()
        }
    return SiteLinks(site=prefix, runs=links, games=games)

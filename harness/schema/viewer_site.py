"""The index of a static game-viewer site (`hanabi-eval view ... --out DIR`), DIR/site.json: its runs and
games and where their pages are, read by the report to link its games to their pages.

A report links only into the site in the folder named `viewer` beside its own folder, and only to the pages
the index lists, so a link never points at a missing page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

SITE_INDEX = "site.json"
SITE_BESIDE_REPORT = "viewer"  # the site folder a report looks for beside its own folder


class SiteRun(BaseModel):
    """One run of the site: its folder as given (resolved), its page, and each game's page, relative to the site."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    name: str
    page: str
    games: dict[str, str]  # game id -> page


class SiteIndex(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["hanabi-eval game viewer"] = "hanabi-eval game viewer"
    version: int = 1
    generated_at: str
    harness_version: str
    runs: list[SiteRun]

    def run_of(self, path: Path) -> SiteRun | None:
        """The site's run for a run folder, by its resolved path."""
        wanted = str(path.resolve())
        return next((run for run in self.runs if run.path == wanted), None)


def read_site_index(folder: Path) -> SiteIndex | None:
    """The index of the site in `folder`, or None when there is none or it cannot be read (then nothing links)."""
    try:
        return SiteIndex.model_validate_json((folder / SITE_INDEX).read_bytes())
    except (OSError, ValueError, ValidationError):
        return None

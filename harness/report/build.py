"""Writes a report folder: report.html (self-contained), report.md, and the same figures as CSV and JSON tables.

The one entry point of the report package. Reads the given runs, computes, renders and writes; it never calls a
model and never writes into a run directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.report.content import ReportContent, build_content
from harness.report.export import write_table
from harness.report.load import ReportInputError, load
from harness.report.quality import GameQuality
from harness.report.render import render_html, render_markdown

HTML, MARKDOWN = "report.html", "report.md"


def _game_table(content: ReportContent) -> list[dict[str, object]]:
    quality = {
        (q.run_id, q.game_id): q.model_dump(exclude={"run_id", "game_id"}) for q in content.quality_games
    }
    unjudged = dict.fromkeys(k for k in GameQuality.model_fields if k not in ("run_id", "game_id"))
    return [
        {**row.model_dump(mode="json"), **quality.get((row.run_id, row.game_id), unjudged)}
        for row in content.games
    ]


def write_tables(content: ReportContent, out: Path) -> list[Path]:
    tables: dict[str, Sequence[object]] = {
        "games": _game_table(content),
        "summary": content.groups,
        "summary_by_players": content.by_players,
        "paired": content.paired.comparisons,
        "quality": content.quality,
        "tracking": content.tracking,
        "tracking_by_turn": content.tracking_turns,
        "scaffold_model": content.heat,
        "runs": content.runs,
    }
    written: list[Path] = []
    for name, rows in tables.items():
        written.extend(write_table(out, name, rows))  # type: ignore[arg-type]
    return written


def build_report(paths: Sequence[Path], out: Path, by: Sequence[str]) -> tuple[ReportContent, list[Path]]:
    """Read the runs, write the report folder; return the content and the files written."""
    dataset = load(paths, by)
    if not dataset.games:
        names = ", ".join(r.name for r in dataset.runs)
        raise ReportInputError(f"no game logs in {names}; nothing to report yet")
    content = build_content(dataset, list(by))
    out.mkdir(parents=True, exist_ok=True)
    html, markdown = out / HTML, out / MARKDOWN
    html.write_text(render_html(content), encoding="utf-8")
    markdown.write_text(render_markdown(content), encoding="utf-8")
    return content, [html, markdown, *write_tables(content, out)]

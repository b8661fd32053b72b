"""Generate the shipped seed sets once: each seed with the deck HLE deals for it on this machine.

Run: python scripts/make_seeds.py [SET ...] (default: every set). The files are data from then on; decks are never
regenerated at run time, so a seed deals the same cards everywhere, even where the C++ standard library would
shuffle differently.
"""

from __future__ import annotations

import json
import sys

from harness.engine.game import deck_for_seed
from harness.schema.paths import seeds_dir

SETS = {
    "standard": range(1, 11),  # the evaluation set: 10 seeds, as in the paper's protocol
    "heldout": range(1001, 1011),  # disjoint seeds for models trained on data from the standard set
    # The paper's released environment: with no seed list it plays seeds 0..num_games-1 (num_games defaults to 10),
    # each passed to HLE as its game seed with the random start player off, which is how deck_for_seed deals.
    "paper-env": range(0, 10),
    # The paper's state-tracking judge (Appendix E.3, Table 4): 5-player Mycroft games on seeds 2, 3, 5, 7 and 11.
    "state-tracking": (2, 3, 5, 7, 11),
    # Published per-seed scores of the released environment (Watson, 5 players): see docs/reproducing.md.
    "watson-5p-targets": (4, 6, 8, 10, 12),
}


def main(only: list[str] | None = None) -> None:
    """Write every set, or only the named ones. A stored deck never changes: regenerating an existing set on
    another platform must give identical files (check with git diff)."""
    for name, seeds in SETS.items():
        if only and name not in only:
            continue
        path = seeds_dir() / f"{name}.jsonl"
        lines = [json.dumps({"seed": s, "deck": deck_for_seed(s)}) for s in seeds]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(lines)} seeds)")


if __name__ == "__main__":
    main(sys.argv[1:] or None)

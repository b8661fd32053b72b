"""Generate the shipped seed sets once: each seed with the deck HLE deals for it on this machine.

Run: python scripts/make_seeds.py. The files are data from then on; decks are never regenerated at run time, so
a seed deals the same cards everywhere, even where the C++ standard library would shuffle differently.
"""

from __future__ import annotations

import json

from harness.engine import deck_for_seed
from harness.paths import seeds_dir

SETS = {
    "standard": range(1, 11),  # the evaluation set: 10 seeds, as in the paper's protocol
    "heldout": range(1001, 1011),  # disjoint seeds for models trained on data from the standard set
}


def main() -> None:
    for name, seeds in SETS.items():
        path = seeds_dir() / f"{name}.jsonl"
        lines = [json.dumps({"seed": s, "deck": deck_for_seed(s)}) for s in seeds]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(lines)} seeds)")


if __name__ == "__main__":
    main()

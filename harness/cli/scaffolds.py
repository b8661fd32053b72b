"""`hanabi-eval scaffolds`: list the scaffolds (calls per move, paper setting), then Figure 2's ladder."""

from __future__ import annotations

import argparse

from harness.schema.errors import EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("scaffolds", help="list the scaffolds with their descriptions")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from harness.strategies.scaffold import calls_text, figure2_ladder, load_scaffold, scaffold_names

    table = Table(title="Scaffolds")
    for column in ("name", "calls per move", "output", "paper setting", "description"):
        table.add_column(column)
    for name in scaffold_names():
        scaffold = load_scaffold(name)
        paper = scaffold.paper_label or "-"
        table.add_row(name, calls_text(scaffold), scaffold.output, paper, scaffold.description)
    console = Console(width=max(Console().width, 200))
    console.print(table)
    ladder = ", ".join(f"{s.paper_label} ({s.name})" for s in figure2_ladder())
    console.print(f"The paper's Figure 2 ladder, in its order: {ladder}")
    console.print("'-' in 'paper setting': not one of the paper's settings (this project's variant).")
    return EXIT_OK

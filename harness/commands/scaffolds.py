"""`hanabi-eval scaffolds`: list the scaffolds with a one-line description and model calls per move."""

from __future__ import annotations

import argparse

from harness.commands import EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("scaffolds", help="list the scaffolds with their descriptions")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from harness.scaffold import load_scaffold, scaffold_names

    table = Table(title="Scaffolds")
    for column in ("name", "calls per move", "output", "description"):
        table.add_column(column)
    for name in scaffold_names():
        scaffold = load_scaffold(name)
        table.add_row(name, scaffold.calls_text(), scaffold.output, scaffold.description)
    Console().print(table)
    return EXIT_OK

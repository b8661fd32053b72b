"""The `hanabi-eval` command line: each command module's `register` adds its parser and an `(args) -> exit
code` handler; a refusal is one line and exit code 2, a run with interrupted games exits 1."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import NoReturn

from harness.cli import (
    export,
    import_inspect,
    judge,
    play,
    report,
    resume,
    run,
    runs,
    scaffolds,
    values,
    view,
)
from harness.cli.streams import output_may_close
from harness.run.interrupt import STOP_SIGNALS, cause, stop_on_sigterm
from harness.schema.disk import explain
from harness.schema.errors import EXIT_FAILED, EXIT_REFUSED, EXIT_STOPPED, Ended, Refused

COMMANDS = [run, play, resume, runs, scaffolds, export, report, judge, values, view, import_inspect]

class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        where = self.prog.split(" ", 1)[1] + " " if " " in self.prog else ""
        self.exit(EXIT_REFUSED, f"hanabi-eval: error: {message} (see hanabi-eval {where}--help)\n")


class _Version(argparse.Action):
    """`--version`: the version, git commit and whether hot modules run compiled (computed when asked)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        print(version_line())
        parser.exit(0)


def version_line() -> str:
    from harness import __version__, compiled_modules
    from harness.run.manifest import git_state

    git = git_state()
    if git["commit"] is None:
        where = "git commit unknown (not run from a git checkout)"
    else:
        where = f"git {git['commit'][:12]}" + (", with uncommitted changes" if git["dirty"] else "")
    compiled = len(compiled_modules())
    build = f"{compiled} modules compiled with mypyc" if compiled else "Python source, not compiled"
    return f"hanabi-eval {__version__} ({where}; {build})"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hanabi-eval", description="Evaluate LLM agents playing the cooperative card game Hanabi."
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="print the version and git commit of this harness and whether it runs compiled, then exit",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    with output_may_close():  # output to a closed pipe (`| head`) is dropped, never an error: cli/streams.py
        if argv is None:  # the command itself, not a caller in its process: SIGTERM stops it as Ctrl-C does
            stop_on_sigterm()
        args = build_parser().parse_args(argv)
        args.argv = sys.argv if argv is None else ["hanabi-eval", *argv]
        try:
            return args.handler(args)
        except Refused as exc:
            print(f"hanabi-eval: error: {exc}", file=sys.stderr)
            return EXIT_REFUSED
        except Ended as exc:
            print(str(exc), file=sys.stderr)
            if exc.code == EXIT_STOPPED and argv is None:
                _exit_quietly()
            return exc.code
        except KeyboardInterrupt as exc:  # before any game started (or after all ended): no move to resume
            print(f"Stopped by {cause(exc)}.", file=sys.stderr)
            if argv is None:
                _exit_quietly()
            return EXIT_STOPPED
        except OSError as exc:  # a disk fault outside a session (e.g. creating --out)
            print(f"hanabi-eval: error: {explain(exc)}", file=sys.stderr)
            return EXIT_FAILED


def _exit_quietly() -> None:
    """A further Ctrl-C (or SIGTERM) during the teardown after a stop must not turn exit code 130 into death
    by signal."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())

"""How a command says no, and how it ends early: the one refusal type, the one early end, and the exit codes.

A refusal is raised where the problem is found, in whichever layer, and travels up untouched: the command line
(cli/main.py) prints it as one line and exits 2, the Inspect task shows it as Inspect shows its own input errors
(inspect/task.py). Standard library only: the console script reads the exit codes before anything else is loaded.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # games left interrupted, or a session cut short by a disk fault or a lost worker: resumable
EXIT_REFUSED = 2  # bad input, refused before any model was called; nothing to resume
EXIT_BUDGET = 3  # the session stopped at its budget (--max-cost): resumable with a higher one
EXIT_STOPPED = 130  # the shell's convention for a process ended by SIGINT; SIGTERM's stop exits with it too


class Refused(ValueError):
    """What the user gave cannot be used (an option, a path, a file, a folder of runs): the message is one line that
    names the problem and the fix. Nothing catches it on the way up but the command line and the Inspect task,
    and the readers that name a damaged file and go on (RunFolderDamaged). A ValueError, so that a check raising it
    inside a pydantic validator reads as that model's validation error."""


class Ended(Exception):
    """A command that ended early (Ctrl-C, a disk fault, a lost worker): its one line, already worded, and its exit
    code. Raised by the session that ended; the command line prints it."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code

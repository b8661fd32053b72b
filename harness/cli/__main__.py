"""`python -m harness.cli`: the hanabi-eval command line.

Run as a module, CPython ends the process by SIGINT (exit status -2, not the command's code) once a Ctrl-C's
KeyboardInterrupt left code that exec() ran (a dataclass being defined during a lazy import), however the command
handled it afterwards. An exec() that runs to its end clears that mark, so the exit code is the command's (130).
"""

import sys

from harness.cli.entry import main

try:
    sys.exit(main())
finally:
    exec("")  # clears the mark of an interrupted exec(): see above

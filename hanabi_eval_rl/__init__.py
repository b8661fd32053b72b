"""The verifiers plugin name of the Hanabi taskset (harness.rl.verifiers_env): verifiers loads a taskset by the name
of a top-level module that exports its Taskset class in `__all__` (`--env.taskset.id hanabi-eval-rl`)."""

from harness.rl.verifiers_env import HanabiTaskset

__all__ = ["HanabiTaskset"]

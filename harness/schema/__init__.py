"""The typed records every writer and reader of a run shares (imports nothing else of the harness)."""

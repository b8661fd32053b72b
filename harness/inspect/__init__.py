"""Inspect AI integration: the hanabi task, its seats' callers, the built-in players as the `hanabi/` model API, and
the import of an Inspect log into a run folder (its registry is the top-level package hanabi_eval)."""

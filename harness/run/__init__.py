"""A run folder: manifest, one append-only JSONL log per game, locks, status, progress, resume and workers."""

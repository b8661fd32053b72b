"""The results report: reads run directories and writes an HTML and Markdown report with CSV and JSON tables.

Everything comes from the logs (manifests, status files, game logs); play-quality figures replay the logged moves
through the engine. Nothing in this package ever calls a model or writes into a run directory.
"""

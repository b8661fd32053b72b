"""The results report (docs/report.md): reads run directories and writes HTML, Markdown, CSV and JSON; it
never calls a model or writes into a run directory."""

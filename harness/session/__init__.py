"""A session's options, resolved once from the command line, a sweep file or a resumed run."""

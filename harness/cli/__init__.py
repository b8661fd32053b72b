"""The hanabi-eval command line: one module per subcommand; parses, validates, calls, prints."""

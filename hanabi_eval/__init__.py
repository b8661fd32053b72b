"""The Inspect AI extension package of hanabi-eval: `inspect eval hanabi_eval/hanabi` and the `hanabi/<bot>` model
API (registered in hanabi_eval._registry through the `inspect_ai` entry point). The code is harness.inspect."""

"""The only code that calls LiteLLM: deadlines, retries, usage, cost, redaction; the offline local/ provider."""

"""Text renderers for the CLI: plain dicts in, strings out; they never query."""

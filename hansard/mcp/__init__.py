"""The MCP server (stdio) and its install helpers: thin adapters over the answers."""

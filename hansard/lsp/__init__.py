"""`hansard lsp`: the editors' entry point (hover, inlay hints / code lens, the conversation
command), a thin adapter over the `why` and transcript answers. Only ``hansard lsp`` imports
this package's server module, so pygls and lsprotocol never load on the CLI's other paths."""

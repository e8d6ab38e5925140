"""One module per coding agent: each exports one ``AGENT`` record; the registry lists them."""

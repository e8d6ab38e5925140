"""The application layer: what every adapter (the CLI, the MCP and language servers, the web
page) shares about a request (``house``: the application object and a request's life).
"""

"""User-facing interfaces (CLI now; HTTP API, web UI and MCP later), all over one Engine."""

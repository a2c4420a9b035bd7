"""User-facing interfaces (CLI now; HTTP API, web UI and MCP later), all over one Engine."""

import geungeo.agent  # noqa: F401  (the composition: registers the agent answer mode with the graph's runner)

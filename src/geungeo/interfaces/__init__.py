"""User-facing interfaces (CLI now; HTTP API, web UI and MCP later), all over one Engine."""

from geungeo.graph.modes import register_mode

register_mode("agent", "geungeo.agent:run_agent")  # the composition: the agent answers GEUNGEO_MODE=agent

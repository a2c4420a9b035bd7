"""Tool-calling agent mode and the tools it shares with the MCP server.

:mod:`geungeo.agent.tools` defines ``search_documents``, ``get_article``, ``get_document_outline`` and
``answer`` once; :mod:`geungeo.agent.loop` lets a chat model call them (``GEUNGEO_MODE=agent``), falling
back to the answer graph when it cannot. Importing this package registers the ``agent`` answer mode with the
graph's runner (:mod:`geungeo.graph.modes`); callers go through :func:`geungeo.graph.run_query` /
:func:`geungeo.graph.stream_query`, which dispatch on the mode.
"""

from geungeo.agent.loop import Agent, run_agent
from geungeo.agent.tools import Toolbox, ToolFailure, ToolResult
from geungeo.graph.modes import register_mode

register_mode("agent", run_agent)

__all__ = ["Agent", "ToolFailure", "ToolResult", "Toolbox", "run_agent"]

"""The ``geungeo mcp`` server: geungeo's tools over MCP (stdio or streamable HTTP).

Desktop assistants (Claude Desktop, IDEs) connect to it and call four tools: ``search_documents``,
``get_article``, ``get_document_outline`` and ``answer``. The tools are defined once, in
:mod:`geungeo.agent.tools` (the tool-calling agent binds the same ones); this module only adapts them.
Errors a user can fix (:class:`GeungeoError`) come back as MCP tool errors carrying their message; the
server keeps running.

Built on the official ``mcp`` SDK (2.x, where ``FastMCP`` is named ``MCPServer``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from geungeo.agent.tools import DESCRIPTIONS, Toolbox
from geungeo.errors import GeungeoError
from geungeo.services import Services
from geungeo.services.inputs import user_query, valid_text

T = TypeVar("T")

INSTRUCTIONS = (
    "geungeo (근거) searches ingested Korean documents: statutes, 규정집, PDF, DOCX. "
    "Use search_documents for free-text search, get_article for one article (e.g. 근로기준법 제60조), "
    "get_document_outline for a document's structure, and answer for a grounded answer with citations."
)
ANSWER_DESCRIPTION = (
    "A grounded answer with citations (or 근거 부족 when the documents do not say). 근거 기반 답변. "
    "Pass the same conversation_id to ask follow-up questions. context (optional): chunk_ids or labels "
    "(e.g. '근로기준법 제60조') of passages to answer from, instead of searching."
)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """Turn geungeo errors into MCP tool errors with their message (the client sees it, the server lives on)."""
    try:
        yield
    except GeungeoError as exc:
        raise ToolError(str(exc)) from exc


def build_server(engine: Any = None, settings: Any = None) -> MCPServer:
    """The MCP server with geungeo's tools.

    The services are built over ``engine`` (default: ``build_engine(settings)``) on the first tool call, so the
    handshake is quick. What a client sends is checked by the services (valid Unicode, length) before any tool runs.
    """
    server: MCPServer = MCPServer("geungeo", instructions=INSTRUCTIONS, log_level="WARNING")
    lock = threading.Lock()  # tools run in worker threads; the engine is used by one call at a time
    state: dict[str, Services] = {}

    def _services() -> Services:
        if "services" not in state:
            state["services"] = Services(engine) if engine is not None else Services.build(settings)
        return state["services"]

    box = Toolbox(lambda: _services().engine)

    def _call(work: Callable[[], T]) -> T:
        with lock, _tool_errors():
            return work()

    def _text(value: str, what: str) -> str:
        return user_query(value, _services().settings.max_query_chars, what=what)

    @server.tool(description=DESCRIPTIONS["search_documents"])
    def search_documents(query: str, top_k: int = 5, filters: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = _call(
            lambda: box.search_documents(_text(query, "query"), top_k, valid_text(filters or "") or None).payload
        )
        return result

    @server.tool(description=DESCRIPTIONS["get_article"])
    def get_article(regulation: str, article: str) -> dict[str, Any]:
        result: dict[str, Any] = _call(
            lambda: box.get_article(_text(regulation, "regulation"), _text(article, "article")).payload
        )
        return result

    @server.tool(description=DESCRIPTIONS["get_document_outline"])
    def get_document_outline(regulation: str) -> dict[str, Any]:
        result: dict[str, Any] = _call(lambda: box.get_document_outline(_text(regulation, "regulation")).payload)
        return result

    @server.tool(description=ANSWER_DESCRIPTION)
    def answer(question: str, conversation_id: str | None = None, context: list[str] | None = None) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            answers = _services().answers
            checked = answers.check(question)
            if context:
                from geungeo.retrieval.expansion import settings_lexicon

                runner = _services().runner
                llm = runner.llm if isinstance(runner.llm, BaseChatModel) else None
                labels = [valid_text(c, what="context") for c in context]
                grounded = box.answer(checked.text, labels, llm=llm, lexicon=settings_lexicon(runner.settings))
            else:
                grounded = answers.ask(checked, conversation_id)  # graph or agent, per GEUNGEO_MODE
            result: dict[str, Any] = grounded.model_dump(mode="json")
            return result

        return _call(work)

    return server


def main(http: bool = False, host: str = "127.0.0.1", port: int = 8765, settings: Any = None) -> None:
    """Run the server over stdio (default) or streamable HTTP (``http://HOST:PORT/mcp``)."""
    server = build_server(settings=settings)
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run("stdio")

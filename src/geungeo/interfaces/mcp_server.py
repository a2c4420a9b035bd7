"""The ``geungeo mcp`` server: geungeo's search and lookup tools over MCP (stdio or streamable HTTP).

Desktop assistants (Claude Desktop, IDEs) connect to it and call four tools: ``search_documents``,
``get_article``, ``get_document_outline`` and ``answer``. Errors a user can fix (:class:`GeungeoError`)
come back as MCP tool errors carrying their message; the server keeps running.

Built on the official ``mcp`` SDK (2.x, where ``FastMCP`` is named ``MCPServer``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from geungeo.errors import GeungeoError

T = TypeVar("T")

INSTRUCTIONS = (
    "geungeo (근거) searches ingested Korean documents: statutes, 규정집, PDF, DOCX. "
    "Use search_documents for free-text search, get_article for one article (e.g. 근로기준법 제60조), "
    "get_document_outline for a document's structure, and answer for a grounded answer with citations."
)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """Turn geungeo errors into MCP tool errors with their message (the client sees it, the server lives on)."""
    try:
        yield
    except GeungeoError as exc:
        raise ToolError(str(exc)) from exc


def _structural(answer: Any, query: str) -> dict[str, Any]:
    """A structural answer as a tool result, or a tool error saying why there is none."""
    if answer is None:
        raise ToolError(f"'{query}': no such document or article in the store / 해당 문서나 조문을 찾을 수 없습니다")
    if not answer.found:
        raise ToolError(answer.message or f"'{query}': not found / 찾을 수 없습니다")
    citations = [asdict(c) for c in answer.citations]
    labels = " ".join(c["label"] if c["label"].startswith("[") else f"[{c['label']}]" for c in citations)
    return {"text": answer.text, "citation": labels, "citations": citations, "message": answer.message}


def build_server(engine: Any = None, settings: Any = None) -> MCPServer:
    """The MCP server with geungeo's tools.

    ``engine`` defaults to ``build_engine(settings)``, built on the first tool call so the handshake is quick.
    """
    server: MCPServer = MCPServer("geungeo", instructions=INSTRUCTIONS, log_level="WARNING")
    lock = threading.Lock()  # tools run in worker threads; the engine is used by one call at a time
    state: dict[str, Any] = {"engine": engine}

    def _engine() -> Any:
        if state["engine"] is None:
            from geungeo.engine import build_engine

            state["engine"] = build_engine(settings)
        return state["engine"]

    def _lookup() -> Any:
        if "lookup" not in state:
            from geungeo.retrieval.structural import StructuralLookup

            state["lookup"] = StructuralLookup(_engine().store)
        return state["lookup"]

    def _call(work: Callable[[], T]) -> T:
        with lock, _tool_errors():
            return work()

    @server.tool()
    def search_documents(query: str, top_k: int = 5, filters: str | None = None) -> list[dict[str, Any]]:
        """Search the ingested documents (hybrid BM25 + dense). 문서 검색.

        filters: optional metadata filter such as 'doc=근로기준법', 'code=3-1-1' or 'page=3..5'.
        Returns hits with doc, code, article, page, header, text, score and chunk_id.
        """

        def work() -> list[dict[str, Any]]:
            from geungeo.retrieval.filters import parse_filter

            if top_k < 1 or top_k > 200:
                raise ToolError("top_k must be between 1 and 200")
            where = parse_filter(filters) if filters else None
            hits = _engine().search(query, k=top_k, where=where)
            return [
                {
                    "doc": h.chunk.meta.get("doc"),
                    "code": h.chunk.meta.get("code"),
                    "article": h.chunk.meta.get("article"),
                    "page": h.chunk.meta.get("page"),
                    "header": h.chunk.header,
                    "text": h.chunk.text,
                    "score": round(h.score, 6),
                    "chunk_id": h.chunk.id,
                }
                for h in hits
            ]

        return _call(work)

    @server.tool()
    def get_article(regulation: str, article: str) -> dict[str, Any]:
        """The full text of one article with its citation, e.g. regulation '근로기준법', article '제60조'. 조문 조회."""
        query = f"{regulation} {article}"
        return _call(lambda: _structural(_lookup().answer(query), query))

    @server.tool()
    def get_document_outline(regulation: str) -> dict[str, Any]:
        """The outline (chapters and articles) of one document, e.g. '근로기준법'. 문서 개요."""
        query = f"{regulation} 개요"
        return _call(lambda: _structural(_lookup().answer(query), query))

    @server.tool()
    def answer(question: str, conversation_id: str | None = None) -> dict[str, Any]:
        """A grounded answer with citations (or 근거 부족 when the documents do not say). 근거 기반 답변.

        Pass the same conversation_id to ask follow-up questions.
        """

        def work() -> dict[str, Any]:
            if "runner" not in state:
                from geungeo.graph.runner import QueryRunner

                state["runner"] = QueryRunner(_engine())
            result: dict[str, Any] = state["runner"].run(question, conversation_id=conversation_id).model_dump(mode="json")
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

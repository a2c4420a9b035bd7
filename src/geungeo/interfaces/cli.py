"""The ``geungeo`` command line (typer + rich).

Every command calls the service layer (:mod:`geungeo.services`); the errors a user can fix are
printed as one line (``error: …``) with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from geungeo.errors import GeungeoError
from geungeo.settings import Settings

if TYPE_CHECKING:
    from geungeo.ingest.parsing import FileResult

app = typer.Typer(
    name="geungeo",
    help=(
        "근거 geungeo — grounded search over Korean documents (statutes, 규정집 HWPX, HWP, PDF, DOCX).\n\n"
        "Start with `geungeo ingest ../shared/corpus`, then `geungeo ask \"연차 유급휴가는 며칠?\"` (a cited answer) "
        "or `geungeo search …` (the passages). "
        "Settings come from GEUNGEO_* environment variables or a .env file: see `geungeo config`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn geungeo errors into one readable line and exit code 1."""
    try:
        yield
    except GeungeoError as exc:
        _fail(str(exc))


def _fail(message: str) -> NoReturn:
    """Print one error line (markup and invalid characters made harmless) and exit 1."""
    shown = message.encode("utf-8", "replace").decode("utf-8").replace("\n", " ")
    err.print(f"[bold red]error:[/] {escape(shown)}", highlight=False)
    raise typer.Exit(1)


def _settings(data_dir: Path | None) -> Settings:
    return Settings(data_dir=data_dir) if data_dir else Settings()


def _services(data_dir: Path | None) -> Any:
    from geungeo.services import Services

    return Services.build(_settings(data_dir))


DataDir = Annotated[
    Path | None, typer.Option("--data-dir", "-d", help="Data directory (default: GEUNGEO_DATA_DIR or ./data).")
]


@contextmanager
def _progress_bars(label: Callable[[str], str]) -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback ``(stage, done, total)`` drawing one bar with an ETA per stage (on a terminal only)."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(label(stage), total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield progress


FILE_ROWS = 30
"""Files ``ingest`` lists one by one by default: an archive of 1,720 statutes would print thousands of table lines."""


def _files_table(files: Sequence[FileResult]) -> Table:
    """One row per ingested file: documents, chunks, unchanged, removed, seconds and status."""
    table = Table(title="ingest", show_lines=False)
    for col in ("file", "documents", "chunks", "unchanged", "removed", "seconds", "status"):
        table.add_column(col, justify="left" if col in ("file", "status") else "right")
    for f in files:
        status = f"[red]failed: {escape(f.error)}[/]" if f.error else "ok"
        table.add_row(escape(Path(f.path).name), str(f.documents), str(f.chunks), str(f.unchanged), str(f.removed),
                      f"{f.seconds:.1f}", status)
    return table


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Files or directories to ingest (recursively), or archives of them (.zip, .tar, .tar.gz, "
                       ".tar.xz, .tar.bz2: unpacked once under the data directory)."),
    ],
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Drop the index first (after changing the embedder or tokenizer settings).")
    ] = False,
    files: Annotated[
        bool | None,
        typer.Option("--files/--no-files", help=f"Show the per-file table (default: only for {FILE_ROWS} files or fewer)."),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Ingest documents: parse, chunk, index (incremental: unchanged documents are skipped).

    문서를 색인합니다. 바뀌지 않은 문서는 건너뛰고, 중단된 작업은 다시 실행하면 이어서 끝냅니다.
    """
    with _user_errors():
        missing = [p for p in paths if not p.exists()]
        if missing:
            _fail(f"{missing[0]}: no such file or directory / 파일이나 폴더가 없습니다")
        if rebuild:
            from geungeo.services import drop_index

            drop_index(_settings(data_dir))
        services = _services(data_dir)
        with _progress_bars(lambda stage: "files" if stage == "files" else "embedding chunks") as progress:
            report = services.documents.ingest(paths, progress=progress)
        if not report.files:
            services.close()
            from geungeo.ingest.base import supported_suffixes

            _fail(f"nothing to ingest: no file of a supported type ({', '.join(supported_suffixes())}) in "
                  f"{', '.join(str(p) for p in paths)} / 색인할 수 있는 파일이 없습니다")
        if files or (files is None and len(report.files) <= FILE_ROWS):
            out.print(_files_table(report.files))
        else:
            out.print(f"[dim]per-file table left out for {len(report.files):,} files (--files shows it) / "
                      "파일별 표는 --files 로 봅니다[/]")
        out.print(
            f"{len(report.files)} files, {report.documents} documents, {report.chunks} chunks "
            f"({report.written_chunks} written, {report.embedded_chunks} embedded), {len(report.skipped)} skipped, "
            f"{len(report.failed)} failed, "
            f"{report.seconds:.1f} s"
        )
        for f in report.failed:
            err.print(f"[red]error:[/] {escape(f'{f.path}: {f.error}')}", highlight=False)
        services.close()
        if report.failed and len(report.failed) == len(report.files):
            raise typer.Exit(1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="The question or keywords, Korean or English.")],
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=200, help="Number of hits.")] = 10,
    filters: Annotated[
        list[str] | None,
        typer.Option("--filter", "-f", help="field=value, field=a,b or page=3..5; fields: doc, code, kind, "
                     "source, category, article, attachment, page. Repeat to AND."),
    ] = None,
    mode: Annotated[str, typer.Option(help="hybrid | dense | sparse")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON lines.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Search the ingested documents (hybrid BM25 + dense, fused by z-score or RRF). 문서 검색."""
    from geungeo.evaluation import hit_record

    with _user_errors():
        if mode not in ("hybrid", "dense", "sparse"):
            _fail(f"--mode {mode}: use hybrid, dense or sparse / 검색 방식은 hybrid, dense, sparse 중 하나입니다")
        services = _services(data_dir)
        hits = services.search.search(query, k=k, filters=filters or [], mode=mode)
        if services.documents.is_empty():
            err.print("[yellow]the store is empty: run `geungeo ingest PATH` first / 먼저 문서를 색인하세요[/]")
        if as_json:
            for h in hits:
                sys.stdout.write(json.dumps({**hit_record(h), "header": h.chunk.header, "ranks": h.ranks},
                                            ensure_ascii=False) + "\n")
        else:
            for n, h in enumerate(hits, 1):
                ranks = " ".join(f"{name}#{r}" for name, r in sorted(h.ranks.items()))
                out.print(f"[bold]{n}. {h.chunk.header}[/]  [dim]{h.score:.4f} {ranks}[/]", highlight=False)
                snippet = h.chunk.text.replace("\n", " ")
                out.print(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}", highlight=False)
            if not hits:
                out.print("no results / 결과 없음")
        services.close()


@app.command("train-ranker")
def train_ranker(
    path: Annotated[
        Path | None, typer.Argument(help="Where to write the model (default: DATA_DIR/ranker.txt).")
    ] = None,
    queries: Annotated[int, typer.Option("--queries", min=20, max=50000, help="Generated training queries.")] = 4000,
    seed: Annotated[int, typer.Option(help="Seed of the query generator and of LightGBM.")] = 0,
    data_dir: DataDir = None,
) -> None:
    """Train the learned reranker on the ingested documents: queries made from their titles, sentences and
    definitions, no question set and no LLM. Use it with GEUNGEO_RERANKER_PATH=PATH. 코퍼스로 랭커 학습."""
    with _user_errors():
        services = _services(data_dir)
        try:
            with _progress_bars(lambda stage: "searching generated queries") as progress:
                target, report = services.ranker.train(path, limit=queries, seed=seed, progress=progress)
        finally:
            services.close()
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(report.queries.items()))
        out.print(f"{sum(report.queries.values())} generated queries ({kinds}); {report.groups} with their passage "
                  f"among the candidates; {report.trees} trees, {report.seconds:.0f} s")
        out.print(f"held-out generated queries ({report.held_out}): R@1 {report.fused_r1:.2f} → {report.ranked_r1:.2f}, "
                  f"MRR {report.fused_mrr:.2f} → {report.ranked_mrr:.2f} (fused order → learned order)")
        out.print(f"wrote {target}; use it with GEUNGEO_RERANKER_PATH={target}", highlight=False)


@app.command()
def stats(data_dir: DataDir = None) -> None:
    """Show what the store holds: documents by kind, chunks, size on disk. 색인 현황."""
    with _user_errors():
        services = _services(data_dir)
        stats = services.documents.stats()
        table = Table(title="store")
        table.add_column("kind")
        table.add_column("documents", justify="right")
        table.add_column("chunks", justify="right")
        for kind, (n, c) in sorted(stats.by_kind.items()):
            table.add_row(kind, str(n), str(c))
        out.print(table)
        out.print(
            f"{stats.documents} documents, {stats.chunks} chunks, {stats.size_bytes / 1e6:.1f} MB, "
            f"embedder {stats.embedder}, {stats.interrupted} interrupted (re-run ingest to finish them)"
        )
        services.close()


@app.command()
def delete(
    targets: Annotated[list[str], typer.Argument(help="Document ids, file names or titles to remove.")],
    data_dir: DataDir = None,
) -> None:
    """Delete documents from the store by id, file name, title or code (an uploaded file goes with its last
    document). 문서 삭제."""
    with _user_errors():
        services = _services(data_dir)
        try:
            docs, chunks = services.documents.delete_matching(targets)
        finally:
            services.close()
        out.print(f"deleted {len(docs)} documents ({chunks} chunks)")


@app.command()
def config(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    defaults_markdown: Annotated[
        bool, typer.Option("--defaults-markdown", help="Print every setting's default as a Markdown table (docs/settings.md).")
    ] = False,
) -> None:
    """Print the effective settings (env GEUNGEO_* and .env; secrets masked). 설정 보기."""
    from geungeo.settings import defaults_markdown as render_defaults

    with _user_errors():
        if defaults_markdown:
            sys.stdout.write(render_defaults())
            return
        settings = Settings()
        values = settings.public_dict()
        if as_json:
            sys.stdout.write(json.dumps(values, ensure_ascii=False, indent=2) + "\n")
            return
        table = Table(title="settings (GEUNGEO_<NAME>)")
        for col in ("name", "value", "description"):
            table.add_column(col)
        for name, field in Settings.model_fields.items():
            table.add_row(name.upper(), repr(values[name]), field.description or "")
        out.print(table)


@app.command("eval")
def evaluate(
    question_files: Annotated[list[Path], typer.Argument(help="Question JSONL files in the shared format.")],
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=100, help="Hits per question.")] = 10,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write one JSON line per question here.")] = None,
    mode: Annotated[str, typer.Option(help="hybrid | dense | sparse")] = "hybrid",
    data_dir: DataDir = None,
) -> None:
    """Score retrieval on gold questions: recall@1/5/10 and MRR per file and per style. 검색 평가.

    Unanswerable questions and the structural set are skipped (the answer graph scores them), and so are the
    questions whose gold document is not ingested (they are counted and named, not scored as misses).
    """
    from geungeo.evaluation import first_correct_rank, hit_record, score
    from geungeo.services.evaluation import gold_ingested, read_question_files

    with _user_errors():
        if mode not in ("hybrid", "dense", "sparse"):
            _fail(f"--mode {mode}: use hybrid, dense or sparse / 검색 방식은 hybrid, dense, sparse 중 하나입니다")
        scored = [q for q in read_question_files(question_files) if q.answerable and not q.structural]
        if not scored:
            _fail("no answerable, non-structural questions in the given files / 평가할 질문이 없습니다")
        services = _services(data_dir)
        documents = services.documents.all()
        if not documents:
            services.close()
            _fail("the store is empty: run `geungeo ingest PATH` first / 먼저 문서를 색인하세요")
        questions = [q for q in scored if gold_ingested(q, documents)]
        absent = [q.id for q in scored if not gold_ingested(q, documents)]
        if absent:
            shown = ", ".join(absent[:5]) + (f" … (+{len(absent) - 5})" if len(absent) > 5 else "")
            err.print(f"[yellow]{len(absent)} of {len(scored)} questions skipped: their gold document is not ingested "
                      f"({shown}) / 정답 문서가 색인되지 않은 질문은 건너뜁니다[/]", highlight=False)
        if not questions:
            services.close()
            _fail("no question's gold document is ingested: ingest the documents the questions are about / "
                  "질문의 정답 문서가 하나도 색인되지 않았습니다")
        sink = out_file.open("w", encoding="utf-8") if out_file else None
        results = []
        started = time.perf_counter()
        for q in questions:
            hits = services.search.search(q.question, k=k, mode=mode)
            results.append((q, first_correct_rank(q, [h.chunk for h in hits])))
            if sink:
                sink.write(json.dumps({"id": q.id, "hits": [hit_record(h) for h in hits]}, ensure_ascii=False) + "\n")
        if sink:
            sink.close()
        caption = f"{len(questions)} questions, {time.perf_counter() - started:.1f} s"
        if absent:
            caption += f", {len(absent)} skipped (gold document not ingested)"
        _print_scores(score(results, k), caption)
        services.close()


def _print_answer_tail(answer: Any, verbose: bool) -> None:
    if answer.warnings:
        for w in answer.warnings:
            err.print(f"[yellow]{w}[/]", highlight=False)
    if answer.citations:
        out.print("\n[bold]근거 / citations[/]")
        for label in dict.fromkeys(c.label for c in answer.citations):  # two passages of one article: one line
            out.print(f"  [{label}]", highlight=False)
    structured = answer.structured
    for caution in structured.warnings:
        out.print(f"[yellow]주의 / note[/]: {caution}", highlight=False)
    for image in structured.page_images:
        out.print(f"[dim]page image p.{image.page}: {image.path}[/]", highlight=False)
    if answer.citations:
        out.print(f"[dim]confidence {structured.confidence:.2f}[/]")
    if answer.suggestions:
        out.print("[bold]다음 질문 / follow-ups[/]: " + " · ".join(answer.suggestions), highlight=False)
    if verbose:
        table = Table(title=f"flow ({answer.llm_calls} LLM calls, mode {answer.mode}, cache hit {answer.cache_hit})")
        for col in ("node", "seconds", "LLM calls", "note"):
            table.add_column(col)
        for step in answer.flow_log:
            table.add_row(step.node, f"{step.seconds:.3f}", str(step.llm_calls), step.note)
        err.print(table)


def _stream_answer(services: Any, question: str, conversation_id: str | None, filters: str | None) -> Any:
    answers = services.answers
    answer, streamed = None, False
    for event in answers.stream(answers.check(question, filters), conversation_id):
        if event["type"] == "token":
            out.print(event["text"], end="", highlight=False, markup=False)
            streamed = True
        elif event["type"] == "answer":
            answer = event["answer"]
    if not streamed and answer is not None:  # an answer that streamed no tokens (from the cache, a lookup)
        out.print(answer.answer, end="", highlight=False, markup=False)
    out.print()
    return answer


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question in Korean or English.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the Answer as one JSON object.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the flow log (nodes, timings, LLM calls).")] = False,
    filters: Annotated[str | None, typer.Option("--filter", help="Metadata filter, e.g. 'doc=근로기준법'.")] = None,
    conversation: Annotated[str | None, typer.Option("--conversation", "-c", help="Conversation id (multi-turn).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Answer a question with citations, streamed. 질문에 근거 조문과 함께 답합니다.

    Without an LLM configured (GEUNGEO_LLM_PROVIDER) the answer is extractive: the best-supported
    sentences with their citations, or "근거 부족" when the documents do not say.
    """
    with _user_errors():
        services = _services(data_dir)
        try:
            if as_json:
                answers = services.answers
                answer = answers.ask(answers.check(question, filters), conversation)
                payload = answer.model_dump(mode="json")
                sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
                return
            answer = _stream_answer(services, question, conversation, filters)
            _print_answer_tail(answer, verbose)
        finally:
            services.close()


@app.command()
def chat(
    conversation: Annotated[str | None, typer.Option("--conversation", "-c", help="Resume this conversation id.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the flow log after each answer.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Multi-turn chat in the terminal (empty line or Ctrl-D ends). 대화형 질의응답."""
    import uuid

    with _user_errors():
        services = _services(data_dir)
        conversation_id = conversation or uuid.uuid4().hex[:12]
        err.print(f"conversation {conversation_id} — 질문을 입력하세요 (빈 줄로 종료)")
        try:
            while True:
                try:
                    question = input("? ").strip()
                except EOFError:
                    break
                if not question:
                    break
                try:
                    answer = _stream_answer(services, question, conversation_id, None)
                except GeungeoError as exc:
                    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
                    continue
                _print_answer_tail(answer, verbose)
        finally:
            services.close()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default: GEUNGEO_API_HOST, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default: GEUNGEO_API_PORT, 8000).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs, OpenAI-compatible /v1/chat/completions) and the web UI at /ui. HTTP API 서버.

    Set GEUNGEO_API_KEYS to require an API key; see `geungeo config` for limits, timeout and CORS.
    """
    import uvicorn

    from geungeo.interfaces.api import create_app

    with _user_errors():
        settings = Settings(data_dir=data_dir) if data_dir else Settings()
        api = create_app(settings)
        uvicorn.run(api, host=host or settings.api_host, port=port or settings.api_port, log_level="info")


@app.command()
def ui(
    host: Annotated[str | None, typer.Option(help="Address to bind (default: GEUNGEO_API_HOST, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default: GEUNGEO_UI_PORT, 7860).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Serve the web UI: chat with cited answers, the cited passages, documents, feedback. 웹 화면.

    `geungeo serve` also serves it, at /ui. With GEUNGEO_API_KEYS set it asks for a login (an API key as password).
    """
    import uvicorn

    from geungeo.interfaces.web.app import create_ui_app

    with _user_errors():
        settings = Settings(data_dir=data_dir) if data_dir else Settings()
        web = create_ui_app(settings)
        bind, listen = host or settings.api_host, port or settings.ui_port
        err.print(f"web UI / 웹 화면: http://{bind}:{listen}/", highlight=False)
        uvicorn.run(web, host=bind, port=listen, log_level="warning")


def _print_scores(groups: dict[str, Any], caption: str) -> None:
    table = Table(title="retrieval", caption=caption)
    for col in ("group", "n", "R@1", "R@5", "R@10", "MRR"):
        table.add_column(col, justify="left" if col == "group" else "right")
    for group in ("by_file", "by_style", "all"):
        if not groups[group]:  # no question names its style
            continue
        for name, s in sorted(groups[group].items()):
            d = s.as_dict()
            table.add_row(name, str(d["n"]), *(f"{d[c]:.3f}" for c in ("R@1", "R@5", "R@10", "MRR")))
        table.add_section()
    out.print(table)


def main() -> None:
    """Entry point of the ``geungeo`` script."""
    app()


@app.command()
def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port with --http.")] = 8765,
    data_dir: DataDir = None,
) -> None:
    """Serve geungeo's tools over MCP for desktop assistants (stdio by default). MCP 서버.

    Tools: search_documents, get_article, get_document_outline, answer.
    """
    from geungeo.interfaces.mcp_server import main as serve_mcp

    with _user_errors():
        serve_mcp(http=http, host=host, port=port, settings=Settings(data_dir=data_dir) if data_dir else None)


corrections_app = typer.Typer(
    help="Review proposed corrections (from feedback) on the server: only accepted ones become evidence. 수정 제안 검토.",
    no_args_is_help=True,
)
app.add_typer(corrections_app, name="corrections")


@corrections_app.command("list")
def corrections_list(
    status: Annotated[
        str, typer.Option(help="proposed | accepted | rejected | all.", case_sensitive=False)
    ] = "proposed",
    data_dir: DataDir = None,
) -> None:
    """List corrections (newest first): the proposals waiting for review by default."""
    if status not in {"proposed", "accepted", "rejected", "all"}:
        _fail(f"--status must be proposed, accepted, rejected or all (not '{status}')")
    with _user_errors():
        services = _services(data_dir)
        try:
            found = services.feedback.corrections(None if status == "all" else status)
        finally:
            services.close()
    table = Table(title=f"corrections ({status})")
    for col in ("id", "status", "question", "correction", "reviewed by"):
        table.add_column(col)
    for c in found:
        table.add_row(str(c.id), c.status, c.question, c.text[:200], c.reviewed_by)
    out.print(table if found else f"no {status} corrections")


def _review(correction_id: int, accept: bool, by: str, data_dir: Path | None) -> None:
    with _user_errors():
        services = _services(data_dir)
        try:
            reviewed = services.feedback.review(correction_id, accept, by=by)
        finally:
            services.close()
    out.print(f"correction #{reviewed.id} {reviewed.status} by {reviewed.reviewed_by}")


ReviewerName = Annotated[
    str, typer.Option("--by", help="The reviewer's name, kept with the review (default: the user running this).")
]


@corrections_app.command("accept")
def corrections_accept(correction_id: int, by: ReviewerName = "", data_dir: DataDir = None) -> None:
    """Accept proposal N: it becomes the first evidence (검수 답변 #N) for similar questions."""
    _review(correction_id, True, by or _login(), data_dir)


@corrections_app.command("reject")
def corrections_reject(correction_id: int, by: ReviewerName = "", data_dir: DataDir = None) -> None:
    """Reject proposal N: it is never used."""
    _review(correction_id, False, by or _login(), data_dir)


def _login() -> str:
    import getpass

    try:
        return f"{getpass.getuser()} (cli)"
    except (KeyError, OSError):
        return "cli"

"""The Gradio layout and its wiring to :mod:`geungeo.interfaces.web.handlers`.

``build_ui(state)`` makes the Blocks (a chat tab and a documents tab), ``mount_ui`` mounts them in
a FastAPI app (``geungeo serve`` at ``ui_mount_path``), ``create_ui_app`` is the app of ``geungeo ui``.
Everything runs offline: analytics off, no share link, no run history, and the Korean web font (Noto Sans KR,
from the npm package ``@fontsource/noto-sans-kr``) served with the UI from ``/ui-static/``.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import gradio as gr
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from PIL import Image as PILImage

from geungeo import __version__
from geungeo.answering.models import Answer
from geungeo.errors import GeungeoError
from geungeo.ingest.base import supported_suffixes
from geungeo.interfaces.api.state import ApiState
from geungeo.interfaces.web import handlers, labels
from geungeo.services import Services
from geungeo.settings import Settings

Message = dict[str, str]
Updates = dict[Any, Any]

STATIC = Path(__file__).parent / "static"
STATIC_PATH = "/ui-static"
FONT = "Noto Sans KR"
_LATIN = ("U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,"
          "U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD")


def _font_faces() -> str:
    """``@font-face`` rules for the shipped font: the Korean subset, then the Latin one for its range."""
    faces = []
    for subset, extra in (("korean", ""), ("latin", f" unicode-range: {_LATIN};")):
        for weight in (400, 700):
            url = f"{STATIC_PATH}/fonts/noto-sans-kr-{subset}-{weight}-normal.woff2"
            faces.append(f"@font-face {{ font-family: '{FONT}'; font-style: normal; font-display: swap; "
                         f"font-weight: {weight}; src: url({url}) format('woff2');{extra} }}")
    return "\n".join(faces)


CITE_LINKS = """<script>
document.addEventListener("click", (event) => {
  const link = event.target.closest ? event.target.closest('a[href^="#cite-"]') : null;
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const button = document.getElementById(link.getAttribute("href").slice(1));
  if (button) button.click();
}, true);
</script>"""
"""A citation in the answer text (``<a href="#cite-N">``) opens its passage: it clicks the N-th citation button."""

CSS = _font_faces() + f"""
body, .gradio-container, .gradio-container * {{ font-family: '{FONT}', ui-sans-serif, system-ui, sans-serif; }}
.gradio-container code, .gradio-container pre {{ font-family: ui-monospace, monospace; }}
a.cite-link, #chat a[href^="#cite-"] {{ cursor: pointer; text-decoration: underline dotted; }}
""" + """
#passage-panel { position: sticky; top: 0.5rem; }
.cite-row button, .suggest-row button { flex: 0 0 auto !important; min-width: 0 !important; }
#warning blockquote { border-left: 4px solid #e0a800; background: #fff8e1; color: #5c4400; }
"""


def _clean_mount_path(path: str) -> str:
    return "/" + path.strip().strip("/")


def _load_image(path: Path | None) -> PILImage.Image | None:
    """The page image, loaded here so that gradio needs no access to the data directory."""
    if path is None:
        return None
    try:
        with PILImage.open(path) as image:
            return image.copy()
    except (OSError, ValueError):
        return None


class _Ui:
    """The components of one Blocks and the event functions bound to one ApiState."""

    def __init__(self, state: ApiState) -> None:
        self.state = state

    # --- chat ----------------------------------------------------------------------------------

    def _answer_outputs(self, answer: Answer | None) -> Updates:
        citations = handlers.citation_labels(answer) if answer else []
        suggestions = (answer.suggestions if answer else [])[: handlers.MAX_SUGGESTIONS]
        warning = handlers.warnings_markdown(answer) if answer else ""
        out: Updates = {
            self.warning: gr.Markdown(warning, visible=bool(warning)),
            self.flow: handlers.flow_log_markdown(answer) if answer else "",
            self.sources_title: gr.Markdown(visible=bool(citations)),
            self.suggest_title: gr.Markdown(visible=bool(suggestions)),
            self.passage: labels.PASSAGE_EMPTY,
            self.page_image: gr.Image(None, visible=False),
            self.feedback_note: "",
        }
        for i, button in enumerate(self.cite_buttons):
            out[button] = gr.Button(citations[i] if i < len(citations) else "", visible=i < len(citations))
        for i, button in enumerate(self.suggest_buttons):
            out[button] = gr.Button(suggestions[i] if i < len(suggestions) else "", visible=i < len(suggestions))
        return out

    async def ask(
        self, question: str, conversation_id: str, history: list[Message], filters: str
    ) -> AsyncIterator[Updates]:
        """Stream one answer into the chat; the citations, suggestions and flow log when it is done."""
        question = (question or "").strip()
        conversation_id = conversation_id or handlers.new_conversation_id()
        try:
            checked = handlers.check_question(self.state, question, filters)
        except GeungeoError as exc:
            yield {self.status: f"⚠ {labels.ERROR}: {exc}"}
            return
        turn = [*history, {"role": "user", "content": checked.text}]
        yield {
            self.chatbot: [*turn, {"role": "assistant", "content": "…"}],
            self.question: "",
            self.status: labels.WORKING,
            self.conversation: conversation_id,
            self.conversation_label: conversation_id,
            **self._answer_outputs(None),
        }
        async for update in handlers.stream_answer(self.state, checked, conversation_id):
            if update.error:
                reply = (update.text + "\n\n" if update.text else "") + f"⚠ {labels.ERROR}: {update.error}"
                final = [*turn, {"role": "assistant", "content": reply}]
                yield {self.chatbot: final, self.history: final, self.status: f"⚠ {labels.ERROR}"}
                return
            if update.answer is None:
                bubble = update.text + " ▌" if update.text else "…"
                yield {self.chatbot: [*turn, {"role": "assistant", "content": bubble}],
                       self.status: handlers.steps_markdown(update.steps)}
                continue
            final = [*turn, {"role": "assistant", "content": handlers.answer_markdown(update.answer)}]
            yield {
                self.chatbot: final,
                self.history: final,
                self.last: update.answer,
                self.status: handlers.steps_markdown(update.steps, done=True),
                **self._answer_outputs(update.answer),
            }

    def new_chat(self) -> Updates:
        """Forget the conversation: a fresh id and an empty chat."""
        conversation_id = handlers.new_conversation_id()
        return {self.chatbot: [], self.history: [], self.last: None, self.conversation: conversation_id,
                self.conversation_label: conversation_id, self.status: "", **self._answer_outputs(None)}

    def _passage_fn(self, index: int) -> Callable[[Answer | None], Coroutine[Any, Any, Updates]]:
        async def show(answer: Answer | None) -> Updates:
            passage = await handlers.open_passage(self.state, answer, index)
            image = _load_image(passage.image)
            return {self.passage: passage.markdown, self.page_image: gr.Image(image, visible=image is not None)}

        return show

    def _feedback_fn(self, rating: Literal["up", "down"]) -> Callable[[Answer | None, str], Coroutine[Any, Any, Updates]]:
        async def rate(answer: Answer | None, comment: str) -> Updates:
            try:
                note = await handlers.send_feedback(self.state, answer, rating, comment or "")
            except handlers.UserError as exc:
                return {self.feedback_note: f"⚠ {exc}"}
            return {self.feedback_note: note, self.comment: ""}

        return rate

    # --- documents -----------------------------------------------------------------------------

    async def _documents(self) -> Updates:
        rows = await handlers.document_rows(self.state)
        return {self.table: rows, self.delete_choice: gr.Dropdown(choices=handlers.document_choices(rows), value=None)}

    async def refresh(self) -> Updates:
        return await self._documents()

    async def ingest(self, files: list[str] | None, progress: gr.Progress = gr.Progress()) -> Updates:  # noqa: B008
        """Check, save and ingest the uploaded files, with a progress bar over files and chunks."""

        def follow(stage: str, done: int, total: int) -> None:
            what = "파일 / files" if stage == "files" else "임베딩 / embedding chunks"
            progress((done, total), desc=what, unit=stage)

        pairs = [(Path(f).name, Path(f)) for f in files or []]
        try:
            report = await handlers.ingest_uploads(self.state, pairs, follow)
        except handlers.UserError as exc:
            return {self.report: f"⚠ {exc}", **await self._documents()}
        return {self.report: report, self.files: None, **await self._documents()}

    async def delete(self, doc_id: str | None) -> Updates:
        try:
            note = await handlers.delete_document(self.state, doc_id)
        except handlers.UserError as exc:
            note = f"⚠ {exc}"
        return {self.delete_note: note, **await self._documents()}

    # --- layout ----------------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        # delete_cache: gradio's copies of uploads go after an hour (the ingested file lies under data_dir/uploads)
        with gr.Blocks(title=labels.TITLE, analytics_enabled=False, fill_width=True, delete_cache=(3600, 3600)) as blocks:
            self.conversation = gr.State("")
            self.history = gr.State([])
            self.last = gr.State(None)
            gr.Markdown(f"## {labels.TITLE} <sub>v{__version__}</sub>\n{labels.INTRO}")
            with gr.Tabs():
                with gr.Tab(labels.TAB_CHAT, id="chat-tab"):
                    self._chat_tab()
                with gr.Tab(labels.TAB_DOCUMENTS, id="documents-tab"):
                    self._documents_tab()
            self._wire()
            blocks.load(self.refresh, outputs=[self.table, self.delete_choice])
        blocks.queue(default_concurrency_limit=8)
        return blocks

    def _chat_tab(self) -> None:
        with gr.Row(equal_height=False):
            with gr.Column(scale=3):
                self.chatbot = gr.Chatbot(label=labels.CHAT, elem_id="chat", height=460, feedback_options=None,
                                          buttons=["copy"])
                self.status = gr.Markdown("", elem_id="status")
                with gr.Row():
                    self.question = gr.Textbox(label=labels.QUESTION, placeholder=labels.QUESTION_PLACEHOLDER,
                                               elem_id="question", scale=5, lines=1, max_lines=6)
                    self.send = gr.Button(labels.SEND, variant="primary", elem_id="send", scale=1)
                self.warning = gr.Markdown("", visible=False, elem_id="warning")
                self.sources_title = gr.Markdown(labels.SOURCES, visible=False)
                with gr.Row(elem_classes=["cite-row"]):
                    self.cite_buttons = [gr.Button("", visible=False, size="sm", elem_id=f"cite-{i}")
                                         for i in range(handlers.MAX_CITATIONS)]
                self.suggest_title = gr.Markdown(labels.FOLLOW_UPS, visible=False)
                with gr.Row(elem_classes=["suggest-row"]):
                    self.suggest_buttons = [gr.Button("", visible=False, size="sm", variant="secondary",
                                                      elem_id=f"suggest-{i}") for i in range(handlers.MAX_SUGGESTIONS)]
                with gr.Row():
                    self.comment = gr.Textbox(label=labels.FEEDBACK_COMMENT, scale=4, elem_id="comment")
                    self.thumbs_up = gr.Button(labels.THUMBS_UP, size="sm", elem_id="thumbs-up", scale=1)
                    self.thumbs_down = gr.Button(labels.THUMBS_DOWN, size="sm", elem_id="thumbs-down", scale=1)
                self.feedback_note = gr.Markdown("", elem_id="feedback-note")
                with gr.Accordion(labels.FLOW_LOG, open=False, elem_id="flow-accordion"):
                    self.flow = gr.Markdown("", elem_id="flow")
                with gr.Accordion(labels.OPTIONS, open=False):
                    self.filters = gr.Textbox(label=labels.FILTER, placeholder=labels.FILTER_PLACEHOLDER)
                    with gr.Row():
                        self.conversation_label = gr.Textbox(label=labels.CONVERSATION_ID, interactive=False)
                        self.new = gr.Button(labels.NEW_CHAT, elem_id="new-chat")
            with gr.Column(scale=2, elem_id="passage-panel"):
                gr.Markdown(f"### {labels.PASSAGE}")
                self.passage = gr.Markdown(labels.PASSAGE_EMPTY, elem_id="passage")
                self.page_image = gr.Image(None, label=labels.PAGE_IMAGE, visible=False, interactive=False,
                                           elem_id="page-image", buttons=["fullscreen"])

    def _documents_tab(self) -> None:
        limit = self.state.settings.api_max_upload_mb
        with gr.Row():
            with gr.Column(scale=2):
                self.files = gr.File(label=f"{labels.FILES} (≤ {limit} MB)", file_count="multiple", type="filepath",
                                     file_types=list(supported_suffixes()), elem_id="upload")
                self.ingest_button = gr.Button(labels.INGEST, variant="primary", elem_id="ingest")
                self.report = gr.Markdown("", elem_id="ingest-report")
            with gr.Column(scale=3):
                self.table = gr.Dataframe(headers=labels.DOCUMENT_COLUMNS, label=labels.DOCUMENTS, interactive=False,
                                          elem_id="documents", wrap=True)
                with gr.Row():
                    self.refresh_button = gr.Button(labels.REFRESH, size="sm", elem_id="refresh")
                    self.delete_choice = gr.Dropdown(label=labels.DELETE_CHOICE, choices=[], elem_id="delete-choice",
                                                     scale=3)
                    self.delete_button = gr.Button(labels.DELETE, variant="stop", size="sm", elem_id="delete")
                self.delete_note = gr.Markdown("", elem_id="delete-note")

    def _wire(self) -> None:
        answer_view = [self.warning, self.flow, self.sources_title, self.suggest_title, self.passage, self.page_image,
                       self.feedback_note, *self.cite_buttons, *self.suggest_buttons]
        outputs = [self.chatbot, self.history, self.last, self.question, self.status, self.conversation,
                   self.conversation_label, *answer_view]
        context = [self.conversation, self.history, self.filters]
        for trigger in (self.send.click, self.question.submit):
            trigger(self.ask, inputs=[self.question, *context], outputs=outputs, concurrency_id="ask")
        for button in self.suggest_buttons:  # clicking a follow-up asks it
            button.click(self.ask, inputs=[button, *context], outputs=outputs, concurrency_id="ask")
        for i, button in enumerate(self.cite_buttons):
            button.click(self._passage_fn(i), inputs=[self.last], outputs=[self.passage, self.page_image])
        self.new.click(self.new_chat, outputs=outputs)
        self.chatbot.clear(self.new_chat, outputs=outputs)  # the chat's own trash button
        self.thumbs_up.click(self._feedback_fn("up"), inputs=[self.last, self.comment],
                             outputs=[self.feedback_note, self.comment])
        self.thumbs_down.click(self._feedback_fn("down"), inputs=[self.last, self.comment],
                               outputs=[self.feedback_note, self.comment])
        documents = [self.table, self.delete_choice]
        self.ingest_button.click(self.ingest, inputs=[self.files], outputs=[self.report, self.files, *documents])
        self.refresh_button.click(self.refresh, outputs=documents)
        self.delete_button.click(self.delete, inputs=[self.delete_choice], outputs=[self.delete_note, *documents])


def build_ui(state: ApiState) -> gr.Blocks:
    """The web UI's Blocks over ``state`` (the runner, settings and store lock the HTTP API uses)."""
    return _Ui(state).build()


def _auth(state: ApiState) -> Callable[[str, str], bool] | None:
    """With GEUNGEO_API_KEYS set, the UI asks for a login: any user name, one of the keys as password."""
    if not state.api_keys:
        return None

    def check(_user: str, password: str) -> bool:
        return any(hmac.compare_digest(password.encode(), k.encode()) for k in state.api_keys)

    return check


def mount_ui(app: FastAPI, state: ApiState, path: str | None = None) -> str:
    """Mount the web UI in ``app`` at ``path`` (default ``ui_mount_path``); the path it was mounted at."""
    where = _clean_mount_path(path if path is not None else state.settings.ui_mount_path)
    if not any(getattr(r, "path", None) == STATIC_PATH for r in app.routes):  # before the UI, which may sit at "/"
        app.mount(STATIC_PATH, StaticFiles(directory=STATIC), name="ui-static")
    gr.mount_gradio_app(
        app,
        build_ui(state),
        path=where,
        footer_links=["settings"],
        run_history=False,
        auth=_auth(state),
        auth_message="API 키로 로그인하세요 (사용자 이름은 아무것이나) / Log in with an API key (any user name)",
        show_error=True,
        max_file_size=f"{state.settings.api_max_upload_mb}mb",
        ssr_mode=False,
        mcp_server=False,
        pwa=False,
        css=CSS,
        head=CITE_LINKS,
        theme=gr.themes.Default(font=[FONT, "ui-sans-serif", "system-ui", "sans-serif"],
                                font_mono=["ui-monospace", "monospace"]),
    )
    return where


def create_ui_app(settings: Settings | None = None) -> FastAPI:
    """The app of ``geungeo ui``: the web UI alone at ``/`` over its own runner (closed with the app)."""
    services = Services.build(settings)
    state = ApiState(settings=services.settings, services=services, owns_services=True)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await state.call(services.documents.flush)
        yield
        await anyio.to_thread.run_sync(services.close)

    app = FastAPI(title="geungeo 근거 UI", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.api = state
    mount_ui(app, state, "/")
    return app

"""The UI's bilingual labels (Korean first, then English), in one place."""

from __future__ import annotations

TITLE = "근거 geungeo"
INTRO = (
    "문서에 근거한 답변과 인용 · Grounded answers with citations. "
    "인용 버튼을 누르면 근거 조문이 오른쪽에 열립니다 / Click a citation to open its passage."
)

TAB_CHAT = "대화 / Chat"
TAB_DOCUMENTS = "문서 / Documents"

CHAT = "대화 / Conversation"
QUESTION = "질문 / Question"
QUESTION_PLACEHOLDER = "예: 1년 일하면 연차 유급휴가는 며칠인가요? / e.g. How many days of annual leave?"
SEND = "보내기 / Send"
NEW_CHAT = "새 대화 / New conversation"
SOURCES = "**근거 / Sources**"
FOLLOW_UPS = "**다음 질문 / Follow-ups**"
OPTIONS = "옵션 / Options"
FILTER = "필터 / Filter"
FILTER_PLACEHOLDER = "doc=근로기준법 · code=3-1-5 · page=3..5"
CONVERSATION_ID = "대화 ID / Conversation id"
FLOW_LOG = "흐름 기록 / Flow log"
PASSAGE = "근거 본문 / Passage"
PASSAGE_EMPTY = "_인용을 누르면 근거 본문이 여기에 열립니다 / Click a citation to show its passage here._"
PAGE_IMAGE = "쪽 이미지 / Page image"

FEEDBACK_COMMENT = "의견 (선택) / Comment (optional)"
THUMBS_UP = "👍 도움됨 / Helpful"
THUMBS_DOWN = "👎 아님 / Not helpful"
FEEDBACK_SAVED = "✓ 의견이 저장되었습니다 / Feedback saved"
FEEDBACK_NOTHING = "먼저 질문하세요 / Ask a question first"

FILES = "파일 / Files"
INGEST = "색인 / Ingest"
INGEST_NOTHING = "파일을 먼저 올리세요 / Upload files first"
DOCUMENTS = "색인된 문서 / Ingested documents"
DOCUMENT_COLUMNS = ["문서 / Title", "파일 / Source", "종류 / Kind", "코드 / Code", "청크 / Chunks", "ID"]
REFRESH = "새로고침 / Refresh"
DELETE_CHOICE = "삭제할 문서 / Document to delete"
DELETE = "삭제 / Delete"
DELETE_NOTHING = "삭제할 문서를 고르세요 / Choose a document to delete"

WORKING = "⏳ 처리 중 / Working"
ERROR = "오류 / Error"

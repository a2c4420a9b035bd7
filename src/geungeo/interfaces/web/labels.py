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
THUMBS_UP = "도움됨 / Helpful"
THUMBS_DOWN = "도움 안 됨 / Not helpful"
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

WORKING = "처리 중 / Working"
DONE = "완료 / Done"
ERROR = "오류 / Error"
FAILED = "실패 / Failed"

NODE_LABELS: dict[str, str] = {
    "cache_lookup": "이전 답변 확인 / Checking earlier answers",
    "router": "질문 이해 / Reading the question",
    "simple_answer": "짧은 답변 / Short reply",
    "structural": "조문 찾기 / Looking up the article",
    "planner": "검색 계획 / Planning the search",
    "retrieve": "문서 검색 / Searching the documents",
    "expand": "앞뒤 문맥 추가 / Adding surrounding text",
    "rerank": "근거 순위 매기기 / Ranking the passages",
    "judge": "근거 충분성 판단 / Checking the evidence is enough",
    "web_search": "웹 검색 / Searching the web",
    "generate": "답변 작성 / Writing the answer",
    "grounding": "근거 확인 / Checking the answer against the sources",
    "regenerate": "답변 다시 쓰기 / Rewriting the answer",
    "flag": "답변 검토 / Reviewing the answer",
    "improve": "답변 다듬기 / Improving the answer",
    "cache_store": "답변 저장 / Saving the answer",
    "remember": "대화 기록 / Updating the conversation",
    "agent": "도구 사용 / Using tools",
    "reply": "답변 작성 / Writing the answer",
}
"""What each step of the answer is, for a person: the status line shows these instead of the graph's node names."""


def node_label(node: str) -> str:
    """The readable name of a graph or agent step (the step's own name, tidied, when it has none)."""
    return NODE_LABELS.get(node, node.replace("_", " "))

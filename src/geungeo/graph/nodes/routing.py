"""Entry nodes: semantic cache, router (simple / history / retrieval), structural shortcut."""

from __future__ import annotations

import re
from typing import Literal

from langchain_core.messages import AIMessage
from pydantic import BaseModel

from geungeo.answering.generation import refusal_text
from geungeo.answering.mentions import unmentioned as unmentioned_names
from geungeo.answering.models import REFUSAL, Citation, EvidenceItem
from geungeo.graph.context import GraphContext, Tracker, Update, emit_tokens
from geungeo.graph.state import GraphState, StructuralHit, earlier_follow_ups, earlier_questions, last_citations
from geungeo.retrieval.expansion import query_terms
from geungeo.retrieval.structural import StructuralAnswer, document_of, parse_structural
from geungeo.text.kiwi import bm25_terms, is_predicate
from geungeo.text.structure import ASKS_SANCTION

_GREETING = re.compile(
    r"^\s*(안녕|안뇽|하이|ㅎㅇ|반가워|고마워|감사(합니다|해요)?|수고|좋은 (아침|하루)"
    r"|hello|hi|hey|thanks?( you)?|good (morning|evening))"
    r"[\s!?.~ㅎㅋ^]*(하세요|하십니까|요)?[\s!?.~ㅎㅋ^]*$",
    re.IGNORECASE,
)
# A determiner pointing back to what was said: "그 조문", "이 경우", "해당 규정" (not 저: "저 회사원인데요" is the speaker).
_POINTING_BACK = r"(그|이|해당|같은)\s+\S"
_FOLLOW_UP = re.compile(
    r"^\s*(그럼|그러면|그건|그거|그것|그게|이건|이거|거기|그 (조항|규정|법|경우)|그때|그 다음|또|and|what about|then)\b|"
    r"^\s*(그건|그거|이건|이거|그게)\s*\S{0,12}\??\s*$|"
    # a determiner pointing back: "그 조문 원문", "이 경우에도", "해당 규정은"
    rf"^\s*{_POINTING_BACK}|"
    # the last answer's source: "근거 조문 보여줘", "출처 알려줘"
    r"^\s*(근거|출처)\s*(조문|조항|규정|법령|원문)?\s*(을|를|은|는|이|가|좀)?\s*(좀\s*)?(보여|알려|뭐)|"
    # no predicate of its own, only what changes: "3년 근무하면요?", "상가는요?", "편입생의 경우는요?"
    r"(은|는|이면|면|라면|이라면|엔|에는|경우)요\s*[?？]?\s*$",
    re.IGNORECASE,
)
# A follow-up asking to see the text itself: "그 조문 원문 보여줘", "그거 전문 보여 주세요".
_SHOW = re.compile(r"(원문|전문|조문|본문|전체).{0,8}(보여|알려)|보여\s*(줘|주세요|줄래)")
# A turn that only names a place, read in the document of the last answer: "그럼 제61조는?", "제62조도 보여줘",
# "별표 1은요?"; and one that steps from its article: "다음 조문은?", "그 앞 조는?".
_CUE = re.compile(r"^\s*(?:그럼|그러면|그리고|또|이번엔|그럼\s*이번엔|그\s*중에?서?|그\s*가운데)\s+")
_PLACE_ONLY = re.compile(
    r"\s*(?:은|는|도|이|가|을|를)?\s*(?:요|보여\s*(?:줘|주세요|줄래)요?|알려\s*(?:줘|주세요)요?|뭐야|내용은?)?\s*[?？!.]*$"
)
_STEP = re.compile(r"^\s*(?:그\s*)?(다음|이전|앞|뒤)\s*(?:조문|조항|조)" + _PLACE_ONLY.pattern)
# A short question ending on its topic, with nothing said about it ("위반하면 처벌은?", "기간은?"), is a follow-up in a
# conversation when it has at most this many words to search for of its own.
_BARE_TOPIC = re.compile(r"(은|는|이면|면)\s*[?？]\s*$")
_BARE_TOPIC_TERMS = 2
_BREAKING = frozenset({"위반", "안", "못", "위법", "불이행"})  # words for breaking a rule, as Kiwi leaves them
NOTHING_CITED = (
    f"{REFUSAL}: 이전 답변은 인용한 조문이 없습니다. 질문을 다른 말로 바꿔 다시 물어 주세요.\n"
    "The last answer cited no provision: nothing in the documents bore on it. Try asking in other words."
)
SIMPLE_REPLY = (
    "안녕하세요. 근거는 등록된 법령·규정·문서에서 답과 그 근거 조문을 찾아 드립니다. 무엇이 궁금하신가요?\n"
    "Hello — ask about the registered statutes, regulations and documents and I will answer with citations."
)


# A follow-up naming what it now asks about in place of what the earlier question asked about, with nothing said of it:
# "그럼 육아휴직은요?", "상가는요?", "군휴학도요?" (not a changed circumstance: "3년 근무하면요?", "위반하면 처벌은?").
_NEW_SUBJECT = re.compile(
    r"^\s*(?:(?:그럼|그러면|그리고|또|이번엔)\s+)?(?P<subject>[^?？.!]*?[^\s?？.!])(?:은|는|도)\s*요?\s*[?？]?\s*$"
)
_CONDITION = re.compile(r"(면|으면|이면|라면|다면)\s")


def new_subject(question: str) -> str:
    """The noun phrase a follow-up asks about in place of the earlier question's subject ("그럼 육아휴직은요?":
    "육아휴직"), or "" when it names none (a changed circumstance, a sanction, a request)."""
    m = _NEW_SUBJECT.match(question)
    if m is None or ASKS_SANCTION.search(question) or _SHOW.search(question):
        return ""
    subject = m["subject"]
    # a changed circumstance ("3년 근무하면요?", "군대 가는 경우는?": a verb says what happens), or what points back
    # ("그 조문 원문은요?", "이 경우는요?")
    circumstance = _CONDITION.search(f"{subject} ") or any(is_predicate(t) for t in bm25_terms(subject, compounds=False))
    return "" if circumstance or re.match(_POINTING_BACK, subject) else subject


class RouteDecision(BaseModel):
    route: Literal["simple", "history_required", "rag_required"]
    needs_retrieval: bool = True
    standalone_question: str = ""


def topic(question: str) -> str:
    """The content words of an earlier question (its nouns and numbers, not its verbs)."""
    return " ".join(dict.fromkeys(t for t in query_terms(question, compounds=False) if not is_predicate(t)))


def context_topic(state: GraphState) -> str:
    """What a follow-up leaves out: the topic of the last complete question of the conversation and of the follow-ups
    asked since ("연차 유급휴가 며칠" then "3년 근무" for a third turn), without the requests to see a text ("그 조문
    보여줘"). A question counts as a follow-up when it reads as one or its turn was read as one (nothing bore on it
    alone: :func:`~geungeo.graph.state.earlier_follow_ups`)."""
    turns = list(zip(earlier_questions(state), earlier_follow_ups(state), strict=True))
    chain: list[str] = []
    for earlier, read in turns[::-1][:3]:
        if not _SHOW.search(earlier):
            chain.insert(0, topic(earlier))
        if not (read or is_follow_up(earlier)):
            break
    return " ".join(dict.fromkeys(" ".join(chain).split()))


def is_follow_up(question: str) -> bool:
    """Whether ``question``, asked after another, leaves out what that one said (read without an LLM): it opens with
    a word pointing back ("그럼", "그 조문"), ends on what changes without a predicate ("3년 근무하면요?", "상가는요?")
    or is a short topic alone ("위반하면 처벌은?", "1년 안 된 신입은?")."""
    if _FOLLOW_UP.search(question):
        return True
    words = topic(question).split()
    # asking what breaking something costs and naming nothing to break ("어기면 벌금은 얼마예요?", "과태료는요?"):
    # breaking what the conversation is about
    if ASKS_SANCTION.search(question) and all(ASKS_SANCTION.search(w) or w in _BREAKING for w in words):
        return True
    # the figures and the words for not doing it tell the case, they name nothing ("1년 안 된 신입은?": 신입)
    named = [w for w in words if not w.isdigit() and w not in _BREAKING]
    return bool(_BARE_TOPIC.search(question)) and len(named) <= _BARE_TOPIC_TERMS


def cache_lookup(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    if ctx.cache is None:
        return {"cache_hit": False}
    if earlier_questions(state):
        tracker.notes.append("conversation: not cached")
        return {"cache_hit": False}
    found = ctx.cache.lookup(state["question"], state.get("filters"), ctx.answer_writer)
    if found is None:
        return {"cache_hit": False}
    answer, similarity = found
    tracker.notes.append(f"hit {similarity:.3f}")
    return {"cache_hit": True, "cached_answer": answer}


def router(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """A structural lookup ("제60조", "학칙 별표 1"), a refusal for a question citing only documents the store does not
    hold or asking about a name no stored passage mentions, or the route of a conversational question."""
    question = state["question"]
    if not ctx.settings.enable_query_routing:
        return {"route": "rag_required", "standalone": question}
    # None unless the question is a structural request; without a model to explain them, compared articles are shown
    found = ctx.structural.answer(question, comparisons=ctx.extractive)
    if found is not None:
        return {"route": "structural", "standalone": question, "structural": _hit(found)}
    missing, near, beside = ctx.structural.unheld(question)
    if missing and not beside:  # "소득세법상 …" with no 소득세법 stored: other documents would answer another question
        text = refusal_text(question, [], missing, reason="unheld", related=near)
        tracker.notes.append(f"not stored: {', '.join(missing)}")
        return {"route": "structural", "standalone": question, "structural": _not_stored(text)}
    # "부산대학교는 …?" over another university's 규정집: what is asked about appears in no stored passage
    unmentioned = unmentioned_names(question, ctx.engine.mentions, ctx.lexicon) if not missing else []
    if unmentioned:
        text = refusal_text(question, [], unmentioned, reason="unmentioned")
        tracker.notes.append(f"not mentioned: {', '.join(unmentioned)}")
        return {"route": "structural", "standalone": question, "structural": _not_stored(text)}
    update = _conversational_route(state, ctx, tracker)
    if missing:  # "근로기준법과 소득세법상 …": the stored one answers, and the answer says what it could not read
        update["warnings"] = [f"not among the stored documents / 등록되지 않은 문서: {', '.join(missing)}"]
    return update


def _conversational_route(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """A greeting, a follow-up (its standalone form), or a question to search."""
    question = state["question"]
    previous = earlier_questions(state)
    if _GREETING.match(question):
        return {"route": "simple", "standalone": question}
    place = _in_last_document(question, state, ctx) if previous else None
    if place is not None:
        tracker.notes.append(f"follow-up: {place} in the document of the last answer")
        shown = ctx.structural.answer(place)
        if shown is not None:
            return {"route": "structural", "standalone": place, "structural": _hit(shown)}
    follow_up = bool(previous) and is_follow_up(question)
    if follow_up and _SHOW.search(question):
        label = _last_cited(state)
        if label is None:  # the last answer cited nothing: there is no text to show, and searching "조문" finds noise
            tracker.notes.append("follow-up: the last answer cited nothing")
            return {"route": "structural", "standalone": question, "structural": _not_stored(NOTHING_CITED)}
        shown = ctx.structural.answer(label)  # "그 조문 보여줘": the provision the last answer cited first
        if shown is not None and shown.found:
            tracker.notes.append(f"follow-up: the text of {label}")
            return {"route": "structural", "standalone": label, "structural": _hit(shown)}
    if ctx.extractive or not previous:
        if follow_up:
            tracker.notes.append("rules: follow-up completed with the previous question's topic")
            return read_as_follow_up(state, ctx)
        return {"route": "rag_required", "standalone": question}
    convo = "\n".join(f"- {q}" for q in previous[-3:])
    decision, _ = ctx.ask_json(
        tracker,
        "router",
        f"이전 질문:\n{convo}\n\n현재 질문: {question}",
        RouteDecision,
        RouteDecision(route="history_required" if follow_up else "rag_required"),
    )
    standalone = decision.standalone_question.strip() or f"{question} {context_topic(state)}"
    route = decision.route if decision.needs_retrieval or decision.route == "simple" else "simple"
    return {"route": route, "standalone": standalone if route == "history_required" else question}


def read_as_follow_up(state: GraphState, ctx: GraphContext) -> Update:
    """The route of the turn read as a follow-up without an LLM: searched with the earlier turns' topic (or, naming a new
    subject, with that topic less what the subject replaces), answered only by what states the topic or the subject."""
    question = state["question"]
    carried = context_topic(state)
    subject = new_subject(question)
    searched = _in_place_of(subject, carried, state, ctx) if subject else carried
    return {
        "route": "history_required",
        "standalone": f"{question} {searched}".strip(),
        "topic": carried,
        "subject": subject,
    }


def _in_place_of(subject: str, carried: str, state: GraphState, ctx: GraphContext) -> str:
    """What a follow-up naming a new ``subject`` searches for of the ``carried`` topic: all of it when the provisions
    the last answer cited speak of the subject too (it asks about them: "육아휴직은 몇 살까지?" then "기간은요?"), else
    the topic without its first word, which named the subject now replaced ("교원 정년은 몇 살?" then "직원은?":
    "직원 정년 몇 살", not "교원" beside it)."""
    words = carried.split()
    if len(words) < 2 or words[0] in subject:
        return carried
    cited = [ctx.structural.answer(label) for label in last_citations(state)[:3]]
    said = {t for found in cited if found is not None and found.found for t in bm25_terms(found.text, compounds=False)}
    wanted = [t for t in query_terms(subject, compounds=False) if not is_predicate(t)]
    return carried if said and all(t in said for t in wanted) else " ".join(words[1:])


def _hit(found: StructuralAnswer) -> StructuralHit:
    return {
        "kind": found.kind,
        "text": found.text if found.found else found.message,
        "found": found.found,
        "chunk_ids": [cid for c in found.citations for cid in c.chunk_ids],
        "cited": [c.chunk_ids[0] for c in found.citations if c.chunk_ids],
    }


def _not_stored(text: str) -> StructuralHit:
    return {"kind": "overview", "text": text, "found": False, "chunk_ids": [], "cited": []}


def _in_last_document(question: str, state: GraphState, ctx: GraphContext) -> str | None:
    """A turn naming only a place ("그럼 제61조는?", "별표 1도 보여줘") or a step from the last answer's article ("다음
    조문은?") as a structural request in the document the last answer cited first ("근로기준법 제61조"), or a 항/호
    alone ("제2항만 보여줘") in that article; None otherwise."""
    last = _last_cited(state)
    if last is None:
        return None
    if step := _STEP.match(question):
        return ctx.structural.adjacent(last, 1 if step.group(1) in ("다음", "뒤") else -1)
    bare = re.sub(r"\s*만$", "", _PLACE_ONLY.sub("", _CUE.sub("", question)).strip())
    if not bare:
        return None
    # a 항 or 호 alone ("제2항만", "3호는"): the same article with that part, as the lookups read "제60조 제2항"
    cited, part = parse_structural(last), parse_structural(f"{last} {bare}")
    if cited and part and part.kind == "article" and part.article == cited.article and (part.paragraph or part.item):
        return f"{last} {bare}"
    request = parse_structural(bare)
    if request is None or request.name or request.code or request.kind not in ("article", "chapter", "attachment"):
        return None
    return f"{document_of(last)} {bare}"


def _last_cited(state: GraphState) -> str | None:
    """The first citation label of the conversation's last answer ("근로기준법 제60조"), if it cited one."""
    return next(iter(last_citations(state)), None)


def simple_answer(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    if ctx.extractive:
        emit_tokens(SIMPLE_REPLY)
        return {"answer": SIMPLE_REPLY, "refused": False, "evidence": [], "citations": []}
    text = ctx.ask_text(tracker, "simple", state["question"], SIMPLE_REPLY)
    emit_tokens(text or SIMPLE_REPLY)
    return {"answer": text or SIMPLE_REPLY, "refused": False, "evidence": [], "citations": []}


def structural(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """The router's structural lookup as the answer, its chunks as evidence, one citation per article."""
    lookup = state.get("structural")
    assert lookup is not None, "the router found the lookup"
    chunks = ctx.engine.store.get(lookup["chunk_ids"])
    evidence = [EvidenceItem.from_chunk(n, c, 1.0, origin="structural") for n, c in enumerate(chunks, start=1)]
    cited = set(lookup["cited"]) if lookup["found"] else set()
    tracker.notes.append(lookup["kind"] if lookup["found"] else "not found")
    emit_tokens(lookup["text"])
    return {
        "answer": lookup["text"],
        "refused": not lookup["found"],
        "evidence": evidence,
        "citations": [Citation.of(e) for e in evidence if e.chunk_id in cited],
    }


def remember(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Close the turn: the answer joins the conversation history (the runner added the question)."""
    cited = [c.label for c in state.get("citations", [])]
    follow_up = state.get("route") == "history_required"
    return {"history": [AIMessage(state.get("answer", ""), additional_kwargs={"cited": cited, "follow_up": follow_up})]}

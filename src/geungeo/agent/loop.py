"""The tool-calling agent (``GEUNGEO_MODE=agent``): a chat model drives geungeo's tools, then the cited answer.

One run, at most ``agent_max_steps`` model turns:

1. The system prompt lists the tools and the rules and gives intent hints: the rules planner's intent,
   the audience the lexicon detects, its legal terms for the question's everyday words, the caller's filter.
2. Each turn the model calls tools. Every call runs (arguments validated by the tool's schema; a bad call
   or a tool error goes back to the model as an error tool message) and the passages it read join the
   evidence. Each call is one flow-log step (its seconds include the model turn that asked for it).
3. ``answer(question, context)`` ends the run: the answer is written from the passages ``context`` names
   (default: everything gathered) with the answer graph's generation prompt, streamed, its citations
   validated against those passages (step ``generate``). A plain-text reply after the model has used a
   tool is taken as the answer, its citations validated against the evidence.
4. Out of steps, or the model failing after it gathered evidence: the answer is written from everything
   gathered (extractively when the model failed).

The answer graph answers instead (the flow log's ``agent`` step says why) when there is no chat model
(extractive mode), the provider cannot bind tools (``NotImplementedError``), the first turn fails or
calls no tool (a model that looked nothing up can cite nothing, and the graph's router also handles
greetings), or the agent would have to answer with no evidence at all.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from geungeo.agent.tools import Passage, Toolbox, ToolResult, langchain_tools
from geungeo.answering.events import NodeEvent, StreamEvent, token_event
from geungeo.answering.generation import (
    Request,
    compose_answer,
    is_refusal,
    llm_unavailable,
    validate_citations,
    word_tokens,
)
from geungeo.answering.models import Answer, EvidenceItem, FlowStep, QueryPlan
from geungeo.answering.planning import rules_plan
from geungeo.errors import GeungeoError
from geungeo.graph.context import GraphContext
from geungeo.graph.memory import Memory
from geungeo.graph.modes import GraphStream
from geungeo.llm.base import invoke_message
from geungeo.prompts import render, system_message
from geungeo.text.language import question_language
from geungeo.text.normalize import squash

AGENT_NODE = "agent"  # its flow-log step and its prompt (prompts/agent.md)
MAX_CALLS_PER_TURN = 5
MAX_TOOL_CHARS = 6000
HISTORY_TURNS = 3
_HIT_CHARS = 900
_AUDIENCES = {"student": "학생", "faculty": "교원", "staff": "직원"}


def hints(question: str, plan: QueryPlan, ctx: GraphContext, filters: str | None) -> str:
    """The intent hints of the system prompt: intent, audience, legal terms, the caller's filter."""
    lines = [f"- 의도 / intent: {plan.intent}"]
    if plan.audience:
        lines.append(f"- 질문자 / audience: {_AUDIENCES.get(plan.audience, plan.audience)} ({plan.audience})")
    terms = list(dict.fromkeys([*ctx.lexicon.expansions(question), *ctx.lexicon.translations(question)]))
    if terms:
        lines.append(f"- 검색에 쓸 법령 용어 / legal terms: {', '.join(terms)}")
    if filters:
        lines.append(f"- 검색 범위 / every search is limited to: {filters}")
    if question_language(question) == "en":
        lines.append("- 영어 질문: 검색어는 한국어 법령 용어로 쓰세요. The answer will be in English.")
    return "질문 분석(힌트):\n" + "\n".join(lines)


def render_result(result: ToolResult) -> str:
    """What the model reads of a tool result: compact JSON, long texts cut short."""
    payload = result.payload
    if isinstance(payload, list):
        view: Any = [
            {k: (v[:_HIT_CHARS] + "…" if k == "text" and len(v) > _HIT_CHARS else v) for k, v in hit.items() if v is not None}
            for hit in payload
        ]
    elif isinstance(payload, dict):
        view = {k: payload[k] for k in ("citation", "text", "message") if payload.get(k)}
    else:
        view = payload
    text = json.dumps(view, ensure_ascii=False)
    return text if len(text) <= MAX_TOOL_CHARS else text[: MAX_TOOL_CHARS - 20] + " …(truncated)"


@dataclass
class _AnswerRequest:
    question: str
    context: list[str]


class Agent:
    """One agent run over the graph's collaborators (engine, chat model, lexicon, structural lookup)."""

    def __init__(self, ctx: GraphContext, *, filters: str | None = None) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.filters = filters
        self.box = Toolbox(ctx.engine, filters=filters)
        self.evidence: dict[str, EvidenceItem] = {}
        self.flow: list[FlowStep] = []
        self.warnings: list[str] = []
        self.deadline: float | None = None  # time.monotonic() after which no model call starts
        self.successful_calls = 0
        self._request: _AnswerRequest | None = None

    # --- the run ----------------------------------------------------------------------------------

    def stream(
        self, question: str, *, fallback: GraphStream, history: Sequence[BaseMessage] = (), memory: Memory | None = None
    ) -> Iterator[StreamEvent]:
        """Node events per tool call, the answer's tokens, then ``{"type": "answer", "answer": Answer}``."""
        started = time.perf_counter()
        self.deadline = time.monotonic() + self.settings.answer_deadline_s
        plan = rules_plan(question, self.ctx.lexicon, self.settings.max_sub_queries)
        llm = self.ctx.llm
        if llm is None:
            yield from self._fall_back(fallback, "no LLM configured (extractive mode)", started)
            return
        tools = langchain_tools(self.box, self._record_answer, render_result)
        try:
            model = llm.bind_tools(tools)
        except NotImplementedError:
            yield from self._fall_back(fallback, f"{type(llm).__name__} cannot call tools", started)
            return
        system = f"{render(AGENT_NODE, steps=self.settings.agent_max_steps)}\n\n{hints(question, plan, self.ctx, self.filters)}"
        convo: list[BaseMessage] = [
            system_message(AGENT_NODE, system),
            *list(history)[-2 * HISTORY_TURNS :],
            HumanMessage(question),
        ]
        by_name: dict[str, BaseTool] = {t.name: t for t in tools}
        for step in range(1, self.settings.agent_max_steps + 1):
            turn_started = time.perf_counter()
            reply, info = invoke_message(
                model,
                convo,
                retries=self.settings.llm_max_retries,
                timeout_s=self.settings.llm_timeout_s,
                deadline=self.deadline,
            )
            turn = (time.perf_counter() - turn_started, info.attempts)
            if reply is None:
                reason = f"model call failed ({', '.join(info.errors)})"
                if not self.evidence:
                    yield from self._fall_back(fallback, reason, started, turn, llm_failure=info.failure)
                    return
                yield self._step(AGENT_NODE, *turn, f"{reason}: answering from what was gathered")
                self.warnings.append(llm_unavailable(info.failure))
                yield from self._finish(question, plan, list(self.evidence.values()), extractive=True, memory=memory)
                return
            if not reply.tool_calls and not reply.invalid_tool_calls:
                if not self.successful_calls:
                    yield from self._fall_back(fallback, "the model called no tool", started, turn)
                    return
                yield from self._final_text(question, plan, reply.text, turn, memory)
                return
            convo.append(reply)
            yield from self._run_calls(reply, by_name, convo, turn)
            if self._request is not None:
                items = self._select(self._request.context)
                if not items:
                    yield from self._fall_back(fallback, "answer called with no passages found", started)
                    return
                yield from self._finish(question, plan, items, self._request.question, memory=memory)
                return
            if step == self.settings.agent_max_steps:
                limit = f"step limit ({step}) reached"
                if not self.evidence:
                    yield from self._fall_back(fallback, f"{limit} with no passages found", started)
                    return
                yield self._step(AGENT_NODE, 0.0, 0, f"{limit}: answering from {len(self.evidence)} passages")
                yield from self._finish(question, plan, list(self.evidence.values()), memory=memory)

    # --- tool calls -------------------------------------------------------------------------------

    def _run_calls(
        self, reply: AIMessage, by_name: dict[str, BaseTool], convo: list[BaseMessage], turn: tuple[float, int]
    ) -> Iterator[StreamEvent]:
        """Run the turn's calls (answer last; at most MAX_CALLS_PER_TURN others), each answered by a tool message
        and logged as a step."""
        calls: list[tuple[str, str, str | None, dict[str, Any] | None]] = [
            (c["name"], c.get("id") or "", None, c["args"]) for c in reply.tool_calls
        ]
        calls += [
            (c.get("name") or "", c.get("id") or "", c.get("error") or "not valid JSON", None) for c in reply.invalid_tool_calls
        ]
        calls.sort(key=lambda c: c[0] == "answer")
        seconds, llm_calls = turn
        for i, (name, call_id, broken, args) in enumerate(calls):
            started = time.perf_counter()
            if i >= MAX_CALLS_PER_TURN and name != "answer":
                content = f"error: at most {MAX_CALLS_PER_TURN} tool calls run per turn; call it again"
                ok, note = False, "skipped"
            elif args is None:
                content = f"error: the arguments of {name or 'the call'} are not a JSON object ({broken}); call it again"
                ok, note = False, "invalid arguments"
            else:
                content, ok, note = self._invoke(by_name, name, call_id, args)
            status = "success" if ok else "error"
            convo.append(ToolMessage(content=content, tool_call_id=call_id, name=name or None, status=status))
            first = i == 0
            yield self._step(
                name or "tool", time.perf_counter() - started + (seconds if first else 0.0), llm_calls if first else 0, note
            )

    def _invoke(self, by_name: dict[str, BaseTool], name: str, call_id: str, args: dict[str, Any]) -> tuple[str, bool, str]:
        """(content for the model, success, note) of one call; errors go back to the model, never up."""
        tool = by_name.get(name)
        if tool is None:
            return f"error: unknown tool '{name}'; the tools are {', '.join(by_name)}", False, "unknown tool"
        try:
            message = tool.invoke(ToolCall(name=name, args=args, id=call_id, type="tool_call"))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:4])
            return f"error: invalid arguments for {name}: {problems}; call it again with valid arguments", False, problems
        except GeungeoError as exc:
            return f"error: {exc}", False, f"error: {exc}"[:200]
        self.successful_calls += 1
        result = message.artifact
        if isinstance(result, ToolResult):
            self._gather(result.passages)
            return str(message.content), True, result.note
        return str(message.content), True, f"{len(self._request.context) if self._request else 0} passages named"

    def _record_answer(self, question: str, context: list[str]) -> tuple[str, _AnswerRequest]:
        """The answer tool: remembered here, written by :meth:`_finish` once the turn's other calls ran."""
        self._request = _AnswerRequest(question, context)
        return "the cited answer is being written from the passages found", self._request

    def _gather(self, passages: Sequence[Passage]) -> list[EvidenceItem]:
        """Add passages to the evidence (each chunk once, keeping its best score); the items they are."""
        items = []
        for p in passages:
            old = self.evidence.get(p.chunk.id)
            if old is None:
                old = EvidenceItem.from_chunk(len(self.evidence) + 1, p.chunk, p.score, p.origin)
                self.evidence[p.chunk.id] = old
            elif p.score > old.score:
                old.score = p.score
            items.append(old)
        return items

    def _select(self, context: Sequence[str]) -> list[EvidenceItem]:
        """The evidence ``context`` names (labels or chunk ids; others looked up and gathered); all when none resolve."""
        by_key: dict[str, list[EvidenceItem]] = {}
        for item in self.evidence.values():  # a label may name several passages (the parts of a long article)
            by_key.setdefault(squash(item.label), []).append(item)
            by_key[item.chunk_id] = [item]
        picked: list[EvidenceItem] = []
        unknown: list[str] = []
        for entry in context:
            key = entry.strip().strip("[]［］").strip()
            items = by_key.get(key) or by_key.get(squash(key))
            if items:
                picked += items
            else:
                unknown.append(key)
        if unknown:
            picked += self._gather(self.box.passages(unknown))
        chosen = list({i.chunk_id: i for i in picked}.values())
        return chosen or list(self.evidence.values())

    # --- endings ----------------------------------------------------------------------------------

    def _finish(
        self,
        question: str,
        plan: QueryPlan,
        items: list[EvidenceItem],
        asked: str = "",
        *,
        extractive: bool = False,
        memory: Memory | None,
    ) -> Iterator[StreamEvent]:
        """Write the answer from ``items`` (streamed), validate its citations, yield the Answer.

        ``asked`` is the question as the model put it to ``answer`` (self-contained in a conversation); it is
        added to the user's question unless it is the same or in another language.
        """
        if asked and squash(asked) != squash(question) and question_language(asked) == question_language(question):
            asked = f"{question}\n(정리된 질문 / restated: {asked})"
        else:
            asked = question
        started = time.perf_counter()
        llm = None if extractive else self.ctx.llm
        request = Request.over(self.ctx.engine, items, deadline=self.deadline)
        composing = compose_answer(asked, items, llm, self.settings, self.ctx.lexicon, request)
        while True:
            try:
                piece = next(composing)
            except StopIteration as stop:
                composed = stop.value
                break
            yield token_event(piece)
        self.warnings.extend(composed.warnings)
        note = f"{len(items)} passages" + (f"; {composed.note}" if composed.note else "")
        if composed.removed:
            note += f"; {composed.removed} citation(s) to nothing removed"
        yield self._step("generate", time.perf_counter() - started, composed.llm_calls, note)
        answer = self._answer(question, plan, composed.answer, composed.citations, composed.refused, composed.mode)
        answer.removed_citations = composed.removed
        yield from self._done(answer, memory)

    def _final_text(
        self, question: str, plan: QueryPlan, text: str, turn: tuple[float, int], memory: Memory | None
    ) -> Iterator[StreamEvent]:
        """The model's own reply as the answer, citations validated against the evidence."""
        items = list(self.evidence.values())
        cleaned, citations, removed = validate_citations(text, items)
        refused = is_refusal(cleaned, citations)
        note = "answered in text" + (f"; {removed} citation(s) to nothing removed" if removed else "")
        yield self._step("reply", *turn, note)
        for piece in word_tokens(cleaned):
            yield token_event(piece)
        if items and not citations and not refused:
            self.warnings.append("the answer cites none of the passages found / 답변이 찾은 근거를 인용하지 않았습니다")
        answer = self._answer(question, plan, cleaned, citations, refused, "llm")
        answer.removed_citations = removed
        yield from self._done(answer, memory)

    def _answer(self, question: str, plan: QueryPlan, text: str, citations: list[Any], refused: bool, mode: str) -> Answer:
        return Answer(
            question=question,
            answer=text,
            refused=refused,
            mode="llm" if mode == "llm" else "extractive",
            citations=citations,
            evidence=list(self.evidence.values()),
            plan=plan,
            warnings=self.warnings,
            flow_log=self.flow,
            llm_calls=sum(s.llm_calls for s in self.flow),
        )

    def _done(self, answer: Answer, memory: Memory | None) -> Iterator[StreamEvent]:
        if memory is not None:
            memory.record(answer.question, answer.answer)
        yield {"type": "answer", "answer": answer}

    def _fall_back(
        self,
        fallback: GraphStream,
        reason: str,
        started: float,
        turn: tuple[float, int] = (0.0, 0),
        *,
        llm_failure: str = "",
    ) -> Iterator[StreamEvent]:
        """The answer graph answers; the agent's steps and why come first in its flow log."""
        unlogged = max(0.0, time.perf_counter() - started - sum(s.seconds for s in self.flow))
        event = self._step(AGENT_NODE, unlogged, turn[1], f"fallback to the answer graph: {reason}")
        yield event
        before = list(self.flow)
        for item in fallback(llm_failure=llm_failure, deadline=self.deadline):
            if item["type"] == "answer":
                answer: Answer = item["answer"]
                answer.flow_log = [*before, *answer.flow_log]
                answer.llm_calls = sum(s.llm_calls for s in answer.flow_log)
            yield item

    def _step(self, node: str, seconds: float, llm_calls: int, note: str) -> NodeEvent:
        step = FlowStep(node=node, seconds=round(seconds, 4), llm_calls=llm_calls, note=note)
        self.flow.append(step)
        return {"type": "node", "node": step.node, "seconds": step.seconds, "llm_calls": step.llm_calls, "note": step.note}


def run_agent(
    ctx: GraphContext,
    question: str,
    *,
    fallback: GraphStream,
    filters: str | None = None,
    memory: Memory | None = None,
) -> Iterator[StreamEvent]:
    """Stream one agent run (the :class:`~geungeo.graph.modes.AnswerMode` registered as ``agent``)."""
    history = memory.history() if memory is not None else []
    yield from Agent(ctx, filters=filters).stream(question, fallback=fallback, history=history, memory=memory)

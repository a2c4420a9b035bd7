"""Retrieval nodes: run every sub-query and variation in parallel, add neighbours and cited articles, rerank."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context

from pydantic import BaseModel

from geungeo.answering.definitions import asked_term, defines
from geungeo.answering.linked import same_family
from geungeo.answering.models import EvidenceItem
from geungeo.filters import parse_filter
from geungeo.graph.context import GraphContext, Tracker, Update
from geungeo.graph.state import GraphState, last_citations
from geungeo.retrieval.expansion import query_terms
from geungeo.stores.base import ChunkStore
from geungeo.text.structure import ASKS_SANCTION, SANCTION
from geungeo.types import Chunk, Hit


def next_queries(state: GraphState) -> list[str]:
    """This round's queries: the plan's on the first round, the missing aspects afterwards."""
    plan = state.get("plan")
    assert plan is not None, "the planner runs before retrieval"
    if state.get("iteration", 0) == 0:
        queries = [sq.text for sq in plan.sub_queries] + plan.rewrites
    else:
        sufficiency = state.get("sufficiency")
        missing = sufficiency.missing if sufficiency else []
        queries = [f"{plan.normalized_query} {aspect}" for aspect in missing] or [plan.normalized_query]
    done = set(state.get("queries_done", []))
    return [q for q in dict.fromkeys(queries) if q.strip() and q not in done]


def retrieve(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    queries = next_queries(state)
    filters = state.get("filters")
    where = parse_filter(filters) if filters else None
    k = ctx.settings.top_k

    def search(query: str) -> list[Hit]:
        return ctx.engine.search(query, k=k, where=where)

    with ThreadPoolExecutor(max_workers=min(4, max(1, len(queries)))) as pool:  # each in a copy of this context
        results = [task.result() for task in [pool.submit(copy_context().run, search, q) for q in queries]]
    pool_by_id = {c.chunk_id: c for c in state.get("candidates", [])}
    question = state.get("standalone") or state["question"]
    # The articles the question cites in the document it names ("근로기준법 제60조에 따르면 …") are evidence whatever
    # the search ranks: first (with the best score the search gave, so that they do not raise the answer's
    # confidence), and each keeps a place among the best passages.
    cited = _cited(state, ctx) if not state.get("iteration") and where is None else []
    if cited:
        best = max((hit.score for hits in results for hit in hits), default=1.0)
        # asked what breaking them costs ("위반하면 처벌은?"): the penalty articles that name them join them, as
        # leads. The penalties of passages a search found join after the chosen ones instead (rerank): a cited article
        # is what the question is about, a found one may not be (measured: as references here, "위반하면 처벌은?"
        # after a 연장근로 answer also quoted an unrelated 벌금 of another statute).
        if ASKS_SANCTION.search(question):
            cited += [[chunk] for chunk in penalties(ctx.engine.store, [c.id for chunks in cited for c in chunks])]
        for chunk in (chunk for chunks in cited for chunk in chunks):
            pool_by_id[chunk.id] = EvidenceItem.from_chunk(0, chunk, best)
        tracker.notes.append(f"cited: {', '.join(str(chunks[0].meta['article']) for chunks in cited)}")
    duties = _duties(question, search, ctx.engine.store) if not cited and not state.get("iteration") and where is None else []
    for duty in duties:
        pool_by_id.setdefault(duty.chunk.id, EvidenceItem.from_chunk(0, duty.chunk, duty.score))
    if duties:
        tracker.notes.append(f"penalties of: {', '.join(str(d.chunk.meta.get('article')) for d in duties)}")
    definitions = _definitions(question, ctx.engine.store) if not state.get("iteration") and where is None else []
    for chunk in definitions:
        pool_by_id.setdefault(chunk.id, EvidenceItem.from_chunk(0, chunk, 0.0))
    if definitions:
        tracker.notes.append(f"definitions: {', '.join(str(c.meta.get('article')) for c in definitions)}")
    if ctx.corrections is not None and not state.get("iteration"):
        for correction, similarity in ctx.corrections.find(question):
            pool_by_id[f"correction-{correction.id}"] = correction.evidence(0, similarity)
            tracker.notes.append(f"verified correction #{correction.id} (similarity {similarity:.2f})")
    for rank_list in results:
        for hit in rank_list:
            old = pool_by_id.get(hit.chunk.id)
            if old is None or old.score < hit.score:  # a passage found by several queries keeps its best score
                pool_by_id[hit.chunk.id] = EvidenceItem.from_chunk(0, hit.chunk, hit.score)
    tracker.notes.append(f"{len(queries)} queries, {len(pool_by_id)} candidates")
    plan = state.get("plan")
    parts = {sq.text for sq in plan.sub_queries if sq.priority > 1} if plan and not state.get("iteration") else set()
    leads = [chunks[0].id for chunks in cited]
    leads += [duty.chunk.id for duty in duties]
    leads += [chunk.id for chunk in definitions]
    leads += [hits[0].chunk.id for query, hits in zip(queries, results, strict=True) if query in parts and hits]
    return {
        "candidates": list(pool_by_id.values()),
        "leads": list(dict.fromkeys([*state.get("leads", []), *leads])),
        "queries_done": [*state.get("queries_done", []), *queries],
        "iteration": state.get("iteration", 0) + 1,
    }


def _cited(state: GraphState, ctx: GraphContext) -> list[list[Chunk]]:
    """The articles the question cites in the document it names, each as its chunks; for a follow-up asking what
    breaking the provision costs ("위반하면 처벌은?", "어기면 벌금은?"), the provisions the last answer cited."""
    question = state.get("standalone") or state["question"]
    cited = ctx.engine.structural.cited_articles(question)
    if state.get("route") == "history_required" and ASKS_SANCTION.search(state["question"]):
        for label in last_citations(state):
            cited += [chunks for chunks in ctx.engine.structural.cited_articles(label) if chunks not in cited]
    return cited


_DUTIES = 2  # duty passages whose penalties a question about sanctions brings (chosen a priori, not tuned)


def _duties(question: str, search: Callable[[str], list[Hit]], store: ChunkStore) -> list[Hit]:
    """For a question about what breaking something costs that cites no article ("임금을 제때 안 주면 처벌은?"): the
    best passages found without its sanction words that state no sanction themselves and that a penalty cites (the
    duty: 근로기준법 제43조, which 제109조 names as "제43조" but not by 임금); none for other questions. Each keeps a
    place among the best passages; its penalties follow them (:func:`rerank`)."""
    if not ASKS_SANCTION.search(question):
        return []
    hits = [h for h in search(ASKS_SANCTION.sub(" ", question)) if not SANCTION.search(h.chunk.text)][:_DUTIES]
    return [hit for hit in hits if penalties(store, [hit.chunk.id])]


_DEFINITIONS = 2  # passages defining the asked term that keep a place (chosen a priori, not tuned)
_DEFINITION_POOL = 200  # how many of the term's BM25 passages are read for its definition


def _definitions(question: str, store: ChunkStore) -> list[Chunk]:
    """Asked what a term is ("평균임금이란?"): the passages that define it ("평균임금"이란 …, in a 정의 article), which the
    articles using the term outrank in the search; each keeps a place among the best passages. None for a question
    asking something else."""
    term = asked_term(question)
    if term is None:
        return []
    ids = [cid for cid, _ in store.sparse_search(query_terms(term), _DEFINITION_POOL)]
    return [chunk for chunk in store.get(ids) if defines(chunk.text, term)][:_DEFINITIONS]


def penalties(store: ChunkStore, chunk_ids: Sequence[str]) -> list[Chunk]:
    """The passages stating a sanction ("2년 이하의 징역", "과태료") that cite one of the articles of ``chunk_ids``
    ("제53조를 위반한 자") or an article of their own family that one of them implements (a 시행령 article's "법
    제55조제1항에 따른 유급휴일" is punished where the 법 article is), in the order the store gives them."""
    own = {c.id: str(c.meta.get("doc") or "") for c in store.get(chunk_ids)}
    implemented = [
        target
        for link in store.links_from(list(own))
        if same_family(link.doc, own.get(link.source, ""))
        for target in link.targets
    ]
    citing = [link.source for link in store.links_to([*own, *implemented])]
    return [c for c in store.get(list(dict.fromkeys(s for s in citing if s not in own))) if SANCTION.search(c.text)]


# An article cited by more articles than this (a definition, a general rule) is not followed backwards: its
# citers are not specific to it. Chosen a priori, not tuned on the questions.
_CITED_BY_MAX = 3


def related_articles(store: ChunkStore, chunk_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(passage, related) chunk id pairs: the articles each of ``chunk_ids`` cites and those citing it (the
    시행령 article that implements a 법 article, the penalty for breaking it) when at most ``_CITED_BY_MAX``
    articles do; in the order of ``chunk_ids``, cited before citing."""
    cited: dict[str, list[str]] = {}
    for link in store.links_from(chunk_ids):
        cited.setdefault(link.source, []).extend(link.targets)
    citing: dict[str, list[str]] = {}
    for link in store.links_to(chunk_ids):
        for target in link.targets:
            citing.setdefault(target, []).append(link.source)
    out: dict[str, str] = {}
    for cid in chunk_ids:
        sources = list(dict.fromkeys(citing.get(cid, [])))
        for related in cited.get(cid, []) + (sources if len(sources) <= _CITED_BY_MAX else []):
            if related not in chunk_ids:
                out.setdefault(related, cid)
    return [(passage, related) for related, passage in out.items()]


def expand(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Previous/next chunks of the best candidates (the rest of a split article, the facing page), and the
    articles they cite or that cite them (origin ``reference``: "제2조에 따른", "법 제105조", the 시행령 article
    implementing a 법 article)."""
    window = ctx.settings.neighbour_window
    candidates = sorted(state.get("candidates", []), key=lambda c: -c.score)
    retrieved = [c for c in candidates if c.origin != "correction"]  # a correction has no neighbours
    top = retrieved[: ctx.settings.rerank_top_k]
    have = {c.chunk_id for c in candidates}
    added: list[EvidenceItem] = []
    for item in top if window else []:
        for chunk in ctx.engine.store.neighbours(item.chunk_id, window):
            if chunk.id not in have:
                have.add(chunk.id)
                added.append(EvidenceItem.from_chunk(0, chunk, 0.0, origin="neighbour"))
    neighbours = len(added)
    related = related_articles(ctx.engine.store, [c.chunk_id for c in top])
    via = {t: p for p, t in related if t not in have}
    new = list(via)[: ctx.settings.rerank_top_k * 2]
    added += [
        EvidenceItem.from_chunk(0, chunk, 0.0, origin="reference").model_copy(update={"via": via[chunk.id]})
        for chunk in ctx.engine.store.get(new)
    ]
    tracker.notes.append(f"+{neighbours} neighbours, +{len(added) - neighbours} cited or citing articles")
    return {"candidates": candidates + added}


def _penalties_of(store: ChunkStore, chosen: Sequence[EvidenceItem], taken: set[str]) -> list[EvidenceItem]:
    """The penalties of the ``chosen`` passages (:func:`penalties`) not among them, each a reference of the passage it
    punishes. They join after the chosen passages rather than in their places: forced among them, three penalties of
    two duties crowded out the article answering "몇 년이 지나면 … 과징금을 못 하게 되나요?"."""
    out: dict[str, EvidenceItem] = {}
    for item in chosen:
        for chunk in penalties(store, [item.chunk_id]):
            if chunk.id not in taken and chunk.id not in out:
                penalty = EvidenceItem.from_chunk(0, chunk, 0.0, origin="reference")
                out[chunk.id] = penalty.model_copy(update={"via": item.chunk_id})
    return list(out.values())


def _with_leads(chosen: list[EvidenceItem], candidates: list[EvidenceItem], leads: list[str]) -> list[EvidenceItem]:
    """``chosen`` with the best passage of each part of the question among them ("주택 임대차 기간" and "상가 임대차
    기간" for "주택과 상가 임대차 기간 차이는?"): a missing one takes the place of the lowest-scored passage that is
    not a lead; the order stays by score."""
    by_id = {c.chunk_id: c for c in candidates}
    wanted = [by_id[cid] for cid in dict.fromkeys(leads) if cid in by_id][: len(chosen)]
    missing = [c for c in wanted if c not in chosen]
    if not missing:
        return chosen
    kept = [c for c in chosen if c in wanted]
    others = [c for c in chosen if c not in wanted][: len(chosen) - len(kept) - len(missing)]
    return sorted(kept + others + missing, key=lambda c: -c.score)


def _neighbours(
    ctx: GraphContext, chosen: Sequence[EvidenceItem], everything: Sequence[EvidenceItem], taken: set[str]
) -> list[EvidenceItem]:
    """The chunks next to each chosen passage (the facing page, the articles before and after), whatever found them:
    a continuation that retrieval ranked below the chosen ones is a neighbour all the same. The rest of a chosen
    passage's own provision (a long article cut into chunks) comes first, then the others in reading order."""
    window = ctx.settings.neighbour_window
    found = {c.chunk_id: c for c in everything if c.origin in ("neighbour", "retrieval")}
    out: dict[str, EvidenceItem] = {}
    for item in chosen if window else []:
        for chunk in ctx.engine.store.neighbours(item.chunk_id, window):
            if chunk.id not in taken and chunk.id not in out:
                known = found.get(chunk.id)
                out[chunk.id] = (
                    known.model_copy(update={"origin": "neighbour"})
                    if known
                    else EvidenceItem.from_chunk(0, chunk, 0.0, origin="neighbour")
                )
    own = {item.label for item in chosen}
    return sorted(out.values(), key=lambda c: c.label not in own)


class _Ranking(BaseModel):
    order: list[int]


def rerank(state: GraphState, ctx: GraphContext, tracker: Tracker) -> Update:
    """Top RERANK_TOP_K passages: human-verified corrections first, then the retrieved ones (LLM listwise
    order when a model is there, else the fused order), followed by the articles those passages cite (or
    that cite them; for a question about sanctions, the penalties punishing them first) and their neighbours."""
    everything = state.get("candidates", [])
    pinned = [c for c in everything if c.origin == "correction"][: ctx.settings.rerank_top_k]  # preferred evidence
    added = ("neighbour", "reference", "correction")
    candidates = sorted((c for c in everything if c.origin not in added), key=lambda c: -c.score)
    top_k = ctx.settings.rerank_top_k - len(pinned)
    pool = candidates[: top_k * 3]
    chosen = _with_leads(pool[:top_k], candidates, state.get("leads", []))
    if not ctx.extractive and len(pool) > 1 and top_k > 0:
        listing = "\n".join(f"[{i}] {c.header}: {c.text[:300]}" for i, c in enumerate(pool))
        question = state.get("standalone") or state["question"]
        reply, ok = ctx.ask_json(
            tracker,
            "rerank",
            f"질문: {question}\n\n{listing}",
            _Ranking,
            _Ranking(order=[]),
            top_k=top_k,
        )
        picked = [pool[i] for i in dict.fromkeys(reply.order) if 0 <= i < len(pool)][:top_k]
        if ok and picked:
            chosen = picked + [c for c in chosen if c not in picked][: top_k - len(picked)]
    related = related_articles(ctx.engine.store, [c.chunk_id for c in chosen])
    taken = {c.chunk_id for c in pinned + chosen}
    # a cited article that retrieval found too but ranked below the chosen ones is kept as well, as a reference
    by_id = {c.chunk_id: c for c in everything if c.origin in ("reference", "retrieval") and c.chunk_id not in taken}
    references = [by_id[t].model_copy(update={"origin": "reference", "via": p}) for p, t in related if t in by_id]
    # asked what breaking them costs, the penalties of the chosen passages come first: they are what it asks
    if ASKS_SANCTION.search(state.get("standalone") or state["question"]):
        references = [*_penalties_of(ctx.engine.store, chosen, taken), *references]
    references = list({c.chunk_id: c for c in references}.values())[: ctx.settings.rerank_top_k]
    taken |= {c.chunk_id for c in references}
    neighbours = _neighbours(ctx, chosen, everything, taken)[: ctx.settings.rerank_top_k]
    kept = pinned + chosen + references + neighbours
    evidence = [c.model_copy(update={"n": n}) for n, c in enumerate(kept, start=1)]
    return {"evidence": evidence}

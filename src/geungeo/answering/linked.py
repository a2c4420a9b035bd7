"""Provisions that answer together with the answering one: the documents it names or defers to, the 법/시행령 family
it belongs to, the references linked to it, and the clause punishing a breach of it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from geungeo.answering.models import EvidenceItem
from geungeo.answering.sentences import Sentence
from geungeo.retrieval.scope import DocumentScope
from geungeo.text.normalize import squash
from geungeo.text.references import passage_references
from geungeo.text.structure import SANCTION


def named_by(doc: str, evidence: Sequence[EvidenceItem]) -> set[int]:
    """The passages of other documents that a passage of ``doc`` names by document and article: "지급 금액은 본 대학교
    교원및직원의수당규정 제29조 기준을 따른다" names 교원및직원의수당규정 제29조, where the amounts are."""
    own = "".join(squash(item.text).replace("「", "").replace("」", "") for item in evidence if item.doc == doc)
    return {
        item.n
        for item in evidence
        if item.doc != doc
        and item.article
        and re.search(f"{re.escape(squash(item.doc) + squash(item.article))}(?!의\\d)", own)  # 제29조, not 제29조의2
    }


def deferred_to(first: EvidenceItem, evidence: Sequence[EvidenceItem]) -> set[int]:
    """The passages of the documents the provision of ``first`` defers to as a whole, cited in 「」 with no article after
    it: "「강사료지급규정」에 의하여 강사료를 지급한다" is answered by that document's 별표, where the amounts are;
    "「남녀고용평등과 일ㆍ가정 양립 지원에 관한 법률」 제19조제1항에 따른 육아휴직" points at one article, not at the
    document's figures."""
    provision = [item.text for item in evidence if item.label == first.label]
    cited = {squash(name) for text in provision for name in _WHOLE_DOCUMENT.findall(text)}
    return {item.n for item in evidence if item.doc != first.doc and squash(item.doc) in cited}


# A document cited in 「」 as a whole: no article ("제19조") after it.
_WHOLE_DOCUMENT = re.compile(r"「([^」]+)」(?!\s*(?:제\s*\d|시행령|시행규칙))")


def of_named(question: str, evidence: Sequence[EvidenceItem]) -> Sequence[EvidenceItem]:
    """The passages of the documents ``question`` names ("형법상 절도죄 형량은?": 형법, not 행정절차법's "형량하여야"),
    of their 법/시행령 family and of the articles they name elsewhere; all of ``evidence`` when it names none."""
    named = DocumentScope.of_titles({item.doc for item in evidence if item.doc}).named(question)
    if not named:
        return evidence
    family = {item.n for item in evidence if any(same_family(item.doc, doc) for doc in named)}
    cited = set().union(*(named_by(doc, evidence) for doc in named))
    return [item for item in evidence if item.n in family | cited]


def same_family(doc: str, answering: str) -> bool:
    """Whether ``doc`` is the answering clause's document or one delegating to or from it (법, 법 시행령)."""
    a, b = doc.replace(" ", ""), answering.replace(" ", "")
    return not a or not b or a.startswith(b) or b.startswith(a)


def linked_references_of(
    s: Sentence, first: Sentence, first_linked: dict[int, EvidenceItem], evidence: Sequence[EvidenceItem]
) -> dict[int, EvidenceItem]:
    """:func:`linked_references` of ``s``, known already when it is ``first``."""
    return first_linked if s is first else linked_references(s, evidence)


def linked_references(first: Sentence, evidence: Sequence[EvidenceItem]) -> dict[int, EvidenceItem]:
    """The references linked to one of the answering provision's passages (it cites them, or they cite it): the
    instrument it delegates to (the 시행령 of its 법), the penalty for breaking it."""
    provision = {item.chunk_id for item in evidence if item.label == first.item.label}
    return {item.n: item for item in evidence if item.origin == "reference" and item.via in provision}


def punishing_clause(
    first: Sentence, scored: list[Sentence], evidence: Sequence[EvidenceItem], linked: set[int]
) -> Sentence | None:
    """For a question about sanctions answered by a duty or a prohibition, the clause of its document that punishes
    breaking it: a clause stating a sanction ("500만원 이하의 과태료") and naming the answering article ("제10조제5항에
    따른 신고 … 를 하지 아니한 공직자등"), of a passage retrieval kept or of a reference ``linked`` to the provision
    (the 벌칙 and 과태료 articles cite the articles they enforce). None when the answering clause states a sanction
    itself or its provision has no article. A 시행령 article is enforced where the 법 article it implements is ("법
    제55조제1항에 따른 유급휴일": the 법's clause punishing breaches of 제55조)."""
    article = first.item.article
    if not article or SANCTION.search(first.text):
        return None
    usable = linked | {item.n for item in evidence if item.origin != "reference"}

    def naming(label: str) -> re.Pattern[str]:
        return re.compile(rf"{re.escape(label)}(?!\s*의\s*\d|\d)")

    # the articles the clause cites, by document: "법 제55조제1항에 따른" in a 시행령 names its 법's 제55조
    cited = [(squash(ref.doc), naming(ref.article)) for ref in passage_references(first.text, first.item.doc)]

    def punishes(s: Sentence) -> bool:
        if s.item.doc == first.item.doc:
            return s.item.label != first.item.label and bool(naming(article).search(s.text))
        doc = squash(s.item.doc)
        return same_family(s.item.doc, first.item.doc) and any(d == doc and n.search(s.text) for d, n in cited)

    return next((s for s in scored if s.item.n in usable and SANCTION.search(s.text) and punishes(s)), None)

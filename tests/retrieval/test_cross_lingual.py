"""English questions over Korean documents: language detection, the glossary, Korean query terms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geungeo.errors import ConfigError
from geungeo.retrieval.expansion import fold, lexicon_for, load_glossary, load_lexicon, query_terms
from geungeo.settings import Settings
from geungeo.text.language import question_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("1년 일하면 유급휴가 며칠 받아요?", "ko"),
        ("How many days of paid leave do I get after one year?", "en"),
        ("Can I still be appointed as a postdoc at Dong-eui University?", "en"),
        ("LLM 환각 지수에서 Llama 2를 이긴 모델은?", "ko"),  # Korean with English names stays Korean
        ("제8조", "ko"),
        ("OK", "ko"),  # too short to call
    ],
)
def test_question_language(text: str, language: str) -> None:
    assert question_language(text) == language


@pytest.mark.parametrize(
    "forms",
    [
        ("leave", "leaves"),
        ("wage", "wages"),
        ("dismiss", "dismissed", "dismisses"),
        ("pay", "paying", "pays"),
        ("policy", "policies"),
        ("tax", "taxes"),
        ("announce", "announced", "announcing", "announces", "announcement", "announcements"),
        ("settle", "settlement"),
        ("agree", "agreed"),
        ("notice", "noticed"),
    ],
)
def test_fold_brings_word_forms_together(forms: tuple[str, ...]) -> None:
    assert len({fold(w) for w in forms}) == 1


@pytest.mark.parametrize("word", ["status", "basis", "class", "bus"])
def test_singulars_ending_in_s_are_not_cut(word: str) -> None:
    assert fold(word) == word


@pytest.fixture
def glossary_file(tmp_path: Path) -> Path:
    path = tmp_path / "glossary.json"
    terms = {
        "paid leave": ["유급휴가"],
        "leave": ["휴가", "휴직"],
        "annual paid leave": ["연차 유급휴가"],
        "staffing agency": ["파견사업주"],
        "wage": ["임금"],
    }
    path.write_text(json.dumps({"terms": terms}, ensure_ascii=False), "utf-8")
    return path


def test_longest_phrase_wins_and_plurals_fold(glossary_file: Path) -> None:
    glossary = load_glossary(str(glossary_file))
    assert glossary.korean("Do I get annual paid leaves?") == ["연차 유급휴가"]
    assert glossary.korean("Who pays wages for paid leave days at a staffing agency?") == ["임금", "유급휴가", "파견사업주"]
    assert glossary.korean("leave of absence") == ["휴가", "휴직"]
    assert glossary.korean("nothing here") == []


def test_english_question_gets_korean_bm25_terms(glossary_file: Path) -> None:
    lexicon = load_lexicon("", str(glossary_file))
    terms = query_terms("Who pays my wages during paid leave?", lexicon)
    assert {"임금", "유급", "휴가"} <= set(terms)
    # A Korean question is not translated, even when a glossary phrase appears in it.
    assert "임금" not in query_terms("paid leave 제도가 뭐야 알려줘요 휴가", lexicon)


def test_settings_switch_the_glossary_off(glossary_file: Path) -> None:
    on = lexicon_for(Settings(glossary_path=str(glossary_file)))
    off = lexicon_for(Settings(glossary_path=str(glossary_file), english_glossary=False))
    bare = lexicon_for(Settings(english_glossary=False, query_expansion=False))
    assert on is not None and on.translations("paid leave rules") == ["유급휴가"]
    assert off is not None and off.translations("paid leave rules") == [] and off.synonyms
    assert bare is None
    only_glossary = lexicon_for(Settings(glossary_path=str(glossary_file), query_expansion=False))
    assert only_glossary is not None and not only_glossary.synonyms and only_glossary.translations("wage") == ["임금"]


def test_bundled_glossary_loads_and_covers_the_domains() -> None:
    glossary = load_glossary()
    assert len(glossary.terms) >= 300
    assert "최저임금" in glossary.korean("minimum wage")
    assert any("휴학" in t for t in glossary.korean("leave of absence from school"))


def test_broken_glossary_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(ConfigError, match=r"bad\.json"):
        load_glossary(str(bad))

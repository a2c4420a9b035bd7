from geungeo.text.kiwi import bm25_terms, bm25_terms_many, tokenizer_id


def test_particles_and_endings_are_dropped() -> None:
    assert "휴직" in bm25_terms("휴직을 신청했습니다")
    assert bm25_terms("휴직을")[0] == bm25_terms("휴직")[0]
    assert "을" not in bm25_terms("휴직을")


def test_article_references_are_one_token_whatever_the_spacing() -> None:
    for text in ("제 60 조", "60조", "제60조에 따라"):
        assert bm25_terms(text)[0] == "제60조", text
    assert bm25_terms("제43조의2를 보라")[0] == "제43조의2"


def test_compounds_split_and_foreign_words_lowercased() -> None:
    terms = bm25_terms("연차유급휴가와 AI 서비스")
    assert {"연차", "유급", "휴가", "ai", "서비스"} <= set(terms)


def test_nouns_written_together_are_also_indexed_whole() -> None:
    terms = bm25_terms("재수강 신청은 연구년 중인 교원의 학사경고")
    assert {"재수강", "연구년", "학사경고"} <= set(terms)  # 재 and 년 alone are not index terms, the compounds are
    assert {"수강", "연구", "학사", "경고"} <= set(terms)  # the parts still match a question that spaces them
    assert "학사경고" not in bm25_terms("학사 경고")  # a space separates two words, not one compound
    assert "교원학사" not in terms and "제60조휴가" not in bm25_terms("제60조휴가")
    # a word Kiwi splits in a question (물리+치료+학과) meets the same word kept whole in a table cell
    assert "물리치료학과" in bm25_terms("물리치료학과의 학위명") and "물리치료학과" in bm25_terms("| 물리치료학과 |")


def test_verb_stems_are_kept_as_lemmas() -> None:
    assert "받다" in bm25_terms("돈을 받았다")


def test_batch_equals_single() -> None:
    texts = ["근로자는 휴가를 받는다", "제2조(정의) 이 법에서"]
    assert list(bm25_terms_many(texts)) == [bm25_terms(t) for t in texts]


def test_tokenizer_id_names_version() -> None:
    assert tokenizer_id().startswith("kiwipiepy-")


def test_english_words_survive_punctuation_and_lose_stopwords() -> None:
    from geungeo.text.kiwi import bm25_terms

    terms = bm25_terms("I'm placed through a staffing agency. Who pays the pension? IRP 계좌로")
    assert {"staffing", "agency", "pension", "irp", "계좌"} <= set(terms)
    assert not {"a", "the", "who", "i'm"} & set(terms)


def test_a_letter_grade_is_a_term_with_its_mark_and_its_letter() -> None:
    # "A+" was the English article "a" (a stopword, dropped) and "B+는" read as 늘다: the grade table's rows and a
    # question about them shared no term
    assert {"a+", "a", "학점"} <= set(bm25_terms("A+ 학점은 몇 퍼센트까지 줄 수 있어?"))
    assert {"a0", "a", "b+", "b"} <= set(bm25_terms("| A0 | 4.0 | B+ | 3.5 |"))
    assert bm25_terms("B+는 평점이") == ["b+", "b", "평점"]
    assert "a" in bm25_terms("A학점 받으려면")  # finds the rows "A+" and "A0"
    # the English article and a Latin word holding the letter stay as they were
    assert bm25_terms("A new law and B2B") == ["new", "law", "b2b"]


def test_chunk_terms_weight_the_header() -> None:
    from geungeo.text.kiwi import chunk_terms
    from geungeo.types import Chunk

    chunk = Chunk(id="c", doc_id="d", ordinal=0, header="근로기준법 제60조(연차 유급휴가)",
                  text="사용자는 휴가를 주어야 한다.", meta={})
    once, twice = chunk_terms([chunk], 1)[0], chunk_terms([chunk], 2)[0]
    assert once.count("제60조") == 1 and twice.count("제60조") == 2
    assert twice.count("휴가") == once.count("휴가") + 1

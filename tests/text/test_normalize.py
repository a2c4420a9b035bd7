import unicodedata

from geungeo.text.normalize import clean_text, content_hash, nfc, squash, stable_id


def test_nfd_and_nfc_are_one_text() -> None:
    composed = "휴직 신청"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    assert nfc(decomposed) == composed
    assert stable_id(decomposed, "k") == stable_id(composed, "k")
    assert content_hash(nfc(decomposed)) == content_hash(composed)


def test_clean_text_drops_private_use_glyphs_and_extra_space() -> None:
    assert clean_text("제1조\U000f080f\u3000(목적)  이 규정은\n\n\n\n끝") == "제1조 (목적) 이 규정은\n\n끝"


def test_squash_ignores_whitespace() -> None:
    assert squash(" 1년간 80퍼센트\n이상 ") == "1년간80퍼센트이상"

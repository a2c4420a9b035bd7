"""Markdown and plain-text loader; statutes with YAML front matter get their 조 structure.

The statute format (``corpus/laws/*.md``): front matter (제목, 법령구분, 시행일자 …), ``#``–``####``
headings for 편/장/절/관, one ``##### 제60조 (연차 유급휴가)`` heading per article, ``## 부칙``
followed by ``부칙 <제NNNN호,YYYY.M.D>`` blocks. Other Markdown loads as headings and paragraphs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from geungeo.errors import LoaderError
from geungeo.ingest.base import Loader, loader, source_name
from geungeo.text.normalize import clean_text, nfc
from geungeo.text.structure import ADDENDUM, division_label, parse_article_head
from geungeo.types import Document, Element, MetaValue

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_MARKUP = re.compile(r"\*\*|__|\\(?=[.\-*_#()\[\]])")
_ADDENDUM_BLOCK = re.compile(r"^부칙\s*[<〈(]")
_FRONT_MATTER_KEYS = {"법령구분": "law_type", "소관부처": "ministry", "공포일자": "promulgated", "시행일자": "effective"}


def _strip_markup(line: str) -> str:
    return _MD_MARKUP.sub("", line).strip()


def _front_matter(text: str) -> tuple[dict[str, object], str]:
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML front matter ({exc.__class__.__name__})") from exc
    return (data if isinstance(data, dict) else {}), text[m.end() :]


@dataclass
class _StatuteParser:
    """Walks statute Markdown line by line and emits article / addendum / paragraph elements."""

    divisions: dict[str, str] = field(default_factory=dict)
    elements: list[Element] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    article: tuple[str, str | None] | None = None
    in_addendum: bool = False

    def path(self) -> tuple[str, ...]:
        return tuple(self.divisions[level] for level in ("편", "장", "절", "관") if level in self.divisions)

    def flush(self) -> None:
        text = clean_text("\n".join(line for line in self.lines if line.strip()))
        self.lines = []
        if not text:
            return
        if self.in_addendum:
            self.elements.append(Element(text, "addendum", path=("부칙",)))
        elif self.article:
            number, title = self.article
            self.elements.append(Element(text, "article", path=self.path(), article=number, article_title=title))
        else:
            self.elements.append(Element(text, "paragraph", path=self.path()))

    def heading(self, level: int, text: str) -> None:
        self.flush()
        self.article = None
        if ADDENDUM.match(text):
            self.in_addendum = True
            return
        head = parse_article_head(text) if level >= 5 or text.startswith("제") else None
        division = division_label(text)
        if division and not (head and "조" in text.split()[0]):
            level_name, label = division
            depth = ("편", "장", "절", "관").index(level_name)
            for deeper in ("편", "장", "절", "관")[depth:]:
                self.divisions.pop(deeper, None)
            self.divisions[level_name] = label
            self.in_addendum = False
        elif head:
            number, title, rest = head
            self.article = (number, title)
            self.lines.append(f"{number}({title})" if title else number)
            if rest:
                self.lines.append(rest)

    def line(self, raw: str) -> None:
        line = _strip_markup(raw)
        if self.in_addendum and _ADDENDUM_BLOCK.match(line):
            self.flush()
        self.lines.append(line)


def _load_statute(path: Path, meta: dict[str, object], body: str) -> Document:
    parser = _StatuteParser()
    title = nfc(str(meta.get("제목") or path.stem))
    for raw in body.split("\n"):
        m = _HEADING.match(raw)
        if m and not (len(m.group(1)) == 1 and nfc(m.group(2)) == title):
            parser.heading(len(m.group(1)), nfc(m.group(2)))
        elif not m:
            parser.line(nfc(raw))
    parser.flush()
    doc_meta: dict[str, MetaValue] = {"file_name": source_name(path)}
    for key, name in _FRONT_MATTER_KEYS.items():
        value = meta.get(key)
        if isinstance(value, list):
            value = ", ".join(map(str, value))
        if value is not None and value != "":
            doc_meta[name] = nfc(str(value))
    return Document(source=source_name(path), title=title, kind="law", elements=parser.elements, meta=doc_meta)


def _load_markdown(path: Path, body: str) -> Document:
    elements: list[Element] = []
    heads: list[tuple[int, str]] = []
    block: list[str] = []
    title = ""

    def flush() -> None:
        text = clean_text("\n".join(block))
        block.clear()
        if text:
            elements.append(Element(text, "paragraph", path=tuple(h for _, h in heads)))

    for raw in body.split("\n"):
        m = _HEADING.match(raw)
        if m:
            flush()
            level, text = len(m.group(1)), _strip_markup(nfc(m.group(2)))
            heads = [h for h in heads if h[0] < level] + [(level, text)]
            title = title or text
            elements.append(Element(text, "heading", path=tuple(h for _, h in heads[:-1])))
        elif raw.strip():
            block.append(nfc(raw))
        else:
            flush()
    flush()
    return Document(
        source=source_name(path),
        title=title or nfc(path.stem),
        kind="text",
        elements=elements,
        meta={"file_name": source_name(path)},
    )


def load_text(path: Path) -> list[Document]:
    """Load a ``.md``/``.txt`` file; statutes (front matter with 제목 and articles) get structure."""
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise LoaderError(nfc(str(path)), "binary data in a text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.decode("cp949")
        except UnicodeDecodeError as exc:
            raise LoaderError(nfc(str(path)), "not UTF-8 or CP949 text") from exc
    text = text.replace("\r\n", "\n")
    try:
        meta, body = _front_matter(text)
    except ValueError as exc:
        raise LoaderError(nfc(str(path)), str(exc)) from exc
    if "제목" in meta and re.search(r"^#{1,6}\s*제\s*\d+\s*조", body, re.M):
        return [_load_statute(path, meta, body)]
    return [_load_markdown(path, body)]


@loader(".md", ".markdown", ".txt")
def _factory() -> Loader:
    return load_text

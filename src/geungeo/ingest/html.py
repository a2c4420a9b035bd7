"""HTML loader (BeautifulSoup + lxml): headings with paths, paragraphs, list items and tables.

Scripts, styles, navigation and other non-content elements are dropped. Text outside any block
element (a bare ``<div>`` with text) becomes a paragraph of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from geungeo.ingest.base import Loader, loader, source_name
from geungeo.ingest.tables import build_table, caption_text, grid_rows, place_cells, table_element
from geungeo.text.normalize import clean_text
from geungeo.types import Category, Document, Element

_DROP = ("script", "style", "nav", "noscript", "template", "iframe", "svg", "head")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "aside", "header", "footer", "blockquote", "dl", "dt", "dd"}
    | {"ul", "ol", "figure", "figcaption", "form", "fieldset", "address", "br", "hr", "body"}
)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _span(cell: Tag, name: str) -> int:
    value = str(cell.get(name) or "1").strip()
    return int(value) if value.isdigit() else 1


def _cells(row: Tag) -> list[Tag]:
    return [c for c in row.find_all(["td", "th"], recursive=False) if isinstance(c, Tag)]


def table_rows(table: Tag) -> list[list[str]]:
    """Cell texts per row of this table (not of tables nested in it), ``rowspan``/``colspan`` resolved."""
    rows = table.select(":scope > tr, :scope > thead > tr, :scope > tbody > tr, :scope > tfoot > tr")
    cells = [
        [(_one_line(c.get_text(" ")), _span(c, "rowspan"), _span(c, "colspan")) for c in _cells(row)]
        for row in rows
    ]
    return grid_rows(place_cells(cells))


@dataclass
class _Walker:
    """Walks the DOM in document order, collecting elements and the current heading path."""

    elements: list[Element] = field(default_factory=list)
    path: tuple[str, ...] = ()
    inline: list[str] = field(default_factory=list)

    def emit(self, text: str, category: Category) -> None:
        text = clean_text(text)
        if text:
            self.elements.append(Element(text, category, path=self.path))

    def table(self, tag: Tag) -> None:
        """A table entity; its caption is ``<caption>``, else a caption-like paragraph right above it."""
        found = tag.find("caption", recursive=False)
        caption = clean_text(_one_line(found.get_text(" "))) if isinstance(found, Tag) else None
        before = self.elements[-1] if self.elements else None
        if not caption and before is not None and before.category == "paragraph" and before.path == self.path:
            caption = caption_text(before.text)
            if caption:
                self.elements.pop()
        if (table := build_table(table_rows(tag), caption)) is not None:
            self.elements.append(table_element(table, path=self.path))

    def flush(self) -> None:
        self.emit(_one_line("".join(self.inline)), "paragraph")
        self.inline = []

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                self.inline.append(str(child))
            elif isinstance(child, Tag):
                self.tag(child)

    def tag(self, tag: Tag) -> None:
        name = tag.name.lower()
        if name in _HEADINGS:
            self.flush()
            text = clean_text(_one_line(tag.get_text(" ")))
            if text:
                self.path = (*self.path[: _HEADINGS[name] - 1], text)
                self.emit(text, "heading")
        elif name == "table":
            self.flush()
            self.table(tag)
        elif name == "li":
            self.flush()
            self.emit(_one_line(tag.get_text(" ")), "list")
        elif name == "pre":
            self.flush()
            self.emit(tag.get_text(), "paragraph")
        elif name in _BLOCKS:
            self.flush()
            self.walk(tag)
            self.flush()
        else:
            self.walk(tag)


def html_elements(soup: BeautifulSoup) -> list[Element]:
    """Content elements of a parsed page in document order."""
    for tag in soup.find_all(_DROP):
        tag.decompose()
    walker = _Walker()
    walker.walk(soup.body or soup)
    walker.flush()
    return walker.elements


def load_html(path: Path) -> list[Document]:
    """One document; the title is ``<title>``, else the first ``<h1>``, else the file name."""
    name = source_name(path)
    soup = BeautifulSoup(path.read_bytes(), "lxml")
    title_tag = soup.title or soup.find("h1")
    title = clean_text(_one_line(title_tag.get_text(" "))) if title_tag else ""
    elements = html_elements(soup)
    return [Document(source=name, title=title or name, kind="html", elements=elements, meta={"file_name": name})]


@loader(".html", ".htm")
def _factory() -> Loader:
    return load_html

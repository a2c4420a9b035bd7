"""Where the text, tables and figures of a PDF page lie, so each enters the reading order once.

pypdfium2 gives every character of a page in content order with its box. A table's characters
are dropped from the running text and its element takes the place of its first character; a
caption line next to a table or figure moves into that element. A figure (an image object
large enough not to be a logo or a bullet, not inside a table, not a page background) is kept
only when a caption or a source line (``☞ 출처:``, ``자료:``) lies next to it: its element text
is the caption and the source line, and it enters the reading order before the first line
below the image. Source lines are copied, not moved: they also cite the surrounding article.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import pypdfium2
import pypdfium2.raw as pdfium_c

from geungeo.ingest.pdf_tables import Rect
from geungeo.text.normalize import clean_text, nfc
from geungeo.text.structure import BULLET, SOURCE_LINE
from geungeo.types import Element

CaptionKind = Literal["table", "figure"]

_SLACK = 1.0  # points a character's centre may lie outside a table's outline
_CAPTION_GAP = 36.0  # points between a caption line and its table or figure
_MIN_SIDE = 36.0  # images narrower or lower than half an inch are bullets, rules or logos
_MIN_AREA = 0.02  # ... and so are images under 2% of the page
_MAX_AREA = 0.8  # images over 80% of the page are backgrounds (covers)
_HEADING_SIZE = 1.2  # a line set at least this much larger than the page's body text is a heading

_OPEN, _CLOSE = r"[<〈《\[［【(]", r"[>〉》\]］】)]"
_NUMBER = r"\s*\d+(?:[-.]\d+)*\s*"
_CAPTIONS: dict[CaptionKind, re.Pattern[str]] = {
    "table": re.compile(rf"^(?:{_OPEN}\s*(?:표|table){_NUMBER}{_CLOSE}|(?:표|table){_NUMBER}[.:]?(?:\s|$))", re.I),
    "figure": re.compile(
        rf"^(?:{_OPEN}\s*(?:그림|사진|figure|fig\.){_NUMBER}{_CLOSE}|(?:그림|figure|fig\.){_NUMBER}[.:]?(?:\s|$))", re.I
    ),
}
_TITLE = re.compile(r"^[<〈《][^<>〈〉《》]{2,80}[>〉》]$")  # a bracketed title line: <구글 딥마인드의 …>

# A dingbat font without a ToUnicode map reports its glyphs as the Latin letters at their codes ("n" for
# Wingdings' ■), or at those codes in the private use area (U+F06E): what the common bullets of Wingdings draw
# ("£" is drawn as a ring in the shared brief), and a bullet for any other glyph of such a font.
WINGDINGS = {
    "l": "●", "n": "■", "o": "□", "q": "❑", "u": "◆", "v": "❖", "£": "○", "§": "▪", "Ø": "➢", "ü": "✓",
}  # fmt: skip
DINGBAT_FONTS = ("wingdings", "webdings", "zapfdingbats", "dingbats")
_INLINE_BULLET = re.compile(r"\s(?=[∙•]\s)")  # a bullet the extractor left on the previous line


def text_lines(text: str) -> list[str]:
    """Non-empty NFC lines of extracted text, a bullet glued to the previous line split off."""
    lines = (part for line in nfc(text).split("\n") for part in _INLINE_BULLET.split(line.rstrip("\r")))
    return [line for line in lines if line.strip()]


def _any(_: str) -> bool:
    return True


def _centre_in(box: Rect, rect: Rect, slack: float = _SLACK) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return rect[0] - slack <= x <= rect[2] + slack and rect[1] - slack <= y <= rect[3] + slack


def _union(boxes: list[Rect]) -> Rect:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _overlaps_x(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the page's text: characters ``start`` to ``end`` (exclusive), its box."""

    start: int
    end: int
    text: str
    box: Rect


@dataclass(slots=True)
class PageChars:
    """The page's characters in content order and their boxes (index i of both is one char)."""

    text: str
    boxes: list[Rect]

    @classmethod
    def read(cls, textpage: pypdfium2.PdfTextPage) -> PageChars:
        count = textpage.count_chars()
        text = textpage.get_text_range()
        if len(text) != count:  # pdfium left out or added characters: read them one by one
            text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))
        return cls(_dingbats_read(textpage, text), [textpage.get_charbox(i) for i in range(count)])

    def lines(self) -> list[Line]:
        out, start = [], 0
        for end in [m.start() for m in re.finditer("\n", self.text)] + [len(self.text)]:
            stop = end - 1 if end and self.text[end - 1] == "\r" else end
            boxes = [self.boxes[i] for i in range(start, stop) if not self.text[i].isspace()]
            if boxes:
                out.append(Line(start, stop, self.text[start:stop], _union(boxes)))
            start = end + 1
        return out

    def read_rect(self, rect: Rect) -> str:
        """The text inside ``rect`` (a table cell): wrapped lines joined, a space where the
        line ended with one (pdfium keeps it) or the next line opens a bullet."""
        inside = "".join(ch for ch, box in zip(self.text, self.boxes, strict=True) if ch == "\n" or _centre_in(box, rect))
        out = ""
        for line in nfc(inside).replace("\r", "").split("\n"):
            if not line.strip():
                continue
            joint = " " if out.endswith((" ", "\t")) or line.lstrip().startswith(("-", "∙", "•", "·", "※", "*")) else ""
            out = f"{out}{joint}{line}" if out else line
        return clean_text(out)


def _dingbats_read(textpage: pypdfium2.PdfTextPage, text: str) -> str:
    """``text`` (one character per pdfium char) with the glyphs of dingbat fonts read as what they draw."""
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    chars = list(text)
    for i, ch in enumerate(chars):
        code = ord(ch) - 0xF000 if 0xF020 <= ord(ch) <= 0xF0FF else ord(ch)
        if code > 0xFF or ch.isspace():  # such fonts report their glyphs at one-byte codes
            continue
        pdfium_c.FPDFText_GetFontInfo(textpage.raw, i, name, len(name), ctypes.byref(flags))
        font = name.value.decode("latin-1").lower()
        font = font.partition("+")[2] or font  # past a subset tag ("INPILL+Wingdings-Regular")
        if font.replace(" ", "").startswith(DINGBAT_FONTS):
            chars[i] = WINGDINGS.get(chr(code), "•") if _WINGDINGS_1.match(font) else "•"
    return "".join(chars)


_WINGDINGS_1 = re.compile(r"wingdings(?![\s-]*[23])")  # Wingdings 2 and 3 draw other glyphs at the same codes


def heading_lines(textpage: pypdfium2.PdfTextPage, chars: PageChars) -> set[str]:
    """The lines of the page (``chars``, read from ``textpage``) set in larger type than its body text, as their
    cleaned text: headlines and section titles. A line's size is the median font size of its characters; the body's
    is the median over all the page's characters, so a page set in one size (a cover, a scan's text layer) has none."""
    sizes = [pdfium_c.FPDFText_GetFontSize(textpage.raw, i) for i in range(len(chars.text))]
    body = [size for size, ch in zip(sizes, chars.text, strict=True) if not ch.isspace()]
    if not body:
        return set()
    floor = _HEADING_SIZE * statistics.median(body)
    out = set()
    for line in chars.lines():
        own = [sizes[i] for i in range(line.start, line.end) if not chars.text[i].isspace()]
        if statistics.median(own) >= floor and (text := clean_text(nfc(line.text))):
            out.add(text)
    return out


def figure_candidates(page: pypdfium2.PdfPage) -> list[Rect]:
    """Boxes of the page's images big enough for a figure and smaller than a background."""
    width, height = page.get_size()
    area = width * height
    rects: list[Rect] = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        left, bottom, right, top = (float(v) for v in obj.get_bounds())
        w, h = right - left, top - bottom
        if min(w, h) >= _MIN_SIDE and _MIN_AREA * area <= w * h <= _MAX_AREA * area:
            rects.append((left, bottom, right, top))
    return rects


@dataclass
class PageLayout:
    """Collects a page's tables and figures and gives its text back with them in place."""

    chars: PageChars
    lines: list[Line] = field(init=False)
    dropped: set[int] = field(default_factory=set)
    anchors: dict[int, list[Element]] = field(default_factory=dict)
    tables: list[Rect] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = self.chars.lines()

    def take_caption(self, rect: Rect, kind: CaptionKind) -> str | None:
        """The caption line nearest above (else below) ``rect``; it leaves the running text."""

        def is_caption(text: str) -> bool:
            return bool(_CAPTIONS[kind].match(text) or _TITLE.match(text))

        line = self._nearest(rect, is_caption, below=False) or self._nearest(rect, is_caption)
        if line is None:
            return None
        self.dropped.update(range(line.start, line.end))
        return clean_text(nfc(line.text))

    def source_line(self, rect: Rect) -> str | None:
        """A source line (``☞ 출처: …``) just below ``rect``, left in the running text."""
        line = self._nearest(rect, lambda text: bool(SOURCE_LINE.match(text)))
        return clean_text(nfc(line.text)) if line else None

    def in_table(self, rect: Rect) -> bool:
        return any(_centre_in(rect, table, 0.0) for table in self.tables)

    def add_table(self, rect: Rect, element: Element) -> None:
        """Drop the characters inside ``rect``; the element takes the first one's place."""
        inside = [i for i, box in enumerate(self.chars.boxes) if _centre_in(box, rect) and i not in self.dropped]
        self.dropped.update(inside)
        self.tables.append(rect)
        self.anchors.setdefault(inside[0] if inside else self._below(rect), []).append(element)

    def add_figure(self, rect: Rect, element: Element) -> None:
        self.anchors.setdefault(self._below(rect), []).append(element)

    def items(self) -> list[str | Element]:
        """The page's text lines with the table and figure elements at their places; a line wrapped without a
        space at its end gets one (see :meth:`_wrapped`), so that the paragraphs join it to the next, and a line
        whose next one does not follow it down the page loses its trailing space (see :meth:`_cut`)."""
        out: list[str | Element] = []
        kept: list[str] = []
        shown = [line for line in self.lines if not self._gone(line)]
        wrapped, cut = self._wrapped(shown), self._cut(shown)
        for i, ch in enumerate([*self.chars.text, ""]):
            if i in self.anchors:
                out += text_lines("".join(kept))
                out += self.anchors[i]
                kept = []
            if i in wrapped:
                kept.append(" ")
            if i not in self.dropped and i not in cut:
                kept.append(ch)
        return out + text_lines("".join(kept))

    def _cut(self, lines: list[Line]) -> set[int]:
        """The trailing spaces of ``lines`` (those shown) whose next line in content order lies above them in the same
        column. pdfium ends a line with a space where its text runs on, but the content order may go back up the page
        after a box: "… 점을 제시 " / "KEY Contents" (the box's label, printed above it) is no sentence."""
        out: set[int] = set()
        for line, following in itertools.pairwise(lines):
            if following.box[1] > line.box[3] and _overlaps_x(line.box, following.box):
                end = line.end
                while end > line.start and self.chars.text[end - 1].isspace():
                    end -= 1
                out.update(range(end, line.end))
        return out

    def _wrapped(self, lines: list[Line]) -> set[int]:
        """The ends of ``lines`` (those shown) that run to the right edge of the page's text, end without a space
        (pdfium leaves none where the line break took the place of one) and go on in the line right below, which
        opens no bullet: "… AI 에이전트가 컴퓨터" / "사용방식과 소프트웨어 산업을 …"."""
        if not lines:
            return set()
        right = max(line.box[2] for line in lines)
        out = set()
        for above, below in itertools.pairwise(lines):
            height = above.box[3] - above.box[1]
            if (
                right - above.box[2] <= 1.5 * height
                and not self.chars.text[above.end - 1].isspace()
                and 0 <= above.box[1] - below.box[3] <= height
                and below.start not in self.anchors
                and not BULLET.match(below.text.lstrip())
            ):
                out.add(above.end)
        return out

    def _below(self, rect: Rect) -> int:
        """Where a region enters the reading order: before the line right under it, else after
        the line right over it, else at the end of the page."""
        under = self._nearest(rect, _any, within=math.inf)
        if under is not None:
            return under.start
        over = self._nearest(rect, _any, below=False, within=math.inf)
        return over.end if over is not None else len(self.chars.text)

    def _gone(self, line: Line) -> bool:
        return all(i in self.dropped for i in range(line.start, line.end))

    def _nearest(
        self, rect: Rect, accept: Callable[[str], bool], *, below: bool = True, within: float = _CAPTION_GAP
    ) -> Line | None:
        """The accepted line closest to ``rect`` within ``within`` points, below it or above it."""
        best: tuple[float, Line] | None = None
        for line in self.lines:
            gap = rect[1] - line.box[3] if below else line.box[1] - rect[3]
            if not 0 <= gap + _SLACK <= within or not _overlaps_x(line.box, rect) or self._gone(line):
                continue
            if any(_centre_in(line.box, t, 0.0) for t in self.tables):
                continue
            if accept(clean_text(nfc(line.text))) and (best is None or gap < best[0]):
                best = (gap, line)
        return best[1] if best else None

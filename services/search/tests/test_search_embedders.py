"""The embedders: the offline ONNX MiniLM (networking disabled) and the OpenAI-compatible HTTP one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from services.search.adapters.onnx_embedder import OnnxEmbedder
from services.search.adapters.openai_http_embedder import OpenAIHttpEmbedder
from services.search.domain.embedding_text import embedding_text
from services.search.tests.search_fakes import chunk

REPO_ROOT = Path(__file__).resolve().parents[3]

_OFFLINE_SCRIPT = r"""
import socket, sys

def refuse(*args, **kwargs):
    raise OSError("network disabled in this test")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from services.search.adapters.onnx_embedder import OnnxEmbedder

vectors = OnnxEmbedder().embed(["parse a url", "def urlparse(url): ..."])
print(vectors.shape[0], vectors.shape[1], round(float((vectors[0] ** 2).sum()), 4))
"""


@pytest.mark.e2e  # a fresh interpreter (only a new process proves no download)
def test_minilm_loads_and_embeds_with_networking_disabled() -> None:
    dead = "http://127.0.0.1:9"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "http_proxy": dead,
        "https_proxy": dead,
        "ALL_PROXY": dead,
        "NO_PROXY": "",
        "HF_HOME": "/nonexistent/hf-home",
    }
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["2", "384", "1.0"]


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    return OnnxEmbedder(threads=1)


URLPARSE = chunk(
    "urlparse",
    "urllib/parse.py",
    body="def urlparse(url, scheme='', allow_fragments=True):\n"
    "    url, scheme, _coerce_result = _coerce_args(url, scheme)\n"
    "    splitresult = urlsplit(url, scheme, allow_fragments)\n"
    "    scheme, netloc, url, query, fragment = splitresult\n",
    doc="Parse a URL into 6 components: <scheme>://<netloc>/<path>;<params>?<query>#<fragment>",
)
MATMUL = chunk(
    "matmul",
    "linalg/ops.py",
    body="def matmul(a, b):\n    rows = len(a)\n    out = [[0] * len(b[0]) for _ in range(rows)]\n"
    "    for i in range(rows):\n        for j in range(len(b[0])):\n"
    "            out[i][j] = sum(a[i][k] * b[k][j] for k in range(len(b)))\n    return out\n",
)
SEND_MAIL = chunk(
    "send_mail",
    "mail/smtp.py",
    body="def send_mail(server, sender, to, body):\n    with smtplib.SMTP(server) as smtp:\n"
    "        smtp.sendmail(sender, to, body)\n",
)


def test_minilm_places_a_description_closest_to_its_code(minilm: OnnxEmbedder) -> None:
    codes = minilm.embed([embedding_text(c) for c in (URLPARSE, MATMUL, SEND_MAIL)])
    queries = minilm.embed(
        ["split a web address into scheme, host and path", "multiply two matrices", "send an email"]
    )
    similarity = queries @ codes.T
    assert list(similarity.argmax(axis=1)) == [0, 1, 2], similarity
    assert np.allclose(np.linalg.norm(codes, axis=1), 1.0, atol=1e-5)


def test_minilm_is_deterministic_and_batch_independent(minilm: OnnxEmbedder) -> None:
    texts = ["short", "a much longer text " * 20, "def f(x): return x"]
    together = minilm.embed(texts)
    alone = np.stack([minilm.embed([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


class _FakeEmbeddingServer(BaseHTTPRequestHandler):
    requests: list[dict] = []
    fail = False

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if type(self).fail:
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(text)), 1.0, 0.0, 2.0]}
            for i, text in enumerate(body["input"])
        ]
        payload = json.dumps(
            {"object": "list", "data": list(reversed(data)), "model": body["model"]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def embedding_server() -> Iterator[str]:
    _FakeEmbeddingServer.requests = []
    _FakeEmbeddingServer.fail = False
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeEmbeddingServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_openai_embedder_batches_orders_by_index_and_normalises(embedding_server: str) -> None:
    embedder = OpenAIHttpEmbedder(
        f"openai+http://{embedding_server}/v1?model=code-embed&batch=2", api_key="s3cret"
    )
    assert (embedder.dimension, embedder.name) == (4, "openai:code-embed")
    vectors = embedder.embed(["a", "bbb", "cc"])
    assert vectors.shape == (3, 4)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[1][0] > vectors[2][0] > vectors[0][0]  # order kept although the server reversed it
    sent = _FakeEmbeddingServer.requests
    assert [r["input"] for r in sent[1:]] == [["a", "bbb"], ["cc"]]  # sent[0] probed the dimension
    assert {(r["path"], r["auth"], r["model"]) for r in sent} == {
        ("/v1/embeddings", "Bearer s3cret", "code-embed")
    }
    embedder.close()


def test_openai_embedder_reports_server_errors_and_bad_specs(embedding_server: str) -> None:
    embedder = OpenAIHttpEmbedder(f"openai+http://{embedding_server}/v1?model=m&dim=4")
    assert _FakeEmbeddingServer.requests == []  # dim given: no probe
    _FakeEmbeddingServer.fail = True
    with pytest.raises(RuntimeError, match="503"):
        embedder.embed(["x"])
    with pytest.raises(ValueError, match="model"):
        OpenAIHttpEmbedder(f"openai+http://{embedding_server}/v1")
    with pytest.raises(ValueError, match="openai\\+http"):
        OpenAIHttpEmbedder(f"http://{embedding_server}/v1?model=m")


def test_minilm_int8_compute_rewrites_every_weight_matmul_and_agrees_with_float(minilm: OnnxEmbedder) -> None:
    import onnx

    from services.search.adapters.onnx_embedder import bundled_model_path, int8_compute

    model = onnx.load(str(bundled_model_path()))
    # 6 layers × (query, key, value, attention output, two feed-forward) weight products.
    assert int8_compute(model) == 36
    ops = {n.op_type for n in model.graph.node}
    assert "DynamicQuantizeMatMul" in ops
    texts = [embedding_text(c) for c in (URLPARSE, MATMUL, SEND_MAIL)] + ["who calls send_mail?"]
    cosine = (minilm.embed(texts) * OnnxEmbedder(int8=False).embed(texts)).sum(axis=1)
    assert cosine.min() >= 0.99, cosine


def test_minilm_shared_input_products_fuse_per_layer_and_give_the_same_vectors(minilm: OnnxEmbedder) -> None:
    import onnx
    import onnxruntime as ort

    from services.search.adapters.onnx_embedder import bundled_model_path, fuse_shared_input, int8_compute

    model = onnx.load(str(bundled_model_path()))
    int8_compute(model)
    unfused = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    # One group per layer: its query, key and value read the same normalised hidden state.
    assert fuse_shared_input(model) == 6
    assert sum(n.op_type == "DynamicQuantizeMatMul" for n in model.graph.node) == 36 - 6 * 2
    assert fuse_shared_input(model) == 0  # nothing left to fuse
    fused = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = {i.name for i in unfused.get_inputs()}
    for text in ["who calls send_mail?", embedding_text(URLPARSE)]:
        ids = np.array([minilm._tokenizer.encode(text).ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        feeds = {k: v for k, v in feeds.items() if k in names}
        assert np.array_equal(unfused.run(None, feeds)[0], fused.run(None, feeds)[0])

"""Embeddings from an OpenAI-compatible HTTP server (a team's embedding service: TEI, vLLM, Ollama, …).

Spec: `openai+http://host:port/v1?model=NAME[&dim=N][&batch=64]` (or `openai+https://…`). Sends
`POST {base}/embeddings {"model", "input": [...]}` and reads `data[i].embedding` by `index`. Vectors are
L2-normalised here, whatever the server does. Without `dim` the dimension is probed once at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import parse_qs, urlsplit, urlunsplit

import httpx
import numpy as np

SCHEMES = ("openai+http", "openai+https")


class OpenAIHttpEmbedder:
    def __init__(
        self,
        spec: str,
        api_key: str = "",
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        parts = urlsplit(spec)
        if parts.scheme not in SCHEMES:
            raise ValueError(f"embedder URL must start with openai+http:// or openai+https://, got {spec!r}")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        model = query.get("model", "")
        if not model:
            raise ValueError(f"embedder URL {spec!r} names no model: add ?model=NAME")
        self._model = model
        self._batch = int(query.get("batch", "64"))
        base = urlunsplit(
            (parts.scheme.removeprefix("openai+"), parts.netloc, parts.path.rstrip("/"), "", "")
        )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=base, headers=headers, timeout=timeout, transport=transport)
        self.name = f"openai:{model}"
        self.dimension = (
            int(query["dim"]) if "dim" in query else int(self._request(["dimension probe"]).shape[1])
        )

    def _request(self, texts: list[str]) -> np.ndarray:
        response = self._http.post("/embeddings", json={"model": self._model, "input": texts})
        if response.status_code != 200:
            raise RuntimeError(f"embedding server answered {response.status_code}: {response.text[:300]}")
        data = sorted(response.json()["data"], key=lambda d: d.get("index", 0))
        if len(data) != len(texts):
            raise RuntimeError(f"embedding server returned {len(data)} vectors for {len(texts)} texts")
        matrix = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.clip(norms, 1e-12, None)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self._request(list(texts[lo : lo + self._batch])) for lo in range(0, len(texts), self._batch)
        ]
        out = np.concatenate(parts)
        if out.shape[1] != self.dimension:
            raise RuntimeError(
                f"embedding server returned {out.shape[1]}-d vectors, expected {self.dimension}"
            )
        return out

    def close(self) -> None:
        self._http.close()

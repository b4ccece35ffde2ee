"""How likely a query is *not* about a codebase: a logistic regression over the query's embedding.

The model (`services/search/data/off_topic.json`, made by `tools/train_off_topic.py` from the project's
labelled prompts) belongs to one embedder: its weights read that embedder's vectors and nothing else, so
`probability` is None under any other (an OpenAI-compatible server, a test's fake). The search service
only reports the number; the gateway's relevance gate decides what it is worth beside the hits.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BUNDLED_MODEL = Path(__file__).resolve().parents[1] / "data" / "off_topic.json"


@dataclass(frozen=True, eq=False)
class OffTopicModel:
    embedder: str  # the name of the embedder whose vectors the weights read
    weights: np.ndarray
    bias: float

    @classmethod
    def load(cls, path: Path = BUNDLED_MODEL) -> OffTopicModel:
        """The model in `path`; a file that is not one is refused whole (ValueError naming it)."""
        try:
            data = json.loads(path.read_text())
            embedder, weights, bias = (
                data["embedder"],
                np.asarray(data["weights"], np.float32),
                float(data["bias"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not an off-topic model ({exc})") from exc
        if not (isinstance(embedder, str) and embedder and weights.ndim == 1 and weights.size):
            raise ValueError(f"{path}: needs an embedder name and one vector of weights")
        if not (np.isfinite(weights).all() and math.isfinite(bias)):
            raise ValueError(f"{path}: weights and bias must be finite numbers")
        return cls(embedder, weights, bias)

    def probability(self, embedder: str, vector: np.ndarray) -> float | None:
        """P(off-topic) of a query embedded by `embedder`; None when the model does not read its vectors."""
        if embedder != self.embedder or vector.shape != self.weights.shape:
            return None
        score = float(vector @ self.weights) + self.bias
        if not math.isfinite(score):
            return None
        if score >= 0:  # the logistic function, without overflow at either end
            return 1.0 / (1.0 + math.exp(-score))
        return math.exp(score) / (1.0 + math.exp(score))

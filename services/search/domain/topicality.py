"""How likely a query is *not* about a codebase: a logistic regression over the query's embedding and
its words, and what the labelled prompts nearest it were (the surer of the two readings).

The model (`services/search/data/off_topic.json`, made by `tools/train_off_topic.py` from the project's
labelled prompts) belongs to one embedder: its vector weights read that embedder's vectors and nothing
else, so `probability` is None under any other (an OpenAI-compatible server, a test's fake). Its word
weights read the query's words and adjacent word pairs (`word_features`): the embedding says what a
prompt is like, the words what it names ("a haiku", "my bike lock", "the handler"); a word the training
prompts never used weighs nothing. The search service only reports the number; the gateway's relevance
gate decides what it is worth beside the hits.

The regression draws one boundary through thousands of prompts and reads a plain paraphrase of a
labelled chat prompt halfway ("lol the server at the cafe got my order wrong twice" 0.58 by a model fitted
without its set, beside a labelled "the server at the restaurant forgot our order"); the nearest labelled
prompts read it as that prompt was. So a model file may name its training prompts' vectors (`examples`),
and the reading is the higher of the regression's and the neighbours' (`neighbour_reading`). Measured with
each routing set held out of both (bench/README "Fifth session"): skip accuracy +0.006 to +0.055 on seven
of eight sets through the gate, no false skip; the mean of the two readings moved them −0.018 to +0.037.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

BUNDLED_MODEL = Path(__file__).resolve().parents[1] / "data" / "off_topic.json"
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Who speaks to whom and how a sentence is built, not what it is about: left to the embedding. As words
# they were the heaviest weights ("you", "your", "my", "about"), and a question to the assistant about the
# code ("what do you think of this approach", "why did you remove that line") read as one about the
# assistant.
# fmt: off
FUNCTION_WORDS = frozenset(
    [
        "a", "an", "the", "and", "or", "but", "if", "so", "of", "to", "in", "on", "at", "by", "for", "from",
        "with", "about", "into", "onto", "over", "under", "as", "than", "then", "is", "are", "was", "were",
        "be", "been", "being", "am", "do", "does", "did", "done", "have", "has", "had", "will", "would", "can",
        "could", "should", "shall", "may", "might", "must", "i", "me", "my", "mine", "myself", "you", "your",
        "yours", "yourself", "u", "ur", "we", "us", "our", "ours", "they", "them", "their", "he", "him", "his",
        "she", "her", "it", "its", "it's", "this", "that", "these", "those", "there", "here", "what", "which",
        "who", "whom", "whose", "when", "where", "why", "how", "not", "no", "just", "also", "very", "too",
        "i'm", "you're", "we're", "they're", "that's", "what's", "there's", "don't", "doesn't", "didn't",
        "can't", "won't", "isn't", "aren't", "wasn't", "i've", "you've", "i'll", "you'll", "i'd", "you'd",
        "let's"
    ]
)
# fmt: on


def word_features(text: str) -> frozenset[str]:
    """What the word weights read: the query's lower-cased content words (`FUNCTION_WORDS` left out) and
    each pair of adjacent ones."""
    words = [
        w
        for w in _WORD.findall(text.lower().replace("\u2019", "'").replace("\u2018", "'"))
        if w not in FUNCTION_WORDS
    ]
    return frozenset(words) | frozenset(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))


def feature_weight(features: frozenset[str]) -> float:
    """Each feature's value in a query with these features: the query's features scaled to unit length."""
    return 1.0 / math.sqrt(len(features)) if features else 0.0


# The labelled prompts nearest a query that the neighbour reading weighs (`neighbour_reading`), and how
# sharply it favours the nearest: a neighbour's weight is exp(NEIGHBOUR_SHARPNESS × cosine).
NEIGHBOURS = 10
NEIGHBOUR_SHARPNESS = 10.0
# Example vectors are stored as int8, each unit-vector component × this (a cosine off by < 0.01).
EXAMPLE_SCALE = 127.0


@dataclass(frozen=True, eq=False)
class OffTopicModel:
    embedder: str  # the name of the embedder whose vectors the weights read
    weights: np.ndarray
    bias: float
    # Word or word pair → weight (`word_score`); a file without words reads the vector alone.
    words: Mapping[str, float] = field(default_factory=dict)
    # The training prompts' unit vectors (one row each) and labels (1: off-topic), for `neighbour_reading`;
    # a model without them reads by its weights alone.
    examples: np.ndarray | None = None
    labels: np.ndarray | None = None

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
            words = {str(word): float(weight) for word, weight in data.get("words", {}).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: not an off-topic model ({exc})") from exc
        if not (isinstance(embedder, str) and embedder and weights.ndim == 1 and weights.size):
            raise ValueError(f"{path}: needs an embedder name and one vector of weights")
        if not (np.isfinite(weights).all() and math.isfinite(bias)):
            raise ValueError(f"{path}: weights and bias must be finite numbers")
        if not all(math.isfinite(weight) for weight in words.values()):
            raise ValueError(f"{path}: word weights must be finite numbers")
        examples, labels = _examples(path, data.get("examples"), weights.size)
        return cls(embedder, weights, bias, words, examples, labels)

    def probability(self, embedder: str, vector: np.ndarray, text: str) -> float | None:
        """P(off-topic) of a query `text` embedded by `embedder` as `vector`: the regression's, or the
        neighbours' where that is higher; None when the model does not read that embedder's vectors."""
        if embedder != self.embedder or vector.shape != self.weights.shape:
            return None
        score = float(vector @ self.weights) + self.bias + self.word_score(text)
        if not math.isfinite(score):
            return None
        weighed = _logistic(score)
        near = self.neighbour_reading(vector)
        return weighed if near is None else max(weighed, near)

    def neighbour_reading(self, vector: np.ndarray) -> float | None:
        """The share of off-topic prompts among the `NEIGHBOURS` labelled prompts nearest the query, each
        weighted by its similarity: what the prompts most like this one were. A paraphrase of a labelled
        prompt reads as that prompt did, where one linear boundary over all of them may read it halfway.
        None without examples or for a zero vector."""
        if self.examples is None or self.labels is None or not len(self.labels):
            return None
        norm = float(np.linalg.norm(vector))
        if not (norm > 0 and math.isfinite(norm)):
            return None
        similar = self.examples @ (vector.astype(np.float32) / norm)
        k = min(NEIGHBOURS, similar.size)
        nearest = np.argpartition(-similar, k - 1)[:k]
        weight = np.exp(NEIGHBOUR_SHARPNESS * (similar[nearest] - similar[nearest].max()))
        return float(weight @ self.labels[nearest] / weight.sum())

    def word_score(self, text: str) -> float:
        """What the query's words add to the score: their weights, each times `feature_weight`."""
        if not self.words:
            return 0.0
        features = word_features(text)
        known = sorted(f for f in features if f in self.words)  # one order: the same sum in every process
        return math.fsum(self.words[f] for f in known) * feature_weight(features)


def _logistic(score: float) -> float:
    """The logistic function, without overflow at either end."""
    if score >= 0:
        return 1.0 / (1.0 + math.exp(-score))
    return math.exp(score) / (1.0 + math.exp(score))


def _examples(path: Path, name: object, dimension: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The labelled prompts' vectors and labels from the file the model names beside it (`.npz`: `vectors`,
    one unit row per prompt — int8 rows are read as n/127 — and `labels`, 0 or 1), or (None, None) when it
    names none."""
    if name is None:
        return None, None
    if not isinstance(name, str) or Path(name).name != name:
        raise ValueError(f"{path}: examples must name a file beside the model")
    try:
        with np.load(path.parent / name) as data:
            stored = data["vectors"]
            vectors = np.asarray(stored, np.float32) / (EXAMPLE_SCALE if stored.dtype == np.int8 else 1.0)
            labels = np.asarray(data["labels"], np.float32)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
    ) as exc:  # not an .npz: no arrays by name
        raise ValueError(f"{path}: its examples {name} are unreadable ({exc})") from exc
    if vectors.ndim != 2 or vectors.shape[1] != dimension or labels.shape != (vectors.shape[0],):
        raise ValueError(f"{path}: examples need one {dimension}-wide vector per label")
    if not (np.isfinite(vectors).all() and np.isin(labels, (0.0, 1.0)).all()):
        raise ValueError(f"{path}: example vectors must be finite and labels 0 or 1")
    return vectors, labels

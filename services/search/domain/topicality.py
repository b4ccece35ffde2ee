"""How likely a query is *not* about a codebase: a logistic regression over the query's embedding and
its words.

The model (`services/search/data/off_topic.json`, made by `tools/train_off_topic.py` from the project's
labelled prompts) belongs to one embedder: its vector weights read that embedder's vectors and nothing
else, so `probability` is None under any other (an OpenAI-compatible server, a test's fake). Its word
weights read the query's words and adjacent word pairs (`word_features`): the embedding says what a
prompt is like, the words what it names ("a haiku", "my bike lock", "the handler"); a word the training
prompts never used weighs nothing. The search service only reports the number; the gateway's relevance
gate decides what it is worth beside the hits.
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


@dataclass(frozen=True, eq=False)
class OffTopicModel:
    embedder: str  # the name of the embedder whose vectors the weights read
    weights: np.ndarray
    bias: float
    # Word or word pair → weight (`word_score`); a file without words reads the vector alone.
    words: Mapping[str, float] = field(default_factory=dict)

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
        return cls(embedder, weights, bias, words)

    def probability(self, embedder: str, vector: np.ndarray, text: str) -> float | None:
        """P(off-topic) of a query `text` embedded by `embedder` as `vector`; None when the model does not
        read that embedder's vectors."""
        if embedder != self.embedder or vector.shape != self.weights.shape:
            return None
        score = float(vector @ self.weights) + self.bias + self.word_score(text)
        if not math.isfinite(score):
            return None
        if score >= 0:  # the logistic function, without overflow at either end
            return 1.0 / (1.0 + math.exp(-score))
        return math.exp(score) / (1.0 + math.exp(score))

    def word_score(self, text: str) -> float:
        """What the query's words add to the score: their weights, each times `feature_weight`."""
        if not self.words:
            return 0.0
        features = word_features(text)
        known = sorted(f for f in features if f in self.words)  # one order: the same sum in every process
        return math.fsum(self.words[f] for f in known) * feature_weight(features)

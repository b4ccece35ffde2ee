"""Train the search service's off-topic model: a logistic regression over the bundled embedder's query
vector and the query's words that says how likely a prompt is *not* about a codebase
(services/search/domain/topicality.py).

    .venv/bin/python tools/train_off_topic.py                  # the bundled model, fitted on everything
    .venv/bin/python tools/train_off_topic.py --hold-out offtopic_probe4 --out /tmp/m.json   # to measure
    .venv/bin/python tools/train_off_topic.py --no-report   # the bundled model only (~2 min, not ~25)

Labelled prompts, all written for this project (bench/README.md says who wrote which and how; the
training prompts' header says theirs):
- skip (1): the skip prompts of the shared sets `bench/sets/offtopic*.yaml`, of the corpus sets, and the
  router's labelled skips (gateway/domain/data/routing_prompts.yaml) that are not content-free follow-ups
  ("yes", "continue": those are about the conversation's last turn, not off-topic);
- code (0): every other prompt — the shared sets' code prompts and their per-corpus folders, the corpus
  sets, the bug-fix commit sets, the router's labelled code prompts;
- both: `tools/off_topic_prompts*.yaml`, 6,260 prompts written for training only (hard cases on both sides:
  "that was too long" / "who calls that", "the server at the café" / "the server hangs on upload").
Each distinct text (lower-cased, spaces collapsed, sanitised as the gateway sanitises prompts) is counted
once, in the first group that has it, so a text in two files never sits on both sides of a split. A routing
set named with `--hold-out` (with its per-corpus code prompts) is left out of the model written to `--out`,
to be measured blind (and no other report is printed). Otherwise each routing set is also predicted by a
model fitted without it (leave one set out); its skip recall and highest code probability are printed:
those are the honest figures; a set the model was fitted on says little about it.

Word features: every content word and adjacent pair of them (`word_features`: function words are left to
the embedding) used by at least `MIN_COUNT` training prompts, each prompt's features scaled to unit length
and weighted `WORD_SCALE` against the embedding. Measured leave-one-set-out on the routing sets
(2026-12-04): skip recall at p > 0.6 from 0.73–0.89 (the embedding alone) to 0.90–0.98, with as many or
fewer code prompts above it; a word seen by one prompt only, or hashed buckets, generalised worse.

Long prompts: the search service reads a prompt of more than 16 words part by part and reports its most
code-like part (services/search/README "Off-topic reading"), so such a prompt is trained on that part
(`as_read`), not on its head: "…barely slept. Anyway, where do we validate the body?" is a question about
code whose first sentence is chat. Measured with each routing set held out (2026-12-04, third session):
probe3 0.847 → 0.864, probe4 0.734 → 0.745 skip accuracy in the gate, probe7 0.823 → 0.817, the rest
equal or up, no false skip (bench/README "probe7").

Neighbours (fifth session, 2026-12-05): the model file names a sibling `<name>_examples.npz` holding every
training prompt's unit vector (as read, int8) and label; the service's reading is the higher of the logistic
regression's and the similarity-weighted share of off-topic prompts among the 10 nearest
(`OffTopicModel.neighbour_reading`). Measured leave one set out on the nine routing sets (embeddings only):
the neighbours alone separate a set's skip prompts from its code prompts as well as or better than the
regression on six of nine (AUC 0.988–1.000 against 0.986–1.000); through the gate, see bench/README
"Fifth session".

Full-batch gradient descent in float64 from zeros: the same embeddings give the same weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.offtopic import SHARED_PREFIX  # noqa: E402
from bench.sets import COMMITS, SETS_DIR, load_set  # noqa: E402
from gateway.domain.routing.relevance import MODEL_OFF_TOPIC  # noqa: E402
from gateway.domain.sanitize import sanitize_prompt  # noqa: E402
from services.search.bootstrap import QUERY_TOKENS  # noqa: E402
from services.search.domain.embedding_text import query_for_embedding, reading_windows  # noqa: E402
from services.search.domain.topicality import (  # noqa: E402
    BUNDLED_MODEL,
    EXAMPLE_SCALE,
    OffTopicModel,
    feature_weight,
    word_features,
)
from services.search.engine import USED_QUERY_CHARS  # noqa: E402

ROUTING_PROMPTS = ROOT / "gateway" / "domain" / "data" / "routing_prompts.yaml"
TRAINING_PROMPTS = sorted((ROOT / "tools").glob("off_topic_prompts*.yaml"))
L2, STEPS, RATE = 1e-4, 4000, 1.0
MIN_COUNT, WORD_SCALE = 2, 3.0
# Groups that are not routing sets: always training data, never reported on their own.
OTHER_GROUPS = ("corpus sets", "commit sets", "routing prompts", "training prompts")


@dataclass(frozen=True)
class Row:
    text: str  # as the search service reads it: sanitised, cut to the characters a search uses
    skip: int  # 1: not about the repo's code; 0: about it
    group: str  # the routing set it comes from, or one of OTHER_GROUPS


def labelled() -> list[Row]:
    """Every labelled prompt, each distinct text once (the first group that has it keeps it)."""
    rows: list[Row] = []
    for path in sorted(SETS_DIR.glob("*.yaml")):
        name, prompts = path.stem, load_set(path)
        shared = all(p.shared for p in prompts)
        rows += [Row(p.prompt, int(p.should_skip), name if shared else "corpus sets") for p in prompts]
        joined = SETS_DIR / name.removeprefix(SHARED_PREFIX)
        if shared and joined.is_dir() and joined != SETS_DIR:
            rows += [Row(p.prompt, 0, name) for q in sorted(joined.glob("*.yaml")) for p in load_set(q)]
    rows += [
        Row(p.prompt, 0, "commit sets")
        for q in sorted((SETS_DIR / COMMITS).glob("*.yaml"))
        for p in load_set(q)
    ]
    for path in TRAINING_PROMPTS:
        written = yaml.safe_load(path.read_text())
        rows += [Row(text, 1, "training prompts") for text in written["skip"]]
        rows += [Row(text, 0, "training prompts") for text in written["code"]]
    for part in yaml.safe_load(ROUTING_PROMPTS.read_text()).values():
        rows += [
            Row(p["prompt"], int(p["route"] == "skip"), "routing prompts")
            for p in part
            if not p.get("follow_up")
        ]
    distinct: dict[str, Row] = {}
    for row in rows:
        text = sanitize_prompt(row.text).text
        distinct.setdefault(_key(text), Row(text[:USED_QUERY_CHARS], row.skip, row.group))
    return list(distinct.values())


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def vocabulary(texts: list[str]) -> list[str]:
    """The word features at least `MIN_COUNT` of these prompts use."""
    counts = Counter(f for text in texts for f in word_features(text))
    return sorted(f for f, n in counts.items() if n >= MIN_COUNT)


def word_matrix(texts: list[str], words: list[str]) -> np.ndarray:
    """One row per prompt: its features among `words`, over √(its distinct features), × `WORD_SCALE`."""
    column = {w: i for i, w in enumerate(words)}
    m = np.zeros((len(texts), len(words)))
    for row, text in enumerate(texts):
        features = word_features(text)
        for f in features & column.keys():
            m[row, column[f]] = WORD_SCALE * feature_weight(features)
    return m


def fit_rows(x: np.ndarray, texts: list[str], y: np.ndarray) -> tuple[np.ndarray, dict[str, float], float]:
    """Vector weights, word weights (scale folded in) and bias fitted on these prompts."""
    words = vocabulary(texts)
    weights, bias = fit(np.hstack([x, word_matrix(texts, words)]), y)
    vector, per_word = weights[: x.shape[1]], weights[x.shape[1] :] * WORD_SCALE
    return vector, dict(zip(words, per_word.tolist(), strict=True)), bias


def as_read(
    embedder: Any, x: np.ndarray, texts: np.ndarray, y: np.ndarray, fitted: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each long prompt as the search service reads it: a prompt the embedder reads in parts
    (`reading_windows`) is as off-topic as its most code-like part, so that part is what it is trained on
    (not its head: "…barely slept. Anyway, where do we validate the body?" is a question about code, its
    first sentence is not). Which part is most code-like is read by a model fitted on the short prompts of
    `fitted` (the groups not held out)."""
    windows = [reading_windows(str(t)) for t in texts]
    long = [i for i, w in enumerate(windows) if len(w) > 1]
    if not long:
        return x, texts
    short = np.array([len(w) == 1 for w in windows]) & fitted
    vector, words, bias = fit_rows(x[short], list(texts[short]), y[short])
    first = OffTopicModel(embedder.name, vector.astype(np.float32), bias, words)
    parts = [(i, part) for i in long for part in windows[i]]
    vectors = embedder.embed([query_for_embedding(part) for _, part in parts])
    best: dict[int, tuple[float, int]] = {}
    for k, ((i, part), v) in enumerate(zip(parts, vectors, strict=True)):
        p = first.probability(embedder.name, v, part)
        if p is not None and (i not in best or p < best[i][0]):
            best[i] = (p, k)
    x, texts = x.copy(), texts.copy()
    for i, (_, k) in best.items():
        x[i], texts[i] = vectors[k], parts[k][1]
    return x, texts


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Each prompt's vector scaled to unit length, as the neighbour reading compares them."""
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    weights, bias = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
        weights -= RATE * (x.T @ (p - y) / len(y) + L2 * weights)
        bias -= RATE * float(np.mean(p - y))
    return weights, bias


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--hold-out",
        action="append",
        default=[],
        help="a routing set, or 'commit sets' (the bug-fix commit messages), left out (repeatable)",
    )
    parser.add_argument("--out", type=Path, help="where to write the model (default: the bundled file)")
    parser.add_argument(
        "--no-report", action="store_true", help="skip the leave-one-set-out report (one fit per set)"
    )
    args = parser.parse_args()
    rows = labelled()
    sets = sorted({r.group for r in rows} - set(OTHER_GROUPS))
    unknown = sorted(set(args.hold_out) - {*sets, "commit sets"})
    if unknown:
        parser.error(
            f"--hold-out {', '.join(unknown)}: not a routing set (one of {', '.join(sets)}) or 'commit sets'"
        )
    if args.hold_out and args.out is None:
        parser.error(
            "--hold-out makes a model for measuring: give --out (the bundled file is trained on all)"
        )
    from services.search.adapters.onnx_embedder import OnnxEmbedder

    embedder = OnnxEmbedder(max_tokens=QUERY_TOKENS)  # as the search service embeds queries
    x = embedder.embed([query_for_embedding(r.text) for r in rows]).astype(np.float64)
    y = np.array([r.skip for r in rows], dtype=np.float64)
    groups = np.array([r.group for r in rows])
    texts = np.array([r.text for r in rows], dtype=object)
    x, texts = as_read(embedder, x, texts, y, ~np.isin(groups, args.hold_out))
    print(
        f"{len(rows)} distinct prompts: " + ", ".join(f"{g} {n}" for g, n in sorted(Counter(groups).items()))
    )
    report = not (args.hold_out or args.no_report)  # a model for measuring one set blind needs none
    if report:
        print(f"leave one set out (reads off-topic at p > {MODEL_OFF_TOPIC}):")
    for name in sets if report else []:
        inside = groups == name
        vector, words, bias = fit_rows(x[~inside], list(texts[~inside]), y[~inside])
        held = OffTopicModel(
            embedder.name, vector.astype(np.float32), bias, words, unit_rows(x[~inside]), y[~inside]
        )
        p = np.array(
            [
                held.probability(embedder.name, v, t)
                for v, t in zip(x[inside].astype(np.float32), texts[inside], strict=True)
            ]
        )
        skips, code = p[y[inside] == 1], p[y[inside] == 0]
        print(
            f"  {name:<20} skip recall {np.mean(skips > MODEL_OFF_TOPIC):.2f} of {len(skips)}, code above "
            f"{int(np.sum(code > MODEL_OFF_TOPIC))} of {len(code)} (highest {code.max(initial=0):.2f})"
        )
    kept = ~np.isin(groups, args.hold_out)
    vector, words, bias = fit_rows(x[kept], list(texts[kept]), y[kept])
    model = OffTopicModel(embedder.name, vector.astype(np.float32), bias, words)
    out = args.out or BUNDLED_MODEL
    examples = out.with_name(f"{out.stem}_examples.npz")
    with examples.open("wb") as f:  # the prompts as read, for the neighbour reading
        np.savez_compressed(
            f,
            vectors=np.round(unit_rows(x[kept]) * EXAMPLE_SCALE).astype(np.int8),
            labels=y[kept].astype(np.int8),
        )
    out.write_text(
        json.dumps(
            {
                "embedder": model.embedder,
                "trained_on": dict(sorted(Counter(groups[kept]).items())),
                "held_out": sorted(args.hold_out),
                "l2": L2,
                "bias": round(model.bias, 6),
                "weights": [round(float(w), 6) for w in model.weights],
                "words": {w: round(v, 6) for w, v in words.items() if abs(v) >= 1e-4},
                "examples": examples.name,
            }
        )
        + "\n"
    )
    print(f"wrote {out} and {examples}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

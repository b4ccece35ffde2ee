"""BM25 baselines over the same files the indexer sees: whole files, and function chunks from parse_file.

Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5))) in numpy, tokens from
kit.text.code_words (identifier splitting on), so the baseline gets the same code-aware words we do.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.scoring import Retrieved
from kit.text import code_words


class BM25:
    def __init__(self, documents: Sequence[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.n = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        norm = k1 * (1 - b + b * lengths / max(lengths.mean() if self.n else 1.0, 1e-9))
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for doc_id, words in enumerate(documents):
            for term, tf in Counter(words).items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(doc_id)
                tfs.append(tf)
        # Per term: document ids and their precomputed BM25 weights.
        self.index: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, (ids, tfs) in postings.items():
            doc_ids, tf = np.array(ids), np.array(tfs, dtype=np.float64)
            idf = np.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
            self.index[term] = (doc_ids, idf * tf * (k1 + 1) / (tf + norm[doc_ids]))

    def nbytes(self) -> int:
        """Memory held by the postings arrays (the index proper, not the Python dict around it)."""
        return sum(ids.nbytes + weights.nbytes for ids, weights in self.index.values())

    def top(self, query: list[str], k: int = 10) -> list[int]:
        scores = np.zeros(self.n)
        for term in set(query):
            if term in self.index:
                doc_ids, weights = self.index[term]
                scores[doc_ids] += weights
        if k >= self.n:
            order = np.argsort(-scores, kind="stable")
        else:
            part = np.argpartition(-scores, k)[:k]
            order = part[np.argsort(-scores[part], kind="stable")]
        return [int(i) for i in order if scores[i] > 0][:k]


@dataclass
class BaselineIndex:
    """One BM25 index and what each of its documents stands for."""

    name: str
    bm25: BM25
    items: list[Retrieved]
    build_seconds: float
    files: int

    def search(self, query: str, k: int = 10) -> list[Retrieved]:
        return [self.items[i] for i in self.bm25.top(code_words(query), k)]


def scan_files(root: Path) -> list[str]:
    """The files the indexer would index (same scanner, same ignores)."""
    from services.indexer.adapters.fs_tree import RepoScanner

    return [f.path for f in RepoScanner(root).walk()]


def build_baselines(root: Path) -> tuple[BaselineIndex, BaselineIndex]:
    """(BM25 over whole files, BM25 over parse_file chunks); build times include reading and parsing."""
    from services.indexer.domain.parsing import parse_file

    started = time.perf_counter()
    paths = scan_files(root)
    texts = {p: (root / p).read_bytes() for p in paths}
    file_docs, file_items = [], []
    for path, data in texts.items():
        text = data.decode("utf-8", errors="replace")
        file_docs.append(code_words(path) + code_words(text))
        file_items.append(Retrieved(path, "", 1, text.count("\n") + 1))
    files = BaselineIndex("bm25-file", BM25(file_docs), file_items, time.perf_counter() - started, len(paths))

    started = time.perf_counter()
    chunk_docs, chunk_items = [], []
    for path, data in texts.items():
        for chunk in parse_file("bench", path, data).chunks:
            chunk_docs.append(
                code_words(f"{path} {chunk.qualified_name} {chunk.signature} {chunk.doc} {chunk.content}")
            )
            chunk_items.append(Retrieved(path, chunk.qualified_name, chunk.start_line, chunk.end_line))
    chunks = BaselineIndex(
        "bm25-chunk", BM25(chunk_docs), chunk_items, time.perf_counter() - started, len(paths)
    )
    return files, chunks

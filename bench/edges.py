"""Call-edge precision (issue 17): a seeded random sample of resolved call edges from libraries nobody
tuned the resolver on, judged by reading the code.

`python -m bench edges sample [--per-corpus N] [--inherited M] [--seed S]` fetches the pinned sdists below (pip, sha256
checked), parses them with the indexer's parser, resolves their calls with the graph's resolver (the
same domain code both graph backends use) and writes `sets/edges/sample.yaml`: per sampled edge the caller,
the call's source line, the callee it was resolved to and an empty `verdict`; N edges drawn from all
resolved edges (stratum `random`) and up to M more from those resolved through class bases (stratum
`inherited`: `self.`/`super()`/class-qualified calls reaching a method outside the caller's class), so
the newest rule is judged on more than the few a random draw would give. Verdicts already in the
file are kept for edges drawn again. A person then sets each verdict to `right` or `wrong` by reading
the code. `python -m bench edges score` prints precision per corpus and overall, and the resolved /
ambiguous / external counts (the recall side: what stopped being resolved).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import yaml

from bench.corpora import BENCH, Corpus, fetch
from kit.domain import CallSite, ChunkKind, Symbol
from services.graph.domain.model import Resolution
from services.graph.domain.resolution import (
    SELF_RECEIVERS,
    CallResolver,
    enclosing_scopes,
    receiver_parts,
    resolve_edges,
    scope_of,
)
from services.indexer.adapters.fs_tree import RepoScanner
from services.indexer.domain.imports import resolve_imports
from services.indexer.domain.languages import detect_language
from services.indexer.domain.parsing import parse_file

EDGE_CORPORA = (
    Corpus(
        name="requests",
        language="python",
        registry="pypi",
        package="requests",
        version="2.32.3",
        archive="requests-2.32.3.tar.gz",
        sha256="55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760",
        root="requests-2.32.3",
    ),
    Corpus(
        name="click",
        language="python",
        registry="pypi",
        package="click",
        version="8.1.7",
        archive="click-8.1.7.tar.gz",
        sha256="ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de",
        root="click-8.1.7",
    ),
)
EDGES_FILE = BENCH / "sets" / "edges" / "sample.yaml"  # a subfolder: not a prompt set
TARGET = 0.95


def corpus_edges(corpus: Corpus) -> tuple[list[dict[str, object]], Counter[str]]:
    """Every call edge of the corpus's source (not its tests or docs), and counts per resolution."""
    root = fetch(corpus)
    files = [
        f.path
        for f in RepoScanner(root, accept=lambda p: detect_language(p) == "python").walk()
        if f.path.startswith("src/")
    ]
    repo_files = frozenset(files)
    symbols: list[Symbol] = []
    sites: list[CallSite] = []
    imports_by_path = {}
    lines: dict[str, list[str]] = {}
    for path in files:
        source = (root / path).read_bytes()
        lines[path] = source.decode("utf-8", "replace").splitlines()
        parsed = parse_file(corpus.name, path, source)
        for chunk in parsed.chunks:
            symbols.append(
                Symbol(
                    chunk.id,
                    path,
                    chunk.name,
                    chunk.qualified_name,
                    chunk.kind,
                    chunk.start_line,
                    chunk.end_line,
                    chunk.signature,
                    chunk.is_test,
                )  # fmt: skip
            )
        sites.extend(parsed.call_sites)
        imports_by_path[path] = list(resolve_imports(parsed.imports, "python", repo_files))
    by_id = {s.id: s for s in symbols}
    resolver = CallResolver(symbols, imports_by_path)
    counts: Counter[str] = Counter()
    edges: list[dict[str, object]] = []
    receivers: dict[tuple[str, str, int], list[str]] = {}
    for site in sites:
        receivers.setdefault((site.caller_id, site.callee_name, site.line), []).append(site.receiver)
    class_names = {s.name for s in symbols if s.kind is ChunkKind.CLASS}
    for edge in resolve_edges(sites, by_id, resolver):
        counts[edge.resolution.name] += 1
        if edge.resolution not in (Resolution.SAME_FILE, Resolution.IMPORTED, Resolution.GLOBAL_UNIQUE):
            continue
        caller, callee = by_id[edge.caller_id], by_id[edge.callee_id]
        on_line = receivers.get((edge.caller_id, edge.callee_name, edge.line), [""])
        receiver = on_line[-1]
        via_bases = all(_through_bases(caller, callee, r, class_names) for r in on_line)
        edges.append(
            {
                "corpus": corpus.name,
                "caller": f"{caller.path}::{caller.qualified_name}",
                "line": edge.line,
                "call": lines[caller.path][edge.line - 1].strip()[:160],
                "receiver": receiver,
                "callee": f"{callee.path}::{callee.qualified_name}",
                "resolution": edge.resolution.name,
                "via": "bases" if via_bases else "",
            }
        )
    return edges, counts


def _through_bases(caller: Symbol, callee: Symbol, receiver: str, class_names: set[str]) -> bool:
    """Whether a call reached a method outside the class it names (its own, or a class receiver's)."""
    scope = scope_of(callee.qualified_name)
    if not scope or not receiver:
        return False
    if receiver in SELF_RECEIVERS or receiver.startswith("super"):
        return receiver.startswith("super") or scope not in enclosing_scopes(caller.qualified_name)
    last = receiver_parts(receiver)[1]
    return last in class_names and last != scope.rpartition(".")[2]


def _key(entry: dict[str, object]) -> tuple[object, ...]:
    return entry["corpus"], entry["caller"], entry["line"], entry["callee"]


def sample(per_corpus: int, seed: int, inherited: int = 0, out: Path = EDGES_FILE) -> None:
    known: dict[tuple[object, ...], dict[str, object]] = {}
    if out.is_file():
        for entry in yaml.safe_load(out.read_text()).get("edges", []):
            known[_key(entry)] = {k: entry[k] for k in ("verdict", "note") if entry.get(k)}
    drawn: list[dict[str, object]] = []
    totals: dict[str, dict[str, int]] = {}
    for corpus in EDGE_CORPORA:
        edges, counts = corpus_edges(corpus)
        totals[corpus.name] = dict(counts)
        rng = random.Random(f"{seed}:{corpus.name}")
        picked = rng.sample(edges, min(per_corpus, len(edges)))
        for entry in picked:
            entry["stratum"] = "random"
        keys = {_key(e) for e in picked}
        through_bases = [e for e in edges if e["via"] and _key(e) not in keys]
        for entry in rng.sample(through_bases, min(inherited, len(through_bases))):
            entry["stratum"] = "inherited"
            picked.append(entry)
        for entry in picked:
            entry["verdict"] = ""
            entry.update(known.get(_key(entry), {}))
            drawn.append(entry)
    header = {
        "about": "Resolved call edges, a seeded random sample; verdict right|wrong judged by reading the code.",
        "command": f"python -m bench edges sample --per-corpus {per_corpus} --inherited {inherited} --seed {seed}",
        "resolutions": totals,
        "edges": drawn,
    }
    out.write_text(yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=200))
    print(f"bench edges: {len(drawn)} edges written to {out}; judge each `verdict` (right|wrong)")


def score(path: Path = EDGES_FILE) -> int:
    data = yaml.safe_load(path.read_text())
    edges = data["edges"]
    per: dict[str, Counter[str]] = {}
    for entry in edges:
        per.setdefault(str(entry["corpus"]), Counter())[str(entry.get("verdict") or "unjudged")] += 1
    all_right = sum(c["right"] for c in per.values())
    all_judged = sum(c["right"] + c["wrong"] for c in per.values())
    for corpus, counts in per.items():
        judged = counts["right"] + counts["wrong"]
        precision = counts["right"] / judged if judged else 0.0
        print(
            f"{corpus}: {judged} judged, {counts['right']} right, precision {precision:.3f}, "
            f"{counts['unjudged']} unjudged"
        )
        print(f"  resolutions over all its edges: {data['resolutions'].get(corpus)}")
    strata: dict[str, Counter[str]] = {}
    for entry in edges:
        strata.setdefault(str(entry.get("stratum") or "random"), Counter())[
            str(entry.get("verdict") or "")
        ] += 1
    for stratum, counts in strata.items():
        judged = counts["right"] + counts["wrong"]
        print(f"stratum {stratum}: {judged} judged, {counts['right']} right")
    overall = all_right / all_judged if all_judged else 0.0
    print(f"overall: {all_judged} judged, precision {overall:.3f} (target ≥ {TARGET})")
    return 0 if all_judged >= 100 and overall >= TARGET else 1

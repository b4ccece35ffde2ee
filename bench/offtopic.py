"""Routing on the corpus-independent sets (`sets/offtopic.yaml`): every corpus gets the same off-topic chat
(must be skipped) and casual-looking code prompts (must not be), scored apart from the corpus's own set."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.scoring import skip_scores
from bench.sets import SETS_DIR, Prompt, load_set, load_shared_sets

QUICK_PER_CATEGORY = 4  # `bench run --quick`: this many skip and this many code prompts


# A corpus's own `code` prompts scored with a shared set: sets/<name>/<corpus>.yaml joins the shared set
# `offtopic_<name>` (its skip prompts), so that set has both a skip and a false-skip rate on every corpus.
# Such blind sets (`probe`, `probe2`, … `probe16`) were each written by a helper that never read the router.
SHARED_PREFIX = "offtopic_"
PROBE_SET = "offtopic_probe"


def probe_prompts(corpus: str, directory: Path = SETS_DIR, stem: str = PROBE_SET) -> list[Prompt]:
    """The corpus's code prompts joined to the shared set `stem` (casual questions about its code), or none."""
    path = directory / stem.removeprefix(SHARED_PREFIX) / f"{corpus}.yaml"
    return load_set(path) if stem.startswith(SHARED_PREFIX) and path.is_file() else []


def corpus_probes(corpus: str) -> list[Prompt]:
    """The corpus's code prompts joined to every shared set (`probe_prompts` of each)."""
    return [p for stem in load_shared_sets() for p in probe_prompts(corpus, stem=stem)]


def _joined(corpus: str) -> dict[str, str]:
    """Prompt id -> the shared set stem, for the corpus's code prompts joined to a shared set."""
    return {p.id: stem for stem in load_shared_sets() for p in probe_prompts(corpus, stem=stem)}


def shared_prompts(quick: bool = False, corpus: str = "") -> list[Prompt]:
    """Every prompt of every shared set, and the corpus's prompts joined to them (a few of each with `quick`)."""
    shared = load_shared_sets()
    prompts = [p for ps in shared.values() for p in ps]
    prompts += [p for stem in shared for p in probe_prompts(corpus, stem=stem)]
    if not quick:
        return prompts
    skips = [p for p in prompts if p.should_skip]
    code = [p for p in prompts if not p.should_skip]
    return skips[:QUICK_PER_CATEGORY] + code[:QUICK_PER_CATEGORY]


def by_set(shared: dict[str, Any], prompts: list[Prompt]) -> dict[str, dict[str, Any]]:
    """`shared_routing`'s result split by the shared set (file stem) each prompt comes from, when there
    are several: each set is scored on its own (a held-out set must not hide behind the other)."""
    stems = {p.id: stem for stem, ps in load_shared_sets().items() for p in ps}
    for corpus in {p.corpus for p in prompts if not p.shared}:
        stems.update(_joined(corpus))
    names = sorted({stems.get(p.id, "?") for p in prompts})
    if len(names) < 2:
        return {}
    routes = shared["routes"]
    return {name: scored([p for p in prompts if stems.get(p.id) == name], routes) for name in names}


def shared_routing(route: Callable[[str], str], prompts: list[Prompt]) -> dict[str, Any]:
    """Skip accuracy, skip recall and false skips of `route(prompt text) -> route name` on shared prompts.

    The keys match a corpus's own `routing` block (accuracy, false_skip_rate, skip_recall, routes,
    false_skips, missed_skips), so the report renders both the same way."""
    return scored(prompts, {p.id: route(p.prompt) for p in prompts})


def scored(prompts: list[Prompt], routes: dict[str, str]) -> dict[str, Any]:
    scores = skip_scores([(p.should_skip, routes[p.id] == "skip") for p in prompts])
    return {
        **asdict(scores),
        "routes": {p.id: routes[p.id] for p in prompts},
        "false_skips": [p.id for p in prompts if not p.should_skip and routes[p.id] == "skip"],
        "missed_skips": [p.id for p in prompts if p.should_skip and routes[p.id] != "skip"],
    }

"""Quality sets: prompts with graded gold answers, one YAML file per corpus in bench/sets/.

    corpus: rxjs
    prompts:
      - id: rxjs-07
        category: flow            # lookup | flow | bug | architecture | skip
        prompt: how does a new inner subscription cancel the previous one
        gold:                     # empty for skip prompts
          - {file: src/internal/operators/switchMap.ts, symbol: switchMap, grade: 3}

`sets/commits/<corpus>.yaml` holds bug-fix commit messages (category `commit`): the message is the prompt,
the functions the fix changes are its grade-3 gold. `load_commit_set` reads a corpus's; they are scored apart
from the corpus's own set.

A shared set (`corpus: "*"`, e.g. sets/offtopic.yaml) is corpus-independent: it runs against every corpus
and only checks routing. Its prompts are `skip` (must get no context) or `code` (about whatever repo is
open, must not be skipped; no gold). `load_sets` returns the per-corpus sets, `load_shared_sets` the shared.

Gold spans (start/end lines) are not written by hand: `resolve_spans` reads them from the pinned
corpus with the indexer's own parser, and `validate` reports every gold entry it cannot find.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from bench.scoring import Gold, names_match

SETS_DIR = Path(__file__).resolve().parent / "sets"
CATEGORIES = ("lookup", "flow", "bug", "architecture", "skip")
SHARED = "*"  # the corpus of a shared set: it runs against every corpus
CODE = "code"  # a shared set's prompt about the open repo's code: must not be skipped, has no gold
SHARED_CATEGORIES = ("skip", CODE)
COMMIT = "commit"  # a bug-fix commit message; its gold is what the fix changed
COMMITS = "commits"  # the folder of the commit sets, one per corpus


@dataclass(frozen=True)
class Prompt:
    id: str
    corpus: str
    category: str
    prompt: str
    gold: tuple[Gold, ...] = field(default_factory=tuple)
    # A blind probe's code prompt (sets/probe*/<corpus>.yaml) names only the file that answers it: file-level
    # gold, scored as the answer file's rank (`bench.search_quality --probes`, the run's `probe_files`).
    answer: str = ""

    @property
    def should_skip(self) -> bool:
        return self.category == "skip"

    @property
    def shared(self) -> bool:
        return self.corpus == SHARED


def load_set(path: Path) -> list[Prompt]:
    data = yaml.safe_load(path.read_text())
    corpus = str(data["corpus"])
    prompts = []
    for entry in data["prompts"]:
        gold = tuple(Gold(str(g["file"]), str(g["symbol"]), int(g["grade"])) for g in entry.get("gold") or ())
        prompts.append(
            Prompt(
                str(entry["id"]),
                corpus,
                str(entry["category"]),
                str(entry["prompt"]).strip(),
                gold,
                str(entry.get("answer") or ""),
            )
        )
    return prompts


def _all_sets(directory: Path) -> dict[str, list[Prompt]]:
    return {p.stem: load_set(p) for p in sorted(directory.glob("*.yaml"))}


def _is_shared(prompts: list[Prompt]) -> bool:
    return bool(prompts) and prompts[0].shared


def load_sets(directory: Path = SETS_DIR) -> dict[str, list[Prompt]]:
    """The per-corpus sets, by corpus name (the shared sets are left out)."""
    return {name: ps for name, ps in _all_sets(directory).items() if not _is_shared(ps)}


def load_shared_sets(directory: Path = SETS_DIR) -> dict[str, list[Prompt]]:
    """The corpus-independent sets (`corpus: "*"`), by file stem."""
    return {name: ps for name, ps in _all_sets(directory).items() if _is_shared(ps)}


def load_commit_set(corpus: str, directory: Path = SETS_DIR) -> list[Prompt]:
    """The corpus's bug-fix commit messages (`commits/<corpus>.yaml`), none when it has no such file."""
    path = directory / COMMITS / f"{corpus}.yaml"
    if not path.is_file():
        return []
    prompts = load_set(path)
    wrong = sorted(
        {p.corpus for p in prompts if p.corpus != corpus} | {p.id for p in prompts if p.category != COMMIT}
    )
    if wrong:
        raise ValueError(
            f"{path}: every prompt must be a {COMMIT!r} of corpus {corpus!r} ({', '.join(wrong)})"
        )
    return prompts


@dataclass(frozen=True)
class Definition:
    qualified_name: str
    start_line: int
    end_line: int


def definitions(root: Path, path: str) -> list[Definition]:
    """Definitions in one file of a corpus, as the indexer's parser chunks them."""
    from services.indexer.domain.parsing import parse_file

    parsed = parse_file("bench", path, (root / path).read_bytes())
    return [Definition(c.qualified_name, c.start_line, c.end_line) for c in parsed.chunks if c.qualified_name]


def find_definition(defs: list[Definition], symbol: str) -> Definition | None:
    """The exact qualified name, else a unique dotted-suffix match; None when absent or ambiguous."""
    exact = [d for d in defs if d.qualified_name == symbol]
    if exact:
        return Definition(symbol, min(d.start_line for d in exact), max(d.end_line for d in exact))
    suffix = [d for d in defs if names_match(d.qualified_name, symbol) and d.qualified_name.endswith(symbol)]
    return suffix[0] if len({d.qualified_name for d in suffix}) == 1 else None


def problems(prompts: list[Prompt], root: Path | None) -> list[str]:
    """Everything wrong with a set against its corpus: schema, missing files, missing definitions.

    A shared set has no corpus (`root` None): only its schema is checked."""
    found: list[str] = []
    cache: dict[str, list[Definition]] = {}
    ids = [p.id for p in prompts]
    found += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    for p in prompts:
        if p.shared:
            if p.category not in SHARED_CATEGORIES:
                found.append(f"{p.id}: a shared set's category must be skip or code, not {p.category!r}")
            if p.gold:
                found.append(f"{p.id}: a shared set's prompt has gold answers (it only checks routing)")
            continue
        if p.category not in (*CATEGORIES, COMMIT):
            found.append(f"{p.id}: unknown category {p.category!r}")
        if p.should_skip and p.gold:
            found.append(f"{p.id}: a skip prompt has gold answers")
        if not p.should_skip and not any(g.grade == 3 for g in p.gold):
            found.append(f"{p.id}: a code prompt needs at least one grade-3 answer")
        for g in p.gold:
            if g.grade not in (1, 2, 3):
                found.append(f"{p.id}: grade {g.grade} for {g.file}:{g.symbol} is not 1, 2 or 3")
            if root is None:
                found.append(f"{p.id}: gold {g.file}:{g.symbol} cannot be checked without its corpus")
                continue
            if not (root / g.file).is_file():
                found.append(f"{p.id}: gold file {g.file} does not exist")
                continue
            if g.file not in cache:
                cache[g.file] = definitions(root, g.file)
            if find_definition(cache[g.file], g.symbol) is None:
                names = ", ".join(sorted({d.qualified_name for d in cache[g.file]})[:40])
                found.append(f"{p.id}: {g.symbol} is not a definition in {g.file} (has: {names})")
    return found


def answer_problems(prompts: list[Prompt], root: Path) -> list[str]:
    """What is wrong with a probe's answer files: only a code prompt with no gold names one, and it exists."""
    found = []
    for p in prompts:
        if p.answer and (p.category != CODE or p.gold):
            found.append(f"{p.id}: only a probe's code prompt (no gold) names an answer file")
        elif p.answer and not _inside(root, p.answer):
            found.append(f"{p.id}: answer file {p.answer} is not a relative path inside the corpus")
        elif p.answer and not (root / p.answer).is_file():
            found.append(f"{p.id}: answer file {p.answer} does not exist")
    return found


def _inside(root: Path, path: str) -> bool:
    return not Path(path).is_absolute() and (root / path).resolve().is_relative_to(root.resolve())


def resolve_spans(prompts: list[Prompt], root: Path) -> list[Prompt]:
    """The prompts with every gold item's start/end lines filled in from the corpus."""
    cache: dict[str, list[Definition]] = {}
    resolved = []
    for p in prompts:
        gold = []
        for g in p.gold:
            if g.file not in cache:
                cache[g.file] = definitions(root, g.file) if (root / g.file).is_file() else []
            d = find_definition(cache[g.file], g.symbol)
            gold.append(replace(g, start_line=d.start_line, end_line=d.end_line) if d else g)
        resolved.append(replace(p, gold=tuple(gold)))
    return resolved

"""Seeds: the identifier-shaped names and file paths of a prompt, in prompt order."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gateway.domain.routing.words import WORD_STOP, words
from kit.domain import Chunk
from kit.paths import is_declaration_path
from kit.text import identifier_tokens

MAX_SEEDS = 8

_FILE_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|cs|cpp|cc|cxx|c|h|hpp|hh|swift|scala|m|mm|"
    "md|mdx|rst|txt|yaml|yml|json|toml|ini|cfg|conf|env|sql|sh|bash|zsh|ps1|proto|html|css|scss|sass|less|"
    "vue|svelte|lua|ex|exs|erl|hrl|dart|r|jl|clj|cljs|elm|hs|ml|mli|fs|fsx|vb|pl|pm|tf|hcl|gradle|xml|"
    "lock|dockerfile|mk|cmake|bzl|scm|graphql|gql|ipynb"
)
_COMMON_DIRS = words(
    "src lib app apps pkg cmd internal test tests spec services service gateway kit cli packages "
    "components pages api server client web frontend backend scripts tools docs config deploy"
)
_BARE_TOKEN = re.compile(r"[^\s`'\"()<>\[\]{},;]+")
_HAS_EXTENSION = re.compile(rf"\.(?:{_FILE_EXTENSIONS})$", re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
_QUOTED = re.compile(r"`([^`\n]{1,80})`|\"([^\"\s]{2,60})\"|(?<![\w])'([^'\s]{2,60})'(?![\w])")
_CALL_SHAPED = re.compile(r"\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((?:[^()\s]{0,30})?\)")
# A commit message's conventional header, `fix(router):` or `feat(api)!:` at the start of a line: its
# type and scope are a label, not a call of `fix` (the scope stays a search word).
_COMMIT_HEADER = re.compile(
    r"^[ \t]*(?:fix|feat|chore|docs|refactor|perf|test|tests|build|ci|style|revert|deps)"
    r"\([\w$./ -]{1,40}\)!?:",
    re.MULTILINE | re.IGNORECASE,
)
_NAME_SHAPE = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$")
# Identifier-shaped words of everyday tech English: they would only ever resolve to nothing.
_NOT_SEEDS = words(
    """e.g i.e etc vs gRPC iOS macOS iPhone iPad JavaScript TypeScript GitHub GitLab PyPI FastAPI OpenAI
    PostgreSQL MySQL GraphQL YouTube LinkedIn WebSocket ChatGPT VSCode DevOps NodeJS Node.js Vue.js Next.js
    React.js Nuxt.js Express.js D3.js LaTeX NumPy SciPy PyTorch TensorFlow SQLite MongoDB DynamoDB
    McDonald ClaudeCode MacBook JetBrains IntelliJ PyCharm WebStorm DuckDB BigQuery OAuth README.md"""
)


def is_path_seed(seed: str) -> bool:
    return "/" in seed or bool(_HAS_EXTENSION.search(seed))


def extract_seeds(text: str, limit: int = MAX_SEEDS) -> tuple[str, ...]:
    """Names worth resolving with FindSymbols, plus file paths, in prompt order, without duplicates."""
    if "://" in text or "www." in text:
        text = _URL.sub(" ", text)
    found: dict[str, int] = {}

    def add(token: str, position: int) -> None:
        token = token.strip().strip(".,;:!?()[]{}<>'\"`").removeprefix("@")
        if len(token) < 2 or token in _NOT_SEEDS or token.lower() in WORD_STOP:
            return
        if _NAME_SHAPE.match(token) or is_path_seed(token):
            found.setdefault(token, position)

    for match in _QUOTED.finditer(text):
        raw = next(group for group in match.groups() if group is not None)
        raw = re.sub(r"\(.*\)$", "", raw.strip())
        add(_as_path(raw) or raw, match.start())
    if "(" in text:
        headers = {m.end() for m in _COMMIT_HEADER.finditer(text)}
        for match in _CALL_SHAPED.finditer(text):
            if match.end() + 1 not in headers and match.end() + 2 not in headers:
                add(match.group(1), match.start())
    paths: list[str] = []
    for match in _BARE_TOKEN.finditer(text):
        token = match.group(0)
        if "/" in token or "." in token:
            path = _as_path(token)
            if path:
                paths.append(path)
                add(path, match.start())
    for token in identifier_tokens(text):
        if _HAS_EXTENSION.search(token) or any(token in path for path in paths):
            continue  # a file name, or part of a path already taken
        if "." in token and all(len(part) <= 1 for part in token.split(".")):
            continue  # "e.g", "i.e"
        add(token, text.find(token))
    ordered = sorted(found.items(), key=lambda item: item[1])
    return tuple(token for token, _ in ordered[:limit])


def _as_path(token: str) -> str:
    """`token` as a repo path seed (line suffix dropped), or "" when it is not path-shaped."""
    token = re.sub(r":\d+(?:[:-]\d+)?$", "", token.strip().removeprefix("@")).rstrip(".,;:")
    if not token or token.startswith("--") or "://" in token:
        return ""
    if _HAS_EXTENSION.search(token) and re.search(r"[A-Za-z_]", token.rsplit(".", 1)[0]):
        return token
    if "/" not in token:
        return ""
    segments = [s for s in token.split("/") if s and s not in {".", ".."}]
    if len(segments) < 2 and not token.startswith(("./", "../")):
        return ""
    path_like = (
        token.startswith(("./", "../", "/")) or len(segments) >= 3 or segments[0].lower() in _COMMON_DIRS
    )
    if path_like and all(re.fullmatch(r"[\w.@+-]+", s) for s in segments):
        return token
    return ""


# A name with more definitions than this in the repo is a common word there: a search term, not a root.
MAX_SHARED_DEFINITIONS = 3
_PLAIN_WORD = re.compile(r"[a-z]+")


# FindSymbols also answers with the module and file chunks named like the seed (`json.py`, a `utils`
# package): ask for this many times more results than are counted, so they cannot fill the answer.
LOOKUP_SLACK = 4


def lookup_limit(candidates: int, max_shared: int = MAX_SHARED_DEFINITIONS) -> int:
    """How many FindSymbols results to ask for to tell whether a name is specific (`max_shared + 1`
    definitions, with room for the module and file chunks that are not counted)."""
    return (max(candidates, max_shared) + 1) * LOOKUP_SLACK


def specific_definitions(
    name: str, definitions: Sequence[Chunk], max_shared: int = MAX_SHARED_DEFINITIONS, asked: int = 0
) -> tuple[Chunk, ...]:
    """The definitions of a seed name when the name is specific in this repo, else none.

    `definitions` are FindSymbols' exact matches (ask for `lookup_limit(...)`, passed as `asked`, to
    tell). A name is specific when few definitions share it: at most `max_shared` implementation ones
    (tests count only when there is no implementation), and exactly one when it is a plain lowercase
    word (`json`, `get`, `run`, `data`), which a prompt uses as an everyday word as often as a name.
    Module and file chunks are not counted; an answer that filled `asked` anyway may have cut
    definitions off, so its count is not trusted and the name is not specific. A declaration (a `.d.ts`
    or `.pyi` file) is left out when the name has an implementation: the user named the code, and its
    declared type only restates the signature (fastify's `setValidatorCompiler` is declared in
    `types/instance.d.ts` and implemented in `lib/`).
    """
    found = [c for c in definitions if c.kind.value not in ("module", "file")]
    if any(not c.is_test and not is_declaration_path(c.path) for c in found):
        found = [c for c in found if not is_declaration_path(c.path)]
    counted = [c for c in found if not c.is_test] or found
    allowed = 1 if _PLAIN_WORD.fullmatch(name) else max_shared
    if not counted or len(counted) > allowed or (asked and len(definitions) >= asked):
        return ()
    return tuple(found)

"""Which language a path is written in, and whether it is a test.

Language names are tree-sitter-language-pack grammar names, so a detected name can be handed to
`get_parser` as is. Languages listed in `TEXT_LANGUAGES` are indexed as file-level chunks only.
"""

from __future__ import annotations

# Languages with a query file in services/indexer/queries/: definitions, calls and imports are extracted.
CODE_LANGUAGES: frozenset[str] = frozenset(
    {
        "python", "typescript", "tsx", "javascript", "go", "rust", "java", "c", "cpp", "csharp",
        "ruby", "php", "kotlin", "swift", "scala", "bash", "lua", "zig", "vue", "html", "css", "toml",
    }
)  # fmt: skip

# Text kinds: indexed as file-level chunks (split into pieces when long), never as definitions.
TEXT_LANGUAGES: frozenset[str] = frozenset(
    {
        "markdown", "json", "yaml", "sql", "text", "xml", "ini", "dockerfile", "make", "cmake",
        "proto", "graphql", "rst", "hcl", "nix", "r", "perl", "dart", "elixir", "erlang",
        "haskell", "ocaml", "clojure", "groovy", "objc", "julia", "powershell", "svelte", "scss",
        "less", "terraform",
    }
)  # fmt: skip

_BY_EXTENSION: dict[str, str] = {
    # code
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".php": "php", ".phtml": "php",
    ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala", ".sc": "scala", ".sbt": "scala",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".bats": "bash",
    ".lua": "lua",
    ".zig": "zig",
    ".vue": "vue",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".css": "css",
    ".toml": "toml",
    # text kinds
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    ".json": "json", ".jsonc": "json", ".json5": "json", ".jsonl": "json", ".ndjson": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".sql": "sql",
    ".txt": "text", ".text": "text", ".adoc": "text", ".asciidoc": "text", ".org": "text",
    ".rst": "rst",
    ".xml": "xml", ".xsd": "xml", ".xsl": "xml", ".plist": "xml", ".csproj": "xml", ".fsproj": "xml",
    ".vbproj": "xml", ".props": "xml", ".targets": "xml", ".pom": "xml",
    ".ini": "ini", ".cfg": "ini", ".conf": "ini", ".properties": "ini", ".editorconfig": "ini",
    ".dockerfile": "dockerfile",
    ".mk": "make", ".mak": "make",
    ".cmake": "cmake",
    ".proto": "proto",
    ".graphql": "graphql", ".gql": "graphql",
    ".tf": "terraform", ".tfvars": "terraform", ".hcl": "hcl",
    ".nix": "nix",
    ".r": "r",
    ".pl": "perl", ".pm": "perl",
    ".dart": "dart",
    ".ex": "elixir", ".exs": "elixir",
    ".erl": "erlang", ".hrl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml",
    ".clj": "clojure", ".cljs": "clojure", ".edn": "clojure",
    ".groovy": "groovy", ".gradle": "groovy",
    ".m": "objc", ".mm": "objc",
    ".jl": "julia",
    ".ps1": "powershell", ".psm1": "powershell",
    ".svelte": "svelte",
    ".scss": "scss", ".sass": "scss", ".less": "less",
}  # fmt: skip

_BY_FILENAME: dict[str, str | None] = {
    "dockerfile": "dockerfile", "containerfile": "dockerfile",
    "makefile": "make", "gnumakefile": "make", "cmakelists.txt": "cmake",
    "rakefile": "ruby", "gemfile": "ruby", "guardfile": "ruby", "vagrantfile": "ruby", "podfile": "ruby",
    "jenkinsfile": "groovy",
    "readme": "text", "license": "text", "licence": "text", "copying": "text", "authors": "text",
    "changelog": "text", "notice": "text", "codeowners": "text",
    ".gitignore": "text", ".gitattributes": "text", ".dockerignore": "text", ".reporecallignore": "text",
    ".bashrc": "bash", ".zshrc": "bash", ".profile": "bash", ".bash_profile": "bash",
    "go.mod": "text", "go.sum": None,  # lockfiles: nothing worth reading
    "pipfile": "toml", "cargo.lock": None, "poetry.lock": None,
}  # fmt: skip

# Suffixes that name files nobody wants as chunks even though the extension is known.
_SKIPPED_SUFFIXES: tuple[str, ...] = (".min.js", ".min.css", ".map", ".lock")

# Values of `lang="…"` attributes and fence names, mapped to grammar names.
LANGUAGE_ALIASES: dict[str, str] = {
    "ts": "typescript", "typescript": "typescript", "tsx": "tsx", "js": "javascript",
    "javascript": "javascript", "jsx": "javascript", "mjs": "javascript", "text/javascript": "javascript",
    "module": "javascript", "application/javascript": "javascript", "css": "css",
}  # fmt: skip


def detect_language(path: str) -> str | None:
    """Grammar name for `path` from its file name or extension; None when it is not a text file we index.

    `detect_language("src/app.tsx") == "tsx"`, `detect_language("README.md") == "markdown"`,
    `detect_language("logo.png") is None`.
    """
    name = path.replace("\\", "/").rpartition("/")[2]
    lowered = name.lower()
    if lowered.endswith(_SKIPPED_SUFFIXES):
        return None
    if lowered in _BY_FILENAME:
        return _BY_FILENAME[lowered]
    if lowered.startswith("dockerfile.") or lowered.endswith(".dockerfile"):
        return "dockerfile"
    if lowered.endswith(".d.ts"):
        return "typescript"
    dot = lowered.rfind(".")
    if dot < 0:
        return None
    return _BY_EXTENSION.get(lowered[dot:])

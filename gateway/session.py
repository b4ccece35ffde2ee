"""SessionStart: a short orientation to the repository and its conventions, detected from the index."""

from __future__ import annotations

import asyncio
import json
import tomllib
from typing import Any

from gateway.domain.conventions import RepoProfile, summarize_conventions
from gateway.ports import Backends, RepoInfo, Unavailable
from gateway.ports import RepoProfile as IndexedProfile
from kit.domain import Import

ORIENTATION = (
    "RepoRecall indexes this repository ({repo}: {files} files). Before each prompt it adds the code the "
    "prompt is about, with callers and callees, in a <reporecall-context> block. Its MCP tools (search_code, "
    "get_context, code_graph, file_summary, memory) answer further questions from the index."
)


class SessionStartService:
    def __init__(self, backends: Backends, deadline: float) -> None:
        self.backends = backends
        self.deadline = deadline

    async def orientation(self, repo: RepoInfo) -> str:
        found = await asyncio.gather(self._profile(repo), self._communities(repo), return_exceptions=True)
        if isinstance(found[0], BaseException):
            return ""
        profile: IndexedProfile = found[0]
        communities: list[tuple[str, int]] = [] if isinstance(found[1], BaseException) else found[1]
        files = [f.path for f in profile.files]
        language_files: dict[str, int] = {}
        for f in profile.files:
            language_files[f.language] = language_files.get(f.language, 0) + 1
        test_files = [f.path for f in profile.files if f.is_test][:12]
        imports, scripts = await asyncio.gather(self._imports(repo, test_files), self._scripts(repo, files))
        summary = summarize_conventions(
            RepoProfile(
                repo=repo.name,
                files=files,
                language_files=language_files,
                definitions=list(profile.symbols),
                imports=imports,
                scripts=scripts,
                communities=communities,
            )
        )
        head = ORIENTATION.format(repo=repo.name, files=len(files))
        return f"{head}\n\n{summary}".strip()

    async def _profile(self, repo: RepoInfo) -> IndexedProfile:
        return await self.backends.search.repo_profile(repo.name, self.deadline)

    async def _communities(self, repo: RepoInfo) -> list[tuple[str, int]]:
        found = await self.backends.graph.communities(repo.name, 6, self.deadline)
        return [(c.label, c.size) for c in found.summaries]

    async def _imports(self, repo: RepoInfo, paths: list[str]) -> list[Import]:
        async def one(path: str) -> list[Import]:
            try:
                return await self.backends.graph.imports(repo.name, path, self.deadline)
            except Unavailable:
                return []

        return [i for found in await asyncio.gather(*(one(p) for p in paths)) for i in found]

    async def _scripts(self, repo: RepoInfo, files: list[str]) -> dict[str, dict[str, str]]:
        """Declared commands from package.json scripts and pyproject [project.scripts], read from the index."""
        scripts: dict[str, dict[str, str]] = {}
        for manifest in ("package.json", "pyproject.toml"):
            if manifest not in files:
                continue
            try:
                chunks = await self.backends.search.file_chunks(repo.name, manifest, self.deadline)
            except Unavailable:
                continue
            text = "\n".join(c.content for c in sorted(chunks, key=lambda c: c.start_line))
            found = _declared_scripts(manifest, text)
            if found:
                scripts[manifest] = found
        return scripts


def _declared_scripts(manifest: str, text: str) -> dict[str, str]:
    try:
        data: Any = json.loads(text) if manifest == "package.json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return {}
    section = data.get("scripts") if manifest == "package.json" else data.get("project", {}).get("scripts")
    if not isinstance(section, dict):
        return {}
    return {str(k): str(v) for k, v in list(section.items())[:20]}

"""SessionStart: a short orientation to the repository and its conventions, detected from the index."""

from __future__ import annotations

import asyncio
import json
import tomllib
from typing import Any

from gateway.backends import Backends, Unavailable
from gateway.domain.conventions import RepoProfile, summarize_conventions
from gateway.repos import RepoInfo
from kit.convert import chunk_from_pb, import_from_pb
from kit.domain import Import
from reporecall.graph.v1 import graph_pb2
from reporecall.search.v1 import search_pb2

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
        profile: search_pb2.RepoProfileResponse = found[0]
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
                definitions=[chunk_from_pb(c) for c in profile.symbols],
                imports=imports,
                scripts=scripts,
                communities=communities,
            )
        )
        head = ORIENTATION.format(repo=repo.name, files=len(files))
        return f"{head}\n\n{summary}".strip()

    async def _profile(self, repo: RepoInfo) -> search_pb2.RepoProfileResponse:
        return await self.backends.call(
            "search",
            self.backends.search.RepoProfile,
            search_pb2.RepoProfileRequest(repo=repo.name),
            self.deadline,
        )

    async def _communities(self, repo: RepoInfo) -> list[tuple[str, int]]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Communities,
            graph_pb2.CommunitiesRequest(repo=repo.name, limit=6),
            self.deadline,
        )
        return [(c.label, c.size) for c in reply.communities]

    async def _imports(self, repo: RepoInfo, paths: list[str]) -> list[Import]:
        async def one(path: str) -> list[Import]:
            try:
                reply = await self.backends.call(
                    "graph",
                    self.backends.graph.Imports,
                    graph_pb2.ImportsRequest(repo=repo.name, path=path),
                    self.deadline,
                )
            except Unavailable:
                return []
            return [import_from_pb(i) for i in reply.imports]

        return [i for found in await asyncio.gather(*(one(p) for p in paths)) for i in found]

    async def _scripts(self, repo: RepoInfo, files: list[str]) -> dict[str, dict[str, str]]:
        """Declared commands from package.json scripts and pyproject [project.scripts], read from the index."""
        scripts: dict[str, dict[str, str]] = {}
        for manifest in ("package.json", "pyproject.toml"):
            if manifest not in files:
                continue
            try:
                reply = await self.backends.call(
                    "search",
                    self.backends.search.FileChunks,
                    search_pb2.FileChunksRequest(repo=repo.name, path=manifest),
                    self.deadline,
                )
            except Unavailable:
                continue
            text = "\n".join(c.content for c in sorted(reply.chunks, key=lambda c: c.start_line))
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

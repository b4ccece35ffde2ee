"""`reporecall doctor`: every process, store, the embedder and the Claude Code config, checked in one go."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient
from cli.common import client_of, print_json


def register(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor", help="check every process, store, model and the Claude Code config"
    )
    doctor.add_argument("--repo")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=lambda a: cmd_doctor(a, client_of(a)))


EMBEDDED_VECTOR_LIMIT = 20_000


def cmd_doctor(args: argparse.Namespace, client: GatewayClient) -> int:
    checks: list[dict[str, str]] = []

    def check(name: str, ok: bool | None, detail: str) -> None:
        checks.append(
            {"check": name, "status": "ok" if ok else ("warn" if ok is None else "fail"), "detail": detail}
        )

    try:
        status = client.request("GET", "/api/status")
        check("gateway", True, client.url)
        for name, info in status.get("services", {}).items():
            check(name, info["status"] == "SERVING", f"{info['status']} at {info.get('address', '')}")
    except CliError as exc:
        check("gateway", False, str(exc))
    repo_name = args.repo or ""
    try:
        repos = client.request("GET", "/api/repos").get("repos", [])
        cwd = Path.cwd().resolve()
        here = [
            r
            for r in repos
            if r["name"] == repo_name
            or (not repo_name and (cwd == Path(r["path"]) or Path(r["path"]) in cwd.parents))
        ]
        if not here:
            check("repository", None, "no registered repository here (reporecall index PATH)")
        for repo in here[:1]:
            info = client.request("POST", "/api/ops/index_status", {"repo": repo["name"]})
            search = info.get("search", {})
            check(
                "index",
                int(info.get("files", 0)) > 0,
                f"{repo['name']}: {info.get('files', 0)} files, {info.get('chunks', 0)} chunks, "
                f"commit {info.get('indexed_commit', '')[:10] or '-'}",
            )
            stale = info.get("dirty_files", [])
            check(
                "freshness", None if stale else True, f"{len(stale)} dirty files" if stale else "up to date"
            )
            vectors, backlog = int(search.get("vectors", 0)), int(search.get("embed_backlog", 0))
            check(
                "embedder",
                search.get("embedder", "") != "",
                f"{search.get('embedder', 'none')}: {vectors} vectors, {backlog} waiting",
            )
            embedded = search.get("vector_backend", "").startswith(("embedded", "numpy", "qdrant-local"))
            check(
                "vector store",
                None if embedded and vectors > EMBEDDED_VECTOR_LIMIT else True,
                f"{search.get('vector_backend', '?')} with {vectors} vectors"
                + (
                    " — beyond the embedded store's comfortable size; use a Qdrant server"
                    if embedded and vectors > EMBEDDED_VECTOR_LIMIT
                    else ""
                ),
            )
    except CliError as exc:
        check("index", False, str(exc))
    settings = Path(".claude/settings.json")
    try:
        hooks = json.loads(settings.read_text()).get("hooks", {})
        has_prompt = any("/hooks/prompt-context" in json.dumps(m) for m in hooks.get("UserPromptSubmit", []))
        has_start = any("/hooks/session-start" in json.dumps(m) for m in hooks.get("SessionStart", []))
        check(
            "claude hooks",
            has_prompt and has_start,
            f"{settings}: UserPromptSubmit {'✓' if has_prompt else '✗'}, "
            f"SessionStart {'✓' if has_start else '✗'}",
        )
    except (OSError, ValueError):
        check("claude hooks", None, "no .claude/settings.json here (reporecall init)")
    try:
        servers = json.loads(Path(".mcp.json").read_text()).get("mcpServers", {})
        check(
            "claude mcp",
            "reporecall" in servers,
            ".mcp.json " + ("has" if "reporecall" in servers else "lacks") + " the reporecall server",
        )
    except (OSError, ValueError):
        check("claude mcp", None, "no .mcp.json here (reporecall init)")
    if args.json:
        print_json(checks)
    else:
        for c in checks:
            print(f"{c['status']:<5} {c['check']:<14} {c['detail']}")
    return 1 if any(c["status"] == "fail" for c in checks) else 0

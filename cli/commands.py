"""CLI commands that talk to a running gateway: explain, graph, memory, doctor, init, watch."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient


def add_commands(commands: Any, client_of: Any) -> None:
    explain = commands.add_parser(
        "explain", help="show how a prompt is routed and what the hook would inject"
    )
    explain.add_argument("prompt")
    explain.add_argument("--repo")
    explain.add_argument("--budget", type=int, default=0, help="token budget (default: the server's)")
    explain.add_argument("--json", action="store_true")
    explain.set_defaults(handler=lambda a: cmd_explain(a, client_of(a)))

    graph = commands.add_parser("graph", help="navigate the call and import graph")
    graph.add_argument(
        "action",
        choices=(
            "symbol",
            "callers",
            "callees",
            "call_tree",
            "call_path",
            "imports",
            "importers",
            "communities",
        ),
    )
    graph.add_argument("target", nargs="?", default="", help="symbol name (or path for imports/importers)")
    graph.add_argument("--to", default="", help="second symbol, for call_path")
    graph.add_argument("--depth", type=int, default=1)
    graph.add_argument("--repo")
    graph.add_argument("--json", action="store_true")
    graph.set_defaults(handler=lambda a: cmd_graph(a, client_of(a)))

    memory = commands.add_parser("memory", help="team and personal memories")
    memory.add_argument("action", choices=("recall", "store", "forget", "list", "compact"))
    memory.add_argument("text", nargs="?", default="", help="query (recall), body (store) or id (forget)")
    memory.add_argument("--name", default="")
    memory.add_argument(
        "--class", dest="memory_class", default="fact", choices=("rule", "fact", "episode", "working")
    )
    memory.add_argument("--scope", default="project", choices=("global", "project", "branch", "user"))
    memory.add_argument("--branch", default="")
    memory.add_argument("--repo")
    memory.add_argument("--json", action="store_true")
    memory.set_defaults(handler=lambda a: cmd_memory(a, client_of(a)))

    doctor = commands.add_parser(
        "doctor", help="check every process, store, model and the Claude Code config"
    )
    doctor.add_argument("--repo")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=lambda a: cmd_doctor(a, client_of(a)))

    init = commands.add_parser("init", help="write .claude/settings.json hooks and .mcp.json for this repo")
    init.add_argument("--dir", default=".", help="repository directory (default: the current one)")
    init.add_argument("--server", help="team server URL (default: the local suite's gateway)")
    init.add_argument("--repo", help="repository name on the server (default: the registered repo here)")
    init.add_argument("--json", action="store_true")
    init.set_defaults(handler=lambda a: cmd_init(a, _optional_client(a, client_of)))

    watch = commands.add_parser("watch", help="index a repository and re-index files as they are saved")
    watch.add_argument("path")
    watch.add_argument("--name")
    watch.add_argument("--debounce-ms", type=int, default=300)
    watch.set_defaults(handler=lambda a: cmd_watch(a, client_of(a)))


def _optional_client(args: argparse.Namespace, client_of: Any) -> GatewayClient | None:
    try:
        return client_of(args)  # type: ignore[no-any-return]
    except CliError:
        if args.server:
            return None
        raise


def _repo_args(args: argparse.Namespace) -> dict[str, str]:
    return {"repo": args.repo or "", "cwd": os.getcwd()}


def _print(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


# --- explain -------------------------------------------------------------------------------------------


def explain_json(reply: dict[str, Any]) -> dict[str, Any]:
    """The evaluation interface: route, ranked results and the exact chunks the hook would inject."""
    search = reply.get("signals", {}).get("search", {})
    return {
        "route": reply["route"],
        "repo": reply["repo"],
        "seeds": reply["seeds"],
        "partial": reply["partial"],
        "degraded": reply["degraded"],
        "tokens": reply["tokens"],
        "chars": reply["chars"],
        "injected": [
            {
                "file": i["path"],
                "symbol": i["symbol"],
                "start_line": i["start_line"],
                "end_line": i["end_line"],
                "kind": i["kind"],
                "score": i["score"],
                "reason": i["reason"],
                "tokens": i["tokens"],
                "chunk_id": i["chunk_id"],
                "signals": search.get(i["chunk_id"], {}),
            }
            for i in reply["items"]
        ],
        "cut": [
            {"file": i["path"], "symbol": i["symbol"], "reason": i["reason"], "note": i.get("note", "")}
            for i in reply["cut"]
        ],
        "elapsed_ms": reply["elapsed_ms"],
        "context": reply["text"],
    }


def cmd_explain(args: argparse.Namespace, client: GatewayClient) -> int:
    reply = client.request(
        "POST", "/api/context", {"prompt": args.prompt, "budget_tokens": args.budget, **_repo_args(args)}
    )
    data = explain_json(reply)
    if args.json:
        _print(data)
        return 0
    print(
        f"route {data['route']}  repo {data['repo'] or '-'}  seeds {', '.join(data['seeds']) or '-'}  "
        f"{data['tokens']} tokens / {data['chars']} chars  {data['elapsed_ms']} ms"
        + (f"  PARTIAL (degraded: {', '.join(data['degraded'])})" if data["partial"] else "")
    )
    for i, item in enumerate(data["injected"], 1):
        signals = item["signals"]
        print(
            f"{i:>2}. {item['file']}:{item['start_line']}-{item['end_line']} {item['kind']} {item['symbol']}  "
            f"score {item['score']:.4f} ({item['reason']}; keyword #{signals.get('keyword_rank', '-')}, "
            f"vector #{signals.get('vector_rank', '-')}) {item['tokens']} tokens"
        )
    for item in data["cut"]:
        print(f"    cut: {item['file']} {item['symbol']} — {item['note'] or item['reason']}")
    print()
    print(data["context"])
    return 0


# --- graph ---------------------------------------------------------------------------------------------


def cmd_graph(args: argparse.Namespace, client: GatewayClient) -> int:
    body: dict[str, Any] = _repo_args(args)
    action = args.action
    if action == "symbol":
        op, body["name"] = "find_symbol", args.target
    elif action in ("imports", "importers"):
        op, body["path"] = action, args.target
    elif action == "communities":
        op = "communities"
    elif action == "call_path":
        op, body["source"], body["target"] = "call_path", args.target, args.to
    elif action == "call_tree":
        op, body["symbol"], body["up"], body["down"] = "call_tree", args.target, args.depth, args.depth
    else:
        op, body["symbol"], body["depth"] = action, args.target, args.depth
    reply = client.request("POST", f"/api/ops/{op}", body)
    if args.json:
        _print(reply)
        return 0
    for key in ("seeds", "symbols", "path"):
        for s in reply.get(key, []):
            print(
                f"{key[:-1] if key != 'path' else 'step'}: {s.get('qualified_name')}  "
                f"{s.get('path')}:{s.get('start_line', 0)}"
            )
    if "seed" in reply:
        print(f"seed: {reply['seed'].get('qualified_name')}  {reply['seed'].get('path')}")
    for node in reply.get("nodes", []):
        s = node["symbol"]
        print(
            f"  {node.get('depth', 0):>+3}  {s.get('qualified_name')}  {s.get('path')}:{s.get('start_line', 0)}"
        )
    for imp in reply.get("imports", []):
        print(
            f"  {imp.get('path')} → {imp.get('resolved_path') or imp.get('target')}"
            + ("  (external)" if imp.get("external") else "")
        )
    for c in reply.get("communities", []):
        print(f"  [{c.get('size', 0):>4}] {c.get('label')}  {', '.join(c.get('dominant_paths', [])[:3])}")
    return 0


# --- memory --------------------------------------------------------------------------------------------


def cmd_memory(args: argparse.Namespace, client: GatewayClient) -> int:
    body: dict[str, Any] = _repo_args(args)
    if args.action == "recall":
        op, body["query"], body["branch"] = "recall", args.text, args.branch
    elif args.action == "store":
        op = "store_memory"
        body |= {
            "name": args.name or args.text[:60],
            "body": args.text,
            "memory_class": args.memory_class,
            "scope": args.scope,
            "branch": args.branch,
        }
    elif args.action == "forget":
        op, body["memory_id"] = "forget_memory", args.text
    elif args.action == "compact":
        op = "compact_memories"
    else:
        op, body["branch"] = "list_memories", args.branch
    reply = client.request("POST", f"/api/ops/{op}", body)
    if args.json:
        _print(reply)
        return 0
    memories = reply.get("memories", [])
    for entry in memories:
        memory = entry.get("memory", entry)
        print(
            f"{memory.get('id')}  [{memory.get('memory_class', '').removeprefix('MEMORY_CLASS_').lower()}] "
            f"{memory.get('name')}"
        )
    if not memories:
        print(json.dumps(reply))
    return 0


# --- doctor --------------------------------------------------------------------------------------------

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
        _print(checks)
    else:
        for c in checks:
            print(f"{c['status']:<5} {c['check']:<14} {c['detail']}")
    return 1 if any(c["status"] == "fail" for c in checks) else 0


# --- init ----------------------------------------------------------------------------------------------


def claude_settings(server: str, repo: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hook entries and MCP server entry RepoRecall needs (token from $REPORECALL_TOKEN)."""
    server = server.rstrip("/")
    prompt_hook = {
        "type": "http",
        "url": f"{server}/hooks/prompt-context",
        "headers": {"Authorization": "Bearer $REPORECALL_TOKEN", "X-Reporecall-Repo": repo},
        "allowedEnvVars": ["REPORECALL_TOKEN"],
        "timeout": 5,
    }
    # SessionStart allows only command hooks: curl, failing open (exit 0, valid output) when the server is down.
    session_hook = {
        "type": "command",
        "command": (
            f"out=$(curl -sS --fail --max-time 3 -X POST -H 'Content-Type: application/json' "
            f"-H \"Authorization: Bearer $REPORECALL_TOKEN\" -H 'X-Reporecall-Repo: {repo}' "
            f"--data-binary @- '{server}/hooks/session-start' 2>/dev/null) && printf '%s' \"$out\" || printf '{{}}'"
        ),
        "timeout": 5,
    }
    hooks = {"UserPromptSubmit": [{"hooks": [prompt_hook]}], "SessionStart": [{"hooks": [session_hook]}]}
    mcp = {
        "type": "http",
        "url": f"{server}/mcp",
        "headers": {"Authorization": "Bearer ${REPORECALL_TOKEN}", "X-Reporecall-Repo": repo},
    }
    return hooks, mcp


def merge_settings(existing: dict[str, Any], hooks: dict[str, Any]) -> dict[str, Any]:
    """Add our hooks, replacing earlier RepoRecall entries and keeping everyone else's."""
    merged = dict(existing)
    all_hooks = dict(merged.get("hooks", {}))
    for event, matchers in hooks.items():
        kept = []
        for matcher in all_hooks.get(event, []):
            others = [h for h in matcher.get("hooks", []) if not _is_ours(h)]
            if others:
                kept.append({**matcher, "hooks": others})
        all_hooks[event] = kept + matchers
    merged["hooks"] = all_hooks
    return merged


def _is_ours(hook: dict[str, Any]) -> bool:
    text = json.dumps(hook)
    return "/hooks/prompt-context" in text or "/hooks/session-start" in text


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise CliError(f"{path} is not valid JSON ({exc}); fix or remove it, then run init again") from None
    if not isinstance(data, dict):
        raise CliError(f"{path} does not hold a JSON object")
    return data


def cmd_init(args: argparse.Namespace, client: GatewayClient | None) -> int:
    root = Path(args.dir).resolve()
    server = args.server or (client.url if client else "")
    if not server:
        raise CliError("init: no server — give --server URL or start a local suite with `reporecall up`")
    repo = args.repo
    if not repo and client is not None:
        repos = client.request("GET", "/api/repos").get("repos", [])
        matches = [r for r in repos if root == Path(r["path"]) or Path(r["path"]) in root.parents]
        repo = matches[0]["name"] if matches else ""
    if not repo:
        raise CliError(
            f"init: {root} is not a registered repository — run `reporecall index {root}` or give --repo"
        )
    hooks, mcp = claude_settings(server, repo)
    settings_path, mcp_path = root / ".claude" / "settings.json", root / ".mcp.json"
    settings = merge_settings(_read_json(settings_path), hooks)
    mcp_config = _read_json(mcp_path)
    mcp_config.setdefault("mcpServers", {})["reporecall"] = mcp
    _write_json(settings_path, settings)
    _write_json(mcp_path, mcp_config)
    if args.json:
        _print({"settings": str(settings_path), "mcp": str(mcp_path), "repo": repo, "server": server})
    else:
        print(f"wrote {settings_path} (UserPromptSubmit + SessionStart hooks) and {mcp_path} (MCP server)")
        print("set REPORECALL_TOKEN in the environment Claude Code runs in")
    return 0


# --- watch ---------------------------------------------------------------------------------------------


def cmd_watch(args: argparse.Namespace, client: GatewayClient) -> int:
    import watchfiles

    from cli.main import run_index

    final = run_index(client, args.path, args.name, full=False, show_progress=sys.stderr.isatty())
    repo, root = final["repo"], Path(args.path).resolve()
    print(f"watching {root} as {repo} (Ctrl-C stops)", flush=True)
    for changes in watchfiles.watch(root, debounce=args.debounce_ms, step=50):
        paths = sorted({str(Path(p).relative_to(root)) for _, p in changes if ".git" not in Path(p).parts})
        if not paths:
            continue
        started = time.perf_counter()
        reply = client.request("POST", "/api/ops/refresh", {"repo": repo, "paths": paths[:1000]})
        print(
            f"re-indexed {reply.get('files_sent', 0)} file(s), removed {reply.get('files_deleted', 0)} "
            f"in {(time.perf_counter() - started) * 1000:.0f} ms",
            flush=True,
        )
    return 0

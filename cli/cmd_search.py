"""Retrieval commands: `search`, `explain` (what the hook would inject) and `graph` navigation.

Nothing found is exit code 1 with "no results" on stderr, as grep does, so a script can test for it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from cli.client import CliError, GatewayClient
from cli.common import EXIT_NOTHING, EXIT_OK, client_of, note, print_json, repo_args

GRAPH_ACTIONS = (
    "symbol",
    "callers",
    "callees",
    "call_tree",
    "call_path",
    "imports",
    "importers",
    "communities",
)


def register(commands: Any) -> None:
    search = commands.add_parser(
        "search",
        help="search the code of a repository",
        description="Exit code 0 with results, 1 with none (or an error).",
    )
    search.add_argument("query")
    search.add_argument("--repo", help="repository name (default: the one containing the current directory)")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--mode", choices=("hybrid", "keyword", "vector"), default="hybrid")
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=cmd_search)

    explain = commands.add_parser(
        "explain", help="show how a prompt is routed and what the hook would inject"
    )
    explain.add_argument("prompt")
    explain.add_argument("--repo")
    explain.add_argument("--budget", type=int, default=0, help="token budget (default: the server's)")
    explain.add_argument("--json", action="store_true")
    explain.set_defaults(handler=cmd_explain)

    graph = commands.add_parser(
        "graph",
        help="navigate the call and import graph",
        description="Exit code 0 when something was found, 1 when nothing was (e.g. no call path).",
    )
    graph.add_argument("action", choices=GRAPH_ACTIONS)
    graph.add_argument("target", nargs="?", default="", help="symbol name (or path for imports/importers)")
    graph.add_argument("--to", default="", help="second symbol, for call_path")
    graph.add_argument("--depth", type=int, default=1)
    graph.add_argument("--repo")
    graph.add_argument("--json", action="store_true")
    graph.set_defaults(handler=cmd_graph)


# --- search --------------------------------------------------------------------------------------------


def vector_backfill(client: GatewayClient, args: argparse.Namespace) -> dict[str, Any]:
    """The repo's vector state: backend, vectors so far and the chunks still waiting for one."""
    try:
        search = client.request("POST", "/api/ops/index_status", repo_args(args)).get("search", {})
    except CliError:
        return {}
    return {
        "vector_backend": search.get("vector_backend", ""),
        "vectors": int(search.get("vectors", 0)),
        "embed_backlog": int(search.get("embed_backlog", 0)),
    }


def backfill_note(state: dict[str, Any]) -> str:
    if state.get("vector_backend") == "none":
        return "this server has no vector index (keyword-only); use --mode keyword"
    if state.get("embed_backlog"):
        total = state["vectors"] + state["embed_backlog"]
        return (
            f"vectors are still being filled ({state['vectors']} of {total} chunks embedded); "
            "vector results are incomplete until the backfill ends (see `reporecall status`)"
        )
    return "some signals were unavailable; results may be incomplete"


def cmd_search(args: argparse.Namespace) -> int:
    client = client_of(args)
    reply = client.request(
        "POST",
        "/api/search",
        {
            "query": args.query,
            "repo": args.repo or "",
            "cwd": os.getcwd(),
            "limit": args.limit,
            "mode": args.mode,
        },
    )
    hits = reply.get("hits", [])
    partial_vectors = bool(reply.get("partial")) and args.mode in ("vector", "hybrid")
    state = vector_backfill(client, args) if partial_vectors else {}
    if args.json:
        print_json({**reply, **({"vectors": state} if state else {})})
    else:
        for hit in hits:
            chunk = hit["chunk"]
            print(
                f"{hit['score']:.3f}  {chunk['path']}:{chunk.get('start_line', 0)}-{chunk.get('end_line', 0)}  "
                f"{chunk.get('kind', '').removeprefix('CHUNK_KIND_').lower()} {chunk.get('qualified_name', '')}"
            )
        if partial_vectors:
            note(backfill_note(state))
        if not hits:
            note("no results")
    return EXIT_OK if hits else EXIT_NOTHING


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


def cmd_explain(args: argparse.Namespace) -> int:
    reply = client_of(args).request(
        "POST", "/api/context", {"prompt": args.prompt, "budget_tokens": args.budget, **repo_args(args)}
    )
    data = explain_json(reply)
    if args.json:
        print_json(data)
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


def graph_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The operation and body for a `graph` action, or a CliError naming the missing argument."""
    body: dict[str, Any] = repo_args(args)
    action = args.action
    if action != "communities" and not args.target.strip():
        what = "a path" if action in ("imports", "importers") else "a symbol name"
        raise CliError(f"graph {action}: give {what} (reporecall graph {action} TARGET)")
    if action == "symbol":
        return "find_symbol", body | {"name": args.target}
    if action in ("imports", "importers"):
        return action, body | {"path": args.target}
    if action == "communities":
        return "communities", body
    if action == "call_path":
        if not args.to.strip():
            raise CliError(
                "graph call_path: give the second symbol with --to (reporecall graph call_path A --to B)"
            )
        return "call_path", body | {"source": args.target, "target": args.to}
    if action == "call_tree":
        return "call_tree", body | {"symbol": args.target, "up": args.depth, "down": args.depth}
    return action, body | {"symbol": args.target, "depth": args.depth}


def graph_lines(reply: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for key in ("seeds", "symbols", "path"):
        for s in reply.get(key, []):
            lines.append(
                f"{key[:-1] if key != 'path' else 'step'}: {s.get('qualified_name')}  "
                f"{s.get('path')}:{s.get('start_line', 0)}"
            )
    if "seed" in reply:
        lines.append(f"seed: {reply['seed'].get('qualified_name')}  {reply['seed'].get('path')}")
    for node in reply.get("nodes", []):
        s = node["symbol"]
        lines.append(
            f"  {node.get('depth', 0):>+3}  {s.get('qualified_name')}  {s.get('path')}:{s.get('start_line', 0)}"
        )
    for imp in reply.get("imports", []):
        lines.append(
            f"  {imp.get('path')} → {imp.get('resolved_path') or imp.get('target')}"
            + ("  (external)" if imp.get("external") else "")
        )
    for c in reply.get("communities", []):
        lines.append(
            f"  [{c.get('size', 0):>4}] {c.get('label')}  {', '.join(c.get('dominant_paths', [])[:3])}"
        )
    return lines


def graph_found(action: str, reply: dict[str, Any]) -> bool:
    if action == "call_path":
        return bool(reply.get("path"))
    if action in ("callers", "callees", "call_tree"):
        return bool(reply.get("nodes"))
    return any(reply.get(key) for key in ("symbols", "imports", "communities", "nodes", "path"))


def cmd_graph(args: argparse.Namespace) -> int:
    op, body = graph_request(args)
    reply = client_of(args).request("POST", f"/api/ops/{op}", body)
    found = graph_found(args.action, reply)
    if args.json:
        print_json(reply)
    else:
        for line in graph_lines(reply):
            print(line)
        if not found and args.action == "call_path":
            note(f"no call path from {args.target} to {args.to} (within 8 calls)")
        elif not found:
            note("no results")
    return EXIT_OK if found else EXIT_NOTHING

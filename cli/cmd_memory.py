"""`reporecall memory recall|store|forget|list|compact`: team and personal memories.

Human text by default, the gateway's JSON with --json; a recall that finds nothing and forgetting an
unknown id are exit code 1.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli.client import CliError
from cli.common import EXIT_NOTHING, EXIT_OK, client_of, note, print_json, repo_args


def register(commands: Any) -> None:
    memory = commands.add_parser("memory", help="team and personal memories")
    memory.add_argument("action", choices=("recall", "store", "forget", "list", "compact"))
    memory.add_argument("text", nargs="?", default="", help="query (recall), body (store) or id (forget)")
    memory.add_argument(
        "--name", default="", help="title of a stored memory (default: its first 60 characters)"
    )
    memory.add_argument(
        "--class", dest="memory_class", default="fact", choices=("rule", "fact", "episode", "working")
    )
    memory.add_argument("--scope", default="project", choices=("global", "project", "branch", "user"))
    memory.add_argument("--branch", default="")
    memory.add_argument("--repo")
    memory.add_argument("--json", action="store_true")
    memory.set_defaults(handler=cmd_memory)


USAGE = {
    "recall": 'give a query: reporecall memory recall "QUERY"',
    "store": 'give the memory\'s text: reporecall memory store "TEXT" [--name TITLE]',
    "forget": "give the memory's id (from `reporecall memory list`): reporecall memory forget ID",
}


def memory_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The operation and body of an action, or a CliError naming the missing argument and the fix."""
    if args.action in USAGE and not args.text.strip():
        field = {"recall": "query", "store": "text", "forget": "id"}[args.action]
        raise CliError(f"memory {args.action}: the {field} is empty — {USAGE[args.action]}")
    body: dict[str, Any] = repo_args(args)
    if args.action == "recall":
        return "recall", body | {"query": args.text, "branch": args.branch}
    if args.action == "store":
        return "store_memory", body | {
            "name": args.name.strip() or args.text.strip()[:60],
            "body": args.text,
            "memory_class": args.memory_class,
            "scope": args.scope,
            "branch": args.branch,
        }
    if args.action == "forget":
        return "forget_memory", body | {"memory_id": args.text.strip()}
    if args.action == "compact":
        return "compact_memories", body
    return "list_memories", body | {"branch": args.branch}


def _kind(memory: dict[str, Any]) -> str:
    return str(memory.get("memory_class", "")).removeprefix("MEMORY_CLASS_").lower()


def cmd_memory(args: argparse.Namespace) -> int:
    op, body = memory_request(args)
    reply = client_of(args).request("POST", f"/api/ops/{op}", body)
    if args.action == "forget" and not reply.get("forgotten"):
        raise CliError(
            f"memory forget: no memory with id {args.text.strip()!r} that you may forget in this repository "
            "(see `reporecall memory list`)"
        )
    if args.json:
        print_json(reply)
        return EXIT_NOTHING if args.action == "recall" and not reply.get("memories") else EXIT_OK
    if args.action == "store":
        memory = reply.get("memory", {})
        print(f"stored {memory.get('id')}  [{_kind(memory)}] {memory.get('name')}")
        return EXIT_OK
    if args.action == "forget":
        print(f"forgot {args.text.strip()}")
        return EXIT_OK
    if args.action == "compact":
        print(
            f"compacted: {reply.get('superseded', 0)} superseded as duplicates, "
            f"{reply.get('archived', 0)} episodes archived"
        )
        return EXIT_OK
    memories = reply.get("memories", [])
    for entry in memories:
        memory = entry.get("memory", entry)
        print(f"{memory.get('id')}  [{_kind(memory)}] {memory.get('name')}")
    if not memories and args.action == "list":
        note("no memories")
    elif not memories:
        note("no results")
        return EXIT_NOTHING
    return EXIT_OK

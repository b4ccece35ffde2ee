"""`reporecall repos list|remove NAME`: the registered repositories (removing one needs an admin token)."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import quote

from cli.client import CliError
from cli.common import EXIT_NOTHING, EXIT_OK, client_of, note, print_json, repos


def register(commands: Any) -> None:
    group = commands.add_parser("repos", help="list or remove registered repositories")
    actions = group.add_subparsers(title="repos commands", required=True)
    listing = actions.add_parser("list", help="registered repositories: name, path, remote")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=cmd_repos_list)
    remove = actions.add_parser(
        "remove",
        help="remove a repository and everything indexed or remembered for it (admin; the files stay)",
    )
    remove.add_argument("name")
    remove.add_argument("--json", action="store_true")
    remove.set_defaults(handler=cmd_repos_remove)


def cmd_repos_list(args: argparse.Namespace) -> int:
    registered = repos(client_of(args))
    if args.json:
        print_json(registered)
        return EXIT_OK
    for repo in registered:
        origin = repo.get("remote") or "-"
        managed = "  (cloned by the server)" if repo.get("managed") else ""
        print(f"{repo['name']:<30} {repo.get('path', '')}  {origin}{managed}")
    if not registered:
        note("no repositories registered (reporecall index PATH)")
    return EXIT_OK


def cmd_repos_remove(args: argparse.Namespace) -> int:
    name = args.name.strip()
    if not name:
        raise CliError("repos remove: give the repository's name (see `reporecall repos list`)")
    reply = client_of(args).request("DELETE", f"/api/repos/{quote(name, safe='')}")
    if args.json:
        print_json(reply)
    elif reply.get("removed"):
        print(
            f"removed {name} ({reply.get('memories_deleted', 0)} memories deleted; the files are untouched)"
        )
    if not reply.get("removed"):
        if not args.json:
            note(f"no repository named {name!r} (see `reporecall repos list`)")
        return EXIT_NOTHING
    return EXIT_OK

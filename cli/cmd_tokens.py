"""`reporecall token issue|revoke|list`: bearer tokens, managed on the server's own data directory."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.client import CliError


def register(commands: Any) -> None:
    token = commands.add_parser("token", help="issue, revoke or list bearer tokens (run on the server)")
    token_commands = token.add_subparsers(title="token commands", required=True)
    issue = token_commands.add_parser("issue", help="issue a token for a user; prints it once")
    issue.add_argument("user")
    issue.add_argument("--admin", action="store_true", help="may also remove repositories")
    issue.set_defaults(handler=cmd_token_issue)
    revoke = token_commands.add_parser("revoke", help="revoke a token by id, or all of a user's tokens")
    revoke.add_argument("--id", type=int)
    revoke.add_argument("--user")
    revoke.set_defaults(handler=cmd_token_revoke)
    listing = token_commands.add_parser("list", help="list tokens (ids, users, last 4 characters)")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=cmd_token_list)


def _token_store(args: argparse.Namespace) -> Any:
    from gateway.auth import TokenStore, token_store_path
    from kit.settings import ConfigError, ServiceSettings, load_settings

    overrides: dict[str, Any] = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        data_dir = load_settings(ServiceSettings, **overrides).data_dir
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    return TokenStore(token_store_path(data_dir))


def cmd_token_issue(args: argparse.Namespace) -> int:
    try:
        token = _token_store(args).issue(args.user, admin=args.admin)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    print(token)
    print(
        f"reporecall: {'admin ' if args.admin else ''}token for {args.user} — shown once; "
        "store it (e.g. REPORECALL_TOKEN)",
        file=sys.stderr,
    )
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    if (args.id is None) == (args.user is None):
        raise CliError("token revoke: give exactly one of --id or --user")
    count = _token_store(args).revoke(token_id=args.id, user=args.user)
    print(f"revoked {count} token(s)")
    return 0 if count else 1


def cmd_token_list(args: argparse.Namespace) -> int:
    records = _token_store(args).records()
    if args.json:
        print(json.dumps([r.__dict__ for r in records]))
    for r in records if not args.json else []:
        state = "revoked" if r.revoked else "active"
        print(f"{r.id:>4}  {r.user:<20} …{r.hint}  {state}{'  admin' if r.admin else ''}")
    return 0

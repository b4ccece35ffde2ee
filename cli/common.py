"""Helpers every command module shares: the gateway client of the parsed options, output, repo lookup."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient

# Exit codes a script can rely on: 0 found / done, 1 error or nothing found (like grep), 2 usage.
EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


def client_of(args: argparse.Namespace) -> GatewayClient:
    return GatewayClient.discover(args.url, args.token, args.data_dir)


def repo_args(args: argparse.Namespace) -> dict[str, str]:
    return {"repo": args.repo or "", "cwd": os.getcwd()}


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def note(text: str) -> None:
    """A line for the person at the terminal, kept off stdout so pipes and --json stay clean."""
    print(f"reporecall: {text}", file=sys.stderr)


def repos(client: GatewayClient) -> list[dict[str, Any]]:
    return list(client.request("GET", "/api/repos").get("repos", []))


def repo_containing(registered: list[dict[str, Any]], directory: Path) -> dict[str, Any] | None:
    """The registered repo whose tree holds `directory` (the innermost when trees nest), or None."""
    matches = [
        r
        for r in registered
        if r.get("path") and (directory == Path(r["path"]) or Path(r["path"]) in directory.parents)
    ]
    return max(matches, key=lambda r: len(r["path"])) if matches else None


def repo_for_cwd(client: GatewayClient) -> str:
    """The registered repo containing the current directory, or "" (tools then need a repo argument)."""
    try:
        found = repo_containing(repos(client), Path.cwd().resolve())
    except CliError:
        return ""
    return str(found["name"]) if found else ""

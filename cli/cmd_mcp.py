"""`reporecall mcp`: the MCP tools over stdio, bridged to the gateway's /mcp."""

from __future__ import annotations

import argparse
from typing import Any

from cli.common import client_of, repo_for_cwd


def register(commands: Any) -> None:
    mcp = commands.add_parser("mcp", help="serve the MCP tools over stdio (bridged to the gateway)")
    mcp.add_argument("--repo", help="repository name (default: the one containing the current directory)")
    mcp.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from cli.mcp_bridge import run_bridge

    client = client_of(args)
    repo = args.repo or repo_for_cwd(client)
    run_bridge(client.url, client.token, repo)
    return 0

"""`reporecall init`: write the Claude Code hooks (.claude/settings.json) and MCP server (.mcp.json)."""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from cli.client import CliError, GatewayClient
from kit.remotes import normalise_remote


def add_init_command(commands: Any, client_of: Any) -> None:
    init = commands.add_parser("init", help="write .claude/settings.json hooks and .mcp.json for this repo")
    init.add_argument("--dir", default=".", help="repository directory (default: the current one)")
    init.add_argument("--server", help="team server URL (default: the local suite's gateway)")
    init.add_argument("--repo", help="repository name on the server (default: the registered repo here)")
    init.add_argument("--json", action="store_true")
    init.set_defaults(handler=lambda a: cmd_init(a, _optional_client(a, client_of)))


def _optional_client(args: argparse.Namespace, client_of: Any) -> GatewayClient | None:
    if args.server and not getattr(args, "url", None):
        args.url = args.server  # a teammate's init asks the team server (token from $REPORECALL_TOKEN)
    try:
        return client_of(args)  # type: ignore[no-any-return]
    except CliError:
        if args.server:
            return None
        raise


def _print(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


# --- init ----------------------------------------------------------------------------------------------


def claude_settings(server: str, repo: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hook entries and MCP server entry RepoRecall needs (token from $REPORECALL_TOKEN)."""
    server = server.rstrip("/")
    prompt_hook: dict[str, Any]
    if is_loopback(server):
        # Loopback: Claude Code calls the http hook itself (no process to start: the fastest form).
        prompt_hook = {
            "type": "http",
            "url": f"{server}/hooks/prompt-context",
            "headers": {"Authorization": "Bearer $REPORECALL_TOKEN", "X-Reporecall-Repo": repo},
            "allowedEnvVars": ["REPORECALL_TOKEN"],
            "timeout": 5,
        }
    else:
        # Claude Code refuses http hooks to hosts that resolve to private or link-local addresses (where team
        # servers live), so a team server gets a command hook: curl, failing open like SessionStart's.
        prompt_hook = {"type": "command", "command": _curl_hook(server, repo, "prompt-context"), "timeout": 5}
    # SessionStart allows only command hooks: curl, failing open (exit 0, valid output) when the server is down.
    session_hook = {"type": "command", "command": _curl_hook(server, repo, "session-start"), "timeout": 5}
    # PreToolUse for Grep/Glob/Read: a note when the call asks for code already injected. A dictionary lookup
    # on the server, so a short timeout: a slow or absent server never holds a tool call for long.
    tool_hook: dict[str, Any]
    if is_loopback(server):
        tool_hook = {**prompt_hook, "url": f"{server}/hooks/pre-tool-use", "timeout": 2}
    else:
        tool_hook = {
            "type": "command",
            "command": _curl_hook(server, repo, "pre-tool-use", max_time=1),
            "timeout": 2,
        }
    hooks = {
        "UserPromptSubmit": [{"hooks": [prompt_hook]}],
        "SessionStart": [{"hooks": [session_hook]}],
        "PreToolUse": [{"matcher": "Grep|Glob|Read", "hooks": [tool_hook]}],
    }
    mcp = {
        "type": "http",
        # Claude Code expands ${VAR:-default} in .mcp.json: a teammate's REPORECALL_URL wins over init's server.
        "url": f"${{REPORECALL_URL:-{server}}}/mcp",
        "headers": {"Authorization": "Bearer ${REPORECALL_TOKEN}", "X-Reporecall-Repo": repo},
    }
    return hooks, mcp


def is_loopback(server: str) -> bool:
    """Whether the server's host is loopback (the only non-public host Claude Code's http hooks may reach)."""
    host = (urlsplit(server).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _curl_hook(server: str, repo: str, hook: str, max_time: int = 3) -> str:
    """A fail-open curl one-liner: the hook's stdin JSON in, the gateway's reply out, `{}` on any failure.

    The URL is `$REPORECALL_URL` when set in Claude Code's environment, else the server given to init; the
    token always comes from `$REPORECALL_TOKEN`. curl's --max-time bounds it below the hook's timeout.
    """
    return (
        f"out=$(curl -sS --fail --max-time {max_time} -X POST -H 'Content-Type: application/json' "
        f"-H \"Authorization: Bearer $REPORECALL_TOKEN\" -H 'X-Reporecall-Repo: {repo}' "
        f'--data-binary @- "${{REPORECALL_URL:-{server}}}/hooks/{hook}" 2>/dev/null) '
        f"&& printf '%s' \"$out\" || printf '{{}}'"
    )


def origin_url(root: Path) -> str:
    """The checkout's `origin` URL (else its first remote's), "" when it has none or git is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "remote", "-v"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    remotes: dict[str, str] = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            remotes.setdefault(parts[0], parts[1])
    return remotes.get("origin") or next(iter(remotes.values()), "")


def repo_by_remote(client: GatewayClient, root: Path) -> str:
    """The server's repo registered with this checkout's normalised git remote (a teammate's checkout at any
    path), "" when there is none or more than one."""
    url = origin_url(root)
    if not normalise_remote(url):
        return ""
    found = client.request("GET", "/api/repos?" + urlencode({"remote": url})).get("repos", [])
    return str(found[0]["name"]) if len(found) == 1 else ""


def _check_shell_safe(server: str, repo: str) -> None:
    """The server and repo go into shell one-liners: refuse what could break out of their quotes."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname or re.search(r"[\s\"'`$\\]", server):
        raise CliError(f"init: --server {server!r} is not a plain http(s) URL — give e.g. https://host:7878")
    if re.search(r"[\s\"'`$\\]", repo):
        raise CliError(
            f"init: repository name {repo!r} has quotes, spaces or $ — give --repo with a plain name"
        )


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
    return any(f"/hooks/{name}" in text for name in ("prompt-context", "session-start", "pre-tool-use"))


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
    if not repo and client is not None:
        repo = repo_by_remote(client, root)
    if not repo:
        raise CliError(
            f"init: {root} is not a registered repository (by path, nor by its git remote) — run "
            f"`reporecall index {root}` or give --repo"
        )
    _check_shell_safe(server, repo)
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
        form = "http hook (loopback)" if is_loopback(server) else "curl command hook (team server)"
        print(
            f"wrote {settings_path}: UserPromptSubmit ({form}), SessionStart and PreToolUse "
            f"(Grep|Glob|Read) hooks for repo {repo!r}"
        )
        print(f"wrote {mcp_path}: MCP server 'reporecall' at {server}/mcp")
        print("next:")
        print(
            "  1. token: export REPORECALL_TOKEN=… where Claude Code runs (a local suite's token is in its "
            "run.json; on a team server an admin issues one: `reporecall token issue USER`)"
        )
        print("     optional: export REPORECALL_URL=… to point the hooks and MCP at another server")
        print(
            "  2. approve the project MCP server: Claude Code asks on first start in this folder "
            '(or set "enableAllProjectMcpServers": true in .claude/settings.local.json)'
        )
        print(
            '  3. allow its tools without a prompt: add "mcp__reporecall" to "permissions": {"allow": [...]} '
            "in .claude/settings.json"
        )
        print("  4. check: `reporecall doctor` here, then `claude mcp list` shows reporecall connected")
    return 0

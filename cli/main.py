"""reporecall — command line for the RepoRecall suite."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        raise SystemExit(2)
    try:
        code = args.handler(args)
    except CliError as exc:
        print(f"reporecall: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(code or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reporecall", description=__doc__)
    parser.add_argument("--url", help="gateway URL (default: REPORECALL_URL or the local run file)")
    parser.add_argument("--token", help="bearer token (default: REPORECALL_TOKEN or the local run file)")
    parser.add_argument("--data-dir", type=Path, help="data directory of a local suite")
    commands = parser.add_subparsers(title="commands")

    up = commands.add_parser("up", help="run the whole suite locally on embedded stores")
    up.add_argument("--base-port", type=int, default=7870, help="first of the ports used (0: any free ports)")
    up.add_argument("--index", metavar="PATH", help="register and index this repository once the suite is up")
    up.add_argument("--name", help="name for the indexed repository")
    up.set_defaults(handler=cmd_up)

    status = commands.add_parser("status", help="health of every process")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_status)

    index = commands.add_parser("index", help="register and index a repository")
    index.add_argument(
        "path", help="repository directory, or a git URL for the server to clone and keep pulled"
    )
    index.add_argument("--name", help="register under this name (default: git remote or directory name)")
    index.add_argument("--full", action="store_true", help="re-send every file, changed or not")
    index.add_argument("--json", action="store_true")
    index.set_defaults(handler=cmd_index)

    search = commands.add_parser("search", help="search the code of a repository")
    search.add_argument("query")
    search.add_argument("--repo", help="repository name (default: the one containing the current directory)")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--mode", choices=("hybrid", "keyword", "vector"), default="hybrid")
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=cmd_search)
    from cli.commands import add_commands

    add_commands(commands, _client)

    mcp = commands.add_parser("mcp", help="serve the MCP tools over stdio (bridged to the gateway)")
    mcp.add_argument("--repo", help="repository name (default: the one containing the current directory)")
    mcp.set_defaults(handler=cmd_mcp)

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
    return parser


def cmd_mcp(args: argparse.Namespace) -> int:
    from cli.mcp_bridge import run_bridge

    client = _client(args)
    repo = args.repo or _repo_for_cwd(client)
    run_bridge(client.url, client.token, repo)
    return 0


def _repo_for_cwd(client: GatewayClient) -> str:
    """The registered repo containing the current directory, or "" (tools then need a repo argument)."""
    try:
        repos = client.request("GET", "/api/repos").get("repos", [])
    except CliError:
        return ""
    cwd = Path.cwd().resolve()
    matches = [r for r in repos if cwd == Path(r["path"]) or Path(r["path"]) in cwd.parents]
    return max(matches, key=lambda r: len(r["path"]))["name"] if matches else ""


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


def _client(args: argparse.Namespace) -> GatewayClient:
    return GatewayClient.discover(args.url, args.token, args.data_dir)


def cmd_up(args: argparse.Namespace) -> int:
    from cli.supervisor import StartupError, Supervisor
    from kit.settings import ConfigError, ServiceSettings, load_settings

    overrides: dict[str, Any] = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        data_dir = load_settings(ServiceSettings, **overrides).data_dir
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    roots = [Path.cwd().resolve(), *([Path(args.index).expanduser().resolve()] if args.index else [])]
    supervisor = Supervisor(data_dir=data_dir, base_port=args.base_port, repo_roots=roots)
    supervisor.prepare()
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()
        supervisor._stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(f"reporecall: starting the suite (data in {data_dir})", flush=True)
    try:
        supervisor.start()
    except StartupError as exc:
        supervisor.stop()
        raise CliError(str(exc)) from None
    print(f"reporecall: gateway listening on {supervisor.gateway_url}", flush=True)
    print(f"reporecall: token {supervisor.token}", flush=True)
    indexer_roots = next(c.env for c in supervisor.children if c.name == "indexer")["REPORECALL_REPO_ROOTS"]
    print(
        f"reporecall: repositories may be registered under {indexer_roots or '(no folder: git URLs only)'}"
        " — widen with REPORECALL_REPO_ROOTS=/dir1,/dir2",
        flush=True,
    )
    print("reporecall: ready — Ctrl-C stops everything", flush=True)
    if args.index:
        client = GatewayClient(supervisor.gateway_url, supervisor.token)
        threading.Thread(target=_index_quietly, args=(client, args.index, args.name), daemon=True).start()
    try:
        supervisor.supervise()
    finally:
        print("reporecall: stopping", flush=True)
        supervisor.stop()
        print("reporecall: stopped", flush=True)
    return 0


def _index_quietly(client: GatewayClient, path: str, name: str | None) -> None:
    try:
        final = run_index(client, path, name, full=False, show_progress=False)
        print(
            f"reporecall: indexed {final.get('repo')}: {final.get('files_sent', 0)} files sent, "
            f"{final.get('chunks', 0)} chunks, {final.get('errors', 0)} errors",
            flush=True,
        )
    except CliError as exc:
        print(f"reporecall: indexing failed: {exc}", flush=True)


def run_index(
    client: GatewayClient, path: str, name: str | None, full: bool, show_progress: bool
) -> dict[str, Any]:
    if re.match(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:", path):
        body = {"git_url": path, "name": name or ""}  # the server clones it and keeps it pulled
    else:
        root = Path(path).expanduser().resolve()
        if not root.is_dir():
            raise CliError(f"{path}: not a directory")
        body = {"path": str(root), "name": name or ""}
    repo = client.request("POST", "/api/repos", body)["repo"]
    final: dict[str, Any] = {}
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            transient=True,
        ) as bar:
            task = bar.add_task(f"indexing {repo['name']}", total=None)
            for final in client.stream("POST", f"/api/repos/{repo['name']}/index", {"full": full}):
                _raise_on_error(final)
                bar.update(
                    task, total=final.get("files_changed") or None, completed=final.get("files_sent", 0)
                )
    else:
        for final in client.stream("POST", f"/api/repos/{repo['name']}/index", {"full": full}):
            _raise_on_error(final)
    return {"repo": repo["name"], **final}


def _raise_on_error(progress: dict[str, Any]) -> None:
    if "error" in progress:
        raise CliError(f"indexing failed: {progress['error']}")


def cmd_index(args: argparse.Namespace) -> int:
    final = run_index(
        _client(args), args.path, args.name, args.full, show_progress=not args.json and sys.stderr.isatty()
    )
    if args.json:
        print(json.dumps(final))
    else:
        print(
            f"indexed {final['repo']}: {final.get('files_scanned', 0)} files scanned, "
            f"{final.get('files_sent', 0)} sent, {final.get('files_deleted', 0)} deleted, "
            f"{final.get('chunks', 0)} chunks, {final.get('errors', 0)} errors"
        )
    return 1 if final.get("errors") else 0


def cmd_search(args: argparse.Namespace) -> int:
    reply = _client(args).request(
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
    if args.json:
        print(json.dumps(reply, indent=2))
        return 0
    for hit in reply.get("hits", []):
        chunk = hit["chunk"]
        print(
            f"{hit['score']:.3f}  {chunk['path']}:{chunk.get('start_line', 0)}-{chunk.get('end_line', 0)}  "
            f"{chunk.get('kind', '').removeprefix('CHUNK_KIND_').lower()} {chunk.get('qualified_name', '')}"
        )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    client = _client(args)
    try:
        reply = client.request("GET", "/api/status")
    except CliError as exc:
        reply = {"gateway": {"status": "DOWN", "detail": str(exc)}, "services": {}}
    if args.json:
        print(json.dumps(reply, indent=2))
    else:
        print(f"gateway   {reply['gateway']['status']:<12} {client.url}")
        for name, info in reply.get("services", {}).items():
            print(f"{name:<9} {info['status']:<12} {info.get('address', '')}")
        for repo, routes in reply.get("savings", {}).items():
            for route, t in sorted(routes.items()):
                print(
                    f"savings   {repo} {route}: {t['replies']} replies, {t['injected']} tokens injected, "
                    f"~{t['spared']} tokens of file reads spared"
                )
    ok = reply["gateway"]["status"] == "SERVING" and all(
        s["status"] == "SERVING" for s in reply.get("services", {}).values()
    )
    return 0 if ok else 1


if __name__ == "__main__":
    main()

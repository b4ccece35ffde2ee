"""`reporecall up` (run the suite locally) and `reporecall status` (health, backfill, savings)."""

from __future__ import annotations

import argparse
import shlex
import signal
import threading
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient, GatewayError
from cli.cmd_index import run_index
from cli.common import client_of, note, print_json, repos

# `status` asks each repo for its backfill (one request each); past this many it says how many it left out.
STATUS_REPOS = 20


def register(commands: Any) -> None:
    up = commands.add_parser("up", help="run the whole suite locally on embedded stores")
    up.add_argument("--base-port", type=int, default=7870, help="first of the ports used (0: any free ports)")
    up.add_argument("--index", metavar="PATH", help="register and index this repository once the suite is up")
    up.add_argument("--name", help="name for the indexed repository")
    up.set_defaults(handler=cmd_up)

    status = commands.add_parser(
        "status",
        help="health of every process and each repo's vector backfill",
        description="Exit code 0 when every process is serving, 1 otherwise (or when the token is refused).",
    )
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_status)


def _data_dir(args: argparse.Namespace) -> Path:
    from kit.settings import ConfigError, ServiceSettings, load_settings

    overrides: dict[str, Any] = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        return load_settings(ServiceSettings, **overrides).data_dir
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def next_step(data_dir_option: Path | None, indexed: str | None) -> str:
    """What to run after `up`: index a repository (unless one is being indexed), then `init` in it."""
    cli = "reporecall" + (f" --data-dir {shlex.quote(str(data_dir_option))}" if data_dir_option else "")
    if indexed:
        where = shlex.quote(str(Path(indexed).expanduser().resolve())) if "://" not in indexed else "it"
        return f"next: in {where}, run `{cli} init` to connect Claude Code"
    return f"next: `{cli} index PATH`, then in that repository run `{cli} init` to connect Claude Code"


def cmd_up(args: argparse.Namespace) -> int:
    from cli.supervisor import StartupError, Supervisor

    data_dir = _data_dir(args)
    roots = [Path.cwd().resolve(), *([Path(args.index).expanduser().resolve()] if args.index else [])]
    supervisor = Supervisor(data_dir=data_dir, base_port=args.base_port, repo_roots=roots)
    try:
        supervisor.prepare()
    except StartupError as exc:
        raise CliError(str(exc)) from None

    def on_signal(signum: int, frame: object) -> None:
        supervisor.request_stop()

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
    print(f"reporecall: {next_step(args.data_dir, args.index)}", flush=True)
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


def backfill(client: GatewayClient) -> dict[str, dict[str, int]]:
    """Per repo: chunks, vectors and the embedding backlog (first STATUS_REPOS repos)."""
    progress: dict[str, dict[str, int]] = {}
    registered = repos(client)
    if len(registered) > STATUS_REPOS:
        note(f"backfill shown for the first {STATUS_REPOS} of {len(registered)} repositories")
    for repo in registered[:STATUS_REPOS]:
        try:
            search = client.request("POST", "/api/ops/index_status", {"repo": repo["name"]}).get("search", {})
        except CliError:
            continue
        progress[repo["name"]] = {
            "chunks": int(search.get("chunks", 0)),
            "vectors": int(search.get("vectors", 0)),
            "embed_backlog": int(search.get("embed_backlog", 0)),
        }
    return progress


def backfill_line(repo: str, info: dict[str, int]) -> str:
    vectors, backlog = info["vectors"], info["embed_backlog"]
    total = vectors + backlog
    if not backlog:
        return f"vectors   {repo}: complete ({vectors} chunks embedded)"
    return (
        f"vectors   {repo}: {vectors} of {total} chunks embedded ({100 * vectors // max(total, 1)}%), "
        f"{backlog} still being filled"
    )


def cmd_status(args: argparse.Namespace) -> int:
    client = client_of(args)
    try:
        reply = client.request("GET", "/api/status")
    except GatewayError as exc:
        state = "TOKEN REFUSED" if exc.status == 401 else f"ERROR {exc.status}"
        reply = {"gateway": {"status": state, "detail": str(exc)}, "services": {}}
    except CliError as exc:
        reply = {"gateway": {"status": "DOWN", "detail": str(exc)}, "services": {}}
    serving = reply["gateway"]["status"] == "SERVING"
    if serving:
        try:
            reply["vectors"] = backfill(client)
        except CliError:
            reply["vectors"] = {}
    if args.json:
        print_json(reply)
    else:
        print(f"gateway   {reply['gateway']['status']:<12} {client.url}")
        if not serving:
            note(reply["gateway"]["detail"])
        for name, info in reply.get("services", {}).items():
            print(f"{name:<9} {info['status']:<12} {info.get('address', '')}")
        for repo, info in reply.get("vectors", {}).items():
            print(backfill_line(repo, info))
        for repo, routes in reply.get("savings", {}).items():
            for route, t in sorted(routes.items()):
                print(
                    f"savings   {repo} {route}: {t['replies']} replies, {t['injected']} tokens injected, "
                    f"~{t['spared']} tokens of file reads spared"
                )
    ok = serving and all(s["status"] == "SERVING" for s in reply.get("services", {}).values())
    return 0 if ok else 1

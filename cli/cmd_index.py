"""`reporecall index` (register + index once, saying what was skipped) and `reporecall watch`."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from cli.client import CliError, GatewayClient
from cli.common import client_of, note, repos

GIT_URL = re.compile(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")


def register(commands: Any) -> None:
    index = commands.add_parser("index", help="register and index a repository")
    index.add_argument(
        "path", help="repository directory, or a git URL for the server to clone and keep pulled"
    )
    index.add_argument(
        "--name",
        help="register under this name (default: the name the path is already registered under, "
        "else its git remote or directory name)",
    )
    index.add_argument("--full", action="store_true", help="re-send every file, changed or not")
    index.add_argument("--verbose", "-v", action="store_true", help="list the skipped files")
    index.add_argument("--json", action="store_true")
    index.set_defaults(handler=cmd_index)

    watch = commands.add_parser("watch", help="index a repository and re-index files as they are saved")
    watch.add_argument("path")
    watch.add_argument("--name")
    watch.add_argument("--debounce-ms", type=int, default=300)
    watch.set_defaults(handler=cmd_watch)


def local_root(path: str) -> Path:
    """The absolute directory `path` names, or a CliError saying why it cannot be indexed."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise CliError(f"{path}: does not exist — give the directory of a repository")
    if not root.is_dir():
        raise CliError(f"{path}: not a directory — give the repository's folder, not a file in it")
    return root


def registration_name(registered: list[dict[str, Any]], root: Path, name: str | None) -> str:
    """The name to register `root` under: an existing registration of the same tree is reused, never
    duplicated; a different explicit name for an already registered tree is refused."""
    same_tree = [r for r in registered if r.get("path") and Path(r["path"]) == root]
    if not same_tree:
        return name or ""
    existing = str(same_tree[0]["name"])
    if name and name != existing:
        raise CliError(
            f"{root} is already registered as {existing!r}; index it under that name "
            f"(drop --name) or remove it first with `reporecall repos remove {existing}`"
        )
    return existing


def run_index(
    client: GatewayClient, path: str, name: str | None, full: bool, show_progress: bool
) -> dict[str, Any]:
    if GIT_URL.match(path):
        body = {"git_url": path, "name": name or ""}  # the server clones it and keeps it pulled
    else:
        root = local_root(path)
        body = {"path": str(root), "name": registration_name(repos(client), root, name)}
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


def skipped_lines(final: dict[str, Any], verbose: bool) -> list[str]:
    """'skipped N files: binary 2, too large 1' and, verbose, one line per skipped path."""
    reasons: dict[str, int] = {k: int(v) for k, v in final.get("skipped_reasons", {}).items()}
    if not reasons:
        return []
    counts = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
    lines = [f"skipped {sum(reasons.values())} files: {counts}"]
    listed = final.get("skipped_files", [])
    if verbose:
        lines += [f"  skipped {f.get('path', '')} ({f.get('reason', '')})" for f in listed]
        if len(listed) < sum(reasons.values()):
            lines.append(f"  … and {sum(reasons.values()) - len(listed)} more")
    else:
        lines.append("  (--verbose lists them)")
    return lines


def cmd_index(args: argparse.Namespace) -> int:
    final = run_index(
        client_of(args), args.path, args.name, args.full, show_progress=not args.json and sys.stderr.isatty()
    )
    if args.json:
        print(json.dumps(final))
    else:
        print(
            f"indexed {final['repo']}: {final.get('files_scanned', 0)} files scanned, "
            f"{final.get('files_sent', 0)} sent, {final.get('files_deleted', 0)} deleted, "
            f"{final.get('chunks', 0)} chunks, {final.get('errors', 0)} errors"
        )
        for line in skipped_lines(final, args.verbose):
            print(line)
        if final.get("errors"):
            note(final.get("message", ""))
    return 1 if final.get("errors") else 0


def cmd_watch(args: argparse.Namespace) -> int:
    import watchfiles

    client = client_of(args)
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

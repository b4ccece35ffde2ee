"""Reads a working tree's HEAD commit and origin URL from its .git files (no git binary needed).

Handles linked worktrees and submodules (`.git` is a file naming the real git dir), refs stored loose
or in `packed-refs`, and detached HEAD. Falls back to `git rev-parse` for anything unusual.
"""

from __future__ import annotations

import configparser
import ipaddress
import os
import re
import socket
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import structlog

from services.indexer.adapters.fs_tree import read_regular_file
from services.indexer.domain.repos import (
    DEFAULT_PROTOCOLS,
    GIT_URL_REFUSED,
    KNOWN_PROTOCOLS,
    normalise_remote,
)
from services.indexer.ports import GitError, GitUrlRefused

log = structlog.get_logger("indexer.git")

# Caps on git metadata files read for status (HEAD, refs, config); a real one is far smaller, and a
# symlink to /dev/zero or a FIFO in a hostile tree must neither hang nor exhaust memory.
_SMALL_FILE = 64 * 1024
_PACKED_REFS_MAX = 32 * 1024 * 1024

_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


def _read_text(path: Path, limit: int = _SMALL_FILE) -> str | None:
    data = read_regular_file(path, limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    text = _read_text(dot_git)
    if text is not None:
        text = text.strip()
        if text.startswith("gitdir:"):
            target = Path(text.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def _common_dir(gdir: Path) -> Path:
    text = _read_text(gdir / "commondir")
    if text is not None and text.strip():
        target = Path(text.strip())
        return target if target.is_absolute() else (gdir / target).resolve()
    return gdir


def _resolve_ref(gdir: Path, ref: str) -> str:
    for base in (gdir, _common_dir(gdir)):
        value = (_read_text(base / ref) or "").strip()
        if _SHA.match(value):
            return value
        packed = _read_text(base / "packed-refs", _PACKED_REFS_MAX)
        if packed is not None:
            for line in packed.splitlines():
                sha, _, name = line.partition(" ")
                if name.strip() == ref and _SHA.match(sha):
                    return sha
    return ""


def read_head(root: Path) -> str:
    """The commit HEAD points at, "" outside git or on an unborn branch."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    try:
        head = (_read_text(gdir / "HEAD") or "").strip()
        if _SHA.match(head):
            return head
        if head.startswith("ref:"):
            found = _resolve_ref(gdir, head.removeprefix("ref:").strip())
            if found:
                return found
            # The reftable format keeps refs in binary tables: let git read them.
            return _git_rev_parse(root) if (_common_dir(gdir) / "reftable").is_dir() else ""
    except OSError:
        pass
    return _git_rev_parse(root)


def read_branch(root: Path) -> str:
    """The branch HEAD names ("main"), "" when detached or outside git."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    head = (_read_text(gdir / "HEAD") or "").strip()
    return head.removeprefix("ref:").strip().removeprefix("refs/heads/") if head.startswith("ref:") else ""


def read_origin_url(root: Path) -> str:
    """The URL of remote "origin" (else the first remote) as configured, "" when none."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    parser = configparser.RawConfigParser(strict=False)
    text = _read_text(_common_dir(gdir) / "config", 1024 * 1024)
    if text is None:
        return ""
    try:
        parser.read_string(text)
    except configparser.Error:
        return ""
    remotes = [s for s in parser.sections() if s.startswith('remote "')]
    remotes.sort(key=lambda s: s != 'remote "origin"')
    for section in remotes:
        url = parser.get(section, "url", fallback="").strip()
        if url:
            return url
    return ""


def _git_rev_parse(root: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    value = done.stdout.strip()
    return value if _SHA.match(value) else ""


@dataclass(frozen=True, slots=True)
class GitTarget:
    """Where a git URL points: the transport git would use, and the host and port it connects to."""

    protocol: str  # "https", "ssh", "http", "git" or "file"
    host: str  # "" for file://
    port: int


_DEFAULT_PORTS = {"https": 443, "http": 80, "ssh": 22, "git": 9418, "file": 0}
# scp-like syntax: user@host:path (git reads it as ssh when no "/" comes before the first ":").
_SCP = re.compile(
    r"^(?P<user>[A-Za-z0-9._-]+)@(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(?P<path>[^/].*|/.*)$"
)


def parse_git_url(url: str) -> GitTarget | None:
    """The target of an https://, ssh://, http://, git://, file:// or user@host:path URL; None otherwise
    (options such as "-u…", transport helpers such as "ext::…", local paths, control characters)."""
    if not url or url.startswith("-") or any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return None
    if "::" in url.split("/", 1)[0]:  # <transport>::<address> runs a remote helper
        return None
    if "://" in url:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return None
        protocol = parts.scheme.lower()
        if protocol not in KNOWN_PROTOCOLS:
            return None
        host = (parts.hostname or "").lower()
        if protocol != "file" and (not host or not parts.path.strip("/")):
            return None
        return GitTarget(protocol, host, port or _DEFAULT_PORTS[protocol])
    match = _SCP.match(url)
    if match is None:
        return None
    return GitTarget("ssh", match["host"].strip("[]").lower(), 22)


Resolver = Callable[[str, int], Iterable[str]]


def resolve_host(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (raises OSError when it does not resolve)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def is_public_address(address: str) -> bool:
    """False for loopback, link-local, private, shared (100.64/10), multicast, reserved, unspecified."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_git_url(
    url: str,
    *,
    protocols: frozenset[str] = DEFAULT_PROTOCOLS,
    allow_private_hosts: bool = False,
    resolve: Resolver = resolve_host,
) -> GitTarget:
    """The target of `url` when policy allows cloning it; raises GitUrlRefused (detail for the log).

    A host that does not resolve here is left to git (it fails the same way, or an admin's `insteadOf`
    rewrites it); a host that resolves to any non-public address is refused unless private hosts are
    allowed. git itself is also held to `protocols` (see `git_environment`), redirects included.
    """
    target = parse_git_url(url)
    if target is None:
        raise GitUrlRefused("not an https://, ssh://, http://, git://, file:// or user@host:path URL")
    if target.protocol not in protocols:
        raise GitUrlRefused(f"protocol {target.protocol} is not allowed (REPORECALL_GIT_ALLOW_PROTOCOLS)")
    if target.protocol == "file" or allow_private_hosts:
        return target
    try:
        addresses = list(resolve(target.host, target.port))
    except (OSError, UnicodeError) as exc:
        log.info("git.host_unresolved", host=target.host, error=str(exc))
        return target
    private = [a for a in addresses if not is_public_address(a)]
    if private:
        raise GitUrlRefused(
            f"host {target.host} resolves to non-public address(es) {', '.join(private)} "
            "(REPORECALL_GIT_ALLOW_PRIVATE_HOSTS)"
        )
    return target


def git_environment(protocols: Iterable[str]) -> dict[str, str]:
    """Environment for every git run: no prompts, and only the allowed transports (GIT_ALLOW_PROTOCOL
    overrides any protocol.* config and also applies to redirects and to URLs rewritten by insteadOf)."""
    allowed = ":".join(sorted(p for p in protocols if p in KNOWN_PROTOCOLS)) or "https"
    return {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "SSH_ASKPASS": "/bin/false",
        "LC_ALL": "C",
        "GIT_ALLOW_PROTOCOL": allowed,
        "GIT_PROTOCOL_FROM_USER": "0",
    }


# Every clone/pull: no redirects (an https host must not bounce git to an internal address), and
# ssh never asks questions.
_GIT_CONFIG = ("-c", "http.followRedirects=false", "-c", "core.askPass=/bin/false")


def _git(args: list[str], protocols: Iterable[str], cwd: Path | None = None, timeout: float = 600) -> str:
    try:
        done = subprocess.run(
            ["git", *_GIT_CONFIG, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={
                **os.environ,
                **git_environment(protocols),
                "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh") + " -o BatchMode=yes",
            },
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done.stdout


def clone(url: str, dest: Path, protocols: Iterable[str] = DEFAULT_PROTOCOLS) -> None:
    """Clone `url` into `dest` (which must not exist); a failed clone leaves nothing behind."""
    import shutil

    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        _git(["clone", "--quiet", "--no-recurse-submodules", "--", url, str(partial)], protocols)
        partial.rename(dest)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def pull(root: Path, protocols: Iterable[str] = DEFAULT_PROTOCOLS) -> None:
    """Fast-forward the checked-out branch from its upstream."""
    _git(["pull", "--quiet", "--ff-only", "--no-recurse-submodules"], protocols, cwd=root)


class GitCli:
    """The `GitRepos` port: git (held to the allowed transports) for clones and pulls, the .git files for
    HEAD, branch and origin; `check_url` applies the URL policy (protocols, private hosts)."""

    def __init__(
        self,
        protocols: frozenset[str] = DEFAULT_PROTOCOLS,
        *,
        allow_private_hosts: bool = False,
        resolve: Resolver = resolve_host,
    ) -> None:
        self.protocols = protocols
        self.allow_private_hosts = allow_private_hosts
        self._resolve = resolve

    def check_url(self, url: str) -> None:
        check_git_url(
            url, protocols=self.protocols, allow_private_hosts=self.allow_private_hosts, resolve=self._resolve
        )

    def clone_or_pull(self, url: str, remote: str, dest: Path) -> None:
        """Reuse a clone of the same remote; a leftover clone of another one is replaced."""
        import shutil

        if dest.is_dir() and normalise_remote(read_origin_url(dest)) == remote and remote:
            pull(dest, self.protocols)
            return
        if dest.exists():
            shutil.rmtree(dest)
        clone(url, dest, self.protocols)

    def pull(self, root: Path) -> None:
        pull(root, self.protocols)

    def origin_url(self, root: Path) -> str:
        return read_origin_url(root)

    def head(self, root: Path) -> str:
        return read_head(root)

    def branch(self, root: Path) -> str:
        return read_branch(root)


__all__ = [
    "DEFAULT_PROTOCOLS",
    "GIT_URL_REFUSED",
    "KNOWN_PROTOCOLS",
    "GitCli",
    "GitError",
    "GitUrlRefused",
    "check_git_url",
    "clone",
    "pull",
    "read_branch",
    "read_head",
    "read_origin_url",
    "resolve_host",
]

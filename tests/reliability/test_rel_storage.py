"""Disk full and read-only data directories, on real filesystems (needs root: mount, loop devices).

- Disk full: the data dir is a 64 MB tmpfs; once the shop fixture is indexed a filler file takes every free
  byte (ENOSPC for real, not a mock).
- Read-only: the data dir is a small ext4 image on a loop device mounted `errors=remount-ro`; writing to
  /sys/fs/ext4/<dev>/trigger_fs_error makes the kernel remount it read-only under the running suite, the way
  a disk error does in production (a bind mount cannot be remounted read-only while files are open for
  writing, and chmod does not stop root).

Logs and up.log are symlinked to the real disk, as a deployment sends them to stdout/journald. In both cases:
indexing stops with a clear error, the manifest never claims a file the stores do not hold, reads keep being
served, nothing stored earlier is damaged, and once space/writability is back a re-index converges.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reporecall.indexer.v1 import indexer_pb2
from tests.reliability.conftest import SPINE
from tests.reliability.rel_support import (
    HOOK,
    holdings,
    hook_text,
    index,
    make_chain_repo,
    prompt_payload,
    restarts,
    sqlite_integrity,
    stubs,
)
from tests.suite import Suite, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
CODE = ("search_files", "search_chunks", "graph_symbols", "graph_edges", "graph_imports")


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def _mountable(kind: str, tmp: Path) -> str:
    """'' when this machine lets us mount `kind` here, else why not."""
    if os.geteuid() != 0:
        return "needs root to mount filesystems"
    probe = tmp / f"probe-{kind}"
    probe.mkdir()
    if kind == "tmpfs":
        done = _run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe))
    else:
        image = tmp / "probe.img"
        _run("truncate", "-s", "8M", str(image))
        made = _run("mkfs.ext4", "-q", "-F", str(image))
        if made.returncode:
            return f"mkfs.ext4 unavailable: {made.stderr.strip()}"
        done = _run("mount", "-o", "loop", str(image), str(probe))
    if done.returncode:
        return f"cannot mount {kind}: {done.stderr.strip()}"
    _run("umount", str(probe))
    return ""


def _prepare_data_dir(data_dir: Path, outside: Path) -> None:
    """Logs live on the real disk (as stdout/journald would in a deployment), the stores on the test fs."""
    (outside / "logs").mkdir(parents=True, exist_ok=True)
    (outside / "up.log").touch()
    os.symlink(outside / "logs", data_dir / "logs")
    os.symlink(outside / "up.log", data_dir / "up.log")


@contextlib.contextmanager
def mounted(kind: str, base: Path, size_mb: int = 64) -> Iterator[tuple[Path, str]]:
    """(mount point, loop device name or '') of a fresh filesystem; unmounted afterwards."""
    reason = _mountable(kind, base)
    if reason:
        pytest.skip(reason)
    point = base / f"{kind}-data"
    point.mkdir()
    device = ""
    if kind == "tmpfs":
        done = _run("mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(point))
    else:
        image = base / "data.img"
        _run("truncate", "-s", f"{size_mb}M", str(image))
        _run("mkfs.ext4", "-q", "-F", "-m", "0", str(image))
        done = _run("mount", "-o", "loop,errors=remount-ro", str(image), str(point))
        device = _run("findmnt", "-n", "-o", "SOURCE", str(point)).stdout.strip()
    assert done.returncode == 0, done.stderr
    try:
        yield point, os.path.basename(device)
    finally:
        if _run("umount", str(point)).returncode:
            _run("umount", "-l", str(point))


def fill_disk(directory: Path) -> int:
    """Write a filler file until the filesystem refuses another byte; return its size."""
    written = 0
    with open(directory / "filler.bin", "wb", buffering=0) as filler:
        for size in (1 << 20, 1 << 12, 1):
            block = b"\0" * size
            while True:
                try:
                    filler.write(block)
                except OSError:
                    break
                written += size
    return written


def _writable(directory: Path) -> bool:
    try:
        (directory / "probe").write_text("x")
    except OSError:
        return False
    (directory / "probe").unlink()
    return True


def index_over_http(suite: Suite, name: str) -> list[dict[str, Any]]:
    with httpx.stream(
        "POST", f"{suite.url}/api/repos/{name}/index", json={}, headers=suite.headers(), timeout=180
    ) as reply:
        assert reply.status_code == 200
        return [json.loads(line) for line in reply.iter_lines() if line.strip()]


def reads_are_served(suite: Suite) -> None:
    """The hook, search and the graph still answer for shop, with its code."""
    text = hook_text(suite.post(HOOK, prompt_payload("how is the bulk discount applied", SPINE)))
    assert "apply_bulk_discount" in text, text
    found = suite.post("/api/search", {"repo": "shop", "query": "VAT rate for a country"})
    assert found.status_code == 200 and found.json()["hits"], found.text
    callers = suite.post("/api/ops/callers", {"repo": "shop", "symbol": "order_total"})
    assert [n["symbol"]["qualified_name"] for n in callers.json()["nodes"]] == ["checkout_cart"], callers.text


def manifest_status(suite: Suite, repo: str) -> Any:
    with stubs(suite) as s:
        return s.indexer.RepoStatus(indexer_pb2.RepoStatusRequest(repo=repo), timeout=10)


def clear_error(lines: list[dict[str, Any]]) -> str:
    """The error a user sees at the end of the run: a failed run must say so, and why."""
    final = lines[-1] if lines else {}
    text = json.dumps(lines[-3:])
    assert final.get("error") or final.get("errors", 0) > 0, text
    return text


NO_SPACE = ("disk is full", "no space left", "database or disk is full", "enospc")
READ_ONLY = ("read-only", "readonly", "erofs")


def test_a_full_disk_stops_indexing_cleanly_and_reads_keep_working(tmp_path: Path) -> None:
    more_src = make_chain_repo(tmp_path / "more", 80)
    with mounted("tmpfs", tmp_path) as (data_dir, _):
        _prepare_data_dir(data_dir, tmp_path / "outside")
        suite = Suite.start(data_dir)
        try:
            index(suite, SPINE, "shop")
            assert suite.post("/api/repos", {"name": "more", "path": str(more_src)}).status_code == 200
            shop_before = holdings(suite, "shop")
            started = restarts(suite)
            filled = fill_disk(data_dir)
            assert filled > 0

            lines = index_over_http(suite, "more")
            text = clear_error(lines).lower()
            assert any(reason in text for reason in NO_SPACE), text
            status = manifest_status(suite, "more")
            print(
                f"\ndisk full ({filled >> 20} MiB filler): run ended {lines[-1]}; manifest files={status.files} "
                f"pending={status.pending_files}; more holds {holdings(suite, 'more')}"
            )
            assert status.files <= holdings(suite, "more")["search_files"], (status, holdings(suite, "more"))
            reads_are_served(suite)
            assert holdings(suite, "shop") == shop_before
            assert restarts(suite) == started, f"a service crashed on a full disk: {restarts(suite)}"

            (data_dir / "filler.bin").unlink()
            final = index(suite, more_src, "more")
            assert final.get("errors", 0) == 0, final
            clean = shutil.copytree(more_src, tmp_path / "clean")
            index(suite, clean, "clean")
            wait_for(
                lambda: (
                    {k: holdings(suite, "more")[k] for k in CODE}
                    == {k: holdings(suite, "clean")[k] for k in CODE}
                ),
                30,
                "the re-index to converge",
            )
            reads_are_served(suite)
        finally:
            suite.stop()
        assert set(sqlite_integrity(data_dir).values()) == {"ok"}, sqlite_integrity(data_dir)


def test_a_full_search_volume_fails_the_files_keeps_them_pending_and_converges_later(tmp_path: Path) -> None:
    """Only the search store's volume fills up: the manifest can still write, so this is the case where it
    must not record the files search refused — they stay pending and the next run sends them again."""
    more_src = make_chain_repo(tmp_path / "more", 80)
    data_dir = tmp_path / "data"
    (data_dir / "search").mkdir(parents=True)
    with mounted("tmpfs", tmp_path, size_mb=48) as (volume, _):
        os.rmdir(data_dir / "search")
        os.symlink(volume, data_dir / "search")
        suite = Suite.start(data_dir)
        try:
            index(suite, SPINE, "shop")
            assert suite.post("/api/repos", {"name": "more", "path": str(more_src)}).status_code == 200
            shop_before = holdings(suite, "shop")
            started = restarts(suite)
            fill_disk(volume)

            lines = index_over_http(suite, "more")
            final = lines[-1]
            status = manifest_status(suite, "more")
            held = holdings(suite, "more")
            print(
                f"\nsearch volume full: run ended {final}; manifest files={status.files} "
                f"pending={status.pending_files}; more holds {held}"
            )
            # Search answers RESOURCE_EXHAUSTED ("disk is full"); the indexer retries, then stops the run early
            # (downstream unavailable) instead of failing all 80 files one by one.
            assert final["errors"] >= 1 and final["files_sent"] == 1, final
            assert "UpsertFile" in final["message"] and "disk is full" in final["message"], final
            # Not advanced: only the empty __init__.py (nothing for search to store) is recorded; the 80 files
            # search refused stay pending, so the next run sends them again.
            assert (status.files, status.pending_files) == (1, 80), status
            reads_are_served(suite)
            assert holdings(suite, "shop") == shop_before
            assert restarts(suite) == started, f"a service crashed on a full disk: {restarts(suite)}"

            (volume / "filler.bin").unlink()
            again = index(suite, more_src, "more")
            assert again.get("errors", 0) == 0, again
            clean = shutil.copytree(more_src, tmp_path / "clean")
            index(suite, clean, "clean")
            wait_for(
                lambda: (
                    {k: holdings(suite, "more")[k] for k in CODE}
                    == {k: holdings(suite, "clean")[k] for k in CODE}
                ),
                30,
                "the re-index to converge",
            )
        finally:
            suite.stop()
        checks = {**sqlite_integrity(data_dir), **sqlite_integrity(volume)}
        assert len(checks) >= 5 and set(checks.values()) == {"ok"}, checks


def test_a_data_dir_gone_read_only_stops_indexing_cleanly_and_reads_keep_working(tmp_path: Path) -> None:
    more_src = make_chain_repo(tmp_path / "more", 80)
    copy = tmp_path / "after"
    with mounted("ext4", tmp_path) as (data_dir, device):
        _prepare_data_dir(data_dir, tmp_path / "outside")
        suite = Suite.start(data_dir)
        try:
            index(suite, SPINE, "shop")
            assert suite.post("/api/repos", {"name": "more", "path": str(more_src)}).status_code == 200
            shop_before = holdings(suite, "shop")
            started = restarts(suite)
            Path(f"/sys/fs/ext4/{device}/trigger_fs_error").write_text("reliability test\n")
            wait_for(lambda: not _writable(data_dir), 10, "the kernel to remount the data dir read-only")

            lines = index_over_http(suite, "more")
            text = clear_error(lines).lower()
            assert any(reason in text for reason in READ_ONLY), text
            status = manifest_status(suite, "more")
            print(
                f"\nread-only: run ended {lines[-1]}; manifest files={status.files} pending={status.pending_files}"
            )
            assert status.files == 0 and holdings(suite, "more")["search_files"] == 0, status
            reads_are_served(suite)
            assert holdings(suite, "shop") == shop_before
            assert restarts(suite) == started, f"a service crashed on a read-only disk: {restarts(suite)}"
        finally:
            suite.stop()
        shutil.copytree(data_dir, copy, symlinks=True)
    # What was on the disk when it went read-only is intact: every database checks out, and a suite started
    # on it serves shop exactly as before.
    assert set(sqlite_integrity(copy).values()) == {"ok"}, sqlite_integrity(copy)
    (copy / "logs").unlink()
    (copy / "up.log").unlink()
    again = Suite.start(copy)
    try:
        assert holdings(again, "shop") == shop_before
        reads_are_served(again)
        final = index(again, more_src, "more")
        assert final.get("errors", 0) == 0 and holdings(again, "more")["search_files"] == 80, final
    finally:
        assert again.stop() == 0

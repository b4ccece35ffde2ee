"""Issue 18, indexer side: one test per attack, each against the real IndexerService over gRPC (port 0)
or the real scanner, with in-memory sinks behind the engine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

import grpc
import pytest

from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.indexer.adapters.sqlite_manifest import SqliteManifest
from services.indexer.bootstrap import indexer_engine
from services.indexer.engine import EngineConfig, IndexerEngine
from services.indexer.servicer import IndexerServicer
from services.indexer.tests.indexer_fakes import FakeGraph, FakeSearch, fake_parse, keep_imports, write

ROOT = Path(__file__).resolve().parents[2]


def git(*args: str, cwd: Path) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def fake_dns(table: dict[str, list[str]]) -> Callable[[str, int], Iterable[str]]:
    def resolve(host: str, port: int) -> Iterable[str]:
        if host not in table:
            raise OSError(f"{host}: name does not resolve")
        return table[host]

    return resolve


async def serve(engine: IndexerEngine) -> AsyncIterator[indexer_pb2_grpc.IndexerServiceStub]:
    server = grpc.aio.server()
    indexer_pb2_grpc.add_IndexerServiceServicer_to_server(IndexerServicer(engine), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield indexer_pb2_grpc.IndexerServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(None)
        await engine.close()


def make_engine(tmp_path: Path, **config: object) -> IndexerEngine:
    resolve = config.pop("resolve", fake_dns({}))
    return indexer_engine(
        SqliteManifest(tmp_path / "manifest.db"),
        FakeSearch(),
        FakeGraph(),
        config=EngineConfig(send_attempts=1, progress_interval_seconds=0.01, **config),  # type: ignore[arg-type]
        parse=fake_parse,
        resolve_imports=keep_imports,
        resolve_host=resolve,  # type: ignore[arg-type]
    )


# -- name takeover ---------------------------------------------------------------------------------------


@pytest.fixture
async def team(tmp_path: Path) -> AsyncIterator[tuple[indexer_pb2_grpc.IndexerServiceStub, Path]]:
    roots = tmp_path / "repos"
    write(roots / "shop", "app.py", "def checkout():\n")
    write(roots / "evil", "app.py", "def checkout():\n    call steal\n")
    engine = make_engine(
        tmp_path,
        repo_roots=(roots.resolve(),),
        clone_root=tmp_path / "clones",
        resolve=fake_dns({"git.example.com": ["140.82.112.3"]}),
    )
    async for stub in serve(engine):
        yield stub, roots


async def test_name_takeover_by_path_is_refused_and_the_original_path_kept(team) -> None:
    stub, roots = team
    await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(roots / "shop"), name="shop"))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(roots / "evil"), name="shop"))
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "remove it first" in refused.value.details() and "another name" in refused.value.details()
    [repo] = (await stub.ListRepos(indexer_pb2.ListReposRequest())).repos
    assert (repo.name, repo.path) == ("shop", str((roots / "shop").resolve()))
    # The same name for the same path stays idempotent.
    again = await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(roots / "shop"), name="shop"))
    assert again.repo.path == str((roots / "shop").resolve())


async def test_name_takeover_by_git_url_is_refused_before_anything_is_cloned(team, tmp_path: Path) -> None:
    stub, roots = team
    await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(roots / "shop"), name="shop"))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.RegisterRepo(
            indexer_pb2.RegisterRepoRequest(git_url="https://git.example.com/evil/shop.git", name="shop")
        )
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert not (tmp_path / "clones").exists()
    [repo] = (await stub.ListRepos(indexer_pb2.ListReposRequest())).repos
    assert repo.path == str((roots / "shop").resolve())


# -- paths outside the roots -----------------------------------------------------------------------------


async def test_paths_outside_the_roots_are_refused_symlinks_resolved(tmp_path: Path) -> None:
    roots = tmp_path / "repos"
    roots.mkdir()
    (roots / "etc-link").symlink_to("/etc")
    engine = make_engine(tmp_path, repo_roots=(roots.resolve(),), clone_root=tmp_path / "clones")
    async for stub in serve(engine):
        for path in ("/etc", "/", str(roots / "etc-link"), str(roots / ".." / "..")):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=path, name="x"))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, path
            assert "REPORECALL_REPO_ROOTS" in refused.value.details()
        assert not (await stub.ListRepos(indexer_pb2.ListReposRequest())).repos


async def test_empty_roots_allow_no_working_tree_at_all(tmp_path: Path) -> None:
    write(tmp_path / "proj", "a.py", "def a():\n")
    engine = make_engine(tmp_path, repo_roots=(), clone_root=tmp_path / "clones")
    async for stub in serve(engine):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(tmp_path / "proj")))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "REPORECALL_REPO_ROOTS is empty" in refused.value.details()


async def test_the_service_defaults_refuse_any_working_tree(tmp_path: Path) -> None:
    from services.indexer.bootstrap import engine_config
    from services.indexer.domain.model import InvalidRepoPath
    from services.indexer.settings import IndexerSettings

    write(tmp_path / "etc-like", "passwd.py", "root = 0\n")
    config = engine_config(IndexerSettings(data_dir=tmp_path / "data"))
    engine = indexer_engine(SqliteManifest(tmp_path / "m.db"), FakeSearch(), FakeGraph(), config=config)
    with pytest.raises(InvalidRepoPath, match="REPORECALL_REPO_ROOTS is empty"):
        await engine.register_repo(str(tmp_path / "etc-like"), "etc")
    assert await engine.list_repos() == []
    await engine.close()


# -- git_url ---------------------------------------------------------------------------------------------


async def test_file_and_private_git_urls_get_the_same_refusal_as_an_unreachable_host(tmp_path: Path) -> None:
    local = tmp_path / "secret"
    write(local, "key.py", "TOKEN = 'x'\n")
    git("init", "-q", "-b", "main", cwd=local)
    git("add", ".", cwd=local)
    git("commit", "-q", "-m", "s", cwd=local)
    dns = fake_dns(
        {
            "git.internal.corp": ["10.1.2.3"],
            "metadata.cloud": ["169.254.169.254"],
            "mapped.example": ["::ffff:127.0.0.1"],
            "nowhere.invalid": ["140.82.112.3"],  # public here, but git cannot reach it
        }
    )
    engine = make_engine(tmp_path, clone_root=tmp_path / "clones", resolve=dns)
    urls = [
        f"file://{local}",
        str(local),
        "git://git.internal.corp/x.git",
        "https://git.internal.corp/team/x.git",
        "https://127.0.0.1:7873/x.git",
        "ssh://git@metadata.cloud/x.git",
        "git@mapped.example:team/x.git",
        "ext::sh -c touch% /tmp/pwned",
        "https://nowhere.invalid/team/x.git",  # the unreachable host, for comparison
    ]
    async for stub in serve(engine):
        replies = []
        for url in urls:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(git_url=url))
            replies.append((refused.value.code(), refused.value.details()))
        assert len(set(replies)) == 1, replies
        assert replies[0][0] == grpc.StatusCode.INVALID_ARGUMENT
        assert not (await stub.ListRepos(indexer_pb2.ListReposRequest())).repos
    assert not any((tmp_path / "clones").glob("*/key.py"))


def test_git_itself_refuses_other_protocols_even_through_insteadof(tmp_path: Path, monkeypatch) -> None:
    from services.indexer.adapters.git_repo import GitError, clone

    bare = tmp_path / "shop.git"
    work = tmp_path / "work"
    write(work, "a.py", "def a():\n")
    git("init", "-q", "-b", "main", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "a", cwd=work)
    git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    config = tmp_path / "gitconfig"
    config.write_text(f'[url "file://{bare}"]\n\tinsteadOf = https://git.example.com/shop.git\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    with pytest.raises(GitError, match="transport 'file' not allowed"):
        clone("https://git.example.com/shop.git", tmp_path / "refused")
    assert not (tmp_path / "refused").exists()
    clone("https://git.example.com/shop.git", tmp_path / "allowed", {"https", "ssh", "file"})
    assert (tmp_path / "allowed" / "a.py").is_file()


# -- hostile files: ignore files and git metadata that are /dev/zero or a FIFO ---------------------------

_WALK = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    from services.indexer.adapters.fs_tree import RepoScanner
    from services.indexer.adapters.git_repo import read_branch, read_head, read_origin_url
    from pathlib import Path
    root = Path(sys.argv[1])
    files = sorted(f.path for f in RepoScanner(root).walk())
    read_head(root), read_branch(root), read_origin_url(root)
    print(",".join(files))
    """
)


def _walk_in_child(root: Path, timeout: float) -> tuple[float, str]:
    # A child process with a memory cap: the unfixed scanner would read /dev/zero until it runs out.
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _WALK, str(root)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"walking {root} hung for {timeout:.1f} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return time.monotonic() - started, done.stdout.strip().splitlines()[-1]


@pytest.mark.e2e  # walks in memory-capped child processes
def test_ignore_files_and_git_files_that_are_dev_zero_or_a_fifo_do_not_hang_or_exhaust_memory(
    tmp_path: Path,
) -> None:
    clean, hostile = tmp_path / "clean", tmp_path / "hostile"
    for root in (clean, hostile):
        write(root, "app.py", "def a():\n")
        write(root, "pkg/mod.py", "def b():\n")
        (root / ".git").mkdir()
    baseline, clean_files = _walk_in_child(clean, timeout=120)
    (hostile / ".gitignore").symlink_to("/dev/zero")
    os.mkfifo(hostile / "pkg" / ".reporecallignore")
    (hostile / ".git" / "HEAD").symlink_to("/dev/zero")
    (hostile / ".git" / "config").symlink_to("/dev/zero")
    os.mkfifo(hostile / ".git" / "packed-refs")
    elapsed, hostile_files = _walk_in_child(hostile, timeout=max(20 * baseline, 10 * baseline + 5))
    assert hostile_files == clean_files == "app.py,pkg/mod.py"
    assert elapsed < 10 * baseline


# -- deep trees and odd names ----------------------------------------------------------------------------


async def test_a_1500_deep_tree_and_odd_names_do_not_abort_the_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "top.py", "def top():\n")
    write(root, "pkg/mid.py", "def mid():\n")
    deep = root
    for _ in range(1500):  # os.makedirs recurses once per level
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.py").write_text("def bottom():\n")
    (root / "new\nline.py").write_text("def forged():\n")
    fd = os.open(os.fsencode(root) + b"/bad\xff.py", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"def bad():\n")
    os.close(fd)
    engine = make_engine(tmp_path)
    try:
        await engine.register_repo(str(root), "deep")
        final = await engine.run_index("deep")
    finally:
        await engine.close()
        _remove_deep(root / "d")
    sent = set(engine.search.files)  # type: ignore[attr-defined]
    assert {("deep", "top.py"), ("deep", "pkg/mid.py")} <= sent
    assert ("deep", "/".join(["d"] * 1500) + "/bottom.py") in sent
    assert final.errors == 0 and "2 paths skipped" in final.message
    assert not any("\n" in path or "bad" in path for _, path in sent)


def _remove_deep(top: Path) -> None:
    """Bottom-up without recursion (shutil.rmtree and pytest's clean-up recurse once per level)."""
    paths = [top]
    while (paths[-1] / "d").is_dir():
        paths.append(paths[-1] / "d")
    for folder in reversed(paths):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


# -- the watcher stays inside the repo -------------------------------------------------------------------


async def test_a_repo_with_a_symlink_out_of_the_tree_is_not_watched(tmp_path: Path) -> None:
    from services.indexer.adapters.fs_tree import RepoScanner
    from services.indexer.watch import RepoWatcher

    inside, outside = tmp_path / "repo", tmp_path / "outside"
    write(inside, "a.py", "def a():\n")
    write(outside, "secret.py", "KEY = 1\n")
    (inside / "node_modules").mkdir()
    (inside / "node_modules" / "escape").symlink_to(outside)
    calls: list[object] = []

    async def record(*args: object) -> None:
        calls.append(args)

    watcher = RepoWatcher(index_paths=record, reindex=record, make_scanner=RepoScanner, debounce_ms=10)
    await watcher.watch("repo", inside)
    assert watcher.watched == []
    (inside / "node_modules" / "escape").unlink()
    await watcher.watch("repo", inside)
    assert watcher.watched == ["repo"]
    await watcher.close()

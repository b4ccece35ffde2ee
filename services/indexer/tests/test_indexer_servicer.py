"""IndexerService over a real in-process grpc.aio server on port 0, with in-memory sinks behind the engine."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.indexer.servicer import IndexerServicer
from services.indexer.tests.indexer_fakes import Rig, make_repo, make_rig, touch_later, write


@pytest.fixture
async def client(tmp_path: Path):
    root = tmp_path / "repo"
    make_repo(root, 12, per_dir=4)
    rig = await make_rig(root, tmp_path / "m.db")
    server = grpc.aio.server()
    indexer_pb2_grpc.add_IndexerServiceServicer_to_server(IndexerServicer(rig.engine), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    yield indexer_pb2_grpc.IndexerServiceStub(channel), rig
    await channel.close()
    await server.stop(None)
    await rig.engine.close()


async def test_register_list_and_remove(
    client: tuple[indexer_pb2_grpc.IndexerServiceStub, Rig], tmp_path: Path
):
    stub, rig = client
    other = tmp_path / "other-repo"
    other.mkdir()
    registered = await stub.RegisterRepo(indexer_pb2.RegisterRepoRequest(path=str(other)))
    assert registered.repo.name == "other-repo" and registered.repo.path == str(other.resolve())
    listed = await stub.ListRepos(indexer_pb2.ListReposRequest())
    assert [r.name for r in listed.repos] == ["demo", "other-repo"]
    removed = await stub.RemoveRepo(indexer_pb2.RemoveRepoRequest(repo="other-repo"))
    assert removed.removed is True
    again = await stub.RemoveRepo(indexer_pb2.RemoveRepoRequest(repo="other-repo"))
    assert again.removed is False


async def test_index_repo_streams_progress_until_done(client) -> None:
    stub, rig = client
    responses = [r async for r in stub.IndexRepo(indexer_pb2.IndexRepoRequest(repo="demo"))]
    assert responses[0].phase == indexer_pb2.INDEX_PHASE_SCANNING
    final = responses[-1]
    assert final.phase == indexer_pb2.INDEX_PHASE_DONE
    assert (final.files_scanned, final.files_sent, final.chunks, final.errors) == (12, 12, 24, 0)
    assert len(rig.search.files) == 12


async def test_index_paths_and_status(client) -> None:
    stub, rig = client
    [_ async for _ in stub.IndexRepo(indexer_pb2.IndexRepoRequest(repo="demo"))]
    write(rig.root, "pkg0/mod_1.py", "def renamed(a):\n")
    touch_later(rig.root / "pkg0/mod_1.py")
    status = await stub.RepoStatus(indexer_pb2.RepoStatusRequest(repo="demo"))
    assert (status.files, status.chunks, status.pending_files, status.running) == (12, 24, 0, False)
    assert list(status.dirty_files) == ["pkg0/mod_1.py"]
    assert status.HasField("last_run_started") and status.HasField("last_run_finished")
    assert status.repo.name == "demo"
    result = await stub.IndexPaths(
        indexer_pb2.IndexPathsRequest(repo="demo", paths=["pkg0/mod_1.py", "node_modules/a.js"])
    )
    assert result.files_sent == 1 and list(result.rejected) == ["node_modules/a.js: ignored"]
    status = await stub.RepoStatus(indexer_pb2.RepoStatusRequest(repo="demo"))
    assert list(status.dirty_files) == [] and status.chunks == 23


@pytest.mark.parametrize(
    ("call", "request_message"),
    [
        ("IndexPaths", indexer_pb2.IndexPathsRequest(repo="nope", paths=["a.py"])),
        ("RepoStatus", indexer_pb2.RepoStatusRequest(repo="nope")),
    ],
)
async def test_unknown_repo_is_not_found(client, call: str, request_message) -> None:
    stub, _ = client
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await getattr(stub, call)(request_message)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert "nope" in (info.value.details() or "")


async def test_index_repo_of_unknown_repo_is_not_found(client) -> None:
    stub, _ = client
    with pytest.raises(grpc.aio.AioRpcError) as info:
        [_ async for _ in stub.IndexRepo(indexer_pb2.IndexRepoRequest(repo="nope"))]
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("bad", ["../escape.py", "/etc/passwd"])
async def test_index_paths_outside_the_repo_is_invalid_argument(client, bad: str) -> None:
    stub, rig = client
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.IndexPaths(indexer_pb2.IndexPathsRequest(repo="demo", paths=["pkg0/mod_0.py", bad]))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "outside" in (info.value.details() or "")
    assert rig.search.log.calls == []


@pytest.mark.parametrize(
    ("call", "request_message", "field"),
    [
        ("RegisterRepo", indexer_pb2.RegisterRepoRequest(path="relative/dir"), "absolute"),
        ("RegisterRepo", indexer_pb2.RegisterRepoRequest(path=""), "path"),
        ("RegisterRepo", indexer_pb2.RegisterRepoRequest(path="/definitely/not/here"), "not a directory"),
        ("RepoStatus", indexer_pb2.RepoStatusRequest(repo=""), "repo"),
        ("RemoveRepo", indexer_pb2.RemoveRepoRequest(repo=""), "repo"),
    ],
)
async def test_bad_input_is_invalid_argument(client, call: str, request_message, field: str) -> None:
    stub, _ = client
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await getattr(stub, call)(request_message)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in (info.value.details() or "")


async def test_index_repo_with_a_missing_working_tree_is_failed_precondition(client) -> None:
    stub, rig = client
    rig.root.rename(rig.root.with_name("gone"))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        [_ async for _ in stub.IndexRepo(indexer_pb2.IndexRepoRequest(repo="demo"))]
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "missing" in (info.value.details() or "")

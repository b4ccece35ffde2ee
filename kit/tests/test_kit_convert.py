from kit.convert import (
    call_site_from_pb,
    call_site_to_pb,
    chunk_from_pb,
    chunk_to_pb,
    import_from_pb,
    import_to_pb,
    symbol_from_pb,
    symbol_to_pb,
)
from kit.domain import CallSite, Chunk, ChunkKind, Import


def test_shared_types_survive_a_round_trip_through_protobuf() -> None:
    for kind in ChunkKind:
        chunk = Chunk(
            id="c1",
            repo="r",
            path="a/b.py",
            language="python",
            kind=kind,
            name="f",
            qualified_name="C.f",
            start_line=3,
            end_line=9,
            content="def f(): ñ",
            content_hash="h",
            parent="C",
            signature="def f():",
            doc="Doc.",
            is_test=True,
        )
        assert chunk_from_pb(chunk_to_pb(chunk)) == chunk
        assert symbol_from_pb(symbol_to_pb(chunk.symbol())) == chunk.symbol()
    site = CallSite("c1", "save", 4, "self.repo")
    assert call_site_from_pb(call_site_to_pb(site)) == site
    item = Import("a.py", ".b", "b.py", False, ("x", "y"), 2)
    assert import_from_pb(import_to_pb(item)) == item

"""The pure pieces pulled out of Operations: the file summary reply and repeated-registration matching."""

from __future__ import annotations

from gateway.domain.file_summary import MAX_ENTRIES, file_summary_json
from gateway.repos import matching_registration
from kit.domain import Chunk, ChunkKind, Import


def _chunk(name: str, kind: ChunkKind, start: int, end: int, doc: str = "") -> Chunk:
    return Chunk(
        id=name, repo="shop", path="app/cart.py", language="python", kind=kind, name=name,
        qualified_name=f"cart.{name}", start_line=start, end_line=end, content="", content_hash="",
        signature=f"def {name}()", doc=doc,
    )  # fmt: skip


def test_file_summary_lists_declarations_but_not_the_module_chunk_and_caps_every_list() -> None:
    chunks = [_chunk("cart", ChunkKind.MODULE, 1, 900, doc="Shopping cart.\n\nDetails nobody needs.")]
    chunks += [_chunk(f"f{i}", ChunkKind.FUNCTION, i + 2, i + 3) for i in range(MAX_ENTRIES + 5)]
    imports = [Import(path="app/cart.py", target="app.db", resolved_path="app/db.py")]
    importers = [Import(path=p, target="app.cart") for p in ("b.py", "a.py", "b.py")]

    summary = file_summary_json("app/cart.py", chunks, imports, importers)

    assert summary["purpose"] == "Shopping cart."
    assert summary["lines"] == 900 and summary["language"] == "python"
    assert len(summary["declarations"]) == MAX_ENTRIES
    assert summary["declarations"][0] == {
        "kind": "function", "name": "cart.f0", "lines": "2-3", "signature": "def f0()"
    }  # fmt: skip
    assert summary["imports"] == [{"target": "app.db", "resolved_path": "app/db.py", "external": False}]
    assert summary["imported_by"] == ["a.py", "b.py"]


def test_a_registration_matches_the_listed_repo_by_path_or_managed_remote_and_name() -> None:
    listing = [
        {"name": "shop", "path": "/srv/repos/shop/", "managed": False, "remote": ""},
        {"name": "lib", "path": "/data/lib", "managed": True, "remote": "github.com/acme/lib"},
    ]
    assert matching_registration(listing, "", "/srv/repos/shop", "") == listing[0]
    assert matching_registration(listing, "shop", "/srv/repos/shop", "") == listing[0]
    assert matching_registration(listing, "other", "/srv/repos/shop", "") is None  # name given must agree
    assert matching_registration(listing, "", "/srv/repos/elsewhere", "") is None
    assert matching_registration(listing, "lib", "", "https://github.com/acme/lib.git") == listing[1]
    unmanaged = [{**listing[1], "managed": False}]
    assert matching_registration(unmanaged, "lib", "", "https://github.com/acme/lib.git") is None

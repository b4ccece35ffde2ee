"""Fetching the pinned corpora: registry addresses, unpacking .crate/.tgz/.zip archives, sha256 pinning.
No network: downloads are replaced by local archives."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from bench import corpora
from bench.corpora import Corpus, archive_url, escape_module_path, fetch, load_corpora, sha256_of, unpack


def _tar_gz(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, text in files.items():
            zipped.writestr(name, text)
    return path


def test_go_module_paths_are_case_escaped_for_the_proxy() -> None:
    assert escape_module_path("github.com/go-chi/chi/v5") == "github.com/go-chi/chi/v5"
    assert escape_module_path("github.com/BurntSushi/toml") == "github.com/!burnt!sushi/toml"


def test_archive_urls_of_the_crates_and_goproxy_registries() -> None:
    crate = Corpus("c", "rust", "crates", "toml_edit", "0.22.20", "toml_edit-0.22.20.crate", "0" * 64, "r")
    module = Corpus("g", "go", "goproxy", "github.com/Foo/bar", "v1.2.3", "bar.zip", "0" * 64, "r")
    assert archive_url(crate) == "https://static.crates.io/crates/toml_edit/toml_edit-0.22.20.crate"
    assert archive_url(module) == "https://proxy.golang.org/github.com/!foo/bar/@v/v1.2.3.zip"
    with pytest.raises(ValueError, match="npm"):
        archive_url(Corpus("n", "js", "npm", "x", "1", "x.tgz", "0" * 64, "package"))


def test_unpack_extracts_a_crate_tarball_and_a_module_zip(tmp_path: Path) -> None:
    crate = _tar_gz(tmp_path / "x-1.0.0.crate", {"x-1.0.0/src/lib.rs": "pub fn f() {}\n"})
    module = _zip(tmp_path / "m.zip", {"example.com/m@v1.0.0/m.go": "package m\n"})
    unpack(crate, tmp_path / "crate")
    unpack(module, tmp_path / "module")
    assert (tmp_path / "crate/x-1.0.0/src/lib.rs").read_text() == "pub fn f() {}\n"
    assert (tmp_path / "module/example.com/m@v1.0.0/m.go").read_text() == "package m\n"


def test_unpack_refuses_a_zip_member_outside_the_target(tmp_path: Path) -> None:
    evil = _zip(tmp_path / "evil.zip", {"../escaped.go": "package x\n"})
    with pytest.raises(ValueError, match="outside"):
        unpack(evil, tmp_path / "out")
    assert not (tmp_path / "escaped.go").exists()


def _corpus_from(archive: Path, sha256: str, registry: str, root: str) -> Corpus:
    return Corpus("t", "go", registry, "example.com/m", "v1.0.0", archive.name, sha256, root)


def test_fetch_downloads_verifies_and_unpacks_a_goproxy_zip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "src").mkdir()
    source = _zip(tmp_path / "src" / "m.zip", {"example.com/m@v1.0.0/m.go": "package m\n"})
    corpus = _corpus_from(source, sha256_of(source), "goproxy", "example.com/m@v1.0.0")
    monkeypatch.setattr(corpora, "CORPORA_DIR", tmp_path / "corpora")
    urls: list[str] = []

    def fake_download(c: Corpus, into: Path) -> Path:
        urls.append(archive_url(c))
        target = into / c.archive
        target.write_bytes(source.read_bytes())
        return target

    monkeypatch.setattr(corpora, "_http_download", fake_download)
    path = fetch(corpus, say=lambda _message: None)
    assert urls == ["https://proxy.golang.org/example.com/m/@v/v1.0.0.zip"]
    assert (path / "m.go").read_text() == "package m\n"
    assert fetch(corpus, say=lambda _message: None) == path and len(urls) == 1  # idempotent


def test_fetch_removes_an_archive_whose_sha256_differs_from_the_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "src").mkdir()
    source = _tar_gz(tmp_path / "src" / "x-1.0.0.crate", {"x-1.0.0/src/lib.rs": "pub fn f() {}\n"})
    corpus = Corpus("t", "rust", "crates", "x", "1.0.0", source.name, "0" * 64, "x-1.0.0")
    monkeypatch.setattr(corpora, "CORPORA_DIR", tmp_path / "corpora")

    def tampered_download(c: Corpus, into: Path) -> Path:
        (into / c.archive).write_bytes(source.read_bytes())
        return into / c.archive

    monkeypatch.setattr(corpora, "_http_download", tampered_download)
    with pytest.raises(ValueError, match="sha256"):
        fetch(corpus, say=lambda _message: None)
    assert not (tmp_path / "corpora" / source.name).exists()
    assert not corpus.path.exists()


def test_the_new_corpora_cover_rust_typescript_and_go_from_their_registries() -> None:
    pinned = {c.name: c for c in load_corpora().values()}
    assert (pinned["toml_edit"].registry, pinned["toml_edit"].language) == ("crates", "rust")
    assert (pinned["mobx"].registry, pinned["mobx"].language) == ("npm", "typescript")
    assert (pinned["chi"].registry, pinned["chi"].language) == ("goproxy", "go")

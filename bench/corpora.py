"""Pinned benchmark corpora: fetch with pip/npm (crates and Go modules over HTTPS from their registries),
verify sha256, unpack into bench/corpora/."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CORPORA_DIR = BENCH / "corpora"
SELF = "self"
# crates.io serves crate archives from its CDN (what `https://crates.io/api/v1/crates/<n>/<v>/download`
# redirects to); the Go module proxy serves module zips under the escaped module path.
CRATES_URL = "https://static.crates.io/crates/{package}/{package}-{version}.crate"
GOPROXY_URL = "https://proxy.golang.org/{module}/@v/{version}.zip"


@dataclass(frozen=True)
class Corpus:
    name: str
    language: str
    registry: str  # pypi | npm | crates | goproxy | self
    package: str = ""
    version: str = ""
    archive: str = ""
    sha256: str = ""
    root: str = ""

    @property
    def unpacked(self) -> Path:
        return CORPORA_DIR / f"{self.name}-{self.version}"

    @property
    def path(self) -> Path:
        """The folder that is indexed (this repository's checkout for the self corpus)."""
        return ROOT if self.registry == SELF else self.unpacked / self.root

    def present(self) -> bool:
        return self.registry == SELF or self.path.is_dir()


def load_corpora(path: Path = BENCH / "corpora.yaml") -> dict[str, Corpus]:
    entries = yaml.safe_load(path.read_text())["corpora"]
    corpora = [Corpus(**{k: str(v) for k, v in entry.items()}) for entry in entries]
    return {c.name: c for c in corpora}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def escape_module_path(module: str) -> str:
    """The Go module proxy's case encoding: every upper-case letter becomes `!` + its lower case."""
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in module)


def archive_url(corpus: Corpus) -> str:
    """The HTTPS address of a corpus archive on the registries fetched without a client of their own."""
    if corpus.registry == "crates":
        return CRATES_URL.format(package=corpus.package, version=corpus.version)
    if corpus.registry == "goproxy":
        return GOPROXY_URL.format(module=escape_module_path(corpus.package), version=corpus.version)
    raise ValueError(f"corpus {corpus.name}: registry {corpus.registry!r} is not fetched over plain HTTPS")


def _http_download(corpus: Corpus, into: Path) -> Path:
    archive = into / corpus.archive
    request = urllib.request.Request(archive_url(corpus), headers={"User-Agent": "reporecall-bench"})
    with urllib.request.urlopen(request, timeout=120) as response, archive.open("wb") as out:
        shutil.copyfileobj(response, out)
    return archive


def _download(corpus: Corpus, into: Path) -> Path:
    if corpus.registry in ("crates", "goproxy"):
        return _http_download(corpus, into)
    if corpus.registry == "pypi":
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-q",
            "-d",
            str(into),
            f"{corpus.package}=={corpus.version}",
        ]
    elif corpus.registry == "npm":
        command = [
            "npm",
            "pack",
            f"{corpus.package}@{corpus.version}",
            "--silent",
            "--pack-destination",
            str(into),
        ]
    else:
        raise ValueError(f"corpus {corpus.name}: unknown registry {corpus.registry!r}")
    subprocess.run(command, check=True, capture_output=True, text=True)
    archive = into / corpus.archive
    if not archive.is_file():
        raise FileNotFoundError(f"corpus {corpus.name}: {' '.join(command)} did not produce {corpus.archive}")
    return archive


def fetch(corpus: Corpus, say: object = print) -> Path:
    """Make sure the pinned corpus is unpacked; returns the folder to index. Idempotent."""
    if corpus.registry == SELF or corpus.path.is_dir():
        return corpus.path
    CORPORA_DIR.mkdir(parents=True, exist_ok=True)
    archive = CORPORA_DIR / corpus.archive
    if not archive.is_file():
        say(f"bench: fetching {corpus.package}=={corpus.version} from {corpus.registry}")  # type: ignore[operator]
        with tempfile.TemporaryDirectory(dir=CORPORA_DIR) as tmp:
            shutil.move(_download(corpus, Path(tmp)), archive)
    actual = sha256_of(archive)
    if actual != corpus.sha256:
        archive.unlink()
        raise ValueError(f"corpus {corpus.name}: sha256 {actual} != pinned {corpus.sha256}; archive removed")
    staging = corpus.unpacked.with_suffix(".partial")
    shutil.rmtree(staging, ignore_errors=True)
    unpack(archive, staging)
    staging.rename(corpus.unpacked)
    return corpus.path


def unpack(archive: Path, into: Path) -> None:
    """Extract a .tar.gz/.tgz/.crate or .zip archive; refuses members that would land outside `into`."""
    if zipfile.is_zipfile(archive):
        target = into.resolve()
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.namelist():
                destination = (target / member).resolve()
                if not destination.is_relative_to(target):
                    raise ValueError(f"{archive.name}: member {member!r} would unpack outside {into}")
            zipped.extractall(into)
        return
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")

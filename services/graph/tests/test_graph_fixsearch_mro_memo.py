"""Memoised method resolution orders never depend on which class was asked first (review fix)."""

from __future__ import annotations

import dataclasses

from kit.domain import ChunkKind, Symbol
from services.graph.domain.inheritance import MAX_DEPTH, ClassHierarchy, FileBindings
from services.graph.tests.graph_builders import sym

NO_IMPORTS = FileBindings(internal=lambda name: (), external=lambda name: False, exposing=lambda name: ())


def _cls(qualified_name: str, signature: str) -> Symbol:
    return dataclasses.replace(sym("a.py", qualified_name, ChunkKind.CLASS), signature=signature)


def _hierarchy(classes: list[Symbol]) -> ClassHierarchy:
    return ClassHierarchy(lambda names: [c for c in classes if c.name in names], lambda path: NO_IMPORTS)


def _names(hierarchy: ClassHierarchy, cls: Symbol) -> list[str | None]:
    return [a.symbol.name if a.symbol else None for a in hierarchy.order(cls)]


def test_an_order_cut_short_by_a_cycle_is_not_memoised_for_the_next_question() -> None:
    a, b = _cls("A", "class A(B)"), _cls("B", "class B(A)")
    fresh = _names(_hierarchy([a, b]), b)
    asked_after = _hierarchy([a, b])
    asked_after.order(a)  # walks B with A on the stack: B's order there is cut at A
    assert _names(asked_after, b) == fresh == ["B", "A", None]


def test_an_order_cut_short_by_max_depth_is_not_memoised_for_the_next_question() -> None:
    chain = [_cls(f"C{i}", f"class C{i}(C{i + 1})") for i in range(MAX_DEPTH + 8)]
    chain.append(_cls(f"C{MAX_DEPTH + 8}", f"class C{MAX_DEPTH + 8}"))
    deep = chain[MAX_DEPTH - 1]
    fresh = _names(_hierarchy(chain), deep)
    asked_after = _hierarchy(chain)
    asked_after.order(chain[0])  # reaches `deep` near MAX_DEPTH, where its ancestry is cut
    assert _names(asked_after, deep) == fresh
    assert fresh[-1] == f"C{MAX_DEPTH + 8}", "asked directly, its whole ancestry is known"


def test_whole_orders_are_still_memoised() -> None:
    base, child = _cls("Base", "class Base"), _cls("Child", "class Child(Base)")
    asked: list[frozenset[str]] = []

    def classes_named(names):
        asked.append(frozenset(names))
        return [c for c in (base, child) if c.name in names]

    hierarchy = ClassHierarchy(classes_named, lambda path: NO_IMPORTS)
    first = hierarchy.order(child)
    lookups = len(asked)
    assert hierarchy.order(child) == first and len(asked) == lookups
    assert hierarchy._orders.keys() == {base.id, child.id}


def test_a_lattice_of_diamonds_past_max_depth_is_walked_once_per_question() -> None:
    layers = MAX_DEPTH + 4  # L0(XL0, XR0), XL0(L1), XR0(L1), L1(...) ... L{layers}: 2**layers paths
    classes = [_cls(f"L{layers}", f"class L{layers}")]
    for i in range(layers):
        classes += [
            _cls(f"L{i}", f"class L{i}(XL{i}, XR{i})"),
            _cls(f"XL{i}", f"class XL{i}(L{i + 1})"),
            _cls(f"XR{i}", f"class XR{i}(L{i + 1})"),
        ]
    resolved: list[str] = []
    hierarchy = _hierarchy(classes)
    original = hierarchy.resolve_class

    def counting(written: str, path: str, exclude: str = "") -> tuple:
        resolved.append(written)
        return original(written, path, exclude=exclude)

    hierarchy.resolve_class = counting  # type: ignore[method-assign]
    order = hierarchy.order(next(c for c in classes if c.name == "L0"))
    assert order[-1].symbol is None, "cut at MAX_DEPTH"
    assert len(resolved) <= 2 * len(classes), "each class's bases resolved once, not once per path"

"""Memory files: parsing, defaults from the type, stable rendering; invalid files reported and skipped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.memory.adapters.memory_folder import folder_name
from services.memory.domain.errors import FrontmatterError
from services.memory.domain.frontmatter import parse_memory_text, render_memory
from services.memory.domain.model import (
    Memory,
    MemoryClass,
    MemoryFields,
    MemoryType,
    Scope,
    Status,
    build_memory,
)
from services.memory.engine import MemoryDraft, MemoryEngine, RecallQuery

NOW = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def parse(text: str, repo: str = "app") -> Memory:
    parsed = parse_memory_text(text)
    return build_memory(parsed.fields, memory_id="m1", repo=repo, body=parsed.body, fallback_time=NOW)


def repo_dir(root: Path, repo: str) -> Path:
    path = root / "repos" / folder_name(repo)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize(
    ("memory_type", "memory_class"),
    [
        ("feedback", MemoryClass.RULE),
        ("project", MemoryClass.FACT),
        ("reference", MemoryClass.FACT),
        ("user", MemoryClass.FACT),
    ],
)
def test_class_defaults_from_type(memory_type: str, memory_class: MemoryClass) -> None:
    memory = parse(f"---\nname: n\ntype: {memory_type}\n---\nbody\n")
    assert memory.memory_class is memory_class
    assert memory.scope is Scope.PROJECT
    assert memory.status is Status.ACTIVE and memory.confidence == 1.0 and not memory.pinned


def test_user_type_is_user_scoped_only_when_a_user_is_named() -> None:
    assert parse("---\ntype: user\nuser: ann\n---\nprefers tabs").scope is Scope.USER
    assert parse("---\ntype: user\n---\nprefers tabs").scope is Scope.PROJECT


def test_type_defaults_from_class_and_working_is_branch_scoped() -> None:
    rule = parse("---\nclass: rule\n---\nx")
    working = parse("---\nclass: working\nbranch: dev\n---\nx")
    assert rule.type is MemoryType.FEEDBACK
    assert working.type is MemoryType.PROJECT and working.scope is Scope.BRANCH


def test_file_without_frontmatter_is_a_fact_named_after_its_id_and_dated_by_mtime() -> None:
    memory = parse("# Deploys\nWe deploy on Tuesdays.\n")
    assert (memory.name, memory.memory_class, memory.created) == ("m1", MemoryClass.FACT, NOW)
    assert memory.description == "Deploys"


def test_global_folder_defaults_to_global_scope() -> None:
    assert parse("---\nname: n\n---\nx", repo="").scope is Scope.GLOBAL


@pytest.mark.parametrize(
    ("header", "field"),
    [
        ("type: opinion", "type"),
        ("class: [rule]", "class"),
        ("status: deleted", "status"),
        ("confidence: 7", "confidence"),
        ("confidence: high", "confidence"),
        ("pinned: maybe", "pinned"),
        ("created: last tuesday", "created"),
        ("supersedes: {a: 1}", "supersedes"),
        ("name: [a, b]", "name"),
        ("name: 'unclosed", "frontmatter"),
        ("- just\n- a list", "frontmatter"),
    ],
)
def test_invalid_frontmatter_names_the_field(header: str, field: str) -> None:
    with pytest.raises(FrontmatterError) as info:
        parse(f"---\n{header}\n---\nbody\n")
    assert info.value.field == field


def test_unclosed_frontmatter_is_reported() -> None:
    with pytest.raises(FrontmatterError) as info:
        parse("---\nname: x\nbody without end\n")
    assert info.value.field == "frontmatter"


def test_yaml_dates_and_quoted_strings_both_parse() -> None:
    memory = parse("---\ncreated: 2024-05-01\nupdated: '2024-05-02T10:00:00Z'\n---\nx")
    assert memory.created == datetime(2024, 5, 1, tzinfo=UTC)
    assert memory.updated == datetime(2024, 5, 2, 10, tzinfo=UTC)


_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cc"]), max_size=40)


@settings(max_examples=60, deadline=None, database=None)
@given(
    name=_text,
    description=_text,
    body=st.text(st.characters(codec="utf-8", exclude_characters="\r\x00"), max_size=200),
    memory_class=st.sampled_from(list(MemoryClass)),
    pinned=st.booleans(),
    confidence=st.floats(0, 1).map(lambda v: round(v, 4)),
    files=st.lists(st.text("abcxyz/._-", min_size=1, max_size=12), max_size=3),
)
def test_render_then_parse_gives_the_same_memory(
    name: str,
    description: str,
    body: str,
    memory_class: MemoryClass,
    pinned: bool,
    confidence: float,
    files: list[str],
) -> None:
    fields = MemoryFields(
        name=name,
        description=description,
        memory_class=memory_class,
        pinned=pinned,
        confidence=confidence,
        related_files=tuple(f.strip() for f in files if f.strip()),
        extra={"origin": "import"},
    )
    memory = build_memory(fields, memory_id="m1", repo="app", body=body, fallback_time=NOW)
    again = parse(render_memory(memory))
    assert again == memory
    assert again.extra == {"origin": "import"}
    assert render_memory(again) == render_memory(memory)


def test_scan_reports_invalid_files_with_field_and_keeps_the_valid_ones(
    engine: MemoryEngine, memory_root: Path
) -> None:
    folder = repo_dir(memory_root, "app")
    (folder / "good.md").write_text("---\nname: Deploy day\ntype: project\n---\nWe deploy on Tuesdays.\n")
    (folder / "bad-type.md").write_text("---\nname: x\ntype: opinion\n---\nTuesday opinions\n")
    (folder / "bad-yaml.md").write_text("---\nname: [unclosed\n---\nTuesday yaml\n")
    (folder / "bad name.md").write_text("---\nname: x\n---\nTuesday file name\n")
    (folder / "latin1.md").write_bytes("---\nname: caf\xe9\n---\nTuesday\n".encode("latin-1"))
    engine.sync_all()

    problems = {Path(p.path).name: p.field for p in engine.problems}
    assert problems == {
        "bad-type.md": "type",
        "bad-yaml.md": "frontmatter",
        "bad name.md": "filename",
        "latin1.md": "encoding",
    }
    found = engine.recall(RecallQuery(repo="app", query="Tuesday", record_use=False))
    assert [r.memory.id for r in found.memories] == ["good"]


def test_fixing_an_invalid_file_clears_its_problem_and_indexes_it(
    engine: MemoryEngine, memory_root: Path
) -> None:
    path = repo_dir(memory_root, "app") / "note.md"
    path.write_text("---\nconfidence: 3\n---\nthe staging database is shared\n")
    engine.sync_all()
    assert [p.field for p in engine.problems] == ["confidence"]
    path.write_text("---\nconfidence: 0.5\n---\nthe staging database is shared (fixed)\n")
    engine.sync_all()
    assert engine.problems == []
    assert engine.get("app", "note").confidence == 0.5


def test_unknown_frontmatter_keys_survive_a_lifecycle_rewrite(
    engine: MemoryEngine, memory_root: Path
) -> None:
    path = repo_dir(memory_root, "app") / "note.md"
    path.write_text("---\nname: n\nticket: JIRA-12\n---\nthe cache is warmed at boot\n")
    engine.sync_all()
    engine.archive("app", "note", reason="outdated", admin=True)
    text = path.read_text()
    assert "ticket: JIRA-12" in text and "status: archived" in text and "reason: outdated" in text


def test_store_fills_defaults_and_writes_a_parseable_file(engine: MemoryEngine, memory_root: Path) -> None:
    stored = engine.store(
        MemoryDraft(repo="app", body="Run `make lint` before pushing.", type=MemoryType.FEEDBACK), admin=True
    )
    path = memory_root / "repos" / "app" / f"{stored.id}.md"
    again = parse_memory_text(path.read_text())
    assert again.fields.memory_class is MemoryClass.RULE
    assert stored.name == stored.id and stored.description == "Run `make lint` before pushing."
    assert stored.fingerprint and again.fields.fingerprint == stored.fingerprint

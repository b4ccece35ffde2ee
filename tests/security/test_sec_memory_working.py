# ruff: noqa: F811 - the fixtures are imported from sec_memory_support by name
"""Issue 17, working memory that helps: a prompt is never stored nor echoed into a later session; what is
kept is where it led (files), once; text that looks like a secret is never written into a memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.memory.domain.errors import InvalidField
from services.memory.domain.frontmatter import render_memory
from services.memory.domain.model import MemoryClass, MemoryFields, Scope, build_memory
from services.memory.domain.secrets import find_secret
from services.memory.engine import EngineConfig, MemoryDraft, MemoryEngine, Observation, RecallQuery

from .sec_memory_support import REPO, EngineFactory, FakeClock, clock, engine, make_engine, memory_root  # noqa: F401

PROMPT = "why does zqfoo drift when the quarterly invoice totals are rounded by the ledger?"


def observe(engine: MemoryEngine, prompt: str = PROMPT, session: str = "s-1", **kwargs: object) -> int:
    fields: dict[str, object] = {"user": "ann", "branch": "main", "route": "bug"}
    fields.update(kwargs)
    fields.setdefault("hit_paths", ("shop/ledger.py", "shop/invoice.py"))
    return engine.observe(Observation(repo=REPO, session_id=session, prompt=prompt, **fields))  # type: ignore[arg-type]


def all_text(memory_root: Path) -> str:
    return "\n".join(p.read_text("utf-8", errors="replace") for p in memory_root.rglob("*.md"))


def test_a_prompt_is_never_stored_nor_recalled_into_a_later_session(
    engine: MemoryEngine, memory_root: Path, clock: FakeClock
) -> None:
    assert observe(engine) == 1
    assert "zqfoo" not in all_text(memory_root) and "quarterly" not in all_text(memory_root)
    clock.advance(hours=2)
    # The next session asks the same: the earlier prompt never comes back, what it led to does.
    result = engine.recall(RecallQuery(repo=REPO, query=PROMPT, branch="main", user="ann", record_use=False))
    recalled = "\n".join(f"{r.memory.name}\n{r.memory.description}\n{r.memory.body}" for r in result.memories)
    assert "zqfoo" not in recalled and "quarterly" not in recalled
    working = [r.memory for r in result.memories if r.memory.memory_class is MemoryClass.WORKING]
    assert [m.related_files for m in working] == [("shop/invoice.py", "shop/ledger.py")]
    assert "shop/ledger.py" in working[0].body


def test_the_same_files_are_noted_once_per_user(
    make_engine: EngineFactory, memory_root: Path, clock: FakeClock
) -> None:
    engine = make_engine(EngineConfig(working_keep=10))
    for i in range(5):
        observe(engine, f"prompt {i}", session=f"s-{i % 2}", hit_paths=("shop/b.py", "shop/a.py"))
        clock.advance(seconds=5)
    assert len(list(memory_root.rglob("working-*.md"))) == 1
    observe(engine, hit_paths=("shop/a.py", "shop/b.py"), user="bob")  # Bob's note is his own
    observe(engine, hit_paths=("shop/c.py",))
    assert len(list(memory_root.rglob("working-*.md"))) == 3


def test_working_memory_from_before_is_never_recalled_and_is_deleted(
    make_engine: EngineFactory, memory_root: Path, clock: FakeClock
) -> None:
    """Older versions stored prompts verbatim (working-<session>-<stamp>.md): they are not recalled, and
    the next full listing deletes them."""
    folder = memory_root / "repos" / "github%2Ecom%2Facme%2Fshop"
    folder.mkdir(parents=True)
    fields = MemoryFields(
        name=PROMPT[:80], memory_class=MemoryClass.WORKING, scope=Scope.BRANCH, branch="main", user="ann"
    )
    old = build_memory(
        fields, memory_id="working-s-0-00000000000000000001", repo=REPO, body=PROMPT, fallback_time=clock()
    )
    (folder / f"{old.id}.md").write_text(render_memory(old))
    engine = make_engine()
    query = RecallQuery(repo=REPO, query="zqfoo drift", branch="main", user="ann", record_use=False)
    assert engine.recall(query).memories == []
    observe(engine, hit_paths=("shop/x.py",))
    assert not (folder / f"{old.id}.md").exists()


SECRETS = [
    "the staging key is AKIAIOSFODNN7EXAMPLE",
    "use ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2 + " for the bot",
    "stripe: sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "db url postgres://app:s3cr3tPassw0rd@db.internal:5432/shop",
    "password = hunter2hunter2!",
    "the anthropic key sk-ant-api03-" + "Zx9" * 12,
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer " + "q8uI76oFbNGvLePcJ2Mk9y44wN7JqZ3x",
]
HARMLESS = [
    "Store money as integer cents.",
    "Deploys go through AbstractSingletonProxyFactoryBean2Impl",
    "fixed in 3f0c9a1b2c3d4e5f60718293a4b5c6d7e8f90123",
    "the password lives in the vault under payments/stripe",
    "password = settings.DB_PASSWORD",
    "api_key: ${STRIPE_KEY}",
    "services/memory/adapters/sqlite_index.py holds the index",
]


@pytest.mark.parametrize("text", SECRETS)
def test_text_that_looks_like_a_secret_is_refused_naming_the_field(
    engine: MemoryEngine, memory_root: Path, text: str
) -> None:
    assert find_secret(text) is not None
    with pytest.raises(
        InvalidField, match=r"memory\.body: looks like it holds .*store where the secret lives"
    ):
        engine.store(MemoryDraft(repo=REPO, body=text, user="ann"))
    with pytest.raises(InvalidField, match=r"memory\.name"):
        engine.store(MemoryDraft(repo=REPO, name=text[:200], body="see the name", user="ann"))
    assert list(memory_root.rglob("*.md")) == []  # nothing written


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_notes_are_not_taken_for_secrets(engine: MemoryEngine, text: str) -> None:
    assert find_secret(text) is None
    assert engine.store(MemoryDraft(repo=REPO, body=text, user="ann")).body == text


def test_observe_leaves_out_paths_that_look_like_secrets(engine: MemoryEngine, memory_root: Path) -> None:
    observe(engine, hit_paths=("config/AKIAIOSFODNN7EXAMPLE.txt", "shop/ok.py"))
    text = all_text(memory_root)
    assert "AKIA" not in text and "shop/ok.py" in text
    assert observe(engine, session="s-2", hit_paths=("keys/ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2,)) == 0

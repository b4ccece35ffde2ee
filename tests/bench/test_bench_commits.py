"""Bug-fix commit messages are scored apart: the hook's injected list and the other systems against the
functions the fix changed, with the routes, skips and tokens the report prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import _commit_lines
from bench.runner import commit_quality
from bench.scoring import Gold, Retrieved
from bench.sets import COMMIT, Prompt


class FakeGateway:
    def __init__(self, answers: dict[str, dict[str, Any]]) -> None:
        self.answers = answers

    def explain(self, prompt: str, repo: str, cwd: str) -> dict[str, Any]:
        return self.answers[prompt]


def test_commit_messages_score_the_hook_against_the_changed_functions() -> None:
    fix = Prompt(
        "c-1", "demo", COMMIT, "parser: keep the quote in escaped keys", (Gold("src/key.rs", "parse", 3),)
    )
    chat = Prompt("c-2", "demo", COMMIT, "fix typo", (Gold("src/a.rs", "f", 3),))
    gateway = FakeGateway(
        {
            fix.prompt: {
                "route": "bug",
                "tokens": 300,
                "injected": [{"file": "src/key.rs", "symbol": "parse"}],
            },
            chat.prompt: {"route": "skip", "tokens": 0, "injected": []},
        }
    )
    systems = {
        "reporecall (hook)": lambda p: [],  # replaced by what the hook injected for the commit message
        "bm25-chunk": lambda p: [Retrieved("src/other.rs", "g")],
    }
    out = commit_quality([fix, chat], gateway, "demo", Path("."), systems)  # type: ignore[arg-type]

    hook, bm25 = out["systems"]["reporecall (hook)"]["symbol"], out["systems"]["bm25-chunk"]["symbol"]
    assert hook["ndcg_10"] == 0.5 and bm25["ndcg_10"] == 0.0  # one of two commits found
    assert out["false_skips"] == ["c-2"] and out["mean_tokens"] == 150.0
    assert out["prompts"]["c-1"]["route"] == "bug"
    text = "\n".join(_commit_lines(out))
    assert "2 prompts" in text and "+0.500 over bm25-chunk" in text and "skipped: c-2" in text


def test_blind_probe_prompts_score_each_system_by_the_rank_of_their_answer_file() -> None:
    from bench.report import _probe_lines
    from bench.runner import probe_file_quality

    near = Prompt("p-1", "demo", "code", "where are keys quoted", answer="src/key.rs")
    far = Prompt("p-2", "demo", "code", "why is the table inline", answer="src/index.rs")
    unanswered = Prompt("p-3", "demo", "code", "how does it work")
    skip = Prompt("s-1", "*", "skip", "write a poem")
    explained = {
        "p-1": {"tokens": 200, "injected": [{"file": "src/key.rs", "symbol": "quote"}]},
        "p-2": {
            "tokens": 400,
            "injected": [{"file": "src/a.rs", "symbol": "f"}, {"file": "src/index.rs", "symbol": "g"}],
        },
    }
    systems = {
        "reporecall (hook)": lambda p: [],  # replaced by what the hook injected
        "bm25-chunk": lambda p: [Retrieved("src/other.rs", "x"), Retrieved("src/other.rs", "y")],
    }
    out = probe_file_quality([near, far, unanswered, skip], explained, systems)

    assert out["n"] == 2 and out["mean_tokens"] == 300.0
    assert out["systems"]["reporecall (hook)"]["mrr_10"] == 0.75  # ranks 1 and 2
    assert out["systems"]["bm25-chunk"]["mrr_10"] == 0.0
    text = "\n".join(_probe_lines(out))
    assert "2 code prompts" in text and "| **reporecall (hook)** | 0.750 |" in text

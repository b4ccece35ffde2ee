"""The memory engine's tuning and the shapes of its requests and answers (what the servicer translates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from services.memory.domain.budget import BudgetPolicy
from services.memory.domain.model import Memory, MemoryClass
from services.memory.domain.ranking import RankingWeights

# How often observe lists the whole folder (others' writes, idle sessions past their age); between
# listings it looks only at the observing session's own entries.
WORKING_RESCAN_SECONDS = 60.0


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class EngineConfig:
    default_budget_tokens: int = 600  # when a recall asks for 0
    max_budget_tokens: int = 2000  # no recall returns more, whatever it asks (keeps the floor for code)
    default_limit: int = 10
    max_limit: int = 50
    candidate_limit: int = 40  # best index matches considered per recall (ranking drops weak ones anyway)
    working_keep: int = 20  # observations kept per session
    working_max_age: timedelta = timedelta(days=3)  # sessions idle longer are dropped
    working_max_sessions_per_user: int = 20  # a user's newest sessions kept (each new session_id starts one)
    working_max_per_user: int = 200  # a user's newest working notes kept over all their sessions
    working_max_files: int = 8  # files one working note lists
    default_episode_max_age: timedelta = timedelta(days=30)
    ranking: RankingWeights = field(default_factory=RankingWeights)
    budget: BudgetPolicy = field(default_factory=BudgetPolicy)


@dataclass(frozen=True, slots=True)
class RecallQuery:
    repo: str
    query: str = ""
    branch: str = ""
    user: str = ""
    classes: frozenset[MemoryClass] = frozenset()
    budget_tokens: int = 0  # 0: the default budget
    limit: int = 0  # 0: the default limit
    include_inactive: bool = False
    min_confidence: float = 0.0
    record_use: bool = True  # count this recall as a use of what it returns


@dataclass(frozen=True, slots=True)
class Recalled:
    memory: Memory
    score: float
    tokens: int


@dataclass(frozen=True, slots=True)
class RecallResult:
    memories: list[Recalled]
    tokens: int


@dataclass(frozen=True, slots=True)
class Observation:
    repo: str
    session_id: str
    prompt: str
    branch: str = ""
    user: str = ""
    route: str = ""
    hit_paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CompactResult:
    superseded: int
    archived: int

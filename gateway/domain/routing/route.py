"""The router's verdict: a route name, its confidence, the seeds it read and why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gateway.domain.routing.seeds import is_path_seed


class RouteName(StrEnum):
    SKIP = "skip"
    LOOKUP = "lookup"
    FLOW = "flow"
    BUG = "bug"
    ARCHITECTURE = "architecture"


@dataclass(frozen=True, slots=True)
class Route:
    """The classifier's verdict. `seeds` are in prompt order: quoted names, call-shaped names,
    identifier-shaped tokens and file paths (use `symbol_seeds` / `path_seeds` to tell them apart)."""

    name: RouteName
    confidence: float
    seeds: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    follow_up: bool = False
    # The off-topic category the prompt reads as ("" for none): the pipeline's relevance gate may skip it.
    off_topic: str = ""

    @property
    def symbol_seeds(self) -> tuple[str, ...]:
        return tuple(s for s in self.seeds if not is_path_seed(s))

    @property
    def path_seeds(self) -> tuple[str, ...]:
        return tuple(s for s in self.seeds if is_path_seed(s))

"""The classifier: a sanitised prompt → a route, and follow-ups resolved against the previous prompt."""

from __future__ import annotations

from dataclasses import replace

from gateway.domain.routing.conversational import SLASH_COMMAND, classify_command, classify_conversational
from gateway.domain.routing.cues import off_topic_cue
from gateway.domain.routing.intents import score_intents
from gateway.domain.routing.route import Route, RouteName
from gateway.domain.routing.seeds import extract_seeds

# Long prompts are read for intent in their head and tail only (the ask is at one end or the other), and
# for seeds in a larger window: this keeps classify() well under a millisecond at the sanitiser's cap.
INTENT_HEAD_CHARS, INTENT_TAIL_CHARS = 320, 160
SEED_HEAD_CHARS, SEED_TAIL_CHARS = 800, 200
# A prompt this short may be a pure courtesy / continuation; longer ones always carry content.
CONVERSATIONAL_MAX_CHARS = 160


def classify(text: str) -> Route:
    """Route a sanitised prompt (see `sanitize.sanitize_prompt`). Pure and fast (typically ~30 µs)."""
    stripped = text.strip()
    if not stripped:
        return Route(RouteName.SKIP, 0.95, (), ("empty prompt",))
    command = SLASH_COMMAND.match(stripped)
    if command:
        routed = classify_command(command.group(1).lower(), command.group(2))
        if routed is not None:
            return routed
        stripped = f"{command.group(1).replace('-', ' ').replace('_', ' ')} {command.group(2)}".strip()
    if len(stripped) <= CONVERSATIONAL_MAX_CHARS:
        conversational = classify_conversational(stripped)
        if conversational is not None:
            return conversational
    seeds = extract_seeds(_window(stripped, SEED_HEAD_CHARS, SEED_TAIL_CHARS))
    intent_text = _window(stripped, INTENT_HEAD_CHARS, INTENT_TAIL_CHARS)
    route = score_intents(intent_text, seeds)
    cue = "" if route.follow_up else off_topic_cue(intent_text, seeds, route.name)
    return replace(route, off_topic=cue) if cue else route


def resolve_follow_up(route: Route, previous: Route | None) -> Route:
    """A follow-up ("yes", "continue", "still broken") borrows the previous routed prompt's seeds.

    The route name of the previous prompt is kept for content-free continuations; a thin prompt with
    its own intent ("fix it" → bug) keeps its own name and takes the previous seeds. A content-free
    continuation of a skipped prompt ("more" after a poem the relevance gate skipped) is skipped too;
    one with its own intent reads as itself.
    """
    if not route.follow_up or previous is None:
        return route
    if previous.name is RouteName.SKIP:
        if route.name is not RouteName.LOOKUP:
            return route
        return replace(route, name=RouteName.SKIP, seeds=(), reasons=(*route.reasons, "follow-up of a skip"))
    name = previous.name if route.name is RouteName.LOOKUP else route.name
    return replace(
        route,
        name=name,
        seeds=previous.seeds,
        confidence=min(route.confidence, previous.confidence),
        reasons=(*route.reasons, f"follow-up of a {previous.name} prompt"),
    )


def _window(text: str, head: int, tail: int) -> str:
    """Head and tail of a long text, cut at whitespace so no word is split."""
    if len(text) <= head + tail:
        return text
    start, end = text[:head], text[-tail:]
    start = start[: start.rfind(" ")] if " " in start[head // 2 :] else start
    end = end[end.find(" ") + 1 :] if " " in end[: tail // 2] else end
    return f"{start}\n…\n{end}"

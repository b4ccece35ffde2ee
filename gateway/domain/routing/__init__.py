"""Intent routing: a rule-based classifier from a (sanitised) prompt to a retrieval route.

No model calls; a handful of precompiled regular expressions, well under a millisecond.

Routes:
- `skip` — nothing to look up: greetings, thanks, praise, farewells, chat about the conversation
  itself ("be more concise"), Claude Code's own meta slash commands (`/clear`, `/cost`). A false skip
  costs the user context they needed; an extra lookup costs a few hundred tokens. So `skip` is only
  chosen when *every* word of the prompt is such a phrase.
- `lookup` — the default: find code matching the words (search-heavy).
- `flow` — how something works across calls: who calls / what calls / trace / what happens when /
  how does X reach Y.
- `bug` — errors, failures, wrong results, hangs, regressions, pasted tracebacks.
- `architecture` — overview, structure, modules, design, how the codebase is organised.

Content-free replies ("yes", "continue", "ok do it", "option 2") are `skip`: the previous prompt's
block is already in the conversation, so a second one would repeat it. Thin prompts with an intent of
their own ("still broken", "fix it") are routed by that intent with `follow_up=True` and no seeds; the
gateway resolves them against the session's previous routed prompt with `resolve_follow_up`, which
lends them its seeds (and leaves them seedless when there is none).

Off-topic prompts that are not pure chat (about the assistant, creative writing, translation, general
knowledge, small talk, instructions about the conversation, the user saying it is not about the code, or
simply no strong sign of code) are not skipped here: `classify` marks them `off_topic`, and the pipeline's
relevance gate (`relevance.gate`) skips creative writing, translation and disclaimed requests, and the
others when the search hits it already has name too little of what the prompt talks about or none of them
reads like it (embedding similarity). A prompt the rules read as code goes to the same gate when the search
service's off-topic model reads it as not about code (`relevance.with_model_cue`; no identifier, path or
code punctuation, and not both a code word and a word pointing at the code).

Modules: `route` (the verdict), `classifier` (entry point), `conversational` (chat and session commands),
`intents` (route rules and scoring), `seeds` (names and paths; which names are specific in a repo),
`cues` (off-topic cues and the signs of code that outrank them), `relevance` (the gate on the search
evidence), `words` (shared word sets and stems).
"""

from gateway.domain.routing.classifier import classify, resolve_follow_up
from gateway.domain.routing.route import Route, RouteName
from gateway.domain.routing.seeds import extract_seeds, is_path_seed

__all__ = ["Route", "RouteName", "classify", "extract_seeds", "is_path_seed", "resolve_follow_up"]

"""The relevance gate: does a prompt that reads off-topic really have nothing to do with this repo?

Two halves, both pure:

- `off_topic_cue(text)` (prompt side, in `classify`): the category of an off-topic cue — about the
  assistant itself, creative writing, translation, general knowledge, small talk, chat about the
  conversation — or "" when there is none, *or* when the prompt carries any sign of code (an
  identifier, a path, code punctuation, a programming word). A cue alone never skips.
- `gate(route, text, hits)` (evidence side, in the pipeline, on the search hits it already has): a cued
  prompt skips only when none of its remaining content words names anything in the repo — no top hit's
  name, qualified name or path shares a word stem with the prompt. A prompt about the code names the
  code it is about; an off-topic one finds only unrelated chunks.

A false skip loses a real answer; a missed skip costs some tokens. So every doubt keeps the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from gateway.domain.routing.route import Route, RouteName
from gateway.domain.routing.seeds import extract_seeds
from gateway.domain.routing.words import NOT_CONTENT
from kit.text import code_words, split_identifier

# The top hits whose names are read for evidence, and the shortest word stem that counts.
EVIDENCE_HITS = 10
MIN_STEM = 3
# How much of each hit's text is read when a prompt shows no sign of code at all.
TEXT_CHARS = 2000

_LANGUAGES = (
    r"english|french|german|spanish|italian|portuguese|dutch|russian|chinese|mandarin|cantonese|japanese|"
    r"korean|arabic|hindi|bengali|urdu|turkish|polish|swedish|norwegian|danish|finnish|greek|hebrew|latin|"
    r"thai|vietnamese|indonesian|malay|swahili|czech|hungarian|romanian|ukrainian|persian|farsi|tagalog|"
    r"irish|welsh|catalan|esperanto|klingon|pirate|shakespearean|emoji"
)
# Each category's cues, matched on the lowercased prompt. They only nominate a prompt for the gate.
_CUES: dict[str, str] = {
    "assistant": (
        r"\b(?:who|what)\s+(?:are|r)\s+you\b|\bare\s+you\s+(?:an?\s+|really\s+|actually\s+)?(?:ai|bot|robot|"
        r"human|real|sentient|conscious|alive|person|chatgpt|claude|gpt\w*|smart|happy|sad|tired|ok|okay)\b|"
        r"\b(?:who|which\s+company)\s+(?:made|created|built|trained|developed|owns)\s+you\b|"
        r"\bwhat\s+(?:model|version|llm|ai|kind\s+of\s+(?:ai|model|assistant))\s+(?:are|is)\s+(?:you|this)\b|"
        r"\byour\s+(?:name|creator|maker|training|training\s+data|knowledge\s+cutoff|cutoff|favou?rite|"
        r"opinion|opinions|feelings?|emotions?|age|birthday|hobb(?:y|ies)|personality|context\s+window|"
        r"limitations|capabilities|weights|memory|own\s+\w+)\b|"
        r"\bdo\s+you\s+(?:have\s+(?:feelings|emotions|a\s+(?:name|body|family|favou?rite))|feel|dream|sleep|"
        r"get\s+tired|enjoy|like\s+(?:your|being|music|movies|me)|love|hate|believe\s+in|remember\s+me|"
        r"ever\s+get)\b|\btell\s+me\s+about\s+yourself\b|\byourself\b|\bwhat\s+can\s+you\s+do\b|"
        r"\bcan\s+you\s+(?:browse|see\s+images|access\s+the\s+internet|learn|feel|think)\b|"
        r"\bhow\s+(?:were|are)\s+you\s+(?:trained|made|built|created)\b|\bare\s+you\s+better\s+than\b"
    ),
    "creative": (
        r"\b(?:poem|poems|poetry|haiku|haikus|sonnet|limerick|lyrics|joke|jokes|riddle|riddles|fairy\s*tale|"
        r"bedtime\s+story|short\s+story|love\s+letter|ballad|rhymes?|rhyming|fable|novel|screenplay|"
        r"(?:a|the)\s+song|rap\s+(?:song|verse|battle)|pun|puns|toast\s+for|wedding\s+speech|eulogy|"
        r"birthday\s+(?:message|card|wish)|slogan|tagline\s+for\s+my|story\s+about|tale\s+about)\b|"
        r"\b(?:write|compose|draft|make\s+up|come\s+up\s+with)\s+(?:me\s+)?(?:an?\s+)?(?:\w+\s+)?"
        r"(?:verse|stanza|essay|speech|letter|story|tale|song|script\s+for\s+a\s+(?:movie|play|video))\b"
    ),
    "translation": (
        rf"\btranslat\w*\b|\bhow\s+(?:do\s+(?:you|i)|to|would\s+you|does\s+one)\s+say\b|"
        rf"\b(?:in|into|to)\s+(?:{_LANGUAGES})\b|\bmean\s+in\s+(?:{_LANGUAGES})\b|\b(?:{_LANGUAGES})\s+for\b"
    ),
    "general knowledge": (
        r"\bwhat(?:\s+is|'s|\s+was|\s+are)\s+the\s+(?:capital|population|currency|president|prime\s+minister|king|"
        r"queen|tallest|largest|biggest|smallest|longest|highest|deepest|oldest|richest|fastest\s+animal|"
        r"distance\s+(?:to|from|between)|boiling\s+point|melting\s+point|speed\s+of\s+(?:light|sound)|"
        r"meaning\s+of\s+life|square\s+root|time\s+in|best\s+(?:movie|book|restaurant|place|way\s+to\s+"
        r"(?:lose|cook|learn\s+(?:guitar|piano|a\s+language)))|difference\s+between\s+(?:a\s+)?(?:virus|"
        r"alligator|crocodile|weather|climate))\b|"
        r"\bwho\s+(?:wrote|painted|invented|discovered|founded|composed|directed|won|sang|killed|was\s+the\s+"
        r"first|is\s+the\s+(?:president|king|queen|ceo|richest|best)|was\s+(?:napoleon|einstein|shakespeare|"
        r"[a-z]+\s+the\s+great))\b|"
        r"\bwhen\s+(?:did|was|were)\b.{0,60}\b(?:born|die|died|invented|founded|discovered|happen|end|fall|"
        r"built|sink|land\s+on)\b|"
        r"\bhow\s+(?:far|tall|old|heavy|big|deep|hot|cold)\s+(?:is|are|was|were)\s+(?:the\s+)?(?!it\b|this\b|"
        r"that\b)\w+|"
        r"\b(?:recipe|recipes|ingredients|calories|vaccines?|vaccination|planets?|solar\s+system|universe|"
        r"galaxy|black\s+holes?|photosynthesis|dinosaurs?|evolution\s+of\s+(?:man|humans|species)|"
        r"world\s+war|roman\s+empire|olympics|football|soccer|basketball|baseball|tennis|movies?|films?|"
        r"tv\s+shows?|netflix|celebrity|weather|forecast|horoscope|astrology|stock\s+market|mortgage|"
        r"inflation|recession|election|elections|politics|religion|philosophy|meditation|diet|workout|"
        r"vacation|holiday\s+destination|restaurants?|pizza|pasta|coffee\s+beans|wine|gardening|tomatoes|"
        r"pregnan\w+|headache|symptoms\s+of|disease|the\s+sky|the\s+ocean|the\s+moon|the\s+sun|gravity|"
        r"quantum\s+(?:physics|mechanics)|relativity|capital\s+of|population\s+of|history\s+of\s+(?:the\s+)?"
        r"(?!this|the\s+(?:code|repo|file|project|function))\w+)\b"
    ),
    "small talk": (
        r"\bhow(?:'s|\s+is|\s+was)\s+(?:your|ur)\s+(?:day|weekend|morning|evening|week|night|life)\b|"
        r"\b(?:i'?m|i\s+am|i\s+feel|feeling)\s+(?:so\s+|really\s+|very\s+|kind\s+of\s+|a\s+bit\s+)?(?:tired|"
        r"bored|sad|happy|hungry|sleepy|exhausted|stressed|lonely|excited|sick)\b|"
        r"\bhave\s+a\s+(?:nice|good|great|lovely)\s+(?:day|evening|weekend|night|one|holiday)\b|"
        r"\bhappy\s+(?:birthday|new\s+year|holidays|friday|thanksgiving|halloween)\b|\bmerry\s+christmas\b|"
        r"\b(?:nice|good|pleased)\s+to\s+meet\s+you\b|\bweekend\s+plans\b|\bany\s+plans\s+for\b|"
        r"\bfavou?rite\s+(?:colou?r|food|movie|song|book|animal|band|season|sport|place)\b|"
        r"\btell\s+me\s+something\s+(?:interesting|fun|funny|nice|random)\b|\bfun\s+fact\b|"
        r"\bwhat'?s\s+up\b|\bhow'?s\s+it\s+going\b|\bwhat\s+(?:should|shall)\s+i\s+(?:eat|cook|watch|read|wear)\b|"
        r"\bcan\s+we\s+(?:chat|talk)\s+about\s+(?:something|anything)\b|\bi\s+(?:love|like|hate)\s+(?:you|mondays)\b"
    ),
    "conversation": (
        rf"\b(?:answer|reply|respond|talk|speak|write|explain)\s+(?:to\s+me\s+)?(?:only\s+)?in\s+(?:{_LANGUAGES})\b|"
        r"\bfrom\s+now\s+on\b|\b(?:your|the)\s+(?:answers?|replies|responses|tone|explanations?)\b|"
        r"\b(?:what|everything|anything)\s+(?:did\s+)?we\s+(?:talk(?:ed)?|discuss(?:ed)?|did|covered|were\s+doing|"
        r"decided|said|spoke)\b|\b(?:our|this|the|last|previous|earlier)\s+(?:conversation|chat|discussion)\b|"
        r"\b(?:in|during)\s+this\s+session\b|\bthis\s+session\s+(?:so\s+far|been)\b|"
        r"\bhow\s+long\s+(?:has|have)\s+(?:this|we|you)\b|\bso\s+far\s+(?:today|in\s+this)\b|"
        r"\b(?:be|sound)\s+(?:more\s+|less\s+)?(?:concise|formal|casual|friendly|polite|brief|verbose|funny)\b|"
        r"\bstop\s+(?:using|adding|with\s+the)\s+(?:emojis?|bullet\s+points|markdown|apolog\w+)\b|"
        r"\bforget\s+(?:everything|what\s+(?:i|we)|all\s+that)\b|\bremember\s+(?:my\s+name|that\s+i|me)\b|"
        r"\bwhat\s+did\s+i\s+(?:just\s+)?(?:say|ask|tell\s+you)\b|\bcan\s+you\s+remember\b|"
        r"\bclear\s+(?:the\s+)?(?:chat|conversation|history)\b|\bcontext\s+window\b|"
        r"\bhow\s+many\s+(?:tokens|messages)\s+(?:have|did)\s+(?:we|i|you)\b|\bin\s+simple(?:r)?\s+terms\b"
    ),
}
_CUE_RES = {category: re.compile(pattern) for category, pattern in _CUES.items()}

# Signs of code in the prompt itself: any of them keeps the prompt away from the gate.
_CODE_PUNCTUATION = re.compile(r"[{}\[\];=<>`]|=>|::|->|\w\(|\)\.|#\w|\$\w|\w\.\w+\(")
_CODE_WORDS = re.compile(
    r"\b(?:code|codebase|coding|repo|repository|repos|source|function|functions|func|fn|method|methods|"
    r"class|classes|module|modules|package|packages|file|files|folder|directory|variable|variables|var|"
    r"const|param|params|parameter|parameters|argument|arguments|args?|kwargs|return|returns|returned|"
    r"type|types|typed|typing|interface|interfaces|struct|enum|generic|generics|test|tests|testing|tested|"
    r"spec|specs|fixture|fixtures|mock|mocks|assert\w*|bug|bugs|buggy|error|errors|exception|exceptions|"
    r"traceback|stacktrace|crash\w*|fail\w*|broken|api|apis|endpoint\w*|route|routes|routing|router|"
    r"handler|handlers|middleware|request|requests|response|responses|header|headers|cookie|cookies|"
    r"server|client|query|queries|database|db|sql|schema|cache|caching|cached|config|configuration|"
    r"settings?|option|options|flag|flags|env|build|builds|compile\w*|deploy\w*|install\w*|dependency|"
    r"dependencies|deps|import|imports|export|exports|library|libraries|lib|plugin|plugins|hook|hooks|"
    r"callback|callbacks|promise|promises|async|await|sync|thread|threads|process|processes|event|events|"
    r"listener|listeners|stream|streams|buffer|parser|parsing|parse|serializ\w+|deserializ\w+|json|yaml|"
    r"xml|csv|html|css|http|https|url|urls|cli|command|commands|script|scripts|log|logs|logging|logger|"
    r"services?|rpcs?|grpc|protos?|protobuf|stubs?|docker\w*|pipelines?|calls?|caller|callers|callee|"
    r"callees|invok\w+|symbols?|directories|signals?|sigterm|sigint|"
    r"components?|widgets?|helpers?|utils?|utilit(?:y|ies)|metadata|tables?|columns?|templates?|views?|"
    r"debug\w*|implement\w*|refactor\w*|rename|commit|commits|branch|merge|diff|lint\w*|regex|string|"
    r"strings|array|arrays|list|dict|object|objects|instance|constructor|property|properties|attribute|"
    r"attributes|field|fields|key|keys|index|indexing|loop|recursion|algorithm|performance|timeout|"
    r"retry|retries|queue|worker|token|tokens|auth|authentication|login|permission|permissions|operator|"
    r"operators|observable|decorator|closure|iterator|generator|lambda|null|undefined|none|nil|boolean|"
    r"integer|int|float|bytes|encoding|unicode|utf-?8|locale|i18n|l10n|ui|ux|frontend|backend|app|"
    r"application|framework|sdk|version|versions|release|changelog|docs|documentation|readme|"
    r"python|javascript|typescript|node|npm|pip|java|golang|rust|ruby|php|go\s+code)\b"
)
# "where/how (do) we <verb>": the team asking about its own code ("where we validate the input"),
# not about the exchange ("where were we", "how are we doing", "how long have we been talking").
_TEAM_ASKS = re.compile(
    r"\b(?:where|how)\s+(?:(?:do|does|did|can|could|should|would)\s+)?we\s+"
    r"(?!(?:are|were|doing|be|been|have|had|talk\w*|discuss\w*|chat\w*|spoke|said|left|going)\b)[a-z]{3,}"
)
_WORD = re.compile(r"[a-z][a-z']+")
_DEICTIC = re.compile(r"\b(?:this|that|these|those|it|its|it's|here|above|below|same|again)\b")
NO_CODE = "no sign of code"
# Cues about the exchange itself, not a topic: their words are no evidence (see `gate`).
META_CATEGORIES = frozenset({"assistant", "conversation", "small talk", "translation"})
# Stems at least this long also match a longer name they begin (`approximat` ~ `approx`).
MIN_PREFIX = 5


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """Why the gate skipped a prompt or kept it, for the explain output and tests."""

    skip: bool
    reason: str
    matched: tuple[str, ...] = ()


def off_topic_cue(text: str, seeds: tuple[str, ...] | None = None, route: RouteName | None = None) -> str:
    """The off-topic category a prompt reads as, or "" (any sign of code in it, or no cue at all).

    Besides the categories' cues, a lookup or flow prompt with no sign of code, nothing it points back
    to (`this`, `it`, `here`: the conversation's code) and words left to look for reads as "no sign of
    code": the evidence decides. `seeds` are the prompt's seeds when the caller has them already."""
    if route in (RouteName.BUG, RouteName.ARCHITECTURE) or has_code_signal(text, seeds):
        return ""  # a bug report or an architecture question is about the code whatever its words
    lowered = text.lower().replace("’", "'")
    category = next((c for c, pattern in _CUE_RES.items() if pattern.search(lowered)), "")
    if category:
        return category
    if route in (RouteName.LOOKUP, RouteName.FLOW) and not _DEICTIC.search(lowered) and content_stems(text):
        return NO_CODE
    return ""


def has_code_signal(text: str, seeds: tuple[str, ...] | None = None) -> bool:
    """An identifier, a path, a quoted name, code punctuation, a programming word, or the team asking
    where or how it does something."""
    if seeds is None:
        seeds = extract_seeds(text)
    if seeds or _CODE_PUNCTUATION.search(text):
        return True
    lowered = text.lower().replace("’", "'")
    return bool(_CODE_WORDS.search(lowered) or _TEAM_ASKS.search(lowered))


def content_stems(text: str) -> tuple[str, ...]:
    """The stems of a prompt's words that could name something in a repo (no function or generic words)."""
    stems: dict[str, None] = {}
    for word in _WORD.findall(text.lower().replace("’", "'")):
        word = word.strip("'")
        if word in NOT_CONTENT:
            continue
        stem = _stem(word)
        if len(stem) >= MIN_STEM:
            stems.setdefault(stem, None)
    return tuple(stems)


def named_stems(names: Iterable[str]) -> frozenset[str]:
    """The stems of every identifier part of names, qualified names and paths."""
    found: set[str] = set()
    for name in names:
        for piece in re.split(r"[^A-Za-z0-9_$]+", name):
            found.update(_stem(part) for part in split_identifier(piece) if len(part) >= MIN_STEM)
    return frozenset(found)


def gate(
    route: Route,
    text: str,
    hit_names: Iterable[str],
    searched: bool = True,
    hit_texts: Iterable[str] = (),
    memory_texts: Iterable[str] = (),
) -> GateVerdict:
    """Skip a cued prompt whose content words name nothing among the top hits (their names, qualified
    names and paths); keep every other prompt, and every prompt when search did not answer (`searched`
    false): a failed search is no evidence. A search that found nothing at all is.

    A prompt nominated only for having no sign of code needs more: none of its words may occur in the
    hits' text (`hit_texts`) either. No word may occur in a recalled memory's title or body
    (`memory_texts`): the team wrote it about this repo.

    The cue's own words are left out only for the meta categories (about the assistant, the
    conversation, small talk, translation): "in this session" says nothing about a `Session` class.
    A general-knowledge or creative cue word (`weather`, `forecast`, `restaurants`) may be the
    repo's own domain, so it counts when a hit's name or path names it."""
    if not route.off_topic or route.name is RouteName.SKIP:
        return GateVerdict(False, "no off-topic cue")
    if not searched:
        return GateVerdict(False, f"{route.off_topic} cue, but no search evidence to judge it by")
    names = named_stems(hit_names)
    texts = text_stems(memory_texts) | (text_stems(hit_texts) if route.off_topic == NO_CODE else frozenset())
    stems = content_stems(_without_cues(text))
    cue_stems = () if route.off_topic in META_CATEGORIES else content_stems(text)
    matched = tuple(
        dict.fromkeys(
            [s for s in stems if _names(s, names | texts)]
            + [s for s in cue_stems if s not in stems and _names(s, names)]
        )
    )
    if matched:
        return GateVerdict(False, f"{route.off_topic} cue, but the repo names {', '.join(matched)}", matched)
    return GateVerdict(True, f"{route.off_topic}: no word of the prompt names anything in this repo")


def text_stems(texts: Iterable[str], chars: int = TEXT_CHARS) -> frozenset[str]:
    """The stems of every word (and identifier part) in the head of each text."""
    return frozenset(_stem(w) for text in texts for w in code_words(text[:chars]) if len(w) >= MIN_STEM)


def skipped(route: Route, verdict: GateVerdict) -> Route:
    """The route the gate turned into a skip."""
    return replace(route, name=RouteName.SKIP, seeds=(), reasons=(*route.reasons, verdict.reason))


def _without_cues(text: str) -> str:
    """The prompt without the words of any cue: "in this session" or "answer in french" says what the
    prompt is about (the conversation), so the repo naming a `session` or an `answer` is no evidence
    against it."""
    lowered = text.lower().replace("’", "'")
    kept = list(lowered)
    for pattern in _CUE_RES.values():  # spans found on the whole prompt: cues may overlap
        for match in pattern.finditer(lowered):
            kept[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(kept)


def _names(stem: str, named: frozenset[str]) -> bool:
    return stem in named or any(_prefixes(stem, n) for n in named)


def _prefixes(stem: str, name: str) -> bool:
    shorter, longer = (stem, name) if len(stem) <= len(name) else (name, stem)
    return len(shorter) >= MIN_PREFIX and longer.startswith(shorter)


def _stem(word: str) -> str:
    """A crude English stem, enough to match `retries` with `retry` and `scheduled` with `schedule`."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ers", "er", "ed", "es", "s", "e"):
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word

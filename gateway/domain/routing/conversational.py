"""Conversational prompts: greetings, thanks, chat about the conversation, content-free replies, and
Claude Code's own session commands. Every phrase of a prompt must come from these lists for it to skip."""

from __future__ import annotations

import re

from gateway.domain.routing.route import Route, RouteName
from gateway.domain.routing.seeds import extract_seeds
from gateway.domain.routing.words import words

_SKIP_PHRASES = r"""
    hi(?:\s+there)? | hello(?:\s+there)? | hey(?:\s+there)? | hiya | howdy | yo | greetings
  | good\s+(?:morning|afternoon|evening|night)
  | morning | thanks?(?:\s+(?:you|u))?(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|ton|bunch)|\s+again)?
  | thank\s+you | thx | tysm | ty | cheers | many\s+thanks | much\s+appreciated | appreciate\s+(?:it|that)
  | (?:i\s+)?appreciate\s+(?:your|the)\s+help
  | (?:that|this|it)\s+(?:was|is)\s+(?:really\s+|very\s+|super\s+)?(?:helpful|useful|great|perfect|awesome)
  | great | awesome | perfect | nice | cool | excellent | amazing | brilliant | fantastic | wonderful | sweet
  | great\s+job | good\s+job | nice\s+(?:work|job|one) | well\s+done | good\s+stuff | love\s+it | you\s+rock
  | you(?:'re|\s+are)\s+(?:the\s+best|awesome|great|a\s+star) | wow | haha | lol
  | bye | goodbye | see\s+(?:you|ya)(?:\s+later|\s+tomorrow)? | later | good\s+night | gn | cya
  | that'?s\s+(?:all|it|everything)(?:\s+(?:i\s+need(?:ed)?|for\s+(?:now|today)))?
  | (?:that'?s|that\s+is)\s+(?:exactly|precisely)\s+(?:it|right|the\s+one) | that'?s\s+the\s+one
  | (?:we'?re|i'?m)\s+done(?:\s+for\s+(?:now|today))?
  | done\s+for\s+(?:now|today) | nothing\s+else | no\s+that'?s\s+all | never\s*mind | nvm | no\s+worries
  | np | no\s+problem | all\s+good(?:\s+now)? | all\s+set | problem\s+solved | solved
  | (?:that|this|it)\s+(?:works|worked|did\s+it|did\s+the\s+trick|fixed\s+it|solved\s+it)(?:\s+now)?
  | (?:it'?s|it\s+is|everything\s+is)\s+working(?:\s+now)? | it\s+works(?:\s+now)? | works\s+now
  | works\s+(?:great|perfectly|fine)(?:\s+now)?
  | (?:that'?s|that\s+is|this\s+is|it'?s|just)\s+(?:exactly\s+|precisely\s+)?
    what\s+i\s+(?:wanted|needed|was\s+(?:looking\s+for|after))
"""
_META_ITEMS = r"""
        be\s+(?:more\s+)?(?:concise|brief|terse)
      | (?:answer|reply|respond)\s+(?:more\s+)?(?:briefly|concisely|shortly|in\s+\w+)
      | (?:answer|reply|respond|write)\s+(?:in\s+|with\s+)?(?:shorter|short|brief|briefer|concise)
        (?:\s+(?:messages|answers|replies|responses|form|sentences))?
      | keep\s+(?:it|your\s+(?:answers?|replies|reply|responses?)|answers?|replies|responses?)
        \s+(?:short|shorter|brief)(?:er)?
      | what'?s\s+the\s+weather(?:\s+like)?(?:\s+today)? | how\s+are\s+you(?:\s+doing)?(?:\s+today)?
      | (?:use\s+)?(?:shorter|less\s+verbose|fewer\s+words)(?:\s+answers?|\s+responses?)?
      | (?:explain|say)\s+(?:that|it|this)\s+(?:again|differently|more\s+simply)(?:\s+in\s+simpler\s+terms)?
      | explain\s+(?:that|it|this)\s+in\s+simpler\s+terms | in\s+simpler\s+terms | in\s+plain\s+english
      | repeat\s+(?:that|it) | say\s+(?:that|it)\s+again
      | what\s+(?:did|do)\s+you\s+(?:just\s+)?(?:say|mean)(?:\s+by\s+(?:that|this))?
      | summari[sz]e\s+(?:our|this|the)\s+(?:conversation|chat|discussion|session)(?:\s+so\s+far)?
      | what\s+(?:were|are)\s+we\s+(?:doing|working\s+on|talking\s+about) | where\s+were\s+we
      | who\s+are\s+you | what\s+(?:model|llm)\s+are\s+you | are\s+you\s+(?:there|still\s+there) | you\s+there
      | tl;?dr | eli5
"""

# Weak agreement words read as an acknowledgement next to thanks ("ok thanks"), as a go-ahead alone ("ok").
_WEAK_CONTINUE_PHRASES = r"""
    sure | ok | okay | k | kk | alright | right | fine | good | true | correct | exactly | agreed | indeed
"""
_CONTINUE_PHRASES = r"""
    yes | yeah | yep | yup | ya | y | absolutely | definitely | of\s+course | please | pls | plz
  | (?:let'?s\s+)?do\s+(?:it|that|this|so|both|all(?:\s+of\s+them)?)(?:\s+now)? | let'?s\s+(?:go|do\s+it)
  | go\s+(?:ahead|for\s+it|on) | proceed | continue | keep\s+going | carry\s+on | resume | next(?:\s+step)?
  | sounds\s+(?:good|great|right|fine) | looks\s+(?:good|great|right|fine) | lgtm | ship\s+it | make\s+it\s+so
  | approved? | confirm(?:ed)? | try\s+again | retry | again | one\s+more\s+time | run\s+it
  | finish\s+(?:it|up)
  | (?:do\s+)?the\s+same\s+(?:for|with)\s+the\s+(?:rest|others) | same\s+for\s+the\s+(?:rest|others)
  | option\s+\w | \d{1,2} | [a-d] | (?:the\s+)?(?:first|second|third|fourth|last|other)\s+one | both
  | all\s+of\s+them | no | nope | nah | not\s+yet | wait | stop | hold\s+on | hang\s+on
"""
_FILLERS = r"""oh | so | well | then | now | hmm | claude | man | mate | buddy | :\)
  | for\s+(?:the|your|all\s+the)\s+help | for\s+(?:yesterday|today|everything|all|that|this)"""


def _alternatives(*patterns: str) -> list[str]:
    """The top-level alternatives of verbose patterns, whitespace removed, longest first."""
    found: set[str] = set()
    for pattern in patterns:
        compact = re.sub(r"\s+", "", pattern)
        depth, start = 0, 0
        for i, char in enumerate(compact):
            escaped = i > 0 and compact[i - 1] == "\\"
            if char == "(" and not escaped:
                depth += 1
            elif char == ")" and not escaped:
                depth -= 1
            elif char == "|" and depth == 0:
                found.add(compact[start:i])
                start = i + 1
        found.add(compact[start:])
    return sorted((a for a in found if a), key=lambda a: (-len(a), a))


# Every meta phrase may be asked politely; one alternative per phrase so each can end the match on its own.
_META_PHRASES = "|".join(
    rf"(?:can\s+you\s+|could\s+you\s+|please\s+)*(?:{item})" for item in _alternatives(_META_ITEMS)
)
_SEP = r"[\s,.!?;:\-–—…()'\"*]*"
_SKIP_RE = re.compile(rf"\b(?:(?:{_SKIP_PHRASES})|(?:{_META_PHRASES}))(?!\w)", re.VERBOSE)
_CONTINUE_RE = re.compile(rf"\b(?:{_CONTINUE_PHRASES})(?!\w)", re.VERBOSE)
# Is the prompt made only of such phrases? Each phrase is atomic and must end at a word boundary, and the
# loop is possessive: a run of look-alike phrases ("again again again …") parses in linear time. A parse
# the first-matching (longest-first) phrase choice misses just routes the prompt normally (never a skip).
_ANY_PHRASE = (
    "(?>"
    + "|".join(
        f"(?:{alternative})(?!\\w)"
        for alternative in _alternatives(
            _SKIP_PHRASES, _META_PHRASES, _CONTINUE_PHRASES, _WEAK_CONTINUE_PHRASES, _FILLERS
        )
    )
    + ")"
)
_CONVERSATIONAL = re.compile(rf"^{_SEP}(?:{_ANY_PHRASE}{_SEP})*+$")
_NON_TEXT = re.compile(r"[^\w\s'’,.!?;:\-–—…()\"*:]+")  # emoji and symbols are ignored
_OPENING = re.compile(rf"^{_SEP}(?:{_SKIP_PHRASES})(?!\w)", re.VERBOSE)

# Claude Code's built-in commands that are about the session, not the code.
SESSION_COMMANDS = words(
    """clear compact cost help model config status login logout doctor memory permissions vim theme exit quit
    resume agents mcp hooks bug release-notes terminal-setup upgrade export context usage add-dir ide
    privacy-settings statusline output-style rewind todos bashes feedback install-github-app"""
)
_COMMAND_ROUTES = {
    "init": RouteName.ARCHITECTURE,
    "review": RouteName.LOOKUP,
    "pr-comments": RouteName.LOOKUP,
    "security-review": RouteName.LOOKUP,
}
SLASH_COMMAND = re.compile(r"^/([a-z][\w:-]*)\b\s*(.*)$", re.DOTALL | re.IGNORECASE)


def opens_with_courtesy(text: str) -> bool:
    """The prompt opens with a greeting, thanks or praise ("hey, happy monday! where do we…")."""
    return bool(_OPENING.match(text.lower()))


def classify_command(command: str, args: str) -> Route | None:
    if command in SESSION_COMMANDS:
        return Route(RouteName.SKIP, 0.95, (), (f"/{command} is a session command",))
    if command in _COMMAND_ROUTES:
        name = _COMMAND_ROUTES[command]
        return Route(name, 0.8, extract_seeds(args), (f"/{command} command",))
    return None


def classify_conversational(text: str) -> Route | None:
    normalised = _NON_TEXT.sub(" ", text.lower().replace("’", "'")).strip()
    if not normalised:
        return Route(RouteName.SKIP, 0.9, (), ("only emoji or symbols",))
    if not _CONVERSATIONAL.match(normalised):
        return None
    if _SKIP_RE.search(normalised) and not _CONTINUE_RE.search(_SKIP_RE.sub(" ", normalised)):
        return Route(RouteName.SKIP, 0.9, (), ("greeting, thanks or chat about the conversation",))
    # "yes", "ok go ahead", "continue": the code of the previous prompt is already in the conversation
    # (its block was injected then), so looking it up again would only repeat it.
    return Route(
        RouteName.SKIP, 0.8, (), ("content-free reply: the previous context is already in the conversation",)
    )

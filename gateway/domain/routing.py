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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

from kit.text import identifier_tokens


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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

    @property
    def symbol_seeds(self) -> tuple[str, ...]:
        return tuple(s for s in self.seeds if not is_path_seed(s))

    @property
    def path_seeds(self) -> tuple[str, ...]:
        return tuple(s for s in self.seeds if is_path_seed(s))


# Long prompts are read for intent in their head and tail only (the ask is at one end or the other), and
# for seeds in a larger window: this keeps classify() well under a millisecond at the sanitiser's cap.
INTENT_HEAD_CHARS, INTENT_TAIL_CHARS = 320, 160
SEED_HEAD_CHARS, SEED_TAIL_CHARS = 800, 200
MAX_SEEDS = 8
# A prompt this short may be a pure courtesy / continuation; longer ones always carry content.
CONVERSATIONAL_MAX_CHARS = 160

_FILE_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|cs|cpp|cc|cxx|c|h|hpp|hh|swift|scala|m|mm|"
    "md|mdx|rst|txt|yaml|yml|json|toml|ini|cfg|conf|env|sql|sh|bash|zsh|ps1|proto|html|css|scss|sass|less|"
    "vue|svelte|lua|ex|exs|erl|hrl|dart|r|jl|clj|cljs|elm|hs|ml|mli|fs|fsx|vb|pl|pm|tf|hcl|gradle|xml|"
    "lock|dockerfile|mk|cmake|bzl|scm|graphql|gql|ipynb"
)
_COMMON_DIRS = _words(
    "src lib app apps pkg cmd internal test tests spec services service gateway kit cli packages "
    "components pages api server client web frontend backend scripts tools docs config deploy"
)
_BARE_TOKEN = re.compile(r"[^\s`'\"()<>\[\]{},;]+")
_HAS_EXTENSION = re.compile(rf"\.(?:{_FILE_EXTENSIONS})$", re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
_QUOTED = re.compile(r"`([^`\n]{1,80})`|\"([^\"\s]{2,60})\"|(?<![\w])'([^'\s]{2,60})'(?![\w])")
_CALL_SHAPED = re.compile(r"\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((?:[^()\s]{0,30})?\)")
_KIND_WORDS = (
    "function|func|method|class|struct|interface|enum|module|decorator|hook|component|endpoint|handler|"
    "fixture|constant|variable|field|attribute|property|trait|macro|table|rpc|command|flag|option|setting"
)
_KIND_AFTER = re.compile(rf"\b(?:the|a|an|our|this|that)\s+`?([A-Za-z_][\w]*)`?\s+(?:{_KIND_WORDS})s?\b")
_KIND_BEFORE = re.compile(
    r"\b(?:function|func|method|class|struct|interface|enum|def|fn|rpc)\s+`?([A-Za-z_]\w*)"
)
_NAME_SHAPE = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$")
# Identifier-shaped words of everyday tech English: they would only ever resolve to nothing.
_NOT_SEEDS = _words(
    """e.g i.e etc vs gRPC iOS macOS iPhone iPad JavaScript TypeScript GitHub GitLab PyPI FastAPI OpenAI
    PostgreSQL MySQL GraphQL YouTube LinkedIn WebSocket ChatGPT VSCode DevOps NodeJS Node.js Vue.js Next.js
    React.js Nuxt.js Express.js D3.js LaTeX NumPy SciPy PyTorch TensorFlow SQLite MongoDB DynamoDB
    McDonald ClaudeCode MacBook JetBrains IntelliJ PyCharm WebStorm DuckDB BigQuery OAuth README.md"""
)
_WORD_STOP = _words(
    """the a an this that these those it its to of in on for and or but with from by at as is are was be
    which what who whom whose where when why how all any each every some same other new old my our your
    their his her one two there here then than so do does did not no yes can could would should will
    just only also more most very"""
)

# ---------------------------------------------------------------------------------------------------
# Conversational prompts: every phrase must come from these lists for skip / follow-up.

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
  | (?:we'?re|i'?m)\s+done(?:\s+for\s+(?:now|today))?
  | done\s+for\s+(?:now|today) | nothing\s+else | no\s+that'?s\s+all | never\s*mind | nvm | no\s+worries
  | np | no\s+problem | all\s+good(?:\s+now)? | all\s+set | problem\s+solved | solved
  | (?:that|this|it)\s+(?:works|worked|did\s+it|did\s+the\s+trick|fixed\s+it|solved\s+it)(?:\s+now)?
  | (?:it'?s|it\s+is|everything\s+is)\s+working(?:\s+now)? | it\s+works(?:\s+now)? | works\s+now
  | works\s+(?:great|perfectly|fine)(?:\s+now)?
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

# Claude Code's built-in commands that are about the session, not the code.
_META_COMMANDS = _words(
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
_SLASH_COMMAND = re.compile(r"^/([a-z][\w:-]*)\b\s*(.*)$", re.DOTALL | re.IGNORECASE)

# ---------------------------------------------------------------------------------------------------
# Intent rules: (weight, reason, pattern) per route, matched on the lowercased prompt.

_FAIL_WORDS = (
    r"fail\w*|crash\w*|break\w*|broke|error\w*|throw\w*|rais\w+|hang\w*|slow\w*|empty|null|none|nil|undefined|"
    r"nan|wrong|missing|skip\w*|duplicat\w*|twice|never|always|instead|differ\w*|stale|lost|disappear\w*|"
    r"returning|showing|including|ignoring|dropping"
)
_PARTICIPLES = (
    r"computed|calculated|built|generated|resolved|handled|processed|loaded|parsed|validated|stored|called|"
    r"invoked|triggered|used|passed|initiali[sz]ed|created|set|populated|determined|chosen|selected|decided|"
    r"routed|dispatched|scheduled|seriali[sz]ed|cached|checked|enforced|refreshed|propagated|applied|merged|"
    r"ranked|scored|indexed|assigned|wired|registered|emitted|consumed|fetched|updated|persisted|written|"
    r"promoted|demoted|archived|evicted|expired|invalidated|deleted|removed|added|saved|sent|returned|converted|"
    r"transformed|rendered|displayed|shown|logged|authenticated|authori[sz]ed|matched|filtered|sorted|embedded|"
    r"chunked|batched|retried|queued|cleaned|reloaded|restarted|started|stopped|closed|opened"
)
_FLOW_VERBS = (
    r"reach|get\s+to|end\s+up|flow|propagat\w*|make\s+it|get\s+passed|get\s+called|get\s+invoked|get\s+triggered|"
    r"get\s+from|go\s+from|travel|hand\s+off|interact|talk\s+to|communicate|connect\s+to|work|handle|decide|"
    rf"choose|pick|know|trigger|get\s+(?:{_PARTICIPLES})"
)
_ORG_NOUNS = (
    r"code|codebase|code\s+base|project|repo|repository|app|application|system|services?|modules?|packages?|"
    r"folders?|directories|backend|frontend|monorepo|tests?|source|src|library|lib"
)

_RULES: dict[RouteName, list[tuple[float, str, str]]] = {
    RouteName.BUG: [
        (
            3.0,
            "pasted log or traceback",
            r"\blog: \d+ lines|\btraceback|\bstack\s*trace|\bsegfault|\bsegmentation\s+fault|\bcore\s+dump",
        ),
        (3.0, "crash/panic", r"\bcrash\w*|\bpanic\w*"),
        (
            3.0,
            "regression",
            r"\bregression|\bused\s+to\s+work|\bworked\s+(?:before|yesterday)|\bno\s+longer\b",
        ),
        (2.5, "error word", r"\w*(?:error|exception)"),
        (2.5, "failure word", r"\bfail\w*|\bbroken\b|\bbreaks\b|\bbug\w*\b"),
        (
            2.5,
            "does not work",
            r"\b(?:\w+n'?t|not|never|stopped|cannot)\s+(?:be\s+)?(?:work|run|load|compil|start|return|sav|"
            r"updat|show|render|fire|trigger|connect|find|match|get\s+(?:called|backfilled|set))\w*",
        ),
        (
            2.0,
            "wrong result",
            r"\bwrong\b|\bincorrect\b|\bunexpected\w*|\breturns?\s+(?:an?\s+|the\s+)?(?:none|null|nil|undefined|nan|nothing|empty|"
            r"false|0\b|the\s+wrong)|\breturning\s+(?:none|null|nothing|empty|\w+\s+\w+\s+that)|\boff[-\s]by[-\s]one\b|"
            r"\bdeadlock\w*|\brace\s+condition|\bhang\w*|\bfreez\w*|\bleak\w*|\btime[sd]?\s*out\b|\btimeouts?\b|"
            r"\bflak\w*|\bintermittent\w*|\bstale\b|\b(?:50\d|40\d)\b|\bduplicat\w*|\blogged\s+out\b|\bswallow\w*|"
            r"\bslow\w*\s+(?:after|since|than)|\b\d+x\s+slower|\bnever\s+(?:get|gets|got)\b|\bthrow\w*",
        ),
        (
            2.0,
            "symptom",
            r"\bunreachable\b|\bgarbage\b|\bnonsense\b|\bgarbled\b|\bcorrupt\w*|\bmangled\b|\bweird\b|"
            r"\bstrange\b|\bmisbehav\w*|\b\d+\s*%\s*cpu\b|\bcpu\s+(?:usage|spikes?|at)\b|\bhigh\s+(?:cpu|memory)\b|"
            r"\bmemory\s+usage\b|\bout\s+of\s+memory\b|\boom\b|\binfinite\s+loop\b|\bkeeps\s+\w+ing\b|"
            r"\bpermission\s+denied\b|\bconnection\s+refused\b|\bnot\s+found\b|\bnon[-\s]?zero\s+exit\b|"
            r"\bexit\s+code\b|\bbut\s+it(?:'?s|\s+is)\s+(?:running|there|set|installed|correct|up)\b|\bgets?\s+killed\b|"
            r"\bstuck\b|\bsomething(?:'?s|\s+is)\s+off\b|\b(?:way\s+)?too\s+(?:high|low|many|few|big|large|small|long)\b|"
            r"\b(?:\w+n'?t|not|never)\s+\w+\s+(?:anything|at\s+all)\b|\brejects?\s+(?:valid|good|correct|legit\w*)\b|"
            r"\b(?:looks|seems|is|are)\s+off\b|\b(?:\w+n't|not)\s+(?:being\s+)?accepted\b",
        ),
        (1.0, "intermittent", r"\bsometimes\b|\brandomly\b|\boccasionally\b"),
        (2.0, "why + failure", rf"\bwhy\b.{{0,80}}\b(?:{_FAIL_WORDS})\b"),
        (
            2.5,
            "why not",
            r"\bwhy\s+(?:doesn'?t|does\s+not|don'?t|didn'?t|isn'?t|aren'?t|won'?t|can'?t|is\s+not|is\s+no)\b",
        ),
        (2.0, "still broken", r"^(?:it'?s\s+)?still\b|^same\s+(?:error|problem|issue|thing)\b"),
        (
            1.5,
            "fix/debug",
            r"\bfix(?:e[sd]|ing)?\b|\bdebug\w*|\binvestigat\w*|\broot\s+cause\b|\bdiagnos\w*|\bwarning\w*",
        ),
        (1.0, "issue", r"\bissues?\b|\bproblem\b"),
    ],
    RouteName.FLOW: [
        (
            3.0,
            "callers/callees",
            r"\bwho\s+(?:calls|uses|invokes|reads|writes|sets|modifies|touches|creates|imports|handles|consumes|sends|"
            r"emits|owns)\b|\bwhat\s+(?:calls|uses|invokes|triggers)\b|\bcall(?:er|ee)s?\s+of\b|"
            r"\bcall\s+(?:chain|graph|tree|stack|path|hierarchy|sites?)\b|\bcalls?\s+into\b|\bcalled\s+from\b|"
            r"\b(?:used|invoked|triggered|referenced)\s+by\b|\bwhich\s+(?:functions?|methods?|code|modules?|files?|"
            r"classes?)\s+(?:call|use|invoke|depend)|\bwhat\s+depends\s+on\b|\bwhat\s+would\s+break\b|"
            r"\b(?:everything|anything|places?|code|all)\s+(?:that\s+|which\s+)?(?:calls|uses|invokes|references|"
            r"writes\s+to|reads\s+from)\b|\bwhich\s+(?:\w+\s+){0,2}(?:write|writes|read|reads|touch|touches|modify|"
            r"modifies)\b|"
            r"\bblast\s+radius\b|\bunder\s+the\s+hood\b",
        ),
        (1.5, "mentions callers", r"\bcall(?:er|ee)s?\b"),
        (
            3.0,
            "where is X called",
            r"\bwhere\s+(?:is|are|does|do)\b.{1,60}\b(?:called|invoked|used|triggered|referenced|handled|get\s+"
            r"(?:invoked|called|set)|come\s+from|comes\s+from)\b|\bwhere\s+(?:is|are)\s+(?:this|that|the)\s+\w+\s+"
            r"handled\b",
        ),
        (
            3.0,
            "trace / what happens",
            r"\btrac(?:e|es|ed|ing)\b(?<!stack\strace)(?<!stack\straces)|\bwalk\s+me\s+through\s+(?:what|how)|\bstep\s+by\s+step\b|"
            r"\bwhat\s+happens\s+(?:to|when|if|after|before|during|on)\b|"
            r"\bwhat\s+(?:code\s+)?(?:runs|gets\s+(?:called|run|executed)|is\s+(?:called|run|executed))\s+"
            r"(?:when|on|after|before|if)\b|\bend[-\s]to[-\s]end\b|\bdata\s*flow\b|"
            r"\bcontrol\s*flow\b|\bexecution\s+(?:path|flow|order)\b|\bcode\s+paths?\b|\blifecycle\b|"
            r"\bflow\s+of\b|\bsequence\s+of\s+(?:calls|events)\b|\border\s+of\s+(?:calls|execution)\b",
        ),
        (
            2.5,
            "how does X reach Y",
            rf"\bhow\s+(?:does|do|did|can)\s+(?!i\b|you\b).{{1,80}}?\b(?:{_FLOW_VERBS})\w*|"
            r"\bhow\s+do\s+we\s+(?:go|get)\s+from\b|\bfrom\b.{1,60}\b(?:to|into)\b.{1,60}\b(?:flow|path)\b",
        ),
        (2.0, "how does X …", r"\bhow\s+(?:does|do|did)\s+(?!i\b|you\b|we\b)\w+"),
        (2.5, "how is X computed", rf"\bhow\s+(?:is|are|was|were)\s+.{{1,60}}?\b(?:{_PARTICIPLES})\b"),
        (2.0, "explain how", r"\bexplain\s+how\b|\bhow\s+\w+(?:\s+\w+){0,3}\s+works?\b"),
        (1.5, "why", r"\bwhy\s+(?:does|do|is|are|did)\b"),
        (
            1.5,
            "dependency",
            r"\bdepend\w*\s+on\b|\bif\s+i\s+change\b|\bdownstream\b|\bupstream\b|\bimpact\s+of\b",
        ),
    ],
    RouteName.ARCHITECTURE: [
        (
            3.5,
            "overview",
            r"\barchitect\w*|\bhigh[-\s]level\b|\bbig\s+picture\b|\boverview\b|\bbird'?s[-\s]eye\b|\btour\s+of\b|"
            r"\bonboard\w*|\bnew\s+to\s+(?:this|the)\b|\bwhere\s+(?:should|do)\s+i\s+(?:start|begin)\b|"
            r"\btech\s+stack\b|\bfit\s+together\b|\bmap\s+out\b|\brundown\b|\blay\s+of\s+the\s+land\b|"
            r"\bprimer\b|\bmake\s+up\s+the\b|\beach\s+(?:top[-\s]level\s+)?(?:folder|directory|module|package|service)\b|\b[\d,.]+k?\s*(?:-\s*)?f(?:oo|ee)?t\s+view\b|\bparts\s+of\s+the\s+(?:system|codebase|app|code)\b|\bcrash\s+course\b|\bintro(?:duction)?\s+to\s+(?:the|this)\b|\borient\s+me\b|"
            r"\b(?:summary|summari[sz]e|describe|explain|walk\s*through)\s+(?:of\s+)?(?:the|this|our)\s+"
            r"(?:repo|repository|codebase|code\s*base|project)\b",
        ),
        (
            3.0,
            "structure/organisation",
            rf"\b(?:{_ORG_NOUNS})\s+(?:structure|layout|organi[sz]ation|hierarchy|map|tree)\b|"
            rf"\bhow\s+(?:is|are)\s+(?:the\s+|this\s+|our\s+)?(?:\w+\s+)?(?:{_ORG_NOUNS})\s+(?:organi[sz]ed|structured|"
            r"laid\s+out|split(?:\s+up)?|divided|put\s+together|designed|architected|arranged)\b|"
            rf"\bhow\s+(?:the\s+|this\s+|our\s+)?(?:{_ORG_NOUNS})\s+(?:is|are)\s+(?:organi[sz]ed|structured|"
            r"laid\s+out|split(?:\s+up)?|divided|put\s+together|designed|arranged)\b|"
            r"\b(?:structure|layout|organi[sz]ation)\s+of\s+(?:the\s+|this\s+)?(?:code|repo|project|codebase|app)|"
            r"\bfolder\s+layout\b|\b(?:overall|repository|project)\s+structure\b|\bstructured\b",
        ),
        (
            3.0,
            "main components",
            r"\b(?:main|key|major|core|top[-\s]level)\s+(?:components|modules|parts|pieces|abstractions|concepts|"
            r"services|layers|packages|subsystems|areas|entry\s*points?)\b|\bentry\s*points?\b|"
            r"\bwhat\s+does\s+(?:this|the)\s+(?:repo|project|codebase|code\s*base|app|library|service)\s+do\b|"
            r"\bexplain\s+(?:the|this)\s+(?:codebase|repo|project|architecture|system|folder)\b|"
            r"\bwhich\s+(?:services|modules|packages|components)\s+exist\b|\blayers?\s+of\b|"
            r"\bhow\s+do\s+the\s+(?:modules|services|packages|components|layers)\s+(?:fit|relate|interact|talk|"
            r"depend)|\b(?:packages|modules|services)\s+depend\s+on\s+each\s+other\b",
        ),
        (
            2.0,
            "design",
            r"\bdesign\s+(?:patterns?|decisions?|of)\b|\boverall\s+design\b|\bdiagram\b|\bconventions?\b|"
            r"\bsummari[sz]e\s+the\s+(?:repo|repository|codebase|project)\b|\bservices\b.{0,40}\bown\b",
        ),
        (
            3.0,
            "how a part is organised",
            r"\borgani[sz]ed\b|\bhierarchy\b|\brelationship\s+between\b|\bhave\s+in\s+common\b|"
            r"\bput\s+together\b|\bwho\s+owns\b|\bimplemented\s+internally\b|"
            r"\b(?:variants?|flavou?rs?)\b.{0,40}\bdiffer\b|\bdiffer\w*\b.{0,40}\b(?:variants?|flavou?rs?)\b",
        ),
        (1.5, "module-level nouns", r"\b(?:packages|modules|services|components|layers|subsystems)\b"),
    ],
    RouteName.LOOKUP: [
        (
            2.0,
            "find/show",
            r"\bwhere\s+(?:is|are|do|does|'s)\b|\bwhere'?s\b|\bfind\b|\bshow\s+me\b|\blook\s+(?:up|for|at)\b|"
            r"\blocate\b|\bwhich\s+file\b|\bdefinition\s+of\b|\bdefined\b|\bis\s+there\s+(?:already\s+)?(?:a|an)\b|"
            r"\blist\s+(?:all|the)\b|\bexample\s+of\b",
        ),
        (
            1.5,
            "change request",
            # Each lead-in word owns the separators before it, so a run of them parses one way only.
            r"^(?:\W*(?:ok|okay|now|so|then|and|please|pls|can\s+you|could\s+you|let'?s|thanks)\b)*\W*(?:add|create|"
            r"write|implement|refactor|rename|move|extract|update|change|modify|remove|delete|replace|convert|"
            r"bump|make|use|clean|generate|document|migrate|split|merge|wire|expose|introduce|support|drop)\b",
        ),
        (
            1.0,
            "question about code",
            r"\bwhat\s+(?:does|is|'s)\b|\bwhat'?s\b|\bhow\s+(?:do|can|should)\s+i\b",
        ),
    ],
}


def _compile_rule(pattern: str) -> re.Pattern[str]:
    """Every rule starts at a word boundary; saying so up front lets the engine skip mid-word positions."""
    return re.compile(pattern if pattern.startswith("^") else rf"\b(?:{pattern})")


_COMPILED = {
    route: [(weight, reason, _compile_rule(pattern)) for weight, reason, pattern in rules]
    for route, rules in _RULES.items()
}
# Ties go to the more specific route.
_PRIORITY = (RouteName.BUG, RouteName.FLOW, RouteName.ARCHITECTURE, RouteName.LOOKUP)
_LOOKUP_BASE = 1.0
_CASED_EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
_THIN_WORDS = _words(
    """it its it's this that these those same again still now please pls just thing things one error errors
    issue issues problem problems bug bugs broken fail fails failing failed fix fixed working work works not
    isn't doesn't don't didn't won't"""
)


def classify(text: str) -> Route:
    """Route a sanitised prompt (see `sanitize.sanitize_prompt`). Pure and fast (typically ~30 µs)."""
    stripped = text.strip()
    if not stripped:
        return Route(RouteName.SKIP, 0.95, (), ("empty prompt",))
    command = _SLASH_COMMAND.match(stripped)
    if command:
        routed = _classify_command(command.group(1).lower(), command.group(2))
        if routed is not None:
            return routed
        stripped = f"{command.group(1).replace('-', ' ').replace('_', ' ')} {command.group(2)}".strip()
    if len(stripped) <= CONVERSATIONAL_MAX_CHARS:
        conversational = _classify_conversational(stripped)
        if conversational is not None:
            return conversational
    seeds = extract_seeds(_window(stripped, SEED_HEAD_CHARS, SEED_TAIL_CHARS))
    return _score(_window(stripped, INTENT_HEAD_CHARS, INTENT_TAIL_CHARS), seeds)


def resolve_follow_up(route: Route, previous: Route | None) -> Route:
    """A follow-up ("yes", "continue", "still broken") borrows the previous routed prompt's seeds.

    The route name of the previous prompt is kept for content-free continuations; a thin prompt with
    its own intent ("fix it" → bug) keeps its own name and takes the previous seeds.
    """
    if not route.follow_up or previous is None or previous.name is RouteName.SKIP:
        return route
    name = previous.name if route.name is RouteName.LOOKUP else route.name
    return replace(
        route,
        name=name,
        seeds=previous.seeds,
        confidence=min(route.confidence, previous.confidence),
        reasons=(*route.reasons, f"follow-up of a {previous.name} prompt"),
    )


def is_path_seed(seed: str) -> bool:
    return "/" in seed or bool(_HAS_EXTENSION.search(seed))


def extract_seeds(text: str, limit: int = MAX_SEEDS) -> tuple[str, ...]:
    """Names worth resolving with FindSymbols, plus file paths, in prompt order, without duplicates."""
    if "://" in text or "www." in text:
        text = _URL.sub(" ", text)
    found: dict[str, int] = {}

    def add(token: str, position: int) -> None:
        token = token.strip().strip(".,;:!?()[]{}<>'\"`").removeprefix("@")
        if len(token) < 2 or token in _NOT_SEEDS or token.lower() in _WORD_STOP:
            return
        if _NAME_SHAPE.match(token) or is_path_seed(token):
            found.setdefault(token, position)

    for match in _QUOTED.finditer(text):
        raw = next(group for group in match.groups() if group is not None)
        raw = re.sub(r"\(.*\)$", "", raw.strip())
        add(_as_path(raw) or raw, match.start())
    if "(" in text:
        for match in _CALL_SHAPED.finditer(text):
            add(match.group(1), match.start())
    paths: list[str] = []
    for match in _BARE_TOKEN.finditer(text):
        token = match.group(0)
        if "/" in token or "." in token:
            path = _as_path(token)
            if path:
                paths.append(path)
                add(path, match.start())
    for token in identifier_tokens(text):
        if _HAS_EXTENSION.search(token) or any(token in path for path in paths):
            continue  # a file name, or part of a path already taken
        if "." in token and all(len(part) <= 1 for part in token.split(".")):
            continue  # "e.g", "i.e"
        add(token, text.find(token))
    ordered = sorted(found.items(), key=lambda item: item[1])
    return tuple(token for token, _ in ordered[:limit])


def _as_path(token: str) -> str:
    """`token` as a repo path seed (line suffix dropped), or "" when it is not path-shaped."""
    token = re.sub(r":\d+(?:[:-]\d+)?$", "", token.strip().removeprefix("@")).rstrip(".,;:")
    if not token or token.startswith("--") or "://" in token:
        return ""
    if _HAS_EXTENSION.search(token) and re.search(r"[A-Za-z_]", token.rsplit(".", 1)[0]):
        return token
    if "/" not in token:
        return ""
    segments = [s for s in token.split("/") if s and s not in {".", ".."}]
    if len(segments) < 2 and not token.startswith(("./", "../")):
        return ""
    path_like = (
        token.startswith(("./", "../", "/")) or len(segments) >= 3 or segments[0].lower() in _COMMON_DIRS
    )
    if path_like and all(re.fullmatch(r"[\w.@+-]+", s) for s in segments):
        return token
    return ""


def _classify_command(command: str, args: str) -> Route | None:
    if command in _META_COMMANDS:
        return Route(RouteName.SKIP, 0.95, (), (f"/{command} is a session command",))
    if command in _COMMAND_ROUTES:
        name = _COMMAND_ROUTES[command]
        return Route(name, 0.8, extract_seeds(args), (f"/{command} command",))
    return None


def _classify_conversational(text: str) -> Route | None:
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


def _window(text: str, head: int, tail: int) -> str:
    """Head and tail of a long text, cut at whitespace so no word is split."""
    if len(text) <= head + tail:
        return text
    start, end = text[:head], text[-tail:]
    start = start[: start.rfind(" ")] if " " in start[head // 2 :] else start
    end = end[end.find(" ") + 1 :] if " " in end[: tail // 2] else end
    return f"{start}\n…\n{end}"


def _score(text: str, seeds: tuple[str, ...]) -> Route:
    lowered = text.lower().replace("’", "'")
    scores = dict.fromkeys(_PRIORITY, 0.0)
    scores[RouteName.LOOKUP] = _LOOKUP_BASE
    reasons: dict[RouteName, list[str]] = {route: [] for route in _PRIORITY}
    for route, rules in _COMPILED.items():
        for weight, reason, pattern in rules:
            if pattern.search(lowered):
                scores[route] += weight
                reasons[route].append(reason)
    if _CASED_EXCEPTION.search(text) and "error word" not in reasons[RouteName.BUG]:
        scores[RouteName.BUG] += 2.5
        reasons[RouteName.BUG].append("exception name")
    ranked = sorted(_PRIORITY, key=lambda route: (-scores[route], _PRIORITY.index(route)))
    best, runner_up = ranked[0], ranked[1]
    top, second = scores[best], scores[runner_up]
    if reasons[best]:
        confidence = round(min(0.95, max(0.3, 0.5 + 0.5 * (top - second) / top)), 2)
        why = reasons[best]
    else:
        confidence, why = 0.5, ["no specific intent: default lookup"]
    follow_up = not seeds and _is_thin(lowered)
    if follow_up:
        why = [*why, "no content words: refers to the previous prompt"]
    return Route(best, confidence, seeds, tuple(why), follow_up=follow_up)


def _is_thin(lowered: str) -> bool:
    words = re.findall(r"[a-z0-9_']+", lowered)
    return len(words) <= 6 and all(word in _THIN_WORDS or word in _WORD_STOP for word in words)

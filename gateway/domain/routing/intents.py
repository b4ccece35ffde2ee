"""Intent rules: (weight, reason, pattern) per route, matched on the lowercased prompt, and the scoring
that turns their matches into a route."""

from __future__ import annotations

import re

from gateway.domain.routing.route import Route, RouteName
from gateway.domain.routing.words import WORD_STOP, words

# The reason a prompt asking to change the code carries ("can you clean this up", "make it faster").
CHANGE_REQUEST = "change request"

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
            CHANGE_REQUEST,
            # Each lead-in word owns the separators before it, so a run of them parses one way only.
            r"^(?:\W*(?:ok|okay|now|so|then|and|please|pls|can\s+(?:you|we)|could\s+(?:you|we)|let'?s|thanks)\b)*"
            r"\W*(?:add|create|write|implement|refactor|rename|move|extract|update|change|modify|remove|delete|"
            r"replace|convert|bump|make|use|clean|tidy|simplify|optimi[sz]e|speed\s+up|generate|document|migrate|"
            r"split|merge|wire|expose|introduce|support|drop)\b",
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
_THIN_WORDS = words(
    """it its it's this that these those same again still now please pls just thing things one error errors
    issue issues problem problems bug bugs broken fail fails failing failed fix fixed working work works not
    isn't doesn't don't didn't won't"""
)


def score_intents(text: str, seeds: tuple[str, ...]) -> Route:
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
    follow_up = not seeds and is_thin(lowered)
    if follow_up:
        why = [*why, "no content words: refers to the previous prompt"]
    return Route(best, confidence, seeds, tuple(why), follow_up=follow_up)


def is_thin(lowered: str) -> bool:
    words = re.findall(r"[\w']+", lowered)  # \w: a prompt in another script is not thin
    return len(words) <= 6 and all(word in _THIN_WORDS or word in WORD_STOP for word in words)

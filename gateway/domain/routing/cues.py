"""The prompt side of the relevance gate: off-topic cues by category and the signs of code that outrank
them. Pure regular expressions, precompiled; `classify` calls `off_topic_cue` on every prompt."""

from __future__ import annotations

import re

from gateway.domain.routing.conversational import SESSION_COMMANDS
from gateway.domain.routing.route import RouteName
from gateway.domain.routing.seeds import extract_seeds
from gateway.domain.routing.words import content_stems, words

# How a speaker of a language is named ("how would a dutch person say…").
_ADJECTIVES = (
    r"english|french|german|spanish|italian|portuguese|dutch|russian|chinese|japanese|korean|polish|swedish|"
    r"greek|turkish"
)
_LANGUAGES = (
    r"english|french|german|spanish|italian|portuguese|dutch|russian|chinese|mandarin|cantonese|japanese|"
    r"korean|arabic|hindi|bengali|urdu|turkish|polish|swedish|norwegian|danish|finnish|greek|hebrew|latin|"
    r"thai|vietnamese|indonesian|malay|swahili|czech|hungarian|romanian|ukrainian|persian|farsi|tagalog|"
    r"irish|welsh|catalan|esperanto|klingon|pirate|shakespearean|emoji"
)
LANGUAGE = "language"
LANGUAGE_NAMES = tuple(_LANGUAGES.split("|"))
# A language's variety or register ("into simplified chinese", "in brazilian portuguese").
_VARIETY = r"(?:(?:simplified|traditional|brazilian|european|mexican|castilian|swiss|formal|informal|polite|plain)\s+)?"
_NAMED_LANGUAGE = rf"\b(?:in|into)\s+{_VARIETY}(?:{_LANGUAGES})\b"
# The language named ends the question ("… in French?", "… in Spanish, or do they…"), it does not qualify a
# noun ("'locale' in english fallback mode") or open a bug report ("'Save' in French? the label is blank").
_LANGUAGE_ENDS = (
    r"(?=\s*(?:$|[?.!]\s*$|[?.!,;:()\u2014\u2013-]?\s*"
    r"(?:or|and|do|does|is|are|please|pls|polite|formal|informal)\b))"
)
# Words in quotes, as a prompt quotes what it asks to translate ('…', "…", «…», “…”, 「…」), or the blank
# they leave where quoted material is blanked out (`_writes_about_code`).
_QUOTED_WORDS = r"(?:\s*[\"'«“‘「][^\"«»“”‘’「」\n]{1,60}?[\"'»”’」]\s*|\s{4,})"
# Each category's cues, matched on the lowercased prompt. They only nominate a prompt for the gate.
_CUES: dict[str, str] = {
    # The user says so: "this isn't about any project I'm working on", "nothing to do with the code".
    "unrelated": (
        r"(?:(?:\bnot|n't|\bnothing)\s+(?:\w+\s+){0,2}(?:about|related\s+to|to\s+do\s+with|connected\s+to)|"
        r"\bunrelated\s+to)\s+(?:any|my|the|our|this|a)\s+(?:\w+\s+)?(?:project|projects|code|codebase|repo|"
        r"repository|work)\b(?=\s*(?:$|[^\w\s]|(?:i|i'm|im|we|you|at\s+all|per\s+se|whatsoever|just|but)\b))"
    ),
    "assistant": (
        r"\b(?:who|what)\s+(?:are|r)\s+you\b|\bare\s+you\s+(?:an?\s+|really\s+|actually\s+)?(?:ai|bot|robot|"
        r"human|real|sentient|conscious|alive|person|chatgpt|claude|gpt\w*|smart|happy|sad|tired|ok|okay)\b|"
        r"\b(?:who|which\s+company)\s+(?:made|created|built|trained|developed|owns)\s+you\b|"
        r"\b(?:what|which)\s+(?:model|version|llm|ai|kind\s+of\s+(?:ai|model|assistant))\s+(?:are|is)\s+(?:you|this)\b|"
        r"\bwhat\s+(?:day|date|time|year|month)\s+(?:is\s+it|it\s+is)\b|"
        r"\byour\s+(?:(?:knowledge\s+|training\s+(?:data\s+)?)?cut-?off(?:\s+date)?|name|creator|maker|"
        r"training\s+data|training|favou?rite|opinion|opinions|feelings?|emotions?|age|birthday|hobb(?:y|ies)|"
        r"personality|context\s+window|limitations|capabilities|weights|memory|own\s+\w+)\b|"
        r"\bdo\s+you\s+(?:have\s+(?:feelings|emotions|a\s+(?:name|body|family|favou?rite))|feel|dream|sleep|"
        r"get\s+tired|enjoy|like\s+(?:your|being|music|movies|me)|love|hate|believe\s+in|remember\s+me|"
        r"ever\s+get)\b|\btell\s+me\s+about\s+yourself\b|\byourself\b|\bwhat\s+can\s+you\s+do\b|"
        r"\bcan\s+you\s+(?:browse|see\s+images|access\s+the\s+internet|learn|feel|think)\b|"
        r"\bhow\s+(?:were|are)\s+you\s+(?:trained|made|built|created)\b|\bare\s+you\s+better\s+than\b|"
        r"\bhow\s+(?:do|does)\s+you\s+(?:work|think|learn|decide\s+what\s+to\s+say)\b|"
        r"\bhow\s+(?:many|much)\s+\w+(?:\s+\w+)?\s+(?:can|do|could)\s+you\s+(?:read|handle|process|remember|"
        r"take|see|hold)\b|\bdo\s+you\s+(?:see|read|learn|remember|store|keep)\b(?!\s+(?:the|this|that|these|"
        r"any|where|how|why|what|which|if|whether)\b)|\bare\s+you\s+(?:running|hosted|online|offline|local)\b|"
        r"\b(?:models?|assistants?|ais?|bots?|llms?)\s+like\s+(?:you|yourself)\b|\bare\s+you\s+(?:not\s+)?allowed\b|"
        r"\b(?:can|could|do)\s+(?:you|u)\s+(?:see|read|view|open|understand)\s+(?:images?|pictures?|screenshots?|"
        r"photos?|pdfs?|videos?|audio)\b|\b(?:sent|send|sending|shared|go|goes)\s+to\s+(?:anthropic|openai)\b|"
        r"\bwhat\s+(?:\w+\s+){0,2}(?:do|can)\s+you\s+(?:support|understand|speak)\b|\bmake\s+you\s+(?:stop|start)\b|"
        r"\b(?:anthropic|openai)\s+(?:reading|read|see|sees|store|stores|storing|train|"
        r"trains|training|watching|listening|log|logs|logging|keep|keeps)\b|\bused\s+to\s+train\b|"
        r"\b(?:train|retrain|switch|downgrade)\s+(?:you|u)\b|\bon\s+(?:the|my)\s+(?:pro|max|plus|free|team|enterprise)\s+"
        r"(?:plan|tier)\b|\b(?:made|built|trained|created)\s+by\s+"
        r"(?:anthropic|openai)\b|\bcan\s+(?:you|u)\s+browse\b|"
        # The vendor's side of the service, and stopping the assistant's own habits ("stop you from asking"; not
        # the generic "you" of "stop you from passing both flags").
        r"\b(?:anthropic|openai)(?:'s)?\s+(?:servers?|side|end|cloud)\b|"
        r"\bstop\s+(?:you|u)\s+from\s+(?:asking|prompting|requesting|confirming|apologi\w*|checking\s+with\s+me)\b"
    ),
    "creative": (
        r"\b(?:poem|poems|poetry|haiku|haikus|sonnet|limerick|lyrics|joke|jokes|riddle|riddles|fairy\s*tale|"
        r"(?:bedtime|short|horror|ghost|love|funny|scary|detective|fantasy|sci-?fi|children'?s)\s+(?:\w+\s+)?(?:story|stories)|love\s+letter|ballad|rhymes?|rhyming|fable|novel|screenplay|"
        r"a\s+song|rap\s+(?:song|verse|battle)|pun|puns|toast\s+for|wedding\s+speech|eulogy|pep\s+talk|monologue|"
        r"birthday\s+(?:message|card|wish)|slogan|tagline\s+for\s+my|story\s+about|tale\s+about)\b|"
        r"\b(?:tweet|instagram\s+caption|linkedin\s+post|social\s+media\s+post)\b|"
        r"\b(?:write|compose|draft|make\s+up|come\s+up\s+with)\s+(?:me\s+)?(?:an?\s+)?(?:\w+\s+){0,2}"
        r"(?:verse|stanza|essay|speech|letter|story|tale|song|script\s+for\s+a\s+(?:movie|play|video))\b"
    ),
    # "How do I say …" asks for a translation only with a language named in the same sentence: every labelled
    # one names it ("… in Japanese"), and without one it is how to express something ("how do I say 'at least
    # one of these two options' without making either mandatory": a question about an API, read as a
    # translation before). A full stop may sit inside the quoted material, so only ? ! and a line end end it.
    "translation": (
        rf"\btranslat(?:e|es|ing)\b|\bhow\s+(?:do\s+(?:you|i)|to|would\s+you|does\s+one)\s+say\b(?=[^?!\n]*{_NAMED_LANGUAGE})|"
        rf"\b(?:tradu\w+|[üu]bersetz\w*|perevod\w*|переве\w*|перевод\w*)\b|翻译|翻譯|翻訳|번역|"
        rf"\bhow\s+(?:would|do|does|did)\s+(?:an?\s+|the\s+)?(?:{_ADJECTIVES})\s+(?:person|speaker|people|native)?\s*say\b|"
        rf"\bmean\s+in\s+(?:{_LANGUAGES})\b|\b(?:put|turn|render|rewrite|say)\b[^.?!]{{0,40}}{_NAMED_LANGUAGE}|"
        # "what's 'pull request' in French", "how would a native speaker say … in Korean", "is there an
        # equivalent idiom in Spanish": quoted words asked for in a language, or its speakers' way to say them.
        rf"\bwhat(?:'s|s|\s+is|\s+are){_QUOTED_WORDS}{_NAMED_LANGUAGE}{_LANGUAGE_ENDS}|"
        rf"\bhow\s+(?:would|do|does|did)\s+(?:an?\s+|the\s+)?native\s+(?:speakers?|persons?|people)\s+say\b"
        rf"(?=[^?!\n]*{_NAMED_LANGUAGE})|"
        rf"\b(?:equivalent|counterpart)\s+(?:\w+\s+)?(?:idiom|expression|phrase|saying|word|term)s?\s+{_NAMED_LANGUAGE}"
        rf"{_LANGUAGE_ENDS}"
    ),
    # Naming and brainstorming ("suggest 10 names for a coffee shop"): like a genre, but "ideas for
    # improving test coverage" or "a good name for a function that merges configs" is about the code.
    "ideas": (
        r"\b(?:suggest|give\s+me|come\s+up\s+with|make\s+up|brainstorm|think\s+of)\s+(?:some\s+|a\s+few\s+|\d+\s+|"
        r"(?:two|three|four|five|six|seven|eight|nine|ten)\s+)?(?:\w+\s+)?(?:names|ideas|titles|slogans|taglines|puns)\b|"
        r"\b(?:a\s+)?(?:good|catchy|cool|funny)\s+name\s+for\s+(?:a|an|my)\b"
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
        r"\bhow\s+(?:far|tall|deep|hot|cold)\s+(?:is|are|was|were)\s+(?:the\s+)?(?!it\b|this\b|"
        r"that\b)\w+|"
        r"\bto\s+(?:someone|somebody|a\s+person|people)\s+who\b|\blike\s+(?:i'?m|im|i\s+am)\s+(?:\d+|five|ten|"
        r"a\s+(?:kid|child|beginner))\b|\bbest\s+way\s+to\s+learn\b|^\W*\w+\s+or\s+\w+(?:\s+and\s+why)?\W*$|"
        r"\b(?:is|are)\s+\w+\s+(?:actually\s+|really\s+)?(?:faster|slower|better|worse|easier|harder|safer)\s+than\b|"
        r"\bin\s+general\b|\bgenerally\s+speaking\b|\bfor\s+(?:an?\s+)?(?:beginners?|"
        r"kids?|children|teenagers?|dummies|non-?programmers|newbies|layman|laymen)\b|"
        r"\b(?:is|are)\s+\w+\s+or\s+\w+\s+(?:a\s+|the\s+)?(?:better|worse|faster|easier|harder|safer)\b|"
        r"\bdifference\s+between\s+(?!the\s+two\b|these\b|those\b|this\b|our\b|them\b)|"
        r"^[^\w+#-]*[\w+#-]+(?:\s+[\w+#-]+)?\s+vs\.?\s+[\w+#-]+(?:\s+[\w+#-]+)?\b|"
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
        r"\bcan\s+we\s+(?:chat|talk)\s+about\s+(?:something|anything)\b|\bi\s+(?:love|like|hate)\s+(?:you|mondays)\b|"
        r"^\W*(?:lol|lmao|rofl|haha\w*|hehe\w*)\b|\bhilarious\b|"
        r"^\W*(?:that'?s|this\s+is)\s+(?:so\s+|really\s+|pretty\s+)?(?:funny|amazing|awesome|cool|wild|crazy|sad|"
        r"nice|great|lovely|brilliant|impressive)\W*$"
    ),
    "conversation": (
        rf"\b(?:answer|reply|respond|talk|speak|write|explain)\s+(?:to\s+me\s+)?(?:only\s+)?in\s+(?:{_LANGUAGES})\b|"
        r"\bfrom\s+now\s+on\b|\byour\s+(?:answers?|replies|responses|tone|explanations?)\b|"
        r"\b(?:what|everything|anything)\s+(?:did\s+)?we\s+(?:talk(?:ed)?|discuss(?:ed)?|did|covered|were\s+doing|"
        r"decided|said|spoke)\b|\b(?:our|this|the|last|previous|earlier)\s+(?:conversation|chat|discussion)\b|"
        r"\b(?:in|during)\s+this\s+session\b|\bthis\s+session\s+(?:so\s+far|been)\b|"
        r"\bhow\s+long\s+(?:has|have)\s+(?:this|we|you)\b|\bso\s+far\s+(?:today|in\s+this)\b|"
        r"\b(?:be|sound)\s+(?:more\s+|less\s+)?(?:concise|formal|casual|friendly|polite|brief|verbose|funny)\b|"
        r"\bstop\s+(?:using|adding|with\s+the)\s+(?:emojis?|bullet\s+points|markdown|apolog\w+)\b|"
        r"\bforget\s+(?:everything|what\s+(?:i|we)|all\s+that)\b|\bremember\s+(?:my\s+name|that\s+i|me)\b|"
        r"\bwhat\s+did\s+i\s+(?:just\s+)?(?:say|ask|tell\s+you)\b|\bcan\s+you\s+remember\b|"
        r"\b(?:first|last|previous)\s+(?:thing|question|message)\s+(?:i|you)\s+(?:said|asked|wrote|sent)\b|"
        r"\b(?:that|your)\s+(?:last|previous)\s+(?:answer|reply|response)\b|\btry\s+again\s+but\b|"
        r"\bclear\s+(?:the\s+)?(?:chat|conversation|history)\b|\bcontext\s+window\b|"
        r"\bhow\s+many\s+(?:tokens|messages)\s+(?:have|did)\s+(?:we|i|you)\b|\bfrom\s+here\s+on\b|"
        r"\b(?:keep|make)\s+(?:your\s+)?(?:answers?|replies|responses)\s+(?:shorter|longer|short|brief|concise|"
        r"simpler|simple|clearer)\b|\bstop\s+apologi[sz]\w*|"
        r"\b(?:new|change\s+(?:the\s+)?|different)\s+topic\b|\btake\s+a\s+break\b|\byou\s+win\b|"
        r"\b(?:less|more)\s+(?:formal|casual|verbose|wordy|chatty)\b|"
        # About the answer just given: its form ("as bullet points", "the second paragraph"), a correction
        # ("that's not what I meant"), a retraction ("never mind"), a doubt ("are you sure about that").
        r"\b(?:as|in(?:to)?)\s+(?:a\s+)?(?:bullet(?:\s*points?|s)|a\s+numbered\s+list|fewer\s+words|plain\s+english|"
        r"simpler\s+(?:terms|words))\b|\b(?:first|second|third|last|previous|next)\s+paragraph\b|"
        r"\bnot\s+what\s+i\s+(?:meant|asked(?:\s+for)?|wanted)\b|\bnever\s*mind\b|\bforget\s+(?:it|about\s+it)\b|"
        r"\b(?:what|everything)\s+you\s+(?:just\s+)?(?:said|wrote|meant)\b|\bexplain\s+that\s+(?:again|differently)\b|"
        r"\bare\s+you\s+sure\s+about\s+(?:that|this|it)\b|\bthat\s+last\s+(?:part|bit|point|sentence|step)\b|"
        r"\bmake\s+that\s+(?:a\s+(?:bit|lot)\s+)?(?:shorter|longer|simpler|clearer|briefer|more\s+concise)\b"
    ),
    # A language named ("…into German", "Spanish for…"): a translation when nothing else is asked, but
    # "dates show in english even for german users" is a bug report of an i18n app. Checked last: "reply
    # in French" is about the conversation.
    LANGUAGE: rf"\b(?:in|into|to)\s+{_VARIETY}(?:{_LANGUAGES})\b|\b(?:{_LANGUAGES})\s+for\b",
}
_CUE_RES = {category: re.compile(pattern) for category, pattern in _CUES.items()}

# Signs of code in the prompt itself. Strong ones (punctuation, identifiers, words for the artefacts of a
# codebase and the work on it) keep a prompt away from the gate whatever else it says; a programming
# topic word alone (`cache`, `compiler`, `tokens`, `python`) is weak: it keeps a prompt without an
# off-topic cue away, but "write a poem about a compiler" or "what does a CPU cache do" still goes to the
# gate, where the evidence decides.
# A number written as only code writes it (a hex, binary or octal literal, digits grouped by "_", with a type
# suffix or not: `0xFFu`, `1_000n`, `0xffu8`) is code punctuation too: "0xdead_beef parsing — where?".
_NUMBER_SUFFIX = r"(?:[uUlLn]|[iu](?:8|16|32|64|128|size))*"
_CODE_PUNCTUATION = re.compile(
    r"[{}\[\];=<>`]|=>|::|->|\w\(|\)\.|#\w|\$\w|\w\.\w+\("
    rf"|\b(?:0(?:[xX][0-9a-fA-F_]*[0-9a-fA-F]|[bB][01_]*[01]|[oO][0-7_]*[0-7])|\d+(?:_\d+)+){_NUMBER_SUFFIX}\b"
)
_STRONG_WORDS = (
    r"code|codebase|coding|repo|repository|repos|function|functions|func|fn|method|methods|"
    r"class|classes|module|modules|file|files|folder|directory|directories|variable|variables|var|"
    r"const|param|params|parameter|parameters|argument|arguments|args?|kwargs|return|returns|returned|"
    r"test|tests|testing|tested|spec|specs|fixture|fixtures|mock|mocks|assert\w*|bug|bugs|buggy|"
    r"traceback|stacktrace|crash\w*|fail\w*|broken|exception|exceptions|endpoint\w*|handler|handlers|"
    r"middleware|callback|callbacks|constructor|docstrings?|implement\w*|refactor\w*|rename|commit|"
    r"commits|branch|merge|diff|lint\w*|debug\w*|caller|callers|callee|callees|invok\w+|"
    r"config|configuration|deploy\w*|dependency|dependencies|deps|import|imports|plugin|plugins|"
    r"hook|hooks|helpers?|utils?|utilit(?:y|ies)|components?|widgets?|pipelines?|services?|rpcs?|"
    r"startup|start-up|boot\w*|initiali[sz]\w*|shutdown|teardown|changelog|readme|signature|overload\w*|subclass\w*|inherit\w*|instantiat\w*"
)
STRONG_CODE_WORDS = re.compile(rf"\b(?:{_STRONG_WORDS})\b")
_TOPIC_WORDS = (
    r"source|type|types|typed|typing|interface|interfaces|struct|enum|generic|generics|error|errors|"
    r"api|apis|route|routes|routing|router|request|requests|response|responses|header|headers|cookie|"
    r"cookies|server|client|query|queries|database|db|sql|schema|cache|caching|cached|settings?|option|"
    r"options|flag|flags|env|build|builds|compile\w*|install\w*|export|exports|library|libraries|lib|"
    r"promise|promises|async|await|sync|thread|threads|process|processes|event|events|listener|"
    r"listeners|stream|streams|buffer|parser|parsing|parse|serializ\w+|deserializ\w+|json|yaml|xml|csv|"
    r"html|css|http|https|url|urls|cli|command|commands|script|scripts|log|logs|logging|logger|grpc|"
    r"protos?|protobuf|stubs?|docker\w*|calls?|symbols?|signals?|sigterm|sigint|metadata|tables?|"
    r"columns?|templates?|views?|regex|string|strings|array|arrays|list|dict|object|objects|instance|"
    r"property|properties|attribute|attributes|field|fields|key|keys|index|indexing|loop|recursion|"
    r"algorithm|performance|timeout|retry|retries|queue|worker|token|tokens|auth|authentication|login|"
    r"permission|permissions|operator|operators|observable|decorator|closure|iterator|generator|lambda|"
    r"null|undefined|none|nil|boolean|integer|int|float|bytes|encoding|unicode|utf-?8|locale|i18n|l10n|"
    r"ui|ux|frontend|backend|app|application|framework|sdk|version|versions|release|docs|documentation|"
    r"python|javascript|typescript|node|npm|pip|java|golang|rust|ruby|php|go\s+code"
)
CODE_WORDS = re.compile(rf"\b(?:{_TOPIC_WORDS})\b")
# Strong code words with an everyday sense: alone, the evidence decides which sense the prompt means.
_EVERYDAY_STRONG = re.compile(
    r"class|classes|bug|bugs|crash\w*|fail\w*|broken|branch|merge|commit|commits|deploy\w*|boot\w*|"
    r"shutdown|services?|fixtures?"
)
# What a writing request may ask for that is part of the code itself.
_ARTEFACTS = re.compile(
    r"\b(?:docstrings?|doc\s+comments?|comments?|commit\s+messages?|changelog|readme|release\s+notes|"
    r"error\s+messages?|log\s+messages?|test\s+names?|i18n|l10n|locales?|translation\s+files?)\b"
)
# A topic word the prompt points at as a thing of this project ("the parser", "our cache", "the error
# messages"), not a concept ("a compiler", "tokens", "python"): a strong sign. `_DEFINITE_TOPIC` leaves out
# "my": "my house keys", "my performance review" are the user's own things; "my handler" has a strong word.
# "that" before a subject opens a relative clause ("an API that nobody calls"), it points at nothing.
_THAT = r"that(?!\s+(?:nobody|no\s+one|everyone|everybody|someone|somebody|i|you|we|they|he|she|people)\b)"
_DEFINITE_CODE = re.compile(
    rf"\b(?:the|this|{_THAT}|these|those|our|my)\s+(?:[\w'-]+\s+){{0,3}}(?:{_TOPIC_WORDS}|{_STRONG_WORDS})\b"
)
# The repo itself, named: "in this codebase", "our repo".
_THIS_REPO = r"\b(?:this|our)\s+(?:repo|repository|codebase|code\s*base|project)\b"
# Pointing at this project's code itself: "our retry logic", "this function", "the worst function in here".
_OURS = re.compile(
    rf"\b(?:this|these|those|our)\s+(?:[\w'-]+\s+){{0,3}}(?:{_TOPIC_WORDS}|{_STRONG_WORDS})\b|\bin\s+here\b|"
    + _THIS_REPO
)
_NAMES_THIS_REPO = re.compile(_THIS_REPO)


def names_this_repo(text: str) -> bool:
    """The prompt names the repo itself ("whats the weather like in this codebase", "our repo")."""
    return bool(_NAMES_THIS_REPO.search(lower(text)))


_DEFINITE_TOPIC = re.compile(rf"\b(?:the|this|{_THAT}|these|those|our)\s+(?:[\w'-]+\s+)?(?:{_TOPIC_WORDS})\b")
# Notation in prose that only looks like code: big-O is mathematics, not a call ("why is quicksort O(n^2) in
# the worst case"; `log` needs no alternative of its own: `\w` reads it, and the two together backtracked
# exponentially on an unclosed "O(" before many words holding "log"), "tl;dr" is chat, and an amount of money
# is not a `$var` ("how does compound interest work, with $1000 at 5%": a fresh set of English off-topic
# prompts, thirteenth session). Money is written with two digits or more, a decimal part or a thousands
# separator; `$1`, `$0`, `$9` stay code (a shell argument, a regex group, a SQL bind parameter).
_MONEY = r"(?<![\w$])\$(?:\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+|\d{2,})\b"
_PROSE_NOTATION = re.compile(rf"\b[OΘΩo]\((?:[\w^*+\s·.-]|\(\w+\))*\)|\btl;\s?dr\b|{_MONEY}", re.IGNORECASE)
# "where/how (do) we <verb>": the team asking about its own code ("where we validate the input"),
# not about the exchange ("where were we", "how are we doing", "how long have we been talking").
_TEAM_ASKS = re.compile(
    r"\b(?:where|how)\s+(?:(?:do|does|did|can|could|should|would)\s+)?we\s+"
    r"(?!(?:are|were|doing|be|been|have|had|talk\w*|discuss\w*|chat\w*|spoke|said|left|going)\b)[a-z]{3,}"
)
# How one asks about a program's behaviour ("what happens when the input is empty", "walk me through how
# startup works", "why does the song stop"): with no other sign of code, one named word is enough.
BEHAVIOUR_ASK = re.compile(
    r"\bwhat\s+happens\s+(?:when|if|after|before|once|on)\b|\bwalk\s+(?:me\s+|us\s+)?through\b|"
    r"\bstep\s+by\s+step\b|\bunder\s+the\s+hood\b|\bend\s+to\s+end\b|"
    r"\bwhy\s+(?:does|do|is|are|did|would|doesn't|don't|isn't|won't|can't)\s+the\b"
)
# "this morning", "that weekend" point at a time, not at the code under discussion.
_TIMES = (
    r"morning|afternoon|evening|night|weekend|week|month|year|summer|winter|spring|autumn|fall|season|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|holiday|holidays"
)
_DEICTIC = re.compile(
    rf"\b(?:(?:this|that)(?!\s+(?:{_TIMES})\b)|these|those|it|its|it's|here|above|below|same|again)\b"
)
# A pronoun after this many content words refers back to them, not to the screen (`_points`).
ANTECEDENT = 2
_ALWAYS_POINTS = frozenset({"here", "above", "below"})
# "this loop", "these tests": a demonstrative before a noun, not before a verb or a word of degree; and "this"
# or "these" ending a sentence ("passed around inside this", "can you look at these?").
_DEMONSTRATIVE = re.compile(
    r"(?:this|these|those)\s+(?!(?:is|was|are|were|does|do|did|has|have|had|will|would|can|could|should|"
    r"must|might|may|one|ones|way|much|many|time|too|so|and|or|but|for|to|in|on|at|of|with|from|by|as|"
    r"about|again|all|work|works|worked|happen|happens|happened|mean|means|meant|thing|stuff)\b)[a-z]|"
    r"(?:this|these)\s*(?:[?!.:;,)]|$)"
)
# "It" that points at nothing (a dummy subject): "it's freezing here", "it's pouring again". Not "is it safe
# to …": its infinitive often leaves out the object, the code on screen ("is it safe to call twice?").
_EXPLETIVE_IT = re.compile(
    r"\bit(?:'s|\s+is|\s+was)\s+(?:(?:so|really|very|too|super|pretty|absolutely|literally|still|already)\s+)?"
    r"(?:raining|pouring|snowing|freezing|boiling|hot|cold|chilly|warm|sunny|windy|humid|cloudy|foggy|stormy|"
    r"(?:-?\d+\s*)?degrees)\b(?!\s+(?:when|whenever|after|during|while|on\s+(?:start|startup|load|launch))\b)"
)
# The whole prompt asks what a concept is or how it works in general — "what does a CPU cache do", "how
# does public key cryptography work at a high level" — a textbook question even when its words are
# programming words; "what does the cache do" points at a thing of the project and never gets here.
_CONCEPT_THING = (
    r"(?:an?\s+)?(?!(?:the|this|that|these|those|our|my|your|its?|we|you|i|they)\b)"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?"
)
_CONCEPT = re.compile(
    rf"^\W*(?:(?:so|ok|okay|and|hey|hi)\W+)?(?:(?:what(?:'s|\s+is|\s+are)|explain(?:\s+what)?)\s+{_CONCEPT_THING}|"
    rf"what\s+(?:does|do)\s+{_CONCEPT_THING}\s+(?:do|mean)|how\s+(?:does|do)\s+{_CONCEPT_THING}\s+(?:work|works))"
    r"(?:\s+(?:at\s+a\s+high\s+level|in\s+general|in\s+simple\s+terms|in\s+practice|exactly))?\W*$"
)
GENERAL_KNOWLEDGE = "general knowledge"
NO_CODE = "no sign of code"
# A word for code that has an everyday sense too ("class", "branch", "bug", "crash"), with no other sign.
EVERYDAY_SENSE = "a code word with an everyday sense"
# Genres: the whole prompt is material for the writing asked for, or the user says it is not about the
# code (see `gate`).
UNRELATED = "unrelated"
TRANSLATION = "translation"
GENRE_CATEGORIES = frozenset({UNRELATED, "creative", TRANSLATION})
# About the exchange itself: the cue's words are no evidence, the rest of the prompt is.
EXCHANGE_CATEGORIES = frozenset({"assistant", "conversation", "small talk"})

# The coding assistant's own tool: a prompt that asks about one of its features ("what does /compact do",
# "where does claude code keep its settings", "how do I change your system prompt") or tells it to drop a habit
# ("stop you asking for permission every time"). Configuring the assistant uses the words of code prompts
# (settings, permissions, commands, sessions, the model), and its file and command names look like paths, so
# neither the other cues nor the model caught these on the blind routing sets. The gate skips such a prompt
# unless the repo names the feature or a definition the prompt writes (`relevance.tool_feature_named`).
ASSISTANT_TOOL = "the assistant's tool"
# The product and its own files and flags: about the tool wherever they stand (a repo that builds on them names
# "claude" somewhere, and keeps the prompt).
_PRODUCT = (
    r"\bclaude(?:[\s-]+code\b|\.md\b|\.ai\b|\s+(?:mcp|update|doctor|--?(?:p|c|r|continue|resume|print|model))\b)|"
    r"(?<![\w.])~?/?\.claude(?:/[\w.-]+)*|\bsettings\.local\.json\b|\.mcp\.json\b|--dangerously-skip-permissions\b|"
    r"\b(?:(?:pre|post)tooluse|userpromptsubmit|subagentstop|precompact)\b"
)
# Features a repo may have too (a chat bot's slash commands, an LLM app's system prompt, an agent framework's
# subagents, a mobile app's permission dialogs): the assistant's only when the prompt says so — "your system
# prompt", "the slash commands you support" — or names the product.
_FEATURES = (
    r"slash[\s-]+commands?|system\s+prompts?|usage\s+limits?|output\s+styles?|statusline|subagents?|auto[\s-]?compact\w*|"
    r"permission\s+(?:prompts?|popups?|dialogs?|modes?)|extended\s+thinking|mcp\s+servers?"
)
# Its built-in commands written in a prompt ("what does /compact do"), leaving out those a web app may route
# (/login, /status, /help); a bot or CLI that has the command names it ("/clear", `name="clear"`).
_ROUTE_LIKE = words(
    "help model config status login logout memory theme exit quit bug upgrade export context usage feedback todos"
)
_REVIEWS = words("init review pr-comments security-review")  # routed as code when they open a prompt
_COMMANDS = "|".join(sorted(map(re.escape, (SESSION_COMMANDS - _ROUTE_LIKE) | _REVIEWS)))
_MENTIONED_COMMAND = rf"(?<![\w/.~-])/(?:{_COMMANDS})(?![\w/.-])"
_TOOL_FEATURES = re.compile(rf"{_PRODUCT}|\b(?:{_FEATURES})\b|{_MENTIONED_COMMAND}", re.IGNORECASE)
_COMMAND_MENTION = re.compile(_MENTIONED_COMMAND)
_ROUTE_WORDS = re.compile(r"\b(?:routes?|urls?|paths?|apis?|requests?|responses?|pages?|views?)\b")
_PRODUCT_NAMED = re.compile(_PRODUCT, re.IGNORECASE)
# A thing of the code pointed at ("the failing login test", "the retry logic"; not "my home folder").
_POINTED_CODE = re.compile(
    rf"\b(?:the|this|{_THAT}|these|those|our)\s+(?:[\w'-]+\s+){{0,3}}(?:{_TOPIC_WORDS}|{_STRONG_WORDS})\b"
)
_ASKED_OF_YOU = re.compile(
    rf"\b(?:your|ur)\s+(?:[\w-]+\s+){{0,2}}(?:{_FEATURES})\b|"
    rf"\b(?:{_FEATURES})\s+(?:that\s+|which\s+)?(?:do\s+|can\s+)?(?:you|u)\s+(?:support|have|offer|use|"
    r"know|understand|accept|ship)\b|"
    r"\b(?:stop|keep|prevent|block)\s+(?:you|u)\s+(?:from\s+)?(?:ever\s+)?(?:asking|prompting|confirming|"
    r"apologi\w*)\b|\b(?:you|u)\s+(?:to\s+)?stop\s+(?:asking|prompting|apologi\w*)\b|"
    r"^\W*(?:please\s+|pls\s+)?stop\s+(?:apologi\w*(?:\s+(?:in\s+every|every|so)\b|\W*$)|"
    r"asking\s+(?:me\b|for\s+(?:permission|approval)))|\bmy\s+usage\s+limits?\b",
    re.IGNORECASE,
)
# A feature named as a part of code ("your slash command handler", "the system prompt builder"): the user's.
_FEATURE_IN_CODE = re.compile(rf"\b(?:{_FEATURES})\s+(?:[\w-]+\s+)?(?:{_STRONG_WORDS}|{_TOPIC_WORDS})\b")
# The user's own software beside the feature ("my bot's slash commands", "the extension's status line").
_USERS_SOFTWARE = re.compile(
    r"\b(?:the|my|our|this|that)\s+(?:[\w'-]+\s+){0,2}(?:bots?|apps?|application|extension|plugin|server|service|api|"
    r"endpoint|cli|website|site|sdk|library|framework|package|agent)(?:'s)?\b"
)


def tool_features(text: str) -> tuple[str, ...]:
    """The assistant's features a prompt names, lowercased as written ("slash command", "/compact")."""
    return tuple(dict.fromkeys(m.group(0) for m in _TOOL_FEATURES.finditer(lower(text))))


def _asks_about_a_command(lowered: str) -> bool:
    """One of the assistant's commands written in a prompt with no word of code beside it: "what does /compact
    do", not "what does /cost return" or "the /clear route in the admin panel" (a web app's)."""
    if not _COMMAND_MENTION.search(lowered):
        return False
    rest = _COMMAND_MENTION.sub(_blank, lowered)
    return not (STRONG_CODE_WORDS.search(rest) or _ROUTE_WORDS.search(rest))


def _asks_about_the_tool(text: str, lowered: str) -> bool:
    """Does the prompt ask about the assistant's tool (`ASSISTANT_TOOL`)? Not when it names or points at this
    repo's code ("our system prompt", "this slash command", "in this codebase", "my bot's slash commands",
    "your slash command handler"), the team asks how it does something, or an identifier, path or code
    punctuation is left once the feature's own names are blanked ("a slash command like /deploy that runs my
    script": the user's own). The product named beside a thing of the code ("claude code wrote the retry
    logic", "read CLAUDE.md, then fix the failing login test") is a task about the code, told how."""
    asked_of_you = bool(_ASKED_OF_YOU.search(lowered))
    product = bool(_PRODUCT_NAMED.search(lowered))
    if not (asked_of_you or product or _asks_about_a_command(lowered)):
        return False
    if _OURS.search(lowered) or _TEAM_ASKS.search(lowered) or _USERS_SOFTWARE.search(lowered):
        return False
    if _FEATURE_IN_CODE.search(lowered):
        return False
    if product and not asked_of_you and _POINTED_CODE.search(_PRODUCT_NAMED.sub(_blank, lowered)):
        return False
    return not has_hard_code_signal(_TOOL_FEATURES.sub(_blank, text))


def off_topic_cue(text: str, seeds: tuple[str, ...] | None = None, route: RouteName | None = None) -> str:
    """The off-topic category a prompt reads as, or "" (a strong sign of code, or no cue at all).

    A genre's cue (creative writing, translation, the user saying it is not about the code) yields only
    to a request about this code (`_writes_about_code`), not to a code word that is the piece's topic;
    the others to any strong sign of code; a general-knowledge cue also to an
    architecture question or one pointing at the code under discussion. Besides the categories' cues,
    a lookup or flow prompt with no strong sign of code (a programming word alone — "a table", "tokens",
    "a stream" — is none), nothing it points back to (`this`, `it`, `here`: the conversation's code) and
    words left to look for reads as "no sign of code": the evidence decides.
    `seeds` are the prompt's seeds when the caller has them already."""
    lowered = lower(text)
    if _asks_about_the_tool(text, lowered):
        return ASSISTANT_TOOL
    category = next((c for c, pattern in _CUE_RES.items() if pattern.search(lowered)), "")
    if category in GENRE_CATEGORIES:
        return "" if _writes_about_code(text, seeds, category, route) else category
    if category == LANGUAGE:  # beside a language named, quoted text is the material to translate
        text, seeds = unquoted(text), None
    if has_strong_code_signal(text, seeds):
        return _judged_code_word(text, seeds, route)
    if category == GENERAL_KNOWLEDGE and (route is RouteName.ARCHITECTURE or _points(lowered)):
        return ""  # an architecture question, or one about the code under discussion
    if route is RouteName.BUG and _points(without_cues(text)):
        return ""  # "ugh, I'm so tired of this: why is it so slow to start" (not "that last answer…")
    if category:
        return category  # an explicit cue, even beside a programming topic word: the evidence decides
    if route in (RouteName.BUG, RouteName.ARCHITECTURE):
        return ""  # a bug report or an architecture question is about the code whatever its words
    if _CONCEPT.match(lowered):
        return GENERAL_KNOWLEDGE
    if route in (RouteName.LOOKUP, RouteName.FLOW) and not _points(lowered) and content_stems(text):
        return NO_CODE  # a programming word alone ("a table", "tokens") is no sign: the evidence decides
    return ""


def _judged_code_word(text: str, seeds: tuple[str, ...] | None, route: RouteName | None) -> str:
    """A prompt whose only sign of code is a word: "" (about the code) unless the word has an everyday
    sense the rest of the prompt may be about — "my yoga class", "a branch of the bank", "my cat keeps
    crashing into things" (`EVERYDAY_SENSE`, judged by the evidence) — and no programming word beside it.
    A prompt that points back at what is on screen ("why does this crash"), asks how something behaves
    or how the code is built is about the code."""
    lowered = lower(text)
    if has_hard_code_signal(text, seeds) or _TEAM_ASKS.search(lowered) or _points(lowered):
        return ""
    if BEHAVIOUR_ASK.search(lowered) or route is RouteName.ARCHITECTURE:
        return ""
    strong = {m.group(0) for m in STRONG_CODE_WORDS.finditer(lowered)}
    if strong and all(_EVERYDAY_STRONG.fullmatch(w) for w in strong) and not CODE_WORDS.search(lowered):
        return EVERYDAY_SENSE  # no programming word beside it either
    return ""


def _writes_about_code(
    text: str, seeds: tuple[str, ...] | None, category: str, route: RouteName | None = None
) -> bool:
    """A writing or translation request about this code: it names code, points at a thing of the project
    ("the parser", "this loop", "our error messages"), asks for a code artefact (a docstring, a comment,
    a commit message), or a word for code comes before the cue ("is there a function that translates
    dates"). After the cue, a bare programming word is the topic of the piece: "a sonnet about merge
    conflicts", "a joke about fixtures", "a haiku about recursion". A quoted cue word is a name, and
    beside a disclaimer or in a bug report any strong code word outside the material counts."""
    if seeds is None:
        seeds = extract_seeds(text)
    cue, whole = _CUE_RES[category], lower(text)
    lowered = _without_material(cue, whole, colon=category != UNRELATED, category=category)
    notation_blanked = _PROSE_NOTATION.sub(_blank, text)  # big-O, tl;dr and money are prose, quoted or not
    if any(_code_shaped(seed) for seed in seeds) or _CODE_PUNCTUATION.search(unquoted(notation_blanked)):
        return True
    if _QUOTED_CODE_PUNCTUATION.search(notation_blanked):
        return True
    first = cue.search(_QUOTED.sub(_blank, whole))
    if first is None:
        return True  # the cue's word is quoted: a name ("why does "translate" fail on empty strings")
    if _ARTEFACTS.search(lowered) or _TEAM_ASKS.search(lowered) or _OURS.search(lowered):
        return True
    # In what the piece is about, "the" is the story's own: "a limerick about a developer who broke the
    # build", "a story where a junior dev deletes the production database" point at no code of this project.
    if _DEFINITE_CODE.search(lowered[: first.end()] + _without_topic(lowered, first.end())):
        return True
    if category == UNRELATED and STRONG_CODE_WORDS.search(lowered):
        return True  # the user's question beside the disclaimer
    if route is RouteName.BUG and STRONG_CODE_WORDS.search(_without_topic(lowered, first.end())):
        return True  # the failure a bug report describes, not the topic of a piece ("a haiku about a failing test")
    return bool(STRONG_CODE_WORDS.search(lowered[: first.start()]))


# What a piece asked for is about, right after the cue: "a haiku about a failing test", "a limerick for the
# team about…", "a story where the intern deletes the database" (to the end of the prompt), not "the jokes
# page shows an error about a failed request" or "the riddle screen where you guess crashes".
_PIECE_TOPIC = re.compile(
    r"\s*(?:(?:[\w'-]+\s+){0,3}?(?:about|on\s+the\s+(?:topic|theme)\s+of)|where|in\s+which|featuring|starring)\b.*",
    re.DOTALL,
)
# Code punctuation that quoted material keeps: prose inside quotes has parentheses and full stops
# ('translate "Permission denied (publickey)."'), markup and placeholders are code ("<b>{name}</b>").
# A placeholder is code ("$name", "$1"); an amount of money is blanked first, as prose notation ("$10").
_QUOTED_CODE_PUNCTUATION = re.compile(r"[{}\[\]<>`=]|=>|::|->|\$\w")


def _without_topic(lowered: str, cue_end: int) -> str:
    """The prompt after the cue, without the piece's topic when the cue goes on to say what it is about."""
    after = lowered[cue_end:]
    topic = _PIECE_TOPIC.match(after)
    return after[: topic.start()] if topic else after


# A single-quoted span may hold apostrophes between letters: 'the server is down, we're rolling back'.
_QUOTED = re.compile(r"(?<!\w)'(?:[^']|(?<=\w)'(?=\w)){2,}'(?!\w)|\"[^\"]{2,}\"|“[^”]{2,}”|‘[^’]{2,}’")


def unquoted(text: str) -> str:
    """The text with what it quotes blanked out (same length)."""
    return _QUOTED.sub(_blank, text)


def _without_material(cue: re.Pattern[str], lowered: str, colon: bool, category: str = "") -> str:
    """A genre prompt with its cue and the piece's material blanked out: what is quoted, and (`colon`)
    what follows a colon after the cue ("translate into German: the request timed out", "story opening:
    the last server wakes up"); "unrelated to the code" is the cue itself, and what follows it ("…: why
    does the parser drop the last token?") the question. In a translation, a demonstrative that names the
    material goes too (`_NAMES_MATERIAL`)."""
    first = cue.search(lowered) if colon else None
    at = lowered.find(":", first.end()) if first else -1
    if at >= 0:
        if first and category == TRANSLATION and _is_material(lowered[at + 1 :]):
            # the demonstrative is in the colon's own sentence
            start = max([first.start(), *(m.end() for m in _SENTENCE_END.finditer(lowered, 0, at))])
            named = _NAMES_MATERIAL.sub(_blank_unless_code, lowered[start:at])
            lowered = lowered[:start] + named + lowered[at:]
        lowered = lowered[:at] + " " * (len(lowered) - at)
    return cue.sub(_blank, _QUOTED.sub(_blank, lowered))


def translation_material(text: str) -> str:
    """What a translation asks to put into a language, lowercased: what follows the colon after its cue and
    what it quotes ("translate these to German: Failed to lookup view"); "" without a translation cue."""
    lowered = lower(text)
    first = _CUE_RES[TRANSLATION].search(lowered)
    if first is None:
        return ""
    at = lowered.find(":", first.end())
    return " ".join([lowered[at + 1 :] if at >= 0 else "", *_QUOTED.findall(lowered)])


def _is_material(after_colon: str) -> bool:
    """Is what follows a translation's colon text to translate, not a pointer on at the code ("the ones
    finalhandler renders for 404", "the JSDoc of the retry operator", "everything the doctor command prints")?"""
    return bool(after_colon.strip()) and not _POINTS_ON.match(after_colon)


# Between a translation's cue and the colon its material follows, in the same sentence, a demonstrative names
# that material, not the project's code: "translate these UI strings to french: Save, Cancel" (not "translate
# our error messages", nor "this docstring" or "this handler's responses": a code artefact or a code word is
# the project's own, `_blank_unless_code`).
_POINTS_ON = re.compile(r"\s*(?:the|those|these|what|which|whatever|everything|all|any|each)\b")
_NAMES_MATERIAL = re.compile(r"\b(?:these|this|those|the\s+following)\s+(?:[\w'-]+\s+){0,2}[\w'-]+")
_SENTENCE_END = re.compile(r"[.?!\n]")


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _blank_unless_code(match: re.Match[str]) -> str:
    """ "this docstring", "this handler's responses": the project's own artefact or code, which still counts."""
    named = match.group(0)
    return named if _ARTEFACTS.search(named) or STRONG_CODE_WORDS.search(named) else _blank(match)


def has_code_signal(text: str, seeds: tuple[str, ...] | None = None) -> bool:
    """Any sign of code: a strong one (`has_strong_code_signal`) or a programming topic word."""
    return has_strong_code_signal(text, seeds) or bool(CODE_WORDS.search(lower(text)))


def has_hard_code_signal(text: str, seeds: tuple[str, ...] | None = None) -> bool:
    """An identifier or path, or code punctuation: what only code is written with."""
    if seeds is None:
        seeds = extract_seeds(text)
    return any(_code_shaped(seed) for seed in seeds) or bool(
        _CODE_PUNCTUATION.search(_PROSE_NOTATION.sub(_blank, text))
    )


def team_asks(text: str) -> bool:
    """The team asks where or how it does something ("where do we validate the input", "how do we deal
    with time zones")."""
    return bool(_TEAM_ASKS.search(lower(text)))


def points_back(text: str) -> bool:
    """The prompt points at something already on screen — code or the last answer: it, this, that, here…"""
    return _points(lower(text))


def refers_back(text: str) -> bool:
    """Some pronoun or demonstrative in the prompt, wherever it stands (`_points` counts fewer): "why does it
    do that" may point at the screen, or back at what the prompt said."""
    return bool(_DEICTIC.search(_EXPLETIVE_IT.sub(_blank, lower(text))))


def _points(lowered: str) -> bool:
    """A word in the lowercased prompt points back at what is on screen (`_DEICTIC`), a dummy "it" left out
    (`_EXPLETIVE_IT`). "Here", "above", "below" and a demonstrative before its noun ("this loop", "those
    tests") always point; a pronoun ("it", "that", "same") only before the prompt has said what it is about:
    after `ANTECEDENT` content words it refers back to them ("the window won't close, what could cause
    that", "a tiny bug that wiggles"), and whether those name code is for the evidence to say."""
    blanked = _EXPLETIVE_IT.sub(_blank, lowered)
    for match in _DEICTIC.finditer(blanked):
        if match.group(0) in _ALWAYS_POINTS or _DEMONSTRATIVE.match(blanked, match.start()):
            return True
        if len(content_stems(blanked[: match.start()])) < ANTECEDENT:
            return True
    return False


def has_strong_code_signal(text: str, seeds: tuple[str, ...] | None = None) -> bool:
    """An identifier or path, code punctuation, a word for an artefact of a codebase or the work on it
    (function, test, bug, refactor, config…), or the team asking where or how it does something. A
    quoted everyday word is material to translate or explain, not a name."""
    if has_hard_code_signal(text, seeds):
        return True
    lowered = lower(text)
    return bool(
        STRONG_CODE_WORDS.search(lowered) or _DEFINITE_TOPIC.search(lowered) or _TEAM_ASKS.search(lowered)
    )


def _code_shaped(seed: str) -> bool:
    """A seed written the way only code is: with `_`, `.`, `/`, `::`, `$`, digits or inner capitals."""
    return not (seed.isalpha() and (seed.islower() or seed.isupper() or seed[1:].islower()))


def lower(text: str) -> str:
    """The prompt as the cues read it: lowercase, typographic apostrophes made plain."""
    return text.lower().replace("’", "'")


def everyday_sense_words(text: str) -> frozenset[str]:
    """The code words with an everyday sense a prompt uses ("class", "bug")."""
    return frozenset(
        m.group(0) for m in STRONG_CODE_WORDS.finditer(lower(text)) if _EVERYDAY_STRONG.fullmatch(m.group(0))
    )


def cue_matches(category: str, text: str) -> list[str]:
    """The spans of the prompt that a category's cue matched."""
    return [m.group(0) for m in _CUE_RES[category].finditer(lower(text))]


def has_cue(text: str) -> bool:
    """Some off-topic cue's words are in the prompt, whatever signs of code are beside them."""
    lowered = lower(text)
    return any(pattern.search(lowered) for pattern in _CUE_RES.values())


def without_cues(text: str) -> str:
    """The prompt without the words of any cue: "in this session" or "answer in french" says what the
    prompt is about (the exchange), so the repo naming a `session` or an `answer` is no evidence."""
    lowered = lower(text)
    kept = list(lowered)
    for pattern in _CUE_RES.values():  # overlapping cues too: "what are you not allowed to…"
        match = pattern.search(lowered)
        while match:
            kept[match.start() : match.end()] = " " * (match.end() - match.start())
            match = pattern.search(lowered, match.start() + 1)
    return "".join(kept)

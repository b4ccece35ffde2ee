"""Small helpers shared by the router's modules."""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words: never seeds, never content.
WORD_STOP = words(
    """the a an this that these those it its to of in on for and or but with from by at as is are was be
    which what who whom whose where when why how all any each every some same other new old my our your
    their his her one two there here then than so do does did not no yes can could would should will
    just only also more most very"""
)

# Everyday words that name nothing specific, even when some identifier happens to contain them (the
# relevance gate's content words leave them out, with the function words above).
GENERIC_WORDS = words(
    """about again always another anything asking away back because been before being best better between
    bit both came come day days doing done down during early easy else enough even ever exactly explain
    far feel few find first gave get gets give going gone good got great had has have having help into
    keep kind know last later least less let like little long look lot made make many maybe mean might
    much must near need never next nice now off often once out over own part please point pretty quick
    quite rather really right said say says see seem show simple since small something soon still such
    sure take tell terms thank thanks thing things think though thought through time times today told
    too took try under until upon use used want wanted way ways well went were while without work works
    write yet you yours"""
)
# Neither a function word nor an everyday one: what is left of a prompt may name something.
NOT_CONTENT = WORD_STOP | GENERIC_WORDS

# The shortest word stem that can name something.
MIN_STEM = 3
_WORD = re.compile(r"[a-z][a-z']+")
_ELISION = re.compile(r"^(?:qu|[cdjlmnst])'(?=[a-z]{4})")


# Chat fillers: never content.
FILLERS = words(
    """lol lmao haha hehe pls plz tho btw idk imo tbh hey ugh hmm okay yeah anyway actually basically
    honestly quick question wondering curious idea"""
)


def content_stems(text: str) -> tuple[str, ...]:
    """The stems of a prompt's words that could name something in a repo: no function, generic or filler
    words, no contractions ("isn't", "what's"), no inflection of a generic word ("working"), and in a prompt
    not in English none of that language's function words ("ich", "und", "con": `FOREIGN_NOT_CONTENT`)."""
    stems: dict[str, None] = {}
    foreign = FOREIGN_NOT_CONTENT if not mostly_english(text) else frozenset()
    for word in _WORD.findall(text.lower().replace("’", "'")):
        word = _ELISION.sub("", word.strip("'"))  # French/Italian "d'embedding", "l'indice": the word after
        if (
            word in NOT_CONTENT
            or word in FILLERS
            or word in foreign
            or "'" in word
            or _inflects_generic(word)
        ):
            continue
        root = stem(word)
        if len(root) >= MIN_STEM:
            stems.setdefault(root, None)
    return tuple(stems)


def stem(word: str) -> str:
    """A crude English stem, enough to match `retries` with `retry`, `scheduled` with `schedule`,
    `movies` with `Movie` and `toppings` with `Topping`."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("ie"):
        return word[:-2] + "y"
    if len(word) - 4 >= 3 and word.endswith("ings"):
        return word[:-4]
    for suffix in ("ing", "ers", "er", "ed", "es", "s", "e"):
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _inflects_generic(word: str) -> bool:
    """`working`, `made`-style forms of the generic words: `working` is as generic as `work`."""
    for suffix, restore in (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + restore in NOT_CONTENT:
            return True
    return False


# Function words of the languages developers most often write in besides English (de, fr, es, pt, it, nl).
_FOREIGN_FUNCTION_WORDS = words(
    """der die das und ist nicht wie wird ein eine mit auf auch wenn sie ich wir bei oder noch
    le la les des est et une dans pour pas que qui sur avec il elle ce cette sont du au aux
    el los las es y un una en por para con como qué cuando se lo su sus del al
    o os um uma não é com para como quando se do da dos das ao
    il gli della che di è e per non una con come quando sono
    de het een en is niet van voor met wat hoe wanneer zijn op"""
)
_FOREIGN_ONLY = _FOREIGN_FUNCTION_WORDS - WORD_STOP
_ENGLISH_TOO = words("o e per")
# In a prompt not in English, its function words and pronouns name nothing, however many identifiers or code
# comments happen to contain them ("Ich hab heute frei und …": `und`, `mit`).
# Not those that are as often a name in code ("dir", "del", "per", "dos").
FOREIGN_NOT_CONTENT = (
    _FOREIGN_ONLY
    | words(
        """dem einem einen einer eines kann du dich mir mein meine dein deine uns euch hab habe
        je tu vous nous ton tes
        yo mis nos tengo
        eu você meu minha
        mio mia"""
    )
) - words("per del die des dir den dos met van hat sur")
_LETTERS = re.compile(r"[^\W\d_]+")


def mostly_english(text: str) -> bool:
    """Is the prompt written in English (the language of the code's names and of the bundled embedder)?
    Not when most of its words hold non-ASCII letters (Cyrillic, Japanese…), or when it has more function
    words of German, French, Spanish, Portuguese, Italian or Dutch (not English words too) than of English,
    and at least one ("warum ist checkout so langsam")."""
    found = _LETTERS.findall(text.lower())
    if not found:
        return True
    if sum(not w.isascii() for w in found) * 2 > len(found):
        return False
    # "is", "in", "a", "per" are English too; "o" is big-O notation as often as Portuguese, "e" the "e.g."
    foreign = sum(w in _FOREIGN_ONLY and w not in _ENGLISH_TOO for w in found)
    return foreign == 0 or foreign < sum(w in WORD_STOP for w in found)

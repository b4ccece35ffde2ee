"""Small helpers shared by the router's modules."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words: never seeds, never content.
WORD_STOP = words(
    """the a an this that these those it its to of in on for and or but with from by at as is are was be
    which what who whom whose where when why how all any each every some same other new old my our your
    their his her one two there here then than so do does did not no yes can could would should will
    just only also more most very"""
)

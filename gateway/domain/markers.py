"""The envelope of the block we inject, in one place, so the sanitiser can recognise and strip it.

The block starts with a line `<reporecall-context route="…" commit="…">` and ends with a line
`</reporecall-context>`. Attribute values are escaped, so a prompt cannot forge a closing tag inside one.
"""

from __future__ import annotations

import re
from html import escape

CONTEXT_TAG = "reporecall-context"
CONTEXT_CLOSE = f"</{CONTEXT_TAG}>"

# An opening tag on its own line: `<reporecall-context` then attributes, `>`, end of line.
CONTEXT_OPEN_LINE = re.compile(rf"^[ \t]*<{CONTEXT_TAG}(?:[ \t][^>\n]*)?>[ \t]*$", re.MULTILINE)
CONTEXT_CLOSE_LINE = re.compile(rf"^[ \t]*</{CONTEXT_TAG}>[ \t]*$", re.MULTILINE)


def context_open(**attributes: str) -> str:
    """`<reporecall-context route="flow" commit="abc1234">`; empty attributes are left out, order kept."""
    parts = [CONTEXT_TAG]
    parts.extend(f'{name}="{escape(value, quote=True)}"' for name, value in attributes.items() if value)
    return "<" + " ".join(parts) + ">"

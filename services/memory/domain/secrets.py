"""Text that looks like a credential, so it is never written into a memory file.

Memories are plain text shared with a team and injected into prompts; a key pasted into one would leak to
everyone who recalls it. The patterns are a compact set of the common providers' documented token formats
(the same families detect-secrets and gitleaks ship), private key blocks, credentials in URLs, a
`password = …` style assignment, and a high-entropy check for long random-looking strings. False positives
cost a refused store with a clear message; false negatives leak, so the list leans to catching.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_PROVIDERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern))
    for label, pattern in (
        ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("an AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
        (
            "a GitHub token",
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}",
        ),
        ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        (
            "a Slack webhook",
            r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
        ),
        ("a Stripe key", r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("an OpenAI or Anthropic key", r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
        ("a SendGrid key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        ("a RepoRecall token", r"\brr_[A-Za-z0-9_-]{32,}"),
        ("a JSON web token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("a password in a URL", r"\b[a-z][a-z0-9+.-]*://[^/\s:@]{1,100}:[^/\s:@]{3,200}@"),
    )
)
_ASSIGNMENT = re.compile(
    r"(?i)\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?key|secret[_-]?key"
    r"|auth[_-]?token|access[_-]?token|private[_-]?key|token)\b[\"']?\s*(?::|=|=>|:=)\s*[\"']?"
    r"(?P<value>[^\s\"'`,;)]{8,})"
)
# A value that names where the secret lives is fine: settings.DB_PASSWORD, os.environ, ${VAR}, <token>.
_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z_.]*(?:\(\))?|.*[${}<>%].*")
_RANDOM_LOOKING = re.compile(r"[A-Za-z0-9+/=_-]{32,}")
HIGH_ENTROPY_BITS = (
    4.3  # bits per character; detect-secrets uses 4.5 for base64 (ours also sees shorter runs)
)


def shannon_entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


def find_secret(text: str) -> str | None:
    """What kind of secret `text` seems to hold ("an AWS access key id", …), or None."""
    if not text:
        return None
    for label, pattern in _PROVIDERS:
        if pattern.search(text):
            return label
    for match in _ASSIGNMENT.finditer(text):
        value = match["value"]
        if not _REFERENCE.fullmatch(value) and shannon_entropy(value) >= 2.5:
            return "a password or key assignment"
    for match in _RANDOM_LOOKING.finditer(text):
        run = match.group()
        # Upper, lower and at least two digits: long code identifiers (FactoryBean2Impl) have one at most.
        mixed = any(c.isupper() for c in run) and any(c.islower() for c in run)
        if mixed and sum(c.isdigit() for c in run) >= 2 and shannon_entropy(run) >= HIGH_ENTROPY_BITS:
            return "a long random-looking string (a key or token?)"
    return None

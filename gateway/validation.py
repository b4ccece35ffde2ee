"""Input validation for every surface (HTTP API, hooks, MCP, gRPC): one error type and one set of limits.

A bad value raises BadInput naming the field and what is wrong; each surface turns it into its own
refusal (400, a hook's empty reply, an MCP tool error, INVALID_ARGUMENT) and nothing is changed.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any

from kit.paths import is_repo_relative


@dataclass(frozen=True)
class Limits:
    """Longest values accepted (characters, or tokens for budget_tokens)."""

    repo_name: int = 256
    path: int = 4096
    git_url: int = 2048
    session_id: int = 256
    prompt: int = 100_000
    text: int = 20_000
    # Largest token budget a client may ask a context block for (0 means the configured default).
    budget_tokens: int = 50_000


LIMITS = Limits()


class BadInput(Exception):
    """A client sent something unusable. `field` names the argument; the message says what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


def confine_path(path: str, field: str = "path") -> str:
    """A repo-relative POSIX path, or BadInput for anything that could leave the repository."""
    if not isinstance(path, str) or not path.strip():
        raise BadInput(field, "must be a non-empty repo-relative path")
    if "\x00" in path or "\\" in path or "%" in path:
        raise BadInput(field, "must not contain NUL, backslashes or percent-encoding")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise BadInput(field, "must be relative to the repository root, not absolute")
    normal = posixpath.normpath(path)
    if not is_repo_relative(normal):
        raise BadInput(field, "must stay inside the repository")
    return normal


def bounded_int(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field, "must be an integer")
    if not low <= value <= high:
        raise BadInput(field, f"must be between {low} and {high}")
    return value


def text_arg(value: Any, field: str, max_len: int = 20_000, required: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise BadInput(field, "must be a string")
    if required and not value.strip():
        raise BadInput(field, "must not be empty")
    if len(value) > max_len:
        raise BadInput(field, f"longer than {max_len} characters")
    return value


def string_list(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BadInput(field, "must be a list of strings")
    return value


def read_json_object(raw: bytes) -> dict[str, Any]:
    """A request body that must be one JSON object encodable again as UTF-8 (an empty body is {})."""
    try:
        data = json.loads(raw or b"{}")
        # A lone surrogate ("\ud800") parses but cannot be encoded again (protobuf, SQLite): refuse it here.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeError) as exc:  # JSONDecodeError, over-long integers, surrogates
        raise BadInput("body", f"not valid JSON ({exc.__class__.__name__})") from None
    except RecursionError:
        raise BadInput("body", "nested too deeply") from None
    if not isinstance(data, dict):
        raise BadInput("body", "must be a JSON object")
    return data


def str_field(data: dict[str, Any], key: str, default: str = "", max_len: int = LIMITS.prompt) -> str:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise BadInput(key, "must be a string")
    if len(value) > max_len:
        raise BadInput(key, f"longer than {max_len} characters")
    return value


def int_field(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    return bounded_int(data.get(key, default), key, low, high)

"""Bearer-token authentication. Tokens are stored hashed; comparison is constant-time."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass


@dataclass(frozen=True)
class Principal:
    user: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenAuthenticator:
    """Accepts the local token (from `reporecall up`) and any active token in the token store."""

    def __init__(self, local_token: str = "", local_user: str = "local") -> None:
        self._local_hash = hash_token(local_token) if local_token else ""
        self._local_user = local_user

    def authenticate(self, authorization: str | None) -> Principal | None:
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        presented = hash_token(authorization[7:].strip())
        if self._local_hash and hmac.compare_digest(presented, self._local_hash):
            return Principal(self._local_user)
        return None

"""How the CLI reaches the gateway: --url/--token, REPORECALL_URL/REPORECALL_TOKEN, or the local run file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class CliError(Exception):
    """Shown to the user as one line; exit code 1."""


class GatewayError(CliError):
    """The gateway answered with an HTTP error; `status` is its code (401: the token was refused)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


class GatewayUnreachable(CliError):
    """Nothing answered at the gateway's URL (not started, wrong URL, network down)."""


def _refusal(status: int, message: str, url: str) -> GatewayError:
    if status == 401:
        return GatewayError(
            status,
            f"token refused by the gateway at {url} — check --token / REPORECALL_TOKEN "
            "(a local suite's token is in <data-dir>/run.json)",
        )
    return GatewayError(status, f"gateway said {status}: {message}")


@dataclass(frozen=True)
class GatewayClient:
    url: str
    token: str
    timeout: float = 30.0

    @classmethod
    def discover(cls, url: str | None, token: str | None, data_dir: Path | None) -> GatewayClient:
        url = url or os.environ.get("REPORECALL_URL")
        token = token or os.environ.get("REPORECALL_TOKEN")
        if not url or not token:
            data_dir = data_dir or local_data_dir()
            run_file = data_dir / "run.json"
            try:
                info = json.loads(run_file.read_text())
            except (OSError, json.JSONDecodeError):
                if not url:
                    raise CliError(
                        f"no gateway: {run_file} not found — start one with `reporecall up` or set REPORECALL_URL"
                    ) from None
                info = {}
            url = url or info.get("gateway_url")
            token = token or info.get("token", "")
        return cls(str(url).rstrip("/"), token or "")

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        import httpx  # ~0.1-0.8 s: kept off `reporecall mcp`'s start, which does not need it

        try:
            reply = httpx.request(
                method, self.url + path, json=body, headers=self._headers(), timeout=self.timeout
            )
        except httpx.HTTPError as exc:
            raise GatewayUnreachable(
                f"cannot reach the gateway at {self.url} ({exc.__class__.__name__})"
            ) from None
        if reply.status_code >= 400:
            try:
                message = reply.json().get("error", reply.text)
            except ValueError:
                message = reply.text
            raise _refusal(reply.status_code, message, self.url)
        return reply.json()

    def stream(self, method: str, path: str, body: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        import httpx

        try:
            with httpx.stream(
                method, self.url + path, json=body, headers=self._headers(), timeout=None
            ) as reply:
                if reply.status_code >= 400:
                    reply.read()
                    try:
                        message = reply.json().get("error", reply.text)
                    except ValueError:
                        message = reply.text
                    raise _refusal(reply.status_code, message, self.url)
                for line in reply.iter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.HTTPError as exc:
            raise GatewayUnreachable(
                f"cannot reach the gateway at {self.url} ({exc.__class__.__name__})"
            ) from None


def local_data_dir() -> Path:
    """kit.settings.default_data_dir (or $REPORECALL_DATA_DIR) without importing pydantic-settings (~0.25 s),
    which `reporecall mcp` cannot afford before `initialize`; a test keeps the two equal."""
    explicit = os.environ.get("REPORECALL_DATA_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")) / "reporecall"

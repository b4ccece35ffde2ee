"""Settings shared by every process: read from REPORECALL_* environment variables, validated at start-up.

A service subclasses `ServiceSettings` with its own fields; `load_settings` turns any validation problem into
a `ConfigError` that names the environment variable and the fix, printed as one line by the runner.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "REPORECALL_"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "reporecall"


def owner_only(path: Path) -> None:
    """Tighten a folder of ours to 0700 (one left open by an older version, or made under a loose umask).

    Everything else a process writes is owner-only through `restrict_umask` (0077) at start-up.
    """
    try:
        if path.stat().st_uid == os.getuid() and path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except OSError:
        pass


def restrict_umask() -> None:
    """Files and folders this process creates are owner-only (data, logs, tokens, memories)."""
    os.umask(0o077)


class ConfigError(Exception):
    """A setting is wrong. The message names the setting, the problem and the fix, on one line."""

    def __init__(self, setting: str, problem: str, fix: str) -> None:
        self.setting, self.problem, self.fix = setting, problem, fix
        super().__init__(f"{setting}: {problem} — {fix}")


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="ignore")

    # Where embedded stores keep their files; one sub-folder per store.
    data_dir: Path = default_data_dir()
    # gRPC listen address, host:port (port 0 picks a free one) or unix:/path.
    listen: str = "127.0.0.1:0"
    # Prometheus /metrics port; 0 picks a free one, -1 disables.
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # The deployment's shared secret: gRPC servers refuse callers without it, clients send it (kit.service_auth).
    service_token: str = ""
    # Set by `reporecall up`: the supervisor's pid; the process stops when it dies (kit.lifetime).
    parent_pid: int = 0

    @field_validator("data_dir")
    @classmethod
    def _data_dir_usable(cls, value: Path) -> Path:
        value = value.expanduser().resolve()
        try:
            value.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot create {value} ({exc.strerror})") from exc
        owner_only(value)
        if not os.access(value, os.R_OK | os.W_OK | os.X_OK):
            raise ValueError(f"{value} is not readable and writable by this user")
        return value

    def store_path(self, name: str) -> Path:
        """A store's folder under the data dir, created on first use."""
        path = self.data_dir / name
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path


SettingsT = TypeVar("SettingsT", bound=ServiceSettings)

_FIXES = {
    "data_dir": "point REPORECALL_DATA_DIR (or --data-dir) at a directory you can write",
    "listen": "set REPORECALL_LISTEN to host:port",
    "metrics_port": "set REPORECALL_METRICS_PORT to a free port, 0 for any, -1 to disable",
}


def require_service_token(settings: ServiceSettings) -> str:
    """A real service process needs the deployment's secret; without it nobody could (or everybody would) call it."""
    if not settings.service_token:
        raise ConfigError(
            f"{ENV_PREFIX}SERVICE_TOKEN",
            "not set; every service accepts only callers that present the deployment's secret",
            "run the suite with `reporecall up` (it creates one), or set it in .env (deploy/make-env.sh)",
        )
    return settings.service_token


def load_settings(cls: type[SettingsT], **overrides: object) -> SettingsT:
    """Build settings from the environment (and overrides), or raise one ConfigError naming the variable."""
    try:
        return cls(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "?"
        value = os.environ.get(ENV_PREFIX + field.upper(), overrides.get(field, "<default>"))
        raise ConfigError(
            f"{ENV_PREFIX}{field.upper()}={value}",
            error["msg"].removeprefix("Value error, "),
            _FIXES.get(field, f"fix REPORECALL_{field.upper()}"),
        ) from None


def check_url_scheme(setting: str, url: str, allowed: dict[str, str]) -> str:
    """The scheme of `url` if it is one of `allowed` (scheme → what it selects), else a ConfigError."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ("" if not url else url.lower())
    if scheme in allowed:
        return scheme
    choices = ", ".join(f"{s}:// ({what})" if s else f"empty ({what})" for s, what in allowed.items())
    raise ConfigError(
        f"{ENV_PREFIX}{setting.upper()}={url}", f"unknown store URL scheme '{scheme}'", f"use {choices}"
    )

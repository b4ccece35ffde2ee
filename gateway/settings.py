"""Gateway settings (REPORECALL_* environment variables)."""

from __future__ import annotations

from pydantic import Field, SecretStr

from kit.settings import ServiceSettings


class GatewaySettings(ServiceSettings):
    # HTTP listener for hooks, MCP and the CLI's JSON API.
    http_host: str = "127.0.0.1"
    http_port: int = 7870
    # Backend service addresses (host:port).
    indexer_addr: str = "127.0.0.1:7872"
    search_addr: str = "127.0.0.1:7873"
    graph_addr: str = "127.0.0.1:7874"
    memory_addr: str = "127.0.0.1:7875"
    # Default token budget of a context block and the hook's total deadline.
    budget_tokens: int = 2500
    hook_deadline_ms: int = 1500
    # Per-backend call deadline inside a hook.
    backend_deadline_ms: int = 600
    # Bearer token the `up` supervisor generated for local use (also accepted from the token store).
    local_token: str = ""
    # Largest request body accepted, bytes (every route, chunked or not: 413 beyond).
    max_body_bytes: int = 1_000_000
    # Seconds a client may take to send a request's line and headers (the connection is closed after),
    # and its body (408 after); the largest request line + headers, bytes.
    header_timeout_seconds: float = Field(default=10.0, gt=0)
    body_timeout_seconds: float = Field(default=30.0, gt=0)
    max_header_bytes: int = Field(default=16_384, ge=1024)
    # Requests per second allowed per token on average (0 disables), and the burst above it; failed
    # authentications and webhooks get the same per client address. At most `rate_limit_clients`
    # clients are tracked (the least recently seen is forgotten first).
    rate_limit_per_second: float = 20.0
    rate_limit_burst: int = 60
    rate_limit_clients: int = Field(default=10_000, ge=1)
    # Shared secret of git push webhooks (POST /hooks/git); empty disables them.
    webhook_secret: SecretStr = SecretStr("")
    # TLS: serve HTTPS when both are set.
    tls_cert_file: str = ""
    tls_key_file: str = ""

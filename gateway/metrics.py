"""Gateway domain metrics (the gRPC client metrics come from kit.metrics)."""

from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "reporecall_http_requests_total", "HTTP requests served by the gateway.", ("route", "status")
)
HTTP_SECONDS = Histogram(
    "reporecall_http_request_seconds",
    "HTTP request latency.",
    ("route",),
    buckets=(0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
HOOK_SECONDS = Histogram(
    "reporecall_hook_seconds",
    "Hook latency by event and route.",
    ("event", "route"),
    buckets=(0.005, 0.01, 0.015, 0.025, 0.04, 0.06, 0.08, 0.1, 0.15, 0.25, 0.5, 1, 2),
)
CONTEXT_TOKENS = Histogram(
    "reporecall_context_tokens",
    "Tokens injected per context block.",
    ("route",),
    buckets=(0, 100, 250, 500, 1000, 1500, 2000, 3000, 4000, 6000, 8000),
)
DEGRADED_REPLIES = Counter(
    "reporecall_degraded_replies_total", "Context replies built without a backend.", ("backend",)
)
HOOK_FAILURES = Counter(
    "reporecall_hook_failures_total",
    "Hooks answered empty because of an error or deadline.",
    ("event", "reason"),
)
TOKENS_INJECTED = Counter(
    "reporecall_context_injected_tokens_total", "Tokens injected into prompts.", ("repo", "route")
)
TOKENS_SPARED = Counter(
    "reporecall_context_spared_tokens_total",
    "Estimated tokens of file reads the injected code spared.",
    ("repo", "route"),
)

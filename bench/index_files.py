"""Every file indexes (issue 17): index every bench corpus into one suite and count files indexed vs seen.

`python -m bench.index_files [--corpus NAME …] [--path DIR …] [--out DIR]` fetches the pinned corpora, starts
`reporecall up` on a temporary data folder with keyword-only search (vectors are not what this
measures, and embedding every corpus would take the machine for an hour), indexes each corpus through
the gateway exactly as the bench does, and prints per corpus: files scanned (source files of a known
language, after ignores), files sent to search and graph, files skipped with reasons (files of no
supported type never count as scanned; generated or binary ones are scanned, then skipped), files that
failed (and why, from the indexer's log), and the parse warnings and definitions the parser dropped for
a name no symbol can carry (counted in the indexer's log).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.corpora import SELF, fetch, load_corpora

_DROPPED = re.compile(r"(\d+) definition\(s\) without a usable name")


def run(names: list[str] | None, out: Path | None, paths: list[Path] | None = None) -> int:
    from cli.client import GatewayClient
    from cli.cmd_index import run_index
    from kit.testing import Suite

    corpora = load_corpora()
    selected = names or ([] if paths else list(corpora))
    folders = {name: corpora[name] for name in selected}
    extra = {path.resolve().name: path.resolve() for path in paths or ()}
    workdir = Path(tempfile.mkdtemp(prefix="reporecall-index-files-"))
    env = {
        "REPORECALL_RATE_LIMIT_PER_SECOND": "0",
        "REPORECALL_VECTOR_URL": "none",
        "REPORECALL_EMBEDDER": "none",
    }
    suite = Suite.start(workdir / "data", env=env, timeout=180)
    rows: list[dict[str, Any]] = []
    failed = 0
    try:
        client = GatewayClient(suite.url, suite.token, timeout=900)
        for name in [*folders, *extra]:
            corpus = folders.get(name)
            source = fetch(corpus, print) if corpus is not None else extra[name]
            root = source if corpus is not None and corpus.registry == SELF else workdir / "src" / name
            if root != source:
                shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git"))
            indexer_log = workdir / "data" / "logs" / "indexer.log"
            log_start = indexer_log.stat().st_size if indexer_log.is_file() else 0
            started = time.perf_counter()
            final = run_index(client, str(root), name, full=False, show_progress=False)
            seconds = round(time.perf_counter() - started, 1)
            with indexer_log.open("rb") as handle:
                handle.seek(log_start)
                log = handle.read().decode("utf-8", "replace")
            errors = [line for line in log.splitlines() if "send_failed" in line or "parse_failed" in line]
            dropped = sum(int(m.group(1)) for m in _DROPPED.finditer(log))
            warnings = log.count("index.parse_warning")
            reasons = {str(k): int(v) for k, v in (final.get("skipped_reasons") or {}).items()}
            scanned, indexed = int(final.get("files_scanned", 0)), int(final.get("files_sent", 0))
            errors_count, chunks = int(final.get("errors", 0)), int(final.get("chunks", 0))
            failed += errors_count
            rows.append(
                {
                    "corpus": name,
                    "scanned": scanned,
                    "indexed": indexed,
                    "skipped_reasons": reasons,
                    "errors": errors_count,
                    "error_lines": errors[:10],
                    "chunks": chunks,
                    "parse_warnings": warnings,
                    "dropped_definitions": dropped,
                    "seconds": seconds,
                }
            )
            print(
                f"{name}: {indexed} of {scanned} scanned files indexed, skipped {reasons}, {errors_count} "
                f"failed; {chunks} chunks; {warnings} parse warnings, {dropped} definitions dropped for "
                f"their name; {seconds} s"
            )
            for line in errors[:10]:
                print(f"  {line[:300]}")
    finally:
        suite.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        stem = f"{dt.date.today().isoformat()}-index-files"
        (out / f"{stem}.json").write_text(json.dumps(rows, indent=2) + "\n")
        print(f"wrote {out / (stem + '.json')}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index_files", description=__doc__)
    parser.add_argument("--corpus", action="append", help="only these corpora (repeatable)")
    parser.add_argument("--path", type=Path, action="append", help="also index this folder (repeatable)")
    parser.add_argument("--out", type=Path, help="also write <date>-index-files.json into this folder")
    args = parser.parse_args(argv)
    return run(args.corpus, args.out, args.path)


if __name__ == "__main__":
    raise SystemExit(main())

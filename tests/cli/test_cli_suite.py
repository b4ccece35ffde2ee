"""Issue 14's CLI rough edges, each driven through the real entry point against a real local suite."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import run_cli
from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e  # a real suite of five processes, started once for this module


def cli(suite: Suite, *args: str):  # noqa: ANN201 - a Run
    return run_cli("--data-dir", str(suite.data_dir), *args)


def test_up_takes_data_dir_after_the_command_and_prints_the_next_step(cli_suite: Suite) -> None:
    assert (cli_suite.data_dir / "run.json").exists()  # the suite runs on the DIR given after `up`
    log = cli_suite.log()
    assert "next:" in log and "init" in log and "index PATH" in log, log


def test_every_command_takes_the_connection_options_after_it_too(cli_suite: Suite, shop: Path) -> None:
    before = run_cli("--data-dir", str(cli_suite.data_dir), "repos", "list", "--json")
    after = run_cli("repos", "list", "--json", "--data-dir", str(cli_suite.data_dir))
    assert before.code == after.code == 0, (before, after)
    assert json.loads(before.out) == json.loads(after.out)


def test_status_with_a_wrong_token_says_the_token_was_refused(cli_suite: Suite) -> None:
    result = cli(cli_suite, "--token", "rr_wrong", "status")
    assert result.code == 1
    assert "TOKEN REFUSED" in result.out and "DOWN" not in result.out, result
    assert "token refused" in result.err and "REPORECALL_TOKEN" in result.err


def test_status_with_no_gateway_still_says_down(tmp_path: Path) -> None:
    result = run_cli("--url", "http://127.0.0.1:9", "--token", "x", "status")
    assert result.code == 1 and "DOWN" in result.out, result


def test_status_shows_each_repos_vector_backfill(cli_suite: Suite, shop: Path) -> None:
    result = cli(cli_suite, "status")
    assert "vectors   shop:" in result.out, result
    data = json.loads(cli(cli_suite, "status", "--json").out)
    assert set(data["vectors"]["shop"]) == {"chunks", "vectors", "embed_backlog"}


def test_a_closed_pipe_ends_the_command_without_a_traceback(cli_suite: Suite, shop: Path) -> None:
    for args in (["status"], ["repos", "list"], ["search", "vat", "--repo", "shop"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "--data-dir", str(cli_suite.data_dir), *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None
        process.stdout.close()  # like `| head` exiting before the command writes
        _, err = process.communicate(timeout=60)
        assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()
        assert process.returncode == 141, (args, process.returncode, err.decode())


def test_search_with_no_hits_says_no_results_and_exits_1(cli_suite: Suite, shop: Path) -> None:
    result = cli(cli_suite, "search", "zzqqxxunfindable", "--repo", "shop", "--mode", "keyword")
    assert result.code == 1 and "no results" in result.err and result.out == "", result
    found = cli(cli_suite, "search", "vat_for_country", "--repo", "shop", "--mode", "keyword")
    assert found.code == 0 and "tax.py" in found.out, found


def test_call_path_with_no_path_says_so_and_exits_1(cli_suite: Suite, shop: Path) -> None:
    none = cli(cli_suite, "graph", "call_path", "vat_for_country", "--to", "checkout_cart", "--repo", "shop")
    assert none.code == 1 and "no call path from vat_for_country to checkout_cart" in none.err, none
    some = cli(cli_suite, "graph", "call_path", "checkout_cart", "--to", "vat_for_country", "--repo", "shop")
    assert some.code == 0 and "step:" in some.out, some
    missing = cli(cli_suite, "graph", "call_path", "checkout_cart", "--repo", "shop")
    assert missing.code == 1 and "--to" in missing.err, missing


def test_index_without_name_reuses_the_registration_of_the_same_path(cli_suite: Suite, shop: Path) -> None:
    again = cli(cli_suite, "index", str(shop))
    assert again.code == 0 and again.out.startswith("indexed shop:"), again
    listed = json.loads(cli(cli_suite, "repos", "list", "--json").out)
    assert [r["name"] for r in listed if Path(r["path"]) == shop.resolve()] == ["shop"]
    other = cli(cli_suite, "index", str(shop), "--name", "shop-copy")
    assert other.code == 1 and "already registered as 'shop'" in other.err, other
    assert "shop-copy" not in {r["name"] for r in json.loads(cli(cli_suite, "repos", "list", "--json").out)}


def test_repos_list_and_remove(cli_suite: Suite, shop: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    shutil.copytree(shop / "src", extra)
    assert cli(cli_suite, "index", str(extra), "--name", "extra").code == 0
    listing = cli(cli_suite, "repos", "list")
    assert "extra" in listing.out and "shop" in listing.out, listing
    removed = cli(cli_suite, "repos", "remove", "extra")
    assert removed.code == 0 and removed.out.startswith("removed extra"), removed
    assert "extra" not in cli(cli_suite, "repos", "list").out
    unknown = cli(cli_suite, "repos", "remove", "extra")
    assert unknown.code == 1 and "no repository named 'extra'" in unknown.err, unknown


def test_index_says_which_files_it_skipped_and_why(cli_suite: Suite, tmp_path: Path) -> None:
    tree = tmp_path / "skips"
    tree.mkdir()
    (tree / "ok.py").write_text("def fine(x):\n    return x\n")
    (tree / "blob.py").write_bytes(b"def a\x00\x01\x02")
    (tree / "notes.unknownext").write_text("plain\n")
    plain = cli(cli_suite, "index", str(tree), "--name", "skips")
    assert plain.code == 0, plain
    assert "skipped 2 files: binary 1, unsupported file type 1" in plain.out, plain
    assert "blob.py" not in plain.out
    # The suite's watcher may index a new file before the next run does: --full makes the run read every file.
    verbose = cli(cli_suite, "index", str(tree), "--full", "--verbose")
    assert "skipped blob.py (binary)" in verbose.out, verbose
    assert "skipped notes.unknownext (unsupported file type)" in verbose.out, verbose
    data = json.loads(cli(cli_suite, "index", str(tree), "--full", "--json").out)
    assert data["skipped_reasons"] == {"binary": 1, "unsupported file type": 1}, data
    assert {"path": "blob.py", "reason": "binary"} in data["skipped_files"]
    assert cli(cli_suite, "repos", "remove", "skips").code == 0


def test_index_of_a_missing_path_says_it_does_not_exist(cli_suite: Suite, tmp_path: Path) -> None:
    result = cli(cli_suite, "index", str(tmp_path / "nowhere"))
    assert result.code == 1 and "does not exist" in result.err and "not a directory" not in result.err
    a_file = tmp_path / "file.py"
    a_file.write_text("x = 1\n")
    assert "not a directory" in cli(cli_suite, "index", str(a_file)).err


def test_memory_store_of_empty_text_names_the_text(cli_suite: Suite, shop: Path) -> None:
    result = cli(cli_suite, "memory", "store", "", "--repo", "shop")
    assert result.code == 1 and "text is empty" in result.err and "name" not in result.err.split("—")[0]


def test_memory_store_and_forget_print_text_or_json(cli_suite: Suite, shop: Path) -> None:
    stored = cli(cli_suite, "memory", "store", "Prices are in cents everywhere", "--repo", "shop")
    assert stored.code == 0 and stored.out.startswith("stored ") and "{" not in stored.out, stored
    memory_id = stored.out.split()[1]
    forgot = cli(cli_suite, "memory", "forget", memory_id, "--repo", "shop")
    assert forgot.code == 0 and forgot.out.strip() == f"forgot {memory_id}", forgot
    as_json = cli(cli_suite, "memory", "store", "VAT is looked up per country", "--repo", "shop", "--json")
    memory = json.loads(as_json.out)["memory"]
    forgot_json = cli(cli_suite, "memory", "forget", memory["id"], "--repo", "shop", "--json")
    assert json.loads(forgot_json.out) == {"forgotten": True}


def test_forget_of_an_unknown_id_fails_clearly(cli_suite: Suite, shop: Path) -> None:
    result = cli(cli_suite, "memory", "forget", "no-such-memory", "--repo", "shop")
    assert result.code == 1 and "no memory with id 'no-such-memory'" in result.err, result

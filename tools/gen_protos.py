"""Regenerate the Python stubs for protos/ offline (grpc_tools.protoc), or check they are fresh.

    python tools/gen_protos.py          # rewrite generated files
    python tools/gen_protos.py --check  # exit 1 when any generated file is stale

Generated files sit beside their .proto (folder == proto package), so imports need no rewriting.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def generate(out_dir: Path) -> None:
    include = str(resources.files("grpc_tools") / "_proto")
    protos = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed; see the message above")
    # Every folder on the way to a generated module is a package.
    for proto in protos:
        folder = (out_dir / proto).parent
        while folder != out_dir:
            (folder / "__init__.py").touch()
            folder = folder.parent


def generated_files(root: Path) -> set[Path]:
    found = {p.relative_to(root) for s in GENERATED_SUFFIXES for p in root.rglob(f"*{s}")}
    found |= {p.relative_to(root) for p in (root / "reporecall").rglob("__init__.py")}
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when generated files are stale")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh_root = Path(tmp)
        generate(fresh_root)
        fresh = generated_files(fresh_root)
        current = generated_files(PROTO_ROOT)
        stale = sorted(
            str(p)
            for p in fresh | current
            if p not in fresh or p not in current or not filecmp.cmp(fresh_root / p, PROTO_ROOT / p, False)
        )
        if args.check:
            if stale:
                print("stale generated stubs (run `make protos`):", *stale, sep="\n  ")
                return 1
            return 0
        for rel in current - fresh:
            (PROTO_ROOT / rel).unlink()
        for rel in fresh:
            (PROTO_ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fresh_root / rel, PROTO_ROOT / rel)
        print(f"generated {len(fresh)} files from {len(proto_files())} protos")
    return 0


if __name__ == "__main__":
    sys.exit(main())

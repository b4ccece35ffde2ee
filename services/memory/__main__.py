"""python -m services.memory — run the memory service."""

from kit.service import run_service
from services.memory.bootstrap import bootstrap
from services.memory.settings import MemorySettings


def main() -> None:
    run_service("memory", MemorySettings, bootstrap)


if __name__ == "__main__":
    main()

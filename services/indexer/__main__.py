"""python -m services.indexer — run the indexer service."""

from kit.service import run_service
from services.indexer.bootstrap import bootstrap
from services.indexer.settings import IndexerSettings


def main() -> None:
    run_service("indexer", IndexerSettings, bootstrap)


if __name__ == "__main__":
    main()

"""python -m services.search — run the search service."""

from kit.service import run_service
from services.search.bootstrap import bootstrap
from services.search.settings import SearchSettings


def main() -> None:
    run_service("search", SearchSettings, bootstrap)


if __name__ == "__main__":
    main()

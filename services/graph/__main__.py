"""python -m services.graph — run the graph service."""

from kit.service import run_service
from services.graph.bootstrap import bootstrap
from services.graph.settings import GraphSettings


def main() -> None:
    run_service("graph", GraphSettings, bootstrap)


if __name__ == "__main__":
    main()

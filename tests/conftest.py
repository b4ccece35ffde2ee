import sys
from pathlib import Path

# tests/ helpers (tests.suite) importable from every test module.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

"""Where the project and its tests' recorded data are."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SOURCES = FIXTURES / "sources"  # genuine upstream responses (origin notes beside them)

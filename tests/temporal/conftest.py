"""Fixtures of the Temporal tests: one dev server per test session (a free loopback port, a temp
database, stopped at the end), shared by every test here; each test uses task queues of its own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from temporal_cluster import DevServer  # noqa: E402


@pytest.fixture(scope="session")
def dev_server(tmp_path_factory):
    server = DevServer(tmp_path_factory.mktemp("temporal") / "temporal.db")
    server.start()
    yield server
    server.stop()

"""Shared fixtures: fresh random inputs per run with the seed printed
(MPARRAY_TEST_SEED replays one), and the engine under test (the default
engine: $MPARRAY_ENGINE if set, else auto)."""

import os
import random

import pytest

import mparray as mp

SEED = int(os.environ.get("MPARRAY_TEST_SEED") or random.SystemRandom().randrange(1 << 32))


def pytest_report_header(config):
    return (f"MPARRAY_TEST_SEED={SEED}; engine: {mp.default_engine().describe()} "
            f"(MPARRAY_ENGINE={os.environ.get('MPARRAY_ENGINE', '')!r})")


def pytest_runtest_logreport(report):
    if report.failed:
        report.sections.append(("seed", f"replay with MPARRAY_TEST_SEED={SEED}"))


@pytest.fixture
def rng(request):
    """A generator seeded from the run's seed and the test's name."""
    return random.Random(f"{SEED}-{request.node.nodeid}")


@pytest.fixture(scope="session")
def eng():
    return mp.default_engine()

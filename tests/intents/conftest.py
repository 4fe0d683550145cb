from pathlib import Path

import pytest

from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

# <repo>/../shared/data: reference data beside the checkout; a fresh clone has none, and
# the tests that read it skip.
SHARED_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
USER = "demo-ana"
DAYS = 7


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


@pytest.fixture(scope="session")
def week():
    """A generated week of one built-in user (shared with the env tests' data set)."""
    return cached_sessions(USER, DAYS, 0, GeneratorConfig())

import pytest

from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

USER = "demo-ana"
DAYS = 7


@pytest.fixture(scope="session")
def week():
    """A generated week of one built-in user (shared with the env tests' data set)."""
    return cached_sessions(USER, DAYS, 0, GeneratorConfig())

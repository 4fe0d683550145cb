import pytest

from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions
from mobileintent_gym.users import PairConfig

USER = "demo-ana"
DAYS = 7


def lexical_config(**kwargs) -> GeneratorConfig:
    """A 540x1200 generator config whose content is ranked lexically (no encoder to load)."""
    return GeneratorConfig(540, 1200, pair=PairConfig(encoder="lexical"), **kwargs)


@pytest.fixture(scope="session")
def week():
    """A generated week of one built-in user (shared with the env tests' data set)."""
    return cached_sessions(USER, DAYS, 0, GeneratorConfig())

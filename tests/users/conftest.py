import pytest

from mobileintent_gym.users import make_encoder
from tests.helpers import shared


@pytest.fixture(scope="session")
def sentence_encoder():
    """The real sentence encoder, loaded once per session."""
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    return make_encoder("sentence")


@pytest.fixture(scope="session")
def personalens_dir():
    return shared("personalens", "profiles")

from pathlib import Path

import pytest

from mobileintent_gym.users import make_encoder

# ../shared/data beside the checkout; a fresh clone has none, and the tests that read it skip.
SHARED_DATA = next((p for p in (Path(__file__).resolve().parents[2] / "../shared/data",
                                Path("/work/shared/data")) if p.is_dir()), None)


@pytest.fixture(scope="session")
def sentence_encoder():
    """The real sentence encoder, loaded once per session."""
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    return make_encoder("sentence")


@pytest.fixture(scope="session")
def personalens_dir():
    folder = SHARED_DATA / "personalens" / "profiles" if SHARED_DATA else None
    if folder is None or not folder.is_dir():
        pytest.skip("../shared/data/personalens is absent")
    return folder

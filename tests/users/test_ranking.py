import random
import threading

import numpy as np
import pytest

from mobileintent_gym.users import (
    CONTEXTS,
    Entity,
    UserProfile,
    keys_of,
    preference_values,
    rank_entities,
    score_entities,
)


class TableEncoder:
    """Fixed unit vectors per text, so that every score can be worked out by hand."""

    name = "table"

    def __init__(self, table):
        self.table = table

    def encode(self, texts):
        return np.array([self.table[t] for t in texts], np.float32).reshape(len(texts), 3)


def entity(id_, text, *keys):
    return Entity(id_, id_.upper(), "", text, keys_of(*keys), None)


POOL = [entity("e", "E"), entity("d", "D"), entity("c", "C"), entity("b", "B", "Hip Hop"),
        entity("a", "A", "rock")]
TABLE = {"jazz": [1, 0, 0], "calm": [0, 1, 0], "HIP-HOP": [0, 0, 1],
         "A": [0.6, 0.8, 0], "B": [0, 0, -1], "C": [0.8, 0.6, 0], "D": [0, 0.6, 0.8],
         "E": [0, 0, 1]}


def test_ranking_matches_a_hand_computed_example():
    # Values jazz, calm, HIP-HOP: r(a) = max(.6, .8, 0) = .8; r(b) = 1, an exact match
    # ("Hip Hop") though its similarity is max(0, 0, -1) = 0; r(c) = max(.8, .6, 0) = .8;
    # r(d) = max(0, .6, .8) = .8; r(e) = max(0, 0, 1) = 1. Equal scores go by similarity
    # (e before b), then by id (a, c, d).
    ranked = rank_entities(["jazz", "calm", "HIP-HOP"], POOL, TableEncoder(TABLE))
    assert [(e.id, s) for e, s in ranked] == [
        ("e", 1.0), ("b", 1.0), ("a", 0.8), ("c", 0.8), ("d", 0.8)]
    # Values jazz, calm: a .8, b 0 (no exact match now), c .8, d .6, e 0.
    ranked = rank_entities(["jazz", "calm"], POOL, TableEncoder(TABLE))
    assert [(e.id, s) for e, s in ranked] == [
        ("a", 0.8), ("c", 0.8), ("d", 0.6), ("b", 0.0), ("e", 0.0)]


def test_rows_not_of_unit_length_are_ranked_by_their_cosine():
    # An encoder ignoring the protocol's unit rows was ranked by raw dot products: d, a
    # row of length 5, scored 6.0 and beat a (1.99 though its cos is 0.995).
    table = {"jazz": [2, 0, 0], "A": [0.995, 0.0999, 0], "D": [3, 4, 0]}
    pool = [entity("a", "A"), entity("d", "D")]
    ranked = rank_entities(["jazz"], pool, TableEncoder(table))
    assert [(e.id, s) for e, s in ranked] == [("a", 0.994998), ("d", 0.6)]


def test_exact_match_scores_one_whatever_the_similarity():
    scores = score_entities(["Hip-Hop"], POOL, TableEncoder({**TABLE, "Hip-Hop": [0, 0, 1]}))
    assert scores[3] == 1.0  # b: its vector is opposite to the value's
    assert score_entities([], POOL, TableEncoder(TABLE)).tolist() == [0.0] * 5


def test_real_encoder_ranking_equals_the_formula(sentence_encoder):
    wanted = ("t014", "t018", "t035", "t120")
    pool = [e for e in CONTEXTS["music:liked"].pool.entities() if e.id in wanted]
    values = ["Hip-Hop", "late-night dance party"]
    rows_v = sentence_encoder.encode(values)
    rows_e = sentence_encoder.encode([e.text for e in pool])
    similarity = {e.id: round(float((rows_v @ row).max()), 6)
                  for e, row in zip(pool, rows_e, strict=True)}
    expected = {e.id: 1.0 if e.record["genre"] == "hiphop" else similarity[e.id] for e in pool}
    ranked = rank_entities(values, pool, sentence_encoder)
    assert [e.id for e, _ in ranked] == sorted(expected, key=lambda i: (-expected[i], i))
    assert ranked[0][0].id == "t018" and ranked[0][1] == 1.0  # Run the City, genre "hiphop"
    assert [s for _, s in ranked] == pytest.approx(sorted(expected.values(), reverse=True),
                                                   abs=1e-5)


def test_preference_values_keep_active_relevant_domains_only():
    profile = UserProfile.from_dict({
        "user_id": "u",
        "interests": {"Music": 1, "Books": 0, "Events": 1},
        "affinities": {
            "Music": {"Preferred Genres": ["jazz", "Soul "], "Platform Preference": ["Radio"],
                      "Favorite Artists": ["JAZZ", ""]},
            "Books": {"Genre": ["mystery"]},
            "Events": {"Event Type Preference": "concerts"}}})
    assert preference_values(profile, ("Music", "Books", "Events")) == (
        "jazz", "Soul", "Radio", "concerts")
    assert preference_values(profile, ("Events", "Music"), ("Platform Preference",)) == (
        "concerts", "jazz", "Soul")
    assert preference_values(profile, ("Books", "Sports")) == ()


@pytest.mark.parametrize("as_list", [True, False], ids=["list", "one string"])
def test_a_decomposed_accent_in_a_profile_matches_the_catalog_exactly(as_list):
    # "Luis Echeverri" + U+0301 (as macOS input or a PDF writes it) had the key
    # "luisecheverria", the catalog's author "luisecheverría": the book lost r(e) = 1.
    import unicodedata

    from mobileintent_gym.users import PairConfig, build_user_content

    def contexts(form):
        author = unicodedata.normalize(form, "Luis Echeverría")
        profile = UserProfile.from_dict({
            "user_id": "reader", "interests": {"Books": 1},
            "affinities": {"Books": {"Genre": ["fantasy", "history", "mystery"],
                                     "Favourite Authors": [author] if as_list else author}}})
        assert preference_values(profile, ("Books",))[-1] == "Luis Echeverría"  # NFC
        return build_user_content(profile, PairConfig(encoder="lexical")).contexts

    composed, decomposed = contexts("NFC"), contexts("NFD")
    assert "b058" in composed["reader:reading"].common + composed["reader:reading"].personal
    assert decomposed == composed
    assert keys_of("Echeverri\u0301a") == keys_of("Echeverría")


def test_threads_sharing_an_encoder_s_rows_get_theirs_while_another_clears_them(monkeypatch):
    # A full cache cleared by one thread between another's update and its read: KeyError.
    from mobileintent_gym.users import ranking
    from mobileintent_gym.users.encoders import LexicalEncoder
    from tests.helpers import race

    monkeypatch.setattr(ranking, "TEXT_CACHE_SIZE", 16)
    encoder = LexicalEncoder(dim=64)
    texts = [f"intention text {k}" for k in range(24)]
    expected = {t: encoder.encode([t])[0] for t in texts}

    def encode_many():
        draw = random.Random(threading.get_ident())
        for _ in range(1_500):
            chosen = draw.sample(texts, 6)
            rows = ranking.encode_cached(encoder, chosen)
            assert all(np.array_equal(r, expected[t]) for r, t in zip(rows, chosen, strict=True))

    assert race(encode_many) == []


def test_a_full_cache_keeps_the_rows_of_the_call_that_filled_it(monkeypatch):
    # Cleared for a call's new texts, the cache kept only those: the call's cached texts
    # were asked for again next time.
    from mobileintent_gym.users import ranking
    from mobileintent_gym.users.encoders import LexicalEncoder

    asked = []

    class Counted(LexicalEncoder):
        def encode(self, texts):
            asked.append(list(texts))
            return super().encode(texts)

    monkeypatch.setattr(ranking, "TEXT_CACHE_SIZE", 4)
    encoder = Counted(dim=16)
    ranking.encode_cached(encoder, ["a", "b", "c"])
    asked.clear()
    ranking.encode_cached(encoder, ["a", "d", "x"])  # 5 texts: the cache starts afresh
    assert asked == [["d", "x"]]  # "a" from the cache, not asked for again to fill it
    asked.clear()
    ranking.encode_cached(encoder, ["a", "d", "x"])
    assert asked == []

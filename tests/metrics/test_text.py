"""BLEU-4 against NLTK's reference implementation, and Acc-S with the real MiniLM encoder."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobileintent_gym.envs.scoring import CachedEncoder
from mobileintent_gym.metrics.text import acc_s_encoder, bleu4, mean_bleu4, semantic_similarity

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score", reason="nltk is a test extra")
METHOD3 = nltk_bleu.SmoothingFunction().method3


def nltk_bleu4(candidate, reference, tokens):
    split = list if tokens == "chars" else str.split
    return nltk_bleu.sentence_bleu([split(reference)], split(candidate),
                                   smoothing_function=METHOD3)


def test_a_hand_computed_character_score():
    # "abcd" vs "abce": p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1 -> 1/(2*1); BP = 1 (c = r).
    expected = (0.75 * (2 / 3) * 0.5 * 0.5) ** 0.25
    assert bleu4("abcd", "abce") == pytest.approx(expected)
    assert bleu4("Order a latte", "Order a latte") == pytest.approx(1.0)
    assert bleu4("xyz", "abc") == 0.0 and bleu4("", "abc") == 0.0


def test_brevity_is_penalised():
    assert bleu4("Order a", "Order a latte") < bleu4("Order a latte", "Order a latte")


words = st.lists(st.sampled_from(["open", "the", "chat", "latte", "order", "a", "send", "to"]),
                 min_size=1, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(words, words, st.sampled_from(["chars", "words"]))
def test_equals_nltk_sentence_bleu_with_method3(candidate, reference, tokens):
    assert bleu4(candidate, reference, tokens) == pytest.approx(
        nltk_bleu4(candidate, reference, tokens), abs=1e-12)


def test_mean_bleu_needs_aligned_pairs():
    assert mean_bleu4(["open chat", "send"], ["open chat", "send"]) == pytest.approx(1.0)
    # Shorter than four tokens: the missing orders are smoothed, as in NLTK.
    assert mean_bleu4(["ab"], ["ab"]) == pytest.approx((1 * 1 * 0.5 * 0.25) ** 0.25)
    with pytest.raises(ValueError, match="2 candidates for 1 references"):
        mean_bleu4(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="'letters'"):
        bleu4("a", "a", tokens="letters")


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    return acc_s_encoder()


def test_acc_s_ranks_a_paraphrase_above_an_unrelated_intention(minilm):
    assert "MiniLM-L6" in minilm.name
    truth = "Order a no-ice latte via the food-delivery app"
    same = semantic_similarity([truth], [truth], minilm)
    paraphrase = semantic_similarity(["Order an iced-free latte for delivery"], [truth], minilm)
    unrelated = semantic_similarity(["Set an alarm for 7 am"], [truth], minilm)
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 1.0 > paraphrase > unrelated
    assert semantic_similarity([], [], minilm) == 0.0
    # An empty text embeds like any other (up to 0.13 to intentions), now 0.
    assert semantic_similarity(["", " \n", "x"], [truth] * 3, minilm) == pytest.approx(
        semantic_similarity(["x"], [truth], minilm) / 3)


def test_a_cached_texts_embedding_does_not_depend_on_what_was_embedded_before(minilm):
    # A batch pads its texts to the longest, which moves their rows in the last bits: the
    # envs' scores would then depend on the episodes that ran before in the process.
    short = "check the weather"
    long = "reply to the landlord's message about the broken heating in the flat before Friday"
    alone = minilm.encode([short])[0]
    assert not np.array_equal(minilm.encode([short, long])[0], alone)
    warm = CachedEncoder(minilm)
    warm.encode([long, short])
    assert np.array_equal(warm.encode([short])[0], alone)
    assert np.array_equal(CachedEncoder(minilm).encode([long, short, short])[2], alone)


def test_a_cosine_never_rounds_past_one():
    # Unit rows of this vector have a dot product of 1.0000000000000002: Acc-S of an
    # exact answer came out above 1.
    from mobileintent_gym.metrics.text import pair_similarities

    vector = np.array([[0.028319671145462966, 0.12428327649956394, 0.6706244146936303,
                        0.6471895115742501, 0.6153851114812539]])

    class Fixed:
        name = "fixed"

        def encode(self, texts):
            return np.repeat(vector, len(texts), axis=0)

    assert pair_similarities(["a"], ["a"], Fixed()).tolist() == [1.0]

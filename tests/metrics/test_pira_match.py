"""The rule deciding that a proposed intent names the gold task, and memory operations."""

import numpy as np
import pytest

from mobileintent_gym.errors import InvalidArgumentError
from mobileintent_gym.metrics.pira import (
    IntentMatcher,
    memory_accuracy,
    memory_balanced_accuracy,
)


class TableEncoder:
    """Fixed unit vectors per text (angles in the plane), for exact similarities."""

    name = "table"

    def __init__(self, angles):
        self.angles = angles

    def encode(self, texts):
        return np.array([[np.cos(np.radians(self.angles[t])), np.sin(np.radians(self.angles[t]))]
                         for t in texts])


# cos 10° = 0.985, cos 40° = 0.766, cos 60° = 0.5
ENCODER = TableEncoder({"play Owambe": 0, "play Owambe (implicit)": 5, "play Kite Strings": 20,
                        "reply to Lucas": 90, "put on that party song": 10,
                        "something musical": 60, "start Kite Strings": 19, "music please": 40})
KNOWN = {"play Owambe": "SPT-02:common", "play Owambe (implicit)": "SPT-02:common",
         "play Kite Strings": "SPT-02:personal", "reply to Lucas": "WCT-02:common"}


@pytest.fixture
def match():
    return IntentMatcher(ENCODER, KNOWN, threshold=0.6)


def test_a_known_wording_of_the_same_task_matches_and_another_task_never(match):
    assert match("PLAY  owambe", "play Owambe")
    assert match("play Owambe (implicit)", "play Owambe")  # same task, other wording
    assert not match("play Kite Strings", "play Owambe")  # cos 20° = 0.94, another task
    assert match.task("Play Owambe") == "SPT-02:common" and match.task("x") is None


def test_a_paraphrase_matches_when_gold_is_the_closest_known_task(match):
    # 10° from gold, 5° from gold's other wording, 10° from Kite Strings: gold's task wins
    assert match("put on that party song", "play Owambe")
    assert not match("start Kite Strings", "play Owambe")  # 19°, but Kite (1°) is closer
    assert match("start Kite Strings", "play Kite Strings")
    assert not match("music please", "play Owambe")  # 35° from gold's task, 20° from Kite's
    assert match("music please", "play Kite Strings")
    assert not match("something musical", "play Kite Strings")  # cos 40° ≥ 0.6, but ...
    assert match("something musical", "reply to Lucas")  # ... Lucas is 30° away
    assert not match("something musical", "play Owambe")  # cos 55° = 0.57 < 0.6


def test_closeness_to_gold_counts_through_gold_tasks_other_wordings():
    # 25° from gold's wording, 5° from its implicit one, 20° from another task: gold's task
    # is the closest; scored by gold's own wording alone it lost to the rival.
    angles = {"play Owambe": 0, "play Owambe (implicit)": 30, "play Kite Strings": 45,
              "that party tune": 25}
    known = {"play Owambe": "T1", "play Owambe (implicit)": "T1", "play Kite Strings": "T2"}
    match = IntentMatcher(TableEncoder(angles), known, threshold=0.6)
    assert match("that party tune", "play Owambe")
    assert not match("that party tune", "play Kite Strings")


def test_without_known_intentions_the_threshold_alone_decides():
    bare = IntentMatcher(ENCODER, {}, threshold=0.6)
    assert bare("start Kite Strings", "play Owambe")  # cos 19° with nothing to compete
    assert not bare("something musical", "play Owambe")  # cos 60° = 0.5


# Every text 5° from its neighbours: similarity alone would match each with each.
SONGS = TableEncoder({'play "Honey Drip" again': 0, 'play "Velvet Rope" again': 5,
                      'play \u201choney  drip\u201d once more': 3,
                      'play "Bohemian Rhapsody" again': 2, 'play "Honey Drip" or "Velvet Rope"': 1,
                      "put that song from before on": 4, 'put on "Honey Drip"': 6,
                      "put on the song I played on the bus": 7,
                      'in Chat, reply "Understood" to Li Wei': 60,
                      'in Chat, reply "Thanks" to Li Wei': 61,
                      "play again": 90})  # gold without its name: far from every guess
SONG_TASKS = {'play "Honey Drip" again': "SPT-02:personal", "put on the song I played on the bus":
              "SPT-03:common", 'in Chat, reply "Understood" to Li Wei': "WCT-02:common"}


@pytest.mark.parametrize(("predicted", "matches"), [
    ('play \u201choney  drip\u201d once more', True),  # gold's name, curly quotes, case aside
    ("put that song from before on", False),  # no name; but the bus song (3°) is closer
    ('play "Bohemian Rhapsody" again', False),  # cos 2° = 0.999: the same sentence, another song
    ('play "Velvet Rope" again', False),
    ('play "Honey Drip" or "Velvet Rope"', False),  # gold's name and another: a hedge
])
def test_a_prediction_quoting_what_gold_does_not_is_about_something_else(predicted, matches):
    # Unknown songs matched gold by similarity alone: 43 of 131 swapped titles did in a
    # day of demo users, so a wrong guess was a tp (Proactive) and accepted (Assist).
    match = IntentMatcher(SONGS, SONG_TASKS, threshold=0.6)
    assert match(predicted, 'play "Honey Drip" again') is matches


def test_gold_without_known_names_lets_similarity_decide_unless_another_task_names_it():
    match = IntentMatcher(SONGS, SONG_TASKS, threshold=0.6)
    bus = "put on the song I played on the bus"  # quotes nothing: its name is not known
    assert match('play "Bohemian Rhapsody" again', bus) is False  # Honey Drip's task is closer
    assert IntentMatcher(SONGS, {bus: "SPT-03:common"})('play "Bohemian Rhapsody" again', bus)
    assert not match('put on "Honey Drip"', bus)  # a name only another known task quotes
    reply = 'in Chat, reply "Understood" to Li Wei'
    assert not match('in Chat, reply "Thanks" to Li Wei', reply)  # another reply to send


def test_a_tasks_target_name_rules_out_a_guess_quoting_another():
    # Gold quoted nothing, so a push about "Dad" matched "open the chat with Mum" on the
    # embedding alone (cosine 0.82 with all-MiniLM-L6-v2); given the target's name, a
    # guess naming it still matches an implicit gold.
    angles = {"open the chat with Mum": 0, 'open the chat with "Dad"': 3,
              'open the chat with "Mum"': 2, "put on the song I played on the bus": 90,
              'play "Honey Drip"': 93}
    known = {"open the chat with Mum": "WCT-01:common",
             "put on the song I played on the bus": "SPT-03:common"}
    bare = IntentMatcher(TableEncoder(angles), known, threshold=0.6)
    assert bare('open the chat with "Dad"', "open the chat with Mum")
    named = IntentMatcher(TableEncoder(angles), known, threshold=0.6,
                          names={"WCT-01:common": ["Mum"], "SPT-03:common": ["Honey Drip"]})
    assert not named('open the chat with "Dad"', "open the chat with Mum")
    assert named('open the chat with "Mum"', "open the chat with Mum")
    assert named('play "Honey Drip"', "put on the song I played on the bus")
    assert named.known == tuple(known)


# Yellow's explicit wording 0°, its implicit one 40°; Clocks' 20°. The generic proposal is
# 8° from Yellow's explicit wording, nearer than Clocks (12°), and names no song.
CUES = TableEncoder({'play "Yellow" from recently played': 0,
                     "play the song named after a colour": 40,
                     'play "Clocks" from recently played': 20,
                     "play a song from recently played": 8, "play Yellow again": 3,
                     "put on the recently played song named after a colour": 38,
                     'reply "Understood" to Mum': 90, 'reply "Understood" to Dad': 100,
                     'reply "Understood"': 93,
                     # The wordings naming the target, their names left out.
                     "play from recently played": 9, "reply understood to": 93})
CUE_TASKS = {'play "Yellow" from recently played': "SPT-02:yellow",
             "play the song named after a colour": "SPT-02:yellow",
             'play "Clocks" from recently played': "SPT-02:clocks",
             'reply "Understood" to Mum': "WCT-02:mum", 'reply "Understood" to Dad': "WCT-02:dad"}
CUE_NAMES = {"SPT-02:yellow": ["Yellow"], "SPT-02:clocks": ["Clocks"], "WCT-02:mum": ["Mum"],
             "WCT-02:dad": ["Dad"]}


@pytest.mark.parametrize(("predicted", "gold", "matches"), [
    # Closest to Yellow's task, but no song named: a tp (Proactive), an accepted push
    # handing over Yellow's instruction (Assist) for a proposal that identified nothing.
    ("play a song from recently played", 'play "Yellow" from recently played', False),
    ("play Yellow again", 'play "Yellow" from recently played', True),  # unquoted, said
    # Naming it by its cue, as the implicit wording does: close to that wording, it matches.
    ("put on the recently played song named after a colour",
     'play "Yellow" from recently played', True),
    # "Understood" is the reply to Mum and to Dad alike: it names neither of them.
    ('reply "Understood"', 'reply "Understood" to Mum', False),
    ('reply "Understood" to Mum', 'reply "Understood" to Dad', False),
])
def test_a_prediction_naming_no_target_matches_only_a_wording_by_cue(predicted, gold, matches):
    match = IntentMatcher(CUES, CUE_TASKS, threshold=0.6, names=CUE_NAMES)
    assert match(predicted, gold) is matches


def test_memory_accuracy_counts_only_turns_given_an_operation():
    ops = [None, "CREATE", "IDLE", "UPDATE"]
    assert memory_accuracy(ops, ["IDLE", "CREATE", "UPDATE", "UPDATE"]) == pytest.approx(2 / 3)
    assert memory_accuracy([None, None], ["IDLE", "CREATE"]) is None
    with pytest.raises(ValueError, match="1 memory operations for 2 gold"):
        memory_accuracy(["IDLE"], ["IDLE", "CREATE"])
    # An operation in another case never equalled gold's, and labels of no operation were
    # counted: both scored without a word.
    with pytest.raises(InvalidArgumentError, match="operations: item 0 must be one of CREATE, "
                       "RESUME, UPDATE, IDLE or None, got str 'create'"):
        memory_accuracy(["create"], ["CREATE"])
    with pytest.raises(InvalidArgumentError, match="gold: item 1 must be one of CREATE"):
        memory_balanced_accuracy(["IDLE", None], ["IDLE", "FOO"])


def test_always_updating_is_balanced_out():
    # Most gold operations are UPDATE: answering UPDATE on every turn scored 0.740 on the
    # README's days (plain accuracy, benchmarks/proactive_baselines.py), nothing learnt.
    gold = ["CREATE", "UPDATE", "UPDATE", "UPDATE", "UPDATE", "IDLE", "RESUME", "UPDATE"]
    always = ["UPDATE"] * len(gold)
    assert memory_accuracy(always, gold) == 5 / 8
    assert memory_balanced_accuracy(always, gold) == 1 / 4
    assert memory_balanced_accuracy(gold, gold) == 1.0
    # Over the turns answered: CREATE right, UPDATE right once in two.
    assert memory_balanced_accuracy(["CREATE", "IDLE", None, "UPDATE"] + [None] * 4,
                                    gold) == (1 + 1 / 2) / 2
    assert memory_balanced_accuracy([None] * 8, gold) is None
    with pytest.raises(ValueError, match="1 memory operations for 8 gold ones"):
        memory_balanced_accuracy(["IDLE"], gold)


def test_a_prediction_nearer_a_wording_without_its_name_than_the_cue_names_nothing():
    # With all-MiniLM-L6-v2, "play a song from your recently played songs" is 0.673 from
    # Yellow's wording by cue and 0.655 from Clocks': closest to Yellow's task, it matched,
    # yet it names no song. It is nearer Yellow's wording without the name (0.689 with
    # the name): that is what it says.
    angles = {'play "Yellow" from recently played': 0,
              "put on the recently played song named after a colour": 50,
              "play from recently played": 20, "play a recently played song": 25,
              "play the recent song whose title is a colour": 45}
    match = IntentMatcher(TableEncoder(angles), {
        'play "Yellow" from recently played': "SPT-02:yellow",
        "put on the recently played song named after a colour": "SPT-02:yellow"},
        threshold=0.6, names={"SPT-02:yellow": ["Yellow"]})
    gold = 'play "Yellow" from recently played'
    assert not match("play a recently played song", gold)  # 25° from the cue, 5° from bare
    assert match("play the recent song whose title is a colour", gold)  # 5° from the cue


@pytest.fixture(scope="module")
def minilm():
    """all-MiniLM-L6-v2, the envs' encoder (the packaged weights offline)."""
    pytest.importorskip("sentence_transformers", reason="needs the [embed] extra")
    from mobileintent_gym.metrics.text import acc_s_encoder

    return acc_s_encoder()


def test_the_real_encoder_tells_a_song_by_its_cue_from_a_song_unnamed(minilm):
    known = {'play "Yellow" from your recently played songs': "SPT-02:yellow",
             "put on the recently played song named after a colour": "SPT-02:yellow",
             'play "Clocks" from your recently played songs': "SPT-02:clocks",
             "put on the recently played song about timekeeping devices": "SPT-02:clocks"}
    match = IntentMatcher(minilm, known,
                          names={"SPT-02:yellow": ["Yellow"], "SPT-02:clocks": ["Clocks"]})
    gold = 'play "Yellow" from your recently played songs'
    for unnamed in ("play a song from your recently played songs",
                    "play a recently played song"):
        assert not match(unnamed, gold), unnamed
    for named in ("play the recent song whose title is a colour",
                  "play the song named after a colour", "listen to the song Yellow again"):
        assert match(named, gold), named


def test_a_word_of_the_targets_name_names_it_enough_for_the_cue_to_decide(minilm):
    # "The budgeting webinar" is nearer the wording without its name than the cue, yet
    # names "Personal Budgeting 101" by a word of it: refused, a paraphrase was lost.
    known = {'open the webinar "Personal Budgeting 101" in your meeting history': "budget",
             "open the online class on managing your money, a webinar in your meeting "
             "history": "budget",
             'open the webinar "Wild Planet Documentary Night" in your meeting history': "wild",
             "open the online screening about filming animals, a webinar in your meeting "
             "history": "wild"}
    match = IntentMatcher(minilm, known, names={
        "budget": ["Personal Budgeting 101"], "wild": ["Wild Planet Documentary Night"]})
    gold = next(iter(known))
    assert match("open the budgeting webinar in my meeting history", gold)
    assert not match("open a webinar in my meeting history", gold)  # no word of the name
    assert not match("open the webinar in your meeting history", gold)


def test_a_word_other_tasks_say_too_names_no_target(minilm):
    # "for" of "Morning Skincare for Oily Skin" let "open a note for you …" through,
    # though another task's wording says "for" as well.
    known = {'open the note "Morning Skincare for Oily Skin" from your liked notes': "skin",
             "open the note on a routine for shiny faces from your liked notes": "skin",
             'open the note "Ramen Worth Flying For" from your saved notes': "ramen",
             "open the note ranking noodle shops from your saved notes": "ramen"}
    match = IntentMatcher(minilm, known, names={
        "skin": ["Morning Skincare for Oily Skin"], "ramen": ["Ramen Worth Flying For"]})
    gold = next(iter(known))
    assert not match("open a note for you from your liked notes", gold)
    assert match("open the skincare note from my liked notes", gold)  # skincare: its own

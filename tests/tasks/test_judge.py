"""The judge (PAIR Eq. 7) on hand-built event logs."""

import dataclasses

from mobileintent_gym.phone.events import Hit, StepEvent
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.tasks import Judge, Target, TaskInstance, get_template

PKG = "com.mobileintent."


def task(template_id, entity="t1", label="Song One", record=None):
    return TaskInstance(f"{template_id}:personal:explicit", get_template(template_id), "u",
                        "personal", "explicit", record or entity, Target(entity, label), "do it")


def event(before, after, *, action="CLICK[1,1]", rid="", entity=None, text="",
          visible=(), visible_after=(), effect=True, record=None, record_after=None,
          texts=None):
    texts = texts if texts is not None else (text,) if text else ()
    hit = Hit(f"{PKG}music:id/{rid}" if rid else "", "android.view.View", text,
              (0, 0, 2, 2), entity, texts) if rid or entity or texts else None
    return StepEvent(0, action, before, after, hit, tuple(visible), tuple(visible_after),
                     None, effect, "", "2026-03-02 09:41:04", record, record_after)


def screen(*nodes):
    """A screen of (resource id, text, entity) nodes; a 4th item nests a child's text."""
    root = Node("android.widget.FrameLayout", (0, 0, 10, 10))
    for rid, text, entity, *child in nodes:
        node = Node("android.widget.TextView", (0, 0, 1, 1), text=text,
                    resource_id=f"{PKG}music:id/{rid}", entity=entity)
        if child:
            node.add(Node("android.widget.TextView", (0, 0, 1, 1), text=child[0]))
        root.add(node)
    return lambda: root


def no_screen():
    raise AssertionError("the judge read the screen although the step cannot decide")


SPT01_PATH = [
    event("music/home", "music/library", rid="nav_your_library"),
    event("music/library", "music/library/liked", rid="liked_songs"),
    event("music/library/liked", "music/track_menu", rid="more", entity="t1",
          visible=("t9", "t1"), record_after="t1"),
    event("music/track_menu", "music/add_to_playlist", rid="add_to_playlist", record="t1"),
    event("music/add_to_playlist", "music/new_playlist", rid="new_playlist"),
    event("music/new_playlist", "music/new_playlist", action="TYPE[Rainy Night]"),
]


def run(judge, events, after=no_screen):
    verdict = None
    for e in events:
        verdict = judge.update(e, after)
    return verdict


NAMED = screen(("playlist_name", "Rainy Night", None))


def test_the_reference_path_earns_every_subgoal_and_success():
    judge = Judge(task("G-SPT-01"))
    verdict = run(judge, SPT01_PATH, NAMED)
    assert verdict.rewards == (1, 1, 1, 1, 1, 0) and not verdict.success
    created = event("music/new_playlist", "music/playlist", rid="create",
                    visible_after=("u000", "t1"))
    verdict = judge.update(created, screen(("title", "Rainy Night", None),
                                           ("track", "", "t1")))
    assert verdict.rewards == (1.0,) * 6 and verdict.success
    assert verdict.exposed is None  # it never picked another track


def test_a_wrong_track_earns_no_uc_reward_and_fails_the_task():
    judge = Judge(task("G-SPT-01"))
    path = list(SPT01_PATH)
    path[2] = event("music/library/liked", "music/track_menu", rid="more", entity="t9",
                    visible=("t9", "t1"), record_after="t9")
    path[3] = event("music/track_menu", "music/add_to_playlist", rid="add_to_playlist",
                    record="t9")
    run(judge, path, NAMED)
    created = event("music/new_playlist", "music/playlist", rid="create",
                    visible_after=("u000", "t9"))
    verdict = judge.update(created, screen(("title", "Rainy Night", None), ("track", "", "t9"),
                                           ("mini_player", "", "t1")))
    # The target playing in the mini player is not the target in the playlist.
    # The study confirms a selected item by the screen it leads to: the menu reached is
    # t9's, not the target's, so "open the track's menu" (UC) earns 0; the UA navigation
    # after it keeps the route-only rule.
    assert verdict.rewards == (1, 1, 0, 1, 1, 0) and not verdict.success
    assert verdict.exposed is True  # t1 was on screen when t9 was picked


def test_the_wrong_playlist_name_fails_the_outcome():
    judge = Judge(task("G-SPT-01"))
    run(judge, SPT01_PATH, screen(("playlist_name", "Rainy night", None)))
    created = event("music/new_playlist", "music/playlist", rid="create",
                    visible_after=("u000", "t1"))
    verdict = judge.update(created, screen(("title", "Rainy night", None), ("track", "", "t1")))
    assert not verdict.success and verdict.rewards[-1] == 0


def test_an_unobserved_entry_screen_earns_nothing_even_if_a_later_route_is_reached():
    judge = Judge(task("G-WCT-03", entity="c01", label="Emma", record="m03"))
    verdict = run(judge, [event("chat/chats", "chat/moments", rid="nav_discover")])
    # "open Discover" is achieved (its click and a later route); "open Moments" was never
    # on its entry screen (chat/discover), so it earns 0.
    assert verdict.rewards == (1, 0, 0)


def test_success_counts_any_path_while_the_terminal_reward_needs_its_entry_screen():
    judge = Judge(task("G-WCT-03", entity="c01", label="Emma", record="m03"))
    verdict = run(judge, [
        event("chat/chats", "chat/contacts", rid="nav_contacts"),
        event("chat/contacts", "chat/profile", rid="contact", entity="c01"),
    ], screen(("profile_header", "", "c01")))
    assert verdict.success and verdict.rewards == (0, 0, 0)


def test_content_left_from_an_earlier_episode_does_not_decide_the_task():
    judge = Judge(task("G-WCT-02", entity="chat_c02", label="Carlos Ruiz"))
    judge.start("chat/chats", screen())
    left = screen(("toolbar", "", "chat_c02"), ("message_out", "Understood", None),
                  ("input", "", None))
    verdict = run(judge, [
        event("chat/chats", "chat/conversation", rid="chat", entity="chat_c02"),
        event("chat/conversation", "chat/conversation", rid="input"),
        event("chat/conversation", "chat/conversation", action="SWIPE[DOWN]"),
    ], left)
    assert not verdict.success  # "Understood" is on screen, but nothing was sent
    drafted = screen(("toolbar", "", "chat_c02"), ("message_out", "Understood", None),
                     ("input", "Understood", None))
    typed = judge.update(event("chat/conversation", "chat/conversation",
                               action="TYPE[Understood]"), drafted)
    assert not typed.success
    # Whatever sends it — Send, ENTER or the keyboard's own enter key (a click with no
    # element hit in the dump) — the draft is gone and the last sent bubble says it.
    verdict = judge.update(event("chat/conversation", "chat/conversation",
                                 action="CLICK[1000,2300]"), left)
    assert verdict.success and verdict.rewards == (1, 1)


def test_a_scroll_with_the_draft_still_there_is_no_send():
    judge = Judge(task("G-WCT-02", entity="chat_c02", label="Carlos Ruiz"))
    drafted = screen(("toolbar", "", "chat_c02"), ("message_out", "Understood", None),
                     ("input", "Understood", None))
    run(judge, [event("chat/chats", "chat/conversation", rid="chat", entity="chat_c02"),
                event("chat/conversation", "chat/conversation", action="TYPE[Understood]")],
        drafted)
    assert not judge.update(event("chat/conversation", "chat/conversation",
                                  action="SWIPE[DOWN]"), drafted).success


def test_playing_is_decided_by_the_target_click_not_a_later_unrelated_change():
    judge = Judge(task("G-SPT-02"))
    playing = screen(("mini_player", "", "t1"))
    run(judge, [event("music/home", "music/search", rid="nav_search")])
    verdict = judge.update(event("music/search", "music/search", rid="track", entity="t1"),
                           playing)
    assert verdict.success  # played from Search: another path, still the outcome
    judge = Judge(task("G-SPT-02"))
    verdict = run(judge, [event("music/library", "music/library/recent",
                                rid="recently_played")], playing)
    assert not verdict.success  # the target was already playing; expanding is not playing


def test_an_expected_click_counts_without_reaching_the_next_route():
    judge = Judge(task("G-SPT-02"))
    verdict = run(judge, [event("music/home", "music/home", rid="nav_your_library",
                                effect=False)])
    assert verdict.rewards == (1, 0, 0)


def _recent_played(instance: TaskInstance) -> Judge:
    judge = Judge(instance)
    run(judge, [event("music/home", "music/library", rid="nav_your_library"),
                event("music/library", "music/library/recent", rid="recently_played")],
        screen())
    return judge


def test_outcome_needs_an_effect_and_the_target():
    # The effect rule, on G-SPT-02's outcome as it would read with it.
    spt = task("G-SPT-02")
    template = dataclasses.replace(spt.template, outcome=dataclasses.replace(
        spt.template.outcome, effect=True))
    judge = _recent_played(dataclasses.replace(spt, template=template))
    playing_other = screen(("mini_player", "", "t9"))
    assert not judge.update(event("music/library/recent", "music/library/recent", rid="track",
                                  entity="t9", visible=("t9", "t1")), playing_other).success
    idle = event("music/library/recent", "music/library/recent", rid="track", entity="t1",
                 effect=False)
    assert not judge.update(idle, screen(("mini_player", "", "t1"))).success
    verdict = judge.update(event("music/library/recent", "music/library/recent", rid="track",
                                 entity="t1"), screen(("mini_player", "", "t1")))
    assert verdict.success and verdict.rewards == (1, 1, 1)
    assert verdict.exposed is True


def test_tapping_the_track_already_playing_plays_it_and_a_long_press_does_not():
    # A day's phone may still be playing the target: the tap changes nothing, and the task
    # could not succeed, while a long press (its menu open over the mini player) did.
    playing = screen(("mini_player", "", "t1"))
    judge = _recent_played(task("G-SPT-02"))
    held = event("music/library/recent", "music/track_menu", action="LONG_CLICK[1,1]",
                 rid="track", entity="t1")
    assert not judge.update(held, playing).success
    judge = _recent_played(task("G-SPT-02"))
    tapped = event("music/library/recent", "music/library/recent", rid="track", entity="t1",
                   effect=False)
    verdict = judge.update(tapped, playing)
    assert verdict.success and verdict.rewards == (1, 1, 1)


def test_exposure_is_false_when_another_record_is_picked_before_the_target_shows():
    judge = Judge(task("G-WCT-01", entity="chat_c02", label="Carlos"))
    verdict = judge.update(event("chat/chats", "chat/conversation", rid="chat",
                                 entity="chat_c05", visible=("chat_c05", "chat_c07")),
                           screen(("toolbar", "", "chat_c05")))
    assert verdict.exposed is False and verdict.rewards == (0,) and not verdict.success


def test_a_device_without_entity_ids_matches_the_target_by_label():
    judge = Judge(task("G-WCT-02", entity="chat_c02", label="Carlos Ruiz"))
    verdict = judge.update(event("chat/chats", "chat/conversation", rid="chat",
                                 text="Carlos Ruiz"), screen(("toolbar", "", None, "Carlos Ruiz")))
    assert verdict.rewards == (1, 0)
    # The outcome's node shows the label in its subtree (a toolbar's title).
    judge.update(event("chat/conversation", "chat/conversation", action="TYPE[Understood]"),
                 screen(("toolbar", "", None, "Carlos Ruiz"), ("input", "Understood", None)))
    sent = screen(("toolbar", "", None, "Carlos Ruiz"), ("message_out", "Understood", None),
                  ("input", "", None))
    assert judge.update(event("chat/conversation", "chat/conversation", rid="send"),
                        sent).success


def test_exposure_follows_the_moments_post_not_its_authors_other_appearances():
    judge = Judge(task("G-WCT-03", entity="c01", label="Emma", record="m03"))
    verdict = run(judge, [
        event("chat/chats", "chat/discover", rid="nav_discover"),
        event("chat/discover", "chat/moments", rid="moments"),
        # c01 shows (another post of hers) but the designated post m03 does not.
        event("chat/moments", "chat/profile", rid="author", entity="c07",
              visible=("m01", "c01", "m02", "c07")),
    ], screen(("profile_header", "", "c07")))
    assert verdict.exposed is False and not verdict.success


def test_reached_flags_mark_the_subgoals_whose_entry_screen_was_observed():
    # SAR's denominator: "subgoal achievement over reached contexts".
    judge = Judge(task("G-SPT-01"))
    verdict = run(judge, SPT01_PATH[:2])
    assert verdict.reached == (True, True, False, False, False, False)
    assert verdict.rewards == (1, 1, 0, 0, 0, 0)


def test_sending_in_the_wrong_conversation_earns_nothing():
    # The study confirms a selected item by the next screen: "open the conversation" (UC)
    # is achieved only if the conversation reached is the target's or the target was
    # clicked. The reply in another chat then decides nothing either.
    judge = Judge(task("G-WCT-02", entity="chat_c02", label="Carlos Ruiz"))
    other = screen(("toolbar", "", "chat_c05"), ("message_out", "Understood", None),
                   ("input", "", None))
    verdict = run(judge, [
        event("chat/chats", "chat/conversation", rid="chat", entity="chat_c05",
              record_after="chat_c05"),
        event("chat/conversation", "chat/conversation", action="TYPE[Understood]",
              record="chat_c05", record_after="chat_c05"),
        event("chat/conversation", "chat/conversation", rid="send", record="chat_c05",
              record_after="chat_c05"),
    ], other)
    assert verdict.rewards == (0, 0) and verdict.reached == (True, True)
    assert not verdict.success


def test_the_targets_screen_reached_by_another_path_achieves_the_uc_subgoal():
    # Entry screen observed, then the target's conversation opened from its profile: the
    # later screen reached is the target's, so "open the conversation" is achieved.
    judge = Judge(task("G-WCT-02", entity="chat_c02", label="Carlos Ruiz"))
    verdict = run(judge, [
        event("chat/chats", "chat/contacts", rid="nav_contacts"),
        event("chat/contacts", "chat/profile", rid="contact", entity="c02"),
        event("chat/profile", "chat/conversation", rid="messages", record_after="chat_c02"),
    ], screen(("toolbar", "", "chat_c02"), ("input", "", None)))
    assert verdict.rewards == (1, 0)


def test_a_click_made_before_its_entry_screen_is_observed_never_counts_later():
    # Tapped on the home screen before the library was ever seen, "open Liked Songs" must
    # not count once the library is observed afterwards without the tap again.
    verdict = run(Judge(task("G-SPT-01")), [
        event("music/home", "music/home", rid="liked_songs", text="Liked Songs"),
        event("music/home", "music/library", rid="nav_your_library"),
        event("music/library", "music/library", action="SWIPE[UP]"),
    ])
    assert verdict.reached[1] and verdict.rewards[:2] == (1, 0)


def test_exposure_is_decided_at_the_first_other_pick_and_never_again():
    judge = Judge(task("G-WCT-01", entity="chat_c02", label="Carlos"))
    verdict = run(judge, [
        event("chat/chats", "chat/conversation", rid="chat", entity="chat_c05",
              visible=("chat_c05", "chat_c07")),
        event("chat/conversation", "chat/chats", action="PRESS[BACK]"),
        event("chat/chats", "chat/conversation", rid="chat", entity="chat_c07",
              visible=("chat_c02", "chat_c07")),  # the target shows now: too late
    ], screen(("toolbar", "", "chat_c07")))
    assert verdict.exposed is False


def test_expected_clicks_count_anywhere_once_the_entry_screen_was_observed():
    # "The scorer searches the entire log without enforcing visit order": the Moments
    # control clicked on another screen counts, but only after chat/discover was observed.
    early = Judge(task("G-WCT-03", entity="c01", label="Emma", record="m03"))
    verdict = run(early, [event("chat/me", "chat/me", rid="moments", effect=False)])
    assert verdict.rewards[1] == 0 and not verdict.reached[1]
    judge = Judge(task("G-WCT-03", entity="c01", label="Emma", record="m03"))
    verdict = run(judge, [
        event("chat/chats", "chat/discover", rid="nav_discover"),
        event("chat/discover", "chat/me", rid="nav_me"),
        event("chat/me", "chat/me", rid="moments", effect=False),
    ])
    assert verdict.rewards == (1, 1, 0)


def test_controls_match_by_their_label_where_dumps_carry_no_resource_ids():
    # A device without resource ids is judged by the control's label: a row whose
    # children say "Recently  played" is the recently_played control.
    judge = Judge(task("G-SPT-02"))
    verdict = run(judge, [
        event("music/home", "music/library", texts=("Your Library",)),
        event("music/library", "music/library", texts=("Recently\n played", "12 songs"),
              effect=False),
    ])
    assert verdict.rewards == (1, 1, 0)
    judge = Judge(task("G-SPT-02"))
    verdict = run(judge, [event("music/home", "music/home", texts=("Open  your LIBRARY",),
                                effect=False)])
    assert verdict.rewards == (1, 0, 0)  # the label's words, whole and in order
    for other in ("Library", "Your Libraryyy", "Library, your"):
        judge = Judge(task("G-SPT-02"))
        verdict = run(judge, [event("music/home", "music/home", texts=(other,),
                                    effect=False)])
        assert verdict.rewards == (0, 0, 0), other


def test_a_target_click_without_ids_is_decided_by_the_target_alone():
    # Neither resource nor entity ids: the long click on the target's row opens its menu.
    def long_click(texts):
        return event("music/library/liked", "music/track_menu", action="LONG_CLICK[1,1]",
                     texts=texts)

    opened = [*SPT01_PATH[:2], long_click(("Song One", "Artist"))]
    assert run(Judge(task("G-SPT-01")), opened).rewards[:3] == (1, 1, 1)
    other = [*SPT01_PATH[:2], long_click(("Song Two", "Artist"))]
    assert run(Judge(task("G-SPT-01")), other).rewards[:3] == (1, 1, 0)


def test_a_control_with_a_resource_id_is_judged_by_it_not_by_its_texts():
    # G-WRE-02 expects a click on the Me tab ("Me"); a book on the shelf whose title holds
    # "me" ("The Long Game") used to earn it, with or without its own id.
    judge = Judge(task("G-WRE-02"))
    book = event("reader/home", "reader/book", rid="shelf_book",
                 texts=("The Long Game", "Me and You", "54% read"))
    assert run(judge, [book]).rewards[0] == 0
    judge = Judge(task("G-WRE-02"))
    assert run(judge, [event("reader/home", "reader/book", texts=("The Long Game",))]
               ).rewards[0] == 0
    judge = Judge(task("G-WRE-02"))
    assert run(judge, [event("reader/home", "reader/me", rid="nav_me")]).rewards[0] == 1


def test_a_node_check_can_require_a_toggles_checked_state_as_a_dump_shows_it():
    from mobileintent_gym.phone import hierarchy
    from mobileintent_gym.tasks.spec import NodeCheck

    def toggle(checked):
        root = Node("android.widget.FrameLayout", (0, 0, 10, 10))
        root.add(Node("android.widget.Button", (0, 0, 5, 5), resource_id=f"{PKG}music:id/like",
                      checkable=True, checked=checked, entity="t1"))
        return hierarchy.parse(hierarchy.dump(root, PKG + "music"))  # as a device shows it

    liked, target = NodeCheck("like", target=True, checked=True), Target("t1", "Song One")
    assert liked.holds(toggle(True), target) and not liked.holds(toggle(False), target)
    assert NodeCheck("like", checked=False).holds(toggle(False), target)
    assert NodeCheck("like").holds(toggle(False), target)  # None: either state


def test_a_short_click_showing_the_target_is_not_its_menu_without_ids():
    # Without resource ids a short click on the row plays the track: it may not pass for
    # the More button, which has no label to tell it by.
    tap = event("music/library/liked", "music/library/liked", texts=("Song One", "Artist"))
    assert run(Judge(task("G-SPT-01")), [*SPT01_PATH[:2], tap]).rewards[:3] == (1, 1, 0)


def test_navigation_keeps_the_route_rule_where_the_item_needs_its_own_screen():
    # "a non-terminal one r = 1 if a later subgoal's route was reached (any time)": task-
    # agnostic navigation (UA) keeps that rule, whatever record the later screen is about;
    # only a UC subgoal needs the screen of the task's own record. Recently played ->
    # another track's menu reaches the menu screen: "open Liked Songs" (UA) is earned,
    # "find the song" (UC) is not.
    def menu_of(entity):
        return [event("music/home", "music/library", rid="nav_your_library"),
                event("music/library", "music/library/recent", rid="recent"),
                event("music/library/recent", "music/track_menu", rid="more", entity=entity,
                      record_after=entity)]

    goals = task("G-SPT-01").template.subgoals
    assert [g.context for g in goals[:3]] == ["UA", "UA", "UC"]
    assert run(Judge(task("G-SPT-01")), menu_of("t9")).rewards[:3] == (1, 1, 0)
    assert run(Judge(task("G-SPT-01")), menu_of("t1")).rewards[:3] == (1, 1, 0)
    listed = run(Judge(task("G-SPT-01")), [
        event("music/home", "music/library", rid="nav_your_library"),
        event("music/library", "music/library/liked", rid="somewhere_else")])
    assert listed.rewards[:2] == (1, 1)  # k=2's entry screen, about no record


def test_a_node_check_reads_the_first_or_the_last_node_and_trims_a_draft():
    from mobileintent_gym.tasks.spec import NodeCheck

    chat = screen(("message_out", "Understood", None), ("message_out", "See you", None),
                  ("input", "  Understood ", None))()
    target = Target("t1", "Song One")
    assert NodeCheck("message_out", "See you", which="last").holds(chat, target)
    assert not NodeCheck("message_out", "Understood", which="last").holds(chat, target)
    assert NodeCheck("message_out", "Understood", which="first").holds(chat, target)
    assert not NodeCheck("message_out", "See you", which="first").holds(chat, target)
    assert NodeCheck("message_out", "Understood", present=False, which="last").holds(chat, target)
    assert NodeCheck("input", "Understood", draft=True).holds(chat, target)
    assert not NodeCheck("input", "Understood").holds(chat, target)  # a shown text is exact


def test_an_empty_label_is_said_by_no_text():
    from mobileintent_gym.tasks.spec import says

    assert says("Open your LIBRARY", "Your Library") and says("Song One", "song one")
    assert not says("Song One", "") and not says("", "") and not says("Song One", "...")
    assert not Target("t1", "").shown_by(None, ("Song One", "Artist"))


def test_a_label_left_unsaid_takes_its_words_out_wherever_says_finds_them():
    from mobileintent_gym.tasks.spec import unsaid

    assert unsaid('Play "Yellow" again, YELLOW!', "yellow") == "play again"
    assert unsaid("The Long Game", "Me") == "the long game"  # no word of it is "me"
    assert unsaid("reply to Li  Wei, Li", "Li Wei") == "reply to li"
    assert unsaid("Song One", "") == "song one"  # an empty label is said by no text


def test_the_text_to_type_is_the_one_an_oracle_move_fills_in():
    assert get_template("G-SPT-01").text_to_type() == "Rainy Night"
    assert get_template("G-SPT-02").text_to_type() is None


def test_the_oracle_declares_done_on_the_outcomes_screen_and_backs_out_of_others():
    from mobileintent_gym.actions import Action
    from mobileintent_gym.tasks import Oracle

    oracle = Oracle(task("G-SPT-01"))
    assert oracle.act("music/playlist", "") == Action.complete()  # the outcome's own screen
    assert oracle.act("music/settings", "") == Action.press("BACK")
    assert Oracle(task("G-SPT-02")).act("music/playlist", "") == Action.press("BACK")

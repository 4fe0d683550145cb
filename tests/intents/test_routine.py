"""Routines: habits from a profile and a seed, days drawn from them, KnowU habits."""

import itertools
from datetime import date, timedelta

import pytest

from mobileintent_gym.intents import build_routine, load_knowu_habits, plan_day
from mobileintent_gym.intents.act2intention import InvalidDataError
from mobileintent_gym.intents.routine import MIN_GAP, WEEKDAYS, Habit, Trigger
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import builtin_users, resolve_profile
from tests.helpers import shared

MONDAY = date(2026, 3, 2)


@pytest.fixture(scope="module")
def profiles():
    return [resolve_profile(name) for name in builtin_users()]


def test_a_routine_is_fixed_by_profile_and_seed_and_differs_across_users(profiles):
    first = build_routine(profiles[0], seed=0)
    assert build_routine(profiles[0], seed=0) == first
    assert build_routine(profiles[0], seed=1).habits != first.habits
    assert len({build_routine(p).habits for p in profiles}) == len(profiles)
    assert all(h.task in task_ids() for h in first.habits)
    assert any(h.trigger.after is not None for h in first.habits)  # a follow-up habit


def test_interests_raise_the_weight_of_templates_in_liked_domains(profiles):
    for profile in profiles:
        weights = dict(build_routine(profile).interests)
        music = weights["G-SPT-02:personal:explicit"]
        liked = profile.interests.get("Music") == 1
        assert music == (2.5 / 4 if liked else 0.5 / 4)


def test_a_day_is_ordered_spaced_and_on_its_date(profiles):
    routine = build_routine(profiles[0])
    for offset in range(14):
        day = MONDAY + timedelta(days=offset)
        plan = plan_day(routine, day)
        assert plan == plan_day(routine, day)
        assert all(p.time.date() == day for p in plan)
        assert all(b.time - a.time >= MIN_GAP for a, b in itertools.pairwise(plan))
        assert all((p.task is None) == (p.kind != "intention") for p in plan)


def test_habits_fire_in_their_window_on_their_days_most_of_the_time(profiles):
    habit = Habit("reply", "G-WCT-02:personal:explicit", Trigger(600, 620, WEEKDAYS), 0.9)
    routine = build_routine(profiles[0])
    routine = type(routine)(routine.user, routine.schedule, (habit,), routine.interests,
                            extra=0.0, noise=0.0)
    fired = {d: [p for p in plan_day(routine, MONDAY + timedelta(days=d)) if p.habit]
             for d in range(28)}
    weekdays = [d for d in fired if (MONDAY + timedelta(days=d)).weekday() < 5]
    assert all(not fired[d] for d in fired if d not in weekdays)
    assert sum(bool(fired[d]) for d in weekdays) >= 0.75 * len(weekdays)
    assert all(600 <= p.time.hour * 60 + p.time.minute <= 620 for d in fired for p in fired[d])


def test_a_follow_up_habit_comes_minutes_after_its_trigger(profiles):
    lead = Habit("music", "G-SPT-03:common:explicit", Trigger(480, 490), 1.0)
    then = Habit("then chat", "G-WCT-01:common:explicit", Trigger(1, 10, after="G-SPT-03"), 1.0)
    base = build_routine(profiles[0])
    routine = type(base)(base.user, base.schedule, (lead, then), base.interests, 0.0, 0.0)
    plan = plan_day(routine, MONDAY)
    assert [p.habit for p in plan] == ["music", "then chat"]
    assert timedelta(minutes=1) <= plan[1].time - plan[0].time <= timedelta(minutes=10, seconds=59)


def test_knowu_habits_become_routine_habits(tmp_path):
    pytest.importorskip("yaml")
    path = tmp_path / "me.yaml"
    path.write_text("""
user_profile:
  habits:
    clock_out:
      trigger: {type: time_event, time: "18:00", days: [Monday, Friday]}
      action: {type: send_message, app: Mattermost, content: "bye"}
    dark_mode:
      trigger: {time_range: ["22:55", "23:30"]}
      action: {type: change_settings, settings: [dark_theme]}
    on_alert:
      trigger: {condition: "Battery level <= 15%"}
      action: {type: browse_info}
""")
    habits = {h.name: h for h in load_knowu_habits(path)}
    assert set(habits) == {"clock_out", "on_alert"}  # no app changes settings yet
    assert habits["clock_out"].task == "G-WCT-02:personal:explicit"
    assert habits["clock_out"].trigger == Trigger(18 * 60, 18 * 60 + 9, (0, 4))  # ten minutes
    # browse_info: the news in the social app's timeline, the first installed template of it
    assert habits["on_alert"].task.startswith("G-X-02") and habits["on_alert"].chance < 0.5


def test_a_bad_knowu_file_is_named(tmp_path):
    pytest.importorskip("yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("user_profile:\n  habits:\n    x: {trigger: {time: '18:00', days: [Funday]},"
                   " action: {type: send_message}}\n")
    # A habit's error named the habit only, and KnowU files repeat habit names.
    with pytest.raises(InvalidDataError, match=r"bad\.yaml: KnowU habit 'x'.*Funday"):
        load_knowu_habits(bad)
    (tmp_path / "none.yaml").write_text("a: 1\n")
    with pytest.raises(InvalidDataError, match=r"none\.yaml"):
        load_knowu_habits(tmp_path / "none.yaml")


def test_a_knowu_action_may_be_its_type_alone(tmp_path):
    # `action: send_message` dropped the habit without a word.
    pytest.importorskip("yaml")
    path = tmp_path / "short.yaml"
    path.write_text("user_profile:\n  habits:\n    a: {trigger: {time: '18:00'}, action: "
                    "send_message}\n    b: {trigger: {time: '18:00'}, action: {type: "
                    "send_message}}\n")
    a, b = load_knowu_habits(path)
    assert (a.name, b.name) == ("a", "b") and (a.task, a.trigger) == (b.task, b.trigger)


@pytest.mark.parametrize(("habit", "named"), [
    ("[send_message]", "'x' must be a mapping \\(trigger, action\\), got \\['send_message'\\]"),
    ("{action: [send_message]}", "'x': action type must be a name, got \\['send_message'\\]"),
])
def test_a_malformed_knowu_habit_is_named(tmp_path, habit, named):
    pytest.importorskip("yaml")
    path = tmp_path / "k.yaml"
    path.write_text(f"user_profile:\n  habits:\n    x: {habit}\n")
    with pytest.raises(InvalidDataError, match=named):
        load_knowu_habits(path)


def test_a_knowu_file_that_is_no_yaml_is_named_on_one_line(tmp_path):
    # PyYAML's message spans seven lines, with a caret drawing (a command's error is one).
    pytest.importorskip("yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("user_profile:\n  habits: [yaml\n")
    with pytest.raises(InvalidDataError) as err:
        load_knowu_habits(bad)
    assert str(err.value) == (f"{bad}:3:1: not YAML: while parsing a flow sequence, expected "
                              "',' or ']', but got '<stream end>'")


@pytest.mark.parametrize(("trigger", "named"), [
    ("{time: '25:99'}", "not a time of day"), ("{time: '7:5x'}", "not a time of day"),
    ("{time_range: ['23:30', '00:30']}", "crosses midnight"),
    ("{time_range: ['08:00']}", "time_range must be two times"),
    ("{time: '24:00'}", "not a time of day"), ("{time: '23:60'}", "not a time of day"),
    ("{time: 24:00}", "not a time of day"),  # unquoted: the base-60 integer 1440
    # A habit the phone can carry out vanished without a word, or never fired.
    ("'18:00'", "trigger must be a mapping"), ("{time: '18:00', days: []}", "no weekday"),
    # Read as no trigger at all (any waking hour) where nothing was said:
    ("[]", "trigger must be a mapping"), ("false", "trigger must be a mapping"),
    ("''", "trigger must be a mapping"), ("0", "trigger must be a mapping"),
])
def test_a_knowu_time_that_is_no_time_of_day_is_named(tmp_path, trigger, named):
    pytest.importorskip("yaml")
    path = tmp_path / "times.yaml"
    path.write_text("user_profile:\n  habits:\n    late: {trigger: " + trigger
                    + ", action: {type: send_message}}\n")
    with pytest.raises(InvalidDataError, match=f"'late'.*{named}"):
        load_knowu_habits(path)


@pytest.mark.parametrize(("days", "weekdays"), [
    ("Saturday", (5,)), ("[Mon, Tue]", (0, 1)), ("'Monday-Friday'", (0, 1, 2, 3, 4)),
    ("'Mon, Wed, Fri'", (0, 2, 4)), ("'Tuesday/Thursday'", (1, 3)), ("weekends", (5, 6)),
    ("'Fri - Mon'", (0, 4, 5, 6)), ("[WEEKDAYS]", (0, 1, 2, 3, 4)),
    # Read by their first letters before, and to be read still:
    ("Tues", (1,)), ("Thurs", (3,)), ("Weds", (2,)), ("[Mondays, Fridays]", (0, 4)),
    ("[Tue., Thu.]", (1, 3)), ("weekend", (5, 6)),
])
def test_knowu_weekdays_are_read_whole(tmp_path, days, weekdays):
    # The first three letters of the whole string were read: "Monday-Friday" was Monday.
    pytest.importorskip("yaml")
    path = tmp_path / "days.yaml"
    path.write_text("user_profile:\n  habits:\n    standup: {trigger: {time: '09:00', days: "
                    + days + "}, action: {type: send_message}}\n")
    (habit,) = load_knowu_habits(path)
    assert habit.trigger.days == weekdays


@pytest.mark.parametrize("days", ["[Monkey]", "'Mon-'", "'Monday to Friday'", "[3]", "Mo"])
def test_a_knowu_day_that_is_no_weekday_is_named(tmp_path, days):
    pytest.importorskip("yaml")
    path = tmp_path / "days.yaml"
    path.write_text("user_profile:\n  habits:\n    standup: {trigger: {time: '09:00', days: "
                    + days + "}, action: {type: send_message}}\n")
    with pytest.raises(InvalidDataError, match=r"'standup'.*weekday"):
        load_knowu_habits(path)


def test_an_unquoted_knowu_time_means_the_same_as_a_quoted_one(tmp_path):
    # YAML reads 18:00 unquoted as the base-60 integer 1080, which was refused.
    pytest.importorskip("yaml")
    path = tmp_path / "times.yaml"
    path.write_text("user_profile:\n  habits:\n    late: {trigger: {time: 18:00, time_range: "
                    "x}, action: {type: send_message}}\n    early: {trigger: {time_range: "
                    "[08:30, 17:45]}, action: {type: send_message}}\n")
    habits = {h.name: h.trigger for h in load_knowu_habits(path)}
    assert (habits["late"].start, habits["late"].end) == (18 * 60, 18 * 60 + 9)
    assert (habits["early"].start, habits["early"].end) == (8 * 60 + 30, 17 * 60 + 45)
    path.write_text(YAML.replace("'18:00'", "25:00"))  # 1500 minutes
    with pytest.raises(InvalidDataError, match=r"not a time of day .*: 1500"):
        load_knowu_habits(path)


@pytest.mark.parametrize("content", [
    # Each crashed with a traceback that named no file.
    "user_profile:\n  habits:\n    x: {trigger: {time: '18:00'}, action: {type: 电话}}\n"
    .encode("gbk"),
    ("a: " + "[" * 5000 + "]" * 5000 + "\n").encode()])
def test_a_knowu_file_not_in_utf8_or_nested_too_deeply_is_named(tmp_path, content):
    pytest.importorskip("yaml")
    (tmp_path / "k.yaml").write_bytes(content)
    with pytest.raises(InvalidDataError, match=r"k\.yaml: "):
        load_knowu_habits(tmp_path / "k.yaml")


def test_the_real_knowu_profiles_load():
    pytest.importorskip("yaml")
    folder = shared("knowu")
    habits = {p.stem: load_knowu_habits(p) for p in sorted(folder.glob("*.yaml"))}
    assert {h.name for h in habits["developer"]} == {"on_call_response", "clock_out_routine"}
    clock_out = next(h for h in habits["developer"] if h.name == "clock_out_routine")
    assert clock_out.trigger.start == 18 * 60 and clock_out.trigger.days == WEEKDAYS
    # A call opens the contact's chat; an email is the chat reply task.
    call = next(h for h in habits["grandma"] if h.name == "daily_family_call")
    assert call.task.startswith("G-WCT-01:")
    assert (call.trigger.start, call.trigger.end, call.trigger.days) == (1170, 1200, (5,))
    report = next(h for h in habits["user"] if h.name == "weekly_report")
    assert report.task.startswith("G-WCT-02:")
    assert (report.trigger.start, report.trigger.end, report.trigger.days) == (1015, 1025, (4,))


def test_every_users_habits_can_fire_and_follow_ups_are_another_templates():
    # Habits in the morning slots move with the user's schedule, and a student's "work"
    # habits happen on campus: none is left where the user never is at that time.
    for user in builtin_users():
        routine = build_routine(resolve_profile(user), 0)
        days = [plan_day(routine, date(2026, 3, 2) + timedelta(n), 0) for n in range(28)]
        fired = {p.habit for plan in days for p in plan}
        for habit in routine.habits:
            if habit.trigger.after is None:
                assert habit.name in fired, (user, habit)
            else:
                assert not habit.task.startswith(habit.trigger.after + ":"), (user, habit)


YAML = ("user_profile:\n  habits:\n    clock_out:\n      trigger: {time: '18:00'}\n"
        "      action: {type: send_message}\n")


@pytest.mark.parametrize("text", ["user_profile:\n", "user_profile:\n  - a\n",
                                  YAML.replace("send_message}", "[send_message]}")])
def test_a_malformed_knowu_profile_is_named(tmp_path, text):
    # An empty or listed user_profile raised AttributeError, a listed action type TypeError.
    pytest.importorskip("yaml")
    (tmp_path / "k.yaml").write_text(text)
    with pytest.raises(InvalidDataError):
        load_knowu_habits(tmp_path / "k.yaml")


def test_a_knowu_time_is_a_ten_minute_window_within_the_day():
    # It was eleven minutes (both ends inclusive), and a 23:55 habit's draws past midnight
    # were dropped: it fired on 77 of 200 days at a chance of 0.9.
    from mobileintent_gym.intents.knowu import habit_from_knowu
    from mobileintent_gym.intents.routine import Routine, Schedule

    habit = habit_from_knowu("late", {"trigger": {"time": "23:55"},
                                      "action": {"type": "send_message"}})
    assert (habit.trigger.start, habit.trigger.end) == (23 * 60 + 55, 23 * 60 + 59)
    evening = habit_from_knowu("e", {"trigger": {"time": "18:00"},
                                     "action": {"type": "send_message"}})
    assert evening.trigger.end - evening.trigger.start + 1 == 10
    routine = Routine("x", Schedule(), (habit,), (("G-WCT-01:personal:explicit", 1.0),),
                      0.0, 0.0)
    fired = sum(any(p.habit == "late" for p in plan_day(routine, date(2026, 3, 2)
                                                        + timedelta(d), 0)) for d in range(200))
    assert fired >= 160


def _only(*habits):
    """A routine of ``habits`` alone: no chance intentions, no noise, the default schedule."""
    from mobileintent_gym.intents.routine import Routine, Schedule

    return Routine("x", Schedule(), habits, (("G-WCT-01:personal:explicit", 1.0),), 0.0, 0.0)


def test_a_one_minute_window_fires_on_its_minute_and_what_spills_past_midnight_is_dropped():
    # Three habits at 23:59, spaced three minutes apart: two fall on the next day.
    habits = [Habit(f"late {i}", "G-WCT-01:personal:explicit", Trigger(1439, 1439), 1.0)
              for i in range(3)]
    for offset in range(7):
        day = MONDAY + timedelta(days=offset)
        plan = plan_day(_only(*habits), day)
        assert len(plan) == 1 and plan[0].time.date() == day
        assert (plan[0].time.hour, plan[0].time.minute) == (23, 59)


def test_a_habit_tied_to_a_place_fires_only_where_the_user_is_then():
    # 10:00 on a weekday: the default schedule has the user at work, not at home.
    at_home = Habit("home", "G-WCT-01:personal:explicit", Trigger(600, 620, WEEKDAYS, "home"), 1.0)
    at_work = Habit("work", "G-WCT-02:personal:explicit", Trigger(600, 620, WEEKDAYS, "work"), 1.0)
    fired = [p.habit for d in range(5) for p in plan_day(_only(at_home, at_work),
                                                           MONDAY + timedelta(days=d))]
    assert fired == ["work"] * 5


def test_a_follow_up_can_follow_an_event_class_and_a_one_minute_gap_is_kept():
    # "after" names a template or an event class (G-SPT-03 is "Listen music").
    lead = Habit("music", "G-SPT-03:common:explicit", Trigger(480, 490), 1.0)
    then = Habit("then chat", "G-WCT-01:common:explicit",
                 Trigger(5, 5, after="Listen music"), 1.0)
    plan = plan_day(_only(lead, then), MONDAY)
    assert [p.habit for p in plan] == ["music", "then chat"]
    assert plan[1].time - plan[0].time == timedelta(minutes=5)


def test_the_schedule_places_the_user_at_the_edges_of_each_stretch():
    from datetime import datetime

    from mobileintent_gym.intents.routine import Schedule

    def places(day, *minutes, schedule=None):
        schedule = schedule or Schedule()
        return [schedule.place(datetime(2026, 3, day, m // 60, m % 60)) for m in minutes]

    # Monday: home until 08:15, commute until 09:00, work until 17:30, commute until 18:15.
    assert places(2, 494, 495, 539, 540, 1049, 1050, 1094, 1095) == [
        "home", "commute", "commute", "work", "work", "commute", "commute", "home"]
    assert places(2, 540, schedule=Schedule(workplace="campus")) == ["campus"]
    # Saturday: out from 14:00 to 17:00, at home otherwise.
    assert places(7, 600, 839, 840, 1019, 1020) == ["home", "home", "out", "out", "home"]


def test_extra_habits_join_the_profiles_own(profiles):
    extra = Habit("knowu", "G-WCT-02:personal:explicit", Trigger(600, 609), 0.9, "knowu")
    base = build_routine(profiles[0], 0)
    routine = build_routine(profiles[0], 0, (extra,))
    assert routine.habits == (*base.habits, extra)
    assert routine.schedule == base.schedule and routine.interests == base.interests


def test_knowu_ranges_of_one_minute_and_days_given_as_day_of_week_are_read(tmp_path):
    pytest.importorskip("yaml")
    path = tmp_path / "k.yaml"
    path.write_text("user_profile:\n  habits:\n    x: {trigger: {time_range: ['08:00', '08:00'],"
                    " day_of_week: [Saturday]}, action: {type: send_message}}\n")
    (habit,) = load_knowu_habits(path)
    assert habit.trigger == Trigger(480, 480, (5,))


def test_chance_intentions_and_noise_come_while_the_user_is_awake():
    from mobileintent_gym.intents.routine import Routine, Schedule

    routine = Routine("x", Schedule(wake=9 * 60), (), (("G-WCT-01:personal:explicit", 1.0),),
                      extra=20.0, noise=1.0)
    plans = [plan_day(routine, MONDAY + timedelta(days=d)) for d in range(7)]
    assert sum(p.kind != "intention" for plan in plans for p in plan) > 50
    assert all(p.time.hour >= 9 for plan in plans for p in plan)


@pytest.mark.parametrize("trigger", ["", "trigger: null, ", "trigger: {}, "])
def test_a_knowu_habit_without_a_trigger_may_fire_at_any_waking_hour(tmp_path, trigger):
    pytest.importorskip("yaml")
    path = tmp_path / "free.yaml"
    path.write_text("user_profile:\n  habits:\n    note: {" + trigger
                    + "action: {type: send_message}}\n")
    (habit,) = load_knowu_habits(path)
    assert (habit.trigger.start, habit.trigger.end) == (8 * 60, 22 * 60)
    assert habit.trigger.days == tuple(range(7))

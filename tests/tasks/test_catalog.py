"""The catalog tables: one row per template and per context of the registry, in its order."""

import pytest

from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.tasks.catalog import contexts_table, markdown_table, templates_table
from mobileintent_gym.users.pair import CONTEXTS, PairConfig


def cells(table):
    return [[cell.strip() for cell in line.strip("|").split("|")]
            for line in table.splitlines()[2:]]


def test_markdown_table_writes_a_header_rule_and_rows():
    assert markdown_table(("a", "b"), [("1", "2")]) == "| a | b |\n|---|---|\n| 1 | 2 |"


def test_every_template_has_its_row_with_its_subgoals_in_order():
    rows = cells(templates_table())
    assert [row[0] for row in rows] == list(TEMPLATES)
    spt01 = rows[list(TEMPLATES).index("G-SPT-01")]
    assert spt01[1:3] == ["music", "`music:liked`"]
    subgoals = spt01[4].split(" · ")
    assert len(subgoals) == len(TEMPLATES["G-SPT-01"].subgoals) == 6
    assert subgoals[2] == "open the track's menu (UC)"  # the one user-conditioned subgoal
    assert sum(s.endswith("(UC)") for s in subgoals) == 1


def test_every_context_has_its_row_with_the_configured_size():
    rows = cells(contexts_table(PairConfig(sizes={"music:home": 5})))
    assert [row[0].strip("`") for row in rows] == list(CONTEXTS)
    by_key = {row[0].strip("`"): row for row in rows}
    assert by_key["music:home"][1:] == ["`p00` … `p31` (32)", "5", "`p00`, `p04`"]
    assert by_key["chat:chats"][2] == "20"  # no size of its own: top_k
    # A size beyond the pool was shown as it was asked, not as the content gets it.
    bigger = cells(contexts_table(PairConfig(sizes={"music:home": 40})))
    assert bigger[[row[0] for row in bigger].index("`music:home`")][2] == (
        "40 (its pool holds 32)")


def test_task_ids_take_one_template_id_alone_and_name_an_unknown_one():
    # A string was iterated: "G-SPT-02" gave ids of templates "G", "-", "S" …; an unknown
    # id gave task ids that failed only later.
    from mobileintent_gym.errors import MobileIntentError
    from mobileintent_gym.tasks import task_ids

    assert task_ids("G-SPT-02") == task_ids(("G-SPT-02",))
    assert task_ids("G-SPT-02")[:2] == ("G-SPT-02:common:explicit", "G-SPT-02:common:implicit")
    with pytest.raises(MobileIntentError, match="unknown task template 'NOPE'"):
        task_ids(("NOPE",))


@pytest.mark.parametrize("task_id", ["G-SPT-02:personal:explicit:x", "G-SPT-02:personal",
                                     "G-SPT-02", "", ["G-SPT-02"], None])
def test_a_task_id_without_three_parts_is_named(task_id):
    from mobileintent_gym.tasks import UnknownTaskError, parse_task_id

    with pytest.raises(UnknownTaskError, match="task id must be") as caught:
        parse_task_id(task_id)
    # A template id alone is given its four tasks.
    assert str(caught.value).endswith(
        "; the tasks of template 'G-SPT-02' are G-SPT-02:common:explicit, "
        "G-SPT-02:common:implicit, G-SPT-02:personal:explicit, G-SPT-02:personal:implicit"
    ) == (task_id == "G-SPT-02")


def test_chosen_tasks_takes_one_id_or_several_each_once_and_names_a_bad_one():
    # The env, the rollouts and the trainers each read "one id or several" their own way:
    # the rollouts ran a task given twice twice, and named a bad id only at its reset.
    from mobileintent_gym.tasks import UnknownTaskError, chosen_tasks

    spt, wct = "G-SPT-02:common:explicit", "G-WCT-01:personal:implicit"
    assert chosen_tasks(spt) == (spt,)  # one id, not its letters
    assert chosen_tasks([wct, spt, wct]) == (wct, spt)
    assert chosen_tasks(t for t in (spt, wct, spt)) == (spt, wct)  # any iterable, in order
    assert chosen_tasks({wct, spt}) == (spt, wct)  # a set in order, the same in any process
    assert len(chosen_tasks(None)) == 120
    for bad in ((), 7, b"G-SPT-02:common:explicit", {spt: 1}):
        with pytest.raises(UnknownTaskError, match=r"tasks must be task ids \(None: every "):
            chosen_tasks(bad)
    with pytest.raises(UnknownTaskError, match="'G-SPT-02:common:explict'"):
        chosen_tasks([spt, "G-SPT-02:common:explict"])


def test_an_instance_acts_on_the_common_item_or_the_users_best_ranked_one():
    from mobileintent_gym.tasks import instantiate
    from mobileintent_gym.users import PairConfig, build_user_content, resolve_profile

    ana, chen = (build_user_content(resolve_profile(u), PairConfig(encoder="lexical"))
                 for u in ("demo-ana", "demo-chen"))
    template = TEMPLATES["G-SPT-02"]
    common = [instantiate("G-SPT-02:common:explicit", c) for c in (ana, chen)]
    assert common[0].record == common[1].record == ana.contexts[template.context].common[0]
    assert common[0].instruction == common[1].instruction  # the same wording for all
    personal = instantiate("G-SPT-02:personal:explicit", ana)
    assert personal.record == ana.contexts[template.context].personal[0]  # best-ranked first
    assert personal.instruction == template.explicit.format(label=ana.labels[personal.record])
    assert personal.target.entity == personal.record and personal.user == "demo-ana"
    implicit = instantiate("G-SPT-02:personal:implicit", ana)
    assert implicit.record == personal.record and implicit.instruction_type == "implicit"
    assert implicit.instruction == template.implicit.format(cue=ana.cues[personal.record])
    assert implicit.instruction != personal.instruction


def test_step_limits_are_the_documented_ones_and_the_registered_limit_covers_them():
    # The Execute table's "truncated" row: 20 steps, 30 for the four longer templates.
    import gymnasium as gym

    import mobileintent_gym  # noqa: F401  (registers the envs)

    longer = {"G-SPT-01", "G-X-01", "G-X-02", "G-X-03"}
    assert {key: t.step_limit for key, t in TEMPLATES.items()} == {
        key: 30 if key in longer else 20 for key in TEMPLATES}
    assert gym.spec("Act2Intent-Execute-v0").max_episode_steps == 30

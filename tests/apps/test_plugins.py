"""Every registered app is a complete plugin, and nothing outside its package names it."""

import ast
import dataclasses
import importlib.util
import io
import re
import tokenize
from pathlib import Path
from types import MappingProxyType

import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.apps.plugin import AppBundle
from mobileintent_gym.errors import InvalidAppError
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.app import App
from mobileintent_gym.phone.query import find_all, tap
from mobileintent_gym.tasks import TEMPLATES
from mobileintent_gym.users import CONTEXTS

PACKAGE = Path(__file__).resolve().parents[2] / "mobileintent_gym"
BUNDLES = registry.bundles()
IDS = [b.id for b in BUNDLES]
NAME = re.compile(r"[a-z][a-z0-9_]*")


def sample_phone(bundle):
    phone = SimPhone(apps=BUNDLES)
    return phone, bundle.app.samples(phone.state.apps[bundle.id])


def dump_of(bundle, route):
    phone, samples = sample_phone(bundle)
    phone.open(bundle.id, route, **samples.get(route, {}))
    return phone, phone.hierarchy()


def immutable(value):
    if value is None or isinstance(value, str | int | float | bool | frozenset):
        return True
    if isinstance(value, tuple):
        return all(immutable(v) for v in value)
    if isinstance(value, MappingProxyType):
        return all(immutable(k) and immutable(v) for k, v in value.items())
    if dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen:
        return all(immutable(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


@pytest.mark.parametrize("bundle", BUNDLES, ids=IDS)
def test_each_app_is_a_complete_plugin(bundle):
    app = bundle.app
    assert bundle.id == app.id and app.package.endswith("." + app.id)
    assert all(route.startswith(app.id + "/") for route in app.routes) and app.home in app.routes
    assert all(c.key.startswith(app.id + ":") for c in bundle.contexts)
    assert all(t.app == app.id and t.context in CONTEXTS for t in bundle.templates)
    assert callable(app.icon) and app.tour
    state = app.initial_state(0)
    assert immutable(state)  # so the phone can tell a changed state by comparing
    assert app.initial_state(0) == state != app.initial_state(1)
    parametrised = {r for r, screen in app.routes.items() if screen.params}
    assert set(app.samples(state)) == parametrised


@pytest.mark.parametrize("bundle", BUNDLES, ids=IDS)
def test_every_route_opens_and_every_resource_id_follows_the_convention(bundle):
    for route in bundle.app.routes:
        phone, xml = dump_of(bundle, route)
        assert phone.route() == route
        for node in hierarchy.parse(xml).walk():
            if node.resource_id:
                package, _, name = node.resource_id.partition(":id/")
                assert package in (bundle.app.package, "android"), node.resource_id
                assert package == "android" or NAME.fullmatch(name), node.resource_id


def template_names(template):
    """(routes, resource id or None, description or None) of everything a template names."""
    named = []
    for goal in template.subgoals:
        named += [(goal.screens, c.resource_id, None) for c in goal.clicks if c.resource_id]
        if goal.context == "UC":
            named += [(goal.screens, rid, None) for rid in template.picks]
    for route, move in template.oracle.items():
        named += [((route,), move.resource_id, move.desc)]
        named += [((route,), move.fill[0], None)] if move.fill else []
    outcome = template.outcome
    if outcome.before is not None:
        named += [((outcome.before.route,), n.resource_id, None) for n in outcome.before.nodes]
    if outcome.route is not None and outcome.before is None:
        # After a step taken on the "before" screen, the outcome's nodes may be what that
        # step makes (a row added): the oracle's solving the task shows them.
        named += [((outcome.route,), n.resource_id, None) for n in outcome.nodes]
    return named


@pytest.mark.parametrize("template", list(TEMPLATES.values()), ids=list(TEMPLATES))
def test_every_route_resource_id_and_context_a_template_names_is_in_its_app(template):
    bundle = registry.get(template.app)
    assert template.context in {c.key for c in bundle.contexts}
    dumps = {}
    for routes, rid, desc in template_names(template):
        assert set(routes) <= set(bundle.app.routes), routes
        for route in routes:
            dumps.setdefault(route, dump_of(bundle, route)[1])
        criteria = {k: v for k, v in (("resource_id", rid), ("desc", desc)) if v}
        assert any(next(find_all(dumps[r], **criteria), None) for r in routes), (routes, criteria)


@pytest.mark.parametrize("template", [t for t in TEMPLATES.values() if t.outcome.route is None],
                         ids=lambda t: t.id)
def test_an_outcome_without_a_route_shows_its_nodes_after_its_deciding_click(template):
    bundle = registry.get(template.app)
    for click in template.outcome.via:
        phone, xml = dump_of(bundle, template.subgoals[-1].screens[0])
        phone.act(tap(xml, resource_id=click.resource_id))
        for check in template.outcome.nodes:
            assert next(find_all(phone.hierarchy(), resource_id=check.resource_id), None)


def source_tokens(text):
    """Python source text's tokens (read once per file, then searched for every app)."""
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def app_references(tokens, app_id):
    """Places where Python source tokens name app ``app_id`` in code, strings or comments.

    In code, a name is the app's when it is imported from the apps package; a variable or
    another package's module that happens to share the id's spelling (``reader``) is not.
    """
    pattern = re.compile(rf"(^|[^\w.-]){app_id}[/:]\w|apps[./]{app_id}\b|mobileintent\.{app_id}\b")
    imported = re.compile(rf"\bapps(\.{app_id}\b|\s+import\b)")
    found = []
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string == app_id and imported.search(tok.line):
            found.append((tok.start[0], tok.string))
        elif tok.type in (tokenize.STRING, tokenize.COMMENT):
            body = tok.string.strip("\"'frb")
            if body == app_id or pattern.search(body):
                found.append((tok.start[0], tok.string[:60]))
    return found


def test_record_ids_are_unique_across_every_apps_data():
    """PAIR content looks a task target's label up by record id, over every app's lists."""
    from mobileintent_gym.apps.records import read_records

    owner = {}
    for bundle in registry.bundles():  # plugged-in apps too: from their packages' data
        package = type(bundle.app).__module__.rpartition(".")[0]
        for path in sorted(Path(importlib.util.find_spec(package).origin).parent.glob(
                "data/*.jsonl")):
            for record in read_records(package, path.stem):
                where = f"{bundle.id}/{path.stem}"
                assert owner.setdefault(record.id, where) == where, (record.id, owner[record.id])
    assert len(owner) > 1000  # every pool of every app was read


class _Renamed:
    """A pool whose first record takes another id (all else is the pool's)."""

    def __init__(self, pool, record_id):
        self.package, self.name, self.pool, self.record_id = pool.package, pool.name, pool, \
            record_id

    def records(self):
        first, *rest = self.pool.records()
        return (dataclasses.replace(first, id=self.record_id), *rest)


def test_two_pools_whose_records_share_an_id_are_refused_whatever_any_user_is_shown():
    # Only ids in one user's lists were compared: a clash passed for the users shown one
    # of the two records, and its label stood for the other's.
    from mobileintent_gym.users.contexts import check_record_ids

    liked, chats = CONTEXTS["music:liked"], CONTEXTS["chat:chats"]
    last = liked.pool.records()[-1].id  # a track whatever any user's lists hold
    clash = dataclasses.replace(chats, pool=_Renamed(chats.pool, last))
    with pytest.raises(InvalidAppError, match=f"record id '{last}' is in the pools of "
                                              "'music:liked' and 'chat:chats'"):
        check_record_ids([liked, clash])
    check_record_ids([liked, CONTEXTS["music:recent"], chats])  # one pool in two lists


def test_nothing_outside_an_apps_package_names_it():
    files = [p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "apps" / "registry.py"]
    for path in files:
        tokens = source_tokens(path.read_text())
        for app_id in IDS:
            if PACKAGE / "apps" / app_id not in path.parents:
                assert not app_references(tokens, app_id), path


def test_the_app_reference_finder_finds_the_ways_code_names_an_app():
    code = ('from mobileintent_gym.apps import demo\nx = "demo"\ny = "demo/home"\n'
            'z = "demo:liked"  # see apps/demo\nw = "com.mobileintent.demo"\n')
    def found(text):
        return app_references(source_tokens(text), "demo")

    assert [line for line, _ in found(code)] == [1, 2, 3, 4, 4, 5]
    assert not found('"""a demo of demos, demo-like"""\nq = "demon/x"\n')
    assert [line for line, _ in found(
        "import mobileintent_gym.apps.demo\nfrom mobileintent_gym.apps import x, demo\n")
            ] == [1, 2]
    # A variable, or another app's module, spelled like the id is not the app.
    assert not found("demo = stream.demo\nfrom mobileintent_gym.apps.chat.demo import Demo\n")


def test_the_phone_imports_no_app():
    for path in (PACKAGE / "phone").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                    a.name for a in node.names]
                assert not any(n.startswith("mobileintent_gym.apps") for n in names), path


def test_a_phone_installs_the_apps_it_is_given():
    music = registry.get("music")
    phone = SimPhone(apps=[music])
    assert list(phone.apps) == ["music"]
    assert [n.text for n in find_all(phone.hierarchy(), resource_id="icon")] == ["Music"]
    with pytest.raises(InvalidAppError, match="twice"):
        SimPhone(apps=[music, music.app])
    with pytest.raises(InvalidAppError, match=r"not an app or an app bundle: 'music' \(an "
                                              r"app id\? its bundle is mobileintent_gym\.apps"
                                              r"\.registry\.get\('music'\)\)"):
        SimPhone(apps=["music"])
    for items in ("music", music.app, 3):  # it named 'm', the text's first letter
        with pytest.raises(InvalidAppError, match=f"apps must be a list of apps or app "
                                                  f"bundles, got {re.escape(repr(items)[:20])}"):
            SimPhone(apps=items)


def test_a_bundle_whose_parts_do_not_fit_is_refused():
    music, chat = registry.get("music"), registry.get("chat")
    # Only the others' keys, in order: it printed a set of every key, in its own order.
    others = sorted(c.key for c in chat.contexts)
    with pytest.raises(InvalidAppError, match=re.escape(f"contexts of other apps: {others}")):
        AppBundle(music.app, (*music.contexts, *chat.contexts), chat.build_state).check()
    with pytest.raises(InvalidAppError, match="no build_state"):
        AppBundle(music.app, music.contexts).check()
    with pytest.raises(InvalidAppError, match="G-WCT-01 runs in 'chat'"):
        AppBundle(music.app, music.contexts, music.build_state, chat.templates).check()

    class Mutable(type(music.app)):
        state_type = dict

    with pytest.raises(InvalidAppError, match="frozen dataclass"):
        AppBundle(Mutable()).check()
    with pytest.raises(InvalidAppError, match="frozen dataclass"):
        SimPhone(apps=[Mutable()])


def _music_with(**changes):
    """Music's bundle with one part changed, checked."""
    music = registry.get("music")
    return dataclasses.replace(music, **changes).check()


def test_a_plugin_authors_likely_mistakes_are_named_when_it_is_checked():
    music = registry.get("music")
    first = music.templates[0]
    with pytest.raises(InvalidAppError, match=f"template declared more than once: "
                                              f"'{first.id}' \\(by music\\)"):
        _music_with(templates=(first, *music.templates))
    with pytest.raises(InvalidAppError, match="context declared more than once: 'music:"):
        _music_with(contexts=(music.contexts[0], *music.contexts))
    with pytest.raises(InvalidAppError, match=f"template {first.id} has no subgoals"):
        _music_with(templates=(dataclasses.replace(first, subgoals=()),))
    unclosed = dataclasses.replace(first, explicit="Open {label")
    with pytest.raises(InvalidAppError, match=f"template {first.id}'s explicit instruction "
                                              "'Open {label' is no format string"):
        _music_with(templates=(unclosed,))
    typo = dataclasses.replace(first, implicit="Play {cue_text} now")
    with pytest.raises(InvalidAppError, match=r"implicit instruction has placeholders "
                                              r"\['cue_text'\]; only \{label\} and \{cue\}"):
        _music_with(templates=(typo,))


def test_template_fields_the_judge_or_oracle_would_misread_are_named():
    # Each passed the check: "uc" was judged as UA, "lsat" read as "last", a step limit
    # of 0 truncated every step, an unknown act_on raised KeyError when a task was made.
    from mobileintent_gym.tasks.spec import NodeCheck, ScreenCheck

    music = registry.get("music")
    first = music.templates[0]
    goal = first.subgoals[0]
    cases = [
        (dataclasses.replace(first, act_on="autor"), r"acts on 'autor'; its context .* "
                                                     r"offers \['record'"),
        (dataclasses.replace(first, subgoals=(dataclasses.replace(goal, context="uc"),
                                              *first.subgoals[1:])),
         f"subgoal {goal.name!r}: context 'uc'"),
        (dataclasses.replace(first, step_limit=0), "step_limit 0"),
        (dataclasses.replace(first, outcome=dataclasses.replace(
            first.outcome, before=ScreenCheck("music/home", (NodeCheck("x", which="lsat"),)))),
         "node 'x': which 'lsat'"),
    ]
    for template, named in cases:
        with pytest.raises(InvalidAppError, match=f"template {first.id}"):
            _music_with(templates=(template, *music.templates[1:]))
        with pytest.raises(InvalidAppError, match=named):
            _music_with(templates=(template, *music.templates[1:]))


def test_an_intent_routines_cannot_place_is_named_when_the_bundle_is_checked():
    # An unknown event class or domain passed every check until the first generated day.
    from mobileintent_gym.tasks.spec import TemplateIntent

    music = registry.get("music")
    first = music.templates[0]
    shopping = dataclasses.replace(first, intent=TemplateIntent("Listen music", ("Shoping",),
                                                                "to hear it"))
    with pytest.raises(InvalidAppError, match=rf"template {first.id}'s intent: domain "
                                              r"'Shoping' \(did you mean 'Shopping'\?\)"):
        _music_with(templates=(shopping, *music.templates[1:]))


def test_a_route_table_the_phone_would_fail_on_later_is_named_when_it_is_checked():
    # A typo in a screen's build method failed on the first tap that reached the screen,
    # mid-episode; a route not under the app's id passed.
    music = registry.get("music").app
    routes = dict(music.routes)
    routes["music/home"] = dataclasses.replace(routes["music/home"], build="home_scren")
    routes["home"] = routes["music/library"]

    class Typo(type(music)):
        pass

    Typo.routes = routes
    with pytest.raises(InvalidAppError, match=r"app 'music': route 'home' \(not under "
                                              r"'music/'\); route 'music/home': build "
                                              r"'home_scren' \(no method of Typo\)$"):
        AppBundle(Typo()).check()
    Typo.routes, Typo.home = music.routes, "music/start"
    with pytest.raises(InvalidAppError, match=r"home 'music/start' \(none of its routes\)"):
        AppBundle(Typo()).check()


def test_an_app_without_initial_state_is_named_when_a_phone_installs_it():
    music = registry.get("music").app

    class Forgotten(type(music)):
        initial_state = App.initial_state

    named = r"app 'music' \(Forgotten\) must override initial_state\(seed\)"
    with pytest.raises(NotImplementedError, match=named):
        SimPhone(apps=[Forgotten()])
    # The registry took such a plugin, and every command that built a phone then ended in
    # NotImplementedError's traceback: it is an app error, named in one line.
    with pytest.raises(InvalidAppError, match=named):
        AppBundle(Forgotten()).check()


def test_two_apps_declaring_one_template_are_both_named():
    from mobileintent_gym.apps.plugin import check_unique

    with pytest.raises(InvalidAppError, match=r"template declared more than once: 'G-X-01' "
                                              r"\(by chat, music\)$"):
        check_unique("template", [("G-X-01", "music"), ("G-X-02", "music"),
                                  ("G-X-01", "chat")])


def test_a_common_record_missing_from_its_pool_is_named(monkeypatch):
    from mobileintent_gym.tasks import catalog
    from mobileintent_gym.users.pair import reserved_records

    spec = registry.get("music").contexts[0]
    broken = dataclasses.replace(spec, common=(*spec.common, "zz99"))
    with pytest.raises(InvalidAppError, match=f"context '{spec.key}' reserves common records "
                                              r"\['zz99'\] that its pool"):
        reserved_records([broken])
    # The catalog, which the docs say shows whether a context of yours is in, listed it.
    monkeypatch.setattr(catalog, "CONTEXTS", {**CONTEXTS, spec.key: broken})
    with pytest.raises(InvalidAppError, match=r"reserves common records \['zz99'\]"):
        catalog.contexts_table()


def test_a_context_domain_of_no_known_name_is_refused_with_the_closest_one():
    # 'Restaurant' ranked the list by every interest the user has (the fallback when no
    # domain matches), so it looked personal and no check said anything.
    spec = registry.get("music").contexts[0]
    with pytest.raises(InvalidAppError, match=f"context {spec.key}: domain 'Restaurant' is "
                                              r"none of the PersonaLens domains \(did you "
                                              r"mean 'Restaurants'\?\)"):
        dataclasses.replace(spec, domains=("Music", "Restaurant"))
    with pytest.raises(InvalidAppError, match="domain 'cooking' is none of the PersonaLens "
                                              r"domains; they are \['Alarm'"):
        dataclasses.replace(spec, domains=("cooking",))
    for bad in ("Music", ("Music", None), [1]):  # a string, not a tuple, was read by letter
        with pytest.raises(InvalidAppError, match="domains must be a tuple of domain names"):
            dataclasses.replace(spec, domains=bad)


def test_an_app_is_found_by_its_whole_id_only():
    from mobileintent_gym.errors import UnknownRouteError

    assert registry.get("music").id == "music"
    assert registry.app_package("chat") == registry.get("chat").app.package
    for wrong in ("mus", "Music", "music2", ""):
        with pytest.raises(UnknownRouteError, match=rf"no app {wrong!r}; apps: \['chat'"):
            registry.get(wrong)


def test_a_screens_parameters_given_as_a_dict_are_named_as_not_pairs():
    # A dict's keys were read as pairs of letters: "takes parameters ['id'], got {'id': …}".
    from mobileintent_gym.errors import UnknownRouteError

    music = registry.get("music").app
    route = next(r for r, screen in music.routes.items() if screen.params == ("id",))
    with pytest.raises(UnknownRouteError, match=rf"parameters of '{route}' must be a tuple of "
                                                r"\(name, value\) pairs, such as \(\('id', "
                                                r"'x'\),\), got \{'id': 'x'\}"):
        music.check_params(route, {"id": "x"})
    music.check_params(route, (("id", "x"),))

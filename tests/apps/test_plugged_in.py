"""An app of another distribution plugs in through the entry-point group: every part of the
gym finds it, and the content cache follows its files."""

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import InvalidAppError

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugin_app"


def installed(tmp_path: Path, package: Path) -> Path:
    """A site folder where ``package`` is installed as the app ``weather`` (linked to it)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "weather_app").symlink_to(package, target_is_directory=True)
    info = site / "weather_app-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: weather-app\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\nweather = weather_app\n")
    return site


def run_python(code: str, site: Path, cache: Path) -> dict:
    """Run ``code`` in a fresh interpreter that has ``site``: its last line, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}", "HF_HUB_OFFLINE": "1",
             "MOBILEINTENT_GYM_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


EVERYWHERE = """
import json
import gymnasium as gym
import mobileintent_gym
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.apps import registry
from mobileintent_gym.intents import event_class, reachable_templates
from mobileintent_gym.intents.routine import build_routine
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.users import PairConfig, resolve_profile

icons = [n.text for n in hierarchy.parse(SimPhone().hierarchy()).walk()
         if n.resource_id.endswith("/icon")]
env = gym.make("Act2Intent-Execute-v0", pair=PairConfig(encoder="lexical"))
obs, info = env.reset(seed=0, options={"user": "demo-ana", "task": "G-WTH-02:personal:implicit"})
agent, done = OracleAgent(env), False
while not done:
    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
    done = terminated or truncated
habits = [t for t, _ in build_routine(resolve_profile("demo-ana")).interests if "WTH" in t]
print(json.dumps({"apps": [b.id for b in registry.bundles()], "icons": icons,
                  "reachable": [t for t in reachable_templates() if "WTH" in t],
                  "event": event_class("G-WTH-01"), "instruction": obs["instruction"],
                  "success": info["success"], "habits": len(habits)}))
"""


def test_a_plugged_in_app_is_on_the_phone_in_the_tasks_and_in_the_routines(tmp_path):
    site = installed(tmp_path, PLUGIN / "weather_app")
    found = run_python(EVERYWHERE, site, tmp_path / "cache")
    # Other apps plugged in where the tests run come after the built-in ones too.
    assert found["apps"][:len(registry.APP_PACKAGES)] == list(registry.APP_PACKAGES)
    assert "weather" in found["apps"] and "Weather" in found["icons"]
    assert found["reachable"] == ["G-WTH-01", "G-WTH-02"] and found["event"] == "Check map"
    assert found["instruction"].startswith("In Weather, pin ") and found["success"]
    assert found["habits"] == 8  # 2 templates × common/personal × explicit/implicit


FINGERPRINT = """
import json
from mobileintent_gym.users import cache
print(json.dumps(cache.source_fingerprint()))
"""


def test_the_content_cache_follows_a_plugged_in_apps_files_through_a_link(tmp_path):
    # Its files were hashed nowhere (and a linked package's folder not walked): content
    # built from its old records was served after they changed.
    package = tmp_path / "src" / "weather_app"
    shutil.copytree(PLUGIN / "weather_app", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    site = installed(tmp_path, package)
    before = run_python(FINGERPRINT, site, tmp_path / "cache")
    assert run_python(FINGERPRINT, site, tmp_path / "cache") == before
    places = package / "data" / "places.jsonl"
    places.write_text(places.read_text().replace("Cape Town", "Kaapstad"))
    assert run_python(FINGERPRINT, site, tmp_path / "cache") != before


@pytest.fixture
def entry_points(monkeypatch):
    """Plugged-in apps as given: ``entry_points([(name, value)])``; the registry afterwards
    as it was."""
    monkeypatch.syspath_prepend(str(PLUGIN))

    def plug(points):
        monkeypatch.setattr(registry, "_entry_points", lambda: [
            importlib.metadata.EntryPoint(name, value, registry.ENTRY_POINTS)
            for name, value in points])
        forget()

    def forget():  # the registry's tables, each read once per process
        for table in (registry.bundles, registry.contexts, registry.templates):
            table.cache_clear()

    yield plug
    monkeypatch.undo()
    forget()


@pytest.mark.parametrize(("points", "named"), [
    ([("weather", "no_such_weather")], r"app 'weather' plugged in as 'no_such_weather' \(entry "
                                       r"point of mobileintent_gym.apps\) cannot be imported: "
                                       r"ModuleNotFoundError"),
    ([("wthr", "weather_app")], r"app 'wthr' plugged in as 'weather_app' \(entry point of "
                                r"mobileintent_gym.apps\) must export BUNDLE, an AppBundle of "
                                r"app 'wthr'; its app's id is 'weather'$"),
    ([("weather", "json")], r"app 'weather' plugged in as 'json' \(entry point of "
                            r"mobileintent_gym.apps\) must export BUNDLE, an AppBundle of app "
                            r"'weather'; found nothing$"),
    ([("music", "weather_app")], r"an AppBundle of app 'music'; its app's id is 'weather'"),
    ([("weather", "weather_app.ids")], r"app 'weather' plugged in as 'weather_app.ids' "
                                       r"\(entry point of mobileintent_gym.apps\) must export "
                                       r"BUNDLE, an AppBundle of app 'weather'; found nothing$"),
    ([("weather", "weather_app:TEMPLATES")], r"must export TEMPLATES, an AppBundle of app "
                                             r"'weather'; found a tuple$"),
    # It was told to export BUNDLE, which it does.
    ([("weather", "weather_app:NOPE")], r"must export NOPE, an AppBundle of app 'weather'; "
                                        r"found nothing$"),
    ([("to-do", "weather_app")], r"app 'to-do' plugged in as 'weather_app' \(entry point of "
                                 r"mobileintent_gym.apps\): the id must be lower-case letters"),
])
def test_an_entry_point_that_names_no_app_of_its_name_is_named(entry_points, points, named):
    entry_points(points)
    with pytest.raises(InvalidAppError, match=named):
        registry.bundles()


def test_an_app_named_as_module_and_attribute_is_plugged_in(entry_points):
    entry_points([("weather", "weather_app:BUNDLE")])
    assert registry.bundles()[-1].id == "weather"
    assert registry.plugged_in_folders() == (PLUGIN / "weather_app",)


def test_the_sources_of_an_app_in_a_subpackage_are_its_whole_top_level_package(
        entry_points, tmp_path, monkeypatch):
    # Only the entry point's own folder was hashed: a helper module beside it changed and
    # the content built from the old one was served.
    (tmp_path / "suite" / "weather").mkdir(parents=True)
    (tmp_path / "suite" / "__init__.py").write_text("")
    (tmp_path / "suite" / "weather" / "__init__.py").write_text(
        "from weather_app import BUNDLE  # noqa: F401\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry_points([("weather", "suite.weather")])
    assert registry.plugged_in_folders() == (tmp_path / "suite",)


@pytest.mark.parametrize("layout", ["loose_weather/", "lone_weather.py"])
def test_an_app_in_no_regular_package_is_named_when_the_registry_reads_it(entry_points,
                                                                          tmp_path, monkeypatch,
                                                                          layout):
    # A namespace package's __file__ is None (the fingerprint raised a TypeError); a
    # one-file module's folder was site-packages, hashed whole.
    name = layout.strip("/").removesuffix(".py")
    if layout.endswith("/"):
        (tmp_path / layout).mkdir()
    else:
        (tmp_path / layout).write_text("BUNDLE = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry_points([("weather", name)])
    with pytest.raises(InvalidAppError, match=f"{name} is in no regular package; an app lives"):
        registry.bundles()


def test_an_app_in_a_namespace_package_has_its_own_package_as_its_sources(entry_points,
                                                                         tmp_path, monkeypatch):
    # acme/ without __init__.py, acme/weather/ with one: the app was refused late (when
    # content was first built) as "a namespace package".
    (tmp_path / "acme" / "weather").mkdir(parents=True)
    (tmp_path / "acme" / "weather" / "__init__.py").write_text(
        "from weather_app import BUNDLE  # noqa: F401\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry_points([("weather", "acme.weather")])
    assert registry.bundles()[-1].id == "weather"
    assert registry.plugged_in_folders() == (tmp_path / "acme" / "weather",)


TWIN = """
from mobileintent_gym.apps.music import BUNDLE as MUSIC
from mobileintent_gym.apps.plugin import AppBundle


class Twin(type(MUSIC.app)):
    id, package, home = "twin", "com.example.twin", "twin/home"
    routes = {"twin/" + r.split("/", 1)[1]: s for r, s in MUSIC.app.routes.items()}


BUNDLE = AppBundle(Twin())
"""


def test_two_apps_with_one_launcher_label_are_named(entry_points, tmp_path, monkeypatch):
    # A simulated person opened whichever icon came last: every intention in the other app
    # was given up after 60 actions.
    (tmp_path / "twin_app.py").write_text(TWIN)
    (tmp_path / "twin_pkg").mkdir()
    (tmp_path / "twin_pkg" / "__init__.py").write_text("from twin_app import BUNDLE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry_points([("twin", "twin_pkg")])
    with pytest.raises(InvalidAppError, match=r"launcher label declared more than once: "
                                              r"'Music' \(by music, twin\)"):
        registry.bundles()


def test_an_app_failing_on_import_is_named_with_where_and_the_commands_say_it_in_a_line(
        entry_points, tmp_path, monkeypatch, capsys):
    # Every command, --help included, was a traceback of 48 lines with exit status 1.
    from mobileintent_gym.cli import main

    (tmp_path / "broken_app").mkdir()
    (tmp_path / "broken_app" / "__init__.py").write_text("X = 1\nraise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry_points([("broken", "broken_app")])
    with pytest.raises(SystemExit) as helped:
        main(["--help"])
    assert helped.value.code == 0 and "evaluate" in capsys.readouterr().out
    assert main(["catalog", "templates"]) == 2
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert said.startswith("mobileintent-gym catalog: app 'broken' plugged in as 'broken_app'")
    assert f"cannot be imported at {tmp_path / 'broken_app' / '__init__.py'}:2: " in said
    assert "RuntimeError('boom') (fix or uninstall that distribution)" in said


MUTABLE_DEFAULT = ("import dataclasses\n\n\n@dataclasses.dataclass\nclass State:\n"
                   "    notes: list = []\n")  # raises in dataclasses.py, named at line 4


def plug_in_broken(entry_points, monkeypatch, folder, name, module, files):
    """Write ``files`` (relative path → text) under ``folder``, importable, as app ``name``."""
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    monkeypatch.syspath_prepend(str(folder))
    entry_points([(name, module)])


def test_an_import_failing_inside_the_gym_is_placed_in_the_apps_own_code(entry_points,
                                                                         tmp_path, monkeypatch):
    # The place named was the gym's line that raised, not the app's line that called it.
    plug_in_broken(entry_points, monkeypatch, tmp_path, "clumsy", "clumsy_app", {
        "clumsy_app/__init__.py": "from mobileintent_gym.actions import Action\n\n"
                                  "TAP = Action.click(-1, 0)\n"})
    with pytest.raises(InvalidAppError, match="cannot be imported at "
                                              f"{tmp_path / 'clumsy_app' / '__init__.py'}:3: "):
        registry.bundles()


def test_an_import_failing_in_the_standard_library_is_placed_in_the_apps_own_code(
        entry_points, tmp_path, monkeypatch):
    # The place named was dataclasses.py's line that raised, not the app's own module.
    plug_in_broken(entry_points, monkeypatch, tmp_path, "dated", "dated_app", {
        "dated_app/__init__.py": "from dated_app import state\n",
        "dated_app/state.py": MUTABLE_DEFAULT})
    with pytest.raises(InvalidAppError, match="cannot be imported at "
                                              f"{tmp_path / 'dated_app' / 'state.py'}:4: "):
        registry.bundles()


def test_an_import_failing_in_a_one_file_module_installed_with_python_is_placed_there(
        entry_points, tmp_path, monkeypatch):
    # A one-file module names no package folder, and the fallback left out every file
    # under Python's library folder: where site-packages lies without a virtualenv, the
    # place went unnamed. Here the library folder is made to hold the module's.
    import sysconfig

    installed = tmp_path / "site-packages"
    paths = {**sysconfig.get_paths(), "stdlib": str(tmp_path), "purelib": str(installed)}
    monkeypatch.setattr(sysconfig, "get_paths", lambda: paths)
    plug_in_broken(entry_points, monkeypatch, installed, "lone", "lone_app",
                   {"lone_app.py": MUTABLE_DEFAULT})
    with pytest.raises(InvalidAppError, match="cannot be imported at "
                                              f"{installed / 'lone_app.py'}:4: "):
        registry.bundles()


def test_two_distributions_plugging_in_one_app_id_are_named(entry_points):
    entry_points([("weather", "weather_app"), ("weather", "weather_app")])
    with pytest.raises(InvalidAppError, match=r"app declared more than once: 'weather' \(by "
                                              r"weather_app.app\)"):
        registry.bundles()


IMPORTS = """
import json, sys
from mobileintent_gym import cli
import mobileintent_gym.envs.assist, mobileintent_gym.envs.proactive, mobileintent_gym.envs.session
cli.build_parser()
print(json.dumps(sorted(m for m in sys.modules if m.startswith("mobileintent_gym.apps.")
                        and m.count(".") > 2)))
"""


def test_the_command_line_and_the_envs_import_no_app(tmp_path):
    # The Assist env built a GeneratorConfig on import: every plugged-in app loaded, and a
    # broken one failed every command, --help included.
    assert run_python(IMPORTS, tmp_path, tmp_path / "cache") == []

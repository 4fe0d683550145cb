"""The HTML report in a real browser: headless Chromium driven by Playwright.

Skipped, with the reason, where Playwright for Python or a Chromium binary cannot be had
(Playwright's own browser download needs a host this project cannot reach, so the test
uses the distribution's Chromium: ``apt-get install chromium``).
"""

import json
import os
import shutil
from urllib.parse import unquote

import pytest

from mobileintent_gym.cli import main

CHROMIUM = os.environ.get("MOBILEINTENT_GYM_CHROMIUM") or shutil.which("chromium") \
    or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright for Python is not installed")
    if CHROMIUM is None:
        pytest.skip("no Chromium binary (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def report(scripted_run):
    assert main(["view", str(scripted_run)]) == 0
    return scripted_run.with_suffix(".html")


@pytest.fixture
def page(browser, report):
    page = browser.new_page()
    problems = []
    page.on("console", lambda m: m.type in ("error", "warning") and problems.append(m.text))
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.goto(report.as_uri())
    yield page
    assert problems == []
    page.close()


def visible_rows(page):
    return page.eval_on_selector_all(
        "#episodes tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset)")


def test_the_page_loads_and_lists_every_episode(page, scripted_run):
    run = json.loads(scripted_run.read_text())
    assert page.text_content("#shown") == "6 of 6 episodes"
    assert len(visible_rows(page)) == 6
    assert page.text_content("#scores").count("0.667") >= 1  # task_sr of 4 successes in 6
    assert run["provenance"]["encoder"] in page.content()


def test_the_table_filters_by_success_template_and_user(page):
    page.select_option("#filter-success", "0")
    rows = visible_rows(page)
    assert [r["success"] for r in rows] == ["0", "0"]
    assert page.text_content("#shown") == "2 of 6 episodes"
    page.select_option("#filter-success", "")
    page.select_option("#filter-template", "G-WCT-02")
    page.select_option("#filter-user", "demo-ben")
    rows = visible_rows(page)
    assert [(r["template"], r["user"]) for r in rows] == [("G-WCT-02", "demo-ben")]


def test_an_episode_opens_with_its_screens_and_marks(page, scripted_run):
    episode = json.loads(scripted_run.read_text())["episodes"][2]  # demo-ana's reply
    assert not page.is_visible("#episode-2")
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")
    page.wait_for_function("() => Array.from(document.querySelectorAll('#episode-2 img'))"
                           ".every(i => i.complete && i.naturalWidth === 360)")
    steps = episode["steps"]
    assert page.locator("#episode-2 img").count() == len(steps) + 1
    assert page.locator("#episode-2 svg.marks circle").count() >= 2  # a tap: ring and dot
    text = page.text_content("#episode-2")
    assert episode["instruction"] in text
    assert "open the conversation" in text and "TYPE[Understood]" in text
    assert "type “Understood”" in page.text_content("#episode-2 .caption")
    assert not page.is_visible("#episode-0")  # one episode at a time


def test_a_refused_action_shows_why(page):
    page.click('#episodes tr[data-episode="1"]')
    page.wait_for_selector("#episode-1", state="visible")
    assert "invalid: 'CLICK[oops]'" in page.text_content("#episode-1 .caption")
    assert "oops" in page.text_content("#episode-1 figcaption span.no")


@pytest.mark.parametrize("name", ["big.html", "run#2.html", "run%41.html", "run?x.html"])
def test_screens_kept_in_a_folder_load_when_their_episode_opens(browser, scripted_run, tmp_path,
                                                                name):
    # The folder's name went into the URLs unquoted: '#' started a fragment, '?' a query
    # and '%41' read as 'A', so none of the screens loaded.
    from mobileintent_gym.report.page import screens_folder, write_report
    from mobileintent_gym.results import read_run

    report = write_report(read_run(scripted_run), tmp_path / name, inline_bytes=0)
    page = browser.new_page()
    failed = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(report.as_uri())
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_function("() => Array.from(document.querySelectorAll('#episode-2 img'))"
                           ".every(i => i.complete && i.naturalWidth === 360)")
    sources = page.eval_on_selector_all("#episode-2 img", "imgs => imgs.map(i => i.src)")
    folder = screens_folder(report)
    assert sources and all(unquote(s).rpartition("/")[0] == unquote(folder.as_uri())
                           and s.endswith(".jpg") for s in sources)
    assert failed == []
    page.close()


def test_a_screens_folder_left_behind_is_named_where_its_screens_go(browser, scripted_run,
                                                                    tmp_path):
    # A page copied without its screens folder showed broken-image icons and no word why.
    from mobileintent_gym.report.page import screens_folder, write_report
    from mobileintent_gym.results import read_run

    report = write_report(read_run(scripted_run), tmp_path / "moved.html", inline_bytes=0)
    shutil.rmtree(screens_folder(report))
    page = browser.new_page()
    page.goto(report.as_uri())
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_function("() => !document.querySelector('#episode-2 img')")
    notes = page.eval_on_selector_all("#episode-2 .missing", "ds => ds.map(d => d.textContent)")
    shots = page.eval_on_selector_all("#episode-2 .shot", "s => s.length")
    assert len(notes) == shots > 1
    assert all(n.startswith("screen file not found: moved_screens/") and n.endswith(
        ".jpg (keep the page's screens folder beside it)") for n in notes)
    assert page.eval_on_selector_all("#episode-2 svg.marks", "s => s.length") == 0
    page.close()


def test_going_back_to_the_bare_page_closes_the_episode(page):
    # The episode stayed open (and its row marked) after the browser's Back.
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")  # on the hashchange event
    page.go_back()
    page.wait_for_function("() => location.hash === ''")
    assert not page.is_visible("#episode-2")
    assert page.eval_on_selector_all("#episodes tr.open", "rows => rows.length") == 0
    page.go_forward()
    page.wait_for_selector("#episode-2", state="visible")


def test_an_episode_whose_row_a_filter_hides_is_closed(page):
    # It stayed open below a table that no longer listed it.
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")
    success = page.get_attribute('#episodes tr[data-episode="2"]', "data-success")
    page.select_option("#filter-success", "0" if success == "1" else "1")
    assert not page.is_visible("#episode-2")
    assert page.eval_on_selector_all("#episodes tr.open", "rows => rows.length") == 0
    assert page.evaluate("location.hash") == ""  # a reload would not open it again
    page.select_option("#filter-success", "")
    assert not page.is_visible("#episode-2")
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")


def test_an_open_episode_stays_open_while_its_row_is_shown(page):
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")
    page.select_option("#filter-user", page.get_attribute('#episodes tr[data-episode="2"]',
                                                          "data-user"))
    assert page.is_visible("#episode-2")
    assert page.evaluate("location.hash") == "#episode-2"


def test_the_subgoal_marks_are_explained(page):
    legend = ("one mark per subgoal, in order: 1 done, 0 its screen reached but not done, "
              ". its screen never reached")
    assert page.text_content(".legend") == f"subgoals: {legend}"
    assert page.get_attribute("#episodes th:nth-child(5)", "title") == legend


def test_a_results_file_cannot_put_markup_into_its_report(browser, scripted_run, tmp_path):
    # An episode's index went into the page unescaped, so a crafted results file ran
    # script in whoever opened its report.
    # An index is now refused unless it is the episode's number; texts are escaped.
    data = json.loads(scripted_run.read_text())
    hostile = '0"><img src=x onerror="document.title=\'PWNED\'">'
    data["episodes"][0]["index"] = hostile
    (tmp_path / "hostile.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "hostile.json")]) == 2
    data["episodes"][0].update(index=0, instruction=hostile, target=hostile)
    data["episodes"][0]["steps"][0]["action"] = hostile
    (tmp_path / "hostile.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "hostile.json")]) == 0
    page = browser.new_page()
    page.goto((tmp_path / "hostile.html").as_uri())
    assert page.title() != "PWNED" and not page.query_selector("img[src='x']")
    page.close()


def test_the_open_episodes_row_opens_it_again_and_rows_open_from_the_keyboard(page):
    # A second click on the open episode's row changed no hash: nothing scrolled.
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")
    page.evaluate("window.scrollTo(0, 0)")
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_function("() => window.scrollY > 0")
    page.evaluate("window.scrollTo(0, 0)")
    page.focus('#episodes tr[data-episode="3"] a')  # rows had nothing to Tab to
    page.keyboard.press("Enter")
    page.wait_for_selector("#episode-3", state="visible")
    assert page.evaluate("location.hash") == "#episode-3"


def test_a_long_action_wraps_inside_its_step_and_its_banner_keeps_to_two_lines(browser,
                                                                             scripted_run,
                                                                             tmp_path):
    # 1,000 characters typed without spaces ran across the next step's action and route,
    # and the banner over the screen grew to cover half of it.
    data = json.loads(scripted_run.read_text())
    steps = data["episodes"][2]["steps"]
    typed = next(s for s in steps if s["action"].startswith("TYPE["))
    typed["action"] = "TYPE[" + "x" * 1000 + "]"
    (tmp_path / "long.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "long.json")]) == 0
    page = browser.new_page()
    page.goto((tmp_path / "long.html").as_uri() + "#episode-2")
    page.wait_for_selector("#episode-2", state="visible")
    widths = page.eval_on_selector_all(
        "#episode-2 figure.step", "fs => fs.map(f => [f.scrollWidth, f.clientWidth])")
    assert all(scroll <= client for scroll, client in widths), widths
    banners = page.eval_on_selector_all(
        "#episode-2 .caption", "cs => cs.map(c => c.getBoundingClientRect().height)")
    line = page.evaluate("parseFloat(getComputedStyle(document.body).lineHeight)")
    assert max(banners) <= 2 * line + 8 + 1  # two lines and the padding
    # A third line showed its glyphs' tops under the second: the clamp cut at the padding.
    heights = page.eval_on_selector_all("#episode-2 .caption", "cs => cs.map(c => c.clientHeight)")
    assert all(abs(h - 2 * line) < 1 for h in heights), (heights, line)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.close()


def test_an_episode_opened_the_first_time_is_scrolled_to_its_heading(page):
    # Its screens had no height before they loaded, so the page was too short to scroll
    # the episode to the top: its heading stopped mid-window.
    page.set_viewport_size({"width": 1400, "height": 600})
    page.click('#episodes tr[data-episode="5"]')
    page.wait_for_selector("#episode-5", state="visible")
    assert abs(page.eval_on_selector("#episode-5", "s => s.getBoundingClientRect().top")) < 1


def test_a_narrow_window_scrolls_the_table_not_the_page(page):
    # At 400 px the scores, the filters and the table's last columns went past the right
    # edge of the page, and a long unbroken word in an instruction widened it.
    page.set_viewport_size({"width": 400, "height": 800})
    page.evaluate("document.querySelector('#episode-2 .instruction').textContent = 'x'.repeat(300)")
    page.click('#episodes tr[data-episode="2"]')
    page.wait_for_selector("#episode-2", state="visible")
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    assert page.eval_on_selector(".wide", "w => w.scrollWidth > w.clientWidth")


def test_a_modified_click_leaves_the_page_where_it_is(page):
    # A Ctrl-click that opened the episode in a new tab also opened it here.
    page.click('#episodes tr[data-episode="4"] td:nth-child(2)', modifiers=["Control"])
    assert page.evaluate("location.hash") == ""
    assert not page.is_visible("#episode-4")


def test_opening_an_episode_from_the_keyboard_keeps_the_place_in_the_table(page):
    # Tab after Enter went to the filters at the top: the place among the rows was lost.
    page.focus('#episodes tr[data-episode="3"] a')
    page.keyboard.press("Enter")
    page.wait_for_selector("#episode-3", state="visible")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('tr').dataset.episode") == "4"

"""The owner's dashboard in a real browser (headless Chromium from Debian, driven by selenium) against a
real healthd serving this tree's dashboard files: sign in, the overview, a type page's chart against the
statistics the binary protocol answers, approving a pending request, live samples, sign out."""

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
import zipfile

import pytest

from conftest import Server, binary
from healthstore import errors, values as v

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (scripts/setup installs it)")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="chromium and chromium-driver are not installed (scripts/setup installs them)")

ASSETS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Sources", "HealthServer", "HTTP", "Assets")
HR = "HKQuantityTypeIdentifierHeartRate"
STEPS = "HKQuantityTypeIdentifierStepCount"
HOUR = 3_600_000_000
WAIT = 15


class Dashboard:
    """A healthd with the dashboard on an ephemeral HTTP port; `url` is its address."""

    def __init__(self):
        self.server = Server("prompt", "--http", "127.0.0.1:0", "--http-assets", os.path.abspath(ASSETS))
        found = [re.search(r"http 127\.0\.0\.1:(\d+)", line) for line in self.server.log]
        ports = [int(match.group(1)) for match in found if match]
        assert ports, "healthd did not report its HTTP address; log:\n" + "\n".join(self.server.log)
        self.url = f"http://127.0.0.1:{ports[0]}"

    def api(self, path, cookie):
        """The status and JSON answer of `GET path` with the session cookie."""
        request = urllib.request.Request(self.url + path, headers={"Cookie": f"healthstore_session={cookie}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def dashboard():
    d = Dashboard()
    yield d
    d.server.stop()


@pytest.fixture(scope="module")
def fleet(dashboard):
    """The simulated fleet's last week (healthsim backfill; its thermometer reads on some mornings only,
    so two days may hold no temperature), and a watch app of the test's own granted heart rate and steps,
    with a week of samples saved through the binary protocol."""
    server = dashboard.server
    subprocess.run([binary("healthsim"), "--server", f"127.0.0.1:{server.port}", "--owner-token-file",
                    os.path.join(server.data, "owner.token"), "--approve", "--mode", "backfill", "--days", "7",
                    "--state-dir", ""], check=True, capture_output=True, timeout=120)
    with server.connect() as owner:
        token = owner.register_app("org.dashboard.watch", "Dashboard Watch")
        watch = server.connect(token, bundle_id="org.dashboard.watch", name="Dashboard Watch", version="2.1",
                               product_type="Watch7,1", os_version=(11, 0, 0),
                               default_device={"name": "Test Watch", "manufacturer": "Acme", "model": "W1"})
        watch.request_authorization(share=[HR, STEPS], read=[HR, STEPS])
        owner.decide_authorization("org.dashboard.watch", share=[HR, STEPS], read=[HR, STEPS], grant=True)
    now = v.now_micros()
    samples = []
    for hour in range(1, 24 * 7, 5):
        start = now - hour * HOUR
        samples.append(v.quantity_sample(STEPS, 100 + hour, "count", start, start + HOUR // 2))
        samples.append(v.quantity_sample(HR, 60 + hour % 40, "count/min", start, start, metadata={"HKMetadataKeyHeartRateMotionContext": 1}))
    assert set(watch.save(samples)) == {"STORED"}
    yield watch
    watch.close()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


def wait_for(browser, css, present=True):
    """The first element matching `css` once it is there (or None once it is gone)."""
    def check(driver):
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if present:
            return found[0] if found and found[0].is_displayed() else False
        return not found or not found[0].is_displayed()

    # A live update may redraw the element between finding and reading it: look again.
    return WebDriverWait(browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(check, f"{css} {'did not appear' if present else 'did not go away'}")


def read_all(browser, css, attribute=None):
    """An attribute (or the text) of every element matching `css`, read in one step, so a redraw between
    finding and reading can't get in the way."""
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => arguments[1] ? e.getAttribute(arguments[1]) : e.textContent)",
        css, attribute)


def wait_for_text(browser, css, text):
    """The text of an element matching `css` once one holds `text`, read in one step: a live update
    redraws the app list whenever a grant changes, which would leave an element found before it stale."""
    return WebDriverWait(browser, WAIT).until(
        lambda driver: next((found for found in read_all(driver, css) if text in found), False), f"{css} never showed {text!r}")


def page_errors(browser):
    """Console errors: failed loads, Content-Security-Policy refusals, uncaught exceptions."""
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def sign_in(browser, dashboard, token):
    browser.get(dashboard.url + "/")
    field = wait_for(browser, "#token")
    field.clear()
    field.send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()


@pytest.fixture()
def signed_in(browser, dashboard, fleet):
    nav = browser.find_elements(By.ID, "nav")
    if not (nav and nav[0].is_displayed()):
        sign_in(browser, dashboard, dashboard.server.owner_token)
        wait_for(browser, "#nav")
    return browser


def test_a_wrong_token_is_refused_and_the_owner_token_signs_in(browser, dashboard, fleet):
    sign_in(browser, dashboard, "not-a-token")
    assert "not valid" in wait_for(browser, "#sign-in-error").text
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] != [], "the refused sign-in's 401"
    sign_in(browser, dashboard, dashboard.server.owner_token)
    wait_for(browser, "#nav")
    wait_for(browser, "#sign-in", present=False)
    assert browser.find_element(By.ID, "owner").text != ""
    assert browser.get_cookie("healthstore_session")["httpOnly"] is True
    assert page_errors(browser) == []


def test_the_overview_lists_the_types_and_sources_the_fleet_wrote(signed_in):
    signed_in.get(signed_in.current_url.split("#")[0] + "#/")
    wait_for(signed_in, f'#types tr[data-type="{HR}"]')
    types = read_all(signed_in, "#types tbody tr", "data-type")
    assert set(types) >= {HR, STEPS, "HKCategoryTypeIdentifierSleepAnalysis", "HKCorrelationTypeIdentifierBloodPressure",
                          "HKWorkoutTypeIdentifier", "HKQuantityTypeIdentifierBodyTemperature"}
    assert "Dashboard Watch" in read_all(signed_in, "#sources")[0]
    assert "Test Watch" in read_all(signed_in, "#devices")[0]
    wait_for(signed_in, f'#types tr[data-type="{STEPS}"] svg.sparkline polyline')
    assert page_errors(signed_in) == []


@pytest.mark.parametrize("type_id, unit, field, period, interval, buckets", [
    (STEPS, "count", "sum", "week", {"days": 1}, 7), (HR, "count/min", "average", "week", {"days": 1}, 7),
    (STEPS, "count", "sum", "year", {"days": 1}, 365), (HR, "count/min", "average", "day", {"hours": 1}, None)])
def test_a_type_page_draws_the_numbers_of_the_statistics_collection(signed_in, dashboard, type_id, unit, field, period,
                                                                     interval, buckets):
    signed_in.get(signed_in.current_url.split("#")[0] + f"#/type/{type_id}")
    wait_for(signed_in, f'#chart-area[data-type="{type_id}"] .bucket')
    if period != "week":
        wait_for(signed_in, f'#chart-area button[data-period="{period}"]').click()
    area = wait_for(signed_in, f'#chart-area[data-type="{type_id}"][data-period="{period}"]')
    time_zone = signed_in.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    start, end = int(area.get_attribute("data-from-micros")), int(area.get_attribute("data-to-micros"))
    drawn = list(zip(map(int, read_all(signed_in, "#chart-area .bucket", "data-start-micros")),
                     read_all(signed_in, "#chart-area .bucket", "data-value")))
    with dashboard.server.connect() as owner:
        options = ("cumulative_sum",) if field == "sum" else ("discrete_average", "discrete_min", "discrete_max")
        answer = owner.statistics_collection(type_id, *options, anchor=start, interval=interval, start=start, end=end,
                                             time_zone=time_zone, unit=unit)
    expected = [(bucket.start_time, getattr(bucket, field)) for bucket in answer]
    assert len(drawn) == len(expected)
    assert buckets is None or len(expected) == buckets
    assert [start for start, _ in drawn] == [start for start, _ in expected]
    for (_, shown), (_, quantity) in zip(drawn, expected):
        if quantity is None:
            assert shown == ""
        else:
            assert float(shown) == pytest.approx(quantity.value, rel=1e-9)
    assert any(quantity is not None for _, quantity in expected)
    # The chosen bucket lists its samples with their source revision and device.
    wait_for(signed_in, "#bucket-details table.samples")
    revisions = read_all(signed_in, "#bucket-details table.samples tbody td:nth-child(4)")
    assert revisions and all(" · v" in text for text in revisions), revisions
    assert read_all(signed_in, "#by-source tbody tr")
    assert page_errors(signed_in) == []


@pytest.mark.parametrize("page, drawn", [("sleep", "svg.timeline rect.span"), ("blood-pressure", "svg.pairs g.pair"),
                                          ("workouts", "#workouts tbody tr")])
def test_sleep_blood_pressure_and_workouts_have_pages_of_their_own(signed_in, page, drawn):
    signed_in.get(signed_in.current_url.split("#")[0] + f"#/{page}")
    wait_for(signed_in, drawn)  # sleep opens on the newest night with data
    if page == "blood-pressure":
        pair = signed_in.find_element(By.CSS_SELECTOR, drawn)
        assert float(pair.get_attribute("data-high")) > float(pair.get_attribute("data-low"))
    # Stage and activity names come from the server's catalog.
    if page == "sleep":
        assert {"In bed", "Awake", "Asleep REM", "Asleep core", "Asleep deep"} <= set(read_all(signed_in, "svg.timeline text.row-label"))
    if page == "workouts":
        rows = read_all(signed_in, "#workouts tbody tr")
        assert not [row for row in rows if "Activity " in row], rows
    assert page_errors(signed_in) == []


def test_a_bucket_is_chosen_from_the_keyboard(signed_in):
    signed_in.get(signed_in.current_url.split("#")[0] + f"#/type/{STEPS}")
    first = wait_for(signed_in, f'#chart-area[data-type="{STEPS}"] .bucket[data-index="0"]')
    signed_in.execute_script("arguments[0].focus()", first)
    first.send_keys(Keys.ENTER)
    WebDriverWait(signed_in, WAIT).until(lambda driver: read_all(driver, "#chart-area .bucket.selected", "data-index") == ["0"])
    label = read_all(signed_in, '#chart-area .bucket[data-index="0"] title')[0]
    WebDriverWait(signed_in, WAIT).until(lambda driver: label.startswith(read_all(driver, "#bucket-details h3")[0]))


def test_approving_a_pending_request_in_the_page_lets_the_waiting_app_save(signed_in, dashboard):
    server = dashboard.server
    with server.connect() as owner:
        token = owner.register_app("org.dashboard.scale", "Dashboard Scale")
    with server.connect(token, bundle_id="org.dashboard.scale", name="Dashboard Scale", version="1.0") as scale:
        weight = v.quantity_sample("HKQuantityTypeIdentifierBodyMass", 71.5, "kg", v.now_micros())
        scale.request_authorization(share=["HKQuantityTypeIdentifierBodyMass"])
        with pytest.raises(errors.HealthStoreError):
            scale.save([weight])
        signed_in.get(signed_in.current_url.split("#")[0] + "#/apps")
        row = '#pending [data-bundle-id="org.dashboard.scale"][data-direction="share"]'
        wait_for(signed_in, row + " button.approve").click()
        wait_for(signed_in, row, present=False)
        assert scale.save([weight]) == ["STORED"]
        wait_for_text(signed_in, 'article.app[data-bundle-id="org.dashboard.scale"] table.grants', "granted")
    assert page_errors(signed_in) == []


def test_a_pending_request_shows_up_live_a_rotated_token_is_shown_once_and_revoking_ends_the_app(signed_in, dashboard):
    signed_in.get(signed_in.current_url.split("#")[0] + "#/apps")
    wait_for(signed_in, "#pending-area")
    wait_for(signed_in, "body.live")
    server = dashboard.server
    with server.connect() as owner:
        token = owner.register_app("org.dashboard.band", "Dashboard Band")
    with server.connect(token, bundle_id="org.dashboard.band", name="Dashboard Band", version="1.0") as band:
        band.request_authorization(read=[HR])
        wait_for(signed_in, '#pending [data-bundle-id="org.dashboard.band"]')
    wait_for(signed_in, 'article.app[data-bundle-id="org.dashboard.band"] button.rotate').click()
    new_token = wait_for(signed_in, "#new-token").text
    assert new_token and new_token != token
    with server.connect(new_token, bundle_id="org.dashboard.band", name="Dashboard Band") as band:
        assert band.ping(b"ok").payload == b"ok"
    wait_for(signed_in, 'article.app[data-bundle-id="org.dashboard.band"] button.revoke').click()
    signed_in.switch_to.alert.accept()
    wait_for(signed_in, 'article.app[data-bundle-id="org.dashboard.band"] button.revoke', present=False)
    with pytest.raises(errors.HealthStoreError):
        server.connect(new_token, bundle_id="org.dashboard.band", name="Dashboard Band").ping()


def test_moving_a_source_in_the_page_changes_the_priority_the_server_applies(signed_in, dashboard):
    signed_in.get(signed_in.current_url.split("#")[0] + "#/apps")
    Select(wait_for(signed_in, "#priority-type")).select_by_value(HR)
    wait_for(signed_in, "#priority li:nth-child(2)")
    before = read_all(signed_in, "#priority li", "data-bundle-id")
    assert len(before) >= 2
    wait_for(signed_in, "#priority li:first-child button:last-of-type").click()
    expected = [before[1], before[0], *before[2:]]
    WebDriverWait(signed_in, WAIT).until(lambda driver: read_all(driver, "#priority li", "data-bundle-id") == expected)
    with dashboard.server.connect() as owner:
        assert owner.get_source_priority(HR)[:len(expected)] == expected


def test_a_sample_saved_by_a_client_appears_live(signed_in, fleet):
    signed_in.get(signed_in.current_url.split("#")[0] + "#/")
    wait_for(signed_in, "#types")
    wait_for(signed_in, "body.live")
    sample = v.quantity_sample(HR, 88, "count/min", v.now_micros())
    assert fleet.save([sample]) == ["STORED"]
    wait_for_text(signed_in, f'#live-feed li[data-uuid="{v.uuid_string(sample.uuid).upper()}"]', "88 count/min")
    assert page_errors(signed_in) == []


def test_signing_out_returns_to_the_sign_in_page_and_ends_the_session(signed_in, dashboard):
    cookie = signed_in.get_cookie("healthstore_session")["value"]
    assert dashboard.api("/api/session", cookie)[1]["owner"] is not None
    signed_in.find_element(By.ID, "sign-out").click()
    wait_for(signed_in, "#token")
    wait_for(signed_in, "#nav", present=False)
    assert read_all(signed_in, "#page") == [""]
    assert dashboard.api("/api/session", cookie) == (200, {"owner": None}), "signed out is an answer, not an error"
    assert dashboard.api("/api/overview", cookie)[0] == 401
    signed_in.refresh()
    wait_for(signed_in, "#token")
    assert page_errors(signed_in) == [], "asking who is signed in is no error when nobody is"


def test_the_page_loads_only_from_healthd_under_a_strict_policy(browser, dashboard):
    with urllib.request.urlopen(dashboard.url + "/", timeout=10) as answer:
        policy = answer.headers["Content-Security-Policy"]
        page = answer.read().decode()
    assert "default-src 'self'" in policy
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == [], "no inline scripts"
    assert re.findall(r"<[^>]*\son[a-z]+=", page) == [], "no inline event handlers"
    assert re.findall(r'(?:src|href)="(?:https?:)?//', page) == [], "nothing from another host"
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map((entry) => entry.name)")
    assert loaded and [name for name in loaded if not name.startswith(dashboard.url + "/")] == []
    assert page_errors(browser) == []


def test_an_uploaded_export_shows_its_progress_and_summary_and_its_types_appear_in_the_overview(signed_in, tmp_path):
    waist = "HKQuantityTypeIdentifierWaistCircumference"
    records = "\n".join(
        f'<Record type="{waist}" sourceName="Upload Scale" unit="cm" creationDate="2024-05-0{day} 08:00:30 +0200" '
        f'startDate="2024-05-0{day} 08:00:00 +0200" endDate="2024-05-0{day} 08:00:00 +0200" value="{80 + day}"/>'
        for day in range(1, 4))
    export = tmp_path / "export.zip"  # as the Health app shares it
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("apple_health_export/export.xml",
                         '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: 11 -->\n'
                         '<!ELEMENT HealthData ANY>\n]>\n<HealthData locale="en_US">\n'
                         f' <ExportDate value="2024-06-01 08:10:05 +0200"/>\n{records}\n</HealthData>\n')
    signed_in.get(signed_in.current_url.split("#")[0] + "#/import")
    wait_for(signed_in, "#export-file").send_keys(str(export))
    signed_in.find_element(By.ID, "start-import").click()
    wait_for(signed_in, '#import-status[data-state="done"]')
    upload = signed_in.find_element(By.ID, "upload-progress")
    assert upload.get_attribute("value") == upload.get_attribute("max")
    progress = signed_in.find_element(By.ID, "import-progress")
    assert progress.get_attribute("value") == progress.get_attribute("max")
    assert read_all(signed_in, "#import-types tbody tr") == ["Waist Circumference300"]
    assert read_all(signed_in, "#import-sources tbody td:first-child") == ["Upload Scale"]
    signed_in.get(signed_in.current_url.split("#")[0] + "#/")
    wait_for(signed_in, f'#types tr[data-type="{waist}"]')
    assert page_errors(signed_in) == []

"""What the real-browser tests share: JupyterLab or Voilà served locally, Chromium driven by Playwright.

The recipe of DESIGN.md ("Notebooks and widgets"): Debian's ``/usr/bin/chromium`` (Playwright's own browsers
are never downloaded), a server on a free loopback port without a token, every Jupyter and IPython folder
private to the run, the notebooks served from copies (JupyterLab saves what it opens; the repository's stay
without outputs), and the server stopped by the process id it was started with.

A test module starts with ``require_browser()`` (it skips, saying why, when Chromium or Playwright is
missing), takes the ``browser`` and ``page`` fixtures from here, and makes its own server fixture::

    import browser_harness as harness

    harness.require_browser()
    browser, page = harness.browser, harness.page

    @pytest.fixture(scope="module")
    def lab():
        with harness.serving(harness.Lab, notebooks=["replay.ipynb"]) as server:
            yield server

On failure :func:`kept_on_failure` saves a screenshot of the page, one of each widget (``.sl-app``) and the
server log in the artifacts folder (``STRATEGOLAB_ARTIFACTS``, default ``<tmp>/strategolab-browser``);
``STRATEGOLAB_SCREENSHOTS=1`` keeps those of a passing run too.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                  # Offline, as a classroom may be: any host but the test's server fails at once, so a page's
                  # outside links (Voilà's template asks a CDN for an icon font) never wait on a network that
                  # drops packets instead of refusing them.
                  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]
ARTIFACTS = Path(os.environ.get("STRATEGOLAB_ARTIFACTS") or Path(tempfile.gettempdir()) / "strategolab-browser")
KEEP_SCREENSHOTS = os.environ.get("STRATEGOLAB_SCREENSHOTS") == "1"
TIMEOUT_MS = 120_000  # running a notebook's cells includes whole games played by the checks
VIEWPORT = {"width": 1500, "height": 1100}

# JupyterLab settings for a test: every cell stays in the page (no windowing), no news or update checks.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                       "checkForUpdates": False},
}


def require_browser(*modules: str) -> Any:
    """Skip the calling test module (saying why) without Chromium, Playwright or the servers it names
    (``"jupyterlab"`` by default, ``"voila"``); return ``playwright.sync_api``."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)",
                    allow_module_level=True)
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing (pip install "
                                   "playwright; it is in the test extra)")
    for name in modules or ("jupyterlab",):
        extra = "the app extra: pip install -e '.[app]'" if name == "voila" else "the notebooks extra"
        pytest.importorskip(name, reason=f"{name} is missing ({extra})")
    return sync_api


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_site(scratch: Path, notebooks: Iterable[str]) -> Path:
    """What a server serves: copies of the notebooks, the ``pyproject.toml`` they find the root by, Voilà's
    ``voila.json``, and the shipped games (a link)."""
    site = scratch / "site"
    (site / "notebooks").mkdir(parents=True)
    for name in notebooks:
        shutil.copy(ROOT / "notebooks" / name, site / "notebooks" / name)
    for name in ("pyproject.toml", "voila.json"):
        shutil.copy(ROOT / name, site / name)
    (site / "data").symlink_to(ROOT / "data", target_is_directory=True)
    return site


def private_env(scratch: Path) -> dict[str, str]:
    """The environment of a server: Jupyter's and IPython's folders in ``scratch``, this checkout importable."""
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        folder = scratch / name.lower()
        folder.mkdir(exist_ok=True)
        env[name] = str(folder)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(scratch / "workspaces")
    # The kernel imports the package from this checkout, installed or not.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    return env


class Server:
    """A server process started for the tests in its own process group, stopped by its process id."""

    name = "server"
    ready_path = "/"

    def __init__(self, scratch: Path, notebooks: Iterable[str], argv: list[str], env: dict[str, str]) -> None:
        self.scratch = scratch
        self.site = make_site(scratch, notebooks)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = scratch / f"{self.name}.log"
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", *(a.format(port=self.port, site=self.site) for a in argv)],
            cwd=self.site, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}):\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"{self.name} did not answer within {seconds} s:\n{self.log()}")

    def log(self) -> str:
        """The end of the server's log."""
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        """Stop the server and its kernels: its process group, by the id the test started."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        self._log.close()


class Lab(Server):
    """JupyterLab serving copies of ``notebooks`` (names in ``notebooks/``), in the light or dark ``theme``."""

    name = "jupyterlab"
    ready_path = "/api/status"

    def __init__(self, scratch: Path, notebooks: Iterable[str] = ("play.ipynb", "replay.ipynb"),
                 theme: str = "JupyterLab Light") -> None:
        env = private_env(scratch)
        settings = {**SETTINGS, "@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": theme}}
        for setting, value in settings.items():
            target = Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings" / setting
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        super().__init__(scratch, notebooks, [
            "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.port={port}", "--ServerApp.port_retries=0",
            "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=",
            "--ServerApp.root_dir={site}", "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"], env)


class Voila(Server):
    """Voilà serving copies of ``notebooks`` as apps, as the README's app command does: ``voila notebooks/``
    run where ``voila.json`` is (it removes the cells tagged ``not-in-app``)."""

    name = "voila"
    ready_path = "/"

    def __init__(self, scratch: Path, notebooks: Iterable[str] = ("play.ipynb",)) -> None:
        super().__init__(scratch, notebooks, [
            "voila", "notebooks", "--no-browser", "--port={port}", "--Voila.ip=127.0.0.1",
            "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password="], private_env(scratch))

    def app_url(self, notebook: str) -> str:
        """The address of a notebook's app page."""
        return f"{self.url}/voila/render/{notebook}"


@contextlib.contextmanager
def serving(server: type[Server], **kwargs: Any) -> Iterator[Server]:
    """A server in a scratch folder for the length of a ``with`` (a module fixture's body)."""
    with tempfile.TemporaryDirectory(prefix=f"strategolab-{server.name}-") as scratch:
        running = server(Path(scratch), **kwargs)
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, started once for the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def new_page(browser: Browser, viewport: dict[str, int] | None = None, color_scheme: str = "light") -> Page:
    """A page in a fresh context (``viewport`` default 1500×1100), with the tests' timeout."""
    context = browser.new_context(viewport=viewport or VIEWPORT, color_scheme=color_scheme)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    return pg


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page, large enough to show a notebook and its widgets side by side."""
    pg = new_page(browser)
    try:
        yield pg
    finally:
        pg.context.close()


@contextlib.contextmanager
def kept_on_failure(pg: Page, server: Server, name: str) -> Iterator[None]:
    """Run a browser check; on failure save a screenshot and the server log and say where they are."""
    try:
        yield
    except Exception as e:
        shot = keep(pg, server, name)
        tail = "\n".join(server.log().splitlines()[-25:])  # CI keeps only the output: show the log's end here
        raise AssertionError(f"{e}\n(screenshot: {shot}; server log beside it, ending:)\n{tail}") from e
    if KEEP_SCREENSHOTS:
        keep(pg, server, name)


def keep(pg: Page, server: Server, name: str) -> Path:
    """Save a screenshot of the page, one of each widget, and the server log; return the page's."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(shot))
    apps = pg.locator(".sl-app")
    for i in range(apps.count()):  # the widgets themselves, whole (the notebook scrolls inside the page)
        apps.nth(i).screenshot(path=str(ARTIFACTS / f"{name}-widget{i}.png"))
    (ARTIFACTS / f"{name}-{server.name}.log").write_text(server.log())
    return shot


def open_notebook(pg: Page, lab: Lab, notebook: str) -> None:
    """Open a notebook in a private workspace and wait until its kernel is idle."""
    workspace = f"strategolab-{Path(notebook).stem}"  # its own workspace: no other notebook is reopened
    pg.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/notebooks/{notebook}")
    pg.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    # The kernel is ready when the status bar says so (the toolbar's indicator reads "idle" before it starts).
    pg.wait_for_function(
        """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
                 .some(e => /\\| Idle$/.test(e.textContent.trim()))""")


def run_all(pg: Page, notebook: str = "the notebook") -> None:
    """Run all cells from the menu, wait until every code cell has run, and fail on a traceback."""
    pg.click(".lm-MenuBar-itemLabel:text-is('Run')")
    pg.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    # Every code cell has an execution count once all have run ("[*]" while running, "[ ]" before).
    pg.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""")
    errors = pg.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert not tracebacks, f"{notebook} raised:\n" + "\n".join(tracebacks)


def open_and_run(pg: Page, lab: Lab, notebook: str) -> None:
    """Open a notebook, wait for its kernel, run all cells and wait until they ran."""
    open_notebook(pg, lab, notebook)
    run_all(pg, notebook)


def cell_count(pg: Page) -> int:
    """How many cells the open notebook has."""
    return pg.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").count()


def square_of(pg: Page, selector: str) -> str:
    """The name of the first square matching ``selector`` (``"C4"``)."""
    classes = pg.locator(selector).first.get_attribute("class") or ""
    return next(c for c in classes.split() if c.startswith("sl-square-")).removeprefix("sl-square-")

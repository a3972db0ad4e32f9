"""The PyInstaller bundle builds and works: window screenshot, oracle child process, a campaign
against the random baseline and a stand-in Ollama server, and the HTML report.

Slow (a build takes two to three minutes), so not in the default run:
``python -m pytest -m slow tests/packaging``. ``EXPLAINCHECK_TEST_BUNDLE=dist/explaincheck``
tests an existing bundle instead of building one.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the built application (built once for this module)."""
    given = os.environ.get("EXPLAINCHECK_TEST_BUNDLE")
    if given:
        return Path(given).resolve()
    if not sys.platform.startswith("linux"):
        pytest.skip("the bundle test runs on Linux")
    out = tmp_path_factory.mktemp("bundle")
    env = dict(os.environ, DIST=str(out / "dist"), WORK=str(out / "work"), PYTHON=sys.executable)
    started = time.monotonic()
    done = subprocess.run(
        ["bash", str(ROOT / "packaging" / "build.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"bundle built in {time.monotonic() - started:.0f} s")
    return out / "dist" / "explaincheck"


@pytest.fixture()
def app_env(tmp_path: Path) -> dict[str, str]:
    """Offscreen Qt, a private settings file and an empty oracle cache (so the oracle really
    runs in its spawned child process, which in a frozen program is the bundle itself)."""
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        EXPLAINCHECK_CACHE=str(tmp_path / "cache"),
        EXPLAINCHECK_SETTINGS=str(tmp_path / "settings.ini"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
    )


def run_bundle(bundle: Path, args: list[str], env: dict[str, str], cwd: Path, timeout=300):
    done = subprocess.run(
        [str(bundle / "explaincheck"), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, (
        f"{args}: {done.returncode}\n{done.stdout[-2000:]}\n" + (done.stderr[-3000:])
    )
    return done


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def distinct_colours(path: Path) -> int:
    """How many colours a coarse grid of pixels has (a blank window has one or two)."""
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull()
    step = 20
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


def test_bundle_layout(bundle: Path) -> None:
    internal = bundle / "_internal"
    assert (bundle / "explaincheck").is_file()
    assert (internal / "environments" / "frozen_lake" / "model.prism").is_file()
    assert (internal / "resources" / "icons" / "explaincheck-256.png").is_file()
    assert (bundle / "share" / "applications" / "io.github.explaincheck.desktop").is_file()
    assert (bundle / "share" / "metainfo" / "io.github.explaincheck.metainfo.xml").is_file()
    icon = bundle / "share" / "icons" / "hicolor" / "48x48" / "apps" / "io.github.explaincheck.png"
    assert png_size(icon) == (48, 48)


def test_screenshot_of_the_window(bundle: Path, app_env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out.png"
    run_bundle(bundle, ["gui", "--env", "frozen_lake", "--screenshot", str(out)], app_env, tmp_path)
    assert out.is_file() and out.stat().st_size > 10_000
    assert png_size(out) == (1600, 1000)
    assert distinct_colours(out) > 10
    # the oracle was computed (in the spawned child), not read from a cache
    assert list((tmp_path / "cache").rglob("*.json"))


def test_oracle_json(bundle: Path, app_env: dict[str, str], tmp_path: Path) -> None:
    done = run_bundle(bundle, ["oracle", "frozen_lake", "--json"], app_env, tmp_path)
    oracle = json.loads(done.stdout)
    assert oracle["model"]["states"] == 16
    assert sum(s["bottleneck"] for s in oracle["states"]) == 1


def test_campaign_report_and_results_view(
    bundle: Path, app_env: dict[str, str], tmp_path: Path
) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.ollama_standin import Script, StandinOllama

    db = tmp_path / "results.sqlite"
    with StandinOllama({"standin:1b": Script()}) as server:
        run_bundle(
            bundle,
            [
                "run",
                "--env",
                "frozen_lake",
                "--llm",
                "random",
                "--llm",
                "ollama:standin:1b",
                "--ollama-host",
                server.url,
                "--categories",
                "satisfy,bottleneck,best_action",
                "--budget",
                "2",
                "--db",
                str(db),
            ],
            app_env,
            tmp_path,
        )
    done = run_bundle(bundle, ["results", "--db", str(db), "--json"], app_env, tmp_path)
    rows = json.loads(done.stdout)
    assert {r["llm"] for r in rows} == {"random", "ollama:standin:1b"}
    assert all(r["verdict"] in ("pass", "fail", "invalid") for r in rows)

    report = tmp_path / "report"
    run_bundle(
        bundle,
        ["report", "--db", str(db), "--out", str(report), "--format", "html"],
        app_env,
        tmp_path,
    )
    assert (report / "report.html").stat().st_size > 1000
    assert (report / "table1_heatmap.svg").is_file()

    shot = tmp_path / "results.png"
    run_bundle(
        bundle,
        ["gui", "--db", str(db), "--view", "results", "--screenshot", str(shot)],
        app_env,
        tmp_path,
    )
    assert png_size(shot) == (1600, 1000)
    assert distinct_colours(shot) > 10

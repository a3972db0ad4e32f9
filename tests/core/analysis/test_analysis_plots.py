"""Figures are plain matplotlib Figures (no pyplot) with the right data in them."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from analysis_data import small_results, wilcoxon_results
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from explaincheck.core.analysis import plots
from explaincheck.core.analysis.layout import DIMENSION_COLOURS


def test_heatmap_values_and_annotations():
    figure = plots.table1_heatmap(small_results())
    assert isinstance(figure, Figure)
    axes = figure.axes[0]
    data = axes.images[0].get_array()
    assert data.shape == (4, 3)
    assert np.allclose(data[0], [0.75, 7 / 12, 2 / 3])
    assert data.mask[2, 1]  # water_jug bottleneck: not applicable
    texts = [t.get_text() for t in axes.texts]
    assert "0.50†/0.67†" in texts and "0.25†/err" in texts and "–" in texts


def test_difficulty_chart_bars_sorted_and_coloured_by_dimension():
    figure = plots.difficulty_chart(wilcoxon_results())
    axes = figure.axes[0]
    bars = axes.patches
    widths = [bar.get_width() for bar in bars]
    assert widths == sorted(widths)
    assert np.allclose(widths, [9 / 24, 11 / 24, 19 / 24])
    colours = [to_hex(bar.get_facecolor()) for bar in bars]
    assert colours == [
        DIMENSION_COLOURS["preference"].lower(),
        DIMENSION_COLOURS["state"].lower(),
        DIMENSION_COLOURS["state"].lower(),
    ]
    labels = [t.get_text() for t in axes.get_yticklabels()]
    assert labels == ["best action", "satisfy property", "bottleneck"]


def test_empty_results_give_a_figure_saying_so():
    empty = small_results().iloc[0:0]
    for figure in (plots.table1_heatmap(empty), plots.difficulty_chart(empty)):
        assert plots.NO_DATA in [t.get_text() for t in figure.texts]


def test_plots_never_touch_pyplot():
    code = (
        "import sys\n"
        "sys.path.insert(0, 'tests/core/analysis')\n"
        "from analysis_data import small_results\n"
        "from explaincheck.core.analysis import plots, report\n"
        "f = plots.table1_heatmap(small_results()); report.figure_bytes(f, 'png')\n"
        "plots.difficulty_chart(small_results())\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_heatmap_title_fits_inside_the_figure():
    """Three columns make a narrow figure: the title wraps instead of running off both sides
    (it was cut in the tab, the PNG and the HTML report)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = plots.table1_heatmap(small_results())
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    title = figure.axes[0].title
    box = title.get_window_extent(canvas.get_renderer())
    assert "\n" in title.get_text()
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width


def test_a_model_given_by_a_deep_path_keeps_the_heatmap_readable():
    """A model run from a deep folder was named by its whole path on the heatmap's rows, and the
    cells collapsed to nothing (matplotlib: 'axes sizes collapsed to zero')."""
    import io
    import warnings

    from explaincheck.core.analysis.layout import environment_label

    deep = "/tmp/" + "a_rather_long_folder_name/" * 6 + "corridor.prism"
    results = small_results()
    results["environment"] = results["environment"].replace("frozen_lake", deep)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = plots.table1_heatmap(results)
        figure.savefig(io.BytesIO(), format="png")
    rows = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert any(row.startswith("corridor.prism · ") for row in rows) and not any(
        deep in r for r in rows
    )
    assert environment_label("/x/environments/frozen_lake/model.prism") == "frozen_lake/model.prism"
    assert environment_label("e" * 40) == "e" * 15 + "…" + "e" * 16
    assert environment_label("frozen_lake") == "frozen_lake"

"""docs/architecture.md stays true to the code: the paths it names exist, every module of
``core/`` and ``gui/`` is named (or covered by a rule the page states and this test checks), and
the layer order it gives is the ``layers`` contract of ``pyproject.toml``.

A failure names what to write: the path that is gone, or the module the page does not name."""

from __future__ import annotations

import glob
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from explaincheck.core.cli.main import SUBCOMMANDS
from explaincheck.core.taxonomy.registry import CATEGORIES, OWN_CATEGORIES

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
# the folders of the checkout whose files the page names by their full path
ROOTS = ("core", "gui", "benchmarks", "environments", "docs", "tests", "packaging", "resources")
# relative paths with a folder ("campaign/regrade.py", "views/graph_view.py") are read inside these
PACKAGES = ("core", "gui")
SUFFIXES = (".py", ".toml", ".md", ".prism", "/")
# the rules that cover modules the page does not list one by one
CATEGORY_RULE = "one module per category"
COMMAND_RULE = "one `*_command.py` per sub-command"
BACKEND_RULE = "one `*_backend.py` per backend kind"


@dataclass(frozen=True)
class Named:
    """One path in backticks and the block (table row or paragraph) it stands in."""

    token: str
    block: int
    section: int


def _blocks(text: str) -> list[tuple[int, str]]:
    """(section number, block text): each table row, list item and paragraph is one block."""
    result: list[tuple[int, str]] = []
    section = 0
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("#"):
            section += 1
        if line.startswith("- ") and paragraph:
            result.append((section, " ".join(paragraph)))
            paragraph = []
        if line.startswith("|") or line.startswith("#") or not line.strip():
            if paragraph:
                result.append((section, " ".join(paragraph)))
                paragraph = []
            if line.startswith("|"):
                result.append((section, line))
            continue
        paragraph.append(line)
    return result


def _is_path(token: str) -> bool:
    if any(mark in token for mark in " {~<>()=") and "<id>" not in token:
        return False
    if token.startswith(("-", "/", ".")) or "<mirror>" in token:
        return False
    return token.endswith(SUFFIXES) and ("/" in token or token.endswith(".py"))


def named_paths(text: str) -> list[Named]:
    """Every path-like backticked token with its block; code blocks are left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    named = []
    for number, (section, block) in enumerate(_blocks(text)):
        for token in re.findall(r"`([^`\n]+)`", block):
            if _is_path(token):
                named.append(Named(token.replace("<id>", "*"), number, section))
    return named


def _folders(named: list[Named], item: Named) -> list[Path]:
    """The packages a bare ``name.py`` can be in: the folders the same block names, in order
    (the row's first package first); without any, those named earlier in its section."""
    own = [n for n in named if n.block == item.block and "/" in n.token]
    if not own:
        own = [n for n in named if n.section == item.section and n.block < item.block]
        own = [n for n in own if "/" in n.token][::-1]
    folders: list[Path] = []
    for other in own:
        for found in _matches(other.token, []):
            folder = found if found.is_dir() else found.parent
            if folder not in folders:
                folders.append(folder)
    return folders


def _matches(token: str, folders: list[Path]) -> list[Path]:
    """The files or folders of the checkout a token names (globs expanded)."""
    if token.split("/")[0] in ROOTS:
        bases = [REPO]
    elif "/" in token:
        bases = [REPO / package for package in PACKAGES] + folders
    else:
        bases = folders
    for base in bases:
        found = [Path(p) for p in glob.glob(str(base / token.rstrip("/")))]
        if found:
            return found
    return []


def resolved(text: str | None = None) -> tuple[set[Path], list[str]]:
    """The paths the page (or ``text``) names, and the tokens that name nothing in the checkout."""
    named = named_paths(DOC.read_text() if text is None else text)
    found: set[Path] = set()
    missing: list[str] = []
    for item in named:
        root = item.token.split("/")[0] in ROOTS
        folders = [] if root else _folders(named, item)
        matches = _matches(item.token, folders)
        if matches:
            found.update(path.resolve() for path in matches)
        else:
            where = ", ".join(str(f.relative_to(REPO)) for f in folders) or "the checkout"
            missing.append(f"`{item.token}` (looked in {where})")
    return found, missing


def test_every_path_the_page_names_exists() -> None:
    _, missing = resolved()
    assert not missing, "docs/architecture.md names paths that do not exist: " + "; ".join(missing)


def test_a_bare_name_is_read_in_the_package_its_row_names() -> None:
    """The reading the tests above rely on: ``types.py`` in a row about ``core/oracle/`` is
    ``core/oracle/types.py``; a name that package does not hold is reported with where it was
    looked for, even if another package holds it (``loader.py`` is in ``core/environments``)."""
    text = (
        "| oracle | `core/oracle/isolation.py`, `types.py`, `loader.py` | |\n"
        "| env | `core/environments/loader.py` | |\n"
    )
    found, missing = resolved(text)
    assert REPO.joinpath("core/oracle/types.py").resolve() in found
    assert REPO.joinpath("core/environments/types.py").resolve() not in found
    assert missing == ["`loader.py` (looked in core/oracle)"]


def _module_file(module: str) -> Path:
    parts = module.split(".")[1:]  # explaincheck.core.x.y -> core/x/y.py
    return REPO.joinpath(*parts).with_suffix(".py").resolve()


def covered_by_rules(text: str) -> set[Path]:
    """Modules the page covers by a rule it states: the project's category modules registered in
    ``CATEGORIES`` (``OWN_CATEGORIES``), the sub-command modules registered in
    ``core/cli/main.py`` and the ``core/backends/*_backend.py`` modules that
    ``core/backends/registry.py`` imports."""
    covered: set[Path] = set()
    if CATEGORY_RULE in text:
        # this project's own categories (an installed plugin's live in its own package)
        covered |= {_module_file(type(CATEGORIES[i]).__module__) for i in OWN_CATEGORIES}
    if COMMAND_RULE in text:
        covered |= {_module_file(module) for module, _ in SUBCOMMANDS.values()}
    if BACKEND_RULE in text:
        registry = (REPO / "core/backends/registry.py").read_text(encoding="utf-8")
        imported = set(re.findall(r"core\.backends(?:\.| import )(\w+_backend)\b", registry))
        covered |= {(REPO / "core/backends" / f"{name}.py").resolve() for name in imported}
    return covered


def test_every_module_of_core_and_gui_is_named() -> None:
    text = DOC.read_text()
    found, _ = resolved()
    covered = found | covered_by_rules(text)
    modules = sorted(
        path
        for package in PACKAGES
        for path in (REPO / package).rglob("*.py")
        if path.name != "__init__.py"
    )
    unnamed = [str(p.relative_to(REPO)) for p in modules if p.resolve() not in covered]
    assert not unnamed, "docs/architecture.md does not name these modules: " + ", ".join(unnamed)


def test_rules_cover_what_they_claim() -> None:
    """The three rules are stated and cover real modules (a rule that covers nothing is no rule)."""
    text = DOC.read_text()
    assert CATEGORY_RULE in text and COMMAND_RULE in text and BACKEND_RULE in text
    covered = covered_by_rules(text)
    assert REPO.joinpath("core/taxonomy/best_action.py").resolve() in covered
    assert REPO.joinpath("core/cli/run_command.py").resolve() in covered
    backends = {p.name for p in covered if p.parent.name == "backends"}
    assert {"ollama_backend.py", "random_backend.py", "openai_backend.py"} <= backends
    assert all(path.is_file() for path in covered)


def _short(module: str) -> str:
    """``explaincheck.core.policy.attach`` -> ``core.policy``; ``explaincheck.gui`` -> ``gui``."""
    parts = module.strip().removeprefix("explaincheck.").split(".")
    return ".".join(parts[:1] if parts[0] == "gui" else parts[:2])


def contract_layers() -> list[list[str]]:
    """The ``layers`` contract as the page's packages, top to bottom: a layer's first module
    gives its package (siblings like ``policy.chain`` ride along); independent leaf modules
    (``a | b``) are one layer of several; a package split over several layers is one."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["id"] == "layers"]
    result: list[list[str]] = []
    for layer in layers:
        if "|" in layer:
            names = [_short(m) for m in layer.split("|")]
        else:
            names = [_short(re.split(r"[:|]", layer)[0])]
        if not result or result[-1] != names:
            result.append(names)
    return result


def doc_layers() -> list[list[str]]:
    """The order in the ``layers`` row of the "Checked rules" table: ``a`` → ``b`` → ...,
    each step's first backticked name; the last step's names separated by ``\\|``."""
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `layers` |")]
    assert len(rows) == 1, "docs/architecture.md has one `layers` row in its contracts table"
    steps = rows[0].split("|", 2)[2].split("→")
    assert len(steps) > 2, "the `layers` row gives the order as `a` → `b` → ..."
    result = []
    for number, step in enumerate(steps):
        names = re.findall(r"`([\w.]+)`", step)
        assert names, f"step {number} of the `layers` row names no package: {step!r}"
        result.append(names if number == len(steps) - 1 else names[:1])
    return result


def test_the_layer_order_is_the_contracts() -> None:
    contract = contract_layers()
    page = doc_layers()
    assert page == contract, (
        "docs/architecture.md's `layers` row gives "
        + " → ".join(" | ".join(step) for step in page)
        + "; pyproject.toml's contract is "
        + " → ".join(" | ".join(step) for step in contract)
    )


def test_each_layer_said_to_sit_between_two_sits_right_between_them() -> None:
    """ "the layer `X` sits between `A` and `B`": A is the layer right above X, B right below."""
    text = " ".join(DOC.read_text().split())
    claims = re.findall(r"layer `([\w.]+)` sits between `([\w.]+)` and `([\w.]+)`", text)
    assert claims, "the page places at least one layer in words"
    order = [step[0] for step in contract_layers()]
    for layer, above, below in claims:
        at = order.index(layer)
        assert (order[at - 1], order[at + 1]) == (above, below), (
            f"docs/architecture.md says `{layer}` sits between `{above}` and `{below}`; "
            f"pyproject.toml puts it between `{order[at - 1]}` and `{order[at + 1]}`"
        )


def test_the_other_pages_name_only_modules_that_exist() -> None:
    """README.md and docs/**/*.md: every ``core/…``/``gui/…`` path and every
    ``python -m explaincheck.…`` module exists (adding-a-category.md names the module it has
    the reader create, so it is left out)."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    gone = []
    for page in pages:
        if page.name == "adding-a-category.md":
            continue
        text = page.read_text()
        for token in re.findall(r"`((?:core|gui)/[\w/.*-]+)`", text):
            if not glob.glob(str(REPO / token.rstrip("/"))):
                gone.append(f"{page.relative_to(REPO)}: `{token}`")
        for module in re.findall(r"python -m (explaincheck(?:\.\w+)+)", text):
            if not _module_file(module).is_file():
                gone.append(f"{page.relative_to(REPO)}: python -m {module}")
    assert not gone, "pages name modules that do not exist: " + "; ".join(gone)

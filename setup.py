"""Maps the repository folders onto the ``explaincheck`` import package.

``core/`` installs as ``explaincheck.core`` and ``gui/`` as ``explaincheck.gui`` (architecture.md);
``environments/`` and ``resources/`` ship as data packages so a non-editable install finds them.
``explaincheck`` itself is a regular package (``packaging/top/explaincheck/__init__.py``), not a
namespace: a folder named ``explaincheck`` in the working directory (a clone, a results folder)
would otherwise join or replace it. Everything else lives in pyproject.toml.
"""

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.editable_wheel import editable_wheel

TOP_ROOT = Path(__file__).resolve().parent / "packaging" / "top"  # holds explaincheck/ alone
TOP = {"explaincheck": "packaging/top/explaincheck"}
MAPPED = {"explaincheck.core": "core", "explaincheck.gui": "gui"}
DATA = {"explaincheck.environments": "environments", "explaincheck.resources": "resources"}


def mapped_packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = list(TOP)
    package_dir: dict[str, str] = dict(TOP)
    for name, folder in MAPPED.items():
        packages.append(name)
        package_dir[name] = folder
        for sub in find_packages(folder):
            packages.append(f"{name}.{sub}")
            package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"
    for name, folder in DATA.items():
        packages.append(name)
        package_dir[name] = folder
    return packages, package_dir


def data_files_of(folder: str) -> list[str]:
    root = Path(folder)
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]


class _WithTopPath:
    """An editable install's strategy plus one path entry, ``TOP_ROOT``. setuptools maps the
    names with a finder placed after Python's own path finder, which takes a namespace folder
    in the working directory first; a regular ``explaincheck`` on ``sys.path`` beats any such
    folder, and its subpackages still come from the finder's mapping."""

    def __init__(self, strategy, name: str) -> None:
        self.strategy, self.name = strategy, name

    def __call__(self, wheel, files, mapping) -> None:
        self.strategy(wheel, files, mapping)
        wheel.writestr(f"__editable__.{self.name}.top.pth", f"{TOP_ROOT}\n".encode())

    def __enter__(self):
        self.strategy.__enter__()
        return self

    def __exit__(self, *exc):
        return self.strategy.__exit__(*exc)


class EditableWheel(editable_wheel):
    """``pip install -e .``: setuptools' editable wheel with the top package on a path entry."""

    def _select_strategy(self, name, tag, build_lib):
        return _WithTopPath(super()._select_strategy(name, tag, build_lib), name)


packages, package_dir = mapped_packages()
setup(
    cmdclass={"editable_wheel": EditableWheel},
    packages=packages,
    package_dir=package_dir,
    package_data={name: data_files_of(folder) for name, folder in DATA.items()},
)

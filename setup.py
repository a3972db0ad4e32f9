"""Maps the repository folders onto the ``explaincheck`` import package.

``core/`` installs as ``explaincheck.core`` and ``gui/`` as ``explaincheck.gui`` (architecture.md);
``environments/`` and ``resources/`` ship as data packages so a non-editable install finds them.
Everything else lives in pyproject.toml.
"""

from pathlib import Path

from setuptools import find_packages, setup

MAPPED = {"explaincheck.core": "core", "explaincheck.gui": "gui"}
DATA = {"explaincheck.environments": "environments", "explaincheck.resources": "resources"}


def mapped_packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = []
    package_dir: dict[str, str] = {}
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


packages, package_dir = mapped_packages()
setup(
    packages=packages,
    package_dir=package_dir,
    package_data={name: data_files_of(folder) for name, folder in DATA.items()},
)

#!/usr/bin/env bash
# Build the one-folder application: dist/explaincheck/ (run from anywhere).
#
#   bash packaging/build.sh                 # build into dist/ (work files in build/)
#   DIST=/tmp/out WORK=/tmp/work bash packaging/build.sh
#   EXPLAINCHECK_BUNDLE_LOCAL=0 bash packaging/build.sh   # leave out the local Gemma model
#
# Installs PyInstaller from PyPI when it is missing, builds with packaging/explaincheck.spec,
# adds the desktop files (share/applications, share/metainfo, share/icons) beside the
# executable, checks that the bundle starts, and prints the time taken and the folder size.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
WORK="${WORK:-$ROOT/build}"
APP_ID="io.github.explaincheck"
PYTHON="${PYTHON:-python}"

cd "$ROOT"
start=$(date +%s)

if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: installing PyInstaller" >&2
    "$PYTHON" -m pip install --quiet "pyinstaller>=6.0"
fi
if ! "$PYTHON" -c "import explaincheck.core, stormpy, PySide6" 2>/dev/null; then
    echo "build.sh: explaincheck is not installed here: pip install -e \".[local]\" first" >&2
    exit 2
fi

"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$WORK" packaging/explaincheck.spec

BUNDLE="$DIST/explaincheck"
# Desktop integration files, laid out as under /usr/share so an installer (or a user) can copy
# share/ into ~/.local/share or /usr/share and link bin/explaincheck onto the PATH.
install -D -m 644 packaging/$APP_ID.desktop "$BUNDLE/share/applications/$APP_ID.desktop"
install -D -m 644 packaging/$APP_ID.metainfo.xml "$BUNDLE/share/metainfo/$APP_ID.metainfo.xml"
for size in 16 32 48 64 128 256; do
    install -D -m 644 "resources/icons/explaincheck-$size.png" \
        "$BUNDLE/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
install -D -m 644 resources/icons/explaincheck.svg \
    "$BUNDLE/share/icons/hicolor/scalable/apps/$APP_ID.svg"

# The bundle must at least start and list its sub-commands.
"$BUNDLE/explaincheck" --help >/dev/null

end=$(date +%s)
echo "build.sh: built $BUNDLE in $((end - start)) s; size $(du -sh "$BUNDLE" | cut -f1)"

#!/usr/bin/env bash
# test_deb BUILD_DIR ASSETS_DIR: builds the .deb with CPack from the build tree, checks its contents and dependencies,
# unpacks it into a temporary root and runs the installed programs there: --version, report on a built-in sample, and
# check and an import on a real rig (the installed import worker beside the installed binary, nothing from the build).
set -euo pipefail
build="$1"
assets="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "test_deb: FAIL: $*" >&2; exit 1; }

cpack -G DEB -B "$work/out" --config "$build/CPackConfig.cmake" > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
deb="$(ls "$work"/out/rigscope_*.deb 2>/dev/null | head -1)"
[ -n "$deb" ] || fail "cpack made no rigscope_*.deb"

# Contents: both programs side by side, the desktop entry, the AppStream file, the icons.
dpkg-deb -c "$deb" | awk '{print $6}' > "$work/contents"
for f in ./usr/bin/rigscope ./usr/bin/rigscope-import \
         ./usr/share/applications/io.github.rigscope.RigScope.desktop \
         ./usr/share/metainfo/io.github.rigscope.RigScope.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/rigscope.svg \
         ./usr/share/icons/hicolor/48x48/apps/rigscope.png ./usr/share/icons/hicolor/256x256/apps/rigscope.png; do
  grep -qx "$f" "$work/contents" || fail "the package lacks $f"
done
if grep -q "test_\|rigscope-make-icons\|rigscope-fault-worker" "$work/contents"; then
  fail "the package carries a test or build tool: $(grep "test_\|make-icons\|fault-worker" "$work/contents" | head -1)"
fi
# Dependencies: the shared libraries the programs link (dpkg-shlibdeps) and the Qt platform plugins they load.
depends="$(dpkg-deb -f "$deb" Depends)"
for d in libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libassimp5 libpng16-16 libjpeg62-turbo qt6-qpa-plugins; do
  case ", $depends," in *", $d"[\ ,]*) ;; *) fail "Depends lacks $d: $depends" ;; esac
done
[ "$(dpkg-deb -f "$deb" Package)" = rigscope ] || fail "the package is not named rigscope"
# The desktop entry opens files and names the icon the package installs.
desktop="$work/root/usr/share/applications/io.github.rigscope.RigScope.desktop"
dpkg-deb -x "$deb" "$work/root"
grep -qx "Exec=rigscope %f" "$desktop" || fail "the desktop entry does not open a file"
grep -qx "Icon=rigscope" "$desktop" || fail "the desktop entry names another icon"
grep -q "^MimeType=.*model/gltf-binary;" "$desktop" || fail "the desktop entry does not open glTF binaries"
if command -v desktop-file-validate > /dev/null; then desktop-file-validate "$desktop" || fail "desktop-file-validate"; fi

# The installed programs, with nothing of the build tree on their way.
bin="$work/root/usr/bin"
unset RIGSCOPE_IMPORT_WORKER
export QT_QPA_PLATFORM=offscreen
"$bin/rigscope" --version | grep -q "^rigscope " || fail "rigscope --version"
"$bin/rigscope" report --sample sheet --formats none > "$work/report.txt" || fail "rigscope report --sample sheet exited $?"
grep -q "sample:sheet" "$work/report.txt" || fail "the report does not name the sample"
if [ ! -d "$assets" ]; then
  echo "test_deb: the real rigs' folder $assets is absent: check and import on a real rig skipped"
  exit 0
fi
rig="$assets/CesiumMan/cesium_man.gltf"
status=0
"$bin/rigscope" check "$rig" --json "$work/check.json" > "$work/check.txt" 2>&1 || status=$?
[ "$status" -le 1 ] || { cat "$work/check.txt"; fail "rigscope check exited $status (2: the file could not be read)"; }
grep -q '"vertices": *3273\|"vertices":3273' "$work/check.json" || { head -c 600 "$work/check.json"; fail "check did not read CesiumMan's 3273 vertices"; }
"$bin/rigscope" report "$rig" --formats none --json "$work/cesium.json" || fail "rigscope report on $rig"
grep -q '"vertices":3273' "$work/cesium.json" || fail "the installed report did not import CesiumMan"
echo "test_deb: $(basename "$deb") ($(stat -c %s "$deb") bytes) passed"

#!/usr/bin/env bash
# Packs build/bin/rigscope (and its import worker, rigscope-import) with the shared libraries it needs and Qt's vkkhrdisplay platform plugin into
# device-bundle/rigscope.tar.xz (git-ignored), for running GPU benchmarks on a machine without Qt (see BENCHMARKS.md).
# On that machine:
#   mkdir -p /tmp/rs && tar xJf device-bundle/rigscope.tar.xz -C /tmp/rs && cd /tmp/rs &&
#   LD_LIBRARY_PATH=. QT_PLUGIN_PATH=. QT_QPA_PLATFORM=vkkhrdisplay ./rigscope bench --device gpu
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/bin/rigscope
[ -x "$bin" ] || { echo "build $bin first" >&2; exit 1; }
stage=$(mktemp -d)
cp "$bin" build/bin/rigscope-import "$stage/"
# Every library ldd lists for each file except the C runtime, which the target has (and must match its kernel): the app's
# and the import worker's own (libpng, libjpeg: it decodes textures itself), and the platform plugin's.
is_c_runtime() {
  case "$(basename "$1")" in
    libc.so.*|libm.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) return 0 ;;
    *) return 1 ;;
  esac
}
bring_libraries_of() {
  ldd "$1" | awk '/=> \// {print $3}' | while read -r lib; do
    is_c_runtime "$lib" || [ -e "$stage/$(basename "$lib")" ] || cp -L "$lib" "$stage/"
  done
}
bring_libraries_of "$bin"
bring_libraries_of build/bin/rigscope-import
# Qt loads the Vulkan loader at run time; bring it.
cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$stage/"
mkdir -p "$stage/platforms"
plugin=/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqvkkhrdisplay.so
cp -L "$plugin" "$stage/platforms/"
bring_libraries_of "$plugin"
# Check: with the bundle first on the path, every library both binaries need resolves inside it (or is the C runtime),
# and the unpacked bundle opens a real file through its import worker.
for f in "$stage/rigscope" "$stage/rigscope-import"; do
  missing=$(LD_LIBRARY_PATH="$stage" ldd "$f" | awk '/=> / {print $1, $3}' | while read -r name path; do
    is_c_runtime "$name" || case "$path" in "$stage"/*) ;; *) echo "$name" ;; esac
  done)
  [ -z "$missing" ] || { echo "device-bundle: $(basename "$f") needs libraries outside the bundle: $missing" >&2; exit 1; }
done
asset=../shared/assets/CesiumMan/cesium_man.gltf
if [ -e "$asset" ]; then
  (cd "$stage" && LD_LIBRARY_PATH=. ./rigscope report "$OLDPWD/$asset" --methods linear > /dev/null) ||
    { echo "device-bundle: the bundle could not open $asset" >&2; exit 1; }
fi
mkdir -p device-bundle
tar cJf device-bundle/rigscope.tar.xz -C "$stage" .
rm -rf "$stage"
ls -la device-bundle/rigscope.tar.xz

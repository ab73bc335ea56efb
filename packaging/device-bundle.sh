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
# Every library ldd lists except the C runtime, which the target has (and must match its kernel).
ldd "$bin" | awk '/=> \// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
    *) cp -L "$lib" "$stage/" ;;
  esac
done
# Qt loads the Vulkan loader at run time; bring it.
cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$stage/"
mkdir -p "$stage/platforms"
plugin=/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqvkkhrdisplay.so
cp -L "$plugin" "$stage/platforms/"
ldd "$plugin" | awk '/=> \// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
    *) [ -e "$stage/$(basename "$lib")" ] || cp -L "$lib" "$stage/" ;;
  esac
done
mkdir -p device-bundle
tar cJf device-bundle/rigscope.tar.xz -C "$stage" .
rm -rf "$stage"
ls -la device-bundle/rigscope.tar.xz

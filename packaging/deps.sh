#!/usr/bin/env bash
# Installs RigScope's build and test dependencies from Debian 12 packages (run as root or with sudo).
# qt6-charts-dev: the error histogram; libqt6opengl6-dev: Qt Charts' CMake package needs Qt6OpenGL (qt6-charts-dev does
# not pull it in). rapidjson-dev: the JSON reader and writer of rig/ (glTF, pose files, the report). libpng-dev,
# libjpeg62-turbo-dev: the import worker decodes base colour textures itself, inside its sandbox (worker/decode_image.h). clang +
# libclang-rt-14-dev: the `fuzz` preset (libFuzzer and clang's sanitizer runtimes); llvm: llvm-symbolizer for readable
# sanitizer stacks; python3: tests/io/test_hostile.cpp re-runs tests/data/broken/make_broken.py. dpkg-dev (dpkg-shlibdeps)
# and file: CPack's .deb computes its dependencies with them (tests/packaging/test_deb.sh builds it).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PACKAGES=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-base-private-dev qt6-shadertools-dev qt6-charts-dev libqt6opengl6-dev
  libassimp-dev libglm-dev libgl-dev libvulkan-dev rapidjson-dev libpng-dev libjpeg62-turbo-dev
  qt6-qpa-plugins mesa-vulkan-drivers libgl1-mesa-dri
  xvfb xauth
  clang libclang-rt-14-dev llvm
  python3
  dpkg-dev file
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Shared by the scripts in scripts/: installs what a fresh Debian 12 machine
# lacks, then configures and builds the project with Ninja and ccache.
# Source it, then call fuser_install_packages and fuser_build <build-dir>.

FUSER_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# ccache keys on the paths in compile commands: relative to the checkout,
# a fresh clone elsewhere (CI) finds the objects an earlier one compiled.
export CCACHE_BASEDIR=$FUSER_ROOT
FUSER_LLVM_PREFIX=/usr/lib/llvm-22
FUSER_PACKAGES=(cmake ninja-build ccache g++ libgtest-dev pybind11-dev python3-dev python3-numpy
                libopenmpi-dev openmpi-bin
                llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools)

fuser_install_packages() {
  local missing=() package
  for package in "${FUSER_PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  # PyTorch (on the CPU) for the Python tests of fuser_mlir.torch; without
  # what Debian recommends beside it (a desktop's worth of libraries).
  local lean=()
  dpkg -s python3-torch >/dev/null 2>&1 || lean=(python3-torch)
  ((${#missing[@]} + ${#lean[@]} == 0)) && return 0
  echo "installing with apt-get: ${missing[*]} ${lean[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  if ((${#missing[@]})); then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if ((${#lean[@]})); then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends "${lean[@]}" >/dev/null
  fi
}

# fuser_build <build-dir> [extra cmake arguments...]
# Without sanitizers unless the arguments ask (-DFUSER_SANITIZE=...), even in
# a build directory that had them.
fuser_build() {
  local build=$1
  shift
  mkdir -p "$build"
  cmake -G Ninja -S "$FUSER_ROOT" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$FUSER_LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$FUSER_LLVM_PREFIX/bin/lit" \
    -DFUSER_SANITIZE= \
    "$@" >"$build/configure.log" 2>&1 || {
      cat "$build/configure.log"
      return 1
    }
  cmake --build "$build" -j "${FUSER_JOBS:-2}"
}

# fuser_build_reporting <build-dir> [extra cmake arguments...]
# fuser_build with its output in <build-dir>/build.log and its progress on
# stdout, a line each tenth of the way: a cold build takes minutes.
fuser_build_reporting() {
  local build=$1
  mkdir -p "$build"
  echo "building in $build (log: $build/build.log)"
  # The build's own status, not the reporting's; set -e stays outside.
  local -
  set +e
  fuser_build "$@" 2>&1 | tee "$build/build.log" | awk '
    match($0, /^\[[0-9]+\/[0-9]+\]/) {
      split(substr($0, 2, RLENGTH - 2), step, "/")
      tenth = int(10 * step[1] / step[2])
      if (tenth > shown) {
        shown = tenth
        printf "  %d%% (%d of %d steps)\n", 10 * tenth, step[1], step[2]
        fflush()
      }
    }'
  local status=${PIPESTATUS[0]}
  if ((status != 0)); then
    tail -n 30 "$build/build.log"
    echo "the build failed: $build/build.log has all of it"
  fi
  return "$status"
}

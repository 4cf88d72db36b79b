#!/usr/bin/env bash
# Packs what `scripts/device-run.sh blas` needs on the GPU machine, without
# wiping an existing .gpu/ (run after ../shared/tools/gpu-pack, or alone):
#   .gpu/bin/mparray   the release CLI, stripped (built here if missing or older)
#   .gpu/mpfr/         mpfr_blas (scripts/peers/mpfr_blas.c) and this
#                      machine's libmpfr.so.6 and libgmp.so.10 beside it
#   .whl/              python-flint's wheel for Python 3.12 (flint_gemm.py)
# Then, with the device tool: carry [".gpu", ".whl"], command
#   bash scripts/device-run.sh blas
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mkdir -p .gpu/bin .gpu/mpfr .whl
if [ "${PACK_BUILD:-1}" = 1 ]; then
  cargo build --release --bin mparray
fi
strip -o .gpu/bin/mparray target/release/mparray
gcc -O2 -pthread -o .gpu/mpfr/mpfr_blas scripts/peers/mpfr_blas.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
cp -L /usr/lib/x86_64-linux-gnu/libmpfr.so.6 /usr/lib/x86_64-linux-gnu/libgmp.so.10 .gpu/mpfr/
if ! ls .whl/python_flint-*.whl >/dev/null 2>&1; then
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl python-flint==0.9.0
fi
du -sh .gpu .whl

#!/usr/bin/env bash
# Packs the Python module's wheel, gmpy2's wheel for CPython 3.12, the
# tests and the mparray CLI into .gpu-python/ (git-ignored by .gpu*/), for
# the GPU machine, which has CPython 3.12, NumPy and pytest but no Rust and
# no network. Then, on the GPU machine, carrying ".gpu-python":
#   bash .gpu-python/run.sh          # pytest python/tests on the CUDA engine
#   bash .gpu-python/run.sh bench    # and python -m mparray bench --engine cuda
# Needs here: Rust, Python >= 3.11 with pip, network access to PyPI.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=.gpu-python
rm -rf "$dest" && mkdir -p "$dest"
venv=${MPARRAY_PACK_VENV:-.venv-ci}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2"
# A stray in-place build (maturin develop) must not ride in the wheel.
rm -f python/mparray/_mparray*.so
(cd python && PATH="$root/$venv/bin:$PATH" maturin build --release -o "$root/$dest" >/dev/null)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$dest" gmpy2==2.3.2
cp -r python/tests "$dest/tests" && rm -rf "$dest/tests/__pycache__"
cargo build --release --bin mparray
gzip -c target/release/mparray > "$dest/mparray-cli.gz"
cat > "$dest/run.sh" <<'EOF'
#!/usr/bin/env bash
# The Python module's tests on the GPU machine, on the CUDA engine:
#   bash .gpu-python/run.sh          # pytest python/tests with MPARRAY_ENGINE=cuda
#   bash .gpu-python/run.sh bench    # and then python -m mparray bench --engine cuda
# Installs the carried wheels into /tmp/site, fills the kernel cache first
# with the carried mparray CLI (`kernels compile --cache` on all cores, about
# 2.5 minutes; the tests would otherwise compile each kernel on first use,
# one at a time), and writes the logs to $OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-python3}
out=${OUT:-/tmp}
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$here"/mparray-*.whl "$here"/gmpy2-*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MPARRAY_ENGINE=${MPARRAY_ENGINE:-cuda}
export MPARRAY_CACHE_DIR=${MPARRAY_CACHE_DIR:-/tmp/mparray-kcache}
mkdir -p "$MPARRAY_CACHE_DIR"
if [ -f "$here/kcache.tar.gz" ]; then tar xzf "$here/kcache.tar.gz" -C "$MPARRAY_CACHE_DIR"; fi
if [ "$MPARRAY_ENGINE" = cuda ] && [ -f "$here/mparray-cli.gz" ]; then
    gunzip -c "$here/mparray-cli.gz" > /tmp/mparray-cli && chmod +x /tmp/mparray-cli
    t0=$(date +%s)
    /tmp/mparray-cli kernels compile --arch sm_90 --cache > "$out/kernels.log" 2>&1 \
        || { tail -20 "$out/kernels.log"; exit 1; }
    echo "kernel cache filled in $(( $(date +%s) - t0 )) s"
fi
cd /tmp
$PY -m mparray info
$PY -m pytest "$here/tests" -q -p no:cacheprovider -p no:xdist -p no:randomly 2>&1 | tee "$out/pytest.log"
rc=${PIPESTATUS[0]}
if [ "${1:-}" = bench ]; then
    $PY -m mparray bench --engine "$MPARRAY_ENGINE" 2>&1 | tee "$out/bench.log"
fi
exit "$rc"
EOF
du -sh "$dest"
echo "packed $dest: on the GPU machine run 'bash $dest/run.sh [bench]' carrying [\"$dest\"]"

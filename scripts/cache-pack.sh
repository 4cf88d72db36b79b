#!/usr/bin/env bash
# Fills a kernel cache here (NVRTC 13.0.88 from PyPI, the GPU machine's
# version, so the CUBINs are the ones the H200 would compile) and packs it
# as .gpuz/kernels.tar.xz, which scripts/device-tests.sh unpacks into the
# device's cache: a device call then spends no time compiling the warm
# set (about 1900 s of NVRTC CPU time, 2 to 3 minutes of 16 cores there;
# on the 2 cores here about 16 minutes, with no device time spent).
# Usage: scripts/cache-pack.sh [--only SUBSTR]  (after cargo build --release;
# the CUBINs belong to the kernel sources of that build).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
if [ ! -d .nvrtc/nvidia_cuda_nvrtc-13.0.88.dist-info ]; then
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --target .nvrtc \
        nvidia-cuda-nvrtc==13.0.88
fi
lib=$(ls -d "$PWD"/.nvrtc/nvidia/cu13/lib)
mkdir -p .gpuz/cache
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" MPARRAY_CACHE_DIR="$PWD/.gpuz/cache" \
    target/release/mparray kernels compile --arch sm_90 --cache --set warm "$@" | tail -3
XZ_OPT="-6 -T2" tar cJf .gpuz/kernels.tar.xz -C .gpuz cache
ls -la .gpuz/kernels.tar.xz

#!/usr/bin/env bash
# The calls on the GPU machine that produce BENCHMARKS.md's figures. Pack
# first (../shared/tools/gpu-pack), then with the device tool, carrying
# [".gpu"]: `bash scripts/device-run.sh PART...`, PART in
#   tests  engine info and every test binary (GPU tests included)
#   int    the integer suite on CUDA at full scale, every instance verified
#          at 2^12 and 2^19, and the CPU suite at scale 4
#   huge   the huge-integer suite on CUDA and on the CPU (with malachite)
#   float  the float suite on the CPU (16 cores) and on CUDA
#   stream the CPU 1-Add with plain and with non-temporal stores
#   func   correctly rounded functions on the CPU (16 cores)
#   complex  the complex functions (and pow) on the CPU, 256 and 1024 bits
#   funccuda every real function on CUDA, 128..2048 bits, 4096 and 2^20
#          elements
#   cli    `mparray huge mul` on two 10^7-digit decimal files, both engines,
#          and the product divided back
#   mpfr   MPFR 4.2 itself on one core of the host, functions at 128..2048
#          bits (needs .gpu/mpfr: scripts/peers/mpfr_threads.c built with gcc, and
#          the dev machine's libmpfr.so.6 and libgmp.so.10 beside it)
#   blascuda `bench blas --engine cuda`, every case (vector cases first,
#          then gemm, then syrk, each under a deadline, the bars' 512 and
#          1024 bits first), JSON per group
#   blascpu  `bench blas --engine cpu` at 512 bits, n = 256 and 1024, and
#          its peers on the same 16 cores: MPFR's mul/add loop and mpfr_dot
#          (.gpu/mpfr/mpfr_blas), FLINT's arb_mat_mul (python-flint from
#          .whl, scripts/peers/flint_gemm.py); scripts/pack-blas.sh packs
#          them (carry [".gpu", ".whl"])
#   blas   blascuda and blascpu (timeouts add up to 560 s: one call)
#   gmres  GMRES(m) at n = 4096, 256 bits: per-step time against one gemv
#          (`bench solvers --problems gmres-step`) on CUDA (m = 30, then
#          again with MPARRAY_GMRES_PROFILE's phase times) and on the CPU
#          (16 cores, m = 5), and the CPU-against-CUDA test of whole runs
#   all    all of the above
# Logs go to $OUT: run.txt (everything printed), tests.log, bench-*.json.
set -uo pipefail
out=${OUT:-/tmp/mparray-out}
mkdir -p "$out"
log="$out/run.txt"
bin=.gpu/bin/mparray
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(all)
want() { [[ " ${parts[*]} " == *" $1 "* || " ${parts[*]} " == *" all "* ]]; }
# The blas parts also run under their common name.
wantb() { want "$1" || [[ " ${parts[*]} " == *" blas "* ]]; }
section() { echo "=== $* ($(date -u +%H:%M:%S))"; }
{
  if want tests; then
    $bin info
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
    section tests
    start=$(date +%s)
    bash .gpu/run.sh 2>&1 | tail -40
    echo "tests exit ${PIPESTATUS[0]} in $(($(date +%s) - start)) s"
  fi
  if want gmres; then
    section bench solvers gmres-step cuda, n = 4096, 256 bits
    $bin bench solvers --engine cuda --problems gmres-step --step-n 4096 --step-m 30
    MPARRAY_GMRES_PROFILE=1 $bin bench solvers --engine cuda --problems gmres-step \
      --step-n 4096 --step-m 30 --json >"$out/bench-gmres-step-cuda.json"
    section bench solvers gmres-step cpu, n = 4096, 256 bits, m = 5
    $bin bench solvers --engine cpu --problems gmres-step --step-n 4096 --step-m 5
    section test cuda_gmres_gives_the_cpu_bits
    for t in .gpu/tests/solvers-*; do "$t" --include-ignored --nocapture cuda_gmres; done
  fi
  if want int; then
    section bench int cuda, full scale
    $bin bench int --engine cuda --runs 10 --json-out "$out/bench-int-cuda.json"
    section bench int cuda, every instance verified at 2^12 and 2^19
    $bin bench int --engine cuda --runs 3 --sizes 12,19 --verify all
    section bench int cpu, scale 4
    $bin bench int --engine cpu --scale 4 --runs 5 --json-out "$out/bench-int-cpu.json"
    section bench int cpu 1-Add, 8 threads
    RAYON_NUM_THREADS=8 $bin bench int --engine cpu --scale 4 --runs 9 --cases add
  fi
  if want huge; then
    section bench huge cuda
    $bin bench huge --engine cuda --json > "$out/bench-huge-cuda.json"
    cat "$out/bench-huge-cuda.json"
    section bench huge cpu, with malachite on one core
    $bin bench huge --engine cpu --reference --json > "$out/bench-huge-cpu.json"
    cat "$out/bench-huge-cpu.json"
  fi
  if want stream; then
    section bench int cpu 1-Add: plain stores, non-temporal stores, twice
    for v in 0 1 0 1; do
      echo "MPARRAY_CPU_STREAM=$v"
      MPARRAY_CPU_STREAM=$v $bin bench int --engine cpu --scale 4 --runs 9 --cases add
    done
  fi
  if want func; then
    section bench func cpu
    timeout 150 $bin bench func --engine cpu --funcs exp,log,sin,cos,atan --precs 128,512,1024 --json > "$out/bench-func-cpu.json"
    cat "$out/bench-func-cpu.json"
    section bench func cpu, the other functions at 512 bits
    timeout 150 $bin bench func --engine cpu --funcs tan,exp2,log2,log10,cbrt,expm1,log1p,sinh,cosh,tanh,asinh,acosh,atanh,asin,acos,atan2,hypot,pow,agm --precs 512 --json > "$out/bench-func2-cpu.json"
    cat "$out/bench-func2-cpu.json"
  fi
  if want complex; then
    section bench func --complex all, cpu
    timeout 300 $bin bench func --engine cpu --funcs exp --precs 512 --batches 4096 --complex all --json > "$out/bench-func-complex-cpu.json"
    cat "$out/bench-func-complex-cpu.json"
  fi
  if want funccuda; then
    section bench func cuda
    timeout 360 $bin bench func --engine cuda --runs 3 --json > "$out/bench-func-cuda.json"
    cat "$out/bench-func-cuda.json"
  fi
  if want mpfr && [ -x .gpu/mpfr/mpfr_threads ]; then
    section MPFR on one core, functions at every bench precision, 4096 elements
    LD_LIBRARY_PATH=.gpu/mpfr timeout 120 .gpu/mpfr/mpfr_threads 1 18 12 3 funcall
  fi
  if want cli; then
    section huge CLI: two 10^7-digit decimal files
    t=$(mktemp -d)
    $bin huge rand --bits 33219280 --seed 11 -o "$t/a.txt"
    $bin huge rand --bits 33219000 --seed 12 -o "$t/b.txt"
    wc -c "$t/a.txt" "$t/b.txt"
    for e in cuda cpu; do
      s0=$(date +%s%N)
      $bin huge mul --engine $e "$t/a.txt" "$t/b.txt" -o "$t/p-$e.txt"
      echo "huge mul --engine $e: exit $?, $(( ($(date +%s%N) - s0) / 1000000 )) ms, $(wc -c < "$t/p-$e.txt") bytes"
    done
    cmp "$t/p-cuda.txt" "$t/p-cpu.txt" && echo "cuda and cpu products: identical"
    $bin huge divrem --engine cuda "$t/p-cuda.txt" "$t/a.txt" -o "$t/qr.txt"
    head -n 1 "$t/qr.txt" | cmp - "$t/b.txt" && echo "product / a: quotient equals b"
    [ "$(tail -n 1 "$t/qr.txt")" = 0 ] && echo "product / a: remainder 0"
    rm -rf "$t"
  fi
  if want float; then
    section bench float cpu
    timeout 150 $bin bench float --engine cpu --json > "$out/bench-float-cpu.json"
    cat "$out/bench-float-cpu.json"
    section bench float cuda
    timeout 150 $bin bench float --engine cuda --json > "$out/bench-float-cuda.json"
    cat "$out/bench-float-cuda.json"
  fi
  if wantb blascuda; then
    section bench blas cuda: tall, gemv, dot
    timeout 90 $bin bench blas --engine cuda --ops tall,gemv,dot --deadline-s 50 \
      --json-out "$out/bench-blas-cuda-vec.json"
    echo "exit $?"
    section bench blas cuda: gemm
    timeout 170 $bin bench blas --engine cuda --ops gemm --precs 512,1024,128,256,2048 --deadline-s 100 \
      --json-out "$out/bench-blas-cuda-gemm.json"
    echo "exit $?"
    section bench blas cuda: syrk
    timeout 70 $bin bench blas --engine cuda --ops syrk --precs 512,1024,128,256,2048 --deadline-s 35 \
      --json-out "$out/bench-blas-cuda-syrk.json"
    echo "exit $?"
  fi
  if wantb blascpu; then
    section "bench blas cpu, 512 bits, n = 256 and 1024 ($(nproc) cores)"
    timeout 90 $bin bench blas --engine cpu --precs 512 --sizes 256,1024 --deadline-s 50 \
      --json-out "$out/bench-blas-cpu.json"
    echo "exit $?"
    if [ -x .gpu/mpfr/mpfr_blas ]; then
      section MPFR mul/add loop and mpfr_dot, 16 threads, 512 bits
      LD_LIBRARY_PATH=.gpu/mpfr timeout 70 .gpu/mpfr/mpfr_blas 16 512 256,1024 2 gemm,gemv,dot
    else
      echo "no .gpu/mpfr/mpfr_blas (scripts/pack-blas.sh builds it)"
    fi
    section FLINT arb_mat_mul, 16 threads, 512 bits
    if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/flint-site .whl/python_flint-*.whl; then
      PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/flint-site timeout 70 python3 scripts/peers/flint_gemm.py 16 512 256,1024 2
    else
      echo "no python-flint wheel in .whl (scripts/pack-blas.sh downloads it)"
    fi
  fi
} 2>&1 | tee -a "$log"

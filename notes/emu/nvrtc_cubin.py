# Compile src/kernels/int_add.cu (common.cuh pasted in) to a cubin with the
# pip NVRTC, as the engine does; then inspect it with cuobjdump.
# Usage: python3 nvrtc_cubin.py OUT.cubin -DADD_K=8 -DADD_B=256
import ctypes, os, sys
lib = os.path.expanduser("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13")
nv = ctypes.CDLL(lib)
root = os.path.join(os.path.dirname(__file__), "../../src/kernels")
src = open(f"{root}/int_add.cu").read().replace('#include "common.cuh"', open(f"{root}/common.cuh").read())
prog = ctypes.c_void_p()
assert nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"int_add.cu", 0, None, None) == 0
opts = ["--gpu-architecture=sm_90", "--std=c++17", "--device-int128"] + sys.argv[2:]
arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
rc = nv.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t(); nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value); nv.nvrtcGetProgramLog(prog, log)
if log.value.strip(): print(log.value.decode())
assert rc == 0, rc
nv.nvrtcGetCUBINSize(prog, ctypes.byref(n))
buf = ctypes.create_string_buffer(n.value); nv.nvrtcGetCUBIN(prog, buf)
open(sys.argv[1], "wb").write(buf.raw)

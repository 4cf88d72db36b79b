#!/usr/bin/env python3
"""Dev tool: compile a .cu with NVRTC for sm_90 (as the engine does) and dump SASS.
usage: sass.py FILE.cu [-DX=1 ...] [--out f.cubin]; common.cuh is pasted in."""
import ctypes, sys, os, subprocess, re
lib = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/lib"
objdump = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump"
nv = ctypes.CDLL(os.path.join(lib, "libnvrtc.so.13"))
path = sys.argv[1]
defs = [a for a in sys.argv[2:] if a.startswith("-D")]
src = open(path).read()
common = open(os.path.join(os.path.dirname(path), "common.cuh")).read()
src = src.replace('#include "common.cuh"', common)
prog = ctypes.c_void_p()
assert nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None) == 0
opts = ["--gpu-architecture=sm_90", "--std=c++17", "--device-int128", "-Xptxas=-v"] + defs
arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
r = nv.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value)
nv.nvrtcGetProgramLog(prog, log)
sys.stderr.write(log.value.decode())
if r != 0:
    sys.exit(1)
nv.nvrtcGetCUBINSize(prog, ctypes.byref(n))
buf = ctypes.create_string_buffer(n.value)
nv.nvrtcGetCUBIN(prog, buf)
out = "/tmp/sass_k.cubin"
open(out, "wb").write(buf.raw)
print(subprocess.run([objdump, "-sass", out], capture_output=True, text=True).stdout)

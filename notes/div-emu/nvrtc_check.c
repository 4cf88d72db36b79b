// Compiles a .cu with NVRTC for sm_90 (as mparray does), prints the log
// (with ptxas -v: registers, spills) and writes the cubin.
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s file.cu out.cubin [opts]\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long sz = ftell(f); fseek(f, 0, SEEK_SET);
    char *src = malloc(sz + 1); fread(src, 1, sz, f); src[sz] = 0; fclose(f);
    nvrtcProgram p; nvrtcCreateProgram(&p, src, argv[1], 0, 0, 0);
    const char *opts[32]; int no = 0;
    opts[no++] = "--gpu-architecture=sm_90"; opts[no++] = "--std=c++17"; opts[no++] = "--device-int128";
    opts[no++] = "--ptxas-options=-v"; opts[no++] = "-I../../src/kernels";
    for (int i = 3; i < argc; i++) opts[no++] = argv[i];
    nvrtcResult r = nvrtcCompileProgram(p, no, opts);
    size_t ls; nvrtcGetProgramLogSize(p, &ls); char *log = malloc(ls + 1); nvrtcGetProgramLog(p, log); printf("%s\n", log);
    if (r != NVRTC_SUCCESS) { printf("FAILED: %s\n", nvrtcGetErrorString(r)); return 1; }
    size_t cs; nvrtcGetCUBINSize(p, &cs); char *cb = malloc(cs); nvrtcGetCUBIN(p, cb);
    FILE *o = fopen(argv[2], "wb"); fwrite(cb, 1, cs, o); fclose(o);
    return 0;
}

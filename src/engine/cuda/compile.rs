//! Run-time compilation of kernel sources with NVRTC, to a CUBIN for the
//! device's own architecture, cached on disk by (source, options, arch,
//! NVRTC version). Needs NVRTC only, not a GPU, so CI can compile every
//! kernel instantiation.

use std::ffi::{CStr, CString, c_char, c_int};
use std::path::{Path, PathBuf};

use cudarc::nvrtc::{result as nvrtc_result, sys as nvrtc_sys};

use crate::error::{Error, Result};

/// Is the NVRTC library loadable? (Checked before any call, since cudarc
/// panics on a missing library.)
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen candidate names.
    unsafe { nvrtc_sys::is_culib_present() }
}

/// NVRTC's version as (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    if !nvrtc_present() {
        return Err(Error::CudaUnavailable(
            "the NVRTC library (libnvrtc.so) was not found; install the CUDA toolkit or \
             `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let (mut major, mut minor) = (0 as c_int, 0 as c_int);
    // SAFETY: plain out-parameters.
    unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Error::CudaUnavailable(format!("nvrtcVersion failed: {e:?}")))?;
    Ok((major, minor))
}

/// The kernel cache folder: `$MPARRAY_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/mparray/kernels`, else `~/.cache/mparray/kernels`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("MPARRAY_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("mparray").join("kernels")
}

/// FNV-1a, 64 bits: a stable hash for cache file names.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Compiled code for one kernel instantiation, with the compiler's log.
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub log: String,
    pub from_cache: bool,
}

/// Compiles `source` (a complete translation unit) for `arch` (for example
/// `sm_90`) with extra `options`, through the disk cache at `cache`
/// (`None`: no cache).
pub fn compile(
    name: &str,
    source: &str,
    options: &[String],
    arch: &str,
    cache: Option<&Path>,
) -> Result<Compiled> {
    let (major, minor) = nvrtc_version()?;
    let mut opts: Vec<String> = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".into(),
        "--device-int128".into(),
    ];
    opts.extend(options.iter().cloned());
    let ver = format!("{major}.{minor}");
    let key = fnv1a(&[source.as_bytes(), opts.join(" ").as_bytes(), ver.as_bytes()]);
    let file = cache.map(|d| d.join(format!("{name}-{arch}-{key:016x}.cubin")));
    if let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok())
        && !bytes.is_empty()
    {
        return Ok(Compiled {
            cubin: bytes,
            log: String::new(),
            from_cache: true,
        });
    }
    let (cubin, log) = nvrtc_compile(name, source, &opts)?;
    if let (Some(f), Some(d)) = (&file, cache) {
        // The cache is an optimisation: failing to write it is not an error.
        if std::fs::create_dir_all(d).is_ok() {
            let tmp = f.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, &cubin).is_ok() {
                let _ = std::fs::rename(&tmp, f);
            }
        }
    }
    Ok(Compiled {
        cubin,
        log,
        from_cache: false,
    })
}

fn nvrtc_compile(name: &str, source: &str, opts: &[String]) -> Result<(Vec<u8>, String)> {
    let fail = |log: String| Error::Compile {
        kernel: name.to_string(),
        options: opts.to_vec(),
        log,
    };
    let src = CString::new(source).map_err(|_| fail("source contains a NUL byte".into()))?;
    let cname = CString::new(format!("{name}.cu")).map_err(|_| fail("bad kernel name".into()))?;
    let prog = nvrtc_result::create_program(&src, Some(&cname))
        .map_err(|e| fail(format!("nvrtcCreateProgram: {e:?}")))?;
    // SAFETY: prog is a live program until destroy_program below.
    let out = unsafe {
        let compiled = nvrtc_result::compile_program(prog, opts);
        let log = program_log(prog);
        match compiled {
            Err(e) => Err(fail(format!("{e:?}\n{log}"))),
            Ok(()) => {
                let mut size = 0usize;
                let r = nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size).result();
                if let Err(e) = r {
                    Err(fail(format!("nvrtcGetCUBINSize: {e:?}")))
                } else {
                    let mut buf = vec![0u8; size];
                    match nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char).result() {
                        Err(e) => Err(fail(format!("nvrtcGetCUBIN: {e:?}"))),
                        Ok(()) => Ok((buf, log)),
                    }
                }
            }
        }
    };
    // SAFETY: created above, destroyed once.
    let _ = unsafe { nvrtc_result::destroy_program(prog) };
    out
}

unsafe fn program_log(prog: nvrtc_sys::nvrtcProgram) -> String {
    // SAFETY: caller passes a live program.
    match unsafe { nvrtc_result::get_program_log(prog) } {
        Ok(raw) => {
            // SAFETY: NVRTC returns a NUL-terminated string.
            let s = unsafe { CStr::from_ptr(raw.as_ptr()) };
            s.to_string_lossy().trim().to_string()
        }
        Err(e) => format!("(no log: {e:?})"),
    }
}

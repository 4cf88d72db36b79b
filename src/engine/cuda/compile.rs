//! Run-time compilation of kernel sources with NVRTC, to a CUBIN for the
//! device's own architecture, cached on disk by (source, options, arch,
//! NVRTC version). Needs NVRTC only, not a GPU, so CI can compile every
//! kernel instantiation.

use std::ffi::{CStr, CString, c_char, c_int};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

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

/// NVRTC's options for `arch` plus the instance's `options`.
fn full_options(options: &[String], arch: &str) -> Vec<String> {
    let mut opts: Vec<String> = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".into(),
        "--device-int128".into(),
    ];
    opts.extend(options.iter().cloned());
    opts
}

/// The cache file of `source` compiled for `arch` with `options` in the
/// cache folder `cache`: `{name}-{arch}-{key}.cubin`, the key FNV-1a of the
/// source, the options and NVRTC's version.
pub fn cache_file(
    name: &str,
    source: &str,
    options: &[String],
    arch: &str,
    cache: &Path,
) -> Result<PathBuf> {
    let (major, minor) = nvrtc_version()?;
    let opts = full_options(options, arch);
    let ver = format!("{major}.{minor}");
    let key = fnv1a(&[source.as_bytes(), opts.join(" ").as_bytes(), ver.as_bytes()]);
    Ok(cache.join(format!("{name}-{arch}-{key:016x}.cubin")))
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
    compile_with(name, source, options, arch, cache, true)
}

/// [`compile`] without reading the cache (its file is replaced): for a
/// cached CUBIN the driver refused (a damaged file).
pub fn recompile(
    name: &str,
    source: &str,
    options: &[String],
    arch: &str,
    cache: Option<&Path>,
) -> Result<Compiled> {
    compile_with(name, source, options, arch, cache, false)
}

/// The counter of [`store`]'s temporary files.
static TMP_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Writes `bytes` to the cache file `f` through a temporary file of its own
/// (process id and a counter) renamed into place, so that a reader sees no
/// file or a whole one, even when threads of one process store the same
/// module at once. Failures are ignored (the cache is an optimisation).
fn store(f: &Path, bytes: &[u8]) {
    let n = TMP_SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = f.with_extension(format!("tmp{}-{n}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, f).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

fn compile_with(
    name: &str,
    source: &str,
    options: &[String],
    arch: &str,
    cache: Option<&Path>,
    read: bool,
) -> Result<Compiled> {
    let opts = full_options(options, arch);
    let file = match cache {
        Some(d) => Some(cache_file(name, source, options, arch, d)?),
        None => {
            nvrtc_version()?;
            None
        }
    };
    if let Some(bytes) = file
        .as_ref()
        .filter(|_| read)
        .and_then(|f| std::fs::read(f).ok())
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
            store(f, &cubin);
        }
    }
    Ok(Compiled {
        cubin,
        log,
        from_cache: false,
    })
}

/// [`compile`] for a first use: when it lasts longer than a second, one
/// line on standard error says why the operation waits (once per process;
/// `MPARRAY_QUIET=1` silences it). `mparray kernels compile` calls
/// [`compile`] itself, which prints nothing.
pub fn compile_noticed(
    name: &str,
    source: &str,
    options: &[String],
    arch: &str,
    cache: Option<&Path>,
) -> Result<Compiled> {
    if NOTICED.load(Ordering::Relaxed) || quiet() {
        return compile(name, source, options, arch, cache);
    }
    let arch2 = arch.to_string();
    watch(
        Duration::from_secs(1),
        move || {
            if !NOTICED.swap(true, Ordering::Relaxed) {
                eprintln!("{}", notice(&arch2));
            }
        },
        || compile(name, source, options, arch, cache),
    )
}

/// Whether the first-use notice was printed in this process.
static NOTICED: AtomicBool = AtomicBool::new(false);

/// Whether this process printed the first-use notice.
pub fn noticed() -> bool {
    NOTICED.load(Ordering::Relaxed)
}

/// `MPARRAY_QUIET` set to anything but empty or `0`.
fn quiet() -> bool {
    std::env::var_os("MPARRAY_QUIET").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The first-use notice for `arch`.
pub fn notice(arch: &str) -> String {
    format!(
        "mparray: compiling CUDA kernels for {arch} (first use only; \
         `mparray kernels compile --cache` warms a machine)"
    )
}

/// Runs `f`; if it has not returned after `after`, a watcher thread calls
/// `on_slow` (once, while `f` goes on). Returns `f`'s value once both are
/// done.
pub fn watch<T>(after: Duration, on_slow: impl FnOnce() + Send, f: impl FnOnce() -> T) -> T {
    let (done, wait) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(after) {
                on_slow();
            }
        });
        let r = f();
        drop(done);
        r
    })
}

/// NVRTC's front end only (`-fdevice-syntax-only`: preprocessing, parsing,
/// template instantiation, its errors and warnings; no code generation, a
/// twentieth of a second for a function module); returns the log. CI
/// checks the one-family function modules this way (notes/kernels.md).
pub fn check_front_end(name: &str, source: &str, options: &[String], arch: &str) -> Result<String> {
    nvrtc_version()?;
    let mut opts = full_options(options, arch);
    opts.push("-fdevice-syntax-only".into());
    nvrtc_run(name, source, &opts, false).map(|(_, log)| log)
}

fn nvrtc_compile(name: &str, source: &str, opts: &[String]) -> Result<(Vec<u8>, String)> {
    nvrtc_run(name, source, opts, true)
}

/// One NVRTC program: compiled with `opts`, its CUBIN (`cubin`; else
/// empty) and log.
fn nvrtc_run(name: &str, source: &str, opts: &[String], cubin: bool) -> Result<(Vec<u8>, String)> {
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
            Ok(()) if !cubin => Ok((Vec::new(), log)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Threads store different contents into one cache file at once while
    /// another reads it: every read finds no file or one whole content (a
    /// shared temporary file would show truncated or mixed ones).
    #[test]
    fn store_never_shows_a_partial_file() {
        let dir = std::env::temp_dir().join(format!("mparray-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("m.cubin");
        let len = 1 << 18;
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let reader = {
            let (f, stop) = (f.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut seen = 0;
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(b) = std::fs::read(&f) {
                        assert_eq!(b.len(), len, "a partial cache file was read");
                        assert!(b.iter().all(|&x| x == b[0]), "a mixed cache file was read");
                        seen += 1;
                    }
                }
                seen
            })
        };
        let writers: Vec<_> = (0..8u8)
            .map(|t| {
                let f = f.clone();
                std::thread::spawn(move || {
                    let bytes = vec![t + 1; len];
                    for _ in 0..40 {
                        store(&f, &bytes);
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
        let seen = reader.join().unwrap();
        assert!(seen > 0, "the reader never found the file");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "temporary files left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A closure slower than the limit gets the notice once, and only
    /// after the limit (it waits for the watcher's call, so no timing
    /// decides the outcome).
    #[test]
    fn watch_calls_on_slow_once_for_a_slow_closure() {
        let calls = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<()>();
        let r = watch(
            Duration::from_millis(10),
            || {
                calls.fetch_add(1, Ordering::SeqCst);
                tx.send(()).unwrap();
            },
            || rx.recv_timeout(Duration::from_secs(600)).is_ok(),
        );
        assert!(r, "the slow closure saw the watcher's call");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    /// A closure that returns first: no call, and `watch` returns at once
    /// (the watcher is released when the closure ends, not at the limit).
    #[test]
    fn watch_is_silent_for_a_fast_closure() {
        let calls = AtomicUsize::new(0);
        let r = watch(
            Duration::from_secs(600),
            || {
                calls.fetch_add(1, Ordering::SeqCst);
            },
            || 7,
        );
        assert_eq!(r, 7);
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn notice_names_the_architecture_and_the_warm_up_command() {
        let n = notice("sm_90");
        assert!(
            n.starts_with("mparray: compiling CUDA kernels for sm_90"),
            "{n}"
        );
        assert!(n.contains("mparray kernels compile --cache"), "{n}");
        assert!(!n.contains('\n'));
    }
}

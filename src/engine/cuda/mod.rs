//! The CUDA engine: one device context and stream, and a registry of kernel
//! modules compiled by NVRTC on first use and cached (in memory here, on disk
//! in [`compile`]).
//!
//! Nothing here needs CUDA at build time: the driver and NVRTC are loaded at
//! run time, and their absence is an [`Error::CudaUnavailable`], not a panic.

pub mod compile;
pub mod memory;
pub mod pool;

use std::any::Any;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys as drv;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::error::{Error, Result};
use crate::kernels::Instance;

/// Background compiles of this process: key -> finished and succeeded.
fn background() -> &'static Mutex<HashMap<String, bool>> {
    static B: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    B.get_or_init(Default::default)
}

/// How many background compiles are still running, and a signal when one
/// ends.
fn in_flight() -> &'static (Mutex<usize>, std::sync::Condvar) {
    static F: OnceLock<(Mutex<usize>, std::sync::Condvar)> = OnceLock::new();
    F.get_or_init(Default::default)
}

/// Whether a background compile is still running in this process.
pub fn compiling_in_background() -> bool {
    *in_flight().0.lock().unwrap_or_else(|p| p.into_inner()) > 0
}

/// Waits (at most `limit`) until no background compile runs.
pub fn wait_for_background(limit: std::time::Duration) {
    let (m, cv) = in_flight();
    let end = std::time::Instant::now() + limit;
    let mut n = m.lock().unwrap_or_else(|p| p.into_inner());
    while *n > 0 {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        n = cv
            .wait_timeout(n, left)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

/// The background compiles' slots: a quarter of the cores compile at once
/// (the others stay for the process's own first-use compiles and work).
fn background_slots() -> &'static pool::Slots {
    static S: OnceLock<pool::Slots> = OnceLock::new();
    S.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        pool::Slots::new(cores / 4)
    })
}

/// Run by libc's `exit`: a process must not unload NVRTC while a thread is
/// inside it (its static destructors run at exit; a compile in flight then
/// crashed the process after its last result). Compiles still waiting for
/// a slot are dropped (a later process starts them again).
extern "C" fn wait_at_exit() {
    background_slots().close();
    wait_for_background(std::time::Duration::from_secs(300));
}

/// What `mparray info` prints about a device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sms: i32,
    pub memory_bytes: usize,
    pub l2_bytes: i32,
    pub max_shared_per_block_optin: i32,
    pub driver_version: i32,
    pub nvrtc_version: (i32, i32),
    pub cache_dir: Option<PathBuf>,
}

impl DeviceInfo {
    /// The architecture NVRTC compiles for, e.g. `sm_90`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// One CUDA device with its stream and kernel registry.
pub struct CudaEngine {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    /// Device-resident data built once per engine (twiddle tables and the
    /// like), keyed by a name chosen by the owner.
    resources: Mutex<HashMap<&'static str, Arc<dyn Any + Send + Sync>>>,
    /// The device's default memory pool (every allocation of this crate
    /// comes from it), as an address; 0 when the driver gave none.
    pool: usize,
    /// Bytes this process may hold on the device (`u64::MAX`: no limit).
    mem_limit: AtomicU64,
}

static SHARED: OnceLock<std::result::Result<Arc<CudaEngine>, String>> = OnceLock::new();

fn unavailable(msg: impl Into<String>) -> Error {
    Error::CudaUnavailable(msg.into())
}

/// Lets the stream-ordered allocator keep freed memory for reuse instead of
/// returning it at every synchronisation, so temporaries cost no driver call
/// in steady state (like PyTorch's caching allocator).
/// Returns the pool (null if the driver gave none).
fn keep_freed_memory(ctx: &Arc<CudaContext>) -> drv::CUmemoryPool {
    let mut pool: drv::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: out-parameter; the attribute value is a u64 as the API requires.
    unsafe {
        if drv::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == drv::CUresult::CUDA_SUCCESS
        {
            let mut threshold: u64 = u64::MAX;
            let _ = drv::cuMemPoolSetAttribute(
                pool,
                drv::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut std::ffi::c_void,
            );
        } else {
            pool = std::ptr::null_mut();
        }
    }
    pool
}

/// The device memory limit from `MPARRAY_CUDA_MEM_LIMIT` (bytes, K/M/G
/// suffix allowed), if set.
fn env_mem_limit() -> Result<Option<u64>> {
    match std::env::var("MPARRAY_CUDA_MEM_LIMIT") {
        Ok(s) => crate::engine::parse_bytes(&s)
            .map(|b| Some(b as u64))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "MPARRAY_CUDA_MEM_LIMIT={s:?}: expected a number of bytes (suffix K, M or G allowed)"
                ))
            }),
        Err(_) => Ok(None),
    }
}

impl CudaEngine {
    /// The engine for device 0, created once per process.
    pub fn shared() -> Result<Arc<CudaEngine>> {
        SHARED
            .get_or_init(|| {
                // cudarc panics on some missing-library paths; never let that escape.
                match std::panic::catch_unwind(|| CudaEngine::new(0)) {
                    Ok(Ok(e)) => Ok(e),
                    Ok(Err(e)) => Err(match e {
                        Error::CudaUnavailable(m) => m,
                        other => other.to_string(),
                    }),
                    Err(_) => Err("the CUDA libraries could not be loaded".to_string()),
                }
            })
            .clone()
            .map_err(Error::CudaUnavailable)
    }

    /// Opens device `ordinal`.
    pub fn new(ordinal: usize) -> Result<Arc<CudaEngine>> {
        // SAFETY: only tries to dlopen candidate names.
        if !unsafe { drv::is_culib_present() } {
            return Err(unavailable(
                "no NVIDIA driver library (libcuda.so) was found on this machine",
            ));
        }
        let mut driver_version = 0;
        // SAFETY: plain out-parameter.
        unsafe { drv::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| unavailable(format!("the NVIDIA driver does not answer: {e}")))?;
        let count = CudaContext::device_count()
            .map_err(|e| unavailable(format!("the NVIDIA driver found no usable device: {e}")))?;
        if count <= 0 {
            return Err(unavailable("the NVIDIA driver reports no CUDA device"));
        }
        if ordinal as i32 >= count {
            return Err(unavailable(format!(
                "device {ordinal} requested but only {count} present"
            )));
        }
        let nvrtc_version = compile::nvrtc_version()?;
        let limit = env_mem_limit().map_err(|e| unavailable(e.to_string()))?;
        let ctx = CudaContext::new(ordinal).map_err(|e| {
            unavailable(format!("cannot create a context on device {ordinal}: {e}"))
        })?;
        let attr = |a| ctx.attribute(a).unwrap_or(0);
        use drv::CUdevice_attribute as A;
        let info = DeviceInfo {
            ordinal,
            name: ctx.name().unwrap_or_else(|_| "unknown".into()),
            compute_capability: ctx.compute_capability().unwrap_or((0, 0)),
            sms: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            memory_bytes: ctx.total_mem().unwrap_or(0),
            l2_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
            max_shared_per_block_optin: attr(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            ),
            driver_version,
            nvrtc_version,
            cache_dir: Some(compile::cache_dir()),
        };
        // One stream for everything: cudarc's per-buffer event tracking is
        // not needed, and it costs an event per allocation.
        // SAFETY: all work of this engine is queued on the one stream below.
        unsafe { ctx.disable_event_tracking() };
        let pool = keep_freed_memory(&ctx) as usize;
        let stream = ctx.default_stream();
        Ok(Arc::new(CudaEngine {
            ctx,
            stream,
            info,
            modules: Mutex::new(HashMap::new()),
            resources: Mutex::new(HashMap::new()),
            pool,
            mem_limit: AtomicU64::new(limit.unwrap_or(u64::MAX)),
        }))
    }

    /// The device memory this process may hold (bytes), if limited:
    /// `MPARRAY_CUDA_MEM_LIMIT` when the engine was made, or
    /// [`CudaEngine::set_mem_limit`]. Allocations past it fail with
    /// [`Error::DeviceMemory`], and operations that can run in chunks do.
    pub fn mem_limit(&self) -> Option<u64> {
        match self.mem_limit.load(Ordering::Relaxed) {
            u64::MAX => None,
            l => Some(l),
        }
    }

    /// Sets (or with `None` lifts) the limit of [`CudaEngine::mem_limit`];
    /// it counts every allocation on the device by this process.
    pub fn set_mem_limit(&self, bytes: Option<u64>) {
        self.mem_limit
            .store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// One attribute of the memory pool (0 when there is no pool).
    fn pool_attr(&self, a: drv::CUmemPool_attribute) -> u64 {
        if self.pool == 0 {
            return 0;
        }
        let mut v: u64 = 0;
        // SAFETY: the pool is the device's default one (lives as long as the
        // context); the attribute is a u64 as the API requires.
        let r = unsafe {
            drv::cuMemPoolGetAttribute(
                self.pool as drv::CUmemoryPool,
                a,
                &mut v as *mut u64 as *mut std::ffi::c_void,
            )
        };
        if r == drv::CUresult::CUDA_SUCCESS {
            v
        } else {
            0
        }
    }

    /// Bytes of device memory this process holds in allocations now (the
    /// memory pool's count: freed buffers leave it when their free is
    /// queued).
    pub fn used_bytes(&self) -> u64 {
        self.pool_attr(drv::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
    }

    /// Bytes a new allocation can have now: the driver's free memory plus
    /// what the pool keeps for reuse, and no more than the limit leaves.
    pub fn free_bytes(&self) -> u64 {
        use drv::CUmemPool_attribute as P;
        let used = self.used_bytes();
        let kept = self
            .pool_attr(P::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
            .saturating_sub(used);
        let driver = self
            .ctx
            .mem_get_info()
            .map(|(free, _)| free as u64 + kept)
            .unwrap_or(u64::MAX);
        match self.mem_limit() {
            Some(l) => driver.min(l.saturating_sub(used)),
            None => driver,
        }
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every operation of this engine is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(Error::driver("synchronize"))
    }

    /// The resource `key` of this engine, made by `init` on first use and
    /// kept for the engine's lifetime (so it is freed with the engine, and two
    /// engines never share one). `key` must always name the same type `T`.
    /// `init` runs without the registry's lock (it may run rayon work or
    /// device work whose callers enter here again; a lock held across it
    /// could deadlock): two threads may both make the resource, and the
    /// first one stored is kept.
    pub fn resource<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        init: impl FnOnce(&CudaEngine) -> Result<T>,
    ) -> Result<Arc<T>> {
        let typed = |r: Arc<dyn Any + Send + Sync>| {
            r.downcast::<T>().map_err(|_| {
                Error::Invalid(format!(
                    "engine resource {key:?} requested with another type"
                ))
            })
        };
        let lock = || self.resources.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = lock().get(key).cloned() {
            return typed(r);
        }
        let made: Arc<dyn Any + Send + Sync> = Arc::new(init(self)?);
        let r = lock().entry(key).or_insert(made).clone();
        typed(r)
    }

    /// Whether the module of `inst` is at hand without NVRTC: loaded, or
    /// in the disk cache.
    pub fn is_ready(&self, inst: &Instance) -> bool {
        let loaded = self
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(&inst.key());
        loaded || self.cache_path(inst).is_some_and(|f| f.is_file())
    }

    /// Where `inst`'s CUBIN is kept in the disk cache (None without a
    /// cache, or without NVRTC to name its version).
    pub fn cache_path(&self, inst: &Instance) -> Option<std::path::PathBuf> {
        let d = self.info.cache_dir.as_deref()?;
        compile::cache_file(
            inst.source.name,
            &inst.full_source(),
            &inst.options(),
            &self.info.arch(),
            d,
        )
        .ok()
    }

    /// Compiles `inst` into the disk cache on a thread of its own, once per
    /// key and process, so that a later [`CudaEngine::is_ready`] finds it;
    /// a quarter of the cores compile at once, the others wait in line
    /// (dropped at exit).
    /// Nothing happens without a disk cache. A failed compile is dropped:
    /// the module in use stays. Used to replace a first-use module
    /// (`--Ofast-compile`) by the fully optimised one without making the
    /// first result wait for it.
    pub fn compile_in_background(&self, inst: &Instance) {
        let Some(dir) = self.info.cache_dir.clone() else {
            return;
        };
        // MPARRAY_BG_COMPILE=0: first-use modules only (test runs on an
        // empty cache; `kernels compile --cache` fills it instead).
        if std::env::var("MPARRAY_BG_COMPILE").as_deref() == Ok("0") {
            return;
        }
        let key = inst.key();
        {
            let mut started = background().lock().unwrap_or_else(|p| p.into_inner());
            if started.contains_key(&key) {
                return;
            }
            started.insert(key.clone(), false);
        }
        let (name, src, opts, arch) = (
            inst.source.name,
            inst.full_source(),
            inst.options(),
            self.info.arch(),
        );
        // Registered after NVRTC was loaded (the first-use compile came
        // first), so it runs before NVRTC's own exit handlers.
        static AT_EXIT: std::sync::Once = std::sync::Once::new();
        AT_EXIT.call_once(|| {
            unsafe extern "C" {
                fn atexit(f: extern "C" fn()) -> i32;
            }
            // SAFETY: registers a plain function with libc.
            unsafe { atexit(wait_at_exit) };
        });
        *in_flight().0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let spawned = std::thread::Builder::new()
            .name("mparray-nvrtc".into())
            .spawn(move || {
                let slots = background_slots();
                let ok = slots.acquire() && {
                    let ok = compile::compile(name, &src, &opts, &arch, Some(&dir)).is_ok();
                    slots.release();
                    ok
                };
                background()
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(key, ok);
                let (m, cv) = in_flight();
                *m.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
                cv.notify_all();
            });
        if spawned.is_err() {
            *in_flight().0.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        }
    }

    /// Whether a [`CudaEngine::compile_in_background`] of `inst` finished
    /// and succeeded in this process.
    pub fn compiled_in_background(inst: &Instance) -> bool {
        background()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&inst.key())
            .copied()
            .unwrap_or(false)
    }

    /// The keys of the modules loaded by this engine.
    pub fn loaded_keys(&self) -> Vec<String> {
        let mut k: Vec<String> = self
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    }

    /// The kernel `func` of instantiation `inst`, compiling and loading the
    /// module on first use (a compile longer than a second prints
    /// `compile::notice` once per process).
    pub fn function(&self, inst: &Instance, func: &str) -> Result<CudaFunction> {
        let key = inst.key();
        let module = {
            let mut map = self.modules.lock().unwrap_or_else(|p| p.into_inner());
            match map.get(&key) {
                Some(m) => m.clone(),
                None => {
                    let (name, src, opts, arch) = (
                        inst.source.name,
                        inst.full_source(),
                        inst.options(),
                        self.info.arch(),
                    );
                    let cache = self.info.cache_dir.as_deref();
                    let compiled = compile::compile_noticed(name, &src, &opts, &arch, cache)?;
                    let from_cache = compiled.from_cache;
                    let m = match self.ctx.load_module(Ptx::from_binary(compiled.cubin)) {
                        Ok(m) => m,
                        // A cached CUBIN the driver refuses (a damaged
                        // file): compiled again, the file replaced.
                        Err(_) if from_cache => {
                            let again = compile::recompile(name, &src, &opts, &arch, cache)?;
                            self.ctx
                                .load_module(Ptx::from_binary(again.cubin))
                                .map_err(Error::driver(format!("loading module {key}")))?
                        }
                        Err(e) => return Err(Error::driver(format!("loading module {key}"))(e)),
                    };
                    map.insert(key.clone(), m.clone());
                    m
                }
            }
        };
        module
            .load_function(func)
            .map_err(Error::driver(format!("looking up kernel {func} in {key}")))
    }
}

//! The CUDA engine: one device context and stream, and a registry of kernel
//! modules compiled by NVRTC on first use and cached (in memory here, on disk
//! in [`compile`]).
//!
//! Nothing here needs CUDA at build time: the driver and NVRTC are loaded at
//! run time, and their absence is an [`Error::CudaUnavailable`], not a panic.

pub mod compile;
pub mod memory;

use std::any::Any;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys as drv;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::error::{Error, Result};
use crate::kernels::Instance;

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
}

static SHARED: OnceLock<std::result::Result<Arc<CudaEngine>, String>> = OnceLock::new();

fn unavailable(msg: impl Into<String>) -> Error {
    Error::CudaUnavailable(msg.into())
}

/// Lets the stream-ordered allocator keep freed memory for reuse instead of
/// returning it at every synchronisation, so temporaries cost no driver call
/// in steady state (like PyTorch's caching allocator).
fn keep_freed_memory(ctx: &Arc<CudaContext>) {
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
        }
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
        keep_freed_memory(&ctx);
        let stream = ctx.default_stream();
        Ok(Arc::new(CudaEngine {
            ctx,
            stream,
            info,
            modules: Mutex::new(HashMap::new()),
            resources: Mutex::new(HashMap::new()),
        }))
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
    pub fn resource<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        init: impl FnOnce(&CudaEngine) -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut map = self.resources.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = map.get(key) {
            return r.clone().downcast::<T>().map_err(|_| {
                Error::Invalid(format!(
                    "engine resource {key:?} requested with another type"
                ))
            });
        }
        let r = Arc::new(init(self)?);
        map.insert(key, r.clone());
        Ok(r)
    }

    /// Whether the module of `inst` is at hand without NVRTC: loaded, or
    /// in the disk cache.
    pub fn is_ready(&self, inst: &Instance) -> bool {
        let loaded = self
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(&inst.key());
        loaded
            || self.info.cache_dir.as_deref().is_some_and(|d| {
                compile::cache_file(
                    inst.source.name,
                    &inst.full_source(),
                    &inst.options(),
                    &self.info.arch(),
                    d,
                )
                .is_ok_and(|f| f.is_file())
            })
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
                    let compiled = compile::compile_noticed(
                        inst.source.name,
                        &inst.full_source(),
                        &inst.options(),
                        &self.info.arch(),
                        self.info.cache_dir.as_deref(),
                    )?;
                    let m = self
                        .ctx
                        .load_module(Ptx::from_binary(compiled.cubin))
                        .map_err(Error::driver(format!("loading module {key}")))?;
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

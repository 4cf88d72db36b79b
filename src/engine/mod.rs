//! Engines: where arrays live and operations run.
//!
//! [`Engine::Cpu`] is always there and uses all cores (rayon). [`Engine::Cuda`]
//! wraps one GPU, found at run time; if there is none, [`Engine::best`] falls
//! back to the CPU and [`cuda_status`] says why in plain words.

pub mod cuda;
pub mod host;

use std::fmt;
use std::sync::Arc;

pub use cuda::CudaEngine;
pub use host::parse_bytes;

/// The engine moves every array type has, from its `engine()` and
/// `to_engine`: `into_engine`, `to_host`, `to_device`, `try_clone`.
macro_rules! engine_moves {
    ($t:ty) => {
        /// `self` on `engine`: moved without a copy when already there,
        /// else copied there.
        pub fn into_engine(self, engine: &$crate::engine::Engine) -> $crate::error::Result<$t> {
            if self.engine().same_as(engine) {
                Ok(self)
            } else {
                self.to_engine(engine)
            }
        }

        /// A copy on the CPU.
        pub fn to_host(&self) -> $crate::error::Result<$t> {
            self.to_engine(&$crate::engine::Engine::Cpu)
        }

        /// A copy on the first CUDA device.
        pub fn to_device(&self) -> $crate::error::Result<$t> {
            self.to_engine(&$crate::engine::Engine::cuda()?)
        }

        /// A copy on the same engine.
        pub fn try_clone(&self) -> $crate::error::Result<$t> {
            self.to_engine(&self.engine())
        }
    };
}
pub(crate) use engine_moves;

use crate::error::{Error, Result};

/// An engine: the CPU, or one CUDA device.
#[derive(Clone)]
pub enum Engine {
    Cpu,
    Cuda(Arc<CudaEngine>),
}

impl Engine {
    /// The CPU engine.
    pub fn cpu() -> Engine {
        Engine::Cpu
    }

    /// The first CUDA device (shared, created on first use).
    pub fn cuda() -> Result<Engine> {
        Ok(Engine::Cuda(CudaEngine::shared()?))
    }

    /// CUDA if usable, else the CPU.
    pub fn best() -> Engine {
        Engine::cuda().unwrap_or(Engine::Cpu)
    }

    /// Parses `cpu`, `cuda` or `auto`/`best`.
    pub fn from_name(name: &str) -> Result<Engine> {
        match name {
            "cpu" => Ok(Engine::Cpu),
            "cuda" | "gpu" => Engine::cuda(),
            "auto" | "best" => Ok(Engine::best()),
            other => Err(Error::Invalid(format!(
                "unknown engine {other:?}: expected cpu, cuda or auto"
            ))),
        }
    }

    /// A short name: `cpu` or `cuda`.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::Cuda(_) => "cuda",
        }
    }

    pub fn is_cuda(&self) -> bool {
        matches!(self, Engine::Cuda(_))
    }

    /// Same engine (the CPU, or the same CUDA context)?
    pub fn same_as(&self, other: &Engine) -> bool {
        match (self, other) {
            (Engine::Cpu, Engine::Cpu) => true,
            (Engine::Cuda(a), Engine::Cuda(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Waits for the work queued on this engine (nothing to wait for on
    /// the CPU).
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Engine::Cpu => Ok(()),
            Engine::Cuda(c) => c.synchronize(),
        }
    }

    /// Runs `f` and returns its milliseconds with its result: wall clock
    /// on the CPU; on CUDA the time between two device events around the
    /// work `f` queues, waited for.
    pub fn time<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<(f64, T)> {
        match self {
            Engine::Cpu => {
                let t = std::time::Instant::now();
                let out = f()?;
                Ok((t.elapsed().as_secs_f64() * 1e3, out))
            }
            Engine::Cuda(eng) => {
                use cudarc::driver::sys::CUevent_flags;
                let ctx = eng.context();
                let ev = || {
                    ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                        .map_err(Error::driver("creating an event"))
                };
                let (start, end) = (ev()?, ev()?);
                start
                    .record(eng.stream())
                    .map_err(Error::driver("recording an event"))?;
                let out = f()?;
                end.record(eng.stream())
                    .map_err(Error::driver("recording an event"))?;
                end.synchronize()
                    .map_err(Error::driver("waiting for an event"))?;
                let ms = start
                    .elapsed_ms(&end)
                    .map_err(Error::driver("reading an event"))?;
                Ok((ms as f64, out))
            }
        }
    }

    /// A one-line description (device name, or the number of CPU threads).
    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Engine::Cuda(c) => format!("cuda ({})", c.info().name),
        }
    }
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Whether CUDA is usable here: the device description, or why not.
pub fn cuda_status() -> Result<Arc<CudaEngine>> {
    CudaEngine::shared()
}

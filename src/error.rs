//! One error type for the whole crate: every failure is a value that says
//! what went wrong and, where it concerns one element, which one.

use thiserror::Error;

/// Everything that can go wrong in mparray.
#[derive(Debug, Error)]
pub enum Error {
    /// A number could not be parsed; `index` is the element (0-based).
    #[error("element {index}: cannot parse {text:?}: {reason}")]
    Parse {
        index: usize,
        text: String,
        reason: String,
    },
    /// A value needs more bits than the array's width.
    #[error("element {index}: value needs {needed} bits but the width is {width} bits")]
    TooWide {
        index: usize,
        needed: u64,
        width: u64,
    },
    /// The width is not a positive multiple of 64 within the supported range.
    #[error("invalid width {bits} bits: widths are multiples of 64 from 64 to {max}")]
    BadWidth { bits: u64, max: u64 },
    /// Two operands disagree in width or length, or a buffer has the wrong size.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// The operands live on different engines.
    #[error("operands are on different engines ({0} and {1}); move one with to_engine()")]
    EngineMismatch(String, String),
    /// A divisor is zero; `index` is the first such element.
    #[error("division by zero at element {index}")]
    DivisionByZero { index: usize },
    /// CUDA is not usable; the text says why in plain words.
    #[error("CUDA is not available: {0}")]
    CudaUnavailable(String),
    /// A CUDA driver call failed.
    #[error("CUDA driver error during {what}: {source}")]
    Driver {
        what: String,
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// NVRTC could not compile a kernel; carries the compiler's log.
    #[error("NVRTC failed to compile {kernel} with options {options:?}:\n{log}")]
    Compile {
        kernel: String,
        options: Vec<String>,
        log: String,
    },
    /// A device allocation of `op` does not fit: `requested` bytes against
    /// `free` (the driver's free memory plus what the allocator holds for
    /// reuse, or what `MPARRAY_CUDA_MEM_LIMIT` leaves).
    #[error(
        "out of GPU memory in {op}: needs {}, {} free",
        crate::engine::host::human_bytes(*requested),
        crate::engine::host::human_bytes(*free)
    )]
    DeviceMemory {
        op: String,
        requested: u64,
        free: u64,
    },
    /// A host allocation of `op` cannot be made (`why` says whose limit).
    #[error(
        "out of host memory in {op}: needs {} ({why})",
        crate::engine::host::human_bytes(*requested)
    )]
    HostMemory {
        op: String,
        requested: u64,
        why: String,
    },
    /// An I/O error, with the path involved.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Invalid argument to an operation or command.
    #[error("{0}")]
    Invalid(String),
    /// A wait for the device's result ended without it (a stall past
    /// `MPARRAY_CUDA_WAIT_S`, or a kernel that finished without writing
    /// its status); names what was awaited.
    #[error("device wait: {0}")]
    DeviceWait(String),
    /// Another MPI rank failed (feature `mpi`).
    #[error("rank {rank}: {message}")]
    Remote { rank: usize, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps a driver error with a short description of the call.
    pub fn driver(what: impl Into<String>) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        let what = what.into();
        move |source| Error::Driver { what, source }
    }
}

/// The failure of a command (the CLI, a benchmark), mapped to an exit
/// status: bad input exits with 2, anything else with 1.
#[derive(Debug)]
pub enum CommandError {
    /// Bad input (exit status 2).
    Input(String),
    /// Anything else (exit status 1).
    Other(String),
}

impl From<Error> for CommandError {
    fn from(e: Error) -> Self {
        match e {
            Error::Parse { .. }
            | Error::TooWide { .. }
            | Error::BadWidth { .. }
            | Error::Shape(_)
            | Error::DivisionByZero { .. }
            | Error::EngineMismatch(..)
            | Error::Invalid(_) => CommandError::Input(e.to_string()),
            other => CommandError::Other(other.to_string()),
        }
    }
}

impl CommandError {
    /// The engine named on a command line (`cpu`, `cuda`, `auto`): an
    /// unknown name is bad input, an unusable CUDA any other failure.
    pub fn engine(name: &str) -> Result<crate::engine::Engine, CommandError> {
        crate::engine::Engine::from_name(name).map_err(|e| match e {
            Error::Invalid(m) => CommandError::Input(m),
            other => CommandError::Other(other.to_string()),
        })
    }
}

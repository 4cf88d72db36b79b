//! Shared setup of the kernel-cache tests (first_use_cuda,
//! kernel_cache_cuda): a CUDA engine on an empty cache folder and an exp
//! case with the CPU engine's results.

use std::sync::Arc;

use mparray::engine::CudaEngine;
use mparray::float::func::Func;
use mparray::float::func::cuda as fcuda;
use mparray::kernels::Instance;
use mparray::{Engine, FloatArray, Round};

/// `len` random exp inputs at `p` bits on a CUDA engine whose kernel cache
/// is a new, empty folder (`MPARRAY_CACHE_DIR`, removed on drop), their
/// exp by the CPU engine, and exp's two candidate modules: the first-use
/// one and the optimised one. Only for a test binary's only test: the
/// variable is set before any engine or thread reads it.
pub struct FreshCacheExp {
    pub dir: std::path::PathBuf,
    pub eng: Engine,
    pub p: u64,
    pub xd: FloatArray,
    pub want: FloatArray,
    pub fast: Instance,
    pub full: Instance,
}

impl FreshCacheExp {
    pub fn new(tag: &str, p: u64, len: usize) -> FreshCacheExp {
        let dir = std::env::temp_dir().join(format!("mparray-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // SAFETY: the binary's only test; set before any engine or thread
        // reads it.
        unsafe { std::env::set_var("MPARRAY_CACHE_DIR", &dir) };
        let eng = Engine::cuda().unwrap();
        let x = FloatArray::random_uniform(
            &Engine::Cpu,
            len,
            p,
            super::seed(),
            -4.0,
            4.0,
            Round::Nearest,
        )
        .unwrap();
        let want = x.func(Func::Exp, p, Round::Nearest).unwrap();
        let xd = x.into_engine(&eng).unwrap();
        let code = fcuda::device_code(Func::Exp).unwrap();
        let k = fcuda::tier_of(code, p, xd.limbs_per_element()).unwrap();
        let fast = fcuda::inst_only(k, code);
        let full = fast.clone().optimised();
        FreshCacheExp {
            dir,
            eng,
            p,
            xd,
            want,
            fast,
            full,
        }
    }

    /// The CUDA engine.
    pub fn cuda(&self) -> &Arc<CudaEngine> {
        match &self.eng {
            Engine::Cuda(ce) => ce,
            Engine::Cpu => unreachable!("made by Engine::cuda"),
        }
    }

    /// exp of the inputs on the device, on the host.
    pub fn run(&self) -> FloatArray {
        self.xd
            .func(Func::Exp, self.p, Round::Nearest)
            .unwrap()
            .to_host()
            .unwrap()
    }
}

impl Drop for FreshCacheExp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

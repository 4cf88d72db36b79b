//! Shared harness of the one-argument function kernel tests
//! (float_func_cuda, float_func_cuda_explog): where the kernels run (the
//! device or the host emulator) and the comparison with the CPU engine.

use std::sync::Arc;

use mparray::engine::CudaEngine;
use mparray::float::func::cuda as fcuda;
use mparray::float::func::{Func, FuncStats};
use mparray::{Engine, FloatArray, Round};

pub enum Dev {
    Cuda(Arc<CudaEngine>),
    Emu(String),
}

impl Dev {
    /// The device, with every function-kernel tier compiled into the disk
    /// cache first, all at once on every core (the engine compiles one
    /// module at a time).
    pub fn cuda() -> Dev {
        let eng = CudaEngine::shared().expect("a CUDA device");
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| super::warm_kernels(&eng, fcuda::instances()));
        Dev::Cuda(eng)
    }

    pub fn emu() -> Option<Dev> {
        super::emulator("MPARRAY_FUNC_EMU", "tests/emu/funcgpu/emu.cpp")
            .map(|p| Dev::Emu(p.to_string_lossy().into_owned()))
    }

    pub fn run(
        &self,
        f: Func,
        x: &FloatArray,
        p: u64,
        rnd: Round,
    ) -> (FloatArray, Vec<i8>, FuncStats) {
        match self {
            Dev::Cuda(_) => self.run_forced(f, x, p, rnd, 0),
            Dev::Emu(exe) => fcuda::func_emulated(exe, f, x, p, rnd).expect("emulated func"),
        }
    }

    pub fn run_forced(
        &self,
        f: Func,
        x: &FloatArray,
        p: u64,
        rnd: Round,
        force: u32,
    ) -> (FloatArray, Vec<i8>, FuncStats) {
        match self {
            Dev::Cuda(eng) => {
                let d = x
                    .to_engine(&Engine::Cuda(eng.clone()))
                    .expect("to the device");
                let (r, t, s) = d.func_ternary_forced(f, p, rnd, force).expect("cuda func");
                (
                    r.to_host().expect("to the host"),
                    t.to_vec().expect("ternary values"),
                    s,
                )
            }
            Dev::Emu(exe) => {
                fcuda::func_emulated_forced(exe, f, x, p, rnd, force).expect("emulated func")
            }
        }
    }
}

/// The device's `f(x)` (`r`, ternary values `t`) against the CPU engine's,
/// bit for bit.
pub fn same_as_cpu(f: Func, x: &FloatArray, p: u64, rnd: Round, r: &FloatArray, t: &[i8]) {
    let (c, tc, _) = x.func_ternary(f, p, rnd).unwrap();
    let tc = tc.to_vec().unwrap();
    let (xh, rh, ch) = (
        x.to_hex_strings().unwrap(),
        r.to_hex_strings().unwrap(),
        c.to_hex_strings().unwrap(),
    );
    for i in 0..x.len() {
        let (a, b) = (r.get(i).unwrap(), c.get(i).unwrap());
        let same = a.class == b.class
            && a.neg == b.neg
            && a.exp == b.exp
            && a.limbs == b.limbs
            && t[i] == tc[i];
        assert!(
            same,
            "{} p={p} {rnd:?} element {i}: x = {} (prec {}): device {} {:?} ternary {}, cpu {} \
             {:?} ternary {}",
            f.name(),
            xh[i],
            x.prec(),
            rh[i],
            a.class,
            t[i],
            ch[i],
            b.class,
            tc[i]
        );
    }
}

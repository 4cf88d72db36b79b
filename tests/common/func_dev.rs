//! Shared harness of the one-argument function kernel tests
//! (float_func_cuda, float_func_cuda_explog): where the kernels run (the
//! device or the host emulator) and the comparison with the CPU engine.

use mparray::engine::CudaEngine;
use mparray::float::func::cuda as fcuda;
use mparray::float::func::{Func, FuncStats};
use mparray::{Engine, FloatArray, Round};

pub enum Dev {
    /// A CUDA engine (`Engine::Cuda`).
    Cuda(Engine),
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
        Dev::Cuda(Engine::Cuda(eng))
    }

    pub fn emu() -> Option<Dev> {
        super::emulator("MPARRAY_FUNC_EMU", "tests/emu/funcgpu/emu.cpp")
            .map(|p| Dev::Emu(p.to_string_lossy().into_owned()))
    }

    /// `f(x)` for a host array `x` where the kernels run, the result and
    /// the ternary values back on the host (on CUDA: `x` copied to the
    /// device, evaluated there, the result kept there, then read back).
    pub fn run(
        &self,
        f: Func,
        x: &FloatArray,
        p: u64,
        rnd: Round,
    ) -> (FloatArray, Vec<i8>, FuncStats) {
        match self {
            Dev::Cuda(eng) => {
                let d = x.to_engine(eng).expect("upload");
                let (r, t, st) = d.func_ternary(f, p, rnd).expect("cuda func");
                on_host(eng, f, r, t, st)
            }
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
                let d = x.to_engine(eng).expect("upload");
                let (r, t, st) = d.func_ternary_forced(f, p, rnd, force).expect("cuda func");
                on_host(eng, f, r, t, st)
            }
            Dev::Emu(exe) => {
                fcuda::func_emulated_forced(exe, f, x, p, rnd, force).expect("emulated func")
            }
        }
    }
}

/// A device result (which must still be on the device `eng`) read back.
fn on_host(
    eng: &Engine,
    f: Func,
    r: FloatArray,
    t: mparray::float::TernaryArray,
    st: FuncStats,
) -> (FloatArray, Vec<i8>, FuncStats) {
    assert!(
        r.engine().same_as(eng) && t.engine().same_as(eng),
        "{}: the result left the device",
        f.name()
    );
    (
        r.to_host().expect("download"),
        t.to_vec().expect("download"),
        st,
    )
}

/// The device's `f(x)` (`r`, ternary values `t`) against the CPU engine's,
/// bit for bit.
pub fn same_as_cpu(f: Func, x: &FloatArray, p: u64, rnd: Round, r: &FloatArray, t: &[i8]) {
    let (c, tc, _) = x.func_ternary(f, p, rnd).unwrap();
    let tc = tc.to_vec().unwrap();
    assert_eq!(r.len(), x.len(), "{} p={p}: length", f.name());
    assert_eq!(t.len(), x.len(), "{} p={p}: ternary length", f.name());
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
            x.to_hex_strings().unwrap()[i],
            x.prec(),
            r.to_hex_strings().unwrap()[i],
            a.class,
            t[i],
            c.to_hex_strings().unwrap()[i],
            b.class,
            tc[i]
        );
    }
}

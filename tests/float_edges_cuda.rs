//! The CUDA engine at the precision and range edges: every case of
//! tests/edges_mpfr.txt (precisions 1 and 2, arguments at MPFR's largest
//! and smallest floats and the overflow/underflow thresholds, specials,
//! every rounding mode; every float op and real function; the file's
//! complex lines too, once it holds them) evaluated on the device and on the CPU engine, bit for bit,
//! ternary values included (tests/float_edges.rs checks the CPU engine
//! against MPFR and MPC on the same file). Needs a device (ignored
//! otherwise).
mod common;
#[path = "common/edges.rs"]
mod edges;

use edges::{eval, groups};
use mparray::Engine;
use mparray::engine::CudaEngine;

#[test]
#[ignore = "needs a CUDA device"]
fn edges_cuda_equals_cpu() {
    let cuda = CudaEngine::shared().expect("a CUDA device");
    // Every kernel these ops may use, compiled at once on every core.
    let mut inst = mparray::float::cuda::instances();
    inst.extend(mparray::float::func::cuda::instances());
    inst.extend(mparray::complex::cuda_func::instances());
    common::warm_kernels(&cuda, inst);
    let eng = Engine::Cuda(cuda);
    let mut fails = Vec::new();
    let mut n = 0;
    for g in groups() {
        n += g.cases.len();
        let cpu = eval(&g, &Engine::Cpu);
        let dev = eval(&g, &eng);
        match (cpu, dev) {
            (Ok(c), Ok(d)) => {
                for ((case, a), b) in g.cases.iter().zip(c).zip(d) {
                    if a != b {
                        fails.push(format!(
                            "{}: cuda {} | {}, cpu {} | {}",
                            case.line, b.0, b.1, a.0, a.1
                        ));
                    }
                }
            }
            (Err(a), Err(b)) if a == b => {}
            (c, d) => fails.push(format!(
                "{} p={} {}: cpu {:?}, cuda {:?}",
                g.op,
                g.p,
                g.rnd,
                c.err(),
                d.err()
            )),
        }
    }
    eprintln!("{n} cases, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{} of {n} cases differ:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

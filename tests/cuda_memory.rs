//! Device memory under a lowered limit (`CudaEngine::set_mem_limit`, as
//! `MPARRAY_CUDA_MEM_LIMIT`): an element-wise function and the NTT products
//! run in chunks and give the bits of the unlimited run (and of the CPU
//! engine); what cannot fit is an `Error::DeviceMemory` naming the sizes,
//! and the engine works again once the limit is lifted. Ignored without a
//! GPU; the GPU machine runs them. The tests share the engine's limit, so
//! they take turns (one lock).
mod common;

use std::sync::{Arc, Mutex, MutexGuard};

use common::seed;
use mparray::complex::{CFunc, CRound};
use mparray::engine::CudaEngine;
use mparray::engine::cuda::memory::{self, Plan};
use mparray::float::func::Func;
use mparray::{ComplexArray, Engine, Error, FloatArray, IntArray, Round};

static TURN: Mutex<()> = Mutex::new(());

/// The shared engine with a limit of `extra` bytes above what is in use
/// now, lifted when dropped (also on a failed assertion).
struct Limited<'a> {
    eng: Arc<CudaEngine>,
    _turn: &'a MutexGuard<'a, ()>,
}

impl<'a> Limited<'a> {
    fn new(turn: &'a MutexGuard<'a, ()>, eng: &Arc<CudaEngine>, extra: u64) -> Limited<'a> {
        eng.synchronize().unwrap();
        eng.set_mem_limit(Some(eng.used_bytes() + extra));
        Limited {
            eng: eng.clone(),
            _turn: turn,
        }
    }
}

impl Drop for Limited<'_> {
    fn drop(&mut self) {
        self.eng.set_mem_limit(None);
    }
}

fn turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}

fn cuda() -> (Engine, Arc<CudaEngine>) {
    let eng = CudaEngine::shared().expect("these tests need a CUDA device");
    (Engine::Cuda(eng.clone()), eng)
}

/// The host parts of a float array, for bitwise comparison.
fn bits(x: &FloatArray) -> (Vec<u8>, Vec<i64>, Vec<u64>) {
    let h = x.to_host().unwrap();
    (
        h.tags().unwrap().to_vec(),
        h.exps().unwrap().to_vec(),
        h.limbs().unwrap().to_vec(),
    )
}

const MIB: u64 = 1 << 20;

/// exp at 200 bits over 200k elements (8 MB of result, ~27 MB with the
/// run's temporaries) with 24 MiB allowed: several chunks, the same bits
/// and ternary values as without the limit and as the CPU engine.
#[test]
#[ignore = "needs a CUDA device"]
fn function_runs_in_chunks_under_a_limit() {
    let t = turn();
    let (e, eng) = cuda();
    let (len, prec) = (200_000, 200);
    let x = FloatArray::random_exp(&e, len, prec, seed(), -6, 4).unwrap();
    let (r0, t0, s0) = x.func_ternary(Func::Exp, prec, Round::Nearest).unwrap();
    let (want, tw) = (bits(&r0), t0.to_vec().unwrap());
    drop((r0, t0));
    assert_eq!(s0.elements, len as u64);
    {
        let _l = Limited::new(&t, &eng, 24 * MIB);
        // The plan the function makes (out 41, temporaries 93, argument 40
        // bytes per element) is chunks, not the whole array.
        let p = memory::plan(&eng, "test", len, 41, 93, 40).unwrap();
        assert!(matches!(p, Plan::Chunks(c) if c > 1000 && c < len), "{p:?}");
        let (r, tr, s) = x.func_ternary(Func::Exp, prec, Round::Nearest).unwrap();
        assert_eq!(s.elements, len as u64, "chunk statistics add up");
        assert!(bits(&r) == want, "chunked exp differs from the whole run");
        assert_eq!(tr.to_vec().unwrap(), tw, "ternary values");
    }
    let (rc, tc, _) = x
        .to_host()
        .unwrap()
        .func_ternary(Func::Exp, prec, Round::Nearest)
        .unwrap();
    assert!(bits(&rc) == want, "GPU exp differs from the CPU engine");
    assert_eq!(tc.to_vec().unwrap(), tw);
}

/// The hex strings of a complex array and its ternary pairs.
fn cbits(z: &ComplexArray) -> Vec<(String, String)> {
    z.to_hex_strings().unwrap()
}

/// Complex exp and div at 128 bits per part over 100k elements (5 MB of
/// result; 16 and 21 MB with the temporaries they plan for) with 12 MiB
/// allowed: chunks, the bits and ternary pairs of the unlimited run.
#[test]
#[ignore = "needs a CUDA device"]
fn complex_functions_run_in_chunks_under_a_limit() {
    let t = turn();
    let (e, eng) = cuda();
    let (len, p, s) = (100_000, 128, seed());
    let part = |k| FloatArray::random_exp(&e, len, p, s ^ k, -4, 3).unwrap();
    let z = ComplexArray::new(part(1), part(2)).unwrap();
    let y = ComplexArray::new(part(3), part(4)).unwrap();
    let rnd = CRound::both(Round::Nearest);
    let (e0, te0) = z.func_ternary(CFunc::Exp, p, p, rnd).unwrap();
    let (d0, td0, _) = z.div_ternary_stats(&y, p, p, rnd).unwrap();
    let want = (
        cbits(&e0),
        te0.to_pairs().unwrap(),
        cbits(&d0),
        td0.to_pairs().unwrap(),
    );
    drop((e0, te0, d0, td0));
    let _l = Limited::new(&t, &eng, 12 * MIB);
    for (out, tmp, arg) in [(50, 110, 48), (50, 158, 96)] {
        let p = memory::plan(&eng, "test", len, out, tmp, arg).unwrap();
        assert!(matches!(p, Plan::Chunks(c) if c > 1000 && c < len), "{p:?}");
    }
    let (e1, te1, st) = z.func_ternary_stats(CFunc::Exp, p, p, rnd).unwrap();
    assert_eq!(
        st.map(|s| s.elements),
        Some(len as u64),
        "chunk statistics add up"
    );
    assert!(cbits(&e1) == want.0, "chunked complex exp differs");
    assert!(te1.to_pairs().unwrap() == want.1);
    // The exp result would hold 5 of the 12 MiB: div gets the whole limit.
    drop((e1, te1));
    let (d1, td1, _) = z.div_ternary_stats(&y, p, p, rnd).unwrap();
    assert!(cbits(&d1) == want.2, "chunked complex div differs");
    assert!(td1.to_pairs().unwrap() == want.3);
}

/// Integer products in the NTT tier (1024 limbs, 48 KiB of scratch per
/// product, ~94 MiB for 2000) with 40 MiB allowed: the scratch passes are
/// fewer instances each, the bits those of the unlimited run and the CPU.
#[test]
#[ignore = "needs a CUDA device"]
fn ntt_products_chunk_under_a_limit() {
    let t = turn();
    let (e, eng) = cuda();
    let (len, bits) = (2000, 1024 * 64);
    let s = seed();
    let a = IntArray::random(&e, len, bits, s).unwrap();
    let b = IntArray::random(&e, len, bits, s ^ 0x9e37).unwrap();
    let want = a.mul(&b).unwrap().to_limbs().unwrap();
    {
        let _l = Limited::new(&t, &eng, 40 * MIB);
        let got = a.mul(&b).unwrap().to_limbs().unwrap();
        assert!(got == want, "chunked NTT products differ");
        // Not even the 16 MiB result with 8 MiB allowed: an error.
        eng.set_mem_limit(Some(eng.used_bytes() + 8 * MIB));
        match a.mul(&b) {
            Err(Error::DeviceMemory {
                requested,
                free,
                op,
            }) => {
                assert!(requested > free, "{requested} {free}");
                assert!(op.contains("int mul"), "{op}");
            }
            other => panic!("expected DeviceMemory, got {other:?}"),
        }
    }
    let (ah, bh) = (a.to_host().unwrap(), b.to_host().unwrap());
    assert!(ah.mul(&bh).unwrap().to_limbs().unwrap() == want);
}

/// Allocations that cannot fit are errors naming the operation and the
/// sizes (a result too large to chunk, an upload, a new array), and the
/// engine is usable after the limit is lifted.
#[test]
#[ignore = "needs a CUDA device"]
fn too_large_is_an_error_with_sizes() {
    let t = turn();
    let (e, eng) = cuda();
    let x = FloatArray::random_exp(&e, 100_000, 200, seed(), -6, 4).unwrap();
    let host = IntArray::random(&Engine::Cpu, 1 << 12, 64 * 64, 7).unwrap();
    {
        let _l = Limited::new(&t, &eng, 2 * MIB - 4096);
        // exp: its 4 MB result alone exceeds the 2 MiB.
        match x.func_ternary(Func::Exp, 200, Round::Nearest) {
            Err(Error::DeviceMemory {
                op,
                requested,
                free,
            }) => {
                assert!(op.contains("exp"), "{op}");
                assert!(
                    requested > 4_000_000 && free <= 2 * MIB,
                    "{requested} {free}"
                );
            }
            other => panic!("expected DeviceMemory, got {:?}", other.map(|_| ())),
        }
        // 2 MiB of limbs uploaded, then 512 MiB of zeros.
        let e1 = host.to_engine(&e).unwrap_err();
        let msg = e1.to_string();
        assert!(
            matches!(e1, Error::DeviceMemory { requested, .. } if requested == 2 * MIB),
            "{msg}"
        );
        assert!(
            msg.contains("out of GPU memory") && msg.contains("2097152 bytes"),
            "{msg}"
        );
        match IntArray::zeros(&e, 1 << 20, 4096) {
            Err(Error::DeviceMemory { requested, .. }) => assert_eq!(requested, 512 * MIB),
            other => panic!("expected DeviceMemory, got {other:?}"),
        }
        // Float arithmetic: its result does not fit either.
        assert!(matches!(
            x.add(&x, 200, Round::Nearest),
            Err(Error::DeviceMemory { .. })
        ));
    }
    let d = host.to_engine(&e).unwrap();
    assert!(d.to_limbs().unwrap() == host.to_limbs().unwrap());
    assert!(x.func(Func::Exp, 200, Round::Nearest).is_ok());
}

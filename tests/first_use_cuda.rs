//! A first use on an empty kernel cache: the function's first-use module
//! (`--Ofast-compile`) gives the first result, the fully optimised family
//! module is compiled in the background and replaces it once it is in the
//! cache, and both give the CPU engine's bits. Its own test binary: it
//! sets `MPARRAY_CACHE_DIR` to an empty folder before any engine exists.

use std::time::{Duration, Instant};

use mparray::float::func::Func;
use mparray::float::func::cuda as fcuda;
use mparray::{Engine, FloatArray, Round};

mod common;

#[test]
#[ignore = "needs a GPU"]
fn first_use_module_is_replaced_by_the_optimised_one() {
    let dir = std::env::temp_dir().join(format!("mparray-first-use-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // SAFETY: this binary's only test; set before any engine or thread reads it.
    unsafe { std::env::set_var("MPARRAY_CACHE_DIR", &dir) };
    let eng = Engine::cuda().unwrap();
    let Engine::Cuda(ce) = &eng else {
        unreachable!()
    };
    let (p, len) = (200u64, 4096usize);
    let x = FloatArray::random_uniform(
        &Engine::Cpu,
        len,
        p,
        common::seed(),
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
    assert!(fast.first_use || mparray::kernels::fast_compile_level() == "0");

    // One evaluation: the CPU engine's bits, from the module `m`.
    let run_with = |m: &mparray::kernels::Instance, what: &str| {
        let r = xd
            .func(Func::Exp, p, Round::Nearest)
            .unwrap()
            .to_host()
            .unwrap();
        assert!(r == want, "{what} module: bits differ from the CPU engine");
        let keys = ce.loaded_keys();
        assert!(
            keys.contains(&m.key()),
            "{what} module {} not loaded: {keys:?}",
            m.key()
        );
    };
    let t = Instant::now();
    run_with(&fast, "first-use");
    eprintln!("first result in {:.2} s", t.elapsed().as_secs_f64());
    if !fast.first_use {
        return;
    }
    // The optimised module arrives in the cache (seconds to a minute).
    while !(mparray::engine::CudaEngine::compiled_in_background(&full) && ce.is_ready(&full)) {
        assert!(
            t.elapsed() < Duration::from_secs(300),
            "the optimised module {} did not arrive",
            full.key()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "optimised module in the cache after {:.1} s",
        t.elapsed().as_secs_f64()
    );
    run_with(&full, "optimised");
    let _ = std::fs::remove_dir_all(&dir);
}

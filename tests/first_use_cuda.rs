//! A first use on an empty kernel cache: the function's first-use module
//! (`--Ofast-compile`) gives the first result, the fully optimised family
//! module is compiled in the background and replaces it once it is in the
//! cache, and both give the CPU engine's bits. Its own test binary: it
//! sets `MPARRAY_CACHE_DIR` to an empty folder before any engine exists.

use std::time::{Duration, Instant};

mod common;

#[test]
#[ignore = "needs a GPU"]
fn first_use_module_is_replaced_by_the_optimised_one() {
    let c = common::fresh_cache::FreshCacheExp::new("first-use", 200, 4096);
    let (ce, fast, full) = (c.cuda(), &c.fast, &c.full);
    assert!(fast.first_use || mparray::kernels::fast_compile_level() == "0");

    // One evaluation: the CPU engine's bits, from the module `m`.
    let run_with = |m: &mparray::kernels::Instance, what: &str| {
        assert!(
            c.run() == c.want,
            "{what} module: bits differ from the CPU engine"
        );
        let keys = ce.loaded_keys();
        assert!(
            keys.contains(&m.key()),
            "{what} module {} not loaded: {keys:?}",
            m.key()
        );
    };
    let t = Instant::now();
    run_with(fast, "first-use");
    eprintln!("first result in {:.2} s", t.elapsed().as_secs_f64());
    if !fast.first_use {
        return;
    }
    // The optimised module arrives in the cache (seconds to a minute).
    while !(mparray::engine::CudaEngine::compiled_in_background(full) && ce.is_ready(full)) {
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
    run_with(full, "optimised");
}

//! A damaged file in the kernel cache (a write cut short, a full disk): the
//! driver refuses the CUBIN, the module is compiled again, the file
//! replaced, and the result is the CPU engine's. Its own test binary: it
//! sets `MPARRAY_CACHE_DIR` to an empty folder before any engine exists.

use mparray::float::func::Func;
use mparray::float::func::cuda as fcuda;
use mparray::{Engine, FloatArray, Round};

mod common;

#[test]
#[ignore = "needs a GPU"]
fn damaged_cache_file_is_compiled_again() {
    let dir = std::env::temp_dir().join(format!("mparray-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // SAFETY: this binary's only test; set before any engine or thread reads it.
    unsafe { std::env::set_var("MPARRAY_CACHE_DIR", &dir) };
    let eng = Engine::cuda().unwrap();
    let Engine::Cuda(ce) = &eng else {
        unreachable!()
    };
    let (p, len) = (200u64, 512usize);
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
    // Both candidate modules' files damaged before any use.
    let bad = b"not a cubin: a write cut short".to_vec();
    for m in [&fast, &full] {
        std::fs::write(ce.cache_path(m).unwrap(), &bad).unwrap();
    }
    let got = xd
        .func(Func::Exp, p, Round::Nearest)
        .unwrap()
        .to_host()
        .unwrap();
    assert!(got == want, "bits differ from the CPU engine");
    let keys = ce.loaded_keys();
    let used = [&fast, &full]
        .into_iter()
        .find(|m| keys.contains(&m.key()))
        .unwrap_or_else(|| panic!("neither module loaded: {keys:?}"));
    let now = std::fs::read(ce.cache_path(used).unwrap()).unwrap();
    assert!(
        now != bad && !now.is_empty(),
        "the damaged file was not replaced"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! A damaged file in the kernel cache (a write cut short, a full disk): the
//! driver refuses the CUBIN, the module is compiled again, the file
//! replaced, and the result is the CPU engine's. Its own test binary: it
//! sets `MPARRAY_CACHE_DIR` to an empty folder before any engine exists.

mod common;

#[test]
#[ignore = "needs a GPU"]
fn damaged_cache_file_is_compiled_again() {
    let c = common::fresh_cache::FreshCacheExp::new("damaged", 200, 512);
    let (ce, fast, full) = (c.cuda(), &c.fast, &c.full);
    // Both candidate modules' files damaged before any use.
    let bad = b"not a cubin: a write cut short".to_vec();
    for m in [fast, full] {
        std::fs::write(ce.cache_path(m).unwrap(), &bad).unwrap();
    }
    assert!(c.run() == c.want, "bits differ from the CPU engine");
    let keys = ce.loaded_keys();
    let used = [fast, full]
        .into_iter()
        .find(|m| keys.contains(&m.key()))
        .unwrap_or_else(|| panic!("neither module loaded: {keys:?}"));
    let now = std::fs::read(ce.cache_path(used).unwrap()).unwrap();
    assert!(
        now != bad && !now.is_empty(),
        "the damaged file was not replaced"
    );
}

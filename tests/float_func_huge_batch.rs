//! A batch of huge arguments whose exponents grow along the batch, in a
//! process of its own (the constant caches start empty): the threads of the
//! pool compute 2/pi and pi while other elements need them, so a thread
//! that waits inside the computation must not take another element that
//! re-enters the caches (it panicked or deadlocked before the constants
//! were computed on a pool of their own). Results equal the same elements
//! evaluated one by one afterwards (tests/float_func_huge.rs checks the
//! values against malachite-float and MPFR).

mod common;

use mparray::float::func::Func;
use mparray::{FloatArray, Round};

#[test]
fn growing_exponents_in_one_batch() {
    let mut r = common::Rng(common::seed());
    // Four blocks of 256 elements (the CPU engine's unit of parallel work).
    let xs: Vec<_> = (0..1024)
        .map(|i| {
            let e = (2f64.powf(12.0 + i as f64 / 128.0)) as i64 + r.range(0, 99);
            common::rand_float(|| r.next(), 53, e, i % 2 == 0)
        })
        .collect();
    let a = FloatArray::from_floats(53, &xs, Round::Nearest).unwrap().0;
    for f in [Func::Sin, Func::Tan] {
        let (y, t, _) = a.func_ternary(f, 53, Round::Nearest).unwrap();
        let t = t.to_vec().unwrap();
        for (i, x) in xs.iter().enumerate() {
            let one = FloatArray::from_floats(53, std::slice::from_ref(x), Round::Nearest)
                .unwrap()
                .0;
            let (z, u, _) = one.func_ternary(f, 53, Round::Nearest).unwrap();
            assert_eq!(
                y.to_float(i).unwrap(),
                z.to_float(0).unwrap(),
                "{f:?}({x:#x})"
            );
            assert_eq!(t[i], u.to_vec().unwrap()[0]);
        }
    }
}

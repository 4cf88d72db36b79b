//! The multi-device layer (`mparray::multi`): arrays split over a set of
//! engines, element-wise work on every part, GEMM split by row blocks of C,
//! huge products split by pieces; every result must equal one engine's bits.
//! CPU sets run in CI; the CUDA set (every device of the machine, one on
//! the H200) runs with `--ignored` on a GPU machine.

use malachite_nz::natural::Natural;
use mparray::engine::Engine;
use mparray::float::func::Func;
use mparray::float::{FloatArray, Round};
use mparray::huge::HugeInt;
use mparray::int::{Fused, IntArray};
use mparray::linalg::{Gemm, Matrix, Op};
use mparray::multi::{self, Devices, Parts, Split};

fn seed() -> u64 {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {s}");
    s
}

fn same_floats(a: &FloatArray, b: &FloatArray, what: &str) {
    let (a, b) = (a.to_host().unwrap(), b.to_host().unwrap());
    assert_eq!(a.prec(), b.prec(), "{what}: precision");
    assert_eq!(a.tags().unwrap(), b.tags().unwrap(), "{what}: tags");
    assert_eq!(a.exps().unwrap(), b.exps().unwrap(), "{what}: exponents");
    assert_eq!(a.limbs().unwrap(), b.limbs().unwrap(), "{what}: limbs");
}

#[test]
fn ranges_cover_in_order() {
    for len in [0usize, 1, 2, 5, 17, 1000] {
        for p in 1..=5 {
            let r = multi::ranges(len, p);
            assert_eq!(r.len(), p);
            assert_eq!(r[0].start, 0);
            assert_eq!(r[p - 1].end, len);
            for w in r.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            let (lo, hi) = (len / p, len.div_ceil(p));
            assert!(r.iter().all(|x| x.len() == lo || x.len() == hi));
        }
    }
}

#[test]
fn device_specs() {
    assert_eq!(Devices::parse("cpu:3").unwrap().len(), 3);
    for bad in ["cpu:0", "0", "two", "cpu:x", ""] {
        let e = Devices::parse(bad).unwrap_err().to_string();
        assert!(e.contains("--devices"), "{bad}: {e}");
    }
    assert!(Devices::new(vec![]).is_err());
}

fn int_case(dev: &Devices, reference: &Engine, seed: u64) {
    for (bits, len) in [(64u64, 0usize), (64, 1), (256, 7), (4096, 33), (1 << 15, 5)] {
        let a = IntArray::random(reference, len, bits, seed).unwrap();
        let b = IntArray::random(reference, len, bits, seed ^ 0x55).unwrap();
        let (sa, sb) = (
            Split::scatter(dev, &a).unwrap(),
            Split::scatter(dev, &b).unwrap(),
        );
        assert_eq!(sa.len(), len);
        let host = |x: &IntArray| x.to_limbs().unwrap();
        let back = sa.gather(reference).unwrap();
        assert_eq!(host(&back), host(&a), "scatter/gather {bits}x{len}");
        for (name, got, want) in [
            ("add", sa.add(&sb).unwrap(), a.add(&b).unwrap()),
            ("sub", sa.sub(&sb).unwrap(), a.sub(&b).unwrap()),
            ("mul", sa.mul(&sb).unwrap(), a.mul(&b).unwrap()),
            (
                "poly",
                sa.fused(&sb, Fused::Poly).unwrap(),
                a.fused(&b, Fused::Poly).unwrap(),
            ),
        ] {
            assert_eq!(
                host(&got.gather(reference).unwrap()),
                host(&want),
                "{name} {bits}x{len}"
            );
        }
        if bits <= 4096 {
            let got = sa.mul_wide(&sb).unwrap().gather(reference).unwrap();
            assert_eq!(
                host(&got),
                host(&a.mul_wide(&b).unwrap()),
                "mul_wide {bits}x{len}"
            );
            // Divisors without zeros: b | 1.
            let one = IntArray::from_naturals(bits, &vec![Natural::from(1u32); len]).unwrap();
            let b1 = b.to_engine(&Engine::Cpu).unwrap();
            let nz: Vec<Natural> = b1
                .to_naturals()
                .unwrap()
                .into_iter()
                .map(|x| if x == 0u32 { Natural::from(1u32) } else { x })
                .collect();
            let d = IntArray::from_naturals(bits, &nz)
                .unwrap()
                .into_engine(reference)
                .unwrap();
            drop(one);
            let sd = Split::scatter(dev, &d).unwrap();
            let (q, r) = sa.divrem(&sd).unwrap();
            let (wq, wr) = a.divrem(&d).unwrap();
            assert_eq!(
                host(&q.gather(reference).unwrap()),
                host(&wq),
                "div q {bits}x{len}"
            );
            assert_eq!(
                host(&r.gather(reference).unwrap()),
                host(&wr),
                "div r {bits}x{len}"
            );
        }
        // The sum is also checked against malachite, independently.
        let got = sa
            .add(&sb)
            .unwrap()
            .gather(&Engine::Cpu)
            .unwrap()
            .to_naturals()
            .unwrap();
        let (an, bn) = (a.to_naturals().unwrap(), b.to_naturals().unwrap());
        let m = Natural::from(1u32) << bits;
        for i in 0..len {
            assert_eq!(got[i], (&an[i] + &bn[i]) % &m, "add element {i}");
        }
    }
}

fn float_case(dev: &Devices, reference: &Engine, seed: u64) {
    for (prec, len) in [(1u64, 3usize), (53, 0), (200, 19), (512, 101), (3000, 9)] {
        let a = FloatArray::random_exp(reference, len, prec, seed, -40, 40).unwrap();
        let b = FloatArray::random_exp(reference, len, prec, seed ^ 7, -40, 40).unwrap();
        let (sa, sb) = (
            Split::scatter(dev, &a).unwrap(),
            Split::scatter(dev, &b).unwrap(),
        );
        same_floats(&sa.gather(reference).unwrap(), &a, "scatter/gather");
        for rnd in [Round::Nearest, Round::Down, Round::Up] {
            let p = prec + 5;
            let g = |s: Split<FloatArray>| s.gather(reference).unwrap();
            same_floats(
                &g(sa.add(&sb, p, rnd).unwrap()),
                &a.add(&b, p, rnd).unwrap(),
                "add",
            );
            same_floats(
                &g(sa.mul(&sb, p, rnd).unwrap()),
                &a.mul(&b, p, rnd).unwrap(),
                "mul",
            );
            same_floats(
                &g(sa.div(&sb, p, rnd).unwrap()),
                &a.div(&b, p, rnd).unwrap(),
                "div",
            );
            same_floats(
                &g(sa.sqrt(p, rnd).unwrap()),
                &a.sqrt(p, rnd).unwrap(),
                "sqrt",
            );
            if prec <= 512 {
                same_floats(
                    &g(sa.func(Func::Exp, p, rnd).unwrap()),
                    &a.func(Func::Exp, p, rnd).unwrap(),
                    "exp",
                );
            }
        }
    }
}

fn gemm_case(dev: &Devices, reference: &Engine, seed: u64) {
    let ops = [Op::None, Op::Trans];
    let shapes = [
        (0usize, 3usize, 2usize),
        (1, 1, 1),
        (2, 5, 3),
        (7, 4, 9),
        (33, 17, 5),
    ];
    for (si, &(m, k, n)) in shapes.iter().enumerate() {
        for &oa in &ops {
            for &ob in &ops {
                let prec = [53u64, 200, 512][si % 3];
                let (ra, ca) = if oa == Op::None { (m, k) } else { (k, m) };
                let (rb, cb) = if ob == Op::None { (k, n) } else { (n, k) };
                let s = seed.wrapping_add(si as u64 * 31);
                let a = Matrix::<FloatArray>::random(reference, ra, ca, prec, s).unwrap();
                let b = Matrix::<FloatArray>::random(reference, rb, cb, prec, s ^ 1).unwrap();
                let c = Matrix::<FloatArray>::random(reference, m, n, prec, s ^ 2).unwrap();
                let alpha = FloatArray::random_exp(reference, 1, prec, s ^ 3, -2, 2).unwrap();
                let beta = FloatArray::random_exp(reference, 1, prec, s ^ 4, -2, 2).unwrap();
                for with_c in [false, true] {
                    let o = Gemm {
                        op_a: oa,
                        op_b: ob,
                        prec,
                        rnd: Round::Nearest,
                    };
                    let bc = with_c.then_some((&beta, &c));
                    let (want, wt) = a.gemm(&b, &alpha, bc, &o).unwrap();
                    let (got, gt) = multi::gemm(dev, &a, &b, &alpha, bc, &o, reference).unwrap();
                    assert_eq!((got.rows(), got.cols()), (m, n));
                    let what = format!("gemm {m}x{k}x{n} {oa:?}{ob:?} c={with_c}");
                    same_floats(got.data(), want.data(), &what);
                    assert_eq!(
                        gt.to_vec().unwrap(),
                        wt.to_vec().unwrap(),
                        "{what}: ternaries"
                    );
                }
            }
        }
    }
}

fn huge_case(dev: &Devices, reference: &Engine, seed: u64) {
    for (la, lb) in [
        (0usize, 5usize),
        (1, 1),
        (3, 1000),
        (1000, 3),
        (40_000, 35_000),
    ] {
        let al = mparray::huge::random_limbs(la, seed);
        let bl = mparray::huge::random_limbs(lb, seed ^ 9);
        let a = HugeInt::from_limbs(reference, &al).unwrap();
        let b = HugeInt::from_limbs(reference, &bl).unwrap();
        let got = multi::huge_mul(dev, &a, &b, reference)
            .unwrap()
            .to_natural()
            .unwrap();
        let want = a.to_natural().unwrap() * b.to_natural().unwrap();
        assert_eq!(got, want, "huge mul {la} x {lb} limbs");
    }
}

#[test]
fn cpu_sets_give_one_engines_bits() {
    let s = seed();
    for p in [1usize, 2, 3, 4] {
        let dev = Devices::cpu(p).unwrap();
        int_case(&dev, &Engine::Cpu, s);
        float_case(&dev, &Engine::Cpu, s);
        gemm_case(&dev, &Engine::Cpu, s);
        huge_case(&dev, &Engine::Cpu, s);
    }
}

#[test]
fn mismatched_splits_are_refused() {
    let a = IntArray::random(&Engine::Cpu, 10, 128, 1).unwrap();
    let b = IntArray::random(&Engine::Cpu, 11, 128, 2).unwrap();
    let d2 = Devices::cpu(2).unwrap();
    let (sa, sb) = (
        Split::scatter(&d2, &a).unwrap(),
        Split::scatter(&d2, &b).unwrap(),
    );
    let e = sa.add(&sb).err().expect("different lengths").to_string();
    assert!(e.contains("differ"), "{e}");
    let sc = Split::scatter(&Devices::cpu(3).unwrap(), &a).unwrap();
    assert!(sa.add(&sc).is_err());
    // Errors inside a part name the element, as one engine's do.
    // A zero divisor at element 7 (in the second part) is named as 7.
    let mut ones = vec![Natural::from(1u32); 10];
    ones[7] = Natural::from(0u32);
    let z = IntArray::from_naturals(128, &ones).unwrap();
    let sz = Split::scatter(&d2, &z).unwrap();
    match sa.divrem(&sz).err().expect("division by zero") {
        mparray::error::Error::DivisionByZero { index } => assert_eq!(index, 7),
        other => panic!("{other}"),
    }
    assert!(Parts::host_range(&a, 3..12).is_err());
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_set_gives_one_engines_bits() {
    let s = seed();
    let dev = Devices::cuda_all().unwrap();
    eprintln!("{}", dev.describe());
    let cuda = Engine::cuda().unwrap();
    int_case(&dev, &cuda, s);
    float_case(&dev, &cuda, s);
    gemm_case(&dev, &cuda, s);
    huge_case(&dev, &cuda, s);
    // And against the CPU engine.
    let cpu1 = Devices::cpu(1).unwrap();
    int_case(&cpu1, &cuda, s);
    gemm_case(&dev, &Engine::Cpu, s);
}

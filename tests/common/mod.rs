//! Shared test harness: every integer operation on an engine, compared with
//! malachite on random and hand-picked inputs.
#![allow(dead_code)]

use malachite_base::num::arithmetic::traits::{DivMod, Pow};
use malachite_nz::natural::Natural;
use mparray::{Engine, Fused, IntArray};

pub mod float_dev;
pub mod fresh_cache;
pub mod func_dev;

/// A scratch folder of its own for one test, removed on drop.
pub struct Tmp(pub std::path::PathBuf);

impl Tmp {
    pub fn new() -> Tmp {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let d = std::env::temp_dir().join(format!(
            "mparray-test-{}-{}-{t}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Widths (in limbs) crossing the kernel-tier thresholds; tests pick from this.
pub const LIMBS_SMALL: &[usize] = &[1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33];
pub const LIMBS_MID: &[usize] = &[63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513];
pub const LIMBS_LARGE: &[usize] = &[1023, 1024, 1025, 2048, 4096, 8192, 16384];

/// A fresh seed per run (tests draw new inputs each time), printed so a
/// failure can be replayed with MPARRAY_TEST_SEED.
pub fn seed() -> u64 {
    if let Ok(s) = std::env::var("MPARRAY_TEST_SEED") {
        return s.parse().expect("MPARRAY_TEST_SEED must be a number");
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let s = t ^ (std::process::id() as u64).rotate_left(32);
    eprintln!("seed {s} (set MPARRAY_TEST_SEED={s} to replay)");
    s
}

/// A small seeded generator (splitmix64) for test inputs; test files add
/// their own input shapes with `impl Rng` blocks.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform-ish in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// An index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// In `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.index(v.len())]
    }
}

pub fn modulus(bits: u64) -> Natural {
    Natural::from(2u32).pow(bits)
}

/// Edge-case inputs of `limbs` limbs: 0, 1, 2^W-1, carry ripples, one-limb
/// values, top bit set and clear, leading zero limbs.
pub fn edge_values(limbs: usize) -> Vec<Vec<u64>> {
    let l = limbs;
    let mut v = vec![
        vec![0; l],
        {
            let mut x = vec![0; l];
            x[0] = 1;
            x
        },
        vec![u64::MAX; l],
        {
            let mut x = vec![u64::MAX; l];
            x[l - 1] = 0;
            x
        },
        {
            let mut x = vec![0; l];
            x[l - 1] = 1 << 63;
            x
        },
        {
            let mut x = vec![0; l];
            x[0] = u64::MAX;
            x
        },
        {
            let mut x = vec![0; l];
            x[0] = 2;
            x
        },
        {
            let mut x = vec![0x5555_5555_5555_5555; l];
            x[l - 1] = 0x7fff_ffff_ffff_ffff;
            x
        },
    ];
    if l > 1 {
        let mut x = vec![0; l];
        x[l / 2] = 1;
        x[0] = 3;
        v.push(x);
        let mut y = vec![u64::MAX; l];
        y[l - 1] = 1;
        v.push(y);
    }
    v
}

/// Random elements plus all pairs of edge values, as two arrays on `engine`.
pub fn operands(engine: &Engine, limbs: usize, n_random: usize, seed: u64) -> (IntArray, IntArray) {
    let bits = 64 * limbs as u64;
    let edges = edge_values(limbs);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for x in &edges {
        for y in &edges {
            a.extend_from_slice(x);
            b.extend_from_slice(y);
        }
    }
    let ra = IntArray::random(&Engine::Cpu, n_random, bits, seed)
        .unwrap()
        .to_limbs()
        .unwrap();
    let rb = IntArray::random_lengths(&Engine::Cpu, n_random, bits, seed ^ 0xabc, 1, limbs)
        .unwrap()
        .to_limbs()
        .unwrap();
    a.extend(ra);
    b.extend(rb);
    // a + b: carries rippling through every limb.
    let mut x = vec![u64::MAX; limbs];
    x[0] = u64::MAX;
    a.extend_from_slice(&x);
    let mut one = vec![0; limbs];
    one[0] = 1;
    b.extend_from_slice(&one);
    let ha = IntArray::from_limbs(bits, a).unwrap();
    let hb = IntArray::from_limbs(bits, b).unwrap();
    (ha.to_engine(engine).unwrap(), hb.to_engine(engine).unwrap())
}

fn nats(a: &IntArray) -> Vec<Natural> {
    a.to_naturals().unwrap()
}

/// Checks add, sub (with flags), mul, mul_wide, fused and divrem of `a`, `b`
/// against malachite. Zero divisors are replaced by one for divrem.
pub fn check_all(a: &IntArray, b: &IntArray, what: &str) {
    let bits = a.bits();
    let m = modulus(bits);
    let (na, nb) = (nats(a), nats(b));

    let (s, c) = a.overflowing_add(b).unwrap();
    let (d, br) = a.overflowing_sub(b).unwrap();
    let p = a.mul(b).unwrap();
    let (ns, nd, np) = (nats(&s), nats(&d), nats(&p));
    for i in 0..na.len() {
        let sum = &na[i] + &nb[i];
        assert_eq!(ns[i], &sum % &m, "{what}: add element {i}");
        assert_eq!(c[i], sum >= m, "{what}: carry element {i}");
        let diff = (&na[i] + &m - &nb[i]) % &m;
        assert_eq!(nd[i], diff, "{what}: sub element {i}");
        assert_eq!(br[i], na[i] < nb[i], "{what}: borrow element {i}");
        assert_eq!(np[i], (&na[i] * &nb[i]) % &m, "{what}: mul element {i}");
    }
    if 2 * bits <= mparray::int::MAX_BITS {
        let w = nats(&a.mul_wide(b).unwrap());
        for i in 0..na.len() {
            assert_eq!(w[i], &na[i] * &nb[i], "{what}: mul_wide element {i}");
        }
    }
    let six = nats(&a.fused(b, Fused::SixAdd).unwrap());
    let poly = nats(&a.fused(b, Fused::Poly).unwrap());
    for i in 0..na.len() {
        let (x, y) = (&na[i], &nb[i]);
        assert_eq!(
            six[i],
            (x * Natural::from(4u32) + y * Natural::from(3u32)) % &m,
            "{what}: six-add element {i}"
        );
        let want = ((x * x + y) % &m * ((y * y + y) % &m) + x * y) % &m;
        assert_eq!(poly[i], want, "{what}: poly element {i}");
    }
    // Division: zero divisors become 1 so the whole batch divides.
    let fixed: Vec<Natural> = nb
        .iter()
        .map(|x| {
            if *x == 0u32 {
                Natural::from(1u32)
            } else {
                x.clone()
            }
        })
        .collect();
    let bd = IntArray::from_naturals(bits, &fixed)
        .unwrap()
        .to_engine(&a.engine())
        .unwrap();
    let (q, r) = a.divrem(&bd).unwrap();
    let (nq, nr) = (nats(&q), nats(&r));
    for i in 0..na.len() {
        let (eq, er) = na[i].clone().div_mod(fixed[i].clone());
        assert_eq!(nq[i], eq, "{what}: quotient element {i}");
        assert_eq!(nr[i], er, "{what}: remainder element {i}");
    }
}

/// Division with dividends and divisors of random lengths (the Div benchmark's shape).
pub fn check_div_lengths(engine: &Engine, limbs: usize, n: usize, seed: u64) {
    let bits = 64 * limbs as u64;
    let a = IntArray::random_lengths(engine, n, bits, seed, 1, limbs).unwrap();
    let b = IntArray::random_lengths(engine, n, bits, seed ^ 1, 1, limbs).unwrap();
    let (q, r) = a.divrem(&b).unwrap();
    let (na, nb, nq, nr) = (nats(&a), nats(&b), nats(&q), nats(&r));
    for i in 0..n {
        let (eq, er) = na[i].clone().div_mod(nb[i].clone());
        assert_eq!(
            (&nq[i], &nr[i]),
            (&eq, &er),
            "divrem {limbs} limbs element {i}"
        );
    }
}

/// The `mparray` binary under test: where cargo built it, or, when the test
/// binaries were packed and moved (the GPU machine's `.gpu/tests`),
/// `../bin/mparray` beside them; `MPARRAY_BIN` overrides both.
pub fn mparray_bin() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("MPARRAY_BIN") {
        return p.into();
    }
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_mparray"));
    if built.exists() {
        return built;
    }
    std::env::current_exe()
        .ok()
        .and_then(|t| Some(t.parent()?.parent()?.join("bin").join("mparray")))
        .filter(|p| p.exists())
        .unwrap_or(built)
}

/// Compiles `instances` into the engine's disk cache, all at once on every
/// core (the engine itself compiles one module at a time), so the first
/// launches of a GPU test do not wait for NVRTC one module after another.
pub fn warm_kernels(
    eng: &std::sync::Arc<mparray::engine::CudaEngine>,
    instances: Vec<mparray::kernels::Instance>,
) {
    let info = eng.info();
    let (arch, dir) = (info.arch(), info.cache_dir.clone());
    std::thread::scope(|s| {
        for i in instances {
            let (arch, dir) = (&arch, &dir);
            s.spawn(move || {
                mparray::engine::cuda::compile::compile(
                    i.source.name,
                    &i.full_source(),
                    &i.options(),
                    arch,
                    dir.as_deref(),
                )
                .expect("compiles");
            });
        }
    });
}

/// The host emulator of a kernel family: the binary named by the
/// environment variable `var`, or else `src` (a C++ driver under tests/emu/
/// that includes the kernel sources) compiled here with g++ once per test
/// process. Without g++ the emulator tests would check nothing, so that is
/// an error unless MPARRAY_NO_EMU is set (then `None`: the tests skip).
#[allow(dead_code)]
pub fn emulator(var: &str, src: &str) -> Option<std::path::PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    if let Ok(p) = std::env::var(var)
        && !p.is_empty()
    {
        return Some(p.into());
    }
    if std::env::var_os("MPARRAY_NO_EMU").is_some() {
        return None;
    }
    static BUILT: OnceLock<Mutex<HashMap<String, std::path::PathBuf>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some(p) = built.get(src) {
        return Some(p.clone());
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("mparray-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(src.replace('/', "_").trim_end_matches(".cpp"));
    let t0 = std::time::Instant::now();
    let out = std::process::Command::new("g++")
        .args(["-O1", "-std=c++17", "-o"])
        .arg(&exe)
        .arg(root.join(src))
        .output()
        .unwrap_or_else(|e| {
            panic!("the emulator tests need g++ ({e}); set {var} to a built emulator or MPARRAY_NO_EMU=1 to skip them")
        });
    assert!(
        out.status.success(),
        "g++ {src}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "built {src} with g++ in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    built.insert(src.to_string(), exe.clone());
    Some(exe)
}

/// A random float of `q` bits with exponent `e` from the limbs `next`
/// draws (runs of equal bits now and then: results near rounding
/// boundaries); the float function tests' inputs.
pub fn rand_float(
    mut next: impl FnMut() -> u64,
    q: u64,
    e: i64,
    neg: bool,
) -> malachite_float::Float {
    let n = q.div_ceil(64) as usize;
    let mut limbs: Vec<u64> = (0..n).map(|_| next()).collect();
    match next() % 4 {
        0 => limbs.iter_mut().skip(1).for_each(|l| *l = 0),
        1 => limbs.iter_mut().skip(1).for_each(|l| *l = u64::MAX),
        _ => {}
    }
    limbs[n - 1] |= 1 << 63;
    let low = 64 * n as u64 - q;
    if low > 0 {
        limbs[0] &= !((1u64 << low) - 1);
    }
    let a = mparray::FloatArray::from_raw(q, vec![1 | if neg { 4 } else { 0 }], vec![e], limbs)
        .unwrap();
    a.to_float(0).unwrap()
}

/// One float element: (tag, exponent, limbs).
pub type Raw = (u8, i64, Vec<u64>);

/// A normal element of `q` bits: random, all-ones or all-zeros tails.
pub fn elem(r: &mut Rng, q: u64, e: i64, neg: bool) -> Raw {
    let n = q.div_ceil(64) as usize;
    let mut m: Vec<u64> = (0..n).map(|_| r.next()).collect();
    match r.below(4) {
        0 => m.iter_mut().rev().skip(1).for_each(|l| *l = 0),
        1 => m.iter_mut().rev().skip(1).for_each(|l| *l = u64::MAX),
        _ => {}
    }
    m[n - 1] |= 1 << 63;
    let low = 64 * n as u64 - q;
    if low > 0 {
        m[0] &= !((1u64 << low) - 1);
    }
    (1 | if neg { 4 } else { 0 }, e, m)
}

/// `1 + 2^-k m` (above) or `1 - 2^-k m` (below), `m` in [0, 1), truncated
/// to `q` bits (1 itself when the bits run out).
pub fn near_one(r: &mut Rng, q: u64, k: u64, above: bool, neg: bool) -> Raw {
    let n = q.div_ceil(64) as usize;
    let bits = 64 * n as u64;
    let mut m: Vec<u64> = (0..n).map(|_| r.next()).collect();
    for b in 0..k.min(bits) {
        let pos = bits - 1 - b;
        let (li, bi) = ((pos / 64) as usize, pos % 64);
        if above {
            m[li] &= !(1u64 << bi);
        } else {
            m[li] |= 1u64 << bi;
        }
    }
    m[n - 1] |= 1 << 63;
    let low = bits - q;
    if low > 0 {
        m[0] &= !((1u64 << low) - 1);
    }
    (1 | if neg { 4 } else { 0 }, if above { 1 } else { 0 }, m)
}

/// A string of binary digits as hexadecimal digits (left-padded to whole
/// nibbles), for hex-float test inputs.
#[allow(dead_code)]
pub fn num_hex(bits: &str) -> String {
    let pad = (4 - bits.len() % 4) % 4;
    let s: String = "0".repeat(pad) + bits;
    s.as_bytes()
        .chunks(4)
        .map(|c| {
            let v = c.iter().fold(0u32, |a, &b| 2 * a + (b - b'0') as u32);
            std::char::from_digit(v, 16).unwrap()
        })
        .collect()
}

/// `mpfr_sum`'s result from its terms' exact values: `sum` of the
/// `nonzero` nonzero terms, and the `zeros` zero terms of which `negz` are
/// negative. An exact zero sum is `+0` (`-0` rounding down), except when
/// every term is a zero of one sign; otherwise the sum rounded once to `p`
/// bits, with its ternary value.
pub fn mpfr_sum_of(
    sum: malachite_q::Rational,
    nonzero: usize,
    zeros: usize,
    negz: usize,
    p: u64,
    rnd: mparray::Round,
) -> (malachite_float::Float, i8) {
    use malachite_base::num::basic::traits::{NegativeZero, Zero};
    use malachite_float::Float;
    let zero = |neg: bool| {
        (
            if neg {
                Float::NEGATIVE_ZERO
            } else {
                Float::ZERO
            },
            0,
        )
    };
    if nonzero == 0 {
        return zero(if zeros > 0 && negz == zeros {
            true
        } else if negz == 0 {
            false
        } else {
            rnd == mparray::Round::Down
        });
    }
    if sum == 0u32 {
        return zero(rnd == mparray::Round::Down);
    }
    let (f, o) = Float::from_rational_prec_round(sum, p, mparray::float::to_rounding_mode(rnd));
    (f, o as i8)
}

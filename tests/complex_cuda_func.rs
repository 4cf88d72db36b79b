//! The complex functions on the CUDA device (src/kernels/float_cfunc.cu,
//! src/complex/cuda_func.rs) against the CPU engine (itself checked against
//! an independent reference and GNU MPC, tests/complex_cpu.rs): bit for bit
//! with the ternary pairs, on fresh random inputs across magnitudes (tiny,
//! near 1, large parts, near the special-path thresholds, near multiples
//! of pi/2, on the unit circle for log), specials mixed in, every one of the
//! 25 rounding-mode pairs, mixed part precisions and precisions crossing
//! every tier (and beyond the largest: the CPU engine).
//!
//! `cfuncemu_*` run the kernel's per-element code compiled for the host
//! (tests/emu/cplxgpu/emu.cpp, built with g++ unless MPARRAY_CFUNC_EMU names
//! a build; MPARRAY_NO_EMU=1 skips them). `cfuncgpu_*` need a device
//! (ignored otherwise). Fresh seeds each run (MPARRAY_TEST_SEED replays).

use mparray::complex::cuda_func::{self, Op};
use mparray::complex::{CFunc, CRound, ComplexArray, ComplexTernary};
use mparray::float::func::FuncStats;
use mparray::{Engine, FloatArray, Round};

mod common;
use common::{Rng, num_hex, seed};

/// The functions the device evaluates.
const DEV: [CFunc; 12] = [
    CFunc::Atan,
    CFunc::Asin,
    CFunc::Acos,
    CFunc::Sqrt,
    CFunc::Exp,
    CFunc::Log,
    CFunc::Sin,
    CFunc::Cos,
    CFunc::Sinh,
    CFunc::Cosh,
    CFunc::Tan,
    CFunc::Tanh,
];

/// Output precisions: small ones, the bench's, each tier's edges (with the
/// 16 extra bits of ctier), and above the largest tier.
const PRECS: &[u64] = &[
    1, 2, 53, 64, 65, 128, 150, 200, 256, 257, 300, 400, 512, 513, 700, 1000, 1024, 1025, 1500,
    2048, 2100, 2200,
];

/// A random binary mantissa of up to `bits` bits times 2^e, as a hex float.
fn value(g: &mut Rng, bits: u64, e: i64) -> String {
    let b = 1 + g.below(bits.clamp(1, 4000));
    let mut m = String::from("1");
    for _ in 1..b {
        m.push(if g.below(2) == 0 { '0' } else { '1' });
    }
    let sign = if g.below(2) == 0 { "-" } else { "" };
    // m has b bits: m 2^(e - b) has exponent e.
    format!("{sign}0x{}p{:+}", num_hex(&m), e - b as i64)
}

/// Magnitude classes of a part.
#[derive(Clone, Copy, Debug)]
enum Mag {
    /// Exponents in [-3, 3].
    One,
    /// [-20, 20].
    Mid,
    /// Tiny: [-400, -8] (the series paths) and now and then far below (not
    /// so far that the CPU engine's working-precision cap is reached).
    Tiny,
    /// Large: [4, 45] (reductions, e^x, and the device's limits at 29, 30,
    /// 40, 41).
    Large,
    /// Everything mixed, specials included.
    Mixed,
}

fn part(g: &mut Rng, bits: u64, m: Mag) -> String {
    let e = match m {
        Mag::One => g.range(-3, 3),
        Mag::Mid => g.range(-20, 20),
        Mag::Tiny => {
            if g.below(8) == 0 {
                g.range(-6000, -1000)
            } else {
                g.range(-400, -8)
            }
        }
        Mag::Large => {
            if g.below(3) == 0 {
                g.pick(&[28i64, 29, 30, 31, 39, 40, 41])
            } else {
                g.range(4, 45)
            }
        }
        Mag::Mixed => {
            if g.below(12) == 0 {
                return g
                    .pick(&["0", "-0", "inf", "-inf", "nan", "1", "-1"])
                    .to_string();
            }
            let c = g.pick(&[Mag::One, Mag::Mid, Mag::Tiny, Mag::Large]);
            return part(g, bits, c);
        }
    };
    value(g, bits, e)
}

/// `len` random elements with real parts of `pa` bits and imaginary parts
/// of `pb` bits (their values have up to `pa + 8`, `pb + 8` bits, rounded).
fn array(g: &mut Rng, len: usize, pa: u64, pb: u64, mr: Mag, mi: Mag) -> ComplexArray {
    let v: Vec<(String, String)> = (0..len)
        .map(|_| (part(g, pa + 8, mr), part(g, pb + 8, mi)))
        .collect();
    ComplexArray::from_strs(pa, pb, &v).unwrap()
}

/// Points on or near the unit circle (|z| = 1 exactly for Pythagorean
/// fractions, log's real part 0), near multiples of pi/2 (the reductions),
/// and ones just inside the device's exponent limits.
fn edge_array(g: &mut Rng, pa: u64, pb: u64) -> ComplexArray {
    let mut v: Vec<(String, String)> = vec![
        ("0.6".into(), "0.8".into()),
        ("-0.8".into(), "0.6".into()),
        ("0x3p-2".into(), "0x1p+0".into()),
        ("1".into(), "0x1p-300".into()),
        ("1".into(), "1".into()),
        ("-1".into(), "-0x1p-40".into()),
        // atan: near +-i, near its branch cuts (the imaginary axis beyond
        // +-i), |z| near 1 (1 - |z|^2 small: Re near pi/4).
        ("0x1p-60".into(), "0x1.0000000000001p+0".into()),
        ("-0x1p-30".into(), "-0x1p+0".into()),
        ("-0x1p-200".into(), "0x1.8p+0".into()),
        ("0x1p-100".into(), "-0x3p+0".into()),
        ("0x1p-100".into(), "0x1.fffffp-1".into()),
        ("0x1.6a09e667f3bcdp-1".into(), "0x1.6a09e667f3bcdp-1".into()),
        ("0x1p-3".into(), "0x1p-40".into()),
        // asin, acos: near the segment [-1, 1] (alpha near 1), beyond +-1
        // just off the real axis (the branch cuts), beta near +-1.
        ("0x1.8p+0".into(), "0x1p-50".into()),
        ("-0x3p-2".into(), "0x1p-70".into()),
        ("0x1.fffffp-1".into(), "-0x1p-20".into()),
        ("-0x1.00001p+0".into(), "0x1p-12".into()),
        ("0x1p-20".into(), "0x1.8p+0".into()),
    ];
    let pi2 = [
        "1.5707963267948966192313216916397514420985846996875529104874722961",
        "3.1415926535897932384626433832795028841971693993751058209749445923",
        "4.7123889803846898576939650749192543262957540990626587314624168884",
        "355",
        "103993",
    ];
    for _ in 0..10 {
        let a = g.pick(&pi2).to_string();
        let b = part(g, pb + 8, Mag::Mid);
        if g.below(2) == 0 {
            v.push((a, b));
        } else {
            v.push((b, a));
        }
    }
    for _ in 0..6 {
        // cos t + i sin t rounded: |z| within 2^-p of 1.
        let t = g.below(1 << 20) as f64 / (1u64 << 18) as f64;
        v.push((format!("{}", t.cos()), format!("{}", t.sin())));
    }
    for e in [29i64, 30, 40, 41] {
        let (e1, e2) = (g.range(-5, 5), g.range(-5, 5));
        v.push((value(g, pa + 8, e), value(g, pb + 8, e1)));
        v.push((value(g, pa + 8, e2), value(g, pb + 8, e)));
    }
    ComplexArray::from_strs(pa, pb, &v).unwrap()
}

/// Each element's parts in hex and its ternary pair, one row per element.
fn show(z: &ComplexArray, t: &[(i8, i8)]) -> Vec<String> {
    let h = z.to_hex_strings().unwrap();
    (0..z.len())
        .map(|i| format!("{} {} ({} {})", h[i].0, h[i].1, t[i].0, t[i].1))
        .collect()
}

/// A result: both parts and the ternary pairs.
type Res = (ComplexArray, Vec<(i8, i8)>);

/// A result with the device's statistics, or the error.
type Stats = mparray::Result<(ComplexArray, Vec<(i8, i8)>, FuncStats)>;

/// A result on the host with its ternary pairs read back.
fn res((z, t): (ComplexArray, ComplexTernary)) -> Res {
    (z.to_host().unwrap(), t.to_pairs().unwrap())
}

/// Literal parts (re, im).
type Lits = &'static [(&'static str, &'static str)];

/// `(re + i im)` of element `i`, in hex.
fn hexz(z: &ComplexArray, i: usize) -> String {
    let h = z.to_hex_strings().unwrap();
    format!("({} + i {})", h[i].0, h[i].1)
}

/// A device (or emulated) result against the CPU engine's, element by
/// element, bits and ternary pairs; `desc(i)` names element i.
fn same(what: &str, got: &Res, want: &Res, desc: impl Fn(usize) -> String) {
    assert_eq!(got.0.len(), want.0.len(), "{what}: length");
    let (g, w) = (show(&got.0, &got.1), show(&want.0, &want.1));
    for i in 0..want.0.len() {
        assert_eq!(g[i], w[i], "{what}: {}", desc(i));
    }
}

/// Compares a device (or emulated) result of `f` with the CPU engine's.
fn compare(what: &str, f: CFunc, z: &ComplexArray, pr: u64, pi: u64, rnd: CRound, got: &Res) {
    let want = res(z.func_ternary(f, pr, pi, rnd).unwrap());
    same(what, got, &want, |i| {
        format!(
            "{}{} at ({pr}, {pi}) bits, {}",
            f.name(),
            hexz(z, i),
            rnd.name()
        )
    });
}

/// A device or emulated evaluation of `f` (with its statistics) against
/// the CPU engine; an error only where the CPU engine itself gives up (its
/// Ziv cap on an element the device sent it). Whether it was compared.
#[allow(clippy::too_many_arguments)]
fn check_func(
    what: &str,
    f: CFunc,
    z: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    res: Stats,
    tally: &mut Tally,
) -> bool {
    match res {
        Ok((r, t, st)) => {
            tally.add(&st);
            compare(what, f, z, pr, pi, rnd, &(r, t));
            true
        }
        Err(e) => {
            eprintln!("{}: {e}", f.name());
            assert!(
                z.func_ternary(f, pr, pi, rnd).is_err(),
                "{}: the {what} path failed ({e}), the CPU engine did not",
                f.name()
            );
            false
        }
    }
}

/// A generator on a fresh seed (printed; MPARRAY_TEST_SEED replays).
fn seeded() -> Rng {
    let s = seed();
    eprintln!("seed {s}");
    Rng(s)
}

fn emu() -> Option<String> {
    common::emulator("MPARRAY_CFUNC_EMU", "tests/emu/cplxgpu/emu.cpp")
        .map(|p| p.to_string_lossy().into_owned())
}

/// The running totals of a test (printed at the end).
#[derive(Default)]
struct Tally {
    elements: u64,
    device: u64,
    retried_on_device: u64,
    host: u64,
}

impl Tally {
    fn report(&self, what: &str) {
        eprintln!(
            "{what}: {} elements, {} on the device, {} retried there, {} host",
            self.elements, self.device, self.retried_on_device, self.host
        );
    }

    fn add(&mut self, st: &FuncStats) {
        self.elements += st.elements;
        self.device += st.elements - st.retried;
        self.retried_on_device += st.device_retried;
        self.host += st.host;
    }
}

#[allow(clippy::too_many_arguments)]
fn emulated(
    exe: &str,
    f: CFunc,
    z: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
    tally: &mut Tally,
) {
    let res = cuda_func::emulated(exe, Op::Func(f), z, None, pr, pi, rnd, retry_min);
    check_func("emulated", f, z, pr, pi, rnd, res, tally);
}

/// Every device function at every precision of PRECS (the imaginary part's
/// precision the same, or another one), random input precisions near the
/// output's, each magnitude class in each part, a random rounding pair per
/// case; the device must write most regular elements itself.
#[test]
fn cfuncemu_random_magnitudes_and_precisions() {
    let Some(exe) = emu() else { return };
    let mut g = seeded();
    let mut tally = Tally::default();
    let mut regular = Tally::default();
    let all = CRound::all();
    let mags = [Mag::One, Mag::Mid, Mag::Tiny, Mag::Large, Mag::Mixed];
    for f in DEV {
        for &p in PRECS {
            let pi = if g.below(2) == 0 {
                p
            } else {
                (p as i64 + g.range(-40, 200)).max(1) as u64
            };
            let pa = (p as i64 + g.range(-30, 30)).max(1) as u64;
            let pb = if g.below(3) == 0 {
                pa
            } else {
                (pi as i64 + g.range(-30, 30)).max(1) as u64
            };
            let mr = g.pick(&mags);
            let mi = g.pick(&mags);
            let rnd = all[g.index(all.len())];
            let len = if p > 1100 { 8 } else { 24 };
            let z = array(&mut g, len, pa, pb, mr, mi);
            emulated(&exe, f, &z, p, pi, rnd, 1, &mut tally);
            // Regular elements near 1: the device's own share.
            let z = array(&mut g, len, pa, pb, Mag::Mid, Mag::One);
            emulated(&exe, f, &z, p, pi, rnd, 1, &mut regular);
        }
    }
    tally.report("all");
    regular.report("regular");
    // Above the largest tier (2 of 22 precisions) everything is the host's.
    assert!(
        regular.device * 10 >= regular.elements * 8,
        "the device wrote only {} of {} regular elements",
        regular.device,
        regular.elements
    );
}

/// All 25 rounding pairs at a few precisions per function, on the edge
/// inputs (unit circle, multiples of pi/2, exponent limits) plus random
/// ones; the retry at larger tiers is exercised (retry_min 1).
#[test]
fn cfuncemu_all_rounding_pairs_and_edges() {
    let Some(exe) = emu() else { return };
    let mut g = seeded();
    let mut tally = Tally::default();
    for f in DEV {
        for p in [2u64, 53, 113, 256] {
            let pi = g.pick(&[p, p + 7, p / 2 + 1]);
            let pa = g.pick(&[p, p + 20, 64]);
            let pb = g.pick(&[pi, 53]);
            let mut z = edge_array(&mut g, pa, pb);
            let extra = array(&mut g, 8, pa, pb, Mag::Mixed, Mag::Mixed);
            z = concat(&z, &extra);
            for rnd in CRound::all() {
                emulated(&exe, f, &z, p, pi, rnd, 1, &mut tally);
            }
        }
    }
    tally.report("all");
    assert!(tally.device > 0);
}

/// Exponents for pow: complex `y` of random magnitudes, real `y` (an
/// imaginary part of +-0: pow.rs's exact-result rule), integers, half
/// integers and near-integers, purely imaginary `y`, specials.
fn exponent_part(g: &mut Rng, bits: u64) -> (String, String) {
    let zero = || if (bits & 1) == 0 { "0" } else { "-0" };
    let int = |g: &mut Rng| format!("{}", g.range(-12, 12));
    match g.below(9) {
        0 => (part(g, bits, Mag::One), part(g, bits, Mag::One)),
        1 => (part(g, bits, Mag::Mid), part(g, bits, Mag::Tiny)),
        2 => (part(g, bits, Mag::One), zero().to_string()),
        3 => (int(g), zero().to_string()),
        4 => (
            format!("{}.5", g.range(-6, 6)),
            g.pick(&["0", "-0"]).to_string(),
        ),
        5 => {
            // n + 2^-k, maybe with an imaginary part.
            let n = g.range(-8, 8);
            let k = g.range(20, 200);
            let im = if g.below(2) == 0 {
                "0".to_string()
            } else {
                part(g, bits, Mag::Tiny)
            };
            let bits = format!("{:b}{}1", n.unsigned_abs(), "0".repeat(k as usize - 1));
            let sign = if n < 0 { "-" } else { "" };
            (format!("{sign}0x{}p-{k}", num_hex(&bits)), im)
        }
        6 => (g.pick(&["0", "-0"]).to_string(), part(g, bits, Mag::One)),
        7 => (part(g, bits, Mag::Mixed), part(g, bits, Mag::Mixed)),
        _ => (part(g, bits, Mag::Mid), part(g, bits, Mag::Mid)),
    }
}

/// Bases for pow: random magnitudes, near 1 (`1 + 2^-k + i 2^-j`), on and
/// near the unit circle, `|a| = |b|`, Gaussian integers, the axes.
fn base_part(g: &mut Rng, pa: u64, pb: u64) -> (String, String) {
    match g.below(8) {
        0 => (
            format!(
                "{}",
                1.0 + (g.range(-1, 1) as f64) * 2f64.powi(-(g.range(10, 50) as i32))
            ),
            {
                let e = -g.range(1, 60);
                value(g, pb + 8, e)
            },
        ),
        1 => {
            let t = g.below(1 << 20) as f64 / (1u64 << 18) as f64;
            (format!("{}", t.cos()), format!("{}", t.sin()))
        }
        2 => {
            let e = g.range(-5, 5);
            let v = value(g, pa.min(pb) + 8, e);
            let w = if g.below(2) == 0 {
                v.clone()
            } else {
                format!("-{}", v.trim_start_matches('-'))
            };
            (v, w)
        }
        3 => (format!("{}", g.range(-9, 9)), format!("{}", g.range(-9, 9))),
        4 => (part(g, pa + 8, Mag::Mixed), part(g, pb + 8, Mag::Mixed)),
        5 => (part(g, pa + 8, Mag::Tiny), part(g, pb + 8, Mag::Large)),
        _ => (part(g, pa + 8, Mag::Mid), part(g, pb + 8, Mag::One)),
    }
}

fn pow_arrays(g: &mut Rng, len: usize, pa: u64, pb: u64) -> (ComplexArray, ComplexArray) {
    let x: Vec<(String, String)> = (0..len).map(|_| base_part(g, pa, pb)).collect();
    let y: Vec<(String, String)> = (0..len).map(|_| exponent_part(g, pb + 8)).collect();
    (
        ComplexArray::from_strs(pa, pb, &x).unwrap(),
        ComplexArray::from_strs(pb, pa, &y).unwrap(),
    )
}

/// The two-operand operations: div (float_cdiv) and pow (float_cpow).
#[derive(Clone, Copy, Debug)]
enum Two {
    Div,
    Pow,
}

type Arr2 = (ComplexArray, ComplexArray);

impl Two {
    /// The CPU engine's result.
    fn cpu(
        self,
        x: &ComplexArray,
        y: &ComplexArray,
        pr: u64,
        pi: u64,
        r: CRound,
    ) -> mparray::Result<Res> {
        match self {
            Two::Div => x.div_ternary(y, pr, pi, r),
            Two::Pow => x.pow_ternary(y, pr, pi, r),
        }
        .map(res)
    }

    fn emulated(
        self,
        exe: &str,
        x: &ComplexArray,
        y: &ComplexArray,
        pr: u64,
        pi: u64,
        r: CRound,
    ) -> Stats {
        let op = match self {
            Two::Div => Op::Div,
            Two::Pow => Op::Pow,
        };
        cuda_func::emulated(exe, op, x, Some(y), pr, pi, r, 1)
    }

    /// The statistics entry point and the plain method, on the operands'
    /// engine (a CUDA device).
    fn on_device(self, x: &ComplexArray, y: &ComplexArray, p: u64, r: CRound) -> [Res; 2] {
        let (z, t, st) = match self {
            Two::Div => x.div_ternary_stats(y, p, p, r),
            Two::Pow => x.pow_ternary_stats(y, p, p, r),
        }
        .unwrap();
        assert!(
            z.engine().same_as(&x.engine()),
            "{self:?}: result on the device"
        );
        let st = st.expect("statistics on CUDA");
        eprintln!(
            "{self:?} {p}: {} elements, {} retried, {} host",
            st.elements, st.retried, st.host
        );
        let m = match self {
            Two::Div => x.div_ternary(y, p, p, r),
            Two::Pow => x.pow_ternary(y, p, p, r),
        }
        .unwrap();
        [res((z, t)), res(m)]
    }

    /// Random operands: magnitudes and specials in each part (div); the
    /// base and exponent classes of base_part and exponent_part (pow).
    fn random(self, g: &mut Rng, len: usize, pa: u64, pb: u64) -> Arr2 {
        let mags = [Mag::One, Mag::Mid, Mag::Tiny, Mag::Large, Mag::Mixed];
        match self {
            Two::Div => {
                let (m1, m2, m3, m4) = (g.pick(&mags), g.pick(&mags), g.pick(&mags), g.pick(&mags));
                let x = array(g, len, pa, pb, m1, m2);
                (x, array(g, len, pb, pa, m3, m4))
            }
            Two::Pow => pow_arrays(g, len, pa, pb),
        }
    }

    /// Regular operands: the device must write most of them.
    fn regular(self, g: &mut Rng, len: usize, pa: u64, pb: u64) -> Arr2 {
        let (mx, my) = match self {
            Two::Div => ((Mag::Mid, Mag::One), (Mag::One, Mag::Mid)),
            Two::Pow => ((Mag::One, Mag::One), (Mag::One, Mag::One)),
        };
        let x = array(g, len, pa, pb, mx.0, mx.1);
        (x, array(g, len, pb, pa, my.0, my.1))
    }

    /// Edge operands at precision `p` (all 25 rounding pairs run on them)
    /// and the precisions they run at. Div: exact quotients ((2+2i)/(1+i)
    /// = 2, (1+i)/(1-i) = i: an exact zero real part, MPC's +0), equal
    /// parts, random regular ones. Pow: exact powers, real and imaginary
    /// results, x near 1, y near integers and random classes.
    fn edges(self, g: &mut Rng, p: u64) -> Arr2 {
        let (ex, ey): (Lits, Lits) = match self {
            Two::Div => (
                &[
                    ("2", "2"),
                    ("1", "1"),
                    ("3", "4"),
                    ("0x1p-30", "5"),
                    ("-7", "0x3p+20"),
                    ("1", "1"),
                ],
                &[
                    ("1", "1"),
                    ("1", "-1"),
                    ("1", "2"),
                    ("3", "-0x1p-40"),
                    ("-7", "0x3p+20"),
                    ("1", "1"),
                ],
            ),
            Two::Pow => (
                &[
                    ("3", "4"),
                    ("2", "1"),
                    ("1", "1"),
                    ("-1", "1"),
                    ("0x1.0000000000001p+0", "0x1p-30"),
                    ("0.6", "0.8"),
                    ("1", "0x1p-200"),
                    ("-3", "0x1p-100"),
                ],
                &[
                    ("0.5", "0"),
                    ("2", "-0"),
                    ("2", "0"),
                    ("3", "0"),
                    ("0x1p+20", "1"),
                    ("0.5", "0.25"),
                    ("7", "-0x1p-60"),
                    ("-2.5", "0"),
                ],
            ),
        };
        let (x2, y2) = match self {
            Two::Div => {
                let x2 = array(g, 10, p, p, Mag::Mid, Mag::Mixed);
                (x2, array(g, 10, p, p, Mag::One, Mag::Mid))
            }
            Two::Pow => pow_arrays(g, 16, p, p),
        };
        let x = ComplexArray::from_strs(p, p, ex).unwrap();
        let y = ComplexArray::from_strs(p, p, ey).unwrap();
        (concat(&x, &x2), concat(&y, &y2))
    }

    fn edge_precs(self) -> &'static [u64] {
        match self {
            Two::Div => &[2, 53, 256],
            Two::Pow => &[2, 53, 113, 256],
        }
    }
}

/// A two-operand device (or emulated) result against the CPU engine.
#[allow(clippy::too_many_arguments)]
fn compare_two(
    what: &str,
    op: Two,
    x: &ComplexArray,
    y: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    got: &Res,
) {
    let want = op.cpu(x, y, pr, pi, rnd).unwrap();
    same(what, got, &want, |i| {
        format!(
            "{op:?} x = {}, y = {} at ({pr}, {pi}), {}",
            hexz(x, i),
            hexz(y, i),
            rnd.name()
        )
    });
}

/// Through the emulator against the CPU engine (bit for bit, ternary pairs
/// included); an emulated failure only where the CPU engine fails.
#[allow(clippy::too_many_arguments)]
fn emulated_two(
    exe: &str,
    op: Two,
    x: &ComplexArray,
    y: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    t: &mut Tally,
) {
    match op.emulated(exe, x, y, pr, pi, rnd) {
        Ok((r, tt, st)) => {
            t.add(&st);
            compare_two("emulated", op, x, y, pr, pi, rnd, &(r, tt));
        }
        Err(e) => assert!(op.cpu(x, y, pr, pi, rnd).is_err(), "{op:?}: {e}"),
    }
}

/// Div or pow through the emulator: random operands (Two::random) at
/// every precision of PRECS with mixed part and operand precisions and a
/// random rounding pair, a regular batch per precision whose device share
/// is asserted, and all 25 pairs on the edge operands.
fn emu_two(op: Two) {
    let Some(exe) = emu() else { return };
    let mut g = seeded();
    let mut tally = Tally::default();
    let mut regular = Tally::default();
    let all = CRound::all();
    for &p in PRECS {
        let pi = if g.below(2) == 0 { p } else { p + g.below(100) };
        let pa = (p as i64 + g.range(-30, 30)).max(1) as u64;
        let pb = (pi as i64 + g.range(-30, 30)).max(1) as u64;
        let rnd = all[g.index(all.len())];
        let len = if p > 1100 { 8 } else { 24 };
        let (x, y) = op.random(&mut g, len, pa, pb);
        emulated_two(&exe, op, &x, &y, p, pi, rnd, &mut tally);
        let (x, y) = op.regular(&mut g, len, pa, pb);
        emulated_two(&exe, op, &x, &y, p, pi, rnd, &mut regular);
    }
    for &p in op.edge_precs() {
        let (x, y) = op.edges(&mut g, p);
        for rnd in CRound::all() {
            emulated_two(&exe, op, &x, &y, p, p + 3, rnd, &mut tally);
        }
    }
    tally.report("all");
    regular.report("regular");
    assert!(tally.device > 0);
    assert!(regular.device * 10 >= regular.elements * 8);
}

/// Division (float_cdiv) against the CPU engine (emu_two).
#[test]
fn cfuncemu_div() {
    emu_two(Two::Div);
}

/// pow (float_cpow) against the CPU engine (emu_two).
#[test]
fn cfuncemu_pow() {
    emu_two(Two::Pow);
}

fn concat(a: &ComplexArray, b: &ComplexArray) -> ComplexArray {
    let cat = |x: FloatArray, y: FloatArray| -> FloatArray {
        let mut v = x.to_hex_strings().unwrap();
        v.extend(y.to_hex_strings().unwrap());
        FloatArray::from_strs(x.prec(), &v).unwrap()
    };
    ComplexArray::new(
        cat(a.re().unwrap(), b.re().unwrap()),
        cat(a.im().unwrap(), b.im().unwrap()),
    )
    .unwrap()
}

/// Every function through the entry point (all on the device now; one
/// without a device code would go to the CPU engine whole).
#[test]
fn cfuncemu_other_functions_on_the_cpu() {
    let Some(exe) = emu() else { return };
    let mut g = seeded();
    let z = array(&mut g, 6, 60, 70, Mag::Mid, Mag::One);
    for f in CFunc::ALL {
        let (r, t, st) = cuda_func::emulated(
            &exe,
            Op::Func(f),
            &z,
            None,
            53,
            64,
            CRound::both(Round::Nearest),
            1,
        )
        .unwrap();
        if cuda_func::device_code(f).is_none() {
            assert_eq!(st.host, z.len() as u64);
        }
        compare(
            "emulated",
            f,
            &z,
            53,
            64,
            CRound::both(Round::Nearest),
            &(r, t),
        );
    }
}

// ---- on the device ----

/// The engine. Kernels compile lazily, one tier at a time: a device run
/// carries the tiers these tests use (3, 6, 18) precompiled
/// (cfuncnvrtc_compile with MPARRAY_CACHE_DIR).
fn engine() -> Engine {
    Engine::cuda().expect("a CUDA device")
}

/// `f(z)` on `cuda` through the statistics entry point, `z` copied there
/// and the result read back.
fn on_cuda(cuda: &Engine, f: CFunc, z: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Stats {
    let d = z.to_engine(cuda)?;
    let (r, t, st) = d.func_ternary_stats(f, pr, pi, rnd)?;
    assert!(r.engine().same_as(cuda), "{f:?}: result on the device");
    Ok((r.to_host()?, t.to_pairs()?, st.expect("statistics on CUDA")))
}

/// Precisions of the device tests: tiers 3, 6 and 18 (input precisions at
/// most the output's), and above the largest tier (the CPU engine).
const GPU_PRECS: &[u64] = &[53, 256, 1024, 2200];

/// Random magnitudes and specials at precisions across the tiers, through
/// ComplexArray::func_ternary on CUDA and the statistics entry point.
#[test]
#[ignore = "needs a CUDA device"]
fn cfuncgpu_random_against_cpu() {
    let eng = engine();
    let mut g = seeded();
    let mut tally = Tally::default();
    let all = CRound::all();
    let mags = [Mag::One, Mag::Mid, Mag::Tiny, Mag::Large, Mag::Mixed];
    for f in DEV {
        for &p in GPU_PRECS {
            let pi = p - g.below(10);
            let pa = p - g.below(30);
            let pb = pi - g.below(30);
            let rnd = all[g.index(all.len())];
            let len = if p > 1100 { 40 } else { 400 };
            let (mr, mi) = (g.pick(&mags), g.pick(&mags));
            let z = array(&mut g, len, pa, pb, mr, mi);
            let r = on_cuda(&eng, f, &z, p, pi, rnd);
            if !check_func("cuda", f, &z, p, pi, rnd, r, &mut tally) {
                continue;
            }
            // The plain method on the device.
            let d = z.to_engine(&eng).unwrap();
            let got = res(d.func_ternary(f, p, pi, rnd).unwrap());
            compare("cuda method", f, &z, p, pi, rnd, &got);
        }
        // Edges, all pairs at 256 bits.
        let z = edge_array(&mut g, 256, 240);
        for rnd in CRound::all() {
            let (r, t, st) = on_cuda(&eng, f, &z, 256, 250, rnd).unwrap();
            tally.add(&st);
            compare("cuda edges", f, &z, 256, 250, rnd, &(r, t));
        }
    }
    tally.report("all");
}

/// Div or pow on the device against the CPU engine, random and regular
/// operands (Two's), through the statistics entry point and the method
/// (counts printed).
fn gpu_two(op: Two) {
    let eng = engine();
    let mut g = seeded();
    let all = CRound::all();
    for &p in GPU_PRECS {
        let len = if p > 1100 { 40 } else { 400 };
        let rnd = all[g.index(all.len())];
        for regular in [false, true] {
            let (x, y) = if regular {
                op.regular(&mut g, len, p, p - 5)
            } else {
                op.random(&mut g, len, p, p - 5)
            };
            let (xd, yd) = (x.to_engine(&eng).unwrap(), y.to_engine(&eng).unwrap());
            let [stats, method] = op.on_device(&xd, &yd, p, rnd);
            compare_two("cuda", op, &x, &y, p, p, rnd, &stats);
            compare_two("cuda method", op, &x, &y, p, p, rnd, &method);
        }
    }
}

/// Division on the device (gpu_two).
#[test]
#[ignore = "needs a CUDA device"]
fn cfuncgpu_div() {
    gpu_two(Two::Div);
}

/// pow on the device (gpu_two).
#[test]
#[ignore = "needs a CUDA device"]
fn cfuncgpu_pow() {
    gpu_two(Two::Pow);
}

/// A large batch of regular elements at 256 bits: the device writes
/// nearly all, the rest patched (counts printed).
#[test]
#[ignore = "needs a CUDA device"]
fn cfuncgpu_large_batch() {
    let eng = engine();
    let mut g = seeded();
    for f in DEV {
        let z = array(&mut g, 20000, 256, 256, Mag::Mid, Mag::One);
        let rnd = CRound::new(Round::Nearest, Round::Up);
        let (r, t, st) = on_cuda(&eng, f, &z, 256, 256, rnd).unwrap();
        eprintln!(
            "{}: {} elements, {} retried, {} on the device again, {} host",
            f.name(),
            st.elements,
            st.retried,
            st.device_retried,
            st.host
        );
        compare("cuda batch", f, &z, 256, 256, rnd, &(r, t));
    }
}

/// Compiles the float_cfunc module (float_cfunc, float_cdiv, float_cpow) with NVRTC for
/// sm_90 (no device needed) at the tiers listed in MPARRAY_CFUNC_NVRTC
/// ("3,14" or "all"), failing on any warning; with MPARRAY_CACHE_DIR set,
/// into that cache (to carry to the GPU machine).
#[test]
#[ignore = "a tool, not a check: needs MPARRAY_CFUNC_NVRTC (CI compiles every kernel with `mparray kernels compile`)"]
fn cfuncnvrtc_compile() {
    let Ok(which) = std::env::var("MPARRAY_CFUNC_NVRTC") else {
        return; // the tool was not asked for
    };
    std::thread::scope(|s| {
        for i in mparray::complex::cuda_func::instances() {
            if which != "all"
                && !which
                    .split(',')
                    .any(|k| i.key().ends_with(&format!("={k}")))
            {
                continue;
            }
            s.spawn(move || {
                let t = std::time::Instant::now();
                let c = mparray::engine::cuda::compile::compile(
                    i.source.name,
                    &i.full_source(),
                    &i.options(),
                    "sm_90",
                    std::env::var_os("MPARRAY_CACHE_DIR")
                        .map(|_| mparray::engine::cuda::compile::cache_dir())
                        .as_deref(),
                )
                .expect("compiles");
                assert!(!c.log.to_lowercase().contains("warning"), "{}", c.log);
                eprintln!(
                    "{}: {:.1} s, {} bytes",
                    i.key(),
                    t.elapsed().as_secs_f64(),
                    c.cubin.len()
                );
            });
        }
    });
}

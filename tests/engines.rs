//! One array type per number kind on every engine (DESIGN.md, "Arrays on
//! engines"): the same chains of operations run on the CPU engine and on
//! CUDA, each chain computed wholly on its engine (no copy to the host
//! between steps), and compared bit for bit, values and ternary values, at
//! every step:
//! - float: random arrays -> exp, add, mul (into a wider precision, mixed
//!   operand precisions), div, sqrt, fma, pow, atan2, sin_cos, log;
//! - complex: random parts -> mul, div, sqr, exp, log, sqrt, pow, mul_fr,
//!   abs, norm, arg (mixed part precisions);
//! - precisions crossing the device tiers (53 .. 2048) and one above
//!   MAX_CUDA_PREC (computed by the CPU engine, results kept on CUDA), all
//!   five rounding modes.
//!
//! A few elements of every step are also checked against an independent
//! reference: malachite-float for the real operations and functions
//! (MPFR's semantics), exact rational arithmetic and
//! `mparray::complex::reference` for the complex ones (as
//! tests/complex_cpu.rs).
//!
//! `cpu_*` run everywhere (CI): the chains on the CPU engine against the
//! references, random arrays, copies and shape errors. `cuda_*` need a
//! device (ignored otherwise): the chains and random arrays on CUDA equal to
//! the CPU engine's, results staying on the device, operands on different
//! engines refused with `Error::EngineMismatch`. Fresh seeds each run
//! (printed; MPARRAY_TEST_SEED replays).

use std::cmp::Ordering;

use malachite_float::{ComparableFloatRef, Float};
use malachite_q::Rational;
use mparray::complex::reference::{C, arg_ref, reference, reference_pow};
use mparray::complex::{CFunc, CRound, ComplexArray, ComplexTernary};
use mparray::float::cuda::MAX_CUDA_PREC;
use mparray::float::func::reference::{malachite_func, malachite_func2};
use mparray::float::func::{Func, Func2, FuncStats};
use mparray::float::{FloatOp, TernaryArray, to_rounding_mode};
use mparray::{Engine, Error, FloatArray, Result, Round};

mod common;
use common::seed;

/// Precisions crossing the device tiers, and one above the device's
/// largest (the CPU engine's, with the results written back to CUDA).
const PRECS: &[u64] = &[53, 64, 128, 512, 1024, 2048, MAX_CUDA_PREC + 64];

/// The CPU-only tests' precisions (CI time; the complex chain's reference
/// runs on the first four).
const CPU_PRECS: &[u64] = &[53, 64, 128, 512, 1024, 2048];

/// Elements per chain at precision `p` on the device tests.
fn len_at(p: u64) -> usize {
    match p {
        0..=1024 => 64,
        1025..=4096 => 16,
        _ => 3,
    }
}

/// A real result and its ternary values.
type FT = (FloatArray, TernaryArray);

/// A complex result and its ternary pairs.
type CT = (ComplexArray, ComplexTernary);

/// A complex result read back: both parts and the ternary pairs.
type CHost = (Vec<(Float, Float)>, Vec<(i8, i8)>);

/// The ternary int of an ordering (the sign of rounded minus exact).
fn tern(o: Ordering) -> i8 {
    o as i8
}

// ---- the float chain ----------------------------------------------------

/// Every step of the float chain, on one engine.
struct FloatChain {
    /// Uniform in [0, 1) (`random_unit`).
    x: FloatArray,
    /// Uniform in [-4, 4) (`random_uniform`).
    y: FloatArray,
    /// Random signs and exponents in [-8, 8], `p + 17` bits (`random_exp`).
    z: FloatArray,
    /// exp(x).
    ex: FT,
    /// ex + y.
    s: FT,
    /// s * z at `wide(p)` bits.
    m: FT,
    /// m / ex.
    d: FT,
    /// sqrt(ex).
    r: FT,
    /// r * d + y.
    f: FT,
    /// ex ^ y.
    pw: FT,
    /// atan2(f, s).
    at: FT,
    /// sin(at), cos(at).
    sn: FT,
    cs: FT,
    /// log(r).
    lg: FT,
}

/// The product's precision: wider than the operands (another tier).
fn wide(p: u64) -> u64 {
    2 * p + 1
}

fn no_stats((a, t, _): (FloatArray, TernaryArray, FuncStats)) -> FT {
    (a, t)
}

fn float_chain(e: &Engine, n: usize, p: u64, seed: u64, rnd: Round) -> Result<FloatChain> {
    let x = FloatArray::random_unit(e, n, p, seed)?;
    let y = FloatArray::random_uniform(e, n, p, seed ^ 0x5555, -4.0, 4.0, rnd)?;
    let z = FloatArray::random_exp(e, n, p + 17, seed ^ 0xaaaa, -8, 8)?;
    let ex = no_stats(x.func_ternary(Func::Exp, p, rnd)?);
    let s = ex.0.add_ternary(&y, p, rnd)?;
    let m = s.0.mul_ternary(&z, wide(p), rnd)?;
    let d = m.0.div_ternary(&ex.0, p, rnd)?;
    let r = ex.0.sqrt_ternary(p, rnd)?;
    let f = r.0.fma_ternary(&d.0, &y, p, rnd)?;
    let pw = no_stats(ex.0.func2_ternary(&y, Func2::Pow, p, rnd)?);
    let at = no_stats(f.0.func2_ternary(&s.0, Func2::Atan2, p, rnd)?);
    let (sn, cs, _) = at.0.sin_cos_ternary(p, rnd)?;
    let lg = no_stats(r.0.func_ternary(Func::Log, p, rnd)?);
    Ok(FloatChain {
        x,
        y,
        z,
        ex,
        s,
        m,
        d,
        r,
        f,
        pw,
        at,
        sn,
        cs,
        lg,
    })
}

impl FloatChain {
    /// The steps in order, with their ternary values (none for the random
    /// inputs).
    fn steps(&self) -> Vec<(&'static str, &FloatArray, Option<&TernaryArray>)> {
        let mut v = vec![
            ("random_unit", &self.x, None),
            ("random_uniform", &self.y, None),
            ("random_exp", &self.z, None),
        ];
        for (name, (a, t)) in [
            ("exp", &self.ex),
            ("add", &self.s),
            ("mul", &self.m),
            ("div", &self.d),
            ("sqrt", &self.r),
            ("fma", &self.f),
            ("pow", &self.pw),
            ("atan2", &self.at),
            ("sin", &self.sn),
            ("cos", &self.cs),
            ("log", &self.lg),
        ] {
            v.push((name, a, Some(t)));
        }
        v
    }
}

/// `got` (on `e`) equal to `want` bit for bit; names the first element
/// that differs.
fn same_float(what: &str, e: &Engine, got: &FloatArray, want: &FloatArray) {
    assert!(
        got.engine().same_as(e),
        "{what}: the result is on {}, not on {}",
        got.engine().name(),
        e.name()
    );
    assert_eq!(
        (got.len(), got.prec()),
        (want.len(), want.prec()),
        "{what}: length and precision"
    );
    if got != want {
        let (g, w) = (
            got.to_hex_strings().unwrap(),
            want.to_hex_strings().unwrap(),
        );
        match (0..w.len()).find(|&i| g[i] != w[i]) {
            Some(i) => panic!("{what}: element {i}: {} {}, cpu {}", e.name(), g[i], w[i]),
            None => panic!("{what}: the arrays differ in raw bits but not in value"),
        }
    }
}

fn same_ternary(what: &str, e: &Engine, got: &TernaryArray, want: &TernaryArray) {
    assert!(
        got.engine().same_as(e),
        "{what}: the ternary values are on {}, not on {}",
        got.engine().name(),
        e.name()
    );
    assert_eq!(
        got.to_vec().unwrap(),
        want.to_vec().unwrap(),
        "{what}: ternary values"
    );
}

/// Every step of `got` (computed on `e`) against the CPU engine's chain.
fn same_float_chain(what: &str, e: &Engine, got: &FloatChain, want: &FloatChain) {
    for ((name, g, gt), (_, w, wt)) in got.steps().into_iter().zip(want.steps()) {
        let what = format!("{what} {name}");
        same_float(&what, e, g, w);
        if let (Some(gt), Some(wt)) = (gt, wt) {
            same_ternary(&what, e, gt, wt);
        }
    }
}

/// One element of a result against the reference's rounding (value,
/// signed zeros and NaN included, and ternary value).
fn check_elem(what: &str, got: &Float, t: i8, want: &(Float, Ordering)) {
    assert!(
        ComparableFloatRef(got) == ComparableFloatRef(&want.0) && t == tern(want.1),
        "{what}: got {got:#x} ({t}), want {:#x} ({:?})",
        want.0,
        want.1
    );
}

/// The first `k` elements of every step of `c` (on any engine) against
/// malachite-float, each step from the chain's own previous values.
fn check_float_chain(c: &FloatChain, p: u64, rnd: Round, k: usize) {
    let rm = to_rounding_mode(rnd);
    let v = |a: &FloatArray| a.to_floats().unwrap();
    let vt = |a: &FT| (v(&a.0), a.1.to_vec().unwrap());
    let (x, y, z) = (v(&c.x), v(&c.y), v(&c.z));
    let (ex, s, m, d, r, f) = (vt(&c.ex), vt(&c.s), vt(&c.m), vt(&c.d), vt(&c.r), vt(&c.f));
    let (pw, at, sn, cs, lg) = (vt(&c.pw), vt(&c.at), vt(&c.sn), vt(&c.cs), vt(&c.lg));
    for i in 0..k.min(x.len()) {
        let w = |op: &str| format!("{op} p={p} {rnd:?} element {i}");
        let chk = |op: &str, got: &(Vec<Float>, Vec<i8>), want: (Float, Ordering)| {
            check_elem(&w(op), &got.0[i], got.1[i], &want)
        };
        chk("exp", &ex, malachite_func(Func::Exp, &x[i], p, rm));
        chk("add", &s, ex.0[i].add_prec_round_ref_ref(&y[i], p, rm));
        chk("mul", &m, s.0[i].mul_prec_round_ref_ref(&z[i], wide(p), rm));
        chk("div", &d, m.0[i].div_prec_round_ref_ref(&ex.0[i], p, rm));
        chk("sqrt", &r, ex.0[i].sqrt_prec_round_ref(p, rm));
        chk(
            "fma",
            &f,
            y[i].add_mul_prec_round_ref_ref_ref(&r.0[i], &d.0[i], p, rm),
        );
        chk(
            "pow",
            &pw,
            malachite_func2(Func2::Pow, &ex.0[i], &y[i], p, rm),
        );
        chk(
            "atan2",
            &at,
            malachite_func2(Func2::Atan2, &f.0[i], &s.0[i], p, rm),
        );
        chk("sin", &sn, malachite_func(Func::Sin, &at.0[i], p, rm));
        chk("cos", &cs, malachite_func(Func::Cos, &at.0[i], p, rm));
        chk("log", &lg, malachite_func(Func::Log, &r.0[i], p, rm));
    }
}

// ---- the complex chain --------------------------------------------------

/// Every step of the complex chain, on one engine: parts of `p` bits
/// (real) and `q` bits (imaginary).
struct ComplexChain {
    /// Random parts uniform in [-2, 2).
    z: ComplexArray,
    w: ComplexArray,
    /// Uniform in [1/2, 3) (mul_fr's factor), `q` bits.
    k: FloatArray,
    /// z * w.
    m: CT,
    /// m / z.
    dv: CT,
    /// dv^2.
    sq: CT,
    /// exp(sq), log(ex), sqrt(lg).
    ex: CT,
    lg: CT,
    sr: CT,
    /// sr ^ w.
    pw: CT,
    /// pw * k (mpc_mul_fr).
    mf: CT,
    /// |pw| (`p` bits), |pw|^2 (`q` bits), arg(pw) (`p` bits).
    abs: FT,
    norm: FT,
    arg: FT,
}

/// The imaginary parts' precision: another tier than the real parts'.
fn prec_im(p: u64) -> u64 {
    p + 11
}

/// The rounding pair of a chain: `r` for the real parts, another mode for
/// the imaginary parts (all 25 pairs are tests/complex_cpu.rs's).
fn cround(r: Round) -> CRound {
    let i = Round::ALL.iter().position(|&m| m == r).unwrap();
    CRound::new(r, Round::ALL[(i + 2) % 5])
}

fn random_complex(e: &Engine, n: usize, p: u64, q: u64, seed: u64) -> Result<ComplexArray> {
    ComplexArray::new(
        FloatArray::random_uniform(e, n, p, seed, -2.0, 2.0, Round::Nearest)?,
        FloatArray::random_uniform(e, n, q, seed ^ 0x3c3c, -2.0, 2.0, Round::Zero)?,
    )
}

/// A function result without its statistics, checking that they come
/// where the device ran (CUDA at precisions it serves) and not on the CPU.
fn stats_where_run(
    e: &Engine,
    q: u64,
    (z, t, st): (ComplexArray, ComplexTernary, Option<FuncStats>),
) -> CT {
    match e {
        Engine::Cpu => assert!(st.is_none(), "statistics from the CPU engine"),
        Engine::Cuda(_) if q <= MAX_CUDA_PREC => {
            assert!(st.is_some(), "no statistics from the device")
        }
        Engine::Cuda(_) => {}
    }
    (z, t)
}

fn complex_chain(e: &Engine, n: usize, p: u64, seed: u64, rnd: CRound) -> Result<ComplexChain> {
    let q = prec_im(p);
    let z = random_complex(e, n, p, q, seed)?;
    let w = random_complex(e, n, q, p, seed ^ 0x7777)?;
    let k = FloatArray::random_uniform(e, n, q, seed ^ 0x9999, 0.5, 3.0, rnd.im)?;
    let m = z.mul_ternary(&w, p, q, rnd)?;
    let dv = m.0.div_ternary(&z, p, q, rnd)?;
    let sq = dv.0.sqr_ternary(p, q, rnd)?;
    let ex = stats_where_run(e, q, sq.0.func_ternary_stats(CFunc::Exp, p, q, rnd)?);
    let lg = stats_where_run(e, q, ex.0.func_ternary_stats(CFunc::Log, p, q, rnd)?);
    let sr = stats_where_run(e, q, lg.0.func_ternary_stats(CFunc::Sqrt, p, q, rnd)?);
    let pw = stats_where_run(e, q, sr.0.pow_ternary_stats(&w, p, q, rnd)?);
    let mf = pw.0.mul_fr_ternary(&k, p, q, rnd)?;
    let abs = pw.0.abs_ternary(p, rnd.re)?;
    let norm = pw.0.norm_ternary(q, rnd.im)?;
    let arg = pw.0.arg_ternary(p, rnd.re)?;
    Ok(ComplexChain {
        z,
        w,
        k,
        m,
        dv,
        sq,
        ex,
        lg,
        sr,
        pw,
        mf,
        abs,
        norm,
        arg,
    })
}

fn same_complex(what: &str, e: &Engine, got: &ComplexArray, want: &ComplexArray) {
    assert!(
        got.engine().same_as(e),
        "{what}: the result is on {}, not on {}",
        got.engine().name(),
        e.name()
    );
    assert_eq!(
        (got.len(), got.prec_re(), got.prec_im()),
        (want.len(), want.prec_re(), want.prec_im()),
        "{what}: length and precisions"
    );
    if got != want {
        let (g, w) = (
            got.to_hex_strings().unwrap(),
            want.to_hex_strings().unwrap(),
        );
        match (0..w.len()).find(|&i| g[i] != w[i]) {
            Some(i) => panic!(
                "{what}: element {i}: {} {:?}, cpu {:?}",
                e.name(),
                g[i],
                w[i]
            ),
            None => panic!("{what}: the arrays differ in raw bits but not in value"),
        }
    }
}

/// Every step of `got` (computed on `e`) against the CPU engine's chain.
fn same_complex_chain(what: &str, e: &Engine, got: &ComplexChain, want: &ComplexChain) {
    same_complex(&format!("{what} random z"), e, &got.z, &want.z);
    same_complex(&format!("{what} random w"), e, &got.w, &want.w);
    same_float(&format!("{what} random k"), e, &got.k, &want.k);
    for (name, g, w) in [
        ("mul", &got.m, &want.m),
        ("div", &got.dv, &want.dv),
        ("sqr", &got.sq, &want.sq),
        ("exp", &got.ex, &want.ex),
        ("log", &got.lg, &want.lg),
        ("sqrt", &got.sr, &want.sr),
        ("pow", &got.pw, &want.pw),
        ("mul_fr", &got.mf, &want.mf),
    ] {
        let what = format!("{what} {name}");
        same_complex(&what, e, &g.0, &w.0);
        same_ternary(&format!("{what} re"), e, &g.1.re, &w.1.re);
        same_ternary(&format!("{what} im"), e, &g.1.im, &w.1.im);
        assert_eq!(g.1.to_pairs().unwrap(), w.1.to_pairs().unwrap());
    }
    for (name, g, w) in [
        ("abs", &got.abs, &want.abs),
        ("norm", &got.norm, &want.norm),
        ("arg", &got.arg, &want.arg),
    ] {
        let what = format!("{what} {name}");
        same_float(&what, e, &g.0, &w.0);
        same_ternary(&what, e, &g.1, &w.1);
    }
}

fn rat(f: &Float) -> Rational {
    Rational::try_from(f).expect("a finite float")
}

/// `v` rounded to `p` bits in mode `r`.
fn round_q(v: Rational, p: u64, r: Round) -> (Float, Ordering) {
    Float::from_rational_prec_round(v, p, to_rounding_mode(r))
}

/// The square root of the dyadic rational `v >= 0`, correctly rounded: `v`
/// converted exactly first.
fn sqrt_q(v: Rational, p: u64, r: Round) -> (Float, Ordering) {
    let mut bits = 256;
    loop {
        let (x, o) = Float::from_rational_prec(v.clone(), bits);
        if o == Ordering::Equal {
            return x.sqrt_prec_round_ref(p, to_rounding_mode(r));
        }
        bits *= 2;
    }
}

/// The first `k` elements of every step of `c` (on any engine) against
/// exact rational arithmetic (mul, div, sqr, mul_fr, norm, abs) and the
/// complex reference (exp, log, sqrt, pow, arg; a part is checked when its
/// reference interval rounds one way), each step from the chain's own
/// previous values. Returns (parts checked, parts the reference left
/// undecided).
fn check_complex_chain(c: &ComplexChain, p: u64, rnd: CRound, k: usize) -> (u64, u64) {
    let q = prec_im(p);
    let pp = 4 * q + 128;
    let v = |a: &ComplexArray| a.to_floats().unwrap();
    let vt = |a: &CT| (v(&a.0), a.1.to_pairs().unwrap());
    let vr = |a: &FT| (a.0.to_floats().unwrap(), a.1.to_vec().unwrap());
    let (z, w, kk) = (v(&c.z), v(&c.w), c.k.to_floats().unwrap());
    let (m, dv, sq, ex) = (vt(&c.m), vt(&c.dv), vt(&c.sq), vt(&c.ex));
    let (lg, sr, pw, mf) = (vt(&c.lg), vt(&c.sr), vt(&c.pw), vt(&c.mf));
    let (abs, norm, arg) = (vr(&c.abs), vr(&c.norm), vr(&c.arg));
    let (mut checked, mut undecided) = (0, 0);
    for i in 0..k.min(z.len()) {
        let what = |op: &str, part: &str| format!("{op} {part} p={p} {} element {i}", rnd.name());
        // An exact result: both parts rounded from the rationals.
        let exact = |op: &str, got: &CHost, re: Rational, im: Rational| {
            check_elem(
                &what(op, "re"),
                &got.0[i].0,
                got.1[i].0,
                &round_q(re, p, rnd.re),
            );
            check_elem(
                &what(op, "im"),
                &got.0[i].1,
                got.1[i].1,
                &round_q(im, q, rnd.im),
            );
        };
        let (a, b) = (rat(&z[i].0), rat(&z[i].1));
        let (cw, dw) = (rat(&w[i].0), rat(&w[i].1));
        exact("mul", &m, &a * &cw - &b * &dw, &a * &dw + &b * &cw);
        let (mr, mi) = (rat(&m.0[i].0), rat(&m.0[i].1));
        let den = &a * &a + &b * &b;
        exact(
            "div",
            &dv,
            (&mr * &a + &mi * &b) / &den,
            (&mi * &a - &mr * &b) / &den,
        );
        let (dr, di) = (rat(&dv.0[i].0), rat(&dv.0[i].1));
        exact(
            "sqr",
            &sq,
            &dr * &dr - &di * &di,
            Rational::from(2u32) * &dr * &di,
        );
        let (pr_, pi_) = (rat(&pw.0[i].0), rat(&pw.0[i].1));
        let kv = rat(&kk[i]);
        exact("mul_fr", &mf, &pr_ * &kv, &pi_ * &kv);
        let n2 = &pr_ * &pr_ + &pi_ * &pi_;
        check_elem(
            &what("norm", ""),
            &norm.0[i],
            norm.1[i],
            &round_q(n2.clone(), q, rnd.im),
        );
        check_elem(
            &what("abs", ""),
            &abs.0[i],
            abs.1[i],
            &sqrt_q(n2, p, rnd.re),
        );
        // The functions: the reference's interval, where it decides.
        let mut decided = |op: &str, got: &CHost, r: Option<C>| {
            let Some((re, im)) = r else {
                undecided += 2;
                return;
            };
            for (part, want, g, t) in [
                ("re", re.round(p, rnd.re), &got.0[i].0, got.1[i].0),
                ("im", im.round(q, rnd.im), &got.0[i].1, got.1[i].1),
            ] {
                match want {
                    Some(want) => {
                        check_elem(&what(op, part), g, t, &want);
                        checked += 1;
                    }
                    None => undecided += 1,
                }
            }
        };
        let (s0, s1) = (&sq.0[i].0, &sq.0[i].1);
        decided("exp", &ex, reference(CFunc::Exp, s0, s1, pp));
        decided(
            "log",
            &lg,
            reference(CFunc::Log, &ex.0[i].0, &ex.0[i].1, pp),
        );
        decided(
            "sqrt",
            &sr,
            reference(CFunc::Sqrt, &lg.0[i].0, &lg.0[i].1, pp),
        );
        decided(
            "pow",
            &pw,
            reference_pow((&sr.0[i].0, &sr.0[i].1), (&w[i].0, &w[i].1), pp),
        );
        match arg_ref(&pw.0[i].0, &pw.0[i].1, pp).and_then(|a| a.round(p, rnd.re)) {
            Some(want) => {
                check_elem(&what("arg", ""), &arg.0[i], arg.1[i], &want);
                checked += 1;
            }
            None => undecided += 1,
        }
        checked += 10;
    }
    (checked, undecided)
}

// ---- on the CPU engine (CI) ---------------------------------------------

/// The float chain on the CPU engine, every mode, against malachite-float;
/// every result on the CPU engine; the same seed gives the same chain.
#[test]
fn cpu_float_chains_against_malachite() {
    let s = seed();
    let cpu = Engine::Cpu;
    for (j, &p) in CPU_PRECS.iter().enumerate() {
        for (k, rnd) in Round::ALL.into_iter().enumerate() {
            let sd = s.wrapping_add((j * 5 + k) as u64);
            let c = float_chain(&cpu, 6, p, sd, rnd).unwrap();
            check_float_chain(&c, p, rnd, 3);
            let again = float_chain(&cpu, 6, p, sd, rnd).unwrap();
            same_float_chain(&format!("cpu p={p} {rnd:?}"), &cpu, &again, &c);
        }
    }
}

/// The complex chain on the CPU engine, every mode (paired with another
/// for the imaginary parts), against exact arithmetic and the reference.
#[test]
fn cpu_complex_chains_against_reference() {
    let s = seed();
    let cpu = Engine::Cpu;
    let (mut checked, mut undecided) = (0, 0);
    for (j, &p) in CPU_PRECS[..4].iter().enumerate() {
        for (k, r) in Round::ALL.into_iter().enumerate() {
            let rnd = cround(r);
            let c = complex_chain(&cpu, 3, p, s.wrapping_add((j * 5 + k) as u64), rnd).unwrap();
            let (a, b) = check_complex_chain(&c, p, rnd, 2);
            checked += a;
            undecided += b;
            let c2 = complex_chain(&cpu, 3, p, s.wrapping_add((j * 5 + k) as u64), rnd).unwrap();
            same_complex_chain(&format!("cpu p={p} {}", rnd.name()), &cpu, &c2, &c);
        }
    }
    eprintln!("{checked} parts checked, {undecided} undecided");
    assert!(undecided * 20 <= checked, "{undecided} undecided");
}

/// Random arrays: element `i` depends only on the seed and `i` (what lets
/// every engine draw the same bits), at every precision and mode.
#[test]
fn cpu_random_arrays_by_index() {
    let s = seed();
    let cpu = Engine::Cpu;
    let hex = |a: FloatArray| {
        assert!(a.engine().same_as(&cpu));
        a.to_hex_strings().unwrap()
    };
    for &p in PRECS {
        let (n, m) = (9, 4);
        let u = |n| hex(FloatArray::random_unit(&cpu, n, p, s).unwrap());
        assert_eq!(u(n)[..m], u(m)[..], "random_unit p={p}");
        assert_ne!(
            u(m),
            hex(FloatArray::random_unit(&cpu, m, p, s ^ 1).unwrap())
        );
        let x = |n| hex(FloatArray::random_exp(&cpu, n, p, s, -30, 30).unwrap());
        assert_eq!(x(n)[..m], x(m)[..], "random_exp p={p}");
        for rnd in Round::ALL {
            let f = |n| hex(FloatArray::random_uniform(&cpu, n, p, s, -3.0, 0.5, rnd).unwrap());
            assert_eq!(f(n)[..m], f(m)[..], "random_uniform p={p} {rnd:?}");
        }
    }
}

/// Copies on the CPU engine equal their source; the parts of a complex
/// array come back as they went in; shapes are checked.
#[test]
fn cpu_copies_parts_and_shapes() {
    let cpu = Engine::Cpu;
    let a = FloatArray::random_exp(&cpu, 5, 200, seed(), -5, 5).unwrap();
    assert_eq!(a.to_engine(&cpu).unwrap(), a);
    assert_eq!(a.try_clone().unwrap(), a);
    assert_eq!(a.to_host().unwrap(), a);
    let b = FloatArray::random_unit(&cpu, 5, 64, 7).unwrap();
    let z = ComplexArray::new(a.try_clone().unwrap(), b.try_clone().unwrap()).unwrap();
    assert!(z.engine().same_as(&cpu));
    assert_eq!((z.prec_re(), z.prec_im(), z.len()), (200, 64, 5));
    assert_eq!(z.re().unwrap(), a);
    assert_eq!(z.im().unwrap(), b);
    assert_eq!(z.try_clone().unwrap(), z);
    let (re, im) = z.into_parts();
    assert_eq!((re, im), (a, b));
    let c = FloatArray::random_unit(&cpu, 4, 64, 7).unwrap();
    let e = ComplexArray::new(FloatArray::random_unit(&cpu, 5, 64, 7).unwrap(), c)
        .expect_err("a shape error");
    assert!(matches!(e, Error::Shape(_)), "{e}");
    assert_eq!(
        ComplexArray::zeros(&cpu, 3, 10, 20).unwrap(),
        ComplexArray::new(
            FloatArray::zeros(&cpu, 3, 10).unwrap(),
            FloatArray::zeros(&cpu, 3, 20).unwrap()
        )
        .unwrap()
    );
}

// ---- on CUDA ---------------------------------------------------------------

/// The first CUDA device, with every float, function and complex-function
/// kernel compiled into the disk cache first (all at once on every core).
fn cuda() -> Engine {
    let eng = mparray::engine::CudaEngine::shared().expect("a CUDA device");
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut v = mparray::float::cuda::instances();
        v.extend(mparray::float::func::cuda::instances());
        v.extend(mparray::complex::cuda_func::instances());
        common::warm_kernels(&eng, v);
    });
    Engine::cuda().expect("a CUDA device")
}

/// Random arrays drawn on CUDA equal the CPU engine's, at every precision
/// (the largest drawn by the CPU engine and copied) and mode, at lengths
/// around the launch sizes.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_random_arrays_equal_cpu() {
    let (cpu, dev) = (Engine::Cpu, cuda());
    let s = seed();
    for &p in PRECS {
        for n in [1, 255, 1000] {
            let what = format!("p={p} n={n}");
            let both = |f: &dyn Fn(&Engine) -> Result<FloatArray>, name: &str| {
                let (g, w) = (f(&dev).unwrap(), f(&cpu).unwrap());
                same_float(&format!("{name} {what}"), &dev, &g, &w);
            };
            both(&|e| FloatArray::random_unit(e, n, p, s), "random_unit");
            both(
                &|e| FloatArray::random_exp(e, n, p, s, -1000, 1000),
                "random_exp",
            );
            for rnd in Round::ALL {
                both(
                    &|e| FloatArray::random_uniform(e, n, p, s, -7.0, 1e6, rnd),
                    &format!("random_uniform {rnd:?}"),
                );
            }
        }
    }
}

/// The float chain on CUDA, computed there step after step, equal to the
/// CPU engine's at every step (values and ternary values), every
/// precision and mode; a few elements also against malachite-float.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_float_chains_equal_cpu() {
    let (cpu, dev) = (Engine::Cpu, cuda());
    let s = seed();
    for (j, &p) in PRECS.iter().enumerate() {
        for (k, rnd) in Round::ALL.into_iter().enumerate() {
            let sd = s.wrapping_add((j * 5 + k) as u64);
            let n = len_at(p);
            let got = float_chain(&dev, n, p, sd, rnd).unwrap();
            let want = float_chain(&cpu, n, p, sd, rnd).unwrap();
            same_float_chain(&format!("float p={p} {rnd:?}"), &dev, &got, &want);
            check_float_chain(&got, p, rnd, 2);
        }
    }
}

/// The complex chain on CUDA equal to the CPU engine's at every step
/// (values and ternary pairs), every precision and mode; a few elements
/// also against exact arithmetic and the complex reference.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_complex_chains_equal_cpu() {
    let (cpu, dev) = (Engine::Cpu, cuda());
    let s = seed();
    let (mut checked, mut undecided) = (0, 0);
    for (j, &p) in PRECS.iter().enumerate() {
        for (k, r) in Round::ALL.into_iter().enumerate() {
            let rnd = cround(r);
            let sd = s.wrapping_add((j * 5 + k) as u64);
            let n = len_at(p);
            let got = complex_chain(&dev, n, p, sd, rnd).unwrap();
            let want = complex_chain(&cpu, n, p, sd, rnd).unwrap();
            same_complex_chain(&format!("complex p={p} {}", rnd.name()), &dev, &got, &want);
            if p <= 2048 {
                let (a, b) = check_complex_chain(&got, p, rnd, 1);
                checked += a;
                undecided += b;
            }
        }
    }
    eprintln!("{checked} parts checked against the reference, {undecided} undecided");
    assert!(undecided * 20 <= checked, "{undecided} undecided");
}

fn mismatch<T: std::fmt::Debug>(what: &str, r: Result<T>) {
    match r {
        Err(Error::EngineMismatch(a, b)) => assert_ne!(a, b, "{what}"),
        other => panic!("{what}: expected EngineMismatch, got {other:?}"),
    }
}

/// Operands on different engines are refused (`Error::EngineMismatch`),
/// whichever operand is where; parts of a complex array must share an
/// engine; moving one operand makes the operation go through.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_engine_mismatch() {
    let (cpu, dev) = (Engine::Cpu, cuda());
    let p = 128;
    let rnd = Round::Nearest;
    let hx = FloatArray::random_uniform(&cpu, 8, p, 1, 0.5, 2.0, rnd).unwrap();
    let dx = hx.to_engine(&dev).unwrap();
    let hy = FloatArray::random_uniform(&cpu, 8, p, 2, 0.5, 2.0, rnd).unwrap();
    let dy = hy.to_engine(&dev).unwrap();
    for (a, b, c) in [(&hx, &dy, &hy), (&dx, &hy, &dy)] {
        let w = format!("{} with {}", a.engine().name(), b.engine().name());
        mismatch(&format!("add {w}"), a.add(b, p, rnd));
        mismatch(&format!("mul {w}"), a.mul_ternary(b, p, rnd));
        mismatch(&format!("fma b {w}"), a.fma(b, c, p, rnd));
        mismatch(&format!("fma c {w}"), a.fma(c, b, p, rnd));
        mismatch(&format!("pow {w}"), a.pow(b, p, rnd));
        mismatch(
            &format!("atan2 {w}"),
            a.func2_ternary(b, Func2::Atan2, p, rnd),
        );
        mismatch(&format!("cmp {w}"), a.cmp(b));
        let mut out = FloatArray::zeros(&b.engine(), 8, p).unwrap();
        mismatch(
            &format!("op_into {w}"),
            a.op_into(FloatOp::Sqrt, &[], &mut out, rnd, None),
        );
    }
    // Both on the device: it goes through, and stays there.
    let s = dx.add(&dy, p, rnd).unwrap();
    assert!(s.engine().same_as(&dev));
    assert_eq!(s, hx.add(&hy, p, rnd).unwrap());

    let cr = CRound::both(rnd);
    let hz = ComplexArray::new(hx.try_clone().unwrap(), hy.try_clone().unwrap()).unwrap();
    let dz = hz.to_engine(&dev).unwrap();
    mismatch(
        "ComplexArray::new(cpu, cuda)",
        ComplexArray::new(hx.try_clone().unwrap(), dy.try_clone().unwrap()),
    );
    mismatch(
        "ComplexArray::new(cuda, cpu)",
        ComplexArray::new(dx.try_clone().unwrap(), hy.try_clone().unwrap()),
    );
    for (a, b, k) in [(&hz, &dz, &dx), (&dz, &hz, &hx)] {
        let w = format!("{} with {}", a.engine().name(), b.engine().name());
        mismatch(&format!("complex add {w}"), a.add(b, p, p, cr));
        mismatch(&format!("complex mul {w}"), a.mul_ternary(b, p, p, cr));
        mismatch(&format!("complex div {w}"), a.div(b, p, p, cr));
        mismatch(&format!("complex pow {w}"), a.pow(b, p, p, cr));
        mismatch(
            &format!("complex pow_ternary_stats {w}"),
            a.pow_ternary_stats(b, p, p, cr),
        );
        mismatch(&format!("complex mul_fr {w}"), a.mul_fr(k, p, p, cr));
    }
    let m = dz.mul(&dz, p, p, cr).unwrap();
    assert!(m.engine().same_as(&dev));
    assert_eq!(m, hz.mul(&hz, p, p, cr).unwrap());
}

/// Copies between the engines and on the device keep every bit; a complex
/// array's parts stay on its engine; zeros are the same everywhere.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_copies_and_parts() {
    let (cpu, dev) = (Engine::Cpu, cuda());
    for &p in PRECS {
        let h = FloatArray::random_exp(&cpu, 33, p, seed(), -100, 100).unwrap();
        let d = h.to_engine(&dev).unwrap();
        same_float(&format!("to_engine p={p}"), &dev, &d, &h);
        same_float(
            &format!("try_clone p={p}"),
            &dev,
            &d.try_clone().unwrap(),
            &h,
        );
        same_float(&format!("to_host p={p}"), &cpu, &d.to_host().unwrap(), &h);
        let hi = FloatArray::random_unit(&cpu, 33, prec_im(p), 5).unwrap();
        let z = ComplexArray::new(d.try_clone().unwrap(), hi.to_engine(&dev).unwrap()).unwrap();
        assert!(z.engine().same_as(&dev));
        same_float(&format!("re p={p}"), &dev, &z.re().unwrap(), &h);
        same_float(&format!("im p={p}"), &dev, &z.im().unwrap(), &hi);
        let hz = z.to_host().unwrap();
        same_complex(&format!("complex to_host p={p}"), &cpu, &hz, &z);
        same_complex(
            &format!("complex try_clone p={p}"),
            &dev,
            &z.try_clone().unwrap(),
            &hz,
        );
        let (re, im) = z.into_parts();
        same_float(&format!("into_parts re p={p}"), &dev, &re, &h);
        same_float(&format!("into_parts im p={p}"), &dev, &im, &hi);
        same_complex(
            &format!("zeros p={p}"),
            &dev,
            &ComplexArray::zeros(&dev, 7, p, 53).unwrap(),
            &ComplexArray::zeros(&cpu, 7, p, 53).unwrap(),
        );
        let t = TernaryArray::zeros(&dev, 7).unwrap();
        assert!(t.engine().same_as(&dev));
        assert_eq!(t.to_vec().unwrap(), vec![0; 7]);
    }
}

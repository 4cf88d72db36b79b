//! Per-element arithmetic: MPFR's special-value rules, then the exact (or
//! exact-plus-sticky) result of the finite case rounded once by
//! [`round_to`]. Products and quotients of mantissas use the integer CPU
//! engine's limb kernels (exact integer results, so any algorithm gives the
//! same bits); the CUDA kernels must reproduce the same exact integers and
//! the same rounding step.

use std::cmp::Ordering;

use super::round::{Out, Round, round_lo, round_to};
use super::{Class, CpuFloats, Elem, NEG};
use crate::int::cpu::{arith as mpn, div as mdiv, mul as mmul};

/// Scratch buffers reused across the elements of one task (no allocation
/// per element once they have grown).
#[derive(Default)]
pub(crate) struct Scratch {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    d: Vec<u64>,
    t: Vec<u64>,
}

fn grow(v: &mut Vec<u64>, n: usize) -> &mut [u64] {
    if v.len() < n {
        v.resize(n, 0);
    }
    &mut v[..n]
}

/// A finite nonzero operand: `(-1)^neg * 0.m * 2^e`, `m`'s top bit set.
#[derive(Clone, Copy)]
pub(crate) struct Num<'a> {
    pub neg: bool,
    pub e: i64,
    pub m: &'a [u64],
}

impl<'a> Num<'a> {
    fn of(x: &Elem<'a>, neg: bool) -> Num<'a> {
        Num {
            neg,
            e: x.exp,
            m: x.limbs,
        }
    }
}

/// Compares two top-aligned mantissas of any lengths.
pub(crate) fn cmp_mant(a: &[u64], b: &[u64]) -> Ordering {
    let (la, lb) = (a.len(), b.len());
    for k in 1..=la.max(lb) {
        let x = if k <= la { a[la - k] } else { 0 };
        let y = if k <= lb { b[lb - k] } else { 0 };
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

/// Shifts `r` left by `s` bits (0 <= s < 64) in place.
fn shl_assign(r: &mut [u64], s: u32) {
    if s == 0 {
        return;
    }
    for i in (1..r.len()).rev() {
        r[i] = (r[i] << s) | (r[i - 1] >> (64 - s));
    }
    r[0] <<= s;
}

/// Normalizes `r` (nonzero): returns its significant length and the left
/// shift applied to put the top bit at the top of that length.
fn normalize(r: &mut [u64]) -> (usize, u32) {
    let top = r.iter().rposition(|&x| x != 0).expect("nonzero");
    let lz = r[top].leading_zeros();
    shl_assign(&mut r[..=top], lz);
    (top + 1, lz)
}

/// Element comparison (None with a NaN).
pub(crate) fn cmp(a: &Elem, b: &Elem) -> Option<Ordering> {
    if a.class == Class::NaN || b.class == Class::NaN {
        return None;
    }
    let sg = |x: &Elem| match (x.class, x.neg) {
        (Class::Zero, _) => 0i8,
        (_, true) => -1,
        _ => 1,
    };
    let (sa, sb) = (sg(a), sg(b));
    if sa != sb || sa == 0 {
        return Some(sa.cmp(&sb));
    }
    let mag = match (a.class, b.class) {
        (Class::Inf, Class::Inf) => Ordering::Equal,
        (Class::Inf, _) => Ordering::Greater,
        (_, Class::Inf) => Ordering::Less,
        _ => a.exp.cmp(&b.exp).then_with(|| cmp_mant(a.limbs, b.limbs)),
    };
    Some(if sa < 0 { mag.reverse() } else { mag })
}

/// `x` (negated when `neg_flip`, made positive when `abs`) rounded to the
/// output precision (mpfr_set, mpfr_neg, mpfr_abs, mpfr_prec_round).
pub(crate) fn set(out: &mut Out, x: &Elem, neg_flip: bool, abs: bool, p: u64, rnd: Round) -> i8 {
    let neg = (x.neg ^ neg_flip) && !abs;
    match x.class {
        Class::Normal => round_to(out, neg, x.exp, x.limbs, false, p, rnd),
        c => {
            out.special(c, neg);
            0
        }
    }
}

/// `x * 2^k` rounded (mpfr_mul_2si; mpfr_div_2si is k negated).
pub(crate) fn mul_2si(out: &mut Out, x: &Elem, k: i64, p: u64, rnd: Round) -> i8 {
    match x.class {
        Class::Normal => {
            // Beyond 2^40 the result overflows or underflows either way.
            let k = k.clamp(-(1 << 40), 1 << 40);
            round_to(out, x.neg, x.exp + k, x.limbs, false, p, rnd)
        }
        c => {
            out.special(c, x.neg);
            0
        }
    }
}

/// min (or max with `max`) with MPFR's rules: a NaN loses to a number, and
/// -0 < +0.
pub(crate) fn min_max(out: &mut Out, x: &Elem, y: &Elem, max: bool, p: u64, rnd: Round) -> i8 {
    let pick = match (x.class == Class::NaN, y.class == Class::NaN) {
        (true, true) => {
            out.special(Class::NaN, false);
            return 0;
        }
        (true, false) => y,
        (false, true) => x,
        _ => {
            if x.class == Class::Zero && y.class == Class::Zero {
                let neg = if max { x.neg && y.neg } else { x.neg || y.neg };
                out.special(Class::Zero, neg);
                return 0;
            }
            match (cmp(x, y).unwrap_or(Ordering::Equal), max) {
                (Ordering::Less, false) | (Ordering::Greater, true) => x,
                (Ordering::Less, true) | (Ordering::Greater, false) => y,
                _ => x,
            }
        }
    };
    set(out, pick, false, false, p, rnd)
}

/// `x + y` (`y` negated when `sub`).
pub(crate) fn add(
    out: &mut Out,
    x: &Elem,
    y: &Elem,
    sub: bool,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    let (xn, yn) = (x.neg, y.neg ^ sub);
    use Class::*;
    match (x.class, y.class) {
        (NaN, _) | (_, NaN) => out.special(NaN, false),
        (Inf, Inf) if xn != yn => out.special(NaN, false),
        (Inf, _) => out.special(Inf, xn),
        (_, Inf) => out.special(Inf, yn),
        (Zero, Zero) => out.special(Zero, if xn == yn { xn } else { rnd == Round::Down }),
        (Zero, _) => return round_to(out, yn, y.exp, y.limbs, false, p, rnd),
        (_, Zero) => return round_to(out, xn, x.exp, x.limbs, false, p, rnd),
        _ => {
            let n = out.m.len();
            if x.limbs.len() == n && y.limbs.len() == n {
                let (a, b) = (Num::of(x, xn), Num::of(y, yn));
                return match add_fast(out, a, b, p, rnd) {
                    Some(t) => t,
                    None => sub_near(out, a, b, p, rnd, &mut s.a),
                };
            }
            let Scratch { a, b, .. } = s;
            return add_num(out, Num::of(x, xn), Num::of(y, yn), p, rnd, a, b);
        }
    }
    0
}

/// `$name` runs `$imp` (or the expression `$body` of its arguments),
/// through a copy compiled with BMI2 when the CPU has it: the variable
/// shifts of the fast paths become `shlx`/`shrx` (one micro-op each on
/// Intel cores, where `shl r, cl` takes three).
macro_rules! with_bmi2 {
    ($(#[$doc:meta])* $vis:vis fn $name:ident / $bmi2:ident => $imp:ident($($a:ident: $t:ty),*) -> $r:ty) => {
        with_bmi2! {
            $(#[$doc])* $vis fn $name / $bmi2($($a: $t),*) -> $r => $imp($($a),*)
        }
    };
    ($(#[$doc:meta])* $vis:vis fn $name:ident / $bmi2:ident($($a:ident: $t:ty),*) -> $r:ty => $body:expr) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name($($a: $t),*) -> $r {
            #[cfg(target_arch = "x86_64")]
            if mpn::use_asm() {
                // SAFETY: the CPU has BMI2 (use_asm checks it).
                return unsafe { $bmi2($($a),*) };
            }
            $body
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "bmi2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $bmi2($($a: $t),*) -> $r {
            $body
        }
    };
}

with_bmi2! {
    /// [`add_num`] when both operands and the output have the same `n` limbs,
    /// computed in place in `out.m` in one pass (as MPFR's `mpfr_add1sp`): the
    /// window is `x`'s `n` limbs plus one limb `lo` below them; `y`, shifted
    /// right by `d = ex - ey` bits, is added to or subtracted from it on the
    /// fly (bits of `y` below the window are the sticky bit; for a subtraction
    /// the borrow-in is the sticky bit, the extra unit of [`add_num`]). Then at
    /// most one bit of normalization: a carry (shift right, the bit out joins
    /// the sticky bit) or, for a subtraction with `d >= 2`, one leading zero
    /// (`x - y > 2^(ex-2)`; the bit shifted in lies below the round bit, where
    /// only the sticky bit counts). `None` for a subtraction with `d <= 1`
    /// (deep cancellation: the general path).
    fn add_fast / add_fast_bmi2 => add_fast_impl(out: &mut Out, x: Num, y: Num, p: u64, rnd: Round) -> Option<i8>
}

with_bmi2! {
    /// `x + y` (`y` negated when `sub`) into one block of the output
    /// (elements `base..base + tg.len()`) when both operands have the
    /// output's limb count: the element loop with [`add_fast`] inlined (no
    /// `Elem`s, no calls per element for two normal operands).
    pub(crate) fn add_block / add_block_bmi2(x: &CpuFloats, y: &CpuFloats, sub: bool, base: usize, tg: &mut [u8], ex: &mut [i64], lm: &mut [u64], tn: Option<&mut [i8]>, p: u64, rnd: Round, s: &mut Scratch) -> () => block_impl::<false>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s)
}

/// The body of [`add_block`] (`MUL = false`) and [`mul_block`] (`MUL =
/// true`, `sub` unused): the common limb counts get loops of a fixed length.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block_impl<const MUL: bool>(
    x: &CpuFloats,
    y: &CpuFloats,
    sub: bool,
    base: usize,
    tg: &mut [u8],
    ex: &mut [i64],
    lm: &mut [u64],
    tn: Option<&mut [i8]>,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) {
    match x.n {
        1 => block_n::<1, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
        2 => block_n::<2, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
        4 => block_n::<4, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
        8 => block_n::<8, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
        16 => block_n::<16, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
        _ => block_n::<0, MUL>(x, y, sub, base, tg, ex, lm, tn, p, rnd, s),
    }
}

/// [`block_impl`] for `N` limbs (`N = 0`: any): the element loop with the
/// sum's ([`add_fast_n`]) or the product's fast path written in (`MUL` is a
/// constant, so each instance holds one of them; as a closure parameter
/// LLVM left the product's out of line: a quarter of mul-512's time).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block_n<const N: usize, const MUL: bool>(
    x: &CpuFloats,
    y: &CpuFloats,
    sub: bool,
    base: usize,
    tg: &mut [u8],
    ex: &mut [i64],
    lm: &mut [u64],
    mut tn: Option<&mut [i8]>,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) {
    let sub = sub && !MUL;
    let n = if N > 0 { N } else { x.n };
    let len = tg.len();
    let (xt, xe, xl) = (
        &x.tags[base..base + len],
        &x.exps[base..base + len],
        &x.limbs[base * n..(base + len) * n],
    );
    let (yt, ye, yl) = (
        &y.tags[base..base + len],
        &y.exps[base..base + len],
        &y.limbs[base * n..(base + len) * n],
    );
    let normal = Class::Normal as u8;
    let outs = tg.iter_mut().zip(ex.iter_mut()).zip(lm.chunks_exact_mut(n));
    for (j, ((tag, exp), m)) in outs.enumerate() {
        let mut out = Out { tag, exp, m };
        let (tx, ty) = (xt[j], yt[j]);
        let t = if tx & 3 == normal && ty & 3 == normal {
            let a = Num {
                neg: tx & NEG != 0,
                e: xe[j],
                m: &xl[j * n..(j + 1) * n],
            };
            let b = Num {
                neg: (ty & NEG != 0) ^ sub,
                e: ye[j],
                m: &yl[j * n..(j + 1) * n],
            };
            if MUL {
                let (neg, e) = (a.neg ^ b.neg, a.e + b.e);
                if N > 0 && N <= 2 {
                    mul_small(&mut out, neg, e, a.m, b.m, p, rnd)
                } else {
                    mul_fast_n::<N>(&mut out, neg, e, a.m, b.m, p, rnd, s)
                }
            } else {
                match add_fast_n::<N>(&mut out, a, b, p, rnd) {
                    Some(t) => t,
                    None => sub_near(&mut out, a, b, p, rnd, &mut s.a),
                }
            }
        } else if MUL {
            mul(&mut out, &x.get(base + j), &y.get(base + j), p, rnd, s)
        } else {
            add(&mut out, &x.get(base + j), &y.get(base + j), sub, p, rnd, s)
        };
        if let Some(tn) = tn.as_deref_mut() {
            tn[j] = t;
        }
    }
}

with_bmi2! {
    /// `x * y` into one block of the output (see [`add_block`]) when both
    /// operands have the output's limb count.
    pub(crate) fn mul_block / mul_block_bmi2(x: &CpuFloats, y: &CpuFloats, base: usize, tg: &mut [u8], ex: &mut [i64], lm: &mut [u64], tn: Option<&mut [i8]>, p: u64, rnd: Round, s: &mut Scratch) -> () => block_impl::<true>(x, y, false, base, tg, ex, lm, tn, p, rnd, s)
}

/// The body of [`add_fast`]: the common limb counts get loops of a fixed
/// length (unrolled, the carries kept in flags).
#[inline(always)]
fn add_fast_impl(out: &mut Out, x: Num, y: Num, p: u64, rnd: Round) -> Option<i8> {
    match x.m.len() {
        1 => add_fast_n::<1>(out, x, y, p, rnd),
        2 => add_fast_n::<2>(out, x, y, p, rnd),
        4 => add_fast_n::<4>(out, x, y, p, rnd),
        8 => add_fast_n::<8>(out, x, y, p, rnd),
        16 => add_fast_n::<16>(out, x, y, p, rnd),
        _ => add_fast_n::<0>(out, x, y, p, rnd),
    }
}

/// [`add_fast_impl`] for `N` limbs (`N = 0`: the operands' length).
#[inline(always)]
fn add_fast_n<const N: usize>(out: &mut Out, x: Num, y: Num, p: u64, rnd: Round) -> Option<i8> {
    let (x, y) = if x.e < y.e { (y, x) } else { (x, y) };
    let sub = x.neg != y.neg;
    let d = x.e.abs_diff(y.e);
    if sub && d <= 1 {
        return None;
    }
    let n = if N > 0 { N } else { x.m.len() };
    let (x, y) = if N > 0 {
        (Num { m: &x.m[..N], ..x }, Num { m: &y.m[..N], ..y })
    } else {
        (x, y)
    };
    let out = &mut Out {
        tag: &mut *out.tag,
        exp: &mut *out.exp,
        m: &mut out.m[..n],
    };
    let (xm, ym) = (x.m, y.m);
    let m = &mut *out.m;
    debug_assert!(m.len() == n && ym.len() == n);
    // Window limb j (0 = lo, 1..=n = m) is Y[j+q] >> r | Y[j+q+1] << (64 -
    // r), where Y[t] = y[t-1] for 1 <= t <= n and 0 otherwise.
    let (q, r) = if d >= 64 * (n as u64 + 1) {
        (n + 1, 0)
    } else {
        ((d / 64) as usize, (d % 64) as u32)
    };
    // v << (64 - r), 0 for r = 0, without a branch.
    let hi = |v: u64| (v << 1) << (63 - r);
    let yv = |t: usize| if t < n { ym[t] } else { 0 };
    // lo = Y[q] >> r | Y[q+1] << (64 - r); below it: Y[1..q) and Y[q]'s low
    // r bits.
    let (lo0, sticky) = if q > n {
        (0, true)
    } else if q == 0 {
        (hi(ym[0]), false)
    } else {
        let t = ym[q - 1];
        (
            (t >> r) | hi(yv(q)),
            hi(t) != 0 || ym[..q - 1].iter().any(|&v| v != 0),
        )
    };
    // Limbs i < cnt of the window's top part take bits of y: i + q < n.
    let cnt = n.saturating_sub(q);
    let mut lo;
    let mut st = sticky;
    let mut e = x.e;
    if sub {
        let (l, mut b) = mpn::sbb(0, lo0, sticky);
        lo = l;
        if N > 0 {
            // Constant length: the shifted y limb by limb, no loop-carried
            // branches, the borrows in flags.
            for i in 0..N {
                (m[i], b) = mpn::sbb(xm[i], (yv(i + q) >> r) | hi(yv(i + q + 1)), b);
            }
        } else {
            let mut i = 0;
            if cnt > 0 {
                for ((mi, &xi), w) in m.iter_mut().zip(xm).zip(ym[q..].windows(2)) {
                    (*mi, b) = mpn::sbb(xi, (w[0] >> r) | hi(w[1]), b);
                }
                i = cnt - 1;
                (m[i], b) = mpn::sbb(xm[i], ym[n - 1] >> r, b);
                i += 1;
            }
            for (mi, &xi) in m[i..].iter_mut().zip(&xm[i..]) {
                (*mi, b) = mpn::sbb(xi, 0, b);
            }
        }
        debug_assert!(!b);
        if m[n - 1] >> 63 == 0 {
            for i in (1..n).rev() {
                m[i] = (m[i] << 1) | (m[i - 1] >> 63);
            }
            m[0] = (m[0] << 1) | (lo >> 63);
            lo <<= 1;
            e -= 1;
        }
    } else {
        lo = lo0;
        let mut c = false;
        let mut i = 0;
        if N > 0 {
            for i in 0..N {
                (m[i], c) = mpn::adc(xm[i], (yv(i + q) >> r) | hi(yv(i + q + 1)), c);
            }
            i = n;
        } else if cnt > 0 {
            for ((mi, &xi), w) in m.iter_mut().zip(xm).zip(ym[q..].windows(2)) {
                (*mi, c) = mpn::adc(xi, (w[0] >> r) | hi(w[1]), c);
            }
            i = cnt - 1;
            (m[i], c) = mpn::adc(xm[i], ym[n - 1] >> r, c);
            i += 1;
        }
        for (mi, &xi) in m[i..].iter_mut().zip(&xm[i..]) {
            (*mi, c) = mpn::adc(xi, 0, c);
        }
        if c {
            st |= lo & 1 != 0;
            lo = (lo >> 1) | (m[0] << 63);
            for i in 0..n - 1 {
                m[i] = (m[i] >> 1) | (m[i + 1] << 63);
            }
            m[n - 1] = (m[n - 1] >> 1) | 1 << 63;
            e += 1;
        }
    }
    Some(round_lo(out, x.neg, e, lo | st as u64, p, rnd))
}

/// A subtraction of same-limb operands whose exponents differ by at most
/// one (what [`add_fast`] leaves): the difference is exact in `n + 1`
/// limbs (`y` shifted by `d <= 1` bit), computed in scratch, normalized
/// (any cancellation) and rounded.
fn sub_near(out: &mut Out, x: Num, y: Num, p: u64, rnd: Round, buf: &mut Vec<u64>) -> i8 {
    let (x, y) = if x.e < y.e { (y, x) } else { (x, y) };
    let d = x.e - y.e;
    debug_assert!(x.neg != y.neg && d <= 1);
    let (x, y) = if d == 0 {
        match cmp_mant(x.m, y.m) {
            Ordering::Equal => {
                // Exact cancellation: +0, or -0 when rounding toward -Inf.
                out.special(Class::Zero, rnd == Round::Down);
                return 0;
            }
            Ordering::Less => (y, x),
            Ordering::Greater => (x, y),
        }
    } else {
        (x, y)
    };
    let n = x.m.len();
    // w = [x, 0] - [y, 0] >> d, exact.
    let w = grow(buf, n + 1);
    let (xm, ym) = (x.m, y.m);
    if d == 0 {
        w[0] = 0;
        let b = mpn::sub_n(&mut w[1..], xm, ym);
        debug_assert!(!b);
    } else {
        let (l, mut b) = mpn::sbb(0, ym[0] << 63, false);
        w[0] = l;
        for i in 0..n {
            let t = (ym[i] >> 1) | if i + 1 < n { ym[i + 1] << 63 } else { 0 };
            (w[i + 1], b) = mpn::sbb(xm[i], t, b);
        }
        debug_assert!(!b);
    }
    let (len, lz) = normalize(w);
    let e = x.e - 64 * (n + 1 - len) as i64 - lz as i64;
    round_to(out, x.neg, e, &w[..len], false, p, rnd)
}

/// With `Ya` the w-limb window holding `ym` at limbs `base..base+ly`
/// (w = `yb.len()`), writes `yb = floor(Ya / 2^d)` and returns whether
/// nonzero bits were shifted out (the sticky bit).
fn shift_into(yb: &mut [u64], ym: &[u64], base: usize, d: u64) -> bool {
    let w = yb.len();
    if d >= 64 * w as u64 {
        yb.fill(0);
        return true;
    }
    let q = (d / 64) as usize;
    let r = (d % 64) as u32;
    yb.fill(0);
    let mut st = false;
    // ym[j] sits at window limb base + j; after the shift its bits land in
    // limbs base + j - q (>> r) and base + j - q - 1 (<< 64 - r).
    for (j, &v) in ym.iter().enumerate() {
        let t = base + j;
        if r == 0 {
            if t >= q {
                yb[t - q] = v;
            } else {
                st |= v != 0;
            }
        } else {
            if t >= q {
                yb[t - q] |= v >> r;
            } else {
                st |= v != 0;
                continue;
            }
            if t > q {
                yb[t - q - 1] |= v << (64 - r);
            } else {
                st |= v << (64 - r) != 0;
            }
        }
    }
    st
}

/// `x + y` for finite nonzero operands of any lengths: the larger operand
/// at the top of a window of `w = max(lx, ly, n) + 1` limbs, the smaller
/// shifted into it with the bits shifted out kept as a sticky bit (for a
/// subtraction, one unit is borrowed so that the sticky bit stays a
/// positive remainder). Cancellation of more than one bit happens only when
/// the exponents differ by at most one, and then nothing is shifted out.
pub(crate) fn add_num(
    out: &mut Out,
    x: Num,
    y: Num,
    p: u64,
    rnd: Round,
    buf: &mut Vec<u64>,
    ybuf: &mut Vec<u64>,
) -> i8 {
    let ord = if x.e != y.e {
        x.e.cmp(&y.e)
    } else {
        cmp_mant(x.m, y.m)
    };
    let (x, y) = if ord == Ordering::Less {
        (y, x)
    } else {
        (x, y)
    };
    let sub = x.neg != y.neg;
    if sub && ord == Ordering::Equal {
        // Exact cancellation: +0, or -0 when rounding toward -Inf.
        out.special(Class::Zero, rnd == Round::Down);
        return 0;
    }
    let (lx, ly, n) = (x.m.len(), y.m.len(), out.m.len());
    let w = lx.max(ly).max(n) + 1;
    let d = (x.e - y.e) as u64;
    let bf = grow(buf, w + 1);
    bf[..w - lx].fill(0);
    bf[w - lx..w].copy_from_slice(x.m);
    bf[w] = 0;
    let yb = grow(ybuf, w);
    let sticky = shift_into(yb, y.m, w - ly, d);
    if sub {
        mpn::sub_n_assign(&mut bf[..w], yb);
        if sticky {
            mpn::sub_1_assign(&mut bf[..w], 1);
        }
    } else {
        bf[w] = mpn::add_n_assign(&mut bf[..w], yb) as u64;
    }
    let (len, lz) = normalize(bf);
    let e = x.e + 64 * (len as i64 - w as i64) - lz as i64;
    round_to(out, x.neg, e, &bf[..len], sticky, p, rnd)
}

/// The exact product of two mantissas into `r` (`a.len() + b.len()` limbs).
fn mul_exact(r: &mut [u64], a: &[u64], b: &[u64], t: &mut Vec<u64>) {
    let (an, bn) = (a.len(), b.len());
    let tt = grow(t, mmul::mul_itch(an.max(bn), an.min(bn)));
    mmul::mul_any(r, a, b, tt, false);
}

/// The exact product of two finite nonzero numbers, normalized, in `r`:
/// returns (sign, exponent, limbs used).
fn product<'r>(x: Num, y: Num, r: &'r mut Vec<u64>, t: &mut Vec<u64>) -> Num<'r> {
    let l = x.m.len() + y.m.len();
    let pr = grow(r, l);
    mul_exact(pr, x.m, y.m, t);
    // The product of two normalized mantissas loses at most one top bit.
    let lz = if pr[l - 1] >> 63 == 0 {
        shl_assign(pr, 1);
        1
    } else {
        0
    };
    Num {
        neg: x.neg ^ y.neg,
        e: x.e + y.e - lz,
        m: pr,
    }
}

/// `x * y`.
pub(crate) fn mul(out: &mut Out, x: &Elem, y: &Elem, p: u64, rnd: Round, s: &mut Scratch) -> i8 {
    let neg = x.neg ^ y.neg;
    use Class::*;
    match (x.class, y.class) {
        (NaN, _) | (_, NaN) => out.special(NaN, false),
        (Inf, Zero) | (Zero, Inf) => out.special(NaN, false),
        (Inf, _) | (_, Inf) => out.special(Inf, neg),
        (Zero, _) | (_, Zero) => out.special(Zero, neg),
        _ if x.limbs.len() <= 2 && y.limbs.len() <= 2 => {
            return mul_small(out, neg, x.exp + y.exp, x.limbs, y.limbs, p, rnd);
        }
        _ => {
            let n = out.m.len();
            if x.limbs.len() == n && y.limbs.len() == n {
                return mul_fast(out, neg, x.exp + y.exp, x.limbs, y.limbs, p, rnd, s);
            }
            let pr = product(Num::of(x, x.neg), Num::of(y, y.neg), &mut s.a, &mut s.t);
            return round_to(out, pr.neg, pr.e, pr.m, false, p, rnd);
        }
    }
    0
}

/// [`mul`], with the block loops' constant-length paths (the short
/// product at 8 and 16 limbs) when both operands are normal and have the
/// output's limb count: for per-element callers at those sizes.
pub(crate) fn mul_same(
    out: &mut Out,
    x: &Elem,
    y: &Elem,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    let n = out.m.len();
    if x.class == Class::Normal
        && y.class == Class::Normal
        && x.limbs.len() == n
        && y.limbs.len() == n
    {
        let (neg, e) = (x.neg ^ y.neg, x.exp + y.exp);
        match n {
            8 => return mul_fast_n::<8>(out, neg, e, x.limbs, y.limbs, p, rnd, s),
            16 => return mul_fast_n::<16>(out, neg, e, x.limbs, y.limbs, p, rnd, s),
            _ => {}
        }
    }
    mul(out, x, y, p, rnd, s)
}

/// `x * y` for mantissas of up to 2 limbs: the product on the stack.
#[inline(always)]
fn mul_small(out: &mut Out, neg: bool, e: i64, a: &[u64], b: &[u64], p: u64, rnd: Round) -> i8 {
    let mut r = [0u64; 4];
    for (i, &ai) in a.iter().enumerate() {
        let mut c = 0u128;
        for (j, &bj) in b.iter().enumerate() {
            let t = ai as u128 * bj as u128 + r[i + j] as u128 + c;
            r[i + j] = t as u64;
            c = t >> 64;
        }
        r[i + b.len()] = c as u64;
    }
    let l = a.len() + b.len();
    if a.len() == out.m.len() && b.len() == a.len() {
        return round_product(out, neg, e, &r[..l], p, rnd);
    }
    let lz = (r[l - 1] >> 63 == 0) as i64;
    if lz == 1 {
        shl_assign(&mut r[..l], 1);
    }
    round_to(out, neg, e - lz, &r[..l], false, p, rnd)
}

with_bmi2! {
    /// `x * y` when both operands and the output have the same `n >= 2` limbs:
    /// the exact `2n`-limb product in scratch, then its top `n` limbs (shifted
    /// left by the product's one possible leading zero, without a branch)
    /// straight into `out.m`, the next limb and the sticky bit of the rest as
    /// [`round_lo`]'s `lo`.
    fn mul_fast / mul_fast_bmi2 => mul_fast_impl(out: &mut Out, neg: bool, e: i64, xm: &[u64], ym: &[u64], p: u64, rnd: Round, s: &mut Scratch) -> i8
}

/// The body of [`mul_fast`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn mul_fast_impl(
    out: &mut Out,
    neg: bool,
    e: i64,
    xm: &[u64],
    ym: &[u64],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    mul_fast_n::<0>(out, neg, e, xm, ym, p, rnd, s)
}

/// [`mul_fast_impl`] for `N` limbs (`N = 0`: any); from [`SHORT_T`] limbs
/// a short product first.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn mul_fast_n<const N: usize>(
    out: &mut Out,
    neg: bool,
    e: i64,
    xm: &[u64],
    ym: &[u64],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    let n = if N > 0 { N } else { xm.len() };
    let pr = grow(&mut s.a, 2 * n);
    if N >= SHORT_T {
        mmul::mul_top::<N>(pr, xm, ym);
        // The short product `T <= P < T + (n-1) B^(n-1)`, shifted by its
        // leading zero: `P' = T' + E'` with `E' < 2(n-1) B^(n-1)`, so limb
        // `n - 1` and up of `P'` exceed those of `T'` by at most `2n - 2`.
        // When `T'`'s limb `n - 1` has its low 63 bits in `[1, 2^63 - 2n)`,
        // adding that neither carries into the round bit nor the kept limbs
        // and the sticky bit is set either way: `T'` rounds as `P'` does.
        // (`T` below the power of two that `P` reaches has limb `n - 1` of
        // `T'` at least `B - 2n + 2`: rejected too.) Otherwise, and for
        // exact products, the full product.
        let lz = (pr[2 * n - 1] >> 63 == 0) as u32;
        let lo = (pr[n - 1] << lz) | ((pr[n - 2] >> 1) >> (63 - lz));
        let v = lo & (u64::MAX >> 1);
        if v != 0 && v < (1 << 63) - 2 * n as u64 {
            let m = &mut *out.m;
            for (i, mi) in m.iter_mut().enumerate() {
                *mi = (pr[n + i] << lz) | ((pr[n + i - 1] >> 1) >> (63 - lz));
            }
            return round_lo(out, neg, e - lz as i64, lo, p, rnd);
        }
        mmul::mul_basecase(pr, xm, ym);
    } else if n < mmul::KARA_T {
        mmul::mul_basecase(pr, xm, ym);
    } else {
        mul_exact(pr, xm, ym, &mut s.t);
    }
    round_product(out, neg, e, pr, p, rnd)
}

/// [`mul_fast`] rounds a short product from this many limbs.
pub(crate) const SHORT_T: usize = 8;

/// Rounds the exact `2n`-limb product `pr` of two `n`-limb mantissas into
/// the `n`-limb `out.m` (see [`mul_fast`]).
#[inline(always)]
fn round_product(out: &mut Out, neg: bool, e: i64, pr: &[u64], p: u64, rnd: Round) -> i8 {
    let n = pr.len() / 2;
    let lz = (pr[2 * n - 1] >> 63 == 0) as u32;
    let m = &mut *out.m;
    for (i, mi) in m.iter_mut().enumerate() {
        *mi = (pr[n + i] << lz) | ((pr[n + i - 1] >> 1) >> (63 - lz));
    }
    let lo = (pr[n - 1] << lz) | pr[..n - 1].iter().any(|&v| v != 0) as u64;
    round_lo(out, neg, e - lz as i64, lo, p, rnd)
}

/// `x / y`.
pub(crate) fn div(out: &mut Out, x: &Elem, y: &Elem, p: u64, rnd: Round, s: &mut Scratch) -> i8 {
    let neg = x.neg ^ y.neg;
    use Class::*;
    match (x.class, y.class) {
        (NaN, _) | (_, NaN) | (Inf, Inf) | (Zero, Zero) => out.special(NaN, false),
        (Inf, _) => out.special(Inf, neg),
        (_, Inf) => out.special(Zero, neg),
        (_, Zero) => out.special(Inf, neg),
        (Zero, _) => out.special(Zero, neg),
        _ => {
            let n = out.m.len();
            if x.limbs.len() == n && y.limbs.len() == n {
                return div_fast(out, neg, x.exp - y.exp, x.limbs, y.limbs, p, rnd, s);
            }
            return div_num(out, Num::of(x, x.neg), Num::of(y, y.neg), p, rnd, s);
        }
    }
    0
}

with_bmi2! {
    /// [`div_num`] when both operands and the output have the same `n` limbs:
    /// `X B^n / Y` (`X`, `Y` the mantissas as integers) by one schoolbook
    /// division with its `n` quotient limbs written straight into `out.m` (no
    /// normalizing copies: `Y`'s top bit is set). The quotient lies in `(B^n /
    /// 2, 2 B^n)`: with a top quotient bit `qh` the `n + 1` bits are shifted
    /// right by one (the bit out is the round bit), without it the round bit
    /// is `2R >= Y` for the remainder `R`. The sticky bit is `R != 0` in both
    /// cases: `2R = Y` would need `2^(64n+1) X = Y (2Q + 1)`, impossible for
    /// `Y < 2^64n`.
    fn div_fast / div_fast_bmi2 => div_fast_impl(out: &mut Out, neg: bool, e: i64, xm: &[u64], ym: &[u64], p: u64, rnd: Round, s: &mut Scratch) -> i8
}

/// The body of [`div_fast`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn div_fast_impl(
    out: &mut Out,
    neg: bool,
    e: i64,
    xm: &[u64],
    ym: &[u64],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    let n = xm.len();
    let m = &mut *out.m;
    let (qh, r) = if n == 1 {
        let (y, mut x) = (ym[0], xm[0]);
        let qh = x >= y;
        if qh {
            x -= y;
        }
        let (q, r) = mdiv::div_2by1(x, 0, y, mdiv::invert_limb(y));
        m[0] = q;
        let np = grow(&mut s.a, 1);
        np[0] = r;
        (qh, &*np)
    } else {
        let np = grow(&mut s.a, 2 * n);
        let (lo, hi) = np.split_at_mut(n);
        for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(xm) {
            *l = 0;
            *h = v;
        }
        let dinv = mdiv::invert_pi1(ym[n - 1], ym[n - 2]);
        let qh = if n < mdiv::DC_T {
            mdiv::sb_div_qr(m, np, ym, dinv)
        } else {
            let tp = grow(&mut s.t, mdiv::div_qr_itch(n, n));
            mdiv::div_qr(m, np, ym, dinv, tp, false) != 0
        };
        (qh, &np[..n])
    };
    div_round(out, neg, e, qh, r, ym, p, rnd)
}

/// Rounds the quotient of [`div_fast`]: `out.m` holds its low `n` limbs,
/// `qh` its top bit, `r` the remainder.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn div_round(
    out: &mut Out,
    neg: bool,
    e: i64,
    qh: bool,
    r: &[u64],
    ym: &[u64],
    p: u64,
    rnd: Round,
) -> i8 {
    let n = ym.len();
    let m = &mut *out.m;
    let nz = r.iter().any(|&v| v != 0);
    let (lo, e) = if qh {
        // (1, q) >> 1: the bit out is the round bit.
        let lo = (m[0] << 63) | nz as u64;
        for i in 0..n - 1 {
            m[i] = (m[i] >> 1) | (m[i + 1] << 63);
        }
        m[n - 1] = (m[n - 1] >> 1) | 1 << 63;
        (lo, e + 1)
    } else {
        // 2R >= Y: R's top bit set, or R << 1 >= Y compared from the top.
        let ge = r[n - 1] >> 63 != 0 || {
            let mut o = Ordering::Equal;
            for i in (0..n).rev() {
                let v = (r[i] << 1) | if i > 0 { r[i - 1] >> 63 } else { 0 };
                if v != ym[i] {
                    o = v.cmp(&ym[i]);
                    break;
                }
            }
            o != Ordering::Less
        };
        (((ge as u64) << 63) | nz as u64, e)
    };
    round_lo(out, neg, e, lo, p, rnd)
}

/// Elements per group in the interleaved paths ([`div_lanes`]).
pub(crate) const LANES: usize = 4;

/// `x[l] / y[l]` for a group of [`LANES`] elements: when all are finite
/// nonzero with the output's `n` limbs (`2 <= n < DC_T`), the lanes'
/// schoolbook divisions run interleaved (each quotient limb waits for the
/// previous step's remainder: one lane's chain alone leaves the core idle);
/// otherwise one by one through [`div`].
pub(crate) fn div_lanes(
    out: &mut [Out; LANES],
    x: &[Elem; LANES],
    y: &[Elem; LANES],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> [i8; LANES] {
    let n = out[0].m.len();
    let fast = (2..mdiv::DC_T).contains(&n)
        && (0..LANES).all(|l| {
            x[l].class == Class::Normal
                && y[l].class == Class::Normal
                && x[l].limbs.len() == n
                && y[l].limbs.len() == n
        });
    if !fast {
        return std::array::from_fn(|l| div(&mut out[l], &x[l], &y[l], p, rnd, s));
    }
    div_fast_lanes(out, x, y, p, rnd, s)
}

with_bmi2! {
    /// [`div_fast`] for [`LANES`] elements at once (see [`div_lanes`]).
    fn div_fast_lanes / div_fast_lanes_bmi2 => div_fast_lanes_impl(out: &mut [Out; LANES], x: &[Elem; LANES], y: &[Elem; LANES], p: u64, rnd: Round, s: &mut Scratch) -> [i8; LANES]
}

/// The body of [`div_fast_lanes`].
#[inline(always)]
fn div_fast_lanes_impl(
    out: &mut [Out; LANES],
    x: &[Elem; LANES],
    y: &[Elem; LANES],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> [i8; LANES] {
    // The common sizes with constant lengths (the loops unroll).
    match out[0].m.len() {
        2 => div_lanes_body(out, x, y, 2, p, rnd, s),
        4 => div_lanes_body(out, x, y, 4, p, rnd, s),
        8 => div_lanes_body(out, x, y, 8, p, rnd, s),
        16 => div_lanes_body(out, x, y, 16, p, rnd, s),
        n => div_lanes_body(out, x, y, n, p, rnd, s),
    }
}

/// [`div_fast_lanes_impl`] for `n` limbs.
#[inline(always)]
fn div_lanes_body(
    out: &mut [Out; LANES],
    x: &[Elem; LANES],
    y: &[Elem; LANES],
    n: usize,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> [i8; LANES] {
    let buf = grow(&mut s.a, LANES * 2 * n);
    let mut it = buf.chunks_exact_mut(2 * n);
    let mut np: [&mut [u64]; LANES] = std::array::from_fn(|_| it.next().unwrap());
    for l in 0..LANES {
        let (lo, hi) = np[l].split_at_mut(n);
        lo.fill(0);
        hi.copy_from_slice(&x[l].limbs[..n]);
    }
    let ym: [&[u64]; LANES] = std::array::from_fn(|l| &y[l].limbs[..n]);
    let mut dinv = [0u64; LANES];
    for l in 0..LANES {
        dinv[l] = mdiv::invert_pi1(ym[l][n - 1], ym[l][n - 2]);
    }
    let qh = {
        let mut q: [&mut [u64]; LANES] = out.each_mut().map(|o| &mut o.m[..n]);
        sb_div_qr_lanes(&mut q, &mut np, &ym, &dinv)
    };
    // A plain loop: `array::from_fn`'s closure would not be inlined here.
    let mut t = [0i8; LANES];
    for l in 0..LANES {
        let e = x[l].exp - y[l].exp;
        let neg = x[l].neg ^ y[l].neg;
        t[l] = div_round(&mut out[l], neg, e, qh[l], &np[l][..n], ym[l], p, rnd);
    }
    t
}

/// `r -= a * b`, returns the borrow limb (inlined: short fixed lengths).
#[inline(always)]
fn submul_inl(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let mut c = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let t = a as u128 * b as u128 + c as u128;
        let (d, br) = r.overflowing_sub(t as u64);
        *r = d;
        c = (t >> 64) as u64 + br as u64;
    }
    c
}

/// [`mdiv::sb_div_qr`] on [`LANES`] independent divisions of the same
/// lengths, step by step in lockstep.
#[inline(always)]
fn sb_div_qr_lanes(
    q: &mut [&mut [u64]; LANES],
    np: &mut [&mut [u64]; LANES],
    d: &[&[u64]; LANES],
    dinv: &[u64; LANES],
) -> [bool; LANES] {
    let (nn, dn) = (np[0].len(), d[0].len());
    let mut qh = [false; LANES];
    for l in 0..LANES {
        qh[l] = mpn::cmp(&np[l][nn - dn..], d[l]).is_ge();
        if qh[l] {
            mpn::sub_n_assign(&mut np[l][nn - dn..], d[l]);
        }
    }
    if dn == 2 {
        let mut r: [(u64, u64); LANES] = std::array::from_fn(|l| (np[l][nn - 1], np[l][nn - 2]));
        for i in (0..nn - 2).rev() {
            for l in 0..LANES {
                let (qi, s1, s0) =
                    mdiv::div_3by2(r[l].0, r[l].1, np[l][i], d[l][1], d[l][0], dinv[l]);
                q[l][i] = qi;
                r[l] = (s1, s0);
            }
        }
        for l in 0..LANES {
            np[l][1] = r[l].0;
            np[l][0] = r[l].1;
        }
        return qh;
    }
    let mut n1: [u64; LANES] = std::array::from_fn(|l| np[l][nn - 1]);
    for i in (0..nn - dn).rev() {
        for l in 0..LANES {
            let (np, d) = (&mut *np[l], d[l]);
            let (d1, d0) = (d[dn - 1], d[dn - 2]);
            // The partial remainder is np[i..i+dn-1] with n1 on top.
            let n0top = np[i + dn - 1];
            let qi;
            if n1[l] == d1 && n0top == d0 {
                qi = u64::MAX;
                submul_inl(&mut np[i..i + dn], d, qi);
                n1[l] = np[i + dn - 1];
            } else {
                let (mut qq, r1, r0) =
                    mdiv::div_3by2(n1[l], n0top, np[i + dn - 2], d1, d0, dinv[l]);
                let cy = submul_inl(&mut np[i..i + dn - 2], &d[..dn - 2], qq);
                let (n0, cy1) = r0.overflowing_sub(cy);
                let (mut nn1, cy2) = r1.overflowing_sub(cy1 as u64);
                np[i + dn - 2] = n0;
                if cy2 {
                    let c = mpn::add_n_assign(&mut np[i..i + dn - 1], &d[..dn - 1]);
                    nn1 = nn1.wrapping_add(d1).wrapping_add(c as u64);
                    qq = qq.wrapping_sub(1);
                }
                n1[l] = nn1;
                qi = qq;
            }
            np[i + dn - 1] = n1[l];
            q[l][i] = qi;
        }
    }
    qh
}

/// Quotient of finite nonzero numbers: `x`'s mantissa extended with `k`
/// zero limbs so that the integer quotient has at least `64(n+1)` bits,
/// then one exact division; a nonzero remainder is the sticky bit.
fn div_num(out: &mut Out, x: Num, y: Num, p: u64, rnd: Round, s: &mut Scratch) -> i8 {
    let (lx, ly, n) = (x.m.len(), y.m.len(), out.m.len());
    let k = (ly + n + 1).saturating_sub(lx);
    let ul = lx + k;
    let u = grow(&mut s.a, ul);
    u[..k].fill(0);
    u[k..].copy_from_slice(x.m);
    let q = grow(&mut s.b, ul);
    let r = grow(&mut s.c, ly);
    mdiv::divrem(q, r, u, y.m, &mut s.t, false);
    let sticky = r.iter().any(|&v| v != 0);
    let (qs, lz) = normalize(q);
    let e = x.e - y.e + 64 * (ly as i64 + qs as i64 - lx as i64 - k as i64) - lz as i64;
    round_to(out, x.neg ^ y.neg, e, &q[..qs], sticky, p, rnd)
}

/// `sqrt(x)`.
pub(crate) fn sqrt(out: &mut Out, x: &Elem, p: u64, rnd: Round, s: &mut Scratch) -> i8 {
    match (x.class, x.neg) {
        (Class::NaN, _) | (Class::Inf, true) | (Class::Normal, true) => {
            out.special(Class::NaN, false)
        }
        (Class::Inf, false) => out.special(Class::Inf, false),
        // sqrt(-0) = -0.
        (Class::Zero, neg) => out.special(Class::Zero, neg),
        (Class::Normal, false) => {
            let (lx, n) = (x.limbs.len(), out.m.len());
            if lx == n {
                // The common sizes with constant lengths.
                return match n {
                    2 => sqrt_same(out, x, 2, p, rnd, s),
                    4 => sqrt_same(out, x, 4, p, rnd, s),
                    8 => sqrt_same(out, x, 8, p, rnd, s),
                    16 => sqrt_same(out, x, 16, p, rnd, s),
                    _ => sqrt_same(out, x, n, p, rnd, s),
                };
            }
            // An m-limb root of N = x's mantissa * B^(2m - lx) (shifted
            // right by one bit for an odd exponent: 2m > lx keeps that bit).
            let m = n.max(lx / 2 + 1);
            let t = (x.exp & 1) as u32;
            let e = (x.exp + t as i64) / 2;
            let Scratch { a, b, c, d, t: tt } = s;
            let nn = grow(a, 2 * m);
            nn[..2 * m - lx].fill(0);
            nn[2 * m - lx..].copy_from_slice(x.limbs);
            if t == 1 {
                mpn::shr_assign(nn, 1);
            }
            let nn = &a[..2 * m];
            let rem = grow(c, m + 1);
            let ws = grow(d, sqrtrem_itch(m));
            if m == n {
                // The root's n limbs are the result's: the round bit is
                // sqrt(N) >= s + 1/2, i.e. R > s (R = s + 1/4 is impossible),
                // and then the root is inexact; else the sticky bit is R != 0.
                sqrtrem(out.m, rem, nn, ws, tt);
                return round_root(out, e, rem, n, p, rnd);
            }
            let root = grow(b, m);
            sqrtrem(root, rem, nn, ws, tt);
            let inexact = rem.iter().any(|&v| v != 0);
            return round_to(out, false, e, root, inexact, p, rnd);
        }
    }
    0
}

/// `sqrt(x)` for a positive `x` of the output's `n` limbs: the root of
/// `N = x's mantissa * B^n` (shifted right by one bit for an odd exponent)
/// has `n` limbs, the result's: the round bit is `sqrt(N) >= s + 1/2`,
/// i.e. `R > s` (`R = s + 1/4` is impossible), and then the root is
/// inexact; else the sticky bit is `R != 0`.
#[inline(always)]
fn sqrt_same(out: &mut Out, x: &Elem, n: usize, p: u64, rnd: Round, s: &mut Scratch) -> i8 {
    let t = (x.exp & 1) as u32;
    let e = (x.exp + t as i64) / 2;
    let Scratch { a, c, d, t: tt, .. } = s;
    let nn = grow(a, 2 * n);
    sqrt_operand(nn, &x.limbs[..n], t == 1);
    let rem = grow(c, n + 1);
    let ws = grow(d, sqrtrem_itch(n));
    sqrtrem(&mut out.m[..n], rem, nn, ws, tt);
    round_root(out, e, rem, n, p, rnd)
}

/// Rounds the `n`-limb root in `out.m` with its remainder `rem` (`n + 1`
/// limbs; see [`sqrt_same`]).
#[inline(always)]
fn round_root(out: &mut Out, e: i64, rem: &[u64], n: usize, p: u64, rnd: Round) -> i8 {
    let nz = rem.iter().any(|&v| v != 0);
    let gt = rem[n] != 0 || mpn::cmp(&rem[..n], &out.m[..n]) == Ordering::Greater;
    round_lo(out, false, e, ((gt as u64) << 63) | nz as u64, p, rnd)
}

/// `nn = xl * B^n` (`n = xl.len()`, `nn` of `2n` limbs), shifted right by
/// one bit when `odd`.
#[inline(always)]
fn sqrt_operand(nn: &mut [u64], xl: &[u64], odd: bool) {
    let n = xl.len();
    let (lo, hi) = nn.split_at_mut(n);
    lo.fill(0);
    if odd {
        lo[n - 1] = xl[0] << 63;
        for (h, w) in hi.iter_mut().zip(xl.windows(2)) {
            *h = (w[0] >> 1) | (w[1] << 63);
        }
        hi[n - 1] = xl[n - 1] >> 1;
    } else {
        hi.copy_from_slice(xl);
    }
}

/// `(hi B + lo) / d` and the remainder, for `hi < d` (one hardware
/// division where there is one).
#[inline(always)]
fn div_hw(hi: u64, lo: u64, d: u64) -> (u64, u64) {
    debug_assert!(hi < d);
    #[cfg(target_arch = "x86_64")]
    {
        let (q, r): (u64, u64);
        // SAFETY: no memory access; hi < d, so the quotient fits (no #DE).
        unsafe {
            std::arch::asm!(
                "div {d}",
                d = in(reg) d,
                inout("rax") lo => q,
                inout("rdx") hi => r,
                options(pure, nomem, nostack),
            );
        }
        (q, r)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let n = ((hi as u128) << 64) | lo as u128;
        ((n / d as u128) as u64, (n % d as u128) as u64)
    }
}

/// floor(sqrt(n)) of a 128-bit integer `n >= 2^126`.
#[inline(always)]
fn isqrt_u128(n: u128) -> u64 {
    debug_assert!(n >> 126 != 0);
    let (hi, lo) = ((n >> 64) as u64, n as u64);
    if hi == u64::MAX {
        // n >= (B - 1) B > (B - 1)^2: the root is B - 1 (and n / s0 would
        // not fit a limb).
        return u64::MAX;
    }
    // The f64 root is within 2^12 of sqrt(n) (relative error < 2^-51 at
    // most 2^64); 2^13 more makes s0 >= sqrt(n) > n / B, so n / s0 fits a
    // limb, and one Newton step from above lands on the root or one above.
    let f = (hi as f64 * 18446744073709551616.0 + lo as f64).sqrt();
    let s0 = (f as u64).saturating_add(1 << 13);
    let (q, _) = div_hw(hi, lo, s0);
    let mut s = ((s0 as u128 + q as u128) / 2) as u64;
    while s as u128 * s as u128 > n {
        s -= 1;
    }
    s
}

/// [`sqrtrem`] for a 1-limb root (`a` of 2 limbs).
#[inline(always)]
fn sqrtrem_1(s: &mut [u64], r: &mut [u64], a: &[u64]) {
    let v = ((a[1] as u128) << 64) | a[0] as u128;
    let x = isqrt_u128(v);
    let rem = v - x as u128 * x as u128;
    s[0] = x;
    r[0] = rem as u64;
    r[1] = (rem >> 64) as u64;
}

/// [`sqrtrem`] for a 2-limb root (`a` of 4 limbs) in registers, the same
/// steps with `l = h = 1`.
#[inline(always)]
fn sqrtrem_2(s: &mut [u64], r: &mut [u64], a: &[u64]) {
    let v = ((a[3] as u128) << 64) | a[2] as u128;
    let s1 = isqrt_u128(v);
    // r1 = v - s1^2 <= 2 s1: 65 bits.
    let r1 = v - s1 as u128 * s1 as u128;
    // num = (r1 B + a1) / 2 (the low bit apart), divided by s1: the
    // quotient is at most B, and B exactly only when num's top limb is s1.
    let low = a[1] & 1;
    let (nh, nl) = ((r1 >> 1) as u64, ((r1 as u64) << 63) | (a[1] >> 1));
    let (q, u, qtop) = if nh < s1 {
        let (q, u) = div_hw(nh, nl, s1);
        (q, u, false)
    } else {
        (0, nl, true)
    };
    // u = 2 u' + low < 2 s1 + 1: 65 bits; r = u B + a0 - q^2 on 3 limbs.
    let (u_lo, u_hi) = ((u << 1) | low, u >> 63);
    let q2 = if qtop {
        (0u128, 1u64)
    } else {
        (q as u128 * q as u128, 0)
    };
    let (r0, b0) = mpn::sbb(a[0], q2.0 as u64, false);
    let (r1, b1) = mpn::sbb(u_lo, (q2.0 >> 64) as u64, b0);
    let r2 = u_hi.wrapping_sub(q2.1).wrapping_sub(b1 as u64);
    // s = s1 B + q (q = B: s1 + 1, with a carry out when s1 = B - 1).
    let (mut sl, mut sh, mut over) = if qtop {
        let (h, o) = s1.overflowing_add(1);
        (0u64, h, o)
    } else {
        (q, s1, false)
    };
    let (mut r0, mut r1, mut r2) = (r0, r1, r2);
    while (r2 as i64) < 0 {
        // r += 2s - 1; s -= 1 (s >= 1 here).
        for _ in 0..2 {
            let c;
            (r0, c) = mpn::adc(r0, sl, false);
            let c2;
            (r1, c2) = mpn::adc(r1, sh, c);
            r2 = r2.wrapping_add(c2 as u64 + over as u64);
        }
        let b;
        (r0, b) = mpn::sbb(r0, 1, false);
        let b2;
        (r1, b2) = mpn::sbb(r1, 0, b);
        r2 = r2.wrapping_sub(b2 as u64);
        let bs;
        (sl, bs) = sl.overflowing_sub(1);
        let bh;
        (sh, bh) = sh.overflowing_sub(bs as u64);
        if bh {
            over = false;
        }
    }
    debug_assert!(!over);
    s[0] = sl;
    s[1] = sh;
    r[0] = r0;
    r[1] = r1;
    r[2] = r2;
}

/// Scratch limbs [`sqrtrem`] needs for an `n`-limb root.
fn sqrtrem_itch(n: usize) -> usize {
    3 * n + 8
}

/// `q = floor(num / d)` in place for a normalized `d` (top bit set) and a
/// quotient of `q.len() = num.len() - d.len()` limbs (the caller knows it
/// fits): the remainder is left in `num[..d.len()]`.
#[inline(always)]
fn div_norm(q: &mut [u64], num: &mut [u64], d: &[u64], t: &mut Vec<u64>) {
    let h = d.len();
    debug_assert!(q.len() == num.len() - h && d[h - 1] >> 63 == 1);
    if h == 1 {
        let (d0, di) = (d[0], mdiv::invert_limb(d[0]));
        let top = q.len();
        let mut r = num[top];
        debug_assert!(r < d0);
        for i in (0..top).rev() {
            (q[i], r) = mdiv::div_2by1(r, num[i], d0, di);
        }
        num[0] = r;
    } else {
        let dinv = mdiv::invert_pi1(d[h - 1], d[h - 2]);
        if h < mdiv::DC_T {
            let qh = mdiv::sb_div_qr(q, num, d, dinv);
            debug_assert!(!qh);
        } else {
            let tp = grow(t, mdiv::div_qr_itch(q.len(), h));
            let qh = mdiv::div_qr(q, num, d, dinv, tp, false);
            debug_assert_eq!(qh, 0);
        }
    }
}

/// `s = floor(sqrt(a))` and `r = a - s^2` (`r` has `n+1` limbs) for `a` of
/// `2n` limbs whose top limb is at least 2^62 (so `s` has its top bit set):
/// Zimmermann's Karatsuba square root (as GMP's `mpn_dc_sqrtrem`). The root
/// `s'` and remainder `r'` of the top `2h` limbs (`h = n - l`, `l = n/2`)
/// give the next `l` limbs as `q = floor((r' B^l + a1) / (2 s'))`; then
/// `s = s' B^l + q`, `r = u B^l + a0 - q^2`, and if `r < 0` one correction
/// `r += 2s - 1, s -= 1`.
fn sqrtrem(s: &mut [u64], r: &mut [u64], a: &[u64], ws: &mut [u64], t: &mut Vec<u64>) {
    // The common sizes with constant lengths (copies become moves, loops
    // unroll).
    match s.len() {
        4 => sqrtrem_body(&mut s[..4], &mut r[..5], &a[..8], ws, t),
        8 => sqrtrem_body(&mut s[..8], &mut r[..9], &a[..16], ws, t),
        16 => sqrtrem_body(&mut s[..16], &mut r[..17], &a[..32], ws, t),
        _ => sqrtrem_body(s, r, a, ws, t),
    }
}

/// The body of [`sqrtrem`].
#[inline(always)]
fn sqrtrem_body(s: &mut [u64], r: &mut [u64], a: &[u64], ws: &mut [u64], t: &mut Vec<u64>) {
    let n = s.len();
    debug_assert!(a.len() == 2 * n && r.len() == n + 1 && a[2 * n - 1] >> 62 != 0);
    if n == 1 {
        sqrtrem_1(s, r, a);
        return;
    }
    if n == 2 {
        sqrtrem_2(s, r, a);
        return;
    }
    let l = n / 2;
    let h = n - l;
    sqrtrem(&mut s[l..], &mut r[..h + 1], &a[2 * l..], ws, t);
    let (num, ws) = ws.split_at_mut(l + h + 1);
    num[..l].copy_from_slice(&a[l..2 * l]);
    num[l..].copy_from_slice(&r[..h + 1]);
    // q = floor(num / 2s') = floor(floor(num / 2) / s') and u = num - 2s'q =
    // 2 (floor(num / 2) - s'q) + (num mod 2): a normalized divisor, so the
    // division shifts nothing. q <= B^l: l + 1 limbs.
    let low = num[0] & 1;
    mpn::shr_assign(num, 1);
    let (q, ws) = ws.split_at_mut(l + 1);
    div_norm(q, num, &s[l..], t);
    sqrtrem_finish(s, r, a, num, q, low, &mut ws[..n + 1], n, Some(t));
}

/// The last steps of [`sqrtrem_body`] for the quotient `q` (`l + 1` limbs,
/// `l = n/2`), the division's remainder in `num` and `low` (the bit the
/// halving shifted out): `s` and `r` from `s'` in `s[l..]`, with `q2` of
/// `n + 1` limbs as scratch (`n` is `s.len()`, passed so that it stays a
/// constant where the caller's is). `t` is scratch for a square of `l >= KARA_T`
/// limbs (`None`: the basecase product at every length).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sqrtrem_finish(
    s: &mut [u64],
    r: &mut [u64],
    a: &[u64],
    num: &[u64],
    q: &[u64],
    low: u64,
    q2: &mut [u64],
    n: usize,
    t: Option<&mut Vec<u64>>,
) {
    debug_assert!(s.len() == n && r.len() == n + 1 && q2.len() == n + 1);
    let l = n / 2;
    let h = n - l;
    debug_assert!(q[l] <= 1);
    // r = u B^l + a0, n + 1 limbs (u < 2 s' + 1 fits h + 1 limbs).
    r[..l].copy_from_slice(&a[..l]);
    r[l + h] = mpn::shl(&mut r[l..l + h], &num[..h], 1);
    r[l] |= low;
    s[..l].copy_from_slice(&q[..l]);
    // s may reach B^n before the correction: `over` is that top bit.
    let mut over = q[l] != 0 && mpn::add_1_assign(&mut s[l..], 1);
    // q^2 on n + 1 limbs (2l <= n).
    q2.fill(0);
    if q[l] == 0 {
        match t {
            Some(t) if l >= mmul::KARA_T => mul_exact(&mut q2[..2 * l], &q[..l], &q[..l], t),
            _ => mmul::mul_basecase(&mut q2[..2 * l], &q[..l], &q[..l]),
        }
    } else {
        q2[2 * l] = 1;
    }
    while mpn::cmp(r, q2) == Ordering::Less {
        // r += 2s - 1; s -= 1.
        for _ in 0..2 {
            let c = mpn::add_n_assign(&mut r[..n], s);
            r[n] += c as u64 + over as u64;
        }
        mpn::sub_1_assign(r, 1);
        if mpn::sub_1_assign(s, 1) {
            over = false;
        }
    }
    debug_assert!(!over);
    mpn::sub_n_assign(r, q2);
}

/// `sqrt(x[l])` for a group of [`LANES`] elements: when all are positive
/// normal numbers with the output's `n <= 16` limbs, the lanes' square
/// roots run in lockstep ([`sqrtrem_lanes`]: each root is a chain of
/// dependent steps, hardware square root and divisions at its base);
/// otherwise one by one through [`sqrt`].
pub(crate) fn sqrt_lanes(
    out: &mut [Out; LANES],
    x: &[Elem; LANES],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> [i8; LANES] {
    let n = out[0].m.len();
    let fast = n <= 16
        && (0..LANES).all(|l| x[l].class == Class::Normal && !x[l].neg && x[l].limbs.len() == n);
    if !fast {
        return std::array::from_fn(|l| sqrt(&mut out[l], &x[l], p, rnd, s));
    }
    match n {
        2 => sqrt_lanes_body(out, x, 2, p, rnd, s),
        4 => sqrt_lanes_body(out, x, 4, p, rnd, s),
        8 => sqrt_lanes_body(out, x, 8, p, rnd, s),
        16 => sqrt_lanes_body(out, x, 16, p, rnd, s),
        _ => sqrt_lanes_body(out, x, n, p, rnd, s),
    }
}

/// [`sqrt_lanes`] for `n` limbs: [`sqrt_same`] per lane around one
/// [`sqrtrem_lanes`].
#[inline(always)]
fn sqrt_lanes_body(
    out: &mut [Out; LANES],
    x: &[Elem; LANES],
    n: usize,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> [i8; LANES] {
    let per = 2 * n + (n + 1) + sqrtrem_itch(n);
    let buf = grow(&mut s.a, LANES * per);
    let mut nn: [&mut [u64]; LANES] = Default::default();
    let mut rem: [&mut [u64]; LANES] = Default::default();
    let mut ws: [&mut [u64]; LANES] = Default::default();
    for (l, b) in buf.chunks_exact_mut(per).enumerate() {
        let (a, b) = b.split_at_mut(2 * n);
        let (c, d) = b.split_at_mut(n + 1);
        sqrt_operand(a, &x[l].limbs[..n], x[l].exp & 1 == 1);
        (nn[l], rem[l], ws[l]) = (a, c, d);
    }
    {
        let mut root: [&mut [u64]; LANES] = out.each_mut().map(|o| &mut o.m[..n]);
        let a: [&[u64]; LANES] = nn.each_ref().map(|v| &**v);
        sqrtrem_lanes(&mut root, &mut rem, &a, &mut ws);
    }
    let mut t = [0i8; LANES];
    for l in 0..LANES {
        let e = (x[l].exp + (x[l].exp & 1)) / 2;
        t[l] = round_root(&mut out[l], e, rem[l], n, p, rnd);
    }
    t
}

/// [`sqrtrem`] on [`LANES`] operands of the same `2n` limbs (`n <= 16`),
/// step by step in lockstep (the divisions through [`sb_div_qr_lanes`]).
fn sqrtrem_lanes(
    s: &mut [&mut [u64]; LANES],
    r: &mut [&mut [u64]; LANES],
    a: &[&[u64]; LANES],
    ws: &mut [&mut [u64]; LANES],
) {
    // The common sizes with constant lengths.
    match s[0].len() {
        4 => sqrtrem_lanes_body::<4>(s, r, a, ws),
        8 => sqrtrem_lanes_body::<8>(s, r, a, ws),
        16 => sqrtrem_lanes_body::<16>(s, r, a, ws),
        _ => sqrtrem_lanes_body::<0>(s, r, a, ws),
    }
}

/// The body of [`sqrtrem_lanes`] for `N` limbs (`N = 0`: any).
#[inline(always)]
fn sqrtrem_lanes_body<const N: usize>(
    s: &mut [&mut [u64]; LANES],
    r: &mut [&mut [u64]; LANES],
    a: &[&[u64]; LANES],
    ws: &mut [&mut [u64]; LANES],
) {
    let n = if N > 0 { N } else { s[0].len() };
    debug_assert!(n == s[0].len() && n <= 16);
    if n <= 2 {
        for l in 0..LANES {
            if n == 2 {
                sqrtrem_2(s[l], r[l], a[l]);
            } else {
                sqrtrem_1(s[l], r[l], a[l]);
            }
        }
        return;
    }
    let l_ = n / 2;
    let h = n - l_;
    {
        let mut st: [&mut [u64]; LANES] = s.each_mut().map(|v| &mut v[l_..]);
        let mut rt: [&mut [u64]; LANES] = r.each_mut().map(|v| &mut v[..h + 1]);
        let at: [&[u64]; LANES] = a.map(|v| &v[2 * l_..]);
        sqrtrem_lanes(&mut st, &mut rt, &at, ws);
    }
    let mut num: [&mut [u64]; LANES] = Default::default();
    let mut q: [&mut [u64]; LANES] = Default::default();
    let mut q2: [&mut [u64]; LANES] = Default::default();
    let mut low = [0u64; LANES];
    for (l, w) in ws.iter_mut().enumerate() {
        let (nm, rest) = w.split_at_mut(l_ + h + 1);
        let (qq, rest) = rest.split_at_mut(l_ + 1);
        nm[..l_].copy_from_slice(&a[l][l_..2 * l_]);
        nm[l_..].copy_from_slice(&r[l][..h + 1]);
        low[l] = nm[0] & 1;
        mpn::shr_assign(nm, 1);
        (num[l], q[l], q2[l]) = (nm, qq, &mut rest[..n + 1]);
    }
    {
        let d: [&[u64]; LANES] = s.each_ref().map(|v| &v[l_..]);
        let mut dinv = [0u64; LANES];
        for l in 0..LANES {
            dinv[l] = mdiv::invert_pi1(d[l][h - 1], d[l][h - 2]);
        }
        let qh = sb_div_qr_lanes(&mut q, &mut num, &d, &dinv);
        debug_assert!(qh.iter().all(|&b| !b));
    }
    for l in 0..LANES {
        sqrtrem_finish(s[l], r[l], a[l], num[l], q[l], low[l], q2[l], n, None);
    }
}

/// `a * b + c` (`c` negated when `sub`: `a * b - c`), rounded once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fma(
    out: &mut Out,
    a: &Elem,
    b: &Elem,
    c: &Elem,
    sub: bool,
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    use Class::*;
    let pn = a.neg ^ b.neg;
    let cn = c.neg ^ sub;
    if a.class == NaN || b.class == NaN || c.class == NaN {
        out.special(NaN, false);
        return 0;
    }
    if a.class == Inf || b.class == Inf {
        if a.class == Zero || b.class == Zero || (c.class == Inf && cn != pn) {
            out.special(NaN, false);
        } else {
            out.special(Inf, pn);
        }
        return 0;
    }
    if c.class == Inf {
        out.special(Inf, cn);
        return 0;
    }
    if a.class == Zero || b.class == Zero {
        if c.class == Zero {
            out.special(Zero, if pn == cn { pn } else { rnd == Round::Down });
            return 0;
        }
        return round_to(out, cn, c.exp, c.limbs, false, p, rnd);
    }
    let Scratch {
        a: buf,
        b: ybuf,
        d: pbuf,
        t,
        ..
    } = s;
    let pr = product(Num::of(a, a.neg), Num::of(b, b.neg), pbuf, t);
    if c.class == Zero {
        return round_to(out, pr.neg, pr.e, pr.m, false, p, rnd);
    }
    add_num(out, pr, Num::of(c, cn), p, rnd, buf, ybuf)
}

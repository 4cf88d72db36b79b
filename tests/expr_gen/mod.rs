//! Random expression texts and the references of tests/expr*.rs: integers
//! by malachite naturals modulo 2^W, floats by malachite-float with one
//! rounding per operation.
#![allow(dead_code)]

use malachite_base::num::arithmetic::traits::{ModPowerOf2, ModPowerOf2Neg};
use malachite_float::Float;
use malachite_nz::natural::Natural;
use mparray::FloatArray;
use mparray::expr::{Expr, Node, Op};
use mparray::float::Round;

use crate::common::Rng;

/// A random integer expression over `nin` inputs a, b, ... of depth up to
/// `depth`, using every integer operation.
pub fn int_text(r: &mut Rng, nin: usize, depth: u32, bits: u64) -> String {
    let leaf = |r: &mut Rng| -> String {
        if r.below(6) == 0 {
            match r.below(3) {
                0 => format!("{}", r.below(1000)),
                1 => format!("0x{:x}", r.next()),
                _ => "1".into(),
            }
        } else {
            ((b'a' + r.index(nin) as u8) as char).to_string()
        }
    };
    if depth == 0 || r.below(5) == 0 {
        return leaf(r);
    }
    let sub = |r: &mut Rng| int_text(r, nin, depth - 1, bits);
    match r.below(16) {
        0 => format!("({} + {})", sub(r), sub(r)),
        1 => format!("({} - {})", sub(r), sub(r)),
        2 | 3 => format!("({} * {})", sub(r), sub(r)),
        4 => format!("({} << {})", sub(r), r.below(bits + 70)),
        5 => format!("({} >> {})", sub(r), r.below(bits + 70)),
        6 => format!("({} & {})", sub(r), sub(r)),
        7 => format!("({} | {})", sub(r), sub(r)),
        8 => format!("({} ^ {})", sub(r), sub(r)),
        9 => format!("~{}", sub(r)),
        10 => format!("-{}", sub(r)),
        11 => {
            let c = ["==", "!=", "<", "<=", ">", ">="][r.index(6)];
            format!("({} {c} {})", sub(r), sub(r))
        }
        12 => format!("({} ? {} : {})", sub(r), sub(r), sub(r)),
        13 => format!("select({}, {}, {})", sub(r), sub(r), sub(r)),
        _ => format!("({} + {} * {})", sub(r), sub(r), sub(r)),
    }
}

fn parse_nat(c: &str) -> Natural {
    use std::str::FromStr;
    match c.strip_prefix("0x") {
        Some(h) => Natural::from_str_radix(h, 16).unwrap(),
        None => Natural::from_str(c).unwrap(),
    }
}

trait FromRadix {
    fn from_str_radix(s: &str, radix: u8) -> Option<Natural>;
}

impl FromRadix for Natural {
    fn from_str_radix(s: &str, radix: u8) -> Option<Natural> {
        use malachite_base::num::conversion::traits::FromStringBase;
        Natural::from_string_base(radix, s)
    }
}

/// malachite on one element: every node modulo 2^bits.
pub fn int_reference(e: &Expr, xs: &[Natural], bits: u64) -> Natural {
    let mut v: Vec<Option<Natural>> = vec![None; e.nodes().len()];
    let live = e.live();
    let b = |t: bool| Natural::from(t as u32);
    for (i, n) in e.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        v[i] = Some(match n {
            Node::Input(k) => xs[*k].clone(),
            Node::Const(c) => parse_nat(c).mod_power_of_2(bits),
            Node::Op(op, a) => {
                let x = |j: usize| v[a[j]].clone().unwrap();
                match op {
                    Op::Add => (x(0) + x(1)).mod_power_of_2(bits),
                    Op::Sub => (x(0) + (x(1).mod_power_of_2_neg(bits))).mod_power_of_2(bits),
                    Op::Mul => (x(0) * x(1)).mod_power_of_2(bits),
                    Op::Neg => x(0).mod_power_of_2_neg(bits),
                    Op::Shl(k) => (x(0) << *k as u64).mod_power_of_2(bits),
                    Op::Shr(k) => x(0) >> *k as u64,
                    Op::And => x(0) & x(1),
                    Op::Or => x(0) | x(1),
                    Op::Xor => x(0) ^ x(1),
                    Op::Not => (Natural::from(1u32) << bits) - Natural::from(1u32) - x(0),
                    Op::Eq => b(x(0) == x(1)),
                    Op::Ne => b(x(0) != x(1)),
                    Op::Lt => b(x(0) < x(1)),
                    Op::Le => b(x(0) <= x(1)),
                    Op::Gt => b(x(0) > x(1)),
                    Op::Ge => b(x(0) >= x(1)),
                    Op::Select => {
                        if x(0) != 0u32 {
                            x(1)
                        } else {
                            x(2)
                        }
                    }
                    _ => unreachable!("integer operations"),
                }
            }
        });
    }
    v[e.root()].clone().unwrap()
}

/// A random float expression over `nin` inputs of depth up to `depth`.
pub fn float_text(r: &mut Rng, nin: usize, depth: u32) -> String {
    if depth == 0 || r.below(5) == 0 {
        if r.below(8) == 0 {
            return ["1", "0.1", "3.5e2", "2"][r.index(4)].into();
        }
        return ((b'a' + r.index(nin) as u8) as char).to_string();
    }
    let sub = |r: &mut Rng| float_text(r, nin, depth - 1);
    match r.below(9) {
        0 | 1 => format!("({} + {})", sub(r), sub(r)),
        2 => format!("({} - {})", sub(r), sub(r)),
        3 | 4 => format!("({} * {})", sub(r), sub(r)),
        5 => format!("({} / {})", sub(r), sub(r)),
        6 => format!("sqrt({})", sub(r)),
        7 => format!("fma({}, {}, {})", sub(r), sub(r), sub(r)),
        _ => format!("-{}", sub(r)),
    }
}

/// malachite-float on one element, one rounding per operation to `p`.
pub fn float_reference(e: &Expr, xs: &[Float], p: u64, rnd: Round) -> Float {
    let m = mparray::float::to_rounding_mode(rnd);
    let mut v: Vec<Option<Float>> = vec![None; e.nodes().len()];
    let live = e.live();
    for (i, n) in e.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        v[i] = Some(match n {
            Node::Input(k) => xs[*k].clone(),
            Node::Const(c) => FloatArray::from_strs_ternary(p, &[c.as_str()], rnd)
                .unwrap()
                .0
                .to_float(0)
                .unwrap(),
            Node::Op(op, a) => {
                let x = |j: usize| v[a[j]].clone().unwrap();
                match op {
                    Op::Add => x(0).add_prec_round(x(1), p, m).0,
                    Op::Sub => x(0).sub_prec_round(x(1), p, m).0,
                    Op::Mul => x(0).mul_prec_round(x(1), p, m).0,
                    Op::Div => x(0).div_prec_round(x(1), p, m).0,
                    Op::Sqrt => x(0).sqrt_prec_round(p, m).0,
                    Op::Fma => x(2).add_mul_prec_round(x(0), x(1), p, m).0,
                    Op::Neg => {
                        let mut y = -x(0);
                        y.set_prec_round(p, m);
                        y
                    }
                    _ => unreachable!("float operations"),
                }
            }
        });
    }
    let mut r = v[e.root()].clone().unwrap();
    if !matches!(e.nodes()[e.root()], Node::Op(..)) {
        r.set_prec_round(p, m);
    }
    r
}

/// The one-argument float functions' names (every `Func`).
pub fn func_names() -> Vec<&'static str> {
    mparray::float::func::Func::ALL
        .iter()
        .map(|f| f.name())
        .collect()
}

/// A random float expression with function calls: `float_text`'s
/// operations at any depth and, about one node in three, a function of
/// `Func` (or, less often, of `Func2`). A function's argument is
/// arithmetic of depth up to 2 on leaves, or a function of bounded range
/// (sin, atan, log, ...) of a leaf: trig of an argument of exponent 2^30
/// (as sin(exp(exp2(a))) can produce) needs 2^30 bits of pi, out of reach
/// of any library, so these trees keep function arguments of moderate
/// exponent (up to about 2^9: products of two inputs up to 1e40).
pub fn float_fn_text(r: &mut Rng, nin: usize, depth: u32) -> String {
    let arg = |r: &mut Rng| float_fn_arg(r, nin);
    if depth == 0 || r.below(5) == 0 {
        return float_leaf(r, nin);
    }
    let sub = |r: &mut Rng| float_fn_text(r, nin, depth - 1);
    match r.below(12) {
        k @ 0..=6 => arith_node(r, k, sub),
        7 => {
            let f = ["atan2", "hypot", "pow", "agm"][r.index(4)];
            format!("{f}({}, {})", arg(r), arg(r))
        }
        _ => {
            let names = func_names();
            format!("{}({})", names[r.index(names.len())], arg(r))
        }
    }
}

fn float_leaf(r: &mut Rng, nin: usize) -> String {
    if r.below(8) == 0 {
        return ["1", "0.1", "3.5e2", "2"][r.index(4)].into();
    }
    ((b'a' + r.index(nin) as u8) as char).to_string()
}

fn float_arith(r: &mut Rng, nin: usize, depth: u32) -> String {
    if depth == 0 || r.below(4) == 0 {
        return float_leaf(r, nin);
    }
    let sub = |r: &mut Rng| float_arith(r, nin, depth - 1);
    let k = r.below(7);
    arith_node(r, k, sub)
}

/// Arithmetic node `k` (0..7: + - * / sqrt fma, else unary minus) over
/// subtrees drawn by `sub`.
fn arith_node(r: &mut Rng, k: u64, sub: impl Fn(&mut Rng) -> String) -> String {
    match k {
        0 => format!("({} + {})", sub(r), sub(r)),
        1 => format!("({} - {})", sub(r), sub(r)),
        2 => format!("({} * {})", sub(r), sub(r)),
        3 => format!("({} / {})", sub(r), sub(r)),
        4 => format!("sqrt({})", sub(r)),
        5 => format!("fma({}, {}, {})", sub(r), sub(r), sub(r)),
        _ => format!("-{}", sub(r)),
    }
}

/// A function argument of [`float_fn_text`]: arithmetic of depth up to 2
/// on leaves, or (one in four) a function of bounded range of a leaf.
pub fn float_fn_arg(r: &mut Rng, nin: usize) -> String {
    if r.below(4) == 0 {
        let f = [
            "sin", "cos", "atan", "tanh", "log", "log2", "log10", "log1p", "asinh", "cbrt",
        ][r.index(10)];
        format!("{f}({})", float_leaf(r, nin))
    } else {
        float_arith(r, nin, 2)
    }
}

/// A random complex expression over `nin` inputs: + - * /, unary minus,
/// and, as operands of those, sqrt, the complex functions and pow of a
/// leaf or of one operation on leaves (nested functions of large values,
/// as tanh(exp(exp(b))), can take the library minutes to decide: kept out
/// of these tests).
pub fn complex_text(r: &mut Rng, nin: usize, depth: u32) -> String {
    let leaf = |r: &mut Rng| -> String {
        if r.below(8) == 0 {
            return ["1", "0.5", "2", "-3"][r.index(4)].into();
        }
        ((b'a' + r.index(nin) as u8) as char).to_string()
    };
    let simple = |r: &mut Rng| -> String {
        if r.below(2) == 0 {
            leaf(r)
        } else {
            let op = ["+", "-", "*", "/"][r.index(4)];
            format!("({} {op} {})", leaf(r), leaf(r))
        }
    };
    if depth == 0 || r.below(5) == 0 {
        return leaf(r);
    }
    let sub = |r: &mut Rng| complex_text(r, nin, depth - 1);
    match r.below(12) {
        0 | 1 => format!("({} + {})", sub(r), sub(r)),
        2 => format!("({} - {})", sub(r), sub(r)),
        3 | 4 => format!("({} * {})", sub(r), sub(r)),
        5 => format!("({} / {})", sub(r), sub(r)),
        6 if r.below(2) == 0 => format!("-{}", sub(r)),
        6 => format!("fma({}, {}, {})", sub(r), sub(r), sub(r)),
        7 => format!("pow({}, {})", simple(r), simple(r)),
        _ => {
            let f = [
                "sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atan", "asin",
                "acos",
            ][r.index(12)];
            format!("{f}({})", simple(r))
        }
    }
}

/// Random complex arrays (special parts about one in ten) of mixed precisions.
pub fn complex_inputs(
    r: &mut Rng,
    nin: usize,
    len: usize,
    precs: &[u64],
) -> Vec<mparray::ComplexArray> {
    (0..nin)
        .map(|k| {
            let p = precs[k % precs.len()];
            let part = |r: &mut Rng| -> String {
                match r.below(10) {
                    0 => ["0", "-0", "inf", "-inf", "nan", "1", "-1"][r.index(7)].into(),
                    _ => format!(
                        "{}{}.{}e{}",
                        if r.below(2) == 0 { "-" } else { "" },
                        r.below(4),
                        r.next() % 100000,
                        r.range(-2, 1)
                    ),
                }
            };
            let items: Vec<(String, String)> = (0..len).map(|_| (part(r), part(r))).collect();
            mparray::ComplexArray::from_strs(p, p, &items).unwrap()
        })
        .collect()
}

/// A random complex expression of the fused operations (`+ - *`, unary
/// minus, real constants) over `nin` inputs, depth up to `depth`; with
/// `split`, now and then a `/`, `sqrt`, `exp` (of a product of inputs) or
/// `pow` node (the split evaluation on CUDA).
pub fn complex_arith_text(r: &mut Rng, nin: usize, depth: u32, split: bool) -> String {
    if depth == 0 || r.below(6) == 0 {
        if r.below(8) == 0 {
            return ["1", "0.1", "-3", "2.5e3"][r.index(4)].into();
        }
        return ((b'a' + r.index(nin) as u8) as char).to_string();
    }
    let sub = |r: &mut Rng| complex_arith_text(r, nin, depth - 1, split);
    match r.below(if split { 14 } else { 10 }) {
        0 | 1 => format!("({} + {})", sub(r), sub(r)),
        2 | 3 => format!("({} - {})", sub(r), sub(r)),
        4..=7 => format!("({} * {})", sub(r), sub(r)),
        8 => {
            let x = sub(r);
            format!("({x} * {x})")
        }
        9 => format!("-{}", sub(r)),
        10 => format!("({} / {})", sub(r), sub(r)),
        11 => format!("sqrt({})", sub(r)),
        // Of inputs only: nested exponentials reach arguments whose
        // reduction takes the CPU engine minutes.
        12 => {
            let x = (b'a' + r.index(nin) as u8) as char;
            let y = (b'a' + r.index(nin) as u8) as char;
            format!("exp({x} * {y})")
        }
        _ => format!("pow({}, {})", sub(r), ["2", "0.5", "a"][r.index(3)]),
    }
}

/// One part of the fused complex kernels' test inputs at `q` bits: with
/// `special` >= 1, one in twenty a signed zero, an infinity or NaN; with
/// `special` = 2, one in twenty an exponent near the range's ends (products
/// that leave it, or nearly; not for functions, whose argument reduction
/// would need that many bits); `small` (a few bits, shared between the inputs of an element:
/// exact products and exact cancellations) one in five; else a random
/// normal number near 1.
fn complex_part(r: &mut Rng, q: u64, special: u8, small: (u32, i64, bool)) -> crate::common::Raw {
    use mparray::float::{EMAX, EMIN};
    let n = q.div_ceil(64) as usize;
    let zero = |t: u8| (t, 0i64, vec![0u64; n]);
    let neg = r.below(2) == 0;
    match r.below(40) {
        0..=1 if special >= 1 => match r.below(5) {
            0 => zero(0),
            1 => zero(4),
            2 => zero(2),
            3 => zero(6),
            _ => zero(3),
        },
        2..=3 if special == 2 => {
            let e = match r.below(4) {
                0 => EMAX - r.below(3) as i64,
                1 => EMIN + r.below(3) as i64,
                2 => EMAX / 2 + r.range(-2, 3),
                _ => EMIN / 2 + r.range(-2, 3),
            };
            crate::common::elem(r, q, e, neg)
        }
        4..=11 => {
            let mut m = vec![0u64; n];
            m[n - 1] = (small.0 as u64) << 32;
            (1 | if small.2 { 4 } else { 0 }, small.1, m)
        }
        _ => {
            let e = r.range(-8, 9);
            crate::common::elem(r, q, e, neg)
        }
    }
}

/// Random complex arrays, input k with part precisions `precs[k % len]`
/// (real, imaginary), parts as [`complex_part`] (`special`: 0 normal
/// numbers only, 1 also zeros, infinities and NaN, 2 also exponents at the
/// range's ends).
pub fn complex_mixed_inputs(
    r: &mut Rng,
    nin: usize,
    len: usize,
    precs: &[(u64, u64)],
    special: u8,
) -> Vec<mparray::ComplexArray> {
    // Per element, two small values the inputs share.
    let shared: Vec<[(u32, i64, bool); 2]> = (0..len)
        .map(|_| {
            let mut s = || {
                (
                    (1u32 << 31) | (r.next() as u32 & 0x7fe0_0000),
                    r.range(-3, 4),
                    r.below(2) == 0,
                )
            };
            [s(), s()]
        })
        .collect();
    (0..nin)
        .map(|k| {
            let (pr, pi) = precs[k % precs.len()];
            let mut part = |q: u64| {
                let (mut t, mut e, mut l) = (Vec::new(), Vec::new(), Vec::new());
                for s in &shared {
                    let w = s[r.index(2)];
                    let (tag, x, m) = complex_part(r, q, special, w);
                    t.push(tag);
                    e.push(x);
                    l.extend(m);
                }
                FloatArray::from_raw(q, t, e, l).unwrap()
            };
            let re = part(pr);
            let im = part(pi);
            mparray::ComplexArray::new(re, im).unwrap()
        })
        .collect()
}

/// The elements the generated complex kernel must list for the CPU engine
/// (float_unusual's test on every live product's operands, as the chain
/// holds them: an input at its precisions, anything else its value at
/// `p`): a part that is not a normal number, or an exponent sum of the
/// products `ac, bd, ad, bc` at or beyond `EMIN + 1`, `EMAX`.
pub fn complex_expected_flags(
    e: &Expr,
    ins: &[&mparray::ComplexArray],
    p: u64,
    rnd: mparray::complex::CRound,
) -> Vec<bool> {
    use mparray::float::{EMAX, EMIN};
    let len = ins[0].len();
    let live = e.live();
    let mut flags = vec![false; len];
    let value = |j: usize| -> (Vec<u8>, Vec<i64>, Vec<u8>, Vec<i64>) {
        let a = match &e.nodes()[j] {
            Node::Input(k) => ins[*k].to_engine(&mparray::Engine::Cpu).unwrap(),
            _ => {
                let mut sub = e.clone();
                sub.set_root(j);
                mparray::expr::eval_complex(&sub, ins, p, rnd).unwrap()
            }
        };
        let (re, im) = (a.re().unwrap(), a.im().unwrap());
        (
            re.tags().unwrap().to_vec(),
            re.exps().unwrap().to_vec(),
            im.tags().unwrap().to_vec(),
            im.exps().unwrap().to_vec(),
        )
    };
    for (i, n) in e.nodes().iter().enumerate() {
        if let (true, Node::Op(Op::Mul, a)) = (live[i], n) {
            let (x, y) = (value(a[0]), value(a[1]));
            for (el, f) in flags.iter_mut().enumerate() {
                let tags = [x.0[el], x.2[el], y.0[el], y.2[el]];
                let (ea, eb, ec, ed) = (x.1[el], x.3[el], y.1[el], y.3[el]);
                let bad = tags.iter().any(|t| t & 3 != 1)
                    || [ea + ec, eb + ed, ea + ed, eb + ec]
                        .iter()
                        .any(|&s| s <= EMIN + 1 || s >= EMAX);
                *f |= bad;
            }
        }
    }
    flags
}

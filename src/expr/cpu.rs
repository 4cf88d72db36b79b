//! Fused evaluation on the CPU: per element, every live node in order, the
//! intermediates in per-task scratch (no temporary arrays), the elements
//! split across all cores by rayon.

use rayon::prelude::*;

use super::{Expr, Node, Op};
use crate::error::{Error, Result};
use crate::float::arith::{self, Scratch};
use crate::float::round::Out;
use crate::float::{Elem, FloatArray, Round};
use crate::int::IntArray;
use crate::int::cpu::{self as icpu, arith as iarith};

/// The limbs of each constant node at `bits` bits (None for other nodes).
pub fn int_constants(expr: &Expr, bits: u64) -> Result<Vec<Option<Vec<u64>>>> {
    expr.nodes()
        .iter()
        .map(|n| match n {
            Node::Const(c) => {
                let a = IntArray::from_strs(bits, &[c.as_str()])
                    .map_err(|e| Error::Invalid(format!("constant {c} in the expression: {e}")))?;
                Ok(Some(a.to_limbs()?))
            }
            _ => Ok(None),
        })
        .collect()
}

/// A float constant rounded to the output precision.
#[derive(Clone, Debug)]
pub struct FConst {
    pub text: String,
    pub tag: u8,
    pub exp: i64,
    pub limbs: Vec<u64>,
}

impl FConst {
    fn elem(&self) -> Elem<'_> {
        Elem {
            class: crate::float::class_of(self.tag),
            neg: self.tag & crate::float::NEG != 0,
            exp: self.exp,
            limbs: &self.limbs,
        }
    }
}

/// Each constant node rounded once to `prec` in mode `rnd`.
pub fn float_constants(expr: &Expr, prec: u64, rnd: Round) -> Result<Vec<Option<FConst>>> {
    expr.nodes()
        .iter()
        .map(|n| match n {
            Node::Const(c) => {
                let (a, _) = FloatArray::from_strs_ternary(prec, &[c.as_str()], rnd)
                    .map_err(|e| Error::Invalid(format!("constant {c} in the expression: {e}")))?;
                Ok(Some(FConst {
                    text: c.clone(),
                    tag: a.tags()?[0],
                    exp: a.exps()?[0],
                    limbs: a.limbs()?.to_vec(),
                }))
            }
            _ => Ok(None),
        })
        .collect()
}

/// Where a node's value lives during one element.
#[derive(Clone, Copy)]
enum Src {
    Input(usize),
    Const(usize),
    Slot(usize),
}

/// The live operation nodes in order, with slots, and each node's source.
/// One operation node: the operation, its operands and its slot.
type Step = (Op, Vec<Src>, usize);

fn program(expr: &Expr) -> (Vec<Step>, Vec<Src>) {
    let live = expr.live();
    let mut src = Vec::with_capacity(expr.nodes().len());
    let mut prog = Vec::new();
    for (i, n) in expr.nodes().iter().enumerate() {
        let s = match n {
            Node::Input(k) => Src::Input(*k),
            Node::Const(_) => Src::Const(i),
            Node::Op(op, a) => {
                if live[i] {
                    let slot = prog.len();
                    prog.push((*op, a.iter().map(|&j| src[j]).collect(), slot));
                    Src::Slot(slot)
                } else {
                    Src::Slot(usize::MAX)
                }
            }
        };
        src.push(s);
    }
    (prog, src)
}

/// Elements per rayon task for `limbs`-limb elements.
fn chunk(limbs: usize) -> usize {
    (4096 / limbs).clamp(1, 256)
}

fn shl(r: &mut [u64], a: &[u64], k: u32) {
    let l = r.len();
    let (q, s) = ((k / 64) as usize, k % 64);
    r.fill(0);
    if q >= l {
        return;
    }
    if s == 0 {
        r[q..].copy_from_slice(&a[..l - q]);
    } else {
        iarith::shl(&mut r[q..], &a[..l - q], s);
    }
}

fn shr(r: &mut [u64], a: &[u64], k: u32) {
    let l = r.len();
    let (q, s) = ((k / 64) as usize, k % 64);
    r.fill(0);
    if q >= l {
        return;
    }
    if s == 0 {
        r[..l - q].copy_from_slice(&a[q..]);
    } else {
        iarith::shr(&mut r[..l - q], &a[q..], s);
    }
}

/// One integer operation on one element: `r = op(x...)`.
pub(crate) fn int_op(op: Op, r: &mut [u64], x: &[&[u64]], s: &mut Vec<u64>) {
    use std::cmp::Ordering::*;
    let cmp = |r: &mut [u64], t: bool| {
        r.fill(0);
        r[0] = t as u64;
    };
    match op {
        Op::Add => {
            iarith::add_n(r, x[0], x[1]);
        }
        Op::Sub => {
            iarith::sub_n(r, x[0], x[1]);
        }
        Op::Neg => {
            r.fill(0);
            iarith::sub_assign(r, x[0]);
        }
        Op::Mul => icpu::mullo_elem(r, x[0], x[1], s, false),
        Op::Shl(k) => shl(r, x[0], k),
        Op::Shr(k) => shr(r, x[0], k),
        Op::And => r
            .iter_mut()
            .enumerate()
            .for_each(|(j, v)| *v = x[0][j] & x[1][j]),
        Op::Or => r
            .iter_mut()
            .enumerate()
            .for_each(|(j, v)| *v = x[0][j] | x[1][j]),
        Op::Xor => r
            .iter_mut()
            .enumerate()
            .for_each(|(j, v)| *v = x[0][j] ^ x[1][j]),
        Op::Not => r.iter_mut().enumerate().for_each(|(j, v)| *v = !x[0][j]),
        Op::Eq => cmp(r, x[0] == x[1]),
        Op::Ne => cmp(r, x[0] != x[1]),
        Op::Lt => cmp(r, iarith::cmp(x[0], x[1]) == Less),
        Op::Le => cmp(r, iarith::cmp(x[0], x[1]) != Greater),
        Op::Gt => cmp(r, iarith::cmp(x[0], x[1]) == Greater),
        Op::Ge => cmp(r, iarith::cmp(x[0], x[1]) != Less),
        Op::Select => {
            let pick = if x[0].iter().any(|&v| v != 0) {
                x[1]
            } else {
                x[2]
            };
            r.copy_from_slice(pick);
        }
        _ => unreachable!("check_kind rejects float operations"),
    }
}

/// Fused integer evaluation on the CPU.
pub fn eval_int(
    expr: &Expr,
    inputs: &[&IntArray],
    consts: &[Option<Vec<u64>>],
    bits: u64,
    len: usize,
) -> Result<IntArray> {
    let l = (bits / 64) as usize;
    let ins: Vec<&[u64]> = inputs
        .iter()
        .map(|a| a.host_limbs().expect("CPU engine"))
        .collect();
    let (prog, src) = program(expr);
    let root = src[expr.root()];
    let nslots = prog.len();
    let mut out = crate::engine::host::zeros("an expression result", len * l)?;
    let ce = chunk(l);
    out.par_chunks_mut(ce * l).enumerate().for_each(|(c, oc)| {
        let mut vals = vec![0u64; nslots * l];
        let mut tmp = vec![0u64; l];
        let mut s = Vec::new();
        for (e, oe) in oc.chunks_mut(l).enumerate() {
            let i = c * ce + e;
            for (op, args, slot) in &prog {
                {
                    let get = |a: &Src| -> &[u64] {
                        match *a {
                            Src::Input(k) => &ins[k][i * l..(i + 1) * l],
                            Src::Const(n) => consts[n].as_deref().expect("constant"),
                            Src::Slot(t) => &vals[t * l..(t + 1) * l],
                        }
                    };
                    let xs: Vec<&[u64]> = args.iter().map(get).collect();
                    int_op(*op, &mut tmp, &xs, &mut s);
                }
                vals[slot * l..(slot + 1) * l].copy_from_slice(&tmp);
            }
            oe.copy_from_slice(match root {
                Src::Input(k) => &ins[k][i * l..(i + 1) * l],
                Src::Const(n) => consts[n].as_deref().expect("constant"),
                Src::Slot(t) => &vals[t * l..(t + 1) * l],
            });
        }
    });
    IntArray::from_limbs(bits, out)
}

/// One float operation on elements, rounded to `p` in mode `rnd`.
pub(crate) fn float_op(
    op: Op,
    out: &mut Out,
    x: &[Elem],
    p: u64,
    rnd: Round,
    s: &mut Scratch,
) -> i8 {
    match op {
        Op::Add => arith::add(out, &x[0], &x[1], false, p, rnd, s),
        Op::Sub => arith::add(out, &x[0], &x[1], true, p, rnd, s),
        Op::Mul => arith::mul(out, &x[0], &x[1], p, rnd, s),
        Op::Div => arith::div(out, &x[0], &x[1], p, rnd, s),
        Op::Sqrt => arith::sqrt(out, &x[0], p, rnd, s),
        Op::Fma => arith::fma(out, &x[0], &x[1], &x[2], false, p, rnd, s),
        Op::Neg => arith::set(out, &x[0], true, false, p, rnd),
        // The per-element code of FloatArray's CPU functions (Ziv's loop).
        Op::Func(f) => crate::float::func::eval_one(out, f, &x[0], p, rnd),
        Op::Func2(f) => crate::float::func::eval2_one(out, f, &x[0], &x[1], p, rnd),
        _ => unreachable!("check_kind rejects integer operations"),
    }
}

/// Fused float evaluation on the CPU.
pub fn eval_float(
    expr: &Expr,
    inputs: &[&FloatArray],
    consts: &[Option<FConst>],
    prec: u64,
    rnd: Round,
    len: usize,
) -> Result<FloatArray> {
    let n = crate::float::limbs_for_prec(prec);
    let hosts: Vec<_> = inputs.iter().map(|a| a.host()).collect::<Result<_>>()?;
    let (prog, src) = program(expr);
    let root = src[expr.root()];
    let nslots = prog.len();
    let mut tags = vec![0u8; len];
    let mut exps = vec![0i64; len];
    let mut limbs = crate::engine::host::zeros("an expression result", len * n)?;
    let ce = chunk(n);
    tags.par_chunks_mut(ce)
        .zip(exps.par_chunks_mut(ce))
        .zip(limbs.par_chunks_mut(ce * n))
        .enumerate()
        .for_each(|(c, ((tc, ec), lc))| {
            let mut st = vec![0u8; nslots];
            let mut se = vec![0i64; nslots];
            let mut sm = vec![0u64; nslots * n];
            let (mut tt, mut te, mut tm) = (0u8, 0i64, vec![0u64; n]);
            let mut s = Scratch::default();
            for e in 0..tc.len() {
                let i = c * ce + e;
                for (op, args, slot) in &prog {
                    {
                        let xs: Vec<Elem> = args
                            .iter()
                            .map(|a| match *a {
                                Src::Input(k) => hosts[k].get(i),
                                Src::Const(m) => consts[m].as_ref().expect("constant").elem(),
                                Src::Slot(t) => Elem {
                                    class: crate::float::class_of(st[t]),
                                    neg: st[t] & crate::float::NEG != 0,
                                    exp: se[t],
                                    limbs: &sm[t * n..(t + 1) * n],
                                },
                            })
                            .collect();
                        let mut o = Out {
                            tag: &mut tt,
                            exp: &mut te,
                            m: &mut tm,
                        };
                        float_op(*op, &mut o, &xs, prec, rnd, &mut s);
                    }
                    st[*slot] = tt;
                    se[*slot] = te;
                    sm[slot * n..(slot + 1) * n].copy_from_slice(&tm);
                }
                let mut o = Out {
                    tag: &mut tc[e],
                    exp: &mut ec[e],
                    m: &mut lc[e * n..(e + 1) * n],
                };
                match root {
                    Src::Input(k) => {
                        arith::set(&mut o, &hosts[k].get(i), false, false, prec, rnd);
                    }
                    Src::Const(m) => {
                        let c = consts[m].as_ref().expect("constant").elem();
                        arith::set(&mut o, &c, false, false, prec, rnd);
                    }
                    Src::Slot(t) => {
                        *o.tag = st[t];
                        *o.exp = se[t];
                        o.m.copy_from_slice(&sm[t * n..(t + 1) * n]);
                    }
                }
            }
        });
    FloatArray::from_raw(prec, tags, exps, limbs)
}

//! Complex expressions per element (`crate::expr::eval_complex` on the CPU
//! engine): every live node in order, each the per-element code of the CPU
//! engine's operation (arith.rs, func.rs, pow.rs) with both parts at the
//! output precision, so the result equals the chain of `ComplexArray`
//! operations (every intermediate an array at that precision) bit for bit.

use super::scalar::{self, F, Part};
use super::{CFunc, CRound, ComplexArray, CpuComplex, arith, build2, fma, func, pow};
use crate::error::{Error, Result};
use crate::expr::{Expr, Node, Op};
use crate::float::func::Func2;
use crate::float::{CpuFloats, Round, limbs_for_prec};

/// The complex function of a float function's name (None if MPC has none
/// here).
pub(crate) fn cfunc(op: Op) -> Option<CFunc> {
    match op {
        Op::Sqrt => Some(CFunc::Sqrt),
        Op::Func(f) => CFunc::from_name(f.name()),
        _ => None,
    }
}

/// Each constant node: its real value rounded to `p` in `rnd.re`, and +0.
fn constants(expr: &Expr, p: u64, rnd: CRound) -> Result<Vec<Option<(F, F)>>> {
    expr.nodes()
        .iter()
        .map(|n| match n {
            Node::Const(c) => {
                let (a, _) = CpuFloats::from_strs_ternary(p, &[c.as_str()], rnd.re)
                    .map_err(|e| Error::Invalid(format!("constant {c} in the expression: {e}")))?;
                Ok(Some((F::of(&a.get(0)), F::zero(false))))
            }
            _ => Ok(None),
        })
        .collect()
}

/// A result part as the chain holds it: at `p` bits (an exact value held
/// at another precision, as +-1, is set to `p` exactly, as `assemble`).
fn at(v: F, p: u64) -> F {
    if v.is_normal() && v.m.len() != limbs_for_prec(p) {
        scalar::set(&v, p, Round::Nearest).0
    } else {
        v
    }
}

/// One operation on one element; `bits` are the operands' mantissa bits
/// (both parts) for the working-precision caps, as the array operations
/// compute them.
fn op_elem(
    op: Op,
    x: &[&(F, F)],
    bits: &[u64],
    precs: &[(u64, u64)],
    p: u64,
    rnd: CRound,
) -> std::result::Result<[Part; 2], String> {
    let cap2 = || {
        scalar::cap_elem(
            scalar::cap_for(p, bits[0] + bits[1]),
            &[&x[0].0, &x[0].1, &x[1].0, &x[1].1],
        )
    };
    Ok(match op {
        Op::Add => arith::add(x[0], x[1], false, p, p, rnd),
        Op::Sub => arith::add(x[0], x[1], true, p, p, rnd),
        Op::Mul => arith::mul(x[0], x[1], p, p, rnd),
        Op::Div => arith::div(x[0], x[1], p, p, rnd, cap2())?,
        Op::Neg => [
            scalar::set(&x[0].0.negate(), p, rnd.re),
            scalar::set(&x[0].1.negate(), p, rnd.im),
        ],
        Op::Func2(Func2::Pow) => pow::pow(x[0], x[1], p, p, rnd, cap2())?,
        Op::Fma => fma::fma(x[0], x[1], x[2], &[precs[0], precs[1], precs[2]], p, p, rnd),
        _ => {
            let f = cfunc(op).expect("check_complex");
            let cap = scalar::cap_elem(scalar::cap_for(p, bits[0]), &[&x[0].0, &x[0].1]);
            func::eval(f, x[0], p, p, rnd, cap)?
        }
    })
}

/// Fused complex evaluation on the CPU engine (inputs checked by the
/// caller: one per name, equal lengths, on the CPU).
pub(crate) fn eval(
    expr: &Expr,
    inputs: &[&ComplexArray],
    p: u64,
    rnd: CRound,
    len: usize,
) -> Result<ComplexArray> {
    let ins: Vec<&CpuComplex> = inputs
        .iter()
        .map(|a| {
            a.cpu()
                .ok_or_else(|| Error::Invalid("input not on the CPU".into()))
        })
        .collect::<Result<_>>()?;
    let consts = constants(expr, p, rnd)?;
    let nodes = expr.nodes();
    let live = expr.live();
    let root = expr.root();
    let inner = 128 * limbs_for_prec(p) as u64;
    let bits: Vec<u64> = nodes
        .iter()
        .map(|n| match n {
            Node::Input(k) => ins[*k].in_bits(),
            _ => inner,
        })
        .collect();
    // Part precisions: an input's own, every other node's p (as the chain's
    // arrays); mpc_fma's products depend on them at the range's ends.
    let precs: Vec<(u64, u64)> = nodes
        .iter()
        .map(|n| match n {
            Node::Input(k) => (ins[*k].prec_re(), ins[*k].prec_im()),
            _ => (p, p),
        })
        .collect();
    let (r, _) = build2(len, p, p, |i| {
        let mut v: Vec<Option<(F, F)>> = vec![None; nodes.len()];
        for (j, n) in nodes.iter().enumerate() {
            if !live[j] {
                continue;
            }
            v[j] = Some(match n {
                Node::Input(k) => ins[*k].parts(i),
                Node::Const(_) => consts[j].clone().expect("constant"),
                Node::Op(op, a) => {
                    let r = {
                        let xs: Vec<&(F, F)> = a
                            .iter()
                            .map(|&t| v[t].as_ref().expect("topological"))
                            .collect();
                        let bs: Vec<u64> = a.iter().map(|&t| bits[t]).collect();
                        let ps: Vec<(u64, u64)> = a.iter().map(|&t| precs[t]).collect();
                        op_elem(*op, &xs, &bs, &ps, p, rnd)?
                    };
                    if j == root {
                        return Ok(r);
                    }
                    let [re, im] = r;
                    (at(re.0, p), at(im.0, p))
                }
            });
        }
        // The root is an input or a constant: rounded to p (mpc_set).
        let x = v[root].as_ref().expect("live");
        Ok([scalar::set(&x.0, p, rnd.re), scalar::set(&x.1, p, rnd.im)])
    })?;
    Ok(r.into())
}

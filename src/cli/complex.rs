//! `mparray complex FN --prec P [--prec-im Q] [--round NN|NZ|...] A_FILE
//! [B_FILE]`: the complex batch calculator with GNU MPC's semantics.
//!
//! Input: one complex number per line, `re im` (two numbers separated by
//! white space, each as `mparray float` reads it: decimal, `inf`, `nan` or
//! hex float), read at the input precision (`--in-prec`, default P) rounded
//! to nearest. Output: `re im` per line (results of precision P and Q), or
//! one number for the real-valued `abs`, `norm` and `arg` (precision P,
//! rounded with the first letter of `--round`); decimal with `--digits`, or
//! exact hex floats with `--hex`; `--ternary` appends MPC's ternary values
//! (`tr ti`, or one value for the real-valued functions).
//!
//! Errors name the file and line and exit with status 2.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::float::{MAX_DIGITS, read_inputs, same_lines, write_lines};
use super::{CommandError, Input};
use crate::complex::{CFunc, CRound, CWithTernary, ComplexArray};
use crate::error::Error;
use crate::float::{self, FloatArray, Round};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// A + B.
    Add,
    /// A - B.
    Sub,
    /// A * B.
    Mul,
    /// A / B.
    Div,
    /// A^B, principal branch (mpc_pow).
    Pow,
    /// A^2.
    Sqr,
    /// -A.
    Neg,
    /// The conjugate of A.
    Conj,
    /// A rounded to the result precisions.
    Set,
    /// A * 2^K (--k).
    Mul2,
    /// A / 2^K (--k).
    Div2,
    /// |A| (real).
    Abs,
    /// |A|^2 (real).
    Norm,
    /// arg A in (-pi, pi] (real).
    Arg,
    /// sqrt(A), branch cut on the negative real axis.
    Sqrt,
    /// exp(A).
    Exp,
    /// log(A), principal branch.
    Log,
    /// sin(A).
    Sin,
    /// cos(A).
    Cos,
    /// tan(A).
    Tan,
    /// sinh(A).
    Sinh,
    /// cosh(A).
    Cosh,
    /// tanh(A).
    Tanh,
    /// atan(A).
    Atan,
    /// asin(A).
    Asin,
    /// acos(A).
    Acos,
}

impl Op {
    fn arity(self) -> usize {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Pow => 2,
            _ => 1,
        }
    }

    fn func(self) -> Option<CFunc> {
        Some(match self {
            Op::Sqrt => CFunc::Sqrt,
            Op::Exp => CFunc::Exp,
            Op::Log => CFunc::Log,
            Op::Sin => CFunc::Sin,
            Op::Cos => CFunc::Cos,
            Op::Tan => CFunc::Tan,
            Op::Sinh => CFunc::Sinh,
            Op::Cosh => CFunc::Cosh,
            Op::Tanh => CFunc::Tanh,
            Op::Atan => CFunc::Atan,
            Op::Asin => CFunc::Asin,
            Op::Acos => CFunc::Acos,
            _ => return None,
        })
    }
}

#[derive(Args)]
#[command(after_help = "\
Files hold one complex number per line, \"re im\": two numbers (decimal, inf, nan or \
hex float) separated by white space. Results are printed \"re im\" per line (one \
number for abs, norm and arg): decimal with --digits D significant digits (default: \
enough to read back), or exact hex floats with --hex; --ternary adds MPC's ternary \
values. Bad input exits with status 2 and names the file and line.")]
pub struct ComplexArgs {
    /// The operation.
    #[arg(value_enum)]
    op: Op,
    /// Precision of the real part of the results in bits (1 to 2^20), and of
    /// the imaginary part unless --prec-im is given.
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Precision of the imaginary part of the results.
    #[arg(long, value_name = "Q")]
    prec_im: Option<u64>,
    /// Rounding modes of the real and imaginary parts (MPC_RNDxy): two of N,
    /// Z, U, D, A as NZ, or one letter for both.
    #[arg(long, default_value = "NN")]
    round: String,
    /// Precision of both parts of the inputs (default: P).
    #[arg(long, value_name = "R")]
    in_prec: Option<u64>,
    /// Print exact hex floats (MPFR's %Ra).
    #[arg(long, conflicts_with = "digits")]
    hex: bool,
    /// Significant decimal digits of the output (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// Append the ternary values (-1, 0, 1) to each result.
    #[arg(long)]
    ternary: bool,
    /// Engine: cpu, cuda or auto (CUDA when usable, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// The power of two for mul2 and div2.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    k: i64,
    /// First operands, one "re im" per line (`-`: standard input).
    a_file: PathBuf,
    /// Second operands.
    b_file: Option<PathBuf>,
}

/// Parses every line of `input` as "re im" at precision `prec`.
pub(super) fn parse_complex(input: &Input, prec: u64) -> Result<ComplexArray, CommandError> {
    let lines = input.lines();
    let mut re = Vec::with_capacity(lines.len());
    let mut im = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        let mut it = l.split_whitespace();
        match (it.next(), it.next(), it.next()) {
            (Some(a), Some(b), None) => {
                re.push(a);
                im.push(b);
            }
            _ => {
                return Err(CommandError::Input(format!(
                    "{}:{}: expected two numbers \"re im\", got {:?}",
                    input.name,
                    i + 1,
                    l.trim_end_matches('\r')
                )));
            }
        }
    }
    let r = FloatArray::from_strs(prec, &re).map_err(|e| input.locate(e))?;
    let m = FloatArray::from_strs(prec, &im).map_err(|e| input.locate(e))?;
    Ok(ComplexArray::new(r, m)?)
}

pub fn run(a: ComplexArgs) -> Result<(), CommandError> {
    float::check_prec(a.prec).map_err(|e| CommandError::Input(format!("--prec: {e}")))?;
    let pi = a.prec_im.unwrap_or(a.prec);
    float::check_prec(pi).map_err(|e| CommandError::Input(format!("--prec-im: {e}")))?;
    let in_prec = a.in_prec.unwrap_or(a.prec);
    float::check_prec(in_prec).map_err(|e| CommandError::Input(format!("--in-prec: {e}")))?;
    let rnd =
        CRound::from_name(&a.round).map_err(|e| CommandError::Input(format!("--round: {e}")))?;
    if a.digits > MAX_DIGITS {
        return Err(CommandError::Input(format!(
            "--digits {}: at most {MAX_DIGITS} significant digits",
            a.digits
        )));
    }
    let paths: Vec<&PathBuf> = [Some(&a.a_file), a.b_file.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    let files = read_inputs(a.op, a.op.arity(), &paths)?;
    let xs = files
        .iter()
        .map(|f| parse_complex(f, in_prec))
        .collect::<Result<Vec<_>, _>>()?;
    same_lines(&files, &xs.iter().map(|x| x.len()).collect::<Vec<_>>())?;
    let engine = super::engine_from_arg(&a.engine)?;
    let xs = xs
        .into_iter()
        .map(|x| x.into_engine(&engine))
        .collect::<Result<Vec<_>, _>>()?;
    let (x, p) = (&xs[0], a.prec);
    let strings = |r: &FloatArray| -> Result<Vec<String>, Error> {
        if a.hex {
            r.to_hex_strings()
        } else {
            r.to_dec_strings(a.digits, Round::Nearest)
        }
    };
    let lines: Vec<String> = if matches!(a.op, Op::Abs | Op::Norm | Op::Arg) {
        let (r, t) = match a.op {
            Op::Abs => x.abs_ternary(p, rnd.re),
            Op::Norm => x.norm_ternary(p, rnd.re),
            _ => x.arg_ternary(p, rnd.re),
        }?;
        let mut s = strings(&r)?;
        if a.ternary {
            let t = t.to_vec()?;
            s.par_iter_mut()
                .zip(t)
                .for_each(|(s, t)| s.push_str(&format!(" {t}")));
        }
        s
    } else {
        let y = xs.get(1).unwrap_or(x);
        let (r, t) = apply(a.op, a.k, x, y, p, pi, rnd)?;
        let (re, im) = r.into_parts();
        let (re, im) = (strings(&re)?, strings(&im)?);
        let t = if a.ternary { t.to_pairs()? } else { Vec::new() };
        re.into_par_iter()
            .zip(im)
            .enumerate()
            .map(|(i, (mut s, im))| {
                s.push(' ');
                s.push_str(&im);
                if a.ternary {
                    s.push_str(&format!(" {} {}", t[i].0, t[i].1));
                }
                s
            })
            .collect()
    };
    write_lines(&lines)
}

/// The library call for a complex-valued `op` on `x` (and `y`).
fn apply(
    op: Op,
    k: i64,
    x: &ComplexArray,
    y: &ComplexArray,
    p: u64,
    pi: u64,
    rnd: CRound,
) -> Result<CWithTernary, Error> {
    match (op, op.func()) {
        (_, Some(f)) => x.func_ternary(f, p, pi, rnd),
        (Op::Add, _) => x.add_ternary(y, p, pi, rnd),
        (Op::Sub, _) => x.sub_ternary(y, p, pi, rnd),
        (Op::Mul, _) => x.mul_ternary(y, p, pi, rnd),
        (Op::Div, _) => x.div_ternary(y, p, pi, rnd),
        (Op::Pow, _) => x.pow_ternary(y, p, pi, rnd),
        (Op::Sqr, _) => x.sqr_ternary(p, pi, rnd),
        (Op::Neg, _) => x.neg_ternary(p, pi, rnd),
        (Op::Conj, _) => x.conj_ternary(p, pi, rnd),
        (Op::Set, _) => x.set_prec_ternary(p, pi, rnd),
        (Op::Mul2, _) => x.mul_2si_ternary(k, p, pi, rnd),
        (Op::Div2, _) => x.div_2si_ternary(k, p, pi, rnd),
        _ => Err(Error::Invalid(format!("{op:?}: not a complex result"))),
    }
}

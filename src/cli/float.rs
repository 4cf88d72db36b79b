//! `mparray float OP --prec P [--round N|Z|U|D|A] [--engine cpu|cuda|auto]
//! A_FILE [B_FILE [C_FILE]]`: the float batch calculator with MPFR's
//! semantics.
//!
//! Input: one number per line, decimal (`1.5e-30`, `-0`, `inf`, `nan`) or
//! MPFR-style hex float (`0x1.8p+3`), read as `mpfr_set_str` reads it at
//! the input precision (`--in-prec`, default P) rounded to nearest
//! (`--in-round` to change). White space around a number, a CR of a CRLF
//! line end and a byte-order mark are ignored; blank lines are errors.
//! `-` reads standard input.
//!
//! Output: one result per line, computed at precision P in rounding mode
//! `--round`: decimal with `--digits D` significant digits (default: enough
//! to read the value back, `1 + ceil(P log10 2)`), rounded to nearest, in
//! `%.{D-1}Re` style; or exact hex floats with `--hex` (`%Ra` style).
//! `--ternary` appends MPFR's ternary value (-1, 0 or 1). `cmp` prints -1,
//! 0, 1, or `nan` when unordered.
//!
//! Errors name the file and line and exit with status 2.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::{CommandError, Input, engine_from_arg};
use crate::engine::Engine;
use crate::error::Error;
use crate::float::func::{Func, Func2};
use crate::float::{self, FloatArray, Round, TernaryArray};

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
    /// sqrt(A).
    Sqrt,
    /// A * B + C, rounded once.
    Fma,
    /// A * B - C, rounded once.
    Fms,
    /// -A.
    Neg,
    /// |A|.
    Abs,
    /// min(A, B) (a NaN loses; -0 < +0).
    Min,
    /// max(A, B).
    Max,
    /// Compare A with B: -1, 0, 1, or nan.
    Cmp,
    /// A rounded to precision P.
    Set,
    /// A * 2^K (--k).
    Mul2,
    /// A / 2^K (--k).
    Div2,
    /// exp(A), correctly rounded.
    Exp,
    /// log(A) (natural), correctly rounded.
    Log,
    /// sin(A), correctly rounded.
    Sin,
    /// cos(A), correctly rounded.
    Cos,
    /// atan(A), correctly rounded.
    Atan,
    /// tan(A), correctly rounded.
    Tan,
    /// 2^A, correctly rounded.
    Exp2,
    /// log2(A), correctly rounded.
    Log2,
    /// log10(A), correctly rounded.
    Log10,
    /// cbrt(A), correctly rounded.
    Cbrt,
    /// exp(A) - 1, correctly rounded.
    Expm1,
    /// log(1 + A), correctly rounded.
    Log1p,
    /// sinh(A), correctly rounded.
    Sinh,
    /// cosh(A), correctly rounded.
    Cosh,
    /// tanh(A), correctly rounded.
    Tanh,
    /// asinh(A), correctly rounded.
    Asinh,
    /// acosh(A), correctly rounded.
    Acosh,
    /// atanh(A), correctly rounded.
    Atanh,
    /// asin(A), correctly rounded.
    Asin,
    /// acos(A), correctly rounded.
    Acos,
    /// atan2(A, B) (A the y coordinate, as mpfr_atan2), correctly rounded.
    Atan2,
    /// hypot(A, B), correctly rounded.
    Hypot,
    /// A^B (mpfr_pow), correctly rounded.
    Pow,
    /// A^B for integer lines B (mpfr_pow_z), correctly rounded.
    #[value(name = "pow_z")]
    PowZ,
    /// agm(A, B), correctly rounded.
    Agm,
}

impl Op {
    fn arity(self) -> usize {
        match self {
            Op::Sqrt | Op::Neg | Op::Abs | Op::Set | Op::Mul2 | Op::Div2 => 1,
            Op::Exp | Op::Log | Op::Sin | Op::Cos | Op::Atan => 1,
            Op::Tan | Op::Exp2 | Op::Log2 | Op::Log10 => 1,
            Op::Cbrt | Op::Expm1 | Op::Log1p | Op::Sinh | Op::Cosh | Op::Tanh => 1,
            Op::Asinh | Op::Acosh | Op::Atanh | Op::Asin | Op::Acos => 1,
            Op::Fma | Op::Fms => 3,
            _ => 2,
        }
    }
}

#[derive(Args)]
#[command(after_help = "\
Files hold one number per line: decimal (1.5e-30, -0, inf, nan) or hex float \
(0x1.8p+3). Inputs are rounded to the input precision (default P) to nearest. \
Results are printed one per line: decimal with --digits D significant digits \
(default: enough to read back), or exact hex floats with --hex; --ternary adds \
MPFR's ternary value. Bad input exits with status 2 and names the file and line.")]
pub struct FloatArgs {
    /// The operation.
    #[arg(value_enum)]
    op: Op,
    /// Precision of the results in bits (1 to 2^20).
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Rounding mode: N (nearest, ties to even), Z (toward zero), U (toward
    /// +Inf), D (toward -Inf), A (away from zero).
    #[arg(long, default_value = "N")]
    round: String,
    /// Precision of the inputs (default: P).
    #[arg(long, value_name = "Q")]
    in_prec: Option<u64>,
    /// Rounding mode for reading the inputs.
    #[arg(long, default_value = "N")]
    in_round: String,
    /// Engine: cpu, cuda or auto (CUDA when usable, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print exact hex floats (MPFR's %Ra).
    #[arg(long, conflicts_with = "digits")]
    hex: bool,
    /// Significant decimal digits of the output (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// Append the ternary value (-1, 0, 1) to each result.
    #[arg(long)]
    ternary: bool,
    /// The power of two for mul2 and div2.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    k: i64,
    /// First operands, one per line (`-`: standard input).
    a_file: PathBuf,
    /// Second operands.
    b_file: Option<PathBuf>,
    /// Third operands (fma, fms).
    c_file: Option<PathBuf>,
}

/// Parses every line of `input` at precision `prec`.
pub(super) fn parse_input(
    input: &Input,
    prec: u64,
    rnd: Round,
) -> Result<FloatArray, CommandError> {
    match FloatArray::from_strs_ternary(prec, &input.lines(), rnd) {
        Ok((a, _)) => Ok(a),
        Err(Error::Parse { index, text, .. }) if text.trim().is_empty() => {
            Err(CommandError::Input(format!(
                "{}:{}: empty line (every line must hold one number)",
                input.name,
                input.first + index + 1
            )))
        }
        Err(Error::Parse {
            index,
            text,
            reason,
        }) => Err(CommandError::Input(format!(
            "{}:{}: cannot parse {text:?}: {reason}",
            input.name,
            input.first + index + 1
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Parses every line of `input` as an exact integer (pow_z's exponents).
fn parse_integers(input: &Input) -> Result<Vec<malachite_nz::integer::Integer>, CommandError> {
    use std::str::FromStr;
    input
        .lines()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            malachite_nz::integer::Integer::from_str(l.trim()).map_err(|_| {
                CommandError::Input(format!(
                    "{}:{}: cannot parse {l:?}: expected an integer",
                    input.name,
                    input.first + i + 1
                ))
            })
        })
        .collect()
}

/// The most significant digits `--digits` may ask for.
pub(super) const MAX_DIGITS: usize = 1_000_000;

fn round_arg(s: &str, what: &str) -> Result<Round, CommandError> {
    Round::from_name(s).map_err(|e| CommandError::Input(format!("{what}: {e}")))
}

pub fn run(a: FloatArgs) -> Result<(), CommandError> {
    float::check_prec(a.prec).map_err(|e| CommandError::Input(format!("--prec: {e}")))?;
    let in_prec = a.in_prec.unwrap_or(a.prec);
    float::check_prec(in_prec).map_err(|e| CommandError::Input(format!("--in-prec: {e}")))?;
    let rnd = round_arg(&a.round, "--round")?;
    if a.digits > MAX_DIGITS {
        return Err(CommandError::Input(format!(
            "--digits {}: at most {MAX_DIGITS} significant digits",
            a.digits
        )));
    }
    let in_rnd = round_arg(&a.in_round, "--in-round")?;
    let paths: Vec<&PathBuf> = [Some(&a.a_file), a.b_file.as_ref(), a.c_file.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    #[cfg(feature = "mpi")]
    if let Some(comm) = crate::dist::world().filter(|c| c.size() > 1) {
        // Every rank computes a block of lines on its own engine.
        return super::dist::run_lines(
            &comm,
            || Ok((read_inputs(a.op, a.op.arity(), &paths)?, Vec::new())),
            |files, _| {
                let engine = engine_from_arg(&a.engine)?;
                let mut v = Vec::new();
                for l in results(&a, files, &engine, in_prec, in_rnd, rnd)? {
                    v.extend_from_slice(l.as_bytes());
                    v.push(b'\n');
                }
                Ok(v)
            },
            super::dist::write_stdout,
        );
    }
    let engine = engine_from_arg(&a.engine)?;
    let files = read_inputs(a.op, a.op.arity(), &paths)?;
    let lines = results(&a, files, &engine, in_prec, in_rnd, rnd)?;
    write_lines(&lines)
}

/// Parses the files (precision `in_prec`, mode `in_rnd`) and computes
/// `a.op` on `engine`: the output lines.
fn results(
    a: &FloatArgs,
    files: Vec<Input>,
    engine: &Engine,
    in_prec: u64,
    in_rnd: Round,
    rnd: Round,
) -> Result<Vec<String>, CommandError> {
    let pow_z_exps = if a.op == Op::PowZ {
        Some(parse_integers(&files[1])?)
    } else {
        None
    };
    let arrays = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            if i == 1 && a.op == Op::PowZ {
                // Only its length matters (the exponents are exact integers).
                FloatArray::zeros(&Engine::Cpu, f.lines().len(), 1).map_err(CommandError::from)
            } else {
                parse_input(f, in_prec, in_rnd)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    same_lines(&files, &arrays.iter().map(|x| x.len()).collect::<Vec<_>>())?;
    drop(files);
    let args = arrays
        .into_iter()
        .map(|x| x.into_engine(engine))
        .collect::<Result<Vec<_>, _>>()?;
    let (x, p) = (&args[0], a.prec);
    let lines: Vec<String> = if a.op == Op::Cmp {
        x.cmp(&args[1])?
            .into_iter()
            .map(|c| match c {
                None => "nan".to_string(),
                Some(o) => (o as i8).to_string(),
            })
            .collect()
    } else {
        let (r, t) = apply(a.op, a.k, &args, pow_z_exps.as_deref(), p, rnd)?;
        let mut s = if a.hex {
            r.to_hex_strings()?
        } else {
            r.to_dec_strings(a.digits, Round::Nearest)?
        };
        if a.ternary {
            let t = t.to_vec()?;
            s.par_iter_mut().zip(t).for_each(|(s, t)| {
                s.push(' ');
                s.push_str(&t.to_string());
            });
        }
        s
    };
    Ok(lines)
}

/// The library call for `op` (every op but cmp) on its operands.
fn apply(
    op: Op,
    k: i64,
    args: &[FloatArray],
    pow_z: Option<&[malachite_nz::integer::Integer]>,
    p: u64,
    rnd: Round,
) -> Result<(FloatArray, TernaryArray), Error> {
    let x = &args[0];
    let b = || &args[1];
    let func = |f: Func| x.func_ternary(f, p, rnd).map(|r| (r.0, r.1));
    let func2 = |f: Func2| x.func2_ternary(b(), f, p, rnd).map(|r| (r.0, r.1));
    match op {
        Op::Add => x.add_ternary(b(), p, rnd),
        Op::Sub => x.sub_ternary(b(), p, rnd),
        Op::Mul => x.mul_ternary(b(), p, rnd),
        Op::Div => x.div_ternary(b(), p, rnd),
        Op::Min => x.min_ternary(b(), p, rnd),
        Op::Max => x.max_ternary(b(), p, rnd),
        Op::Sqrt => x.sqrt_ternary(p, rnd),
        Op::Neg => x.neg_ternary(p, rnd),
        Op::Abs => x.abs_ternary(p, rnd),
        Op::Set => x.set_prec_ternary(p, rnd),
        Op::Mul2 => x.mul_2si_ternary(k, p, rnd),
        Op::Div2 => x.div_2si_ternary(k, p, rnd),
        Op::Fma => x.fma_ternary(b(), &args[2], p, rnd),
        Op::Fms => x.fms_ternary(b(), &args[2], p, rnd),
        Op::Exp => func(Func::Exp),
        Op::Log => func(Func::Log),
        Op::Sin => func(Func::Sin),
        Op::Cos => func(Func::Cos),
        Op::Atan => func(Func::Atan),
        Op::Tan => func(Func::Tan),
        Op::Exp2 => func(Func::Exp2),
        Op::Log2 => func(Func::Log2),
        Op::Log10 => func(Func::Log10),
        Op::Cbrt => func(Func::Cbrt),
        Op::Expm1 => func(Func::Expm1),
        Op::Log1p => func(Func::Log1p),
        Op::Sinh => func(Func::Sinh),
        Op::Cosh => func(Func::Cosh),
        Op::Tanh => func(Func::Tanh),
        Op::Asinh => func(Func::Asinh),
        Op::Acosh => func(Func::Acosh),
        Op::Atanh => func(Func::Atanh),
        Op::Asin => func(Func::Asin),
        Op::Acos => func(Func::Acos),
        Op::Atan2 => func2(Func2::Atan2),
        Op::Hypot => func2(Func2::Hypot),
        Op::Pow => func2(Func2::Pow),
        Op::Agm => func2(Func2::Agm),
        Op::PowZ => x
            .pow_z_ternary(pow_z.unwrap_or(&[]), p, rnd)
            .map(|r| (r.0, r.1)),
        Op::Cmp => Err(Error::Invalid("cmp has no float result".into())),
    }
}

/// Checks that `op` got its `need` files and reads them.
pub(super) fn read_inputs(
    op: impl std::fmt::Debug,
    need: usize,
    paths: &[&PathBuf],
) -> Result<Vec<Input>, CommandError> {
    if paths.len() != need {
        return Err(CommandError::Input(format!(
            "{op:?} needs {need} file(s), got {}",
            paths.len()
        )));
    }
    paths.iter().map(|p| Input::read(p)).collect()
}

/// Checks that every file has as many lines (`lens`) as the first.
pub(super) fn same_lines(files: &[Input], lens: &[usize]) -> Result<(), CommandError> {
    for (f, &n) in files.iter().zip(lens).skip(1) {
        if n != lens[0] {
            return Err(CommandError::Input(format!(
                "{} has {} lines but {} has {}: the files must have one line per operation",
                files[0].name, lens[0], f.name, n
            )));
        }
    }
    Ok(())
}

/// Writes the result lines to standard output (a closed pipe is no error).
pub(super) fn write_lines(lines: &[String]) -> Result<(), CommandError> {
    let write = || -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
        for l in lines {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
        }
        w.flush()
    };
    match write() {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the results: {e}"))),
    }
}

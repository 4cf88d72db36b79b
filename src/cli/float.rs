//! `mparray float OP --prec P [--round N|Z|U|D|A] [--engine cpu|cuda]
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

use super::{CliError, Input, engine_from_arg};
use crate::error::Error;
use crate::float::cuda::DevOp;
use crate::float::func::{Func, Func2};
use crate::float::{self, FloatArray, Round, text};

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
    /// Engine: cpu, cuda or auto (auto is the CPU; cuda serves precisions
    /// up to 16384 bits).
    #[arg(long, default_value = "cpu")]
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
fn parse_input(input: &Input, prec: u64, rnd: Round) -> Result<FloatArray, CliError> {
    match FloatArray::from_strs_ternary(prec, &input.lines(), rnd) {
        Ok((a, _)) => Ok(a),
        Err(Error::Parse { index, text, .. }) if text.trim().is_empty() => {
            Err(CliError::Input(format!(
                "{}:{}: empty line (every line must hold one number)",
                input.name,
                index + 1
            )))
        }
        Err(Error::Parse {
            index,
            text,
            reason,
        }) => Err(CliError::Input(format!(
            "{}:{}: cannot parse {text:?}: {reason}",
            input.name,
            index + 1
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Parses every line of `input` as an exact integer (pow_z's exponents).
fn parse_integers(input: &Input) -> Result<Vec<malachite_nz::integer::Integer>, CliError> {
    use std::str::FromStr;
    input
        .lines()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            malachite_nz::integer::Integer::from_str(l.trim()).map_err(|_| {
                CliError::Input(format!(
                    "{}:{}: cannot parse {l:?}: expected an integer",
                    input.name,
                    i + 1
                ))
            })
        })
        .collect()
}

/// The most significant digits `--digits` may ask for.
pub(super) const MAX_DIGITS: usize = 1_000_000;

fn round_arg(s: &str, what: &str) -> Result<Round, CliError> {
    Round::from_name(s).map_err(|e| CliError::Input(format!("{what}: {e}")))
}

pub fn run(a: FloatArgs) -> Result<(), CliError> {
    float::check_prec(a.prec).map_err(|e| CliError::Input(format!("--prec: {e}")))?;
    let in_prec = a.in_prec.unwrap_or(a.prec);
    float::check_prec(in_prec).map_err(|e| CliError::Input(format!("--in-prec: {e}")))?;
    let rnd = round_arg(&a.round, "--round")?;
    if a.digits > MAX_DIGITS {
        return Err(CliError::Input(format!(
            "--digits {}: at most {MAX_DIGITS} significant digits",
            a.digits
        )));
    }
    let in_rnd = round_arg(&a.in_round, "--in-round")?;
    // `auto` means the CPU until the float kernels exist on CUDA.
    let engine = if a.engine == "auto" {
        crate::engine::Engine::Cpu
    } else {
        engine_from_arg(&a.engine)?
    };
    let paths: Vec<&PathBuf> = [Some(&a.a_file), a.b_file.as_ref(), a.c_file.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    let files = read_inputs(a.op, a.op.arity(), &paths)?;
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
                FloatArray::zeros(f.lines().len(), 1).map_err(CliError::from)
            } else {
                parse_input(f, in_prec, in_rnd)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    same_lines(&files, &arrays.iter().map(|x| x.len()).collect::<Vec<_>>())?;
    drop(files);
    let (x, p) = (&arrays[0], a.prec);
    let lines: Vec<String> = if a.op == Op::Cmp {
        match &engine {
            crate::engine::Engine::Cuda(eng) => x.to_cuda(eng)?.cmp(&arrays[1].to_cuda(eng)?)?,
            _ => x.cmp(&arrays[1])?,
        }
        .into_iter()
        .map(|c| match c {
            None => "nan".to_string(),
            Some(o) => (o as i8).to_string(),
        })
        .collect()
    } else {
        let func = match a.op {
            Op::Exp => Some(Func::Exp),
            Op::Log => Some(Func::Log),
            Op::Sin => Some(Func::Sin),
            Op::Cos => Some(Func::Cos),
            Op::Atan => Some(Func::Atan),
            Op::Tan => Some(Func::Tan),
            Op::Exp2 => Some(Func::Exp2),
            Op::Log2 => Some(Func::Log2),
            Op::Log10 => Some(Func::Log10),
            Op::Cbrt => Some(Func::Cbrt),
            Op::Expm1 => Some(Func::Expm1),
            Op::Log1p => Some(Func::Log1p),
            Op::Sinh => Some(Func::Sinh),
            Op::Cosh => Some(Func::Cosh),
            Op::Tanh => Some(Func::Tanh),
            Op::Asinh => Some(Func::Asinh),
            Op::Acosh => Some(Func::Acosh),
            Op::Atanh => Some(Func::Atanh),
            Op::Asin => Some(Func::Asin),
            Op::Acos => Some(Func::Acos),
            _ => None,
        };
        let func2 = match a.op {
            Op::Atan2 => Some(Func2::Atan2),
            Op::Hypot => Some(Func2::Hypot),
            Op::Pow => Some(Func2::Pow),
            Op::Agm => Some(Func2::Agm),
            _ => None,
        };
        let dev_op = match a.op {
            Op::Add => Some(DevOp::Add),
            Op::Sub => Some(DevOp::Sub),
            Op::Mul => Some(DevOp::Mul),
            Op::Div => Some(DevOp::Div),
            Op::Min => Some(DevOp::Min),
            Op::Max => Some(DevOp::Max),
            Op::Sqrt => Some(DevOp::Sqrt),
            Op::Neg => Some(DevOp::Neg),
            Op::Abs => Some(DevOp::Abs),
            Op::Set => Some(DevOp::SetPrec),
            Op::Mul2 => Some(DevOp::Mul2si(a.k)),
            Op::Div2 => Some(DevOp::Mul2si(a.k.checked_neg().unwrap_or(i64::MAX))),
            Op::Fma => Some(DevOp::Fma),
            Op::Fms => Some(DevOp::Fms),
            _ => None,
        };
        let (r, t) = match (&engine, func, dev_op) {
            (crate::engine::Engine::Cuda(eng), Some(f), _) => {
                float::func::cuda::func_on_host_arrays(eng, f, x, p, rnd).map(|r| (r.0, r.1))
            }
            (crate::engine::Engine::Cuda(eng), None, None) if func2.is_some() => {
                float::func::cuda2::func2_on_host_arrays(eng, func2.unwrap(), x, &arrays[1], p, rnd)
                    .map(|r| (r.0, r.1))
            }
            // pow_z (and the two-argument functions on the CPU engine).
            (_, None, None) if func2.is_some() => x
                .func2_ternary(&arrays[1], func2.unwrap(), p, rnd)
                .map(|r| (r.0, r.1)),
            (_, None, None) if a.op == Op::PowZ => x
                .pow_z_ternary(pow_z_exps.as_deref().unwrap_or(&[]), p, rnd)
                .map(|r| (r.0, r.1)),
            (crate::engine::Engine::Cuda(_), _, None) if a.op != Op::Cmp => {
                Err(Error::Invalid(format!(
                    "{:?} runs on the CPU engine only so far (use --engine cpu)",
                    a.op
                )))
            }
            (_, Some(f), _) => x.func_ternary(f, p, rnd).map(|r| (r.0, r.1)),
            (crate::engine::Engine::Cuda(eng), None, Some(op)) => {
                let args: Vec<&FloatArray> = arrays.iter().collect();
                float::cuda::run_on_host_arrays(eng, op, &args, p, rnd)
            }
            _ => match a.op {
                Op::Add => x.add_ternary(&arrays[1], p, rnd),
                Op::Sub => x.sub_ternary(&arrays[1], p, rnd),
                Op::Mul => x.mul_ternary(&arrays[1], p, rnd),
                Op::Div => x.div_ternary(&arrays[1], p, rnd),
                Op::Min => x.min_ternary(&arrays[1], p, rnd),
                Op::Max => x.max_ternary(&arrays[1], p, rnd),
                Op::Sqrt => x.sqrt_ternary(p, rnd),
                Op::Neg => x.neg_ternary(p, rnd),
                Op::Abs => x.abs_ternary(p, rnd),
                Op::Set => x.set_prec_ternary(p, rnd),
                Op::Mul2 => x.mul_2si_ternary(a.k, p, rnd),
                Op::Div2 => x.div_2si_ternary(a.k, p, rnd),
                Op::Fma => x.fma_ternary(&arrays[1], &arrays[2], p, rnd),
                Op::Fms => x.fms_ternary(&arrays[1], &arrays[2], p, rnd),
                // Cmp is handled above and the functions by `func`.
                _ => unreachable!(),
            },
        }?;
        (0..r.len())
            .into_par_iter()
            .map(|i| {
                let e = r.get(i);
                let mut s = if a.hex {
                    text::format_hex(&e)
                } else {
                    text::format_dec(&e, p, a.digits, Round::Nearest)
                };
                if a.ternary {
                    s.push(' ');
                    s.push_str(&t[i].to_string());
                }
                s
            })
            .collect()
    };
    write_lines(&lines)
}

/// Checks that `op` got its `need` files and reads them.
pub(super) fn read_inputs(
    op: impl std::fmt::Debug,
    need: usize,
    paths: &[&PathBuf],
) -> Result<Vec<Input>, CliError> {
    if paths.len() != need {
        return Err(CliError::Input(format!(
            "{op:?} needs {need} file(s), got {}",
            paths.len()
        )));
    }
    paths.iter().map(|p| Input::read(p)).collect()
}

/// Checks that every file has as many lines (`lens`) as the first.
pub(super) fn same_lines(files: &[Input], lens: &[usize]) -> Result<(), CliError> {
    for (f, &n) in files.iter().zip(lens).skip(1) {
        if n != lens[0] {
            return Err(CliError::Input(format!(
                "{} has {} lines but {} has {}: the files must have one line per operation",
                files[0].name, lens[0], f.name, n
            )));
        }
    }
    Ok(())
}

/// Writes the result lines to standard output (a closed pipe is no error).
pub(super) fn write_lines(lines: &[String]) -> Result<(), CliError> {
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
        Err(e) => Err(CliError::Other(format!("writing the results: {e}"))),
    }
}

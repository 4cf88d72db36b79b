//! `mparray int eval EXPR --bits W [--engine E] [--hex|--dec] FILE...`,
//! `mparray float eval EXPR --prec P [--round R] [--engine E] [--hex]
//! [--digits D] FILE...` and `mparray complex eval EXPR --prec P [--round
//! RR] ... FILE...` (files of "re im" lines): an element-wise expression
//! over files of one number per line, fused into one pass (floats on CUDA:
//! one kernel per arithmetic segment, functions by the library's kernels;
//! complex on CUDA: the chain of device operations).
//!
//! Inputs are named `a`, `b`, `c`, ... by file order, or `--var x=FILE`
//! (then every input is named). A malformed expression or an unknown name
//! exits with status 2 and names the column.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Parser;

use super::{CommandError, Input, engine_from_arg};
use crate::complex::{CRound, ComplexArray};
use crate::expr::{self, Expr};
use crate::float::{self, FloatArray, Round};
use crate::int::{IntArray, Radix, parse};

#[derive(Parser)]
#[command(
    name = "mparray int eval",
    about = "An integer expression (modulo 2^W) over files"
)]
struct IntEval {
    /// The expression, e.g. "(a*a+b)*(b*b+b)+a*b": + - * << >> & | ^ ~,
    /// comparisons (1 or 0), c ? x : y, select(c, x, y).
    expr: String,
    /// Width in bits (a multiple of 64 from 64 to 2^20, or 2^K).
    #[arg(long, value_name = "W")]
    bits: String,
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print results in hex.
    #[arg(long, conflicts_with = "dec")]
    hex: bool,
    /// Print results in decimal.
    #[arg(long)]
    dec: bool,
    /// Named inputs: NAME=FILE (repeatable; replaces the positional files).
    #[arg(long = "var", value_name = "NAME=FILE")]
    vars: Vec<String>,
    /// Input files: a, b, c, ... in order.
    files: Vec<PathBuf>,
}

#[derive(Parser)]
#[command(
    name = "mparray float eval",
    about = "A float expression over files, each operation rounded once (MPFR)"
)]
struct FloatEval {
    /// The expression, e.g. "(a*b+c*d)/e" or "exp(a*b)+c": + - * /, sqrt(x),
    /// fma(x, y, z), unary minus, numbers, the functions exp, log, sin, ...
    /// (those of `mparray float`) and atan2, hypot, pow, agm.
    expr: String,
    /// Precision of the result and of every intermediate, in bits.
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Rounding mode of every operation: N, Z, U, D, A.
    #[arg(long, default_value = "N")]
    round: String,
    /// Precision of the inputs (default P).
    #[arg(long, value_name = "Q")]
    in_prec: Option<u64>,
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print exact hex floats.
    #[arg(long, conflicts_with = "digits")]
    hex: bool,
    /// Significant decimal digits (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// Named inputs: NAME=FILE (repeatable; replaces the positional files).
    #[arg(long = "var", value_name = "NAME=FILE")]
    vars: Vec<String>,
    /// Input files: a, b, c, ... in order.
    files: Vec<PathBuf>,
}

#[derive(Parser)]
#[command(
    name = "mparray complex eval",
    about = "A complex expression over files, each operation rounded once per part (MPC)"
)]
struct ComplexEval {
    /// The expression, e.g. "exp(a*b)+c": + - * /, sqrt, fma(x, y, z), unary minus,
    /// numbers (real), exp, log, sin, cos, tan, sinh, cosh, tanh, atan,
    /// asin, acos, pow(x, y).
    expr: String,
    /// Precision of both parts of the result and of every intermediate.
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Rounding modes of the real and imaginary parts (two of N, Z, U, D,
    /// A as NZ, or one letter for both), for every operation.
    #[arg(long, default_value = "NN")]
    round: String,
    /// Precision of both parts of the inputs (default P).
    #[arg(long, value_name = "Q")]
    in_prec: Option<u64>,
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print exact hex floats.
    #[arg(long, conflicts_with = "digits")]
    hex: bool,
    /// Significant decimal digits (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// Named inputs: NAME=FILE (repeatable; replaces the positional files).
    #[arg(long = "var", value_name = "NAME=FILE")]
    vars: Vec<String>,
    /// Input files, one "re im" per line: a, b, c, ... in order.
    files: Vec<PathBuf>,
}

/// `mparray int eval ...` / `mparray float eval ...` / `mparray complex
/// eval ...`: Some(exit status),
/// or None for any other command line.
pub fn intercept() -> Option<i32> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3
        || args[2] != "eval"
        || !matches!(args[1].as_str(), "int" | "float" | "complex")
    {
        return None;
    }
    let rest =
        std::iter::once(format!("mparray {} eval", args[1])).chain(args[3..].iter().cloned());
    let r = if args[1] == "int" {
        match IntEval::try_parse_from(rest) {
            Ok(a) => run_int(a),
            Err(e) => {
                let _ = e.print();
                return Some(if e.use_stderr() { 2 } else { 0 });
            }
        }
    } else if args[1] == "float" {
        match FloatEval::try_parse_from(rest) {
            Ok(a) => run_float(a),
            Err(e) => {
                let _ = e.print();
                return Some(if e.use_stderr() { 2 } else { 0 });
            }
        }
    } else {
        match ComplexEval::try_parse_from(rest) {
            Ok(a) => run_complex(a),
            Err(e) => {
                let _ = e.print();
                return Some(if e.use_stderr() { 2 } else { 0 });
            }
        }
    };
    Some(match r {
        Ok(()) => 0,
        Err(CommandError::Input(m)) => {
            eprintln!("mparray: error: {m}");
            2
        }
        Err(CommandError::Other(m)) => {
            eprintln!("mparray: error: {m}");
            1
        }
    })
}

/// The inputs' names and files, and the parsed expression.
fn inputs(
    text: &str,
    vars: &[String],
    files: &[PathBuf],
) -> Result<(Expr, Vec<PathBuf>), CommandError> {
    let (names, paths): (Vec<String>, Vec<PathBuf>) = if vars.is_empty() {
        if files.len() > 26 {
            return Err(CommandError::Input(
                "more than 26 files: name them with --var NAME=FILE".into(),
            ));
        }
        files
            .iter()
            .enumerate()
            .map(|(k, f)| (((b'a' + k as u8) as char).to_string(), f.clone()))
            .unzip()
    } else {
        if !files.is_empty() {
            return Err(CommandError::Input(
                "give the inputs either as files (a, b, ...) or with --var, not both".into(),
            ));
        }
        let mut v = Vec::new();
        for s in vars {
            let Some((n, f)) = s.split_once('=') else {
                return Err(CommandError::Input(format!(
                    "--var {s:?}: expected NAME=FILE"
                )));
            };
            let ok = n
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok || expr::parse::function(n).is_some() {
                return Err(CommandError::Input(format!(
                    "--var {s:?}: {n:?} is not a usable name"
                )));
            }
            if v.iter().any(|(m, _): &(String, PathBuf)| m == n) {
                return Err(CommandError::Input(format!("--var: {n} given twice")));
            }
            v.push((n.to_string(), PathBuf::from(f)));
        }
        v.into_iter().unzip()
    };
    let e = expr::parse::parse_with(text, Some(&names)).map_err(|e| {
        CommandError::Input(format!("{e}\n  {text}\n  {}^", " ".repeat(e.column - 1)))
    })?;
    Ok((e, paths))
}

fn same_lines(files: &[Input]) -> Result<usize, CommandError> {
    let n = files.first().map_or(0, |f| f.lines().len());
    for f in files {
        if f.lines().len() != n {
            return Err(CommandError::Input(format!(
                "{} has {} lines but {} has {n}: the files must have one line per element",
                f.name,
                f.lines().len(),
                files[0].name
            )));
        }
    }
    Ok(n)
}

fn write_lines(lines: &[String]) -> Result<(), CommandError> {
    let mut w = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let r = lines
        .iter()
        .try_for_each(|l| writeln!(w, "{l}"))
        .and_then(|_| w.flush());
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the results: {e}"))),
    }
}

fn run_int(a: IntEval) -> Result<(), CommandError> {
    let bits = super::int::parse_bits(&a.bits)?;
    let (e, paths) = inputs(&a.expr, &a.vars, &a.files)?;
    e.check_kind(false)
        .map_err(|x| CommandError::Input(x.to_string()))?;
    if paths.is_empty() {
        return Err(CommandError::Input("no input files".into()));
    }
    let engine = engine_from_arg(&a.engine)?;
    let files: Vec<Input> = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<_, _>>()?;
    let n = same_lines(&files)?;
    let limbs = (bits / 64) as usize;
    let radix = if a.hex {
        Radix::Hex
    } else if a.dec {
        Radix::Dec
    } else {
        files[0]
            .lines()
            .first()
            .map_or(Radix::Dec, |s| parse::radix_of(s))
    };
    let mut arrays = Vec::new();
    for f in &files {
        let mut data = vec![0u64; n * limbs];
        parse::parse_into(&f.lines(), limbs, &mut data).map_err(|x| f.locate(x))?;
        arrays.push(IntArray::from_limbs(bits, data)?.into_engine(&engine)?);
    }
    drop(files);
    let refs: Vec<&IntArray> = arrays.iter().collect();
    let r = expr::eval_int_on(&e, &refs, &engine, bits, n)?;
    write_lines(&r.to_strings(radix)?)
}

fn run_float(a: FloatEval) -> Result<(), CommandError> {
    float::check_prec(a.prec).map_err(|e| CommandError::Input(format!("--prec: {e}")))?;
    let in_prec = a.in_prec.unwrap_or(a.prec);
    float::check_prec(in_prec).map_err(|e| CommandError::Input(format!("--in-prec: {e}")))?;
    let rnd =
        Round::from_name(&a.round).map_err(|e| CommandError::Input(format!("--round: {e}")))?;
    if a.digits > super::float::MAX_DIGITS {
        return Err(CommandError::Input(format!(
            "--digits {}: too many",
            a.digits
        )));
    }
    let (e, paths) = inputs(&a.expr, &a.vars, &a.files)?;
    e.check_kind(true)
        .map_err(|x| CommandError::Input(x.to_string()))?;
    if paths.is_empty() {
        return Err(CommandError::Input("no input files".into()));
    }
    let engine = engine_from_arg(&a.engine)?;
    let files: Vec<Input> = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<_, _>>()?;
    same_lines(&files)?;
    let mut arrays = Vec::new();
    for f in &files {
        arrays.push(super::float::parse_input(f, in_prec, Round::Nearest)?.into_engine(&engine)?);
    }
    drop(files);
    let refs: Vec<&FloatArray> = arrays.iter().collect();
    let r = expr::eval_float(&e, &refs, a.prec, rnd)?;
    let lines = if a.hex {
        r.to_hex_strings()?
    } else {
        let d = if a.digits == 0 {
            1 + (a.prec as f64 * std::f64::consts::LOG10_2).ceil() as usize
        } else {
            a.digits
        };
        r.to_dec_strings(d, Round::Nearest)?
    };
    write_lines(&lines)
}

fn run_complex(a: ComplexEval) -> Result<(), CommandError> {
    float::check_prec(a.prec).map_err(|e| CommandError::Input(format!("--prec: {e}")))?;
    let in_prec = a.in_prec.unwrap_or(a.prec);
    float::check_prec(in_prec).map_err(|e| CommandError::Input(format!("--in-prec: {e}")))?;
    let rnd =
        CRound::from_name(&a.round).map_err(|e| CommandError::Input(format!("--round: {e}")))?;
    if a.digits > super::float::MAX_DIGITS {
        return Err(CommandError::Input(format!(
            "--digits {}: too many",
            a.digits
        )));
    }
    let (e, paths) = inputs(&a.expr, &a.vars, &a.files)?;
    e.check_complex()
        .map_err(|x| CommandError::Input(x.to_string()))?;
    if paths.is_empty() {
        return Err(CommandError::Input("no input files".into()));
    }
    let engine = engine_from_arg(&a.engine)?;
    let files: Vec<Input> = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<_, _>>()?;
    same_lines(&files)?;
    let mut arrays = Vec::new();
    for f in &files {
        arrays.push(super::complex::parse_complex(f, in_prec)?.into_engine(&engine)?);
    }
    drop(files);
    let refs: Vec<&ComplexArray> = arrays.iter().collect();
    let (re, im) = expr::eval_complex(&e, &refs, a.prec, rnd)?.into_parts();
    let strings = |r: &FloatArray| {
        if a.hex {
            r.to_hex_strings()
        } else {
            let d = if a.digits == 0 {
                1 + (a.prec as f64 * std::f64::consts::LOG10_2).ceil() as usize
            } else {
                a.digits
            };
            r.to_dec_strings(d, Round::Nearest)
        }
    };
    let lines: Vec<String> = strings(&re)?
        .into_iter()
        .zip(strings(&im)?)
        .map(|(r, i)| format!("{r} {i}"))
        .collect();
    write_lines(&lines)
}

//! `mparray int OP --bits W [--engine E] [--hex|--dec] A_FILE B_FILE`: the
//! batch calculator.
//!
//! Input: one unsigned number per line, decimal or `0x`-hex (bases may be
//! mixed). White space around a number (spaces, tabs, a CR of a CRLF line
//! end) is ignored; a UTF-8 byte-order mark at the start of a file is
//! ignored; the last line may or may not end with a newline. Every other
//! line must hold a number: a blank line is an error, so line k of the
//! output always belongs to line k of the inputs. `-` reads standard input.
//!
//! Output: one result per line (`q r` for divrem), in the base of the first
//! number of A_FILE unless `--hex` or `--dec` says otherwise. Results are
//! those of the library: add and sub modulo 2^W, mul the low W bits,
//! mul-wide the full 2W bits, divrem the floor quotient and remainder.
//!
//! Errors name the file and line (`b.txt:17: cannot parse ...`) and exit
//! with status 2 (see [`super::main`]).

use std::io::{self, Write};
use std::path::PathBuf;

#[path = "int_nt.rs"]
mod nt;

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::{CommandError, Input, engine_from_arg};
use crate::engine::Engine;
use crate::error::Error;
use crate::int::{self, IntArray, Radix, cpu, parse};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// A + B modulo 2^W.
    Add,
    /// A - B modulo 2^W.
    Sub,
    /// The low W bits of A * B.
    Mul,
    /// The full 2W-bit product A * B.
    MulWide,
    /// Floor quotient and remainder of A / B, printed as `q r`.
    Divrem,
    /// gcd(A, B).
    Gcd,
    /// A^-1 mod M (M: B_FILE or --modulus); --flags prints `x 1` or `0 0`.
    Modinv,
    /// A^E mod M (E, M: files or --exp/--modulus).
    Powm,
    /// Floor square root and remainder of A, printed as `s r`.
    Isqrt,
    /// A << C modulo 2^W (C: --count or a file of decimal counts).
    Shl,
    /// A >> C (C: --count or a file of decimal counts).
    Shr,
    /// Bitwise A & B.
    And,
    /// Bitwise A | B.
    Or,
    /// Bitwise A ^ B.
    Xor,
    /// Bitwise complement of A (W bits).
    Not,
    /// -1, 0 or 1 as A <, =, > B.
    Cmp,
    /// Number of set bits of A.
    Popcount,
    /// Significant bits of A (0 for 0).
    Bitlen,
    /// 1 if A is probably prime (Miller-Rabin, --rounds), else 0.
    Prime,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::MulWide => "mul-wide",
            Op::Divrem => "divrem",
            Op::Gcd => "gcd",
            Op::Modinv => "modinv",
            Op::Powm => "powm",
            Op::Isqrt => "isqrt",
            Op::Shl => "shl",
            Op::Shr => "shr",
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Not => "not",
            Op::Cmp => "cmp",
            Op::Popcount => "popcount",
            Op::Bitlen => "bitlen",
            Op::Prime => "prime",
        }
    }
}

#[derive(Args)]
#[command(after_help = "\
Files hold one number per line, decimal or 0x-hex. Surrounding white space and \
CRLF line ends are ignored, a final newline is optional, blank lines are errors. \
Results are printed one per line (`q r` for divrem) in the base of the first \
number of A_FILE, unless --hex or --dec is given. `-` reads standard input. \
Bad input exits with status 2 and names the file and line. \
Number theory: gcd A B; modinv A M (or --modulus N; --flags); powm A E M (or --exp N \
and/or --modulus N); isqrt A (`s r`); shl/shr A COUNTS (or --count N); and/or/xor A B; \
not A; cmp A B (-1/0/1); popcount A; bitlen A; prime A [--rounds R] (1/0).")]
pub struct IntArgs {
    /// The operation.
    #[arg(value_enum)]
    op: Op,
    /// Width of every number in bits: a multiple of 64 from 64 to 2^20
    /// (written as a number or as 2^K).
    #[arg(long, value_name = "W")]
    bits: String,
    /// Engine: cpu, cuda, or auto (CUDA if usable, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print results in hex (0x prefix).
    #[arg(long, conflicts_with = "dec")]
    hex: bool,
    /// Print results in decimal.
    #[arg(long)]
    dec: bool,
    /// First operands, one per line (`-`: standard input).
    a_file: PathBuf,
    /// Second operands (divisors for divrem, moduli for modinv, exponents
    /// for powm, counts for shl/shr), one per line.
    b_file: Option<PathBuf>,
    /// Third operands: the moduli of powm.
    c_file: Option<PathBuf>,
    /// Options of the number-theory commands.
    #[command(flatten)]
    nt: Box<NtOpts>,
}

/// Scalar operands and options of gcd, modinv, powm, shl, shr, prime.
#[derive(Args)]
pub struct NtOpts {
    /// One modulus for every line (modinv, powm).
    #[arg(long, value_name = "N")]
    modulus: Option<String>,
    /// One exponent for every line (powm).
    #[arg(long, value_name = "N")]
    exp: Option<String>,
    /// One shift count for every line (shl, shr).
    #[arg(long, value_name = "BITS")]
    count: Option<String>,
    /// Miller-Rabin rounds (prime).
    #[arg(long, default_value_t = 25)]
    rounds: u32,
    /// modinv: print `x 1`, or `0 0` where no inverse exists, instead of failing.
    #[arg(long)]
    flags: bool,
}

/// Parses `--bits`: a number or `2^K`.
pub(super) fn parse_bits(s: &str) -> Result<u64, CommandError> {
    let t = s.trim();
    let v = match t.split_once('^') {
        Some(("2", k)) => k
            .trim()
            .parse::<u32>()
            .ok()
            .and_then(|k| 1u64.checked_shl(k)),
        Some(_) => None,
        None => t.parse::<u64>().ok(),
    };
    let bad = || {
        CommandError::Input(format!(
            "invalid --bits {s:?}: the width is a multiple of 64 from 64 to {} (2^20)",
            int::MAX_BITS
        ))
    };
    let bits = v.ok_or_else(bad)?;
    int::limbs_for_bits(bits).map_err(|_| bad())?;
    Ok(bits)
}

/// Parses the lines of `input` into limbs, in parallel.
fn parse_file(input: &Input, limbs: usize) -> Result<Vec<u64>, CommandError> {
    let lines = input.lines();
    let n = lines.len().checked_mul(limbs).ok_or_else(|| {
        CommandError::Input(format!("{} has too many lines for memory", input.name))
    })?;
    let mut data = vec![0u64; n];
    parse::parse_into(&lines, limbs, &mut data).map_err(|e| input.locate(e))?;
    Ok(data)
}

pub fn run(a: IntArgs) -> Result<(), CommandError> {
    if nt::handles(a.op) {
        return nt::run(&a);
    }
    let bits = parse_bits(&a.bits)?;
    if a.c_file.is_some()
        || a.nt.modulus.is_some()
        || a.nt.exp.is_some()
        || a.nt.count.is_some()
        || a.nt.flags
    {
        return Err(CommandError::Input(format!(
            "{} takes two files and none of --modulus, --exp, --count, --flags",
            a.op.name()
        )));
    }
    let Some(b_path) = &a.b_file else {
        return Err(CommandError::Input(format!(
            "{} needs two files: A_FILE B_FILE",
            a.op.name()
        )));
    };
    let radix_of = |fa: &Input| {
        if a.hex {
            Radix::Hex
        } else if a.dec {
            Radix::Dec
        } else {
            fa.lines()
                .first()
                .map_or(Radix::Dec, |s| parse::radix_of(s))
        }
    };
    #[cfg(feature = "mpi")]
    if let Some(comm) = crate::dist::world().filter(|c| c.size() > 1) {
        // Every rank computes a block of lines; the base of the output is
        // the one of A_FILE's first line, sent in the header.
        return super::dist::run_lines(
            &comm,
            || {
                let fa = Input::read(&a.a_file)?;
                let fb = Input::read(b_path)?;
                let hex = radix_of(&fa) == Radix::Hex;
                Ok((vec![fa, fb], vec![u8::from(hex)]))
            },
            |mut files, header| {
                let radix = if header.first() == Some(&1) {
                    Radix::Hex
                } else {
                    Radix::Dec
                };
                let fb = files
                    .pop()
                    .ok_or_else(|| CommandError::Other("no B".into()))?;
                let fa = files
                    .pop()
                    .ok_or_else(|| CommandError::Other("no A".into()))?;
                let engine = engine_from_arg(&a.engine)?;
                let (outs, out_limbs, n) = results(a.op, &engine, bits, fa, fb)?;
                let mut v = Vec::new();
                write_results(&mut v, &outs, out_limbs, n, radix)
                    .map_err(|e| CommandError::Other(format!("formatting the results: {e}")))?;
                Ok(v)
            },
            super::dist::write_stdout,
        );
    }
    let engine = engine_from_arg(&a.engine)?;
    let fa = Input::read(&a.a_file)?;
    let fb = Input::read(b_path)?;
    let radix = radix_of(&fa);
    let (outs, out_limbs, n) = results(a.op, &engine, bits, fa, fb)?;
    let w = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    match write_results(w, &outs, out_limbs, n, radix) {
        Ok(()) => Ok(()),
        // A closed pipe (`mparray int ... | head`) is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the results: {e}"))),
    }
}

/// Parses and checks the two files and computes `op`: the result limbs
/// (two arrays for divrem), the limbs per result and the number of lines.
fn results(
    op: Op,
    engine: &Engine,
    bits: u64,
    fa: Input,
    fb: Input,
) -> Result<(Vec<Vec<u64>>, usize, usize), CommandError> {
    let limbs = (bits / 64) as usize;
    let (da, db) = rayon::join(|| parse_file(&fa, limbs), || parse_file(&fb, limbs));
    let (da, db) = (da?, db?);
    let (na, nb) = (da.len() / limbs, db.len() / limbs);
    if na != nb {
        return Err(CommandError::Input(format!(
            "{} has {na} lines but {} has {nb}: the files must have one line per operation",
            fa.name, fb.name
        )));
    }
    let zero_at = match op {
        Op::Divrem => db
            .par_chunks(limbs)
            .position_first(|v| v.iter().all(|&x| x == 0)),
        _ => None,
    };
    if let Some(i) = zero_at {
        return Err(CommandError::Input(format!(
            "{}:{}: division by zero (the divisor is 0)",
            fb.name,
            fb.first + i + 1
        )));
    }
    // The texts are no longer needed: free them before computing.
    drop((fa, fb));
    let outs = compute(op, engine, bits, da, db)?;
    let out_limbs = if op == Op::MulWide { 2 * limbs } else { limbs };
    Ok((outs, out_limbs, na))
}

/// Runs `op` on `engine`; returns the result limbs (two arrays for divrem).
fn compute(
    op: Op,
    engine: &Engine,
    bits: u64,
    a: Vec<u64>,
    b: Vec<u64>,
) -> Result<Vec<Vec<u64>>, Error> {
    if op == Op::MulWide && 2 * bits > int::MAX_BITS {
        // The product is wider than an array may be; it is only printed, so
        // the CPU limb code computes it directly.
        return Ok(vec![cpu::mul_wide(&a, &b, (bits / 64) as usize)]);
    }
    let x = IntArray::from_limbs(bits, a)?.into_engine(engine)?;
    let y = IntArray::from_limbs(bits, b)?.into_engine(engine)?;
    let outs = match op {
        Op::Add => vec![x.add(&y)?],
        Op::Sub => vec![x.sub(&y)?],
        Op::Mul => vec![x.mul(&y)?],
        Op::MulWide => vec![x.mul_wide(&y)?],
        Op::Divrem => {
            let (q, r) = x.divrem(&y)?;
            vec![q, r]
        }
        _ => unreachable!("number-theory ops run in int_nt"),
    };
    outs.iter().map(IntArray::to_limbs).collect()
}

/// Writes `n` result lines (`outs[0][i] outs[1][i] ...`, `limbs` limbs per
/// number) to `w`: formatted in parallel, a block at a time.
fn write_results(
    mut w: impl Write,
    outs: &[Vec<u64>],
    limbs: usize,
    n: usize,
    radix: Radix,
) -> io::Result<()> {
    // Lines per formatting task (about 64 KiB of text) and tasks per block
    // (bounds the text held in memory).
    let per_task = (1024 / limbs).max(1);
    let tasks_per_block = 4 * rayon::current_num_threads().max(1);
    let starts: Vec<usize> = (0..n).step_by(per_task).collect();
    for block in starts.chunks(tasks_per_block) {
        let texts: Vec<String> = block
            .par_iter()
            .map(|&s| {
                let mut t = String::new();
                for i in s..(s + per_task).min(n) {
                    for (k, o) in outs.iter().enumerate() {
                        if k > 0 {
                            t.push(' ');
                        }
                        parse::write_one(&mut t, &o[i * limbs..(i + 1) * limbs], radix);
                    }
                    t.push('\n');
                }
                t
            })
            .collect();
        for t in &texts {
            w.write_all(t.as_bytes())?;
        }
    }
    w.flush()
}

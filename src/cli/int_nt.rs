//! The number-theory commands of `mparray int`: gcd, modinv, powm, isqrt,
//! shl, shr, and, or, xor, not, cmp, popcount, bitlen, prime.
//!
//! Operands come from files (one number per line, the conventions of
//! `mparray int`), or for the scalar ones from options that serve every
//! line: `--modulus N` (modinv, powm), `--exp N` (powm), `--count N`
//! (shl, shr: else a file of decimal counts). Output, one line per input
//! line: a number (gcd, modinv, powm, shl, shr, and, or, xor, not), `s r`
//! (isqrt: root and remainder), -1/0/1 (cmp), a decimal count (popcount,
//! bitlen), 1 or 0 (prime: probably prime or composite). A zero modulus, an
//! element without an inverse (modinv without `--flags`) and bad counts
//! exit with status 2 naming the file and line. These commands run on one
//! process (no MPI split).

use std::path::PathBuf;

use super::{IntArgs, Op, parse_bits, parse_file, write_results};
use crate::cli::{CommandError, Input, engine_from_arg};
use crate::engine::Engine;
use crate::error::Error;
use crate::int::{IntArray, Radix, parse};

/// Whether `op` is one of these commands.
pub(super) fn handles(op: Op) -> bool {
    !matches!(op, Op::Add | Op::Sub | Op::Mul | Op::MulWide | Op::Divrem)
}

/// A scalar given as an option: parsed as a one-element array.
fn scalar(opt: &str, text: &str, bits: u64) -> Result<Vec<u64>, CommandError> {
    let limbs = (bits / 64) as usize;
    let mut v = vec![0u64; limbs];
    parse::parse_into(&[text.trim()], limbs, &mut v).map_err(|e| {
        CommandError::Input(format!(
            "{opt} {text:?}: {}",
            match e {
                Error::Parse { reason, .. } => reason,
                Error::TooWide { needed, width, .. } => {
                    format!("value does not fit in {width} bits (it needs {needed} bits)")
                }
                other => other.to_string(),
            }
        ))
    })?;
    Ok(v)
}

/// An operand: per line from a file, or a scalar option.
struct Operand {
    limbs: Vec<u64>,
    /// File and first line for messages (`None`: the option).
    src: Option<(String, usize)>,
    opt: &'static str,
}

impl Operand {
    fn is_scalar(&self) -> bool {
        self.src.is_none()
    }
    fn at(&self, i: usize) -> String {
        match &self.src {
            Some((name, first)) => format!("{name}:{}", first + i + 1),
            None => self.opt.to_string(),
        }
    }
}

fn load(
    file: Option<&PathBuf>,
    opt_val: Option<&String>,
    opt: &'static str,
    what: &str,
    op: &str,
    bits: u64,
) -> Result<Operand, CommandError> {
    let limbs = (bits / 64) as usize;
    match (file, opt_val) {
        (Some(_), Some(_)) => Err(CommandError::Input(format!(
            "{op}: give the {what} as a file or as {opt}, not both"
        ))),
        (None, Some(v)) => Ok(Operand {
            limbs: scalar(opt, v, bits)?,
            src: None,
            opt,
        }),
        (Some(p), None) => {
            let f = Input::read(p)?;
            let limbs = parse_file(&f, limbs)?;
            Ok(Operand {
                limbs,
                src: Some((f.name.clone(), f.first)),
                opt,
            })
        }
        (None, None) => Err(CommandError::Input(format!(
            "{op} needs the {what}: a file or {opt}"
        ))),
    }
}

fn check_lines(a: &Input, na: usize, b: &Operand, limbs: usize) -> Result<(), CommandError> {
    let nb = b.limbs.len() / limbs;
    if !b.is_scalar() && nb != na {
        let name = b.src.as_ref().map_or("", |s| s.0.as_str());
        return Err(CommandError::Input(format!(
            "{} has {na} lines but {name} has {nb}: the files must have one line per operation",
            a.name
        )));
    }
    Ok(())
}

fn check_modulus(m: &Operand, limbs: usize) -> Result<(), CommandError> {
    if let Some(i) = m
        .limbs
        .chunks(limbs)
        .position(|v| v.iter().all(|&x| x == 0))
    {
        return Err(CommandError::Input(format!(
            "{}: the modulus is 0",
            m.at(i)
        )));
    }
    Ok(())
}

fn array(engine: &Engine, bits: u64, v: Vec<u64>) -> Result<IntArray, Error> {
    IntArray::from_limbs(bits, v)?.into_engine(engine)
}

/// Output lines: numbers (one or more per line) or plain text.
enum Out {
    Nums(Vec<Vec<u64>>),
    Text(Vec<String>),
}

pub(super) fn run(a: &IntArgs) -> Result<(), CommandError> {
    let bits = parse_bits(&a.bits)?;
    let limbs = (bits / 64) as usize;
    let op = a.op;
    let name = op.name();
    let engine = engine_from_arg(&a.engine)?;
    let fa = Input::read(&a.a_file)?;
    let radix = if a.hex {
        Radix::Hex
    } else if a.dec {
        Radix::Dec
    } else {
        fa.lines()
            .first()
            .map_or(Radix::Dec, |s| parse::radix_of(s))
    };
    let da = parse_file(&fa, limbs)?;
    let n = da.len() / limbs;
    if !matches!(op, Op::Powm) && a.c_file.is_some() {
        return Err(CommandError::Input(format!(
            "{name} takes at most two files"
        )));
    }
    let unary = matches!(
        op,
        Op::Isqrt | Op::Not | Op::Popcount | Op::Bitlen | Op::Prime
    );
    if unary && a.b_file.is_some() {
        return Err(CommandError::Input(format!("{name} takes one file")));
    }
    let two = |what: &str| -> Result<Operand, CommandError> {
        let b = load(a.b_file.as_ref(), None, "", what, name, bits)?;
        check_lines(&fa, n, &b, limbs)?;
        Ok(b)
    };
    let x = || array(&engine, bits, da.clone());
    let out = match op {
        Op::Gcd | Op::And | Op::Or | Op::Xor | Op::Cmp => {
            let b = two("second operands")?;
            let y = array(&engine, bits, b.limbs)?;
            let x = x()?;
            match op {
                Op::Gcd => Out::Nums(vec![x.gcd(&y)?.to_limbs()?]),
                Op::And => Out::Nums(vec![x.and(&y)?.to_limbs()?]),
                Op::Or => Out::Nums(vec![x.or(&y)?.to_limbs()?]),
                Op::Xor => Out::Nums(vec![x.xor(&y)?.to_limbs()?]),
                _ => Out::Text(x.cmp_i8(&y)?.iter().map(|v| v.to_string()).collect()),
            }
        }
        Op::Not => Out::Nums(vec![x()?.not()?.to_limbs()?]),
        Op::Isqrt => {
            let (s, r) = x()?.isqrt()?;
            Out::Nums(vec![s.to_limbs()?, r.to_limbs()?])
        }
        Op::Popcount | Op::Bitlen => {
            let x = x()?;
            let v = if op == Op::Popcount {
                x.popcount()?
            } else {
                x.bit_length()?
            };
            Out::Text(v.iter().map(|c| c.to_string()).collect())
        }
        Op::Prime => {
            let p = x()?.is_probable_prime(a.nt.rounds)?;
            Out::Text(
                p.iter()
                    .map(|&b| if b { "1" } else { "0" }.into())
                    .collect(),
            )
        }
        Op::Shl | Op::Shr => {
            let x = x()?;
            let left = op == Op::Shl;
            let r = match (&a.nt.count, &a.b_file) {
                (Some(_), Some(_)) => {
                    return Err(CommandError::Input(format!(
                        "{name}: give the counts as a file or as --count, not both"
                    )));
                }
                (Some(c), None) => {
                    let s: u64 = c.trim().parse().map_err(|_| {
                        CommandError::Input(format!("--count {c:?}: not a decimal count of bits"))
                    })?;
                    if left { x.shl(s)? } else { x.shr(s)? }
                }
                (None, Some(p)) => {
                    let f = Input::read(p)?;
                    let lines = f.lines();
                    if lines.len() != n {
                        return Err(CommandError::Input(format!(
                            "{} has {n} lines but {} has {}: the files must have one line per operation",
                            fa.name,
                            f.name,
                            lines.len()
                        )));
                    }
                    let mut c = Vec::with_capacity(n);
                    for (i, l) in lines.iter().enumerate() {
                        c.push(l.trim().parse::<u64>().map_err(|_| {
                            CommandError::Input(format!(
                                "{}:{}: cannot parse {l:?}: not a decimal count of bits",
                                f.name,
                                f.first + i + 1
                            ))
                        })?);
                    }
                    if left {
                        x.shl_each(&c)?
                    } else {
                        x.shr_each(&c)?
                    }
                }
                (None, None) => {
                    return Err(CommandError::Input(format!(
                        "{name} needs the counts: a file or --count"
                    )));
                }
            };
            Out::Nums(vec![r.to_limbs()?])
        }
        Op::Modinv => {
            let m = load(
                a.b_file.as_ref(),
                a.nt.modulus.as_ref(),
                "--modulus",
                "moduli",
                name,
                bits,
            )?;
            check_lines(&fa, n, &m, limbs)?;
            check_modulus(&m, limbs)?;
            let mm = array(&engine, bits, m.limbs.clone())?;
            let (r, f) = x()?.modinv_flagged(&mm)?;
            if a.nt.flags {
                let text = r.to_strings(radix)?;
                Out::Text(
                    text.into_iter()
                        .zip(f)
                        .map(|(t, ok)| format!("{t} {}", u8::from(ok)))
                        .collect(),
                )
            } else {
                if let Some(i) = f.iter().position(|&ok| !ok) {
                    return Err(CommandError::Input(format!(
                        "{}:{}: no inverse modulo {} (they have a common factor; --flags prints 0 0 instead)",
                        fa.name,
                        fa.first + i + 1,
                        if m.is_scalar() {
                            "--modulus".to_string()
                        } else {
                            format!("the modulus of {}", m.at(i))
                        }
                    )));
                }
                Out::Nums(vec![r.to_limbs()?])
            }
        }
        Op::Powm => {
            // powm A E M, powm A E --modulus N, powm A M --exp N,
            // powm A --exp N --modulus N.
            let (ef, mf) = match (&a.nt.exp, &a.nt.modulus) {
                (None, None) => (a.b_file.as_ref(), a.c_file.as_ref()),
                (None, Some(_)) => (a.b_file.as_ref(), None),
                (Some(_), None) => (None, a.b_file.as_ref()),
                (Some(_), Some(_)) => (None, None),
            };
            if a.nt.exp.is_some() && a.nt.modulus.is_some() && a.b_file.is_some()
                || (a.nt.exp.is_some() || a.nt.modulus.is_some()) && a.c_file.is_some()
            {
                return Err(CommandError::Input(
                    "powm: too many operands (A_FILE, then the exponents and moduli not given as --exp/--modulus)".into(),
                ));
            }
            let e = load(ef, a.nt.exp.as_ref(), "--exp", "exponents", name, bits)?;
            check_lines(&fa, n, &e, limbs)?;
            let m = load(mf, a.nt.modulus.as_ref(), "--modulus", "moduli", name, bits)?;
            check_lines(&fa, n, &m, limbs)?;
            check_modulus(&m, limbs)?;
            let ee = array(&engine, bits, e.limbs)?;
            let mm = array(&engine, bits, m.limbs)?;
            Out::Nums(vec![x()?.powm(&ee, &mm)?.to_limbs()?])
        }
        Op::Add | Op::Sub | Op::Mul | Op::MulWide | Op::Divrem => {
            unreachable!("handled by int::run")
        }
    };
    let w = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let res = match out {
        Out::Nums(v) => write_results(w, &v, limbs, n, radix),
        Out::Text(t) => {
            use std::io::Write;
            let mut w = w;
            (|| {
                for l in &t {
                    w.write_all(l.as_bytes())?;
                    w.write_all(b"\n")?;
                }
                w.flush()
            })()
        }
    };
    match res {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the results: {e}"))),
    }
}

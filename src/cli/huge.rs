//! `mparray huge mul|sqr|divrem|sqrt A_FILE [B_FILE] [-o OUT]` and
//! `mparray huge rand --bits N -o FILE`: one huge number per file.
//!
//! Input: one unsigned number, decimal or `0x` hex, with any white space
//! (and a UTF-8 byte-order mark) around it. Output: the result in the base
//! of A_FILE unless `--hex` or `--dec` says otherwise; `divrem` prints the
//! quotient and the remainder on two lines, `sqrt` the root and the
//! remainder. A spinner with the current stage is drawn on standard error
//! when the work takes over a second and standard error is a terminal.
//! Bad input exits with status 2 and names the file and the position of the
//! first bad character.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CommandError, engine_from_arg};
use crate::engine::Engine;
use crate::error::Error;
use crate::huge::HugeInt;
use crate::int::Radix;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// A * B.
    Mul,
    /// A * A.
    Sqr,
    /// Floor quotient and remainder of A / B (two lines).
    Divrem,
    /// Floor square root of A and the remainder A - root^2 (two lines).
    Sqrt,
    /// Writes a random number of exactly --bits bits (top bit set) to -o FILE.
    Rand,
}

#[derive(Args)]
#[command(after_help = "\
Each file holds one number, decimal or 0x hex; white space around it is ignored. \
Results are printed in the base of A_FILE unless --hex or --dec is given; divrem \
prints the quotient and the remainder on two lines, sqrt the root and the remainder. \
`mparray huge rand --bits N [--seed S] [--hex] -o FILE` writes a random N-bit number. \
Bad input exits with status 2 and names the file and the first bad character.")]
pub struct HugeArgs {
    /// The operation.
    #[arg(value_enum)]
    op: Op,
    /// The first operand (one number: decimal or 0x hex).
    a_file: Option<PathBuf>,
    /// The second operand (mul, divrem).
    b_file: Option<PathBuf>,
    /// Write the result here instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Engine: cpu, cuda, or auto (CUDA if usable for huge numbers, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Print results in hex (0x prefix).
    #[arg(long, conflicts_with = "dec")]
    hex: bool,
    /// Print results in decimal.
    #[arg(long)]
    dec: bool,
    /// rand: bits of the number (its top bit is set).
    #[arg(long)]
    bits: Option<u64>,
    /// rand: the seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

/// A bar over the stages of the command (read, compute, convert, write)
/// with a spinner, the elapsed time and the stage's name, on standard
/// error, drawn only after a second of work and only on a terminal.
struct Progress {
    bar: ProgressBar,
}

impl Progress {
    fn start(stages: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(stages), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] [{bar:24}] {pos}/{len} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        if std::io::stderr().is_terminal() {
            let b = bar.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                if !b.is_finished() {
                    b.set_draw_target(ProgressDrawTarget::stderr());
                    b.enable_steady_tick(Duration::from_millis(120));
                }
            });
        }
        Progress { bar }
    }
    /// Starts the next stage (the previous ones count as done).
    fn stage(&self, s: &str) {
        if !self.bar.message().is_empty() {
            self.bar.inc(1);
        }
        self.bar.set_message(s.to_string());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn read_number(engine: &Engine, path: &Path) -> Result<(HugeInt, Radix), CommandError> {
    let name = path.display().to_string();
    let cannot = |e| CommandError::Input(format!("cannot read {name}: {e}"));
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let size = f.metadata().map(|m| m.len() as usize).unwrap_or(0);
    let data = super::read_checked(&name, &mut f, size)?;
    HugeInt::parse_bytes(engine, &data).map_err(|e| match e {
        Error::Parse { reason, .. } => CommandError::Input(format!("{name}: {reason}")),
        other => other.into(),
    })
}

/// The engine named by `--engine`; `auto` falls back to the CPU where
/// CUDA cannot hold huge numbers.
fn pick_engine(name: &str) -> Result<Engine, CommandError> {
    let e = engine_from_arg(name)?;
    if name == "auto" && e.is_cuda() && HugeInt::zero(&e).is_err() {
        return Ok(Engine::Cpu);
    }
    Ok(e)
}

pub fn run(a: HugeArgs) -> Result<(), CommandError> {
    let op = a.op;
    if op == Op::Rand {
        return rand(&a);
    }
    let Some(a_path) = &a.a_file else {
        return Err(CommandError::Input("huge needs A_FILE".into()));
    };
    let needs_b = matches!(op, Op::Mul | Op::Divrem);
    if needs_b && a.b_file.is_none() {
        return Err(CommandError::Input(
            format!("{op:?} needs two files: A_FILE B_FILE").to_lowercase(),
        ));
    }
    if !needs_b && a.b_file.is_some() {
        return Err(CommandError::Input(
            format!("{op:?} takes one file").to_lowercase(),
        ));
    }
    #[cfg(feature = "mpi")]
    if let Some(comm) = crate::dist::world().filter(|c| c.size() > 1)
        && op == Op::Mul
    {
        return mul_across_ranks(&comm, &a);
    }
    let engine = pick_engine(&a.engine)?;
    // Stages: read A, [read B], compute, convert, write.
    let progress = Progress::start(4 + u64::from(a.b_file.is_some()));
    progress.stage("reading A");
    let (x, radix_a) = read_number(&engine, a_path)?;
    let y = match &a.b_file {
        Some(p) => {
            progress.stage("reading B");
            Some(read_number(&engine, p)?.0)
        }
        None => None,
    };
    let radix = if a.hex {
        Radix::Hex
    } else if a.dec {
        Radix::Dec
    } else {
        radix_a
    };
    let outs = match (op, &y) {
        (Op::Mul, Some(y)) => {
            progress.stage("multiplying");
            vec![x.mul(y)?]
        }
        (Op::Sqr, _) => {
            progress.stage("squaring");
            vec![x.sqr()?]
        }
        (Op::Divrem, Some(y)) => {
            if y.to_limbs()?.is_empty() {
                let b = a
                    .b_file
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                return Err(CommandError::Input(format!(
                    "{b}: division by zero (the divisor is 0)"
                )));
            }
            progress.stage("dividing");
            let (q, r) = x.divrem(y)?;
            vec![q, r]
        }
        (Op::Sqrt, _) => {
            progress.stage("square root");
            let (s, r) = x.sqrt_rem()?;
            vec![s, r]
        }
        _ => return Err(CommandError::Other("operands checked above".into())),
    };
    progress.stage(if radix == Radix::Dec {
        "converting to decimal"
    } else {
        "converting to hex"
    });
    let mut text = String::new();
    for o in &outs {
        text.push_str(&o.to_string_radix(radix)?);
        text.push('\n');
    }
    progress.stage("writing");
    write_out(a.output.as_deref(), &text)
}

/// `mpirun -np P mparray huge mul A B`: the distributed NTT on the CPUs
/// of every rank; hex operands are read and the hex product written in
/// blocks by the ranks, decimal ones by rank 0 ([`super::dist::huge_mul`]).
#[cfg(feature = "mpi")]
fn mul_across_ranks(comm: &crate::dist::Comm, a: &HugeArgs) -> Result<(), CommandError> {
    let (Some(ap), Some(bp)) = (&a.a_file, &a.b_file) else {
        return Err(CommandError::Input(
            "mul needs two files: A_FILE B_FILE".into(),
        ));
    };
    let flag = if a.hex {
        Some(Radix::Hex)
    } else if a.dec {
        Some(Radix::Dec)
    } else {
        None
    };
    let read = || {
        let (x, radix_a) = read_number(&Engine::Cpu, ap)?;
        let (y, _) = read_number(&Engine::Cpu, bp)?;
        Ok((x.to_limbs()?, y.to_limbs()?, radix_a))
    };
    // Rank 0's output, written piece by piece (the file is created by the
    // first piece, as `write_out` does).
    let mut file: Option<std::fs::File> = None;
    let mut sink = |b: &[u8]| -> Result<(), CommandError> {
        match a.output.as_deref() {
            Some(p) => {
                let cannot = |e: std::io::Error| {
                    CommandError::Other(format!("cannot write {}: {e}", p.display()))
                };
                if file.is_none() {
                    file = Some(std::fs::File::create(p).map_err(cannot)?);
                }
                match file.as_mut() {
                    Some(f) => f.write_all(b).map_err(cannot),
                    None => Ok(()),
                }
            }
            None => write_out(None, &String::from_utf8_lossy(b)),
        }
    };
    super::dist::huge_mul(comm, (ap, bp), flag, read, &mut sink)
}

fn write_out(path: Option<&Path>, text: &str) -> Result<(), CommandError> {
    match path {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| CommandError::Other(format!("cannot write {}: {e}", p.display()))),
        None => {
            let mut w = std::io::stdout().lock();
            match w.write_all(text.as_bytes()).and_then(|_| w.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(CommandError::Other(format!("writing the result: {e}"))),
            }
        }
    }
}

/// `huge rand`: xorshift limbs, the top bit at `bits - 1`.
fn rand(r: &HugeArgs) -> Result<(), CommandError> {
    let Some(bits) = r.bits else {
        return Err(CommandError::Input("rand needs --bits N".into()));
    };
    let Some(out) = &r.output else {
        return Err(CommandError::Input("rand needs -o FILE".into()));
    };
    if r.a_file.is_some() {
        return Err(CommandError::Input("rand takes no input file".into()));
    }
    if bits == 0 || bits > 1 << 40 {
        return Err(CommandError::Input(format!(
            "invalid --bits {bits}: from 1 to 2^40"
        )));
    }
    let seed = r.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let progress = Progress::start(3);
    progress.stage("generating");
    let n = bits.div_ceil(64) as usize;
    let mut limbs = crate::huge::random_limbs(n, seed);
    let top = ((bits - 1) % 64) as u32;
    let last = &mut limbs[n - 1];
    *last &= if top == 63 {
        u64::MAX
    } else {
        (1u64 << (top + 1)) - 1
    };
    *last |= 1u64 << top;
    let x = HugeInt::from_limbs(&Engine::Cpu, &limbs)?;
    progress.stage(if r.hex {
        "converting to hex"
    } else {
        "converting to decimal"
    });
    let mut text = if r.hex { x.to_hex()? } else { x.to_decimal()? };
    text.push('\n');
    progress.stage("writing");
    write_out(Some(out), &text)
}

impl HugeArgs {
    /// Whether the command runs on every MPI rank (mul: the distributed NTT).
    pub(crate) fn distributed(&self) -> bool {
        self.op == Op::Mul
    }
}

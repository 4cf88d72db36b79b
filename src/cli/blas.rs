//! `mparray blas gemm|gemv|dot|axpy|syrk|herk --prec P [--round R]
//! [--engine cpu|cuda|auto] [--trans-a] [--trans-b] [--conj]
//! [--uplo upper|lower] [--alpha X] [--beta X] [--hex | --digits D]
//! A_FILE [B_FILE [C_FILE]]`: exactly rounded BLAS on Matrix Market array
//! files.
//!
//! Input: Matrix Market array files (`%%MatrixMarket matrix array real
//! general` or `... complex general`; see [`crate::linalg::market`]); A_FILE's
//! header picks real or complex and every other file must declare the same
//! field. Values are read at precision P rounded to nearest. Vectors are
//! `n x 1` matrices.
//!
//! Operations (each result element the exact value correctly rounded once to
//! P bits in mode `--round`):
//! - `gemm A B [C]`: `alpha*op(A)*op(B) + beta*C` (op: `--trans-a`,
//!   `--trans-b` transpose, with `--conj` conjugate-transpose);
//! - `gemv A x [y]`: `alpha*op(A)*x + beta*y`;
//! - `dot x y`: `sum x[i]*y[i]` (complex: `--conj` conjugates x), a `1 x 1`
//!   matrix;
//! - `axpy x y`: `alpha*x + y`;
//! - `syrk A [C]` (real): `alpha*A*A^T + beta*C` (`--trans-a`: `A^T*A`) on
//!   the triangle `--uplo`, C's elements (or +0) elsewhere;
//! - `herk A [C]` (complex, alpha and beta real): `alpha*A*A^H + beta*C`.
//!
//! `--alpha` defaults to 1; C (or y) is read only when its file is given,
//! `--beta` needs it and defaults to 1 (`C = alpha*op(A)*op(B) + C`). Complex scalars are `re,im` or
//! `re im` (a single number: imaginary part 0).
//!
//! Output: the result as a Matrix Market array file on standard output
//! (decimal with `--digits D` significant digits, default enough to read
//! back, or exact hex floats with `--hex`). Bad files (header, count,
//! number) and shape mismatches exit with status 2 naming the file and line.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::float::MAX_DIGITS;
use super::{CommandError, Input, engine_from_arg};
use crate::complex::{CRound, ComplexArray};
use crate::engine::Engine;
use crate::float::{self, FloatArray, Round};
use crate::linalg::market::{self, Field};
use crate::linalg::{CGemm, CGemv, Gemm, Gemv, Herk, Matrix, Op, Syrk, Uplo};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BlasOp {
    /// alpha*op(A)*op(B) + beta*C (files: A B [C]).
    Gemm,
    /// alpha*op(A)*x + beta*y (files: A x [y]; x, y are n x 1).
    Gemv,
    /// sum x[i]*y[i] as a 1 x 1 matrix (files: x y; complex: --conj for conj(x)).
    Dot,
    /// alpha*x + y (files: x y).
    Axpy,
    /// alpha*A*A^T + beta*C on one triangle, real (files: A [C]).
    Syrk,
    /// alpha*A*A^H + beta*C on one triangle, complex, alpha and beta real (files: A [C]).
    Herk,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UploArg {
    /// The upper triangle (i <= j).
    Upper,
    /// The lower triangle (i >= j).
    Lower,
}

#[derive(Args)]
#[command(after_help = "\
Files are Matrix Market arrays (%%MatrixMarket matrix array real|complex \
general, then \"rows cols\", then the values in column-major order, one per \
line, \"re im\" for complex); A_FILE's header picks real or complex and the \
other files must agree. Vectors are n x 1. Values (decimal or hex floats) are \
read at precision P rounded to nearest; every result element is the exact \
value correctly rounded once. The result is written to standard output in \
the same format. Bad files and shape mismatches exit with status 2 and name \
the file and line.")]
pub struct BlasArgs {
    /// The operation.
    #[arg(value_enum)]
    op: BlasOp,
    /// Precision of the inputs and results in bits (1 to 2^20; both parts of
    /// a complex number).
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Rounding mode: N (nearest, ties to even), Z (toward zero), U (toward
    /// +Inf), D (toward -Inf), A (away from zero); complex: one letter for
    /// both parts or two (real part first, as NZ).
    #[arg(long, default_value = "N")]
    round: String,
    /// Engine: cpu, cuda or auto (CUDA when usable, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Use op(A) = A^T (gemm, gemv; with --conj: A^H); syrk: A^T*A instead
    /// of A*A^T; herk: A^H*A instead of A*A^H.
    #[arg(long)]
    trans_a: bool,
    /// Use op(B) = B^T (gemm only; with --conj: B^H).
    #[arg(long)]
    trans_b: bool,
    /// Complex only: conjugate the transposed operands of gemm and gemv
    /// (--trans-a/--trans-b give A^H/B^H); dot: conjugate x (dotc, not dotu).
    #[arg(long)]
    conj: bool,
    /// The triangle syrk and herk compute (the other is C's, or +0).
    #[arg(long, value_enum, default_value = "upper")]
    uplo: UploArg,
    /// The scalar alpha (default 1), read at precision P; complex as "re,im"
    /// or "re im" (herk: real).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    alpha: Option<String>,
    /// The scalar beta (default 1) multiplying C (gemm, syrk, herk) or y
    /// (gemv); needs C_FILE. Complex as for --alpha.
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    beta: Option<String>,
    /// Print exact hex floats (MPFR's %Ra).
    #[arg(long, conflicts_with = "digits")]
    hex: bool,
    /// Significant decimal digits of the output (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// A (gemm, gemv, syrk, herk) or x (dot, axpy).
    a_file: PathBuf,
    /// B (gemm), x (gemv), y (dot, axpy), or C (syrk, herk).
    b_file: Option<PathBuf>,
    /// C (gemm) or y (gemv).
    c_file: Option<PathBuf>,
}

impl BlasOp {
    fn name(self) -> &'static str {
        match self {
            BlasOp::Gemm => "gemm",
            BlasOp::Gemv => "gemv",
            BlasOp::Dot => "dot",
            BlasOp::Axpy => "axpy",
            BlasOp::Syrk => "syrk",
            BlasOp::Herk => "herk",
        }
    }

    /// The fewest and most files.
    fn files(self) -> (usize, usize) {
        match self {
            BlasOp::Gemm | BlasOp::Gemv => (2, 3),
            BlasOp::Dot | BlasOp::Axpy => (2, 2),
            BlasOp::Syrk | BlasOp::Herk => (1, 2),
        }
    }

    /// Whether the last optional file is the C (or y) that beta multiplies.
    fn has_c(self, nfiles: usize) -> bool {
        match self {
            BlasOp::Gemm | BlasOp::Gemv => nfiles == 3,
            BlasOp::Syrk | BlasOp::Herk => nfiles == 2,
            BlasOp::Dot | BlasOp::Axpy => false,
        }
    }
}

fn input_err(m: impl Into<String>) -> CommandError {
    CommandError::Input(m.into())
}

/// The line of a Matrix Market file's size line (the first line after the
/// header that is neither blank nor a comment), or 2.
fn size_line(f: &Input) -> usize {
    f.lines()
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('%')
        })
        .map_or(2, |(i, _)| i + 1)
}

/// A shape error about `f`, at its size line.
fn shape_err(f: &Input, msg: impl std::fmt::Display) -> CommandError {
    input_err(format!("{}:{}: {msg}", f.name, size_line(f)))
}

/// A reader's error about `f`; one that names no line (a wrong count of
/// values, a missing size line) gets the size line's, as every bad file is
/// reported as `file:line: ...`.
fn at_line(f: &Input, e: crate::error::Error) -> CommandError {
    match e {
        crate::error::Error::Invalid(m) => match m.strip_prefix(&format!("{}: ", f.name)) {
            Some(rest) => shape_err(f, rest),
            None => input_err(m),
        },
        other => other.into(),
    }
}

/// Checks that the matrix of `f` is a vector (`n x 1`).
fn vector(f: &Input, what: &str, (r, c): (usize, usize)) -> Result<(), CommandError> {
    if c != 1 {
        return Err(shape_err(
            f,
            format!("{what} must be a vector (n x 1), found {r} x {c}"),
        ));
    }
    Ok(())
}

/// Checks the options that do not apply to `op`.
fn check_options(a: &BlasArgs, field: Field) -> Result<(), CommandError> {
    let op = a.op.name();
    let reject = |on: bool, opt: &str| -> Result<(), CommandError> {
        if on {
            Err(input_err(format!("{opt} does not apply to {op}")))
        } else {
            Ok(())
        }
    };
    reject(a.op != BlasOp::Gemm && a.trans_b, "--trans-b")?;
    reject(
        matches!(a.op, BlasOp::Dot | BlasOp::Axpy) && a.trans_a,
        "--trans-a",
    )?;
    reject(
        !matches!(a.op, BlasOp::Syrk | BlasOp::Herk) && a.uplo != UploArg::Upper,
        "--uplo",
    )?;
    reject(a.op == BlasOp::Dot && a.alpha.is_some(), "--alpha")?;
    reject(
        matches!(a.op, BlasOp::Dot | BlasOp::Axpy) && a.beta.is_some(),
        "--beta",
    )?;
    let conj_ok = match a.op {
        BlasOp::Dot => true,
        BlasOp::Gemm => a.trans_a || a.trans_b,
        BlasOp::Gemv => a.trans_a,
        _ => false,
    };
    reject(
        a.conj && (field == Field::Real || !conj_ok),
        "--conj (complex dot, or complex gemm/gemv with a transposition)",
    )?;
    match (a.op, field) {
        (BlasOp::Syrk, Field::Complex) => Err(input_err(format!(
            "{}:1: syrk needs a real matrix (use herk for complex ones)",
            a.a_file.display()
        ))),
        (BlasOp::Herk, Field::Real) => Err(input_err(format!(
            "{}:1: herk needs a complex matrix (use syrk for real ones)",
            a.a_file.display()
        ))),
        _ => Ok(()),
    }
}

/// A real scalar option at precision `p` on `engine`.
fn real_scalar(
    opt: &str,
    s: Option<&str>,
    default: &str,
    p: u64,
    engine: &Engine,
) -> Result<FloatArray, CommandError> {
    let s = s.unwrap_or(default).trim();
    let x = FloatArray::from_strs(p, &[s]).map_err(|e| {
        input_err(format!(
            "{opt} {s:?}: cannot parse it as a real number: {e}"
        ))
    })?;
    Ok(x.to_engine(engine)?)
}

/// A complex scalar option ("re,im", "re im" or "re") at precision `p` on
/// `engine`.
fn complex_scalar(
    opt: &str,
    s: Option<&str>,
    default: &str,
    p: u64,
    engine: &Engine,
) -> Result<ComplexArray, CommandError> {
    let s = s.unwrap_or(default).trim();
    let parts: Vec<&str> = s
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let (re, im) = match parts[..] {
        [re] => (re, "0"),
        [re, im] => (re, im),
        _ => {
            return Err(input_err(format!(
                "{opt} {s:?}: expected a complex number as \"re,im\" or \"re im\""
            )));
        }
    };
    let x = ComplexArray::from_strs(p, p, &[(re, im)]).map_err(|e| {
        input_err(format!(
            "{opt} {s:?}: cannot parse it as a complex number: {e}"
        ))
    })?;
    Ok(x.to_engine(engine)?)
}

pub fn run(a: BlasArgs) -> Result<(), CommandError> {
    float::check_prec(a.prec).map_err(|e| input_err(format!("--prec: {e}")))?;
    if a.digits > MAX_DIGITS {
        return Err(input_err(format!(
            "--digits {}: at most {MAX_DIGITS} significant digits",
            a.digits
        )));
    }
    let paths: Vec<&PathBuf> = [Some(&a.a_file), a.b_file.as_ref(), a.c_file.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    let (lo, hi) = a.op.files();
    if paths.len() < lo || paths.len() > hi {
        let want = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} or {hi}")
        };
        return Err(input_err(format!(
            "{} needs {want} files, got {}",
            a.op.name(),
            paths.len()
        )));
    }
    if a.beta.is_some() && !a.op.has_c(paths.len()) {
        return Err(input_err(format!(
            "--beta needs the C_FILE (the matrix or vector beta multiplies) for {}",
            a.op.name()
        )));
    }
    #[cfg(feature = "mpi")]
    if let Some(comm) = crate::dist::world().filter(|c| c.size() > 1)
        && a.op == BlasOp::Gemm
    {
        return gemm_across_ranks(&comm, &a, &paths);
    }
    let files = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let field = market::field(&files[0].name, &files[0].text)?;
    check_options(&a, field)?;
    let engine = engine_from_arg(&a.engine)?;
    let out = match field {
        Field::Real => run_real(&a, &files, &engine)?,
        Field::Complex => run_complex(&a, &files, &engine)?,
    };
    write_out(&out)
}

/// `mpirun -np P mparray blas gemm ...`: rank 0 reads the files; a real
/// gemm runs on the grid of ranks ([`crate::dist::gemm`]), a complex one on
/// rank 0 alone. The output is the one of a single process.
#[cfg(feature = "mpi")]
fn gemm_across_ranks(
    comm: &crate::dist::Comm,
    a: &BlasArgs,
    paths: &[&PathBuf],
) -> Result<(), CommandError> {
    use crate::dist::gemm::{GemmJob, gemm};
    type Operands = (Vec<Matrix<FloatArray>>, FloatArray, FloatArray);
    let mut operands: Option<Operands> = None;
    let mut alone: Option<String> = None;
    let go = super::dist::start(comm, || {
        let files = paths
            .iter()
            .map(|p| Input::read(p))
            .collect::<Result<Vec<_>, _>>()?;
        let field = market::field(&files[0].name, &files[0].text)?;
        check_options(a, field)?;
        if field == Field::Complex {
            let engine = engine_from_arg(&a.engine)?;
            alone = Some(run_complex(a, &files, &engine)?);
            return Ok(vec![0]);
        }
        let p = a.prec;
        Round::from_name(&a.round).map_err(|e| input_err(format!("--round: {e}")))?;
        let ms = files
            .iter()
            .map(|x| {
                market::read_real(&x.name, &x.text, p, Round::Nearest).map_err(|e| at_line(x, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let s: Vec<_> = ms.iter().map(shape).collect();
        check_shapes(a, &files, &s)?;
        let alpha = real_scalar("--alpha", a.alpha.as_deref(), "1", p, &Engine::Cpu)?;
        let beta = real_scalar("--beta", a.beta.as_deref(), "1", p, &Engine::Cpu)?;
        operands = Some((ms, alpha, beta));
        Ok(vec![1])
    });
    let quiet_unless_root = |e: CommandError| if comm.rank() == 0 { Err(e) } else { Ok(()) };
    match go {
        Ok(h) if h == [0] => return alone.map_or(Ok(()), |out| write_out(&out)),
        Ok(_) => {}
        Err(Some(e)) => return Err(e),
        Err(None) => return Ok(()),
    }
    let engine = engine_from_arg(&a.engine);
    if let Err((r, m)) = comm.agree(engine.as_ref().map(|_| ()).map_err(|e| match e {
        CommandError::Input(m) | CommandError::Other(m) => m.clone(),
    })) {
        return quiet_unless_root(CommandError::Other(format!("rank {r}: {m}")));
    }
    let engine = engine?;
    let rnd = Round::from_name(&a.round).map_err(|e| input_err(format!("--round: {e}")))?;
    let o = Gemm {
        op_a: op_of(a.trans_a, false),
        op_b: op_of(a.trans_b, false),
        prec: a.prec,
        rnd,
    };
    let job = operands.as_ref().map(|(ms, alpha, beta)| GemmJob {
        a: &ms[0],
        b: &ms[1],
        alpha,
        beta_c: ms.get(2).map(|c| (beta, c)),
    });
    match gemm(comm, &engine, job, &o) {
        Ok(Some(r)) => write_out(&market::write_real(&r, a.digits, a.hex)?),
        Ok(None) => Ok(()),
        Err(e) => quiet_unless_root(e.into()),
    }
}

fn op_of(on: bool, conj: bool) -> Op {
    match (on, conj) {
        (false, _) => Op::None,
        (true, false) => Op::Trans,
        (true, true) => Op::ConjTrans,
    }
}

fn uplo_of(u: UploArg) -> Uplo {
    match u {
        UploArg::Upper => Uplo::Upper,
        UploArg::Lower => Uplo::Lower,
    }
}

fn shape<A: crate::linalg::Elements>(m: &Matrix<A>) -> (usize, usize) {
    (m.rows(), m.cols())
}

fn op_shape(op: Op, (r, c): (usize, usize)) -> (usize, usize) {
    if op == Op::None { (r, c) } else { (c, r) }
}

/// Checks the shapes of the operands (files `f`, shapes `s`) of `op`.
fn check_shapes(a: &BlasArgs, f: &[Input], s: &[(usize, usize)]) -> Result<(), CommandError> {
    let (ta, tb) = (op_of(a.trans_a, false), op_of(a.trans_b, false));
    let ab = if a.trans_a { "op(A) = A^T" } else { "A" };
    match a.op {
        BlasOp::Gemm => {
            let (m, k) = op_shape(ta, s[0]);
            let (kb, n) = op_shape(tb, s[1]);
            if k != kb {
                let bb = if a.trans_b { "op(B) = B^T" } else { "B" };
                return Err(shape_err(
                    &f[1],
                    format!(
                        "{bb} is {kb} x {n} but {ab} is {m} x {k} ({} is {} x {}): the inner dimensions must agree",
                        f[0].name, s[0].0, s[0].1
                    ),
                ));
            }
            if s.len() == 3 && s[2] != (m, n) {
                return Err(shape_err(
                    &f[2],
                    format!("C is {} x {} but op(A)*op(B) is {m} x {n}", s[2].0, s[2].1),
                ));
            }
        }
        BlasOp::Gemv => {
            let (m, n) = op_shape(ta, s[0]);
            vector(&f[1], "x", s[1])?;
            if s[1].0 != n {
                return Err(shape_err(
                    &f[1],
                    format!(
                        "x has {} elements but {ab} is {m} x {n} ({} is {} x {})",
                        s[1].0, f[0].name, s[0].0, s[0].1
                    ),
                ));
            }
            if s.len() == 3 {
                vector(&f[2], "y", s[2])?;
                if s[2].0 != m {
                    return Err(shape_err(
                        &f[2],
                        format!("y has {} elements but {ab} is {m} x {n}", s[2].0),
                    ));
                }
            }
        }
        BlasOp::Dot | BlasOp::Axpy => {
            vector(&f[0], "x", s[0])?;
            vector(&f[1], "y", s[1])?;
            if s[0].0 != s[1].0 {
                return Err(shape_err(
                    &f[1],
                    format!(
                        "y has {} elements but x ({}) has {}",
                        s[1].0, f[0].name, s[0].0
                    ),
                ));
            }
        }
        BlasOp::Syrk | BlasOp::Herk => {
            let (n, _) = op_shape(ta, s[0]);
            if s.len() == 2 && s[1] != (n, n) {
                return Err(shape_err(
                    &f[1],
                    format!(
                        "C is {} x {} but the result is {n} x {n} ({} is {} x {})",
                        s[1].0, s[1].1, f[0].name, s[0].0, s[0].1
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn run_real(a: &BlasArgs, f: &[Input], engine: &Engine) -> Result<String, CommandError> {
    let p = a.prec;
    let rnd = Round::from_name(&a.round).map_err(|e| input_err(format!("--round: {e}")))?;
    let ms = f
        .iter()
        .map(|x| market::read_real(&x.name, &x.text, p, Round::Nearest).map_err(|e| at_line(x, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let s: Vec<_> = ms.iter().map(shape).collect();
    check_shapes(a, f, &s)?;
    let mut ms = ms
        .into_iter()
        .map(|m| m.into_engine(engine))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter();
    let alpha = real_scalar("--alpha", a.alpha.as_deref(), "1", p, engine)?;
    let beta = real_scalar("--beta", a.beta.as_deref(), "1", p, engine)?;
    let (ta, tb) = (op_of(a.trans_a, false), op_of(a.trans_b, false));
    let first = ms.next().expect("one file at least");
    let second = ms.next();
    let third = ms.next();
    let result = match a.op {
        BlasOp::Gemm => {
            let b = second.expect("gemm has B");
            let o = Gemm {
                op_a: ta,
                op_b: tb,
                prec: p,
                rnd,
            };
            first
                .gemm(&b, &alpha, third.as_ref().map(|c| (&beta, c)), &o)?
                .0
        }
        BlasOp::Gemv => {
            let x = second.expect("gemv has x").into_data();
            let y = third.map(|y| y.into_data());
            let o = Gemv {
                op: ta,
                prec: p,
                rnd,
            };
            let (r, _) = first.gemv(&alpha, &x, y.as_ref().map(|y| (&beta, y)), &o)?;
            let n = r.len();
            Matrix::from_array(r, n, 1)?
        }
        BlasOp::Dot => {
            let (x, y) = (first.into_data(), second.expect("dot has y").into_data());
            Matrix::from_array(x.dot(&y, p, rnd)?.0, 1, 1)?
        }
        BlasOp::Axpy => {
            let (x, y) = (first.into_data(), second.expect("axpy has y").into_data());
            let (r, _) = y.axpy(&alpha, &x, p, rnd)?;
            let n = r.len();
            Matrix::from_array(r, n, 1)?
        }
        BlasOp::Syrk => {
            let o = Syrk {
                uplo: uplo_of(a.uplo),
                trans: ta,
                prec: p,
                rnd,
            };
            first
                .syrk(&alpha, second.as_ref().map(|c| (&beta, c)), &o)?
                .0
        }
        BlasOp::Herk => unreachable!("herk is checked to be complex"),
    };
    Ok(market::write_real(&result, a.digits, a.hex)?)
}

fn run_complex(a: &BlasArgs, f: &[Input], engine: &Engine) -> Result<String, CommandError> {
    let p = a.prec;
    let rnd = CRound::from_name(&a.round).map_err(|e| input_err(format!("--round: {e}")))?;
    let ms = f
        .iter()
        .map(|x| {
            market::read_complex(&x.name, &x.text, p, p, Round::Nearest).map_err(|e| at_line(x, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let s: Vec<_> = ms.iter().map(shape).collect();
    check_shapes(a, f, &s)?;
    let mut ms = ms
        .into_iter()
        .map(|m| m.into_engine(engine))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter();
    let (ta, tb) = (op_of(a.trans_a, a.conj), op_of(a.trans_b, a.conj));
    let first = ms.next().expect("one file at least");
    let second = ms.next();
    let third = ms.next();
    let result = if a.op == BlasOp::Herk {
        let alpha = real_scalar("--alpha", a.alpha.as_deref(), "1", p, engine)?;
        let beta = real_scalar("--beta", a.beta.as_deref(), "1", p, engine)?;
        let o = Herk {
            uplo: uplo_of(a.uplo),
            trans: ta,
            prec_re: p,
            prec_im: p,
            rnd,
        };
        first
            .herk(&alpha, second.as_ref().map(|c| (&beta, c)), &o)?
            .0
    } else {
        let alpha = complex_scalar("--alpha", a.alpha.as_deref(), "1", p, engine)?;
        let beta = complex_scalar("--beta", a.beta.as_deref(), "1", p, engine)?;
        match a.op {
            BlasOp::Gemm => {
                let b = second.expect("gemm has B");
                let o = CGemm {
                    op_a: ta,
                    op_b: tb,
                    prec_re: p,
                    prec_im: p,
                    rnd,
                };
                first
                    .gemm(&b, &alpha, third.as_ref().map(|c| (&beta, c)), &o)?
                    .0
            }
            BlasOp::Gemv => {
                let x = second.expect("gemv has x").into_data();
                let y = third.map(|y| y.into_data());
                let o = CGemv {
                    op: ta,
                    prec_re: p,
                    prec_im: p,
                    rnd,
                };
                let (r, _) = first.gemv(&alpha, &x, y.as_ref().map(|y| (&beta, y)), &o)?;
                let n = r.len();
                Matrix::from_array(r, n, 1)?
            }
            BlasOp::Dot => {
                let (x, y) = (first.into_data(), second.expect("dot has y").into_data());
                let r = if a.conj {
                    x.dotc(&y, p, p, rnd)?
                } else {
                    x.dotu(&y, p, p, rnd)?
                };
                Matrix::from_array(r.0, 1, 1)?
            }
            BlasOp::Axpy => {
                let (x, y) = (first.into_data(), second.expect("axpy has y").into_data());
                let (r, _) = y.axpy(&alpha, &x, p, p, rnd)?;
                let n = r.len();
                Matrix::from_array(r, n, 1)?
            }
            BlasOp::Syrk | BlasOp::Herk => unreachable!("syrk is checked to be real"),
        }
    };
    Ok(market::write_complex(&result, a.digits, a.hex)?)
}

/// Writes the result file to standard output (a closed pipe is no error).
fn write_out(s: &str) -> Result<(), CommandError> {
    let mut w = io::stdout().lock();
    match w.write_all(s.as_bytes()).and_then(|()| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the result: {e}"))),
    }
}

impl BlasArgs {
    /// Whether the command runs on every MPI rank: gemm (real gemm is
    /// distributed; rank 0 tells the others when the files are complex).
    pub(crate) fn distributed(&self) -> bool {
        self.op == BlasOp::Gemm
    }
}

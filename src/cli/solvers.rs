//! `mparray roots` (all roots of a polynomial) and `mparray gmres` (a dense
//! linear system by restarted GMRES), both on the library's solvers.
//!
//! `roots --problem wilkinson|chebyshev --n N | --coeffs FILE --prec P
//! [--method aberth|sts] [--order L|m] [--engine cpu|cuda|auto]
//! [--max-iter K] [--tol T] [--digits D]` prints one root per line (`re
//! im`), then its rigorous residual bound and whether it converged, after
//! a header with the iteration count. A coefficient file holds one
//! coefficient per line from the constant term `a_0` up to the leading
//! `a_n`, each `re` or `re im` (decimal or hex floats, read at P bits to
//! nearest); blank lines and lines starting with `#` are skipped.
//!
//! `gmres --prec P --restart m [--tol T] [--max-restarts K] A.mtx b.mtx`
//! (real or complex files, A's header decides) prints the residual history
//! and x (a Matrix Market array file, n x 1).
//!
//! Bad input (a zero leading coefficient, degree 0, a non-square A, a
//! shape mismatch, a malformed file) exits with status 2 and a message;
//! a solve that does not converge is reported in the output, with status 0.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CommandError, Input, engine_from_arg};
use crate::complex::ComplexArray;
use crate::error::Error;
use crate::float::Round;
use crate::linalg::Matrix;
use crate::linalg::market;
use crate::solvers::gmres::{GmresOpts, Ortho, gmres_complex_with, gmres_with};
use crate::solvers::problems;
use crate::solvers::roots::{self, AberthOpts, Progress, StsOpts};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Problem {
    /// prod_{k=1..n} (z - k), exact integer coefficients.
    Wilkinson,
    /// The nodes of Chebyshev's equal-weight quadrature (exact rational
    /// coefficients rounded once).
    Chebyshev,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Ehrlich-Aberth of order 2L+1 (--order L, default 3).
    Aberth,
    /// Sakurai-Torii-Sugiura Padé of order 2m+1 (--order m, default 4).
    Sts,
}

#[derive(Args)]
#[command(after_help = "\
A coefficient file holds one coefficient per line from the constant term a_0 \
up to the leading a_n, each \"re\" or \"re im\" (decimal or hex floats, read \
at P bits rounded to nearest); blank lines and lines starting with # are \
skipped. Output: a header (# lines: problem, method, iterations, how many \
roots converged), then one line per root: re im, a rigorous upper bound on \
|p(root)| for the coefficients as read, and yes/no for convergence. Bad \
input exits with status 2; non-convergence is reported, with status 0.")]
pub struct RootsArgs {
    /// A generated problem (needs --n).
    #[arg(
        long,
        value_enum,
        conflicts_with = "coeffs",
        required_unless_present = "coeffs"
    )]
    problem: Option<Problem>,
    /// The degree of the generated problem.
    #[arg(long, requires = "problem")]
    n: Option<usize>,
    /// A coefficient file (ascending: a_0 first).
    #[arg(long, value_name = "FILE")]
    coeffs: Option<PathBuf>,
    /// Working precision in bits.
    #[arg(long, value_name = "P")]
    prec: u64,
    /// The method.
    #[arg(long, value_enum, default_value = "aberth")]
    method: Method,
    /// L for aberth (default 3), m for sts (default 4).
    #[arg(long)]
    order: Option<usize>,
    /// Engine: cpu, cuda or auto (CUDA when usable, else the CPU).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// The most iterations.
    #[arg(long, default_value_t = 500)]
    max_iter: usize,
    /// Relative correction counting as converged (default 2^(8-P)); roots
    /// whose residual is at the rounding-noise level converge too.
    #[arg(long)]
    tol: Option<f64>,
    /// Significant digits printed (0: enough to read back the exact value).
    #[arg(long, default_value_t = 0)]
    digits: usize,
}

#[derive(Args)]
#[command(after_help = "\
A.mtx and b.mtx are Matrix Market array files, real or complex (A's header \
decides; b is n x 1), read at P bits rounded to nearest. Output: # lines with the restarts, whether it \
converged, the relative residual estimate after every step and the true \
relative residual ||b - A x||/||b|| (each element of b - A x rounded once) at \
every restart; then x as a Matrix Market array file. Bad input exits with \
status 2; non-convergence is reported, with status 0.")]
pub struct GmresArgs {
    /// Working precision in bits.
    #[arg(long, value_name = "P")]
    prec: u64,
    /// Steps between restarts (m).
    #[arg(long, default_value_t = 30)]
    restart: usize,
    /// Relative residual to reach.
    #[arg(long, default_value_t = 1e-30)]
    tol: f64,
    /// The most restart cycles.
    #[arg(long, default_value_t = 100)]
    max_restarts: usize,
    /// Orthogonalisation: dgks (classical Gram-Schmidt, a second pass
    /// only when the DGKS test asks; real matrices), cgs2 (classical
    /// Gram-Schmidt twice, by gemv) or mgs (modified Gram-Schmidt, by dot
    /// and axpy).
    #[arg(long, default_value = "dgks")]
    ortho: String,
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Significant digits of x (0: enough to read back).
    #[arg(long, default_value_t = 0)]
    digits: usize,
    /// The matrix A (n x n).
    a: PathBuf,
    /// The right-hand side b (n x 1).
    b: PathBuf,
}

/// A spinner with the iteration and a count on standard error, drawn only
/// after a second and only on a terminal.
struct Spinner {
    bar: ProgressBar,
}

impl Spinner {
    fn start() -> Spinner {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
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
        Spinner { bar }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn io_err(e: std::io::Error) -> CommandError {
    CommandError::Other(format!("cannot write the output: {e}"))
}

/// Reads a coefficient file into a CPU array at `prec` bits.
fn read_coeffs(path: &std::path::Path, prec: u64) -> Result<ComplexArray, CommandError> {
    let input = Input::read(path)?;
    let mut items: Vec<(String, String)> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    for (i, l) in input.lines().iter().enumerate() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let w: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .collect();
        let (re, im) = match w.as_slice() {
            [re] => (re.to_string(), "0".to_string()),
            [re, im] => (re.to_string(), im.to_string()),
            _ => {
                return Err(CommandError::Input(format!(
                    "{}:{}: expected one coefficient (re, or re im), found {} fields",
                    input.name,
                    i + 1,
                    w.len()
                )));
            }
        };
        items.push((re, im));
        lines.push(i + 1);
    }
    crate::float::check_prec(prec)?;
    ComplexArray::from_strs(prec, prec, &items).map_err(|e| match e {
        Error::Parse {
            index,
            text,
            reason,
        } => CommandError::Input(format!(
            "{}:{}: cannot parse {text:?}: {reason}",
            input.name, lines[index]
        )),
        Error::Invalid(m) => match m.strip_prefix("element ").and_then(|r| r.split_once(':')) {
            Some((k, rest)) if k.parse::<usize>().is_ok() => CommandError::Input(format!(
                "{}:{}:{rest}",
                input.name,
                lines[k.parse::<usize>().unwrap()]
            )),
            _ => CommandError::Input(format!("{}: {m}", input.name)),
        },
        other => other.into(),
    })
}

pub fn run_roots(a: RootsArgs) -> Result<(), CommandError> {
    let engine = engine_from_arg(&a.engine)?;
    crate::float::check_prec(a.prec)?;
    let (coeffs, what) = match (a.problem, &a.coeffs) {
        (Some(p), _) => {
            let n =
                a.n.ok_or_else(|| CommandError::Input("--problem needs the degree --n N".into()))?;
            let c = match p {
                Problem::Wilkinson => problems::wilkinson(n)?,
                Problem::Chebyshev => problems::chebyshev_nodes(n)?,
            };
            let name = format!("{p:?}").to_lowercase();
            (
                problems::coeff_array(&c, a.prec, &engine)?,
                format!("{name} n={n}"),
            )
        }
        (None, Some(f)) => (
            read_coeffs(f, a.prec)?.into_engine(&engine)?,
            f.display().to_string(),
        ),
        (None, None) => {
            return Err(CommandError::Input(
                "give --problem and --n, or --coeffs FILE".into(),
            ));
        }
    };
    let spin = Spinner::start();
    let bar = spin.bar.clone();
    let mut progress = move |p: Progress| {
        bar.set_message(format!(
            "iteration {}, {}/{} roots converged",
            p.iteration, p.converged, p.n
        ));
    };
    let t0 = std::time::Instant::now();
    let (res, method) = match a.method {
        Method::Aberth => {
            let o = AberthOpts {
                order: a.order.unwrap_or(3),
                tol: a.tol,
                max_iter: a.max_iter,
                ..AberthOpts::default()
            };
            (
                roots::aberth_with(&coeffs, a.prec, &o, &mut progress)?,
                format!("aberth L={}", o.order),
            )
        }
        Method::Sts => {
            let o = StsOpts {
                m: a.order.unwrap_or(4),
                tol: a.tol,
                max_iter: a.max_iter,
                ..StsOpts::default()
            };
            (
                roots::sts_pade_with(&coeffs, a.prec, &o, &mut progress)?,
                format!("sts m={}", o.m),
            )
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    drop(spin);
    let roots = res.roots.to_dec_strings(a.digits, Round::Nearest)?;
    let bounds = res.residual_bound.to_dec_strings(6, Round::Up)?;
    let conv = res.converged.iter().filter(|&&c| c).count();
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    writeln!(
        w,
        "# roots of {what}: {method}, {} bits, engine {}",
        a.prec,
        engine.name()
    )
    .map_err(io_err)?;
    writeln!(
        w,
        "# iterations {}, converged {conv}/{}{}, {secs:.3} s",
        res.iterations,
        roots.len(),
        if conv == roots.len() {
            ""
        } else {
            " (NOT CONVERGED)"
        }
    )
    .map_err(io_err)?;
    writeln!(w, "# re im residual_bound converged").map_err(io_err)?;
    for ((r, b), c) in roots.iter().zip(&bounds).zip(&res.converged) {
        writeln!(w, "{} {} {b} {}", r.0, r.1, if *c { "yes" } else { "no" }).map_err(io_err)?;
    }
    w.flush().map_err(io_err)
}

/// What both GMRES forms report, for printing.
struct GmresReport {
    n: usize,
    x_text: String,
    converged: bool,
    iterations: usize,
    restarts: usize,
    true_residual: String,
    b_norm: String,
    history: Vec<f64>,
    true_residuals: Vec<f64>,
}

/// Checks A's and b's shapes (A square, b n x 1 with A's rows).
fn gmres_shapes(
    a: &GmresArgs,
    ar: usize,
    ac: usize,
    br: usize,
    bc: usize,
) -> Result<(), CommandError> {
    if bc != 1 {
        return Err(CommandError::Input(format!(
            "{}: b must be n x 1, it is {br} x {bc}",
            a.b.display()
        )));
    }
    if ar != ac {
        return Err(CommandError::Input(format!(
            "{}: A must be square, it is {ar} x {ac}",
            a.a.display()
        )));
    }
    if br != ar {
        return Err(CommandError::Input(format!(
            "{} is {ar} x {ac} but {} has {br} rows",
            a.a.display(),
            a.b.display()
        )));
    }
    Ok(())
}

/// `dgks`, `cgs2` or `mgs` (anything else: a usage error).
pub(crate) fn parse_ortho(s: &str) -> Result<Ortho, CommandError> {
    match s {
        "dgks" => Ok(Ortho::Dgks),
        "cgs2" => Ok(Ortho::Cgs2),
        "mgs" => Ok(Ortho::Mgs),
        _ => Err(CommandError::Input(format!(
            "unknown --ortho {s:?}: dgks, cgs2 or mgs"
        ))),
    }
}

pub fn run_gmres(a: GmresArgs) -> Result<(), CommandError> {
    let engine = engine_from_arg(&a.engine)?;
    crate::float::check_prec(a.prec)?;
    let input = Input::read(&a.a)?;
    let field = market::field(&input.name, &input.text)?;
    let opts = GmresOpts {
        restart: a.restart,
        tol: a.tol,
        prec: a.prec,
        max_restarts: a.max_restarts,
        ortho: parse_ortho(&a.ortho)?,
    };
    let spin = Spinner::start();
    let bar = spin.bar.clone();
    let mut progress = move |it: usize, res: f64| {
        bar.set_message(format!("step {it}, relative residual {res:.3e}"));
    };
    let t0 = std::time::Instant::now();
    let (p, rn) = (a.prec, Round::Nearest);
    let rep = match field {
        market::Field::Real => {
            let m = market::read_real(&input.name, &input.text, p, rn)?;
            let b = market::read_real_file(&a.b, p, rn)?;
            gmres_shapes(&a, m.rows(), m.cols(), b.rows(), b.cols())?;
            let (m, b) = (m.into_engine(&engine)?, b.into_data().into_engine(&engine)?);
            let r = gmres_with(&m, &b, None, &opts, &mut progress)?;
            let n = r.x.len();
            GmresReport {
                n,
                x_text: market::write_real(&Matrix::from_array(r.x, n, 1)?, a.digits, false)?,
                converged: r.converged,
                iterations: r.iterations,
                restarts: r.restarts,
                true_residual: r.true_residual.to_dec_strings(6, Round::Up)?.remove(0),
                b_norm: r.b_norm.to_dec_strings(6, rn)?.remove(0),
                history: r.history,
                true_residuals: r.true_residuals,
            }
        }
        market::Field::Complex => {
            let m = market::read_complex(&input.name, &input.text, p, p, rn)?;
            let b = market::read_complex_file(&a.b, p, p, rn)?;
            gmres_shapes(&a, m.rows(), m.cols(), b.rows(), b.cols())?;
            let (m, b) = (m.into_engine(&engine)?, b.into_data().into_engine(&engine)?);
            let r = gmres_complex_with(&m, &b, None, &opts, &mut progress)?;
            let n = r.x.len();
            GmresReport {
                n,
                x_text: market::write_complex(&Matrix::from_array(r.x, n, 1)?, a.digits, false)?,
                converged: r.converged,
                iterations: r.iterations,
                restarts: r.restarts,
                true_residual: r.true_residual.to_dec_strings(6, Round::Up)?.remove(0),
                b_norm: r.b_norm.to_dec_strings(6, rn)?.remove(0),
                history: r.history,
                true_residuals: r.true_residuals,
            }
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    drop(spin);
    let mut c = String::new();
    c += &format!(
        "% gmres: n={}, {} bits, restart {}, tol {:e}, engine {}, {secs:.3} s\n",
        rep.n,
        a.prec,
        a.restart,
        a.tol,
        engine.name()
    );
    c += &format!(
        "% {} after {} steps in {} restarts; ||b - A x|| = {} (||b|| = {})\n",
        if rep.converged {
            "converged"
        } else {
            "NOT CONVERGED"
        },
        rep.iterations,
        rep.restarts,
        rep.true_residual,
        rep.b_norm
    );
    for (i, h) in rep.history.iter().enumerate() {
        c += &format!("% step {} relative residual estimate {h:.6e}\n", i + 1);
    }
    for (i, t) in rep.true_residuals.iter().enumerate() {
        c += &format!("% restart {i} true relative residual {t:.6e}\n");
    }
    // The comments go after the header line, as the format wants.
    let text = rep.x_text;
    let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    w.write_all(format!("{head}\n{c}{rest}").as_bytes())
        .map_err(io_err)?;
    w.flush().map_err(io_err)
}

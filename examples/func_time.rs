//! Times one correctly rounded function on one element in a fresh process
//! (constants such as pi not yet cached), for the comparison with GNU MPFR
//! in `scripts/peers/trig_huge_time.py`:
//!
//!     cargo run --release --example func_time -- FUNC PREC X [Y]
//!
//! FUNC: a real function of `mparray float` (sin, cos, tan, exp, log, ...),
//! `sin_cos`, `pow` (X^Y), or a complex one as `c` + name (csin, ccos, ctan,
//! cexp, csinh, ccosh; X and Y the parts). Prints the result (hex), then the
//! wall and process CPU seconds of the call alone.
use std::time::Instant;

use mparray::complex::{CFunc, CRound};
use mparray::float::func::Func;
use mparray::{ComplexArray, Engine, FloatArray, Round};

/// The CPU time of this process (all threads), seconds.
fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: a plain libc call writing the struct we own.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.sec as f64 + t.nsec as f64 * 1e-9
}

fn main() -> mparray::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 4 {
        eprintln!("usage: func_time FUNC PREC X [Y]");
        std::process::exit(2);
    }
    let (f, p) = (a[1].as_str(), a[2].parse::<u64>().expect("PREC"));
    // Inputs at their own precision (enough bits for a hex literal).
    let in_p = |s: &str| (4 * s.len() as u64).max(p);
    let x = FloatArray::from_strs(in_p(&a[3]), &[&a[3]])?.to_engine(&Engine::Cpu)?;
    let y = a
        .get(4)
        .map(|s| FloatArray::from_strs(in_p(s), &[s]))
        .transpose()?;
    let rnd = Round::Nearest;
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out: Vec<String> = if f == "sin_cos" {
        let (s, c, _) = x.sin_cos_ternary(p, rnd)?;
        vec![
            s.0.to_hex_strings()?[0].clone(),
            c.0.to_hex_strings()?[0].clone(),
        ]
    } else if f == "pow" {
        let y = y.expect("pow needs Y");
        x.pow(&y, p, rnd)?.to_hex_strings()?
    } else if let Some(cf) = f.strip_prefix('c').and_then(|n| {
        CFunc::ALL
            .into_iter()
            .find(|c| c.name() == n && f != "cos" && f != "cosh" && f != "cbrt")
    }) {
        let y = y.expect("complex functions need Y (the imaginary part)");
        let z = ComplexArray::new(x, y)?;
        let (re, im) = z
            .func(cf, p, p, CRound::new(rnd, rnd))?
            .to_hex_strings()?
            .remove(0);
        vec![re, im]
    } else {
        let func = Func::from_name(f).expect("unknown function");
        x.func(func, p, rnd)?.to_hex_strings()?
    };
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    for s in out {
        println!("{s}");
    }
    println!("wall {wall:.6} cpu {cpu:.6}");
    Ok(())
}

//! `mparray bench huge`: one huge multiplication at 2^20 .. 2^32 bits per
//! operand and decimal conversion (both ways) of 10^6 .. 10^8 digits, on
//! one engine. Every result is checked: products modulo three random 61-bit
//! primes (drawn per run, residues computed on the host independently of
//! the engine's arithmetic); decimal strings modulo the same primes and by
//! the exact round trip back to limbs. With `--reference`, malachite's
//! single-core time for the same operation is measured too (by default up
//! to 2^28 bits and 10^7 digits: beyond that it takes minutes).
//!
//! On CUDA the host-to-device and device-to-host transfers are timed
//! separately from the operation.

use std::time::Instant;

use clap::{Args, ValueEnum};
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::CommandError;
use crate::error::Result;
use crate::huge::HugeInt;

use crate::modp::{mulmod, powmod};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Case {
    /// Product of two random numbers of 2^K bits each.
    Mul,
    /// Decimal conversion of a random number of 10^K digits, both ways.
    Dec,
}

#[derive(Args, Clone)]
pub struct HugeBenchArgs {
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// log2 of the operand bits for mul (default 20,23,26,28,30,32).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<u32>,
    /// log10 of the digit counts for dec (default 6,7,8).
    #[arg(long, value_delimiter = ',')]
    digits: Vec<u32>,
    /// Cases (default mul,dec).
    #[arg(long, value_enum, value_delimiter = ',')]
    cases: Vec<Case>,
    /// Timed runs per size (the median is reported; default 3, 1 from 2^30 bits).
    #[arg(long)]
    runs: Option<usize>,
    /// Also time malachite on one core (up to --reference-max).
    #[arg(long)]
    reference: bool,
    /// Largest log2 bits (mul) timed with malachite; decimal up to 10^7
    /// digits, or 10^8 when this is at least 30.
    #[arg(long, default_value_t = 28)]
    reference_max: u32,
    /// Seconds on a laptop, the same checks: mul at 2^16 and 2^20 bits,
    /// dec at 10^4 and 10^5 digits (unless sizes or digits are named).
    #[arg(long)]
    quick: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One JSON object per result instead of the table.
    #[arg(long)]
    json: bool,
    /// Under mpirun: mul by the distributed NTT across the ranks (default
    /// size 2^26 bits), with the bytes per rank and one process's time.
    #[arg(long)]
    pub(crate) mpi: bool,
}

/// One row of the report.
struct Row {
    case: String,
    size: String,
    ms: f64,
    up_ms: f64,
    down_ms: f64,
    reference_ms: Option<f64>,
    /// Decimal to binary, for the conversion rows.
    from_dec_ms: Option<f64>,
    bar: String,
    check: String,
    ok: bool,
}

pub fn run(a: HugeBenchArgs) -> std::result::Result<(), CommandError> {
    if a.mpi {
        #[cfg(feature = "mpi")]
        {
            let sizes = if a.sizes.is_empty() {
                vec![26]
            } else {
                a.sizes.clone()
            };
            return super::mpi::huge(&sizes, a.runs.unwrap_or(3), a.seed);
        }
        #[cfg(not(feature = "mpi"))]
        return Err(super::no_mpi());
    }
    let engine = super::engine(&a.engine)?;
    let engine = if a.engine == "auto" && engine.is_cuda() && HugeInt::zero(&engine).is_err() {
        Engine::Cpu
    } else {
        engine
    };
    let cases = if a.cases.is_empty() {
        vec![Case::Mul, Case::Dec]
    } else {
        a.cases.clone()
    };
    let sizes = match (a.sizes.is_empty(), a.quick) {
        (false, _) => a.sizes.clone(),
        (true, true) => vec![16, 20],
        (true, false) => vec![20, 23, 26, 28, 30, 32],
    };
    let digits = match (a.digits.is_empty(), a.quick) {
        (false, _) => a.digits.clone(),
        (true, true) => vec![4, 5],
        (true, false) => vec![6, 7, 8],
    };
    if let Some(&s) = sizes.iter().find(|&&s| !(6..=34).contains(&s)) {
        return Err(CommandError::Input(format!(
            "--sizes {s}: log2 bits from 6 to 34"
        )));
    }
    if let Some(&d) = digits.iter().find(|&&d| !(1..=10).contains(&d)) {
        return Err(CommandError::Input(format!(
            "--digits {d}: log10 digits from 1 to 10"
        )));
    }
    let primes = random_primes(a.seed ^ now_nanos(), 3);
    let name = if engine.is_cuda() { "cuda" } else { "cpu" };
    if !a.json {
        println!(
            "mparray bench huge, engine {name}, {} threads; checks modulo 3 random 61-bit primes",
            rayon::current_num_threads()
        );
        println!(
            "{:<6} {:>10} {:>11} {:>9} {:>9} {:>12} {:>8}  {:<34} check",
            "case", "size", "ms", "up ms", "down ms", "malachite ms", "speedup", "bar"
        );
    }
    let mut all_ok = true;
    for case in cases {
        let list: Vec<u32> = if case == Case::Mul {
            sizes.clone()
        } else {
            digits.clone()
        };
        for k in list {
            let row = match case {
                Case::Mul => bench_mul(&engine, &a, k, &primes),
                Case::Dec => bench_dec(&engine, &a, k, &primes),
            }
            .map_err(CommandError::from)?;
            all_ok &= row.ok;
            print_row(&row, name, a.json);
        }
    }
    if all_ok {
        Ok(())
    } else {
        Err(CommandError::Other(
            "some results failed their check".into(),
        ))
    }
}

fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn print_row(r: &Row, engine: &str, json: bool) {
    if json {
        let v = serde_json::json!({
            "suite": "huge",
            "engine": engine,
            "case": r.case,
            "size": r.size,
            "ms": r.ms,
            "upload_ms": r.up_ms,
            "download_ms": r.down_ms,
            "malachite_1core_ms": r.reference_ms,
            "from_decimal_ms": r.from_dec_ms,
            "bar": r.bar,
            "check": r.check,
            "ok": r.ok,
            "threads": rayon::current_num_threads(),
        });
        println!("{v}");
        return;
    }
    let (rf, sp) = match r.reference_ms {
        Some(m) => (format!("{m:.1}"), format!("{:.2}x", m / r.ms)),
        None => ("-".into(), "-".into()),
    };
    println!(
        "{:<6} {:>10} {:>11.1} {:>9.1} {:>9.1} {:>12} {:>8}  {:<34} {}",
        r.case, r.size, r.ms, r.up_ms, r.down_ms, rf, sp, r.bar, r.check
    );
}

fn runs_for(a: &HugeBenchArgs, big: bool) -> usize {
    a.runs.unwrap_or(if big { 1 } else { 3 }).max(1)
}

/// Limbs of a random number of exactly `bits` bits.
fn random_bits(bits: u64, seed: u64) -> Vec<u64> {
    let n = bits.div_ceil(64) as usize;
    let mut l = crate::huge::random_limbs(n, seed);
    let top = ((bits - 1) % 64) as u32;
    let last = &mut l[n - 1];
    *last &= if top == 63 {
        u64::MAX
    } else {
        (1u64 << (top + 1)) - 1
    };
    *last |= 1 << top;
    l
}

fn bench_mul(engine: &Engine, a: &HugeBenchArgs, k: u32, primes: &[u64]) -> Result<Row> {
    let bits = 1u64 << k;
    let la = random_bits(bits, a.seed.wrapping_mul(31).wrapping_add(k as u64));
    let lb = random_bits(bits, a.seed.wrapping_mul(37).wrapping_add(k as u64 + 1000));
    let t = Instant::now();
    let x = HugeInt::from_limbs(engine, &la)?;
    let y = HugeInt::from_limbs(engine, &lb)?;
    engine.synchronize()?;
    let up_ms = t.elapsed().as_secs_f64() * 1e3;
    let big = k >= 30;
    let (times, prod) = time_runs(engine, usize::from(k <= 26), runs_for(a, big), || x.mul(&y))?;
    let t = Instant::now();
    let pl = prod.to_limbs()?;
    let down_ms = t.elapsed().as_secs_f64() * 1e3;
    // Check modulo each prime, and the length.
    let mut ok = pl.len() <= la.len() + lb.len() && pl.len() >= la.len() + lb.len() - 1;
    for &p in primes {
        let want = mulmod(residue(&la, p), residue(&lb, p), p);
        ok &= residue(&pl, p) == want;
    }
    drop((x, y, prod));
    let reference_ms = if a.reference && k <= a.reference_max {
        let (na, nb) = (Natural::from_limbs_asc(&la), Natural::from_limbs_asc(&lb));
        let t = Instant::now();
        let p = &na * &nb;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        ok &= p.to_limbs_asc() == pl;
        Some(ms)
    } else {
        None
    };
    let ms = median(&times);
    let bar = match (k, engine.is_cuda()) {
        (28, true) => format!("<= 25 ms: {}", pass(ms <= 25.0)),
        (28, false) if rayon::current_num_threads() >= 16 => {
            format!("<= 347 ms (1389/4, 16 cores): {}", pass(ms <= 347.0))
        }
        (28, false) => format!(
            "<= 347 ms on 16 cores (have {})",
            rayon::current_num_threads()
        ),
        (32, true) => "completes and checks".to_string(),
        _ => "-".to_string(),
    };
    Ok(Row {
        case: "mul".into(),
        size: format!("2^{k} bits"),
        ms,
        up_ms,
        down_ms,
        reference_ms,
        from_dec_ms: None,
        bar,
        check: check_text(ok, primes.len(), a.reference && k <= a.reference_max),
        ok,
    })
}

fn bench_dec(engine: &Engine, a: &HugeBenchArgs, k: u32, primes: &[u64]) -> Result<Row> {
    let digits = 10u64.pow(k);
    // A random number of exactly `digits` digits: 10^(d-1) + random below 9 10^(d-1)
    // is not cheap to draw, so draw bits just under the digit count and set
    // the top digit by construction: at least 10^(d-1) because of its bits.
    let bits = ((digits as f64 - 1.0) * std::f64::consts::LOG2_10).ceil() as u64 + 1;
    let la = random_bits(bits, a.seed.wrapping_mul(41).wrapping_add(k as u64));
    let t = Instant::now();
    let x = HugeInt::from_limbs(engine, &la)?;
    let up_ms = t.elapsed().as_secs_f64() * 1e3;
    let big = k >= 8;
    let (times, text) = time_runs(engine, 0, runs_for(a, big), || x.to_decimal())?;
    let ms_to = median(&times);
    let mut ok = !text.starts_with('0');
    for &p in primes {
        ok &= decimal_residue(text.as_bytes(), p) == residue(&la, p);
    }
    // And back: exact round trip.
    let t = Instant::now();
    let (y, _) = HugeInt::parse(engine, &text)?;
    let ms_from = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let back = y.to_limbs()?;
    let down_ms = t.elapsed().as_secs_f64() * 1e3;
    ok &= back == la;
    let refmax = if a.reference_max >= 30 { 8 } else { 7 };
    let reference_ms = if a.reference && k <= refmax {
        let n = Natural::from_limbs_asc(&la);
        let t = Instant::now();
        let s = n.to_string();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        ok &= s == text;
        Some(ms)
    } else {
        None
    };
    let bar = match (k, engine.is_cuda()) {
        (8, true) => format!("to dec < 2000 ms: {}", pass(ms_to < 2000.0)),
        (8, false) if rayon::current_num_threads() >= 16 => {
            format!("to dec < 20000 ms: {}", pass(ms_to < 20000.0))
        }
        (8, false) => format!(
            "< 20000 ms on 16 cores (have {})",
            rayon::current_num_threads()
        ),
        _ => "-".to_string(),
    };
    Ok(Row {
        case: "todec".into(),
        size: format!("{} digits", text.len()),
        ms: ms_to,
        up_ms,
        down_ms,
        reference_ms,
        from_dec_ms: Some(ms_from),
        bar: format!("{bar}; from dec {ms_from:.1} ms"),
        check: check_text(ok, primes.len(), a.reference && k <= refmax) + ", round trip",
        ok,
    })
}

fn pass(b: bool) -> &'static str {
    if b { "met" } else { "NOT met" }
}

fn check_text(ok: bool, np: usize, reference: bool) -> String {
    let how = if reference {
        format!("mod {np} primes + malachite")
    } else {
        format!("mod {np} primes")
    };
    format!("{} ({how})", if ok { "ok" } else { "FAILED" })
}

/// `sum l[i] 2^(64 i) mod p`, in parallel chunks (Horner within a chunk).
pub fn residue(l: &[u64], p: u64) -> u64 {
    const CH: usize = 1 << 14;
    let b = ((1u128 << 64) % p as u128) as u64;
    let bch = powmod(b, CH as u64, p);
    let parts: Vec<u64> = l
        .par_chunks(CH)
        .map(|c| {
            c.iter().rev().fold(0u64, |r, &x| {
                ((((r as u128) << 64) | x as u128) % p as u128) as u64
            })
        })
        .collect();
    parts
        .iter()
        .rev()
        .fold(0u64, |r, &x| (mulmod(r, bch, p) + x) % p)
}

/// The value of a decimal digit string mod `p`, in parallel chunks.
pub fn decimal_residue(s: &[u8], p: u64) -> u64 {
    const CH: usize = 1 << 16;
    let pw = powmod(10, CH as u64, p);
    // Chunks from the least significant end, all of CH digits but the top.
    let n = s.len();
    let chunks: Vec<(usize, usize)> = (0..n.div_ceil(CH))
        .map(|i| (n.saturating_sub((i + 1) * CH), n - i * CH))
        .collect();
    let parts: Vec<u64> = chunks
        .par_iter()
        .map(|&(lo, hi)| {
            s[lo..hi].iter().fold(0u64, |r, &c| {
                ((r as u128 * 10 + (c - b'0') as u128) % p as u128) as u64
            })
        })
        .collect();
    parts
        .iter()
        .rev()
        .fold(0u64, |r, &x| (mulmod(r, pw, p) + x) % p)
}

/// Deterministic Miller-Rabin for 64-bit `n`.
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for q in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n.is_multiple_of(q) {
            return n == q;
        }
    }
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    'outer: for a in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        let mut x = powmod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mulmod(x, x, n);
            if x == n - 1 {
                continue 'outer;
            }
        }
        return false;
    }
    true
}

/// `count` distinct random primes of 61 bits.
pub fn random_primes(seed: u64, count: usize) -> Vec<u64> {
    let mut s = seed | 1;
    let mut out = Vec::new();
    while out.len() < count {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let c = (s >> 3) | (1 << 60) | 1;
        if is_prime(c) && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

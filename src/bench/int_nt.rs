//! `mparray bench int --cases powm,gcd,modinv,isqrt`: number theory at 256,
//! 1024, 2048 and 4096 bits (issue 20), each result checked against
//! malachite (a sample, or all), GMP beside in the same call when a harness
//! is given (`--gmp PATH`: scripts/peers/gmpnt.c, mpz_powm / mpz_gcd /
//! mpz_invert / mpz_sqrtrem on every host core, OpenMP).
//!
//! Inputs (seeded, identical for mparray and GMP): powm: base, exponent and
//! odd modulus of W bits (top bit of the modulus set); gcd: two W-bit
//! numbers; modinv: a W-bit number and an odd W-bit modulus (top bit set);
//! isqrt: a W-bit number. Batch: 2^26 / W elements (256 bits: 262144;
//! 4096 bits: 16384), divided by 2^scale; on CUDA at least 4 blocks of 128
//! per SM (132 * 512 = 67584 elements on an H200), so that every size fills
//! the device. Times exclude transfers (inputs and outputs stay on the
//! engine). GMP's results are hashed and compared with ours (`gmp
//! agrees`). GMP runs on the whole batch when that takes under about half
//! a second a pass (a probe of 256 elements says), else on a prefix sized
//! to that, its time scaled to the batch (n / prefix; the per-element cost
//! on 16 busy cores is linear in the count); the JSON's `gmp_elements`
//! gives the count it ran.

use std::path::{Path, PathBuf};

use malachite_base::num::arithmetic::traits::{FloorSqrt, Gcd, ModInverse, ModPow};
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::{Case, Verify, median, sample_indices, time_runs};
use crate::engine::Engine;
use crate::error::{CommandError, Error, Result};
use crate::int::IntArray;

pub(super) fn is_nt(c: Case) -> bool {
    matches!(c, Case::Powm | Case::Gcd | Case::Modinv | Case::Isqrt)
}

fn name(c: Case) -> &'static str {
    match c {
        Case::Powm => "powm",
        Case::Gcd => "gcd",
        Case::Modinv => "modinv",
        _ => "isqrt",
    }
}

struct Row {
    case: Case,
    bits: u64,
    n: usize,
    median_ms: f64,
    min_ms: f64,
    checked: usize,
    ok: bool,
    /// (ms scaled to the batch, threads, agrees, elements GMP ran).
    gmp: Option<(f64, u32, bool, usize)>,
}

pub(super) struct Opts<'a> {
    pub engine: &'a Engine,
    pub cases: &'a [Case],
    pub sizes: &'a [u32],
    pub scale: u32,
    pub runs: Option<usize>,
    pub verify: Verify,
    pub seed: u64,
    pub gmp: Option<&'a Path>,
    pub json: bool,
    pub json_out: Option<&'a PathBuf>,
}

pub(super) fn run(o: Opts) -> std::result::Result<(), CommandError> {
    let sizes: Vec<u32> = if o.sizes.is_empty() {
        vec![8, 10, 11, 12]
    } else {
        o.sizes.to_vec()
    };
    let runs = o
        .runs
        .unwrap_or(if o.engine.is_cuda() { 5 } else { 3 })
        .max(1);
    if !o.json {
        println!(
            "mparray bench int (number theory): engine {}, 2^{} bits per batch{}, median of {runs} runs, verify {:?}{}",
            o.engine.describe(),
            26 - o.scale.min(26),
            if o.engine.is_cuda() {
                " (at least 4 blocks of 128 per SM)"
            } else {
                ""
            },
            o.verify,
            if o.gmp.is_some() {
                ", GMP beside on all host cores"
            } else {
                ""
            }
        );
        println!(
            "{:>6} {:>7} {:>8} {:>11} {:>10} {:>11} {:>11} {:>8} {:>6}",
            "bits", "case", "n", "median ms", "ns/elem", "check", "GMP ms", "vs GMP", "agree"
        );
    }
    let mut rows = Vec::new();
    for &lg in &sizes {
        for &c in o.cases {
            let bits = 1u64 << lg;
            let fill = match o.engine {
                Engine::Cuda(e) => e.info().sms.max(1) as usize * 4 * 128,
                Engine::Cpu => 1,
            };
            let n = ((1usize << 26) >> lg >> o.scale).max(fill);
            let r = bench(&o, c, bits, n, runs)?;
            if !o.json {
                let g = r
                    .gmp
                    .map_or(("-".into(), "-".into(), "-".into()), |(ms, _, agree, _)| {
                        (
                            format!("{ms:.3}"),
                            format!("{:.1}x", ms / r.median_ms),
                            if agree { "yes" } else { "NO" }.to_string(),
                        )
                    });
                println!(
                    "{:>6} {:>7} {:>8} {:>11.3} {:>10.1} {:>11} {:>11} {:>8} {:>6}",
                    bits,
                    name(c),
                    n,
                    r.median_ms,
                    r.median_ms * 1e6 / n as f64,
                    if r.ok {
                        format!("ok ({})", r.checked)
                    } else {
                        "MISMATCH".into()
                    },
                    g.0,
                    g.1,
                    g.2
                );
            }
            rows.push(r);
        }
    }
    let json = to_json(o.engine, o.scale, runs, &rows);
    if o.json {
        println!("{json}");
    }
    if let Some(p) = o.json_out {
        std::fs::write(p, json + "\n")
            .map_err(|e| CommandError::Other(format!("{}: {e}", p.display())))?;
    }
    if rows.iter().any(|r| !r.ok || r.gmp.is_some_and(|g| !g.2)) {
        return Err(CommandError::Other(
            "some results did not match the reference".into(),
        ));
    }
    Ok(())
}

fn to_json(engine: &Engine, scale: u32, runs: usize, rows: &[Row]) -> String {
    let items: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "num_bits": r.bits,
                "num_insts": r.n,
                "case": name(r.case),
                "median_ms": r.median_ms,
                "min_ms": r.min_ms,
                "checked": r.checked,
                "check_ok": r.ok,
                "gmp_ms": r.gmp.map(|g| g.0),
                "gmp_threads": r.gmp.map(|g| g.1),
                "gmp_agrees": r.gmp.map(|g| g.2),
                "gmp_elements": r.gmp.map(|g| g.3),
                "speedup_vs_gmp": r.gmp.map(|g| g.0 / r.median_ms),
            })
        })
        .collect();
    serde_json::json!({
        "suite": "int-nt",
        "engine": engine.describe(),
        "scale": scale,
        "runs": runs,
        "results": items,
    })
    .to_string()
}

/// The case's operands on the host (limbs).
fn inputs(c: Case, bits: u64, n: usize, seed: u64) -> Result<Vec<Vec<u64>>> {
    let l = (bits / 64) as usize;
    let s = seed.wrapping_mul(1000).wrapping_add(bits);
    let rnd = |k: u64| -> Result<Vec<u64>> {
        IntArray::random(&Engine::Cpu, n, bits, s ^ k.wrapping_mul(0x9E37_79B9))?.to_limbs()
    };
    let odd_top = |mut v: Vec<u64>| {
        v.par_chunks_mut(l).for_each(|x| {
            x[0] |= 1;
            x[l - 1] |= 1 << 63;
        });
        v
    };
    Ok(match c {
        Case::Powm => vec![rnd(1)?, rnd(2)?, odd_top(rnd(3)?)],
        Case::Gcd => vec![rnd(1)?, rnd(2)?],
        Case::Modinv => vec![rnd(1)?, odd_top(rnd(3)?)],
        _ => vec![rnd(1)?],
    })
}

fn bench(o: &Opts, c: Case, bits: u64, n: usize, runs: usize) -> Result<Row> {
    let l = (bits / 64) as usize;
    let host = inputs(c, bits, n, o.seed)?;
    let arrs: Vec<IntArray> = host
        .iter()
        .map(|v| IntArray::from_limbs(bits, v.clone())?.into_engine(o.engine))
        .collect::<Result<_>>()?;
    let (times, outs) = time_runs(o.engine, 1, runs, || -> Result<Vec<IntArray>> {
        Ok(match c {
            Case::Powm => vec![arrs[0].powm(&arrs[1], &arrs[2])?],
            Case::Gcd => vec![arrs[0].gcd(&arrs[1])?],
            Case::Modinv => vec![arrs[0].modinv_flagged(&arrs[1])?.0],
            _ => {
                let (s, r) = arrs[0].isqrt()?;
                vec![s, r]
            }
        })
    })?;
    let outs: Vec<Vec<u64>> = outs.iter().map(|x| x.to_limbs()).collect::<Result<_>>()?;
    let idx = match o.verify {
        Verify::All => (0..n).collect(),
        Verify::Sample => sample_indices(n, 64, o.seed),
    };
    let nat = |v: &[u64], i: usize| Natural::from_limbs_asc(&v[i * l..(i + 1) * l]);
    let ok = idx.par_iter().all(|&i| {
        let got = nat(&outs[0], i);
        let a = nat(&host[0], i);
        match c {
            Case::Powm => {
                let m = nat(&host[2], i);
                got == (a % &m).mod_pow(nat(&host[1], i), &m)
            }
            Case::Gcd => got == a.gcd(nat(&host[1], i)),
            Case::Modinv => {
                let m = nat(&host[1], i);
                let r = a % &m;
                let want = if r == 0u32 { None } else { r.mod_inverse(&m) };
                got == want.unwrap_or_default()
            }
            _ => {
                let s = a.clone().floor_sqrt();
                let r = &a - &s * &s;
                got == s && nat(&outs[1], i) == r
            }
        }
    });
    let gmp = match o.gmp {
        Some(p) => Some(gmp_scaled(p, c, bits, n, runs, &host, &outs)?),
        None => None,
    };
    let min = times.iter().cloned().fold(f64::INFINITY, f64::min);
    Ok(Row {
        case: c,
        bits,
        n,
        median_ms: median(&times),
        min_ms: min,
        checked: idx.len(),
        ok,
        gmp,
    })
}

/// The harness's hash of result limbs (keep in step with gmpnt.c).
fn hash(outs: &[Vec<u64>]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for o in outs {
        for &x in o {
            h = (h ^ x).wrapping_mul(0x0000_0100_0000_01b3);
            h ^= h >> 29;
        }
    }
    h
}

/// GMP on the batch, or on a prefix of it when the whole would take more
/// than about half a second a pass: (ms scaled to n, threads, agrees,
/// elements run).
fn gmp_scaled(
    p: &Path,
    c: Case,
    bits: u64,
    n: usize,
    runs: usize,
    host: &[Vec<u64>],
    outs: &[Vec<u64>],
) -> Result<(f64, u32, bool, usize)> {
    const TARGET_MS: f64 = 500.0;
    let probe = n.min(256);
    let mut k = n;
    if n > probe {
        let (ms, _, _) = run_gmp(p, c, bits, n, probe, 1, host, outs)?;
        let per = ms.max(1e-6) / probe as f64;
        if per * n as f64 > TARGET_MS {
            k = ((TARGET_MS / per) as usize).clamp(probe, n);
        }
    }
    let (ms, th, agree) = run_gmp(p, c, bits, n, k, runs, host, outs)?;
    Ok((ms * n as f64 / k as f64, th, agree, k))
}

/// Runs the GMP harness on the first k of the n elements of the inputs:
/// (median ms, threads, agrees with our first k results).
#[allow(clippy::too_many_arguments)]
fn run_gmp(
    p: &Path,
    c: Case,
    bits: u64,
    n: usize,
    k: usize,
    runs: usize,
    host: &[Vec<u64>],
    outs: &[Vec<u64>],
) -> Result<(f64, u32, bool)> {
    let l = (bits / 64) as usize;
    debug_assert!(host.iter().all(|v| v.len() == n * l));
    let dir = std::env::temp_dir().join(format!("mparray-gmpnt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?;
    let f = dir.join("in.bin");
    let mut bytes = Vec::with_capacity(host.iter().map(|v| v.len() * 8).sum());
    for v in host {
        for x in &v[..k * l] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(&f, bytes).map_err(|e| Error::Invalid(format!("{}: {e}", f.display())))?;
    let out = std::process::Command::new(p)
        .args([
            name(c),
            &bits.to_string(),
            &k.to_string(),
            &runs.to_string(),
        ])
        .arg(&f)
        .output()
        .map_err(|e| Error::Invalid(format!("running {}: {e}", p.display())));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "ms THREADS HASH"
    let mut it = text.split_whitespace();
    let parsed = (|| {
        let ms: f64 = it.next()?.parse().ok()?;
        let th: u32 = it.next()?.parse().ok()?;
        let h = u64::from_str_radix(it.next()?, 16).ok()?;
        Some((ms, th, h))
    })();
    match parsed {
        Some((ms, th, h)) if out.status.success() => {
            let prefix: Vec<Vec<u64>> = outs.iter().map(|o| o[..k * l].to_vec()).collect();
            Ok((ms, th, h == hash(&prefix)))
        }
        _ => Err(Error::Invalid(format!(
            "{} {}: unexpected output {text:?} {}",
            p.display(),
            name(c),
            String::from_utf8_lossy(&out.stderr)
        ))),
    }
}

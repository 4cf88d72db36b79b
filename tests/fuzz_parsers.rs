//! Fuzzing every text reader and every CLI calculator on stable Rust:
//! random text and structured near-valid inputs (valid numbers mutated:
//! extra signs, huge exponents, `0x1p`, `inf`/`nan` variants, white space,
//! underscores, NUL and other UTF-8 characters, very long digit strings).
//!
//! - integers (`int::parse::parse_one`) against a reference reading of the
//!   documented grammar with malachite-nz;
//! - float text (decimal, hex, binary, specials, every precision class and
//!   rounding mode) against malachite-float's `strtofr`, a port of MPFR's
//!   `mpfr_strtofr` (a line is valid when MPFR reads all of it, as
//!   `mpfr_set_str`): every accepted line must be MPFR's value with MPFR's
//!   ternary, and every line MPFR accepts must be accepted;
//! - huge-number files (`HugeInt::parse_bytes`) against malachite-nz, bad
//!   characters named with their line and column;
//! - Matrix Market files (`linalg::market`): every value of an accepted
//!   file equal to MPFR's reading, every bad value line named as
//!   `file:line:`;
//! - the CLI calculators (`int`, `float`, `complex`, `huge`, `blas`) as
//!   processes on files with one fuzzed line: exit 0, or exit 2 naming the
//!   file and the bad line; never a panic (101), a signal or a hang.
//!
//! No panic anywhere (each input under `catch_unwind`), no hang (a watchdog
//! aborts with the input if one input takes over `MPARRAY_FUZZ_HANG_S`
//! seconds, default 120). Input counts scale with `MPARRAY_FUZZ_SCALE`
//! (default 1: a few seconds in CI; notes/fuzz.md records the long run).
//! Fresh seed per run (printed; `MPARRAY_TEST_SEED` replays).
mod common;

use std::cmp::Ordering;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering as AO};
use std::time::{Duration, Instant};

use malachite_base::num::conversion::traits::FromStringBase;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_float::float::conversion::string::strtofr::strtofr;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::natural::Natural;
use mparray::float::to_rounding_mode;
use mparray::huge::HugeInt;
use mparray::int::parse::parse_one;
use mparray::linalg::market;
use mparray::{Engine, Error, FloatArray, Round};
use rayon::prelude::*;

use common::{Rng, Tmp};

// ---------------------------------------------------------------- harness

/// `base` inputs times `MPARRAY_FUZZ_SCALE`.
fn count(base: u64) -> u64 {
    let s: f64 = std::env::var("MPARRAY_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((base as f64) * s).max(1.0) as u64
}

/// Per-thread record of the input in progress, read by the watchdog.
/// The input in progress on one thread: its start and description.
type Slot = Mutex<Option<(Instant, String)>>;

static SLOTS: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

thread_local! {
    static SLOT: &'static Mutex<Option<(Instant, String)>> = {
        let s: &'static Mutex<Option<(Instant, String)>> = Box::leak(Box::new(Mutex::new(None)));
        SLOTS.lock().unwrap().push(s);
        s
    };
}

/// Starts the watchdog once: an input running longer than the limit is a
/// hang; it is printed and the process aborts.
fn watchdog() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let limit = std::env::var("MPARRAY_FUZZ_HANG_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120u64);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                for s in SLOTS.lock().unwrap().iter() {
                    if let Some((t, what)) = &*s.lock().unwrap()
                        && t.elapsed() > Duration::from_secs(limit)
                    {
                        eprintln!("HANG: one input ran over {limit} s: {what}");
                        std::process::abort();
                    }
                }
            }
        });
    });
}

/// Runs `f` on one input (described by `what`) under the watchdog and
/// `catch_unwind`; a panic is returned as an error message.
fn guarded<T>(what: impl FnOnce() -> String, f: impl FnOnce() -> T) -> Result<T, String> {
    SLOT.with(|s| *s.lock().unwrap() = Some((Instant::now(), what())));
    let r = catch_unwind(AssertUnwindSafe(f));
    SLOT.with(|s| *s.lock().unwrap() = None);
    r.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

/// Failures (the first few kept) and counters of one fuzz target.
struct Report {
    name: &'static str,
    failures: Mutex<Vec<String>>,
    n_fail: AtomicU64,
    counters: Vec<(&'static str, AtomicU64)>,
}

impl Report {
    fn new(name: &'static str, counters: &[&'static str]) -> Report {
        Report {
            name,
            failures: Mutex::new(Vec::new()),
            n_fail: AtomicU64::new(0),
            counters: counters.iter().map(|&c| (c, AtomicU64::new(0))).collect(),
        }
    }
    fn fail(&self, m: String) {
        self.n_fail.fetch_add(1, AO::Relaxed);
        let mut f = self.failures.lock().unwrap();
        if f.len() < 20 {
            f.push(m);
        }
    }
    fn bump(&self, c: &str) {
        if let Some((_, n)) = self.counters.iter().find(|(k, _)| *k == c) {
            n.fetch_add(1, AO::Relaxed);
        }
    }
    fn finish(self, total: u64, t: Instant) {
        let c: Vec<String> = self
            .counters
            .iter()
            .map(|(k, n)| format!("{k} {}", n.load(AO::Relaxed)))
            .collect();
        eprintln!(
            "fuzz {}: {total} inputs in {:.1} s: {}; failures {}",
            self.name,
            t.elapsed().as_secs_f64(),
            c.join(", "),
            self.n_fail.load(AO::Relaxed)
        );
        let f = self.failures.into_inner().unwrap();
        assert!(
            f.is_empty(),
            "{}: {} failures:\n{}",
            self.name,
            f.len(),
            f.join("\n")
        );
    }
}

/// Runs `one(rng, i)` for `n` inputs in parallel blocks, each block with
/// its own generator seeded from `seed`.
fn drive(n: u64, seed: u64, one: impl Fn(&mut Rng, u64) + Sync) {
    watchdog();
    const BLOCK: u64 = 256;
    (0..n.div_ceil(BLOCK)).into_par_iter().for_each(|b| {
        let mut r = Rng(seed ^ b.wrapping_mul(0x2545_f491_4f6c_dd1d));
        for i in b * BLOCK..((b + 1) * BLOCK).min(n) {
            one(&mut r, i);
        }
    });
}

// ------------------------------------------------------------- generators

/// Characters mutations insert: the grammar's own, white space of every
/// kind, NUL, and non-ASCII digits, letters and signs.
const ALPHABET: &[char] = &[
    '0',
    '1',
    '5',
    '9',
    'a',
    'f',
    'A',
    'F',
    'x',
    'X',
    'p',
    'P',
    'e',
    'E',
    'b',
    'B',
    '.',
    '+',
    '-',
    '_',
    '@',
    ' ',
    '\t',
    '\r',
    '\u{b}',
    '\u{c}',
    '\0',
    'i',
    'n',
    'I',
    'N',
    't',
    'y',
    '(',
    ')',
    ',',
    '\u{a0}',
    '\u{2003}',
    '\u{feff}',
    'é',
    '∞',
    '٣',
    '−',
    '\u{1F600}',
    '\u{85}',
    '0',
    '0',
    '1',
];

impl Rng {
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
    fn digit_run(&mut self, set: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| set[self.index(set.len())] as char)
            .collect()
    }
    /// A digit count: mostly short, sometimes long, rarely very long.
    fn digit_len(&mut self) -> usize {
        match self.below(100) {
            0 => 2000 + self.index(20000),
            1..=3 => 100 + self.index(1000),
            4..=20 => 20 + self.index(60),
            _ => self.index(22),
        }
    }
    fn sign(&mut self) -> &'static str {
        match self.below(10) {
            0 => "-",
            1 => "+",
            2 => "-",
            _ => "",
        }
    }
    /// A decimal exponent value: small, moderate, near the ends of the
    /// range (decimal and binary), or absurd.
    fn exp_value(&mut self, binary: bool) -> String {
        let v: i128 = match self.below(20) {
            0..=7 => self.range(-40, 40) as i128,
            8..=10 => self.range(-3000, 3000) as i128,
            11 => self.range(-400_000, 400_000) as i128,
            12 | 13 => {
                let edge: i64 = if binary {
                    *[
                        1_073_741_823i64,
                        1_073_741_824,
                        1_073_741_822,
                        1_073_741_890,
                    ]
                    .get(self.index(4))
                    .unwrap()
                } else {
                    323_228_496
                };
                (edge + self.range(-70, 70)) as i128 * if self.chance(1, 2) { -1 } else { 1 }
            }
            14 => (self.next() as i64) as i128,
            15 => 999_999_999_999_999_999_999_999i128 * if self.chance(1, 2) { -1 } else { 1 },
            16 => (1i128 << 62) + self.range(-3, 3) as i128,
            17 => -(1i128 << 63) + self.range(-3, 3) as i128,
            _ => self.range(-1_200_000_000, 1_200_000_000) as i128,
        };
        let s = v.unsigned_abs().to_string();
        let zeros = if self.chance(1, 10) {
            "0".repeat(self.index(30))
        } else {
            String::new()
        };
        let sign = if v < 0 {
            "-"
        } else if self.chance(1, 4) {
            "+"
        } else {
            ""
        };
        format!("{sign}{zeros}{s}")
    }
    /// A valid number as `mparray float` (and MPFR) reads it.
    fn float_text(&mut self) -> String {
        let sign = self.sign();
        match self.below(20) {
            0..=9 => {
                // Decimal.
                let (il, fl) = (self.digit_len(), self.digit_len());
                let (il, fl) = if il + fl == 0 { (1, 0) } else { (il, fl) };
                let mut s = String::from(sign);
                if self.chance(1, 8) {
                    s.push_str(&"0".repeat(self.index(40)));
                }
                s.push_str(&self.digit_run(b"0123456789", il));
                if fl > 0 || self.chance(1, 6) {
                    s.push('.');
                    s.push_str(&self.digit_run(b"0123456789", fl));
                    if s.ends_with('.') && il == 0 {
                        s.push('5');
                    }
                }
                if self.chance(1, 2) {
                    s.push(['e', 'E', '@'][self.index(3)]);
                    s.push_str(&self.exp_value(false));
                }
                s
            }
            10..=14 => {
                // Hex float.
                let (il, fl) = (self.digit_len() / 2, self.digit_len() / 2);
                let (il, fl) = if il + fl == 0 { (1, 0) } else { (il, fl) };
                let set = b"0123456789abcdefABCDEF";
                let mut s = format!("{sign}{}", ["0x", "0X"][self.index(2)]);
                s.push_str(&self.digit_run(set, il));
                if fl > 0 {
                    s.push('.');
                    s.push_str(&self.digit_run(set, fl));
                }
                if self.chance(2, 3) {
                    s.push(['p', 'P'][self.index(2)]);
                    s.push_str(&self.exp_value(true));
                }
                s
            }
            15 => {
                let (il, fl) = (self.digit_len() * 2, self.digit_len());
                let (il, fl) = if il + fl == 0 { (1, 0) } else { (il, fl) };
                let mut s = format!("{sign}{}", ["0b", "0B"][self.index(2)]);
                s.push_str(&self.digit_run(b"01", il));
                if fl > 0 {
                    s.push('.');
                    s.push_str(&self.digit_run(b"01", fl));
                }
                if self.chance(1, 2) {
                    s.push(['p', 'P'][self.index(2)]);
                    s.push_str(&self.exp_value(true));
                }
                s
            }
            16 | 17 => {
                let w = [
                    "inf", "Inf", "INF", "infinity", "Infinity", "INFINITY", "nan", "NaN", "NAN",
                    "@inf@", "@NaN@", "@Inf@",
                ];
                format!("{sign}{}", w[self.index(w.len())])
            }
            _ => {
                // Zeros and small exact values.
                let w = [
                    "0",
                    "0.0",
                    "-0",
                    "00",
                    "0e0",
                    "0x0",
                    "0x0p99999999999",
                    "1",
                    "0.5",
                    "0x1p-1073741825",
                    "0x1p1073741823",
                    "0x1p1073741822",
                    "0x.8p-1073741822",
                    "0x1.fffffffffffffp1073741822",
                    "1e-323228497",
                    "1e323228496",
                ];
                let w = w[self.index(w.len())];
                // One sign at most ("+-0" is not a number).
                if w.starts_with('-') {
                    w.to_string()
                } else {
                    format!("{sign}{w}")
                }
            }
        }
    }
    /// An integer as `mparray int` reads it, sized around `bits`.
    fn int_text(&mut self, bits: u64) -> String {
        match self.below(6) {
            0 => {
                // Around 2^bits.
                let v = (Natural::from(1u32) << bits) - Natural::from(self.below(3));
                let v = v + Natural::from(self.below(3));
                if self.chance(1, 2) {
                    format!("{v:#x}")
                } else {
                    v.to_string()
                }
            }
            1 | 2 => {
                let n = self.digit_len();
                format!(
                    "{}{}",
                    ["0x", "0X"][self.index(2)],
                    self.digit_run(b"0123456789abcdefABCDEF", n)
                )
            }
            _ => {
                let n = self.digit_len().max(1);
                let lead = if self.chance(1, 6) {
                    "0".repeat(self.index(30))
                } else {
                    String::new()
                };
                format!("{lead}{}", self.digit_run(b"0123456789", n))
            }
        }
    }
    /// One to three mutations of `s`.
    fn mutate(&mut self, s: &str) -> String {
        let mut c: Vec<char> = s.chars().collect();
        for _ in 0..1 + self.index(3) {
            let at = self.index(c.len() + 1);
            let ch = ALPHABET[self.index(ALPHABET.len())];
            match self.below(9) {
                0 | 1 => c.insert(at, ch),
                2 if at < c.len() => {
                    c.remove(at);
                }
                3 if at < c.len() => c[at] = ch,
                4 => {
                    // Repeat a slice.
                    let b = self.index(c.len() + 1);
                    let (lo, hi) = (at.min(b), at.max(b));
                    let piece: Vec<char> = c[lo..hi].to_vec();
                    for (k, x) in piece.into_iter().enumerate() {
                        c.insert(hi + k, x);
                    }
                }
                5 => c.truncate(at),
                6 => {
                    let ws = [" ", "\t", "\r", "  \t", "\u{a0}", "\u{2003}", "\u{b}"];
                    let w: Vec<char> = ws[self.index(ws.len())].chars().collect();
                    if self.chance(1, 2) {
                        c.splice(0..0, w);
                    } else {
                        c.extend(w);
                    }
                }
                7 => {
                    let p = ["+", "-", "--", "+-", "0x", "0b", "e", "p", "."];
                    let w: Vec<char> = p[self.index(p.len())].chars().collect();
                    c.splice(at..at, w);
                }
                _ => {
                    let t = [
                        "e",
                        "p",
                        "e-",
                        "p+",
                        "@",
                        "e999999999999",
                        "p-99999999999999",
                    ];
                    c.extend(t[self.index(t.len())].chars());
                }
            }
        }
        c.into_iter().collect()
    }
    /// Random text: ASCII, the alphabet, or any Unicode scalar values.
    fn random_text(&mut self) -> String {
        let n = self.index(24);
        (0..n)
            .map(|_| match self.below(3) {
                0 => (0x20 + self.below(95) as u8) as char,
                1 => ALPHABET[self.index(ALPHABET.len())],
                _ => char::from_u32(self.below(0x11_0000) as u32).unwrap_or('\u{fffd}'),
            })
            .collect()
    }
    /// A line for a float reader: valid, mutated or random (no line end).
    fn float_line(&mut self) -> String {
        let s = match self.below(20) {
            0..=8 => self.float_text(),
            9..=17 => {
                let v = self.float_text();
                self.mutate(&v)
            }
            _ => self.random_text(),
        };
        s.replace('\n', " ")
    }
    fn int_line(&mut self, bits: u64) -> String {
        let s = match self.below(20) {
            0..=8 => self.int_text(bits),
            9..=17 => {
                let v = self.int_text(bits);
                self.mutate(&v)
            }
            _ => self.random_text(),
        };
        s.replace('\n', " ")
    }
    fn prec(&mut self) -> u64 {
        match self.below(16) {
            0 => 1,
            1 => 2,
            2 => 3,
            3 => 24,
            4 => 53,
            5 => 64,
            6 => 65,
            7 => 113,
            8 => 128,
            9 => 129,
            10 => 1000,
            11 => 3000 + self.below(3000),
            _ => 1 + self.below(300),
        }
    }
    fn round(&mut self) -> Round {
        Round::ALL[self.index(5)]
    }
}

/// Shortened for messages.
fn show(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    if c.len() <= 120 {
        format!("{s:?}")
    } else {
        let head: String = c[..60].iter().collect();
        let tail: String = c[c.len() - 40..].iter().collect();
        format!("{head:?}...({} chars)...{tail:?}", c.len())
    }
}

// ------------------------------------------------------------- references

/// MPFR's reading (`mpfr_set_str`, base 0) of a line with the white space
/// around it removed: None when MPFR rejects it.
fn mpfr_read(s: &str, p: u64, rnd: Round) -> Option<(Float, Ordering)> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let t = tame_exponent(t);
    let (x, o, used) = strtofr(&t, 0, p, to_rounding_mode(rnd));
    (used == t.len()).then_some((x, o))
}

/// malachite-float 0.14's `strtofr` wraps exponents of 2^63 and more
/// (`0x1p999999999999999999999` reads as a tiny number; MPFR 4.2 gives
/// +Inf): an exponent of more than 15 digits (beyond the range however
/// the mantissa is written, up to 10^6 digits) is replaced by 10^15 - 1.
fn tame_exponent(t: &str) -> String {
    let b = t.as_bytes();
    let body = t.trim_start_matches(['+', '-']).to_ascii_lowercase();
    let hex = body.starts_with("0x");
    let marker = b
        .iter()
        .rposition(|&c| matches!(c, b'p' | b'P' | b'@') || (!hex && matches!(c, b'e' | b'E')));
    if let Some(i) = marker {
        let rest = &t[i + 1..];
        let (sign, digits) = match rest.as_bytes().first() {
            Some(b'+' | b'-') => rest.split_at(1),
            _ => ("", rest),
        };
        let d = digits.trim_start_matches('0');
        if d.len() > 15 && d.bytes().all(|c| c.is_ascii_digit()) && t.len() < 1_000_000 {
            return format!("{}{sign}999999999999999", &t[..=i]);
        }
    }
    t.to_string()
}

/// The same float, specials included (precision ignored for them).
fn same_float(a: &Float, b: &Float) -> bool {
    ComparableFloatRef(a) == ComparableFloatRef(b) || (a.is_nan() && b.is_nan())
}

/// Our reading of one float line: the value and the ternary, or the error.
fn ours_float(s: &str, p: u64, rnd: Round) -> Result<(Float, i8), Error> {
    let (a, t) = FloatArray::from_strs_ternary(p, &[s], rnd)?;
    Ok((a.to_float(0)?, t.to_vec()?[0]))
}

/// Checks one float line; `what` says where it came from.
fn check_float_line(rep: &Report, s: &str, p: u64, rnd: Round) {
    let r = guarded(
        || format!("float {} p={p} {rnd:?}", show(s)),
        || (ours_float(s, p, rnd), mpfr_read(s, p, rnd)),
    );
    let (ours, mpfr) = match r {
        Ok(v) => v,
        Err(m) => return rep.fail(format!("PANIC {m}: {} p={p} {rnd:?}", show(s))),
    };
    match (ours, mpfr) {
        (Ok((x, t)), Some((y, o))) => {
            rep.bump("accepted");
            if !same_float(&x, &y) || t != o as i8 {
                rep.fail(format!(
                    "{} p={p} {rnd:?}: ours {x:#x} ternary {t}, MPFR {y:#x} ternary {}",
                    show(s),
                    o as i8
                ));
            }
        }
        (Ok((x, _)), None) => rep.fail(format!(
            "{} p={p}: accepted as {x:#x} but MPFR rejects it",
            show(s)
        )),
        (Err(Error::Parse { index: 0, .. }), None) => rep.bump("rejected"),
        (Err(Error::Parse { index: 0, .. }), Some((y, _))) => {
            rep.fail(format!("{} p={p}: rejected but MPFR reads {y:#x}", show(s)));
        }
        (Err(e), _) => rep.fail(format!("{} p={p}: unexpected error {e}", show(s))),
    }
}

/// The documented integer grammar: trimmed, decimal digits or `0x` and hex
/// digits. Ok(value) or Err(()) for malformed text.
fn int_reference(s: &str) -> Result<Natural, ()> {
    let t = s.trim();
    let (d, base) = match t.as_bytes() {
        [b'0', b'x' | b'X', ..] => (&t[2..], 16),
        _ => (t, 10),
    };
    if d.is_empty() || !d.bytes().all(|c| (c as char).is_digit(base)) {
        return Err(());
    }
    Natural::from_string_base(base as u8, d).ok_or(())
}

fn check_int_line(rep: &Report, s: &str, bits: u64) {
    let limbs = (bits / 64) as usize;
    let r = guarded(
        || format!("int {} bits={bits}", show(s)),
        || {
            let mut out = vec![u64::MAX; limbs];
            (parse_one(s, 3, &mut out).map(|()| out), int_reference(s))
        },
    );
    let (ours, want) = match r {
        Ok(v) => v,
        Err(m) => return rep.fail(format!("PANIC {m}: int {} bits={bits}", show(s))),
    };
    match (ours, want) {
        (Ok(l), Ok(v)) => {
            rep.bump("accepted");
            if Natural::from_limbs_asc(&l) != v {
                rep.fail(format!("{}: read {l:x?}, expected {v}", show(s)));
            }
        }
        (
            Err(Error::TooWide {
                index: 3,
                needed,
                width,
            }),
            Ok(v),
        ) => {
            rep.bump("too wide");
            if width != bits || needed != v.significant_bits() || needed <= bits {
                rep.fail(format!(
                    "{}: too wide {needed}/{width} for a {} bit value",
                    show(s),
                    v.significant_bits()
                ));
            }
        }
        (
            Err(Error::Parse {
                index: 3, reason, ..
            }),
            Err(()),
        ) => {
            rep.bump("rejected");
            if reason.is_empty() {
                rep.fail(format!("{}: no reason", show(s)));
            }
        }
        (o, w) => rep.fail(format!(
            "int {} bits={bits}: ours {o:?}, reference {w:?}",
            show(s)
        )),
    }
}

// -------------------------------------------------------------------- tests

#[test]
fn fuzz_int_parser() {
    let (seed, n, t) = (common::seed(), count(100_000), Instant::now());
    let rep = Report::new("int", &["accepted", "too wide", "rejected"]);
    drive(n, seed, |r, _| {
        let bits = [64u64, 128, 192, 256, 512, 4096][r.index(6)];
        let s = r.int_line(bits);
        check_int_line(&rep, &s, bits);
    });
    rep.finish(n, t);
}

#[test]
fn fuzz_float_parser() {
    let (seed, n, t) = (common::seed(), count(60_000), Instant::now());
    let rep = Report::new("float", &["accepted", "rejected"]);
    drive(n, seed, |r, _| {
        let (s, p, rnd) = (r.float_line(), r.prec(), r.round());
        check_float_line(&rep, &s, p, rnd);
    });
    rep.finish(n, t);
}

/// Hand-picked lines near the grammar's and the range's edges, each at
/// several precisions and every rounding mode (a fixed set: the regression
/// cases of the fuzzer go here too).
#[test]
fn float_parser_edges() {
    let lines = [
        "1e999999999999",
        "-1e999999999999",
        "1e-999999999999",
        "0x1p",
        "0x1p+",
        "0x",
        "0x.",
        "0x.p1",
        ".",
        "-.",
        "+",
        "e5",
        "1e",
        "1e+",
        "1.e5",
        ".5e-3",
        "5.",
        "1@5",
        "1@",
        "0x1@2",
        "0b1@2",
        "0b1.1e5",
        "0B1E-3",
        "0x1@-2",
        "0x1.8@1p3",
        "nan(abc)",
        "nan(",
        "nan()",
        "nan(a-b)",
        "-nan",
        "+inf",
        "infinit",
        "infinityy",
        "@inf",
        "@nan@x",
        "1_000",
        "1,5",
        "1 5",
        "\t1.5\r",
        "\u{a0}1",
        "1\0",
        "0x1p1073741823",
        "0x1p1073741822",
        "0x1.8p1073741822",
        "0x1p-1073741825",
        "0x1p-1073741826",
        "0x1.8p-1073741826",
        "0x1.0000000001p-1073741826",
        "1e323228496",
        "2e323228496",
        "1.8e323228496",
        "1e-323228497",
        "3e-323228497",
        "2.5e-323228497",
        "4.7e-323228497",
        "0x1p99999999999999999999999",
        "0x1p-99999999999999999999999",
        "0e99999999999999",
        "0x0p-99999999999999999",
        "00000000000000000000001e-20",
        "0.0000000000000000000001e22",
        "1e-0",
        "1e+0",
        "-0",
        "-0x0",
        "0B1.1P1",
        "0X1.8P1",
        "1E1",
        "٣",
        "−1",
        "1e٣",
        "0x1p٣",
    ];
    let rep = Report::new("float edges", &["accepted", "rejected"]);
    let mut n = 0;
    for s in lines {
        for p in [1u64, 2, 3, 53, 64, 65, 200] {
            for rnd in Round::ALL {
                check_float_line(&rep, s, p, rnd);
                n += 1;
            }
        }
    }
    rep.finish(n, Instant::now());
}

/// `HugeInt::parse_bytes`: random and near-valid bytes; values against
/// malachite, errors naming the line and column of the first bad byte.
#[test]
fn fuzz_huge_parser() {
    let (seed, n, t) = (common::seed(), count(20_000), Instant::now());
    let rep = Report::new("huge", &["accepted", "rejected"]);
    drive(n, seed, |r, _| {
        let mut b: Vec<u8> = match r.below(10) {
            0..=3 => {
                let bits = 64 * (1 + r.below(64));
                r.int_line(bits).into_bytes()
            }
            4..=7 => {
                let bits = 64 * (1 + r.below(200));
                let v = r.int_text(bits);
                r.mutate(&v).into_bytes()
            }
            _ => (0..r.index(40)).map(|_| r.next() as u8).collect(),
        };
        if r.chance(1, 5) {
            let pad = [&b"\n"[..], b"\r\n", b" ", b"\xef\xbb\xbf", b"\n\n\t"][r.index(5)];
            if r.chance(1, 2) {
                b.splice(0..0, pad.iter().copied());
            } else {
                b.extend_from_slice(pad);
            }
        }
        let res = guarded(
            || format!("huge {:?}", String::from_utf8_lossy(&b[..b.len().min(100)])),
            || HugeInt::parse_bytes(&Engine::Cpu, &b).and_then(|(h, _)| h.to_limbs()),
        );
        let want = huge_reference(&b);
        match (res, want) {
            (Err(m), _) => rep.fail(format!("PANIC {m}: {:?}", String::from_utf8_lossy(&b))),
            (Ok(Ok(l)), Ok(v)) => {
                rep.bump("accepted");
                if Natural::from_limbs_asc(&l) != v {
                    rep.fail(format!(
                        "{:?}: read {l:x?}, expected {v}",
                        String::from_utf8_lossy(&b)
                    ));
                }
            }
            (Ok(Err(Error::Parse { reason, .. })), Err(pos)) => {
                rep.bump("rejected");
                if let Some(p) = pos {
                    let line = b[..p].iter().filter(|&&c| c == b'\n').count() + 1;
                    let col = p - b[..p]
                        .iter()
                        .rposition(|&c| c == b'\n')
                        .map_or(0, |i| i + 1)
                        + 1;
                    if !reason.contains(&format!("(line {line}, column {col})")) {
                        rep.fail(format!(
                            "{:?}: {reason:?} does not name line {line} column {col}",
                            String::from_utf8_lossy(&b)
                        ));
                    }
                }
            }
            (o, w) => rep.fail(format!(
                "huge {:?}: ours {o:?}, reference {w:?}",
                String::from_utf8_lossy(&b)
            )),
        }
    });
    rep.finish(n, t);
}

/// The documented huge-file grammar: ASCII white space and a byte-order
/// mark around one decimal or `0x` hex number. Err(Some(byte)) names the
/// first bad byte, Err(None) a missing number.
fn huge_reference(b: &[u8]) -> Result<Natural, Option<usize>> {
    let ws = |c: &u8| c.is_ascii_whitespace();
    let mut s = b.iter().position(|c| !ws(c)).unwrap_or(b.len());
    if b[s..].starts_with(b"\xef\xbb\xbf") {
        s += 3;
        s += b[s..].iter().position(|c| !ws(c)).unwrap_or(b.len() - s);
    }
    let e = b.iter().rposition(|c| !ws(c)).map_or(s, |i| i + 1).max(s);
    let body = &b[s..e];
    if body.is_empty() {
        return Err(None);
    }
    let (d, base, at) = match body {
        [b'0', b'x' | b'X', ..] => (&body[2..], 16u32, s + 2),
        _ => (body, 10, s),
    };
    if d.is_empty() {
        return Err(None);
    }
    if let Some(i) = d.iter().position(|&c| !(c as char).is_digit(base)) {
        return Err(Some(at + i));
    }
    Ok(Natural::from_string_base(base as u8, std::str::from_utf8(d).unwrap()).unwrap())
}

/// A Matrix Market array file: a (maybe mutated) header, comments and
/// blank lines, a size line, values (some fuzzed), CRLF line ends at
/// times; with the index of each value's line.
fn mm_file(r: &mut Rng, complex: bool, vector: Option<usize>) -> String {
    let field = if complex {
        "complex"
    } else {
        ["real", "integer", "Real"][r.index(3)]
    };
    let mut header = format!("%%MatrixMarket matrix array {field} general");
    if r.chance(1, 10) {
        header = r.mutate(&header).replace('\n', " ");
    }
    let (rows, cols) = match vector {
        Some(n) if r.chance(7, 8) => (n, 1),
        _ => (r.index(4), 1 + r.index(3)),
    };
    let n = rows * cols + if r.chance(1, 10) { r.index(3) } else { 0 };
    let n = if r.chance(1, 10) {
        n.saturating_sub(1)
    } else {
        n
    };
    let nl = if r.chance(1, 4) { "\r\n" } else { "\n" };
    let mut t = header + nl;
    if r.chance(1, 3) {
        t.push_str(&format!("% a comment{nl}{nl}"));
    }
    let size = format!("{rows} {cols}");
    t.push_str(
        &(if r.chance(1, 15) {
            r.mutate(&size).replace('\n', " ")
        } else {
            size
        }),
    );
    t.push_str(nl);
    let fuzz = r.chance(1, 3);
    for _ in 0..n {
        if r.chance(1, 10) {
            t.push_str(["", "  ", "% c"][r.index(3)]);
            t.push_str(nl);
        }
        let v = |r: &mut Rng| {
            if fuzz && r.chance(1, 3) {
                r.float_line()
            } else {
                r.float_text()
            }
        };
        let line = if complex {
            format!("{} {}", v(r), v(r))
        } else {
            v(r)
        };
        t.push_str(&line);
        t.push_str(nl);
    }
    t
}

/// The value lines of a Matrix Market text: (line number, words), as the
/// reader numbers them (after the header, comments and blanks skipped).
fn mm_values(text: &str) -> Vec<(usize, Vec<&str>)> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    t.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| {
            let l = l.trim_start();
            !l.is_empty() && !l.starts_with('%')
        })
        .skip(1)
        .map(|(i, l)| (i + 1, l.split_whitespace().collect()))
        .collect()
}

#[test]
fn fuzz_matrix_market() {
    let (seed, n, t) = (common::seed(), count(3_000), Instant::now());
    let rep = Report::new("matrix market", &["accepted", "bad value", "other error"]);
    drive(n, seed, |r, _| {
        let complex = r.chance(1, 3);
        let text = mm_file(r, complex, None);
        let (p, rnd) = (r.prec().min(300), r.round());
        let res = guarded(
            || format!("market {text:?} p={p}"),
            || {
                if complex {
                    market::read_complex("m.mtx", &text, p, p, rnd).map(|m| {
                        let rows = m.to_rows().unwrap();
                        let (nr, nc) = (m.rows(), m.cols());
                        (
                            nr,
                            nc,
                            rows.into_iter()
                                .flatten()
                                .flat_map(|(a, b)| [a, b])
                                .collect::<Vec<_>>(),
                        )
                    })
                } else {
                    market::read_real("m.mtx", &text, p, rnd).map(|m| {
                        let (nr, nc) = (m.rows(), m.cols());
                        (nr, nc, m.to_rows().unwrap().into_iter().flatten().collect())
                    })
                }
            },
        );
        let res = match res {
            Ok(v) => v,
            Err(m) => return rep.fail(format!("PANIC {m}: {text:?}")),
        };
        let values = mm_values(&text);
        let width = if complex { 2 } else { 1 };
        // The first value line with a part MPFR rejects (file order).
        let first_bad = values
            .iter()
            .find(|(_, w)| w.len() == width && w.iter().any(|x| ours_float(x, p, rnd).is_err()));
        match res {
            Ok((rows, cols, got)) => {
                rep.bump("accepted");
                if values.len() != rows * cols {
                    return rep.fail(format!(
                        "{text:?}: {rows}x{cols} from {} values",
                        values.len()
                    ));
                }
                for i in 0..rows {
                    for j in 0..cols {
                        let words = &values[j * rows + i].1;
                        for (k, w) in words.iter().enumerate() {
                            let want = mpfr_read(w, p, rnd);
                            let g = &got[(i * cols + j) * width + k];
                            if !want.as_ref().is_some_and(|(y, _)| same_float(g, y)) {
                                rep.fail(format!("{text:?} p={p} {rnd:?}: ({i},{j}) {w:?} read {g:#x}, MPFR {want:?}"));
                            }
                        }
                    }
                }
            }
            Err(Error::Invalid(m)) => {
                if !m.starts_with("m.mtx:") {
                    rep.fail(format!("{text:?}: error {m:?} does not name the file"));
                }
                if m.contains("cannot parse") {
                    rep.bump("bad value");
                    match first_bad {
                        Some((l, _)) if m.starts_with(&format!("m.mtx:{l}: ")) => {}
                        _ => rep.fail(format!(
                            "{text:?}: {m:?}, first bad value line {first_bad:?}"
                        )),
                    }
                } else {
                    rep.bump("other error");
                }
            }
            Err(e) => rep.fail(format!("{text:?}: unexpected error {e:?}")),
        }
    });
    rep.finish(n, t);
}

// ---------------------------------------------------------------- the CLI

/// Runs the binary with a time limit; (exit code, stdout, stderr). A
/// signal or a hang is a failure (None).
fn run_cli(args: &[&str], _limit: Duration) -> Option<(i32, String, String)> {
    let limit = Duration::from_secs(
        std::env::var("MPARRAY_FUZZ_HANG_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300),
    );
    let mut child = Command::new(common::mparray_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let t = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if t.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return None,
        }
    }
    let o = child.wait_with_output().ok()?;
    Some((
        o.status.code()?,
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

/// One calculator run on files with a fuzzed line: exit 0 when every line
/// is good, else exit 2 naming `file:line` of the bad one; never a panic,
/// a signal or a hang.
#[test]
fn fuzz_cli() {
    let (seed, n, t) = (common::seed(), count(150), Instant::now());
    let rep = Report::new("cli", &["ok", "bad line", "bad bytes"]);
    let tmp = Tmp::new();
    drive(n, seed, |r, i| {
        let dir = tmp.0.join(format!("c{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let before = rep.n_fail.load(AO::Relaxed);
        cli_case(&rep, r, &dir);
        if rep.n_fail.load(AO::Relaxed) != before {
            // Keep a failing case's files for replay.
            let keep = std::env::temp_dir().join(format!("mparray-fuzz-fail-{seed}-{i}"));
            let _ = std::fs::rename(&dir, &keep);
            eprintln!("kept {}", keep.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
    rep.finish(n, t);
}

fn cli_case(rep: &Report, r: &mut Rng, dir: &Path) {
    let lines = 1 + r.index(6);
    let bad_at = r.index(lines);
    let kind = r.below(6);
    let a = dir.join("a.txt");
    let b = dir.join("b.txt");
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    let p = r.prec().min(200).to_string();
    let rnd = ["N", "Z", "U", "D", "A"][r.index(5)];
    let s = |v: &[&str]| -> Vec<String> { v.iter().map(|x| x.to_string()).collect() };
    // The lines of A (one of them fuzzed), of B, the arguments, and which
    // lines are bad.
    type Case = (Vec<String>, Vec<String>, Vec<String>, fn(&str) -> bool);
    let (mut la, lb, args, is_bad): Case = match kind {
        0 => {
            let mut la: Vec<String> = (0..lines).map(|_| r.int_text(100)).collect();
            la[bad_at] = r.int_line(128);
            let lb = (0..lines)
                .map(|_| format!("{}", 1 + r.below(1000)))
                .collect();
            let op = ["add", "divrem", "mul-wide"][r.index(3)];
            let args = s(&["int", op, "--bits", "128", "--engine", "cpu", a_s, b_s]);
            (la, lb, args, |l| parse_one(l, 0, &mut [0u64; 2]).is_err())
        }
        1 | 2 => {
            let mut la: Vec<String> = (0..lines).map(|_| r.float_text()).collect();
            la[bad_at] = r.float_line();
            let lb = (0..lines).map(|_| r.float_text()).collect();
            let op = [
                "add", "mul", "div", "sqrt", "exp", "log", "set", "cmp", "fma",
            ][r.index(9)];
            let mut args = s(&[
                "float", op, "--prec", &p, "--round", rnd, "--engine", "cpu", a_s,
            ]);
            if !["sqrt", "exp", "log", "set"].contains(&op) {
                args.push(b_s.into());
            }
            if op == "fma" {
                args.push(b_s.into());
            }
            (la, lb, args, |l| ours_float(l, 10, Round::Nearest).is_err())
        }
        3 => {
            let mut la: Vec<String> = (0..lines)
                .map(|_| format!("{} {}", r.float_text(), r.float_text()))
                .collect();
            la[bad_at] = match r.below(3) {
                0 => format!("{} {}", r.float_line(), r.float_text()),
                1 => format!("{} {}", r.float_text(), r.float_line()),
                _ => r.float_line(),
            };
            let op = ["add", "sqr", "abs", "set", "sqrt"][r.index(5)];
            let mut args = s(&["complex", op, "--prec", &p, "--engine", "cpu", a_s]);
            if op == "add" {
                args.push(a_s.into());
            }
            let bad = |l: &str| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() != 2 || w.iter().any(|x| ours_float(x, 10, Round::Nearest).is_err())
            };
            (la, Vec::new(), args, bad)
        }
        4 => {
            let op = ["sqr", "sqrt"][r.index(2)];
            let args = s(&["huge", op, "--engine", "cpu", a_s]);
            let v = r.int_line(256);
            (vec![v], Vec::new(), args, |l| {
                huge_reference(l.as_bytes()).is_err()
            })
        }
        _ => return blas_case(rep, r, &a, &b, &p),
    };
    // A final empty line is no line (the file ends with a line end); the
    // first line loses one byte-order mark.
    if la.last().is_some_and(|l| l.is_empty()) {
        *la.last_mut().unwrap() = " ".into();
    }
    let first_bad = la.iter().enumerate().position(|(i, l)| {
        let l = if i == 0 {
            l.strip_prefix('\u{feff}').unwrap_or(l)
        } else {
            l
        };
        is_bad(l)
    });
    let whole_file_bad = kind == 4 && la.iter().any(|l| is_bad(l));
    let bad_line = if kind == 4 {
        whole_file_bad.then_some(0)
    } else {
        first_bad
    };
    finish_cli(
        rep,
        &la.join("\n"),
        &lb.join("\n"),
        &args,
        &a,
        &b,
        a_s,
        bad_line,
    );
    // Random bytes as a whole file: exit 0 or 2, never worse.
    if r.chance(1, 4) {
        let bytes: Vec<u8> = (0..r.index(64)).map(|_| r.next() as u8).collect();
        std::fs::write(&a, &bytes).unwrap();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        match run_cli(&argv, Duration::from_secs(120)) {
            Some((0, _, _)) => {}
            Some((2, _, e)) if e.contains(a_s) || e.contains(b_s) => rep.bump("bad bytes"),
            o => rep.fail(format!("{:?} on bytes {bytes:?}: {o:?}", &args[..2])),
        }
    }
}

/// `blas dot` on two Matrix Market vectors (sometimes fuzzed): exit 0, or
/// exit 2 naming a file (and the line, for a bad value).
fn blas_case(rep: &Report, r: &mut Rng, a: &Path, b: &Path, p: &str) {
    let n = r.index(4);
    let x = mm_file(r, false, Some(n));
    let y = mm_file(r, false, Some(n));
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    let args = ["blas", "dot", "--prec", p, "--engine", "cpu", a_s, b_s];
    std::fs::write(a, &x).unwrap();
    std::fs::write(b, &y).unwrap();
    match run_cli(&args, Duration::from_secs(120)) {
        None => rep.fail(format!("blas: hang or signal on {x:?} / {y:?}")),
        Some((0, _, _)) => rep.bump("ok"),
        Some((2, _, e)) if e.contains(a_s) || e.contains(b_s) => {
            if e.contains("cannot parse") {
                let named = [(&x, a_s), (&y, b_s)].iter().any(|(t, name)| {
                    mm_values(t)
                        .iter()
                        .any(|(l, _)| e.contains(&format!("{name}:{l}:")))
                });
                if !named {
                    rep.fail(format!("blas: {e:?} names no value line of {x:?} / {y:?}"));
                }
            }
            rep.bump("bad line")
        }
        Some((c, _, e)) => rep.fail(format!("blas exit {c}: {e:?} on {x:?} / {y:?}")),
    }
}

#[allow(clippy::too_many_arguments)]
fn finish_cli(
    rep: &Report,
    ta: &str,
    tb: &str,
    args: &[String],
    a: &Path,
    b: &Path,
    a_s: &str,
    bad_line: Option<usize>,
) {
    let nl = if ta.len().is_multiple_of(3) {
        "\r\n"
    } else {
        "\n"
    };
    std::fs::write(a, ta.replace('\n', nl)).unwrap();
    std::fs::write(b, tb).unwrap();
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let what = || format!("{argv:?} on {} (bad line {bad_line:?})", show(ta));
    match (run_cli(&argv, Duration::from_secs(120)), bad_line) {
        (None, _) => rep.fail(format!("hang or signal: {}", what())),
        (Some((0, out, _)), None) => {
            rep.bump("ok");
            let want = ta.split('\n').count();
            if args[0] != "huge" && out.lines().count() != want {
                rep.fail(format!(
                    "{} lines out for {want} in: {}",
                    out.lines().count(),
                    what()
                ));
            }
        }
        (Some((2, _, e)), Some(l)) => {
            rep.bump("bad line");
            let tag = if args[0] == "huge" {
                format!("{a_s}: ")
            } else {
                format!("{a_s}:{}: ", l + 1)
            };
            if !e.contains(&tag) {
                rep.fail(format!("stderr {e:?} lacks {tag:?}: {}", what()));
            }
        }
        (Some((c, _, e)), _) => rep.fail(format!("exit {c} ({e:?}): {}", what())),
    }
}

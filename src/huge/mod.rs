//! Huge integers: one natural number of any size that fits in memory, on an
//! engine, multiplied by number-theoretic transforms; division, square root
//! and radix conversion on top of that multiplication.
//!
//! The algorithms ([`div`], [`sqrt`], [`radix`]) are written once over the
//! [`HugeEngine`] primitives; [`cpu`] implements them on the host. A
//! [`HugeInt`] keeps its limbs on its engine; operands of one operation
//! must share an engine (move them with [`HugeInt::to_engine`]).

pub mod cpu;
pub mod cuda;
pub mod div;
pub mod engine;
pub mod radix;
pub mod sqrt;

use std::any::Any;
use std::cmp::Ordering;
use std::path::Path;

use malachite_nz::natural::Natural;

pub use cpu::CpuHuge;
pub use engine::HugeEngine;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::int::Radix;

/// One engine's buffer, type-erased (the engine knows its type).
type AnyBuf = Box<dyn Any + Send + Sync>;

/// One operation for [`dispatch`].
pub(crate) enum Job<'a> {
    Upload(&'a [u64]),
    Download(&'a AnyBuf),
    Mul(&'a AnyBuf, &'a AnyBuf),
    Sqr(&'a AnyBuf),
    DivRem(&'a AnyBuf, &'a AnyBuf),
    Sqrt(&'a AnyBuf),
    ToDecimal(&'a AnyBuf),
    FromDecimal(&'a [u8]),
    Cmp(&'a AnyBuf, &'a AnyBuf),
}

/// What a [`Job`] returns.
pub(crate) enum Done {
    Bufs(Vec<AnyBuf>),
    Limbs(Vec<u64>),
    Text(String),
    Order(Ordering),
}

fn get<'a, E: HugeEngine>(e: &E, b: &'a AnyBuf) -> Result<&'a E::Buf>
where
    E::Buf: 'static,
{
    b.downcast_ref::<E::Buf>()
        .ok_or_else(|| Error::EngineMismatch(e.name().into(), "another engine".into()))
}

fn boxed<E: HugeEngine>(bufs: Vec<E::Buf>) -> Done
where
    E::Buf: 'static,
{
    Done::Bufs(bufs.into_iter().map(|b| Box::new(b) as AnyBuf).collect())
}

/// Runs a job on engine `e` with the generic algorithms.
pub(crate) fn run<E: HugeEngine>(e: &E, job: Job) -> Result<Done>
where
    E::Buf: 'static,
{
    Ok(match job {
        Job::Upload(l) => boxed::<E>(vec![e.upload(if l.is_empty() { &[0] } else { l })?]),
        Job::Download(a) => {
            let a = get(e, a)?;
            let n = e.normalized_len(a)?;
            if n == 0 {
                // (No zero-length buffer on the engine.)
                Done::Limbs(Vec::new())
            } else {
                Done::Limbs(e.download(&e.slice(a, 0, n)?)?)
            }
        }
        Job::Mul(a, b) => boxed::<E>(vec![e.mul(get(e, a)?, get(e, b)?)?]),
        Job::Sqr(a) => boxed::<E>(vec![e.sqr(get(e, a)?)?]),
        Job::DivRem(a, b) => {
            let (q, r) = div::divrem(e, get(e, a)?, get(e, b)?)?;
            boxed::<E>(vec![q, r])
        }
        Job::Sqrt(a) => {
            let (s, r) = sqrt::sqrt_rem(e, get(e, a)?)?;
            boxed::<E>(vec![s, r])
        }
        Job::ToDecimal(a) => Done::Text(radix::to_decimal(e, get(e, a)?)?),
        Job::FromDecimal(s) => boxed::<E>(vec![radix::from_decimal(e, s)?]),
        Job::Cmp(a, b) => Done::Order(e.cmp(get(e, a)?, get(e, b)?)?),
    })
}

/// THE one place that picks an engine's implementation of the huge-integer
/// primitives.
fn dispatch(engine: &Engine, job: Job) -> Result<Done> {
    match engine {
        Engine::Cpu => run(&CpuHuge, job),
        Engine::Cuda(c) => run(&*cuda::CudaHuge::for_engine(c)?, job),
    }
}

/// A natural number of any size on one engine.
pub struct HugeInt {
    engine: Engine,
    buf: AnyBuf,
}

impl std::fmt::Debug for HugeInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HugeInt({} on {})", self.bits_hint(), self.engine_name())
    }
}

fn bufs(d: Done, n: usize) -> Result<Vec<AnyBuf>> {
    match d {
        Done::Bufs(b) if b.len() == n => Ok(b),
        _ => Err(Error::Invalid(
            "engine returned an unexpected result".into(),
        )),
    }
}

impl HugeInt {
    fn wrap(&self, buf: AnyBuf) -> HugeInt {
        HugeInt {
            engine: self.engine.clone(),
            buf,
        }
    }

    fn same_engine(&self, o: &HugeInt) -> Result<()> {
        match (&self.engine, &o.engine) {
            (Engine::Cpu, Engine::Cpu) => Ok(()),
            (Engine::Cuda(a), Engine::Cuda(b)) if std::sync::Arc::ptr_eq(a, b) => Ok(()),
            _ => Err(Error::EngineMismatch(
                self.engine_name().into(),
                o.engine_name().into(),
            )),
        }
    }

    fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Cpu => "cpu",
            Engine::Cuda(_) => "cuda",
        }
    }

    fn bits_hint(&self) -> String {
        match self.to_limbs() {
            Ok(l) => format!("{} bits", bit_len(&l)),
            Err(_) => "?".into(),
        }
    }

    /// The number with these little-endian limbs, on `engine`.
    pub fn from_limbs(engine: &Engine, limbs: &[u64]) -> Result<HugeInt> {
        let b = bufs(dispatch(engine, Job::Upload(limbs))?, 1)?;
        Ok(HugeInt {
            engine: engine.clone(),
            buf: b.into_iter().next().expect("one"),
        })
    }

    /// Zero on `engine`.
    pub fn zero(engine: &Engine) -> Result<HugeInt> {
        HugeInt::from_limbs(engine, &[0])
    }

    /// The limbs, little-endian, without high zero limbs (empty for zero).
    pub fn to_limbs(&self) -> Result<Vec<u64>> {
        match dispatch(&self.engine, Job::Download(&self.buf))? {
            Done::Limbs(mut l) => {
                let n = l.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
                l.truncate(n);
                Ok(l)
            }
            _ => Err(Error::Invalid(
                "engine returned an unexpected result".into(),
            )),
        }
    }

    /// From a malachite natural.
    pub fn from_natural(engine: &Engine, n: &Natural) -> Result<HugeInt> {
        HugeInt::from_limbs(engine, &n.to_limbs_asc())
    }

    /// To a malachite natural.
    pub fn to_natural(&self) -> Result<Natural> {
        Ok(Natural::from_limbs_asc(&self.to_limbs()?))
    }

    /// The engine holding the number.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A copy on `engine` (an explicit transfer).
    pub fn to_engine(&self, engine: &Engine) -> Result<HugeInt> {
        HugeInt::from_limbs(engine, &self.to_limbs()?)
    }

    /// Significant bits (0 for zero).
    pub fn bits(&self) -> Result<u64> {
        Ok(bit_len(&self.to_limbs()?))
    }

    /// `self * o`.
    pub fn mul(&self, o: &HugeInt) -> Result<HugeInt> {
        self.same_engine(o)?;
        let b = bufs(dispatch(&self.engine, Job::Mul(&self.buf, &o.buf))?, 1)?;
        Ok(self.wrap(b.into_iter().next().expect("one")))
    }

    /// `self * self`.
    pub fn sqr(&self) -> Result<HugeInt> {
        let b = bufs(dispatch(&self.engine, Job::Sqr(&self.buf))?, 1)?;
        Ok(self.wrap(b.into_iter().next().expect("one")))
    }

    /// Floor quotient and remainder; a zero divisor is an error.
    pub fn divrem(&self, o: &HugeInt) -> Result<(HugeInt, HugeInt)> {
        self.same_engine(o)?;
        let mut b = bufs(dispatch(&self.engine, Job::DivRem(&self.buf, &o.buf))?, 2)?.into_iter();
        let q = self.wrap(b.next().expect("two"));
        Ok((q, self.wrap(b.next().expect("two"))))
    }

    /// Floor square root and remainder `self - root^2`.
    pub fn sqrt_rem(&self) -> Result<(HugeInt, HugeInt)> {
        let mut b = bufs(dispatch(&self.engine, Job::Sqrt(&self.buf))?, 2)?.into_iter();
        let s = self.wrap(b.next().expect("two"));
        Ok((s, self.wrap(b.next().expect("two"))))
    }

    /// Compares two numbers.
    pub fn cmp_with(&self, o: &HugeInt) -> Result<Ordering> {
        self.same_engine(o)?;
        match dispatch(&self.engine, Job::Cmp(&self.buf, &o.buf))? {
            Done::Order(x) => Ok(x),
            _ => Err(Error::Invalid(
                "engine returned an unexpected result".into(),
            )),
        }
    }

    /// Decimal digits (subquadratic).
    pub fn to_decimal(&self) -> Result<String> {
        match dispatch(&self.engine, Job::ToDecimal(&self.buf))? {
            Done::Text(s) => Ok(s),
            _ => Err(Error::Invalid(
                "engine returned an unexpected result".into(),
            )),
        }
    }

    /// Lower-case hex with a `0x` prefix.
    pub fn to_hex(&self) -> Result<String> {
        Ok(hex_string(&self.to_limbs()?))
    }

    /// In the given base.
    pub fn to_string_radix(&self, radix: Radix) -> Result<String> {
        match radix {
            Radix::Dec => self.to_decimal(),
            Radix::Hex => self.to_hex(),
        }
    }

    /// From decimal digits or `0x` hex (white space at the ends ignored);
    /// also returns the base it was written in. Errors give the byte
    /// offset of the first bad character.
    pub fn parse(engine: &Engine, text: &str) -> Result<(HugeInt, Radix)> {
        HugeInt::parse_bytes(engine, text.as_bytes())
    }

    /// [`HugeInt::parse`] on bytes.
    pub fn parse_bytes(engine: &Engine, text: &[u8]) -> Result<(HugeInt, Radix)> {
        let start = text
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .unwrap_or(text.len());
        let start = if text[start..].starts_with(&[0xef, 0xbb, 0xbf]) {
            let s = start + 3;
            s + text[s..]
                .iter()
                .position(|c| !c.is_ascii_whitespace())
                .unwrap_or(text.len() - s)
        } else {
            start
        };
        let end = text
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .map_or(start, |i| i + 1)
            .max(start);
        let body = &text[start..end];
        let bad = |pos: usize, what: String| Error::Parse {
            index: 0,
            text: String::from_utf8_lossy(&text[pos..(pos + 20).min(text.len())]).into_owned(),
            reason: what,
        };
        if body.is_empty() {
            return Err(bad(start, "no number (empty input)".into()));
        }
        if body.len() >= 2 && body[0] == b'0' && (body[1] == b'x' || body[1] == b'X') {
            let digits = &body[2..];
            if digits.is_empty() {
                return Err(bad(start, "no hex digits after 0x".into()));
            }
            if let Some(i) = digits.iter().position(|c| !c.is_ascii_hexdigit()) {
                let p = start + 2 + i;
                return Err(bad(p, bad_char(text, p)));
            }
            let limbs = parse_hex(digits);
            return Ok((HugeInt::from_limbs(engine, &limbs)?, Radix::Hex));
        }
        if let Some(i) = body.iter().position(|c| !c.is_ascii_digit()) {
            let p = start + i;
            return Err(bad(p, bad_char(text, p)));
        }
        let b = bufs(dispatch(engine, Job::FromDecimal(body))?, 1)?;
        Ok((
            HugeInt {
                engine: engine.clone(),
                buf: b.into_iter().next().expect("one"),
            },
            Radix::Dec,
        ))
    }

    /// Reads a file holding one number (decimal or `0x` hex).
    pub fn read_file(engine: &Engine, path: &Path) -> Result<(HugeInt, Radix)> {
        let data = std::fs::read(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        HugeInt::parse_bytes(engine, &data).map_err(|e| match e {
            Error::Parse { reason, .. } => Error::Invalid(format!("{}: {reason}", path.display())),
            other => other,
        })
    }

    /// Writes the number and a newline to a file.
    pub fn write_file(&self, path: &Path, radix: Radix) -> Result<()> {
        let mut s = self.to_string_radix(radix)?;
        s.push('\n');
        std::fs::write(path, s).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })
    }
}

fn bad_char(text: &[u8], p: usize) -> String {
    let line = text[..p].iter().filter(|&&c| c == b'\n').count() + 1;
    let col = p - text[..p]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1)
        + 1;
    let ch = String::from_utf8_lossy(&text[p..(p + 4).min(text.len())])
        .chars()
        .next()
        .unwrap_or('?');
    if ch.is_whitespace() {
        format!(
            "white space inside the number at byte {p} (line {line}, column {col}): a file holds one number"
        )
    } else {
        format!("bad character {ch:?} at byte {p} (line {line}, column {col})")
    }
}

fn bit_len(l: &[u64]) -> u64 {
    match l.iter().rposition(|&x| x != 0) {
        Some(i) => 64 * i as u64 + 64 - l[i].leading_zeros() as u64,
        None => 0,
    }
}

/// Hex digits (validated) to limbs.
fn parse_hex(d: &[u8]) -> Vec<u64> {
    let val = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    } as u64;
    let mut out = Vec::with_capacity(d.len().div_ceil(16));
    let mut end = d.len();
    while end > 0 {
        let lo = end.saturating_sub(16);
        let mut x = 0u64;
        for &c in &d[lo..end] {
            x = (x << 4) | val(c);
        }
        out.push(x);
        end = lo;
    }
    out
}

/// `0x` and lower-case hex digits of limbs.
fn hex_string(l: &[u64]) -> String {
    use std::fmt::Write;
    let n = l.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
    if n == 0 {
        return "0x0".into();
    }
    let mut s = String::with_capacity(2 + 16 * n);
    write!(s, "0x{:x}", l[n - 1]).expect("string");
    for x in l[..n - 1].iter().rev() {
        write!(s, "{x:016x}").expect("string");
    }
    s
}

/// `n` pseudo-random limbs from `seed` (splitmix64 per block, in parallel).
pub fn random_limbs(n: usize, seed: u64) -> Vec<u64> {
    use rayon::prelude::*;
    let mut v = vec![0u64; n];
    v.par_chunks_mut(1 << 16).enumerate().for_each(|(k, c)| {
        let mut s = seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for x in c.iter_mut() {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            *x = z ^ (z >> 31);
        }
    });
    v
}

//! Several engines at once: a [`Devices`] set, arrays split over it by
//! contiguous element ranges ([`Split`]), element-wise work on every device
//! at the same time (one host thread per device), matrix products split by
//! row blocks of C with B copied to every device ([`gemm`]), and huge
//! products split by pieces of one operand ([`huge_mul`]).
//!
//! Results are bit-identical to one engine: every element-wise operation
//! and every exactly rounded reduction gives the same bits wherever it
//! runs, and the split only chooses where each element is computed.
//! Moving data between devices goes through host memory (scatter and
//! gather); the timed work of a split operation runs with the data
//! already on its devices. A set of one device runs the same code.
//!
//! A set may hold CPU engines too (`Devices::cpu(n)`): the split logic is
//! then tested without a GPU, and the host's cores are shared by the
//! "devices".

mod parts;

use std::ops::Range;

use crate::engine::{CudaEngine, Engine};
use crate::error::{Error, Result};
use crate::float::{FloatArray, Round, TernaryArray};
use crate::huge::HugeInt;
use crate::int::{Fused, IntArray};
use crate::linalg::{Gemm, Matrix, Op};

pub use parts::Parts;

/// A non-empty, ordered set of engines that split work between them.
#[derive(Clone, Debug)]
pub struct Devices {
    engines: Vec<Engine>,
}

impl Devices {
    /// The given engines, in order (at least one).
    pub fn new(engines: Vec<Engine>) -> Result<Devices> {
        if engines.is_empty() {
            return Err(Error::Invalid(
                "a device set needs at least one engine".into(),
            ));
        }
        Ok(Devices { engines })
    }

    /// Every CUDA device of the machine (device 0 is the shared engine
    /// that `Engine::cuda()` returns).
    pub fn cuda_all() -> Result<Devices> {
        Devices::cuda(usize::MAX)
    }

    /// The first `n` CUDA devices (all of them when fewer are present).
    pub fn cuda(n: usize) -> Result<Devices> {
        let first = CudaEngine::shared()?;
        let count = cudarc::driver::CudaContext::device_count()
            .map_err(Error::driver("counting CUDA devices"))?
            .max(1) as usize;
        let mut engines = vec![Engine::Cuda(first)];
        for i in 1..count.min(n.max(1)) {
            engines.push(Engine::Cuda(CudaEngine::new(i)?));
        }
        Devices::new(engines)
    }

    /// `n` CPU engines (they share the host's cores).
    pub fn cpu(n: usize) -> Result<Devices> {
        Devices::new(vec![Engine::Cpu; n])
    }

    /// Parses `all` (every CUDA device), `N` (the first N CUDA devices) or
    /// `cpu:N` (N CPU engines).
    pub fn parse(spec: &str) -> Result<Devices> {
        let bad = || {
            Error::Invalid(format!(
                "--devices {spec:?}: expected all, a count such as 2, or cpu:N"
            ))
        };
        match spec {
            "all" => Devices::cuda_all(),
            s if s.starts_with("cpu:") => {
                let n: usize = s[4..].parse().map_err(|_| bad())?;
                if n == 0 {
                    return Err(bad());
                }
                Devices::cpu(n)
            }
            s => {
                let n: usize = s.parse().map_err(|_| bad())?;
                if n == 0 {
                    return Err(bad());
                }
                let d = Devices::cuda(n)?;
                if d.len() < n {
                    return Err(Error::Invalid(format!(
                        "--devices {n}: this machine has {} CUDA device(s)",
                        d.len()
                    )));
                }
                Ok(d)
            }
        }
    }

    /// Number of engines.
    pub fn len(&self) -> usize {
        self.engines.len()
    }

    /// Always false: a set has at least one engine.
    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// The first engine (where gathered results go by default).
    pub fn first(&self) -> &Engine {
        &self.engines[0]
    }

    /// A one-line description: the count and each engine.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self.engines.iter().map(|e| e.describe()).collect();
        format!("{} device(s): {}", self.len(), names.join(", "))
    }

    /// Contiguous, balanced ranges of `0..len`, one per engine (the first
    /// `len % P` ranges one longer).
    pub fn ranges(&self, len: usize) -> Vec<Range<usize>> {
        ranges(len, self.len())
    }

    /// Runs `f(i, engine_i)` for every engine at once, one host thread
    /// each, and returns the results in order; the first failing device's
    /// error is returned with its index.
    pub fn run<T: Send>(&self, f: impl Fn(usize, &Engine) -> Result<T> + Sync) -> Result<Vec<T>> {
        if self.len() == 1 {
            return Ok(vec![f(0, &self.engines[0])?]);
        }
        let out: Vec<Result<T>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .engines
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let f = &f;
                    s.spawn(move || f(i, e))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Invalid("a device thread panicked".into())))
                })
                .collect()
        });
        out.into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| on_device(i, e)))
            .collect()
    }

    /// Waits for the queued work of every engine.
    pub fn synchronize(&self) -> Result<()> {
        self.run(|_, e| e.synchronize()).map(|_| ())
    }
}

fn on_device(i: usize, e: Error) -> Error {
    match e {
        // Keep the typed errors that name an element or a size; say the
        // device for the rest.
        Error::DivisionByZero { .. } | Error::DeviceMemory { .. } | Error::Parse { .. } => e,
        other => Error::Invalid(format!("device {i}: {other}")),
    }
}

/// An error of a part, with an element index made global.
fn shifted(e: Error, start: usize) -> Error {
    match e {
        Error::DivisionByZero { index } => Error::DivisionByZero {
            index: index + start,
        },
        other => other,
    }
}

/// Contiguous, balanced ranges of `0..len` in `p` parts.
pub fn ranges(len: usize, p: usize) -> Vec<Range<usize>> {
    let (q, r) = (len / p, len % p);
    let mut start = 0;
    (0..p)
        .map(|i| {
            let n = q + usize::from(i < r);
            let out = start..start + n;
            start += n;
            out
        })
        .collect()
}

/// An array split over a [`Devices`] set by contiguous element ranges:
/// part `i` holds elements `ranges[i]` on engine `i`.
pub struct Split<A: Parts> {
    devices: Devices,
    ranges: Vec<Range<usize>>,
    parts: Vec<A>,
}

impl<A: Parts> Split<A> {
    /// Splits `a` (on any engine) over `devices`.
    pub fn scatter(devices: &Devices, a: &A) -> Result<Split<A>> {
        let host = a.to_engine(&Engine::Cpu)?;
        let ranges = devices.ranges(host.len());
        let pieces: Vec<A> = ranges
            .iter()
            .map(|r| host.host_range(r.clone()))
            .collect::<Result<_>>()?;
        let pieces: Vec<std::sync::Mutex<Option<A>>> = pieces
            .into_iter()
            .map(|p| std::sync::Mutex::new(Some(p)))
            .collect();
        let parts = devices.run(|i, e| {
            let p = pieces[i]
                .lock()
                .unwrap()
                .take()
                .expect("each piece is taken once");
            p.into_engine(e)
        })?;
        Ok(Split {
            devices: devices.clone(),
            ranges,
            parts,
        })
    }

    /// The whole array on `engine`, parts in order.
    pub fn gather(&self, engine: &Engine) -> Result<A> {
        let host: Vec<A> = self
            .devices
            .run(|i, _| self.parts[i].to_engine(&Engine::Cpu))?;
        A::concat_host(host)?.into_engine(engine)
    }

    pub fn devices(&self) -> &Devices {
        &self.devices
    }

    pub fn parts(&self) -> &[A] {
        &self.parts
    }

    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.ranges.last().map_or(0, |r| r.end)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `f` on every part at once.
    pub fn map<B: Parts>(&self, f: impl Fn(&A) -> Result<B> + Sync) -> Result<Split<B>> {
        let parts = self
            .devices
            .run(|i, _| f(&self.parts[i]).map_err(|e| shifted(e, self.ranges[i].start)))?;
        Ok(Split {
            devices: self.devices.clone(),
            ranges: self.ranges.clone(),
            parts,
        })
    }

    /// `f` on every pair of parts at once; both splits must have the same
    /// devices and ranges (scatter both over one set).
    pub fn zip<B: Parts, C: Parts>(
        &self,
        other: &Split<B>,
        f: impl Fn(&A, &B) -> Result<C> + Sync,
    ) -> Result<Split<C>> {
        self.check_same(&other.devices, &other.ranges)?;
        let parts = self.devices.run(|i, _| {
            f(&self.parts[i], &other.parts[i]).map_err(|e| shifted(e, self.ranges[i].start))
        })?;
        Ok(Split {
            devices: self.devices.clone(),
            ranges: self.ranges.clone(),
            parts,
        })
    }

    fn check_same(&self, d: &Devices, r: &[Range<usize>]) -> Result<()> {
        let same_engines = d.len() == self.devices.len()
            && d.engines
                .iter()
                .zip(&self.devices.engines)
                .all(|(a, b)| a.same_as(b));
        if !same_engines || r != self.ranges.as_slice() {
            return Err(Error::Shape(format!(
                "split arrays differ: {} elements over {} device(s) and {} over {}",
                self.len(),
                self.devices.len(),
                r.last().map_or(0, |x| x.end),
                d.len()
            )));
        }
        Ok(())
    }
}

/// Element-wise integer operations on every device at once (the same
/// semantics as [`IntArray`]'s methods of the same names).
impl Split<IntArray> {
    pub fn add(&self, b: &Split<IntArray>) -> Result<Split<IntArray>> {
        self.zip(b, |x, y| x.add(y))
    }
    pub fn sub(&self, b: &Split<IntArray>) -> Result<Split<IntArray>> {
        self.zip(b, |x, y| x.sub(y))
    }
    pub fn mul(&self, b: &Split<IntArray>) -> Result<Split<IntArray>> {
        self.zip(b, |x, y| x.mul(y))
    }
    pub fn mul_wide(&self, b: &Split<IntArray>) -> Result<Split<IntArray>> {
        self.zip(b, |x, y| x.mul_wide(y))
    }
    pub fn fused(&self, b: &Split<IntArray>, kind: Fused) -> Result<Split<IntArray>> {
        self.zip(b, |x, y| x.fused(y, kind))
    }
    /// Quotients and remainders, each split as the operands.
    pub fn divrem(&self, b: &Split<IntArray>) -> Result<(Split<IntArray>, Split<IntArray>)> {
        let qr = self.zip(b, |x, y| {
            let (q, r) = x.divrem(y)?;
            Ok(Pair(q, r))
        })?;
        Ok(qr.unzip())
    }
}

/// Element-wise float operations on every device at once, rounded as the
/// [`FloatArray`] methods of the same names round.
impl Split<FloatArray> {
    pub fn add(&self, b: &Split<FloatArray>, prec: u64, rnd: Round) -> Result<Split<FloatArray>> {
        self.zip(b, |x, y| x.add(y, prec, rnd))
    }
    pub fn sub(&self, b: &Split<FloatArray>, prec: u64, rnd: Round) -> Result<Split<FloatArray>> {
        self.zip(b, |x, y| x.sub(y, prec, rnd))
    }
    pub fn mul(&self, b: &Split<FloatArray>, prec: u64, rnd: Round) -> Result<Split<FloatArray>> {
        self.zip(b, |x, y| x.mul(y, prec, rnd))
    }
    pub fn div(&self, b: &Split<FloatArray>, prec: u64, rnd: Round) -> Result<Split<FloatArray>> {
        self.zip(b, |x, y| x.div(y, prec, rnd))
    }
    pub fn sqrt(&self, prec: u64, rnd: Round) -> Result<Split<FloatArray>> {
        self.map(|x| x.sqrt(prec, rnd))
    }
    /// A correctly rounded function of one argument on every part.
    pub fn func(
        &self,
        f: crate::float::func::Func,
        prec: u64,
        rnd: Round,
    ) -> Result<Split<FloatArray>> {
        self.map(|x| x.func(f, prec, rnd))
    }
}

/// Two arrays made together on each device (e.g. quotient and remainder).
pub struct Pair<A, B>(pub A, pub B);

impl<A: Parts, B: Parts> Split<Pair<A, B>> {
    /// The two halves as two splits.
    pub fn unzip(self) -> (Split<A>, Split<B>) {
        let (a, b): (Vec<A>, Vec<B>) = self.parts.into_iter().map(|Pair(a, b)| (a, b)).unzip();
        (
            Split {
                devices: self.devices.clone(),
                ranges: self.ranges.clone(),
                parts: a,
            },
            Split {
                devices: self.devices,
                ranges: self.ranges,
                parts: b,
            },
        )
    }
}

/// `C = alpha*op(A)*op(B) + beta*C`, exactly rounded per element, split by
/// row blocks of C over `devices`: device `i` gets the rows of op(A) (and
/// of C) of its block and a copy of B, and computes its block with
/// [`Matrix::gemm`]; the blocks and ternaries are gathered on `out`.
/// The bits equal one engine's `gemm` (each element is an exactly rounded
/// reduction, independent of where it runs).
pub fn gemm(
    devices: &Devices,
    a: &Matrix<FloatArray>,
    b: &Matrix<FloatArray>,
    alpha: &FloatArray,
    beta_c: Option<(&FloatArray, &Matrix<FloatArray>)>,
    o: &Gemm,
    out: &Engine,
) -> Result<(Matrix<FloatArray>, TernaryArray)> {
    let plan = GemmPlan::new(devices, a, b, alpha, beta_c, o)?;
    let blocks = plan.run()?;
    plan.gather(blocks, out)
}

/// A split GEMM with its operands already on the devices (what the bench
/// times: [`GemmPlan::run`]).
pub struct GemmPlan {
    devices: Devices,
    rows: Vec<Range<usize>>,
    n: usize,
    opts: Gemm,
    /// Per device: op(A)'s row block (stored with op `None` or `Trans` as
    /// `opts.op_a` says), B, alpha, and beta with C's row block.
    work: Vec<GemmWork>,
}

struct GemmWork {
    a: Matrix<FloatArray>,
    b: Matrix<FloatArray>,
    alpha: FloatArray,
    beta_c: Option<(FloatArray, Matrix<FloatArray>)>,
}

impl GemmPlan {
    /// Splits the rows of op(A) and C over `devices` and copies B, alpha and
    /// beta to each.
    pub fn new(
        devices: &Devices,
        a: &Matrix<FloatArray>,
        b: &Matrix<FloatArray>,
        alpha: &FloatArray,
        beta_c: Option<(&FloatArray, &Matrix<FloatArray>)>,
        o: &Gemm,
    ) -> Result<GemmPlan> {
        let m = match o.op_a {
            Op::None => a.rows(),
            _ => a.cols(),
        };
        let n = match o.op_b {
            Op::None => b.cols(),
            _ => b.rows(),
        };
        let rows = devices.ranges(m);
        let ah = a.to_host()?;
        let bh = b.to_host()?;
        let alpha_h = alpha.to_engine(&Engine::Cpu)?;
        let ch = match beta_c {
            Some((beta, c)) => {
                if c.rows() != m || c.cols() != n {
                    return Err(Error::Shape(format!(
                        "gemm: C is {} x {} but op(A)*op(B) is {m} x {n}",
                        c.rows(),
                        c.cols()
                    )));
                }
                Some((beta.to_engine(&Engine::Cpu)?, c.to_host()?))
            }
            None => None,
        };
        let mut pieces = Vec::with_capacity(devices.len());
        for r in &rows {
            // op(A)'s rows r: rows r of A, or columns r of A (kept as a
            // k x |r| matrix so that op_a still applies).
            let a_blk = match o.op_a {
                Op::None => parts::matrix_block(&ah, r.clone(), 0..ah.cols())?,
                _ => parts::matrix_block(&ah, 0..ah.rows(), r.clone())?,
            };
            let c_blk = match &ch {
                Some((beta, c)) => {
                    Some((beta.try_clone()?, parts::matrix_block(c, r.clone(), 0..n)?))
                }
                None => None,
            };
            pieces.push(std::sync::Mutex::new(Some((a_blk, c_blk))));
        }
        let work = devices.run(|i, e| {
            let (a_blk, c_blk) = pieces[i].lock().unwrap().take().expect("taken once");
            Ok(GemmWork {
                a: a_blk.into_engine(e)?,
                b: bh.to_engine(e)?,
                alpha: alpha_h.to_engine(e)?,
                beta_c: match c_blk {
                    Some((beta, c)) => Some((beta.into_engine(e)?, c.into_engine(e)?)),
                    None => None,
                },
            })
        })?;
        Ok(GemmPlan {
            devices: devices.clone(),
            rows,
            n,
            opts: *o,
            work,
        })
    }

    /// Every device's block at once.
    pub fn run(&self) -> Result<Vec<(Matrix<FloatArray>, TernaryArray)>> {
        self.devices.run(|i, _| {
            let w = &self.work[i];
            let bc = w.beta_c.as_ref().map(|(beta, c)| (beta, c));
            w.a.gemm(&w.b, &w.alpha, bc, &self.opts)
        })
    }

    /// Multiply-accumulates of the whole product.
    pub fn macs(&self) -> f64 {
        let k = match self.opts.op_a {
            Op::None => self.work[0].a.cols(),
            _ => self.work[0].a.rows(),
        };
        self.rows.last().map_or(0, |r| r.end) as f64 * self.n as f64 * k as f64
    }

    /// The blocks stacked in order on `out`.
    pub fn gather(
        &self,
        blocks: Vec<(Matrix<FloatArray>, TernaryArray)>,
        out: &Engine,
    ) -> Result<(Matrix<FloatArray>, TernaryArray)> {
        let m = self.rows.last().map_or(0, |r| r.end);
        let mut datas = Vec::with_capacity(blocks.len());
        let mut terns = Vec::with_capacity(m * self.n);
        for (blk, t) in blocks {
            datas.push(blk.to_host()?.into_data());
            terns.extend(t.to_vec()?);
        }
        let data = FloatArray::concat_host(datas)?;
        let c = Matrix::from_array(data, m, self.n)?.into_engine(out)?;
        Ok((c, TernaryArray::from_vec(out, terns)?))
    }
}

/// The product of two huge integers with `a` cut into one piece per
/// device: device `i` multiplies its piece by `b`, and the shifted
/// products are summed on the host. Each device's transform is shorter
/// than the whole product's, so P devices give less than P times the
/// speed of one (a split of the transform itself is not built).
pub fn huge_mul(devices: &Devices, a: &HugeInt, b: &HugeInt, out: &Engine) -> Result<HugeInt> {
    let plan = HugeMulPlan::new(devices, a, b)?;
    let prods = plan.run()?;
    plan.sum(prods, out)
}

/// A split huge product with its operands on the devices.
pub struct HugeMulPlan {
    devices: Devices,
    /// Per device: the limb offset of its piece, the piece and b.
    work: Vec<(usize, HugeInt, HugeInt)>,
}

impl HugeMulPlan {
    pub fn new(devices: &Devices, a: &HugeInt, b: &HugeInt) -> Result<HugeMulPlan> {
        let al = a.to_limbs()?;
        let bl = b.to_limbs()?;
        let ranges = devices.ranges(al.len());
        let work = devices.run(|i, e| {
            let r = ranges[i].clone();
            Ok((
                r.start,
                HugeInt::from_limbs(e, &al[r])?,
                HugeInt::from_limbs(e, &bl)?,
            ))
        })?;
        Ok(HugeMulPlan {
            devices: devices.clone(),
            work,
        })
    }

    /// Every device's product at once (on its device).
    pub fn run(&self) -> Result<Vec<HugeInt>> {
        self.devices.run(|i, _| {
            let (_, x, y) = &self.work[i];
            x.mul(y)
        })
    }

    /// The sum of the shifted products, on `out`.
    pub fn sum(&self, prods: Vec<HugeInt>, out: &Engine) -> Result<HugeInt> {
        let mut acc: Vec<u64> = Vec::new();
        for ((off, _, _), p) in self.work.iter().zip(prods) {
            let limbs = p.to_limbs()?;
            add_shifted(&mut acc, &limbs, *off);
        }
        while acc.last() == Some(&0) {
            acc.pop();
        }
        HugeInt::from_limbs(out, &acc)
    }
}

/// `acc += x * 2^(64*off)`, growing `acc` as needed.
fn add_shifted(acc: &mut Vec<u64>, x: &[u64], off: usize) {
    if acc.len() < off + x.len() + 1 {
        acc.resize(off + x.len() + 1, 0);
    }
    let mut carry = false;
    let mut i = off;
    for &w in x {
        let (s1, c1) = acc[i].overflowing_add(w);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        acc[i] = s2;
        carry = c1 || c2;
        i += 1;
    }
    while carry {
        if i == acc.len() {
            acc.push(0);
        }
        let (s, c) = acc[i].overflowing_add(1);
        acc[i] = s;
        carry = c;
        i += 1;
    }
}

//! The fused Ehrlich-Aberth iteration on CUDA (`src/kernels/roots.cu`):
//! the state of [`super::polyroots`] in device buffers, one launch per
//! sub-step (one block of [`BLOCK`] threads per root), and one copy of the
//! per-root flags back to the host per step.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};

use super::polyroots::{CUDA_MAX_LIMBS, F_ISO, F_NOISE, F_SMALL, Setup, Stepper};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::{alloc_zeros, download, upload};
use crate::engine::cuda::pool::{Pool, event_done, wait_event};
use crate::error::{Error, Result};
use crate::kernels::{Instance, KernelSource, ROOTS};

/// Threads per block (per root; roots.cu's RT_BLOCK, its launch bound).
pub const BLOCK: u32 = 256;

/// Timing aids for trying kernel variants without a rebuild, read once
/// from the environment: `MPARRAY_ROOTS_CU` (a roots.cu to compile
/// instead of the built-in one), `MPARRAY_ROOTS_BLOCK` (threads per block
/// of the iteration, passed as RT_BLOCK), `MPARRAY_ROOTS_V` (a variant
/// number passed as RT_V), `MPARRAY_ROOTS_SMEM` (dynamic shared bytes per
/// block of the iteration's kernels and of `roots_certify`; unset: as
/// [`iter_smem`] and [`cert_smem`] choose; 0: none, every value in the
/// global workspace; `auto`: the sizes [`SMEM_BY_DEFAULT`] would give), `MPARRAY_ROOTS_WS` (workspace words per root as a multiple of
/// the built-in size; the default, unset, is [`iter_smem`]'s), `MPARRAY_ROOTS_PROFILE` (the kernels' per-phase
/// clock counters, printed at the end of a solve), `MPARRAY_ROOTS_SYNC`
/// (one step at a time, the flags read after each, instead of the
/// chained steps of [`CudaIter::run_chained`]).
struct Knobs {
    src: &'static KernelSource,
    block: u32,
    v: i64,
    smem: Option<u32>,
    smem_auto: bool,
    ws: usize,
    prof: bool,
    sync: bool,
}

fn knobs() -> &'static Knobs {
    static K: OnceLock<Knobs> = OnceLock::new();
    K.get_or_init(|| {
        let num = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<i64>().ok());
        let src = std::env::var_os("MPARRAY_ROOTS_CU")
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map_or(&ROOTS, |code| {
                &*Box::leak(Box::new(KernelSource {
                    name: "roots",
                    code: Box::leak(code.into_boxed_str()),
                }))
            });
        Knobs {
            src,
            block: num("MPARRAY_ROOTS_BLOCK").map_or(BLOCK, |b| b.clamp(32, 1024) as u32),
            v: num("MPARRAY_ROOTS_V").unwrap_or(0),
            smem: num("MPARRAY_ROOTS_SMEM").map(|b| b.clamp(0, 227 << 10) as u32),
            smem_auto: std::env::var("MPARRAY_ROOTS_SMEM").is_ok_and(|v| v == "auto"),
            ws: num("MPARRAY_ROOTS_WS").map_or(1, |b| b.clamp(1, 8) as usize),
            prof: std::env::var_os("MPARRAY_ROOTS_PROFILE").is_some(),
            sync: std::env::var_os("MPARRAY_ROOTS_SYNC").is_some(),
        }
    })
}

/// Phase counters of the profile (roots.cu's RT_PROF_SLOTS), then per
/// row of the flags' ring the launch spans (roots.cu's `rt_span`: six
/// slots, the earliest start and the latest end of each launch).
const PROF_SLOTS: usize = 64 + 6 * RING;

/// Rows of the flags' ring (chained steps: a batch and the two steps
/// before it).
const RING: usize = BATCH + 2;

/// Steps enqueued between two reads of the flags (chained steps).
const BATCH: usize = 8;

/// roots.cu's RT_F_SKIP: a step not made (the iteration had stopped).
const F_SKIP: u8 = 0x80;

/// Threads per block of `roots_certify`.
const CERT_BLOCK: u32 = 256;

/// Words of one root's workspace (roots.cu's `rt_ws_words`).
fn ws_words(n: usize, w: usize) -> usize {
    (23 * n + 38) * w
}

/// Words of one point's workspace of `roots_certify` (`rt_cert_words`).
fn cert_words(n: usize, w: usize) -> usize {
    9 * (n + 1) * w
}

/// Words of dynamic shared memory with which `roots_aberth_first` and
/// `roots_aberth_next` keep their per-root values there (roots.cu's
/// `rt_sm_first`, `rt_sm_next`).
fn sm_first(n: usize, w: usize) -> usize {
    (10 * n + 30) * w
}
fn sm_next(n: usize, w: usize) -> usize {
    (9 * n + 26) * w
}

/// A bound on a roots kernel's static shared bytes for `nl` limbs and
/// `block` threads (roots.cu: the groups' and warps' product scratch,
/// `(RT_GROUPS + block / 32) 6 RT_N` words, the certify's ring and
/// scalars, the flags), with room to spare.
fn static_smem(nl: usize, block: u32) -> usize {
    (40 + block as usize / 32) * 48 * nl + 32 * (nl + 1) * 8 + 1024
}

/// Whether the kernels get dynamic shared memory without
/// `MPARRAY_ROOTS_SMEM`. On: on the H200 (2026-12-03 13:15 UTC, commit
/// 9831274, with `MPARRAY_ROOTS_SMEM=auto`, i.e. these sizes) Wilkinson 128
/// at 1024 bits took 28.9 / 29.9 ms against 33.0 ms in the global
/// workspace, with the same bits (tests/roots_fused.rs 3/3); the certify
/// kernel's launch with a small dynamic size beside a large static one
/// needs [`allow_smem`]'s raised limit.
const SMEM_BY_DEFAULT: bool = true;

/// Dynamic shared bytes of the iteration's launches (both kernels get
/// the same): enough for both kernels' values when the device allows it
/// (the H200: 227 KiB a block; Wilkinson 128 at 1024 bits needs 174
/// KiB), else for `roots_aberth_next`'s alone, else 0 (every value in the
/// global workspace; each kernel checks the size it got). Same bits
/// either way. `MPARRAY_ROOTS_SMEM` overrides it (capped at what the
/// device allows beside the static shared memory); 0 when
/// [`SMEM_BY_DEFAULT`] is off.
fn iter_smem(eng: &CudaEngine, n: usize, nl: usize) -> u32 {
    let (w, room) = (
        nl + 1,
        eng.info().max_shared_per_block_optin.max(0) as usize,
    );
    let room = room.saturating_sub(static_smem(nl, knobs().block));
    if let Some(b) = knobs().smem {
        return b.min(room as u32);
    }
    if !(SMEM_BY_DEFAULT || knobs().smem_auto) {
        return 0;
    }
    let (f, x) = (8 * sm_first(n, w), 8 * sm_next(n, w));
    [f.max(x), x]
        .into_iter()
        .find(|&b| b <= room)
        .map_or(0, |b| b as u32)
}

/// Dynamic shared bytes of `roots_certify`: its workspace when the device
/// has room (else 0: the global one).
fn cert_smem(eng: &CudaEngine, n: usize, nl: usize) -> u32 {
    let room = (eng.info().max_shared_per_block_optin.max(0) as usize)
        .saturating_sub(static_smem(nl, CERT_BLOCK));
    if let Some(b) = knobs().smem {
        return b.min(room as u32);
    }
    if !(SMEM_BY_DEFAULT || knobs().smem_auto) {
        return 0;
    }
    let b = 8 * cert_words(n, nl + 1);
    if b <= room { b as u32 } else { 0 }
}

/// Raises `f`'s dynamic shared-memory limit to `bytes`. Needed whenever
/// static plus dynamic shared memory exceed 48 KiB, not only when the
/// dynamic size alone does: the default limit is 48 KiB less the static
/// size (at 16 limbs the kernels' static scratch is about 37 KB, so a
/// certify workspace of a few tens of KB was refused with
/// CUDA_ERROR_INVALID_VALUE on the H200).
fn allow_smem(f: &cudarc::driver::CudaFunction, bytes: u32) -> Result<()> {
    if bytes > 0 {
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .map_err(Error::driver(
            "raising the shared-memory limit of the roots kernels",
        ))?;
    }
    Ok(())
}

/// The roots kernels for `nl` limbs per float.
pub fn instance(nl: usize) -> Instance {
    let k = knobs();
    let mut d = vec![("RT_N", nl as i64)];
    if k.block != BLOCK {
        d.push(("RT_BLOCK", k.block as i64));
    }
    if k.v != 0 {
        d.push(("RT_V", k.v));
    }
    Instance::new(k.src, &d)
}

/// Whether the iteration runs chained ([`CudaIter::run_chained`], the
/// default) rather than one step at a time (`MPARRAY_ROOTS_SYNC`).
pub(crate) fn chained() -> bool {
    !knobs().sync
}

/// Every instantiation the iteration can request (1 to 16 limbs).
pub fn instances() -> Vec<Instance> {
    (1..=CUDA_MAX_LIMBS).map(instance).collect()
}

/// The limb counts of the benchmarked precisions (128..1024 bits) and 64
/// bits: what a warmed machine and CI compile.
pub fn warm_instances() -> Vec<Instance> {
    [1, 2, 4, 8, 16].into_iter().map(instance).collect()
}

/// The device state of one solve.
pub(crate) struct CudaIter {
    eng: Arc<CudaEngine>,
    inst: Instance,
    n: usize,
    p: u64,
    kshift: i64,
    a: CudaSlice<u64>,
    d: CudaSlice<u64>,
    ab: CudaSlice<u64>,
    consts: CudaSlice<u64>,
    /// The approximations x (`b[xi]`) and the sub-steps' t^(l) (the
    /// other two, alternately); `cur`: the last step's result.
    b: [CudaSlice<u64>; 3],
    xi: usize,
    cur: usize,
    pd: CudaSlice<u64>,
    ws: CudaSlice<u64>,
    /// The per-root flags: RING rows (a step's row: its number mod RING),
    /// then a row of zeros.
    flags: CudaSlice<u8>,
    /// The flags' page-locked copy and the event recorded after the copy
    /// into it ([`CudaIter::queue_flags`]), taken from the engine's pool
    /// at the first read and given back when the iteration is dropped.
    fcopy: Option<FlagCopy>,
    /// The kernels' phase counters (`MPARRAY_ROOTS_PROFILE`).
    prof: CudaSlice<u64>,
    /// Launches of roots_aberth_first and roots_aberth_next.
    launches: [u64; 2],
    /// Dynamic shared bytes of both kernels' launches ([`iter_smem`]).
    smem: u32,
    /// Host time of the launches and of the flags' downloads (ns).
    host_ns: [u128; 2],
    /// The profile's launch spans and gaps (chained steps, ns):
    /// per launch kind (first, next, last next) the sum of spans and
    /// their count; the gaps first -> next, next -> last next, a step's
    /// end -> the next step's start within a batch, and across a batch's
    /// end (the host's wait); sums and counts.
    spans: [[u64; 2]; 3],
    gaps: [[u64; 2]; 4],
    /// The end of the last step seen (ns, %globaltimer).
    last_end: u64,
}

impl CudaIter {
    pub fn new(eng: &Arc<CudaEngine>, su: &Setup, x: &[u64]) -> Result<CudaIter> {
        let (n, w) = (su.n, su.w());
        let cw = 2 * w;
        if su.nl > CUDA_MAX_LIMBS {
            return Err(Error::Invalid(format!(
                "{} limbs: the CUDA root kernels serve up to {CUDA_MAX_LIMBS}",
                su.nl
            )));
        }
        Ok(CudaIter {
            eng: eng.clone(),
            inst: instance(su.nl),
            n,
            p: su.p,
            kshift: su.kshift,
            a: upload(eng, &su.a)?,
            d: upload(eng, &su.d)?,
            ab: upload(eng, &su.ab)?,
            consts: upload(eng, &su.consts)?,
            b: [
                upload(eng, x)?,
                alloc_zeros(eng, n * cw)?,
                alloc_zeros(eng, n * cw)?,
            ],
            xi: 0,
            cur: 0,
            pd: alloc_zeros(eng, n * 2 * cw)?,
            ws: alloc_zeros(eng, n * ws_words(n, w) * knobs().ws)?,
            flags: alloc_zeros(eng, (RING + 1) * n)?,
            fcopy: None,
            prof: alloc_zeros(eng, PROF_SLOTS)?,
            launches: [0; 2],
            smem: iter_smem(eng, n, su.nl),
            host_ns: [0; 2],
            spans: [[0; 2]; 3],
            gaps: [[0; 2]; 4],
            last_end: 0,
        })
    }

    fn cfg(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.n as u32, 1, 1),
            block_dim: (knobs().block, 1, 1),
            shared_mem_bytes: self.smem,
        }
    }

    /// The profile's report (MPARRAY_ROOTS_PROFILE): per launch kind, the
    /// mean clock cycles per block of each phase.
    fn report(&self) -> Result<()> {
        let c = download(&self.eng, &self.prof)?;
        let names = [
            "init",
            "powers",
            "term products",
            "term sums",
            "trees p p' noise",
            "rep: differences",
            "rep: squares",
            "rep: divisions",
            "rep: products",
            "rep: tree",
            "tail",
            "",
            "",
            "",
            "",
            "",
        ];
        for (kind, base) in [("first", 0usize), ("next", 16)] {
            let l = self.launches[usize::from(kind == "next")] as f64 * self.n as f64;
            if l == 0.0 {
                continue;
            }
            let tot: u64 = c[base..base + 16].iter().sum();
            let mut line = format!(
                "roots kernel profile {kind}: {} launches, {:.0} cycles a block-launch:",
                l as u64 / self.n as u64,
                tot as f64 / l
            );
            for (k, name) in names.iter().enumerate() {
                if c[base + k] != 0 {
                    line += &format!(" {name} {:.0};", c[base + k] as f64 / l);
                }
            }
            eprintln!("{line}");
        }
        eprintln!(
            "roots host profile: launch calls {:.3} ms, flag downloads (waits) {:.3} ms",
            self.host_ns[0] as f64 * 1e-6,
            self.host_ns[1] as f64 * 1e-6
        );
        let avg = |v: [u64; 2]| {
            if v[1] == 0 {
                "-".to_string()
            } else {
                format!("{:.1} us x {}", v[0] as f64 * 1e-3 / v[1] as f64, v[1])
            }
        };
        if self.spans.iter().any(|v| v[1] > 0) {
            eprintln!(
                "roots launch spans (first block start to last block end): first {}, next {}, last next {}; gaps: first -> next {}, next -> last next {}, step -> step {}, across a batch {}",
                avg(self.spans[0]),
                avg(self.spans[1]),
                avg(self.spans[2]),
                avg(self.gaps[0]),
                avg(self.gaps[1]),
                avg(self.gaps[2]),
                avg(self.gaps[3])
            );
        }
        Ok(())
    }

    /// The profile's span slots reset (before a batch of chained steps).
    fn reset_spans(&mut self) -> Result<()> {
        let v: Vec<u64> = (0..6 * RING)
            .map(|k| if k % 2 == 0 { u64::MAX } else { 0 })
            .collect();
        self.eng
            .stream()
            .memcpy_htod(&v, &mut self.prof.slice_mut(64..PROF_SLOTS))
            .map_err(Error::driver("copying to the device"))
    }

    /// The spans of steps `from..to` (made, not skipped) into the sums.
    fn take_spans(&mut self, from: usize, to: usize) -> Result<()> {
        let c = download(&self.eng, &self.prof)?;
        for s in from..to {
            let r = 64 + 6 * (s % RING);
            let sl = &c[r..r + 6];
            let mut prev_end: Option<u64> = None;
            for k in 0..3 {
                let (a, b) = (sl[2 * k], sl[2 * k + 1]);
                if a == u64::MAX || b == 0 || b < a {
                    continue;
                }
                self.spans[k][0] += b - a;
                self.spans[k][1] += 1;
                if k == 0 {
                    if self.last_end != 0 && a >= self.last_end {
                        let g = if s == from { 3 } else { 2 };
                        self.gaps[g][0] += a - self.last_end;
                        self.gaps[g][1] += 1;
                    }
                } else if let Some(e) = prev_end.filter(|&e| a >= e) {
                    self.gaps[k - 1][0] += a - e;
                    self.gaps[k - 1][1] += 1;
                }
                prev_end = Some(b);
            }
            if let Some(e) = prev_end {
                self.last_end = e;
            }
        }
        Ok(())
    }

    fn smem(&self, f: &cudarc::driver::CudaFunction) -> Result<()> {
        allow_smem(f, self.smem)
    }
}

/// `b[i]` and `b[j]` (i != j), the second mutable.
fn pair(b: &mut [CudaSlice<u64>; 3], i: usize, j: usize) -> (&CudaSlice<u64>, &mut CudaSlice<u64>) {
    let [b0, b1, b2] = b;
    match (i, j) {
        (0, 1) => (b0, b1),
        (0, 2) => (b0, b2),
        (1, 0) => (b1, b0),
        (1, 2) => (b1, b2),
        (2, 0) => (b2, b0),
        _ => (b2, b1),
    }
}

impl CudaIter {
    /// Enqueues one step of order `order` from `b[xi]` (its sub-steps
    /// into the other two buffers alternately; `cur` gets the last), its
    /// flags into row `row`; `check`: the kernels first test whether the
    /// step before (flags in rows `prow`, `prow2`) stopped the iteration,
    /// and skip the step if so.
    fn enqueue(&mut self, order: usize, row: u32, prow: u32, prow2: u32, check: u32) -> Result<()> {
        let (n32, p, ks) = (self.n as u32, self.p, self.kshift);
        let cfg = self.cfg();
        let pon = u32::from(knobs().prof);
        let first = self.eng.function(&self.inst, "roots_aberth_first")?;
        self.smem(&first)?;
        let last = u32::from(order == 1);
        let (ta, tb) = ((self.xi + 1) % 3, (self.xi + 2) % 3);
        {
            let (x, t0) = pair(&mut self.b, self.xi, ta);
            let mut b = self.eng.stream().launch_builder(&first);
            b.arg(x)
                .arg(t0)
                .arg(&mut self.pd)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.a)
                .arg(&self.d)
                .arg(&self.ab)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&p)
                .arg(&ks)
                .arg(&last)
                .arg(&mut self.prof)
                .arg(&pon)
                .arg(&row)
                .arg(&prow)
                .arg(&prow2)
                .arg(&check);
            // SAFETY: buffers sized in `new` for n roots of the instance's
            // limb count (flags: RING + 1 rows of n); one block per root.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_aberth_first"))?;
        }
        self.launches[0] += 1;
        let next = if order > 1 {
            let f = self.eng.function(&self.inst, "roots_aberth_next")?;
            self.smem(&f)?;
            Some(f)
        } else {
            None
        };
        let mut cur = ta;
        for l in 1..order {
            let last = u32::from(l + 1 == order);
            let out = if cur == ta { tb } else { ta };
            // x, t (read) and tout (written): three distinct buffers.
            let [b0, b1, b2] = &mut self.b;
            let mut refs: [Option<&mut CudaSlice<u64>>; 3] = [Some(b0), Some(b1), Some(b2)];
            let x = refs[self.xi].take().expect("distinct");
            let tin = refs[cur].take().expect("distinct");
            let tout = refs[out].take().expect("distinct");
            let f = next.as_ref().expect("order > 1");
            let mut b = self.eng.stream().launch_builder(f);
            b.arg(&*x)
                .arg(&*tin)
                .arg(tout)
                .arg(&self.pd)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&p)
                .arg(&last)
                .arg(&mut self.prof)
                .arg(&pon)
                .arg(&row);
            // SAFETY: as above.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_aberth_next"))?;
            self.launches[1] += 1;
            cur = out;
        }
        self.cur = cur;
        Ok(())
    }

    /// `polyroots::run`'s iteration with the steps chained on the device:
    /// [`BATCH`] steps enqueued at a time, each step's first kernel testing
    /// the step before's flags (the same stopping test) and skipping the
    /// step, and the ones after, once the iteration has stopped; after each
    /// batch the host reads the flags and replays `run`'s logic on them,
    /// step by step (its outcome, the progress calls). Same steps, same
    /// bits, one wait per batch instead of one per step.
    pub(crate) fn run_chained(
        &mut self,
        order: usize,
        max_iter: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vec<u64>, Vec<bool>, usize)> {
        let n = self.n;
        let (mut ins, mut outs) = (Vec::new(), Vec::new());
        // Steps enqueued, processed, and covered by the queued flags' copy.
        let (mut queued, mut made, mut readable) = (0usize, 0usize, 0usize);
        let mut step_ok = vec![false; n];
        let row = |s: usize| (s % RING) as u32;
        let end = max_iter.saturating_add(1);
        // Look-ahead: the next batch is enqueued behind the flags' copy
        // before the host waits for it, so the device does not idle while
        // the host reads and enqueues (about 70 us a batch on the H200).
        // Steps past the stop are skipped on the device. Not with the
        // profile, whose spans are taken per batch, nor with
        // `MPARRAY_ROOTS_NOAHEAD` (for measurements).
        let ahead = !knobs().prof && std::env::var_os("MPARRAY_ROOTS_NOAHEAD").is_none();
        let mut from = 0;
        loop {
            if readable == made {
                if queued == made {
                    if knobs().prof {
                        self.reset_spans()?;
                    }
                    from = queued;
                    let upto = (queued + BATCH).min(end);
                    self.enqueue_steps(order, &mut queued, upto, &mut ins, &mut outs)?;
                }
                self.queue_flags()?;
                readable = queued;
            }
            if ahead && queued < end {
                let upto = (queued + BATCH).min(end);
                self.enqueue_steps(order, &mut queued, upto, &mut ins, &mut outs)?;
            }
            let h1 = std::time::Instant::now();
            let fl = self.wait_flags()?;
            self.host_ns[1] += h1.elapsed().as_nanos();
            if knobs().prof {
                let to = (from..readable)
                    .find(|&s| {
                        let r = (s % RING) * n;
                        fl[r..r + n].iter().any(|&v| v & F_SKIP != 0)
                    })
                    .unwrap_or(readable);
                self.take_spans(from, to)?;
            }
            while made < readable {
                let s = made;
                let r = row(s) as usize * n;
                let f = &fl[r..r + n];
                if f.iter().any(|&v| v & F_SKIP != 0) {
                    return Err(Error::Invalid(format!(
                        "roots: step {s} was skipped on the device before the iteration stopped"
                    )));
                }
                let conv = f
                    .iter()
                    .zip(&step_ok)
                    .map(|(&f, &ok)| f & F_ISO != 0 && (f & F_NOISE != 0 || ok))
                    .collect::<Vec<_>>();
                let done = conv.iter().all(|&c| c);
                // The profile's launch counts: the steps made.
                self.launches = [(s + 1) as u64, ((s + 1) * (order - 1)) as u64];
                if s == max_iter {
                    self.xi = ins[s];
                    return Ok((self.roots()?, conv, s));
                }
                step_ok = f.iter().map(|&f| f & F_SMALL != 0).collect();
                made += 1;
                progress(made, conv.iter().filter(|&&c| c).count());
                if done {
                    self.xi = outs[s];
                    return Ok((self.roots()?, conv, made));
                }
            }
        }
    }

    /// Enqueues steps `queued..upto` (chained: each step's first launch
    /// tests the previous step's flags), recording each step's input and
    /// output buffers.
    fn enqueue_steps(
        &mut self,
        order: usize,
        queued: &mut usize,
        upto: usize,
        ins: &mut Vec<usize>,
        outs: &mut Vec<usize>,
    ) -> Result<()> {
        let row = |s: usize| (s % RING) as u32;
        let h0 = std::time::Instant::now();
        while *queued < upto {
            let s = *queued;
            let prow = if s >= 1 { row(s - 1) } else { RING as u32 };
            let prow2 = if s >= 2 { row(s - 2) } else { RING as u32 };
            ins.push(self.xi);
            self.enqueue(order, row(s), prow, prow2, u32::from(s >= 1))?;
            outs.push(self.cur);
            self.xi = self.cur;
            *queued += 1;
        }
        self.host_ns[0] += h0.elapsed().as_nanos();
        Ok(())
    }

    /// Queues an asynchronous copy of the flags (all rows, as they are
    /// after the work enqueued so far) into page-locked memory and an
    /// event after it; [`CudaIter::wait_flags`] reads it.
    fn queue_flags(&mut self) -> Result<()> {
        let len = self.flags.len();
        if self.fcopy.is_none() {
            self.fcopy = Some(FlagCopy::take(&self.eng, len)?);
        }
        let s = self.eng.stream();
        let fc = self.fcopy.as_mut().expect("taken above");
        // A plain slice destination: the engine tracks no events, so the
        // pinned slice's own event would never be recorded; `ev` orders
        // the read.
        let dst = &mut fc
            .host
            .as_mut_slice()
            .map_err(Error::driver("page-locked host memory"))?[..len];
        s.memcpy_dtoh(&self.flags, dst)
            .map_err(Error::driver("copying the roots' flags from the device"))?;
        fc.ev.record(s).map_err(Error::driver("recording an event"))
    }

    /// The flags copied by the last [`CudaIter::queue_flags`], once the
    /// copy has finished.
    fn wait_flags(&mut self) -> Result<Vec<u8>> {
        let fc = self.fcopy.as_ref().ok_or_else(|| {
            Error::Invalid("roots: the flags were read before a copy was queued".into())
        })?;
        event_done("the roots' flags from the device", &fc.ev)?;
        Ok(fc
            .host
            .as_slice()
            .map_err(Error::driver("page-locked host memory"))?[..self.flags.len()]
            .to_vec())
    }
}

/// Page-locked bytes for the flags' copy and the event recorded after it,
/// kept in the engine's pool "roots flag copies" between solves: a
/// page-locked allocation costs far more than a step's host work.
struct FlagCopy {
    host: PinnedHostSlice<u8>,
    ev: CudaEvent,
}

impl FlagCopy {
    /// One of at least `len` bytes: from the pool, else a new one.
    fn take(eng: &Arc<CudaEngine>, len: usize) -> Result<FlagCopy> {
        let pool = eng.resource("roots flag copies", |_| Ok(Pool::<FlagCopy>::default()))?;
        if let Some(fc) = pool.take()
            && fc.host.len() >= len
        {
            return Ok(fc);
        }
        // SAFETY: page-locked bytes, written by a copy before they are
        // read (after the copy's event).
        let host = unsafe {
            eng.context()
                .alloc_pinned_with_flags::<u8>(len.max(16 << 10), 0)
        }
        .map_err(Error::driver("allocating page-locked memory"))?;
        Ok(FlagCopy {
            host,
            ev: wait_event(eng)?,
        })
    }
}

impl Drop for CudaIter {
    /// The flags' copy goes back to the pool once its last copy is done
    /// (on an error it is dropped, not reused).
    fn drop(&mut self) {
        if let Some(fc) = self.fcopy.take()
            && fc.ev.synchronize().is_ok()
            && let Ok(pool) = self
                .eng
                .resource("roots flag copies", |_| Ok(Pool::<FlagCopy>::default()))
        {
            pool.give(fc);
        }
    }
}

impl Stepper for CudaIter {
    fn step(&mut self, order: usize) -> Result<Vec<u8>> {
        let h0 = std::time::Instant::now();
        self.enqueue(order, 0, 0, 0, 0)?;
        let h1 = std::time::Instant::now();
        let f = download(&self.eng, &self.flags).map(|mut f| {
            f.truncate(self.n);
            f
        });
        self.host_ns[0] += (h1 - h0).as_nanos();
        self.host_ns[1] += h1.elapsed().as_nanos();
        f
    }

    fn commit(&mut self) {
        self.xi = self.cur;
    }

    fn roots(&self) -> Result<Vec<u64>> {
        if knobs().prof {
            self.report()?;
        }
        let mut v = download(&self.eng, &self.b[self.xi])?;
        v.truncate(self.n * 2 * (self.p.div_ceil(64) as usize + 1));
        Ok(v)
    }
}

/// The residual bounds of `polyroots::certify_root` for the packed points
/// `x` (one block per point, at most enough blocks for a 256 MiB
/// workspace, each taking every `grid`-th point), packed.
pub(crate) fn certify(eng: &Arc<CudaEngine>, su: &Setup, x: &[u64]) -> Result<Vec<u64>> {
    let w = su.w();
    let len = x.len() / (2 * w);
    if len == 0 {
        return Ok(Vec::new());
    }
    let a = upload(eng, &su.a)?;
    let er = upload(eng, &su.er)?;
    let xd = upload(eng, x)?;
    let mut out = alloc_zeros::<u64>(eng, len * w)?;
    let per = cert_words(su.n, w);
    let grid = len.min(((256usize << 20) / 8 / per).max(1)).min(65535);
    let f = eng.function(&instance(su.nl), "roots_certify")?;
    let smem = cert_smem(eng, su.n, su.nl);
    allow_smem(&f, smem)?;
    // With the workspace in shared memory (roots.cu's test: per words fit
    // in the dynamic bytes) the global one is never read: one word.
    let in_smem = 8 * per <= smem as usize;
    let mut ws = alloc_zeros::<u64>(eng, if in_smem { 1 } else { grid * per })?;
    let (n32, len32, p) = (su.n as u32, len as u32, su.p);
    let mut b = eng.stream().launch_builder(&f);
    b.arg(&xd)
        .arg(&mut out)
        .arg(&a)
        .arg(&er)
        .arg(&mut ws)
        .arg(&n32)
        .arg(&len32)
        .arg(&p);
    let cfg = LaunchConfig {
        grid_dim: (grid as u32, 1, 1),
        block_dim: (CERT_BLOCK, 1, 1),
        shared_mem_bytes: smem,
    };
    let t0 = knobs().prof.then(|| {
        let _ = eng.stream().synchronize();
        std::time::Instant::now()
    });
    // SAFETY: x holds len packed points, out len reals, A and er n + 1
    // values of the instance's limb count, ws grid points' workspaces (or
    // one word when they are in shared memory).
    unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_certify"))?;
    let mut v = download(eng, &out)?;
    if let Some(t0) = t0 {
        eprintln!(
            "roots profile: bounds kernel and download {:.3} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    v.truncate(len * w);
    Ok(v)
}

//! The CUDA engine for huge naturals: device buffers of limbs, linear
//! primitives (`huge_linear.cu`) and multiplication by number-theoretic
//! transforms (`huge_ntt.cu`).
//!
//! Multiplication cuts operands into 32-bit pieces and convolves them modulo
//! three primes `k 2^27 + 1` in `(2^31, 2^32)` with transforms of length
//! `N = 2^n`, `12 <= n <= 27`, one product of up to `N/2` limbs per
//! transform. Larger products, and products whose transforms would not fit
//! in the memory limit, are split: the longer operand in chunks against the
//! shorter one's transform (computed once), and, when the shorter one is too
//! long as well, the shorter one in pieces; the partial products are added
//! into the result on the device.

use std::cmp::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;

use super::HugeEngine;
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{HUGE_LINEAR, HUGE_NTT, Instance};

use crate::modp::{inv, mulmod, powmod};

/// The primes, and generators of their multiplicative groups.
const P: [u64; 3] = [3_892_314_113, 3_489_660_929, 3_221_225_473];
const GEN: [u64; 3] = [3, 3, 5];
/// Longest transform: 2^27 (the primes' common 2-power order).
const LOG_MAX: u32 = 27;
/// Shortest transform: one shared-memory tile.
const LOG_TILE: u32 = 12;
const TL_BITS: u32 = 14;
const OFF_TH: usize = 1 << TL_BITS;
const OFF_TT: usize = OFF_TH + (1 << (LOG_MAX - TL_BITS));
const OFF_ROOT: usize = OFF_TT + (1 << LOG_TILE);
/// u32 entries of one (direction, prime) twiddle table; matches HN_TAB.
const TAB: usize = OFF_ROOT + 32;
/// Device bytes one transform product of length N needs: two residue
/// arrays of 3 N words, and the 2 x N/2 limbs of the carry-save result.
const BYTES_PER_POINT: usize = 32;
/// Limbs per tile of the carry scan (HL_TILE).
const SCAN_TILE: usize = 2048;
const TPB: u32 = 256;
/// Most radix-2 stages per global pass (hn_fwd6, hn_inv6).
const MAX_LOGR: u32 = 6;

/// Limbs of one number on the device; `data` holds at least one limb.
pub struct CudaBuf {
    data: CudaSlice<u64>,
    len: usize,
}

/// The CUDA engine for huge naturals.
pub struct CudaHuge {
    eng: Arc<CudaEngine>,
    /// Twiddle tables: 3 forward then 3 inverse, `TAB` words each.
    tab: CudaSlice<u32>,
    mem_limit: usize,
    /// Kernels looked up so far, by name.
    funcs: Mutex<Vec<(&'static str, CudaFunction)>>,
    /// Page-locked staging buffer for large downloads (made on first use).
    staging: Mutex<Option<PinnedHostSlice<u64>>>,
    /// Page-locked word for read-backs (made on first use).
    word_host: Mutex<Option<PinnedHostSlice<u64>>>,
    /// Per-primitive call counts and times, when profiling.
    prof: Option<Mutex<Vec<ProfEntry>>>,
    /// Most radix-2 stages per global pass, 1..=MAX_LOGR.
    max_logr: u32,
}

/// Primitive name, calls, seconds.
type ProfEntry = (&'static str, u64, f64);

/// Limbs per staging chunk (32 MiB); downloads of more than one chunk go
/// through it: pageable device-to-host copies run at ~1 GB/s here.
const STAGE: usize = 1 << 22;

/// Every kernel instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_ntt(), inst_linear()]
}

fn inst_ntt() -> Instance {
    Instance::new(&HUGE_NTT, &[])
}

fn inst_linear() -> Instance {
    Instance::new(&HUGE_LINEAR, &[])
}

/// Montgomery form `x 2^32 mod p`.
fn mont(x: u64, p: u64) -> u32 {
    (((x % p) as u128) << 32).rem_euclid(p as u128) as u32
}

/// The twiddle tables of `huge_ntt.cu` (see HN_TAB there).
fn tables() -> Vec<u32> {
    let mut t = vec![0u32; 6 * TAB];
    for d in 0..2 {
        for q in 0..3 {
            let p = P[q];
            let mut w = powmod(GEN[q], (p - 1) >> LOG_MAX, p);
            if d == 1 {
                w = inv(w, p);
            }
            let tq = &mut t[(d * 3 + q) * TAB..(d * 3 + q + 1) * TAB];
            let mut x = 1;
            for t in &mut tq[..OFF_TH] {
                *t = mont(x, p);
                x = mulmod(x, w, p);
            }
            let step = powmod(w, 1 << TL_BITS, p);
            let mut x = 1;
            for t in &mut tq[OFF_TH..OFF_TT] {
                *t = mont(x, p);
                x = mulmod(x, step, p);
            }
            let mut h = 1usize;
            while h < 1 << LOG_TILE {
                let wh = powmod(w, (1u64 << LOG_MAX) / (2 * h as u64), p);
                let mut x = 1;
                for j in 0..h {
                    tq[OFF_TT + h + j] = mont(x, p);
                    x = mulmod(x, wh, p);
                }
                h *= 2;
            }
            for k in 0..=LOG_MAX {
                tq[OFF_ROOT + k as usize] = mont(powmod(w, 1 << (LOG_MAX - k), p), p);
            }
        }
    }
    t
}

fn ceil_log2(x: usize) -> u32 {
    if x <= 1 {
        0
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}

fn grid(items: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (items.div_ceil(TPB as u64).clamp(1, 65535 * 16) as u32, 1, 1),
        block_dim: (TPB, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn grid3(blocks: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks.max(1) as u32, 3, 1),
        block_dim: (TPB, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn launched<T>(r: std::result::Result<T, cudarc::driver::DriverError>, what: &str) -> Result<()> {
    r.map(|_| ())
        .map_err(Error::driver(format!("launching {what}")))
}

/// The memory limit from `MPARRAY_HUGE_MEM_LIMIT` (bytes, with an optional
/// K, M or G suffix), if set.
fn env_mem_limit() -> Result<Option<usize>> {
    match std::env::var("MPARRAY_HUGE_MEM_LIMIT") {
        Ok(s) => parse_mem_limit(&s).map(Some),
        Err(_) => Ok(None),
    }
}

/// Bytes from `123`, `64K`, `256M` or `2G`.
fn parse_mem_limit(s: &str) -> Result<usize> {
    let t = s.trim();
    let (num, mul) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|v| v.checked_mul(mul))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "MPARRAY_HUGE_MEM_LIMIT={s:?}: expected a number of bytes (suffix K, M or G allowed)"
            ))
        })
}

impl CudaHuge {
    /// The engine on `eng`'s device; the transform memory limit is
    /// `MPARRAY_HUGE_MEM_LIMIT` if set, else half the device memory (or
    /// half the engine's limit, `MPARRAY_CUDA_MEM_LIMIT`, when set).
    pub fn new(eng: Arc<CudaEngine>) -> Result<CudaHuge> {
        static TABLES: OnceLock<Vec<u32>> = OnceLock::new();
        let tab = crate::engine::cuda::memory::upload(&eng, TABLES.get_or_init(tables))?;
        let mem_limit = match env_mem_limit()? {
            Some(m) => m,
            // Half the device, or half of what MPARRAY_CUDA_MEM_LIMIT allows.
            None => match eng.mem_limit() {
                Some(l) => (l as usize / 2).min(eng.info().memory_bytes / 2),
                None => (eng.info().memory_bytes / 2).max(1 << 30),
            },
        };
        Ok(CudaHuge {
            eng,
            tab,
            mem_limit,
            funcs: Mutex::new(Vec::new()),
            staging: Mutex::new(None),
            word_host: Mutex::new(None),
            prof: None,
            max_logr: MAX_LOGR,
        })
    }

    /// The engine on device 0.
    pub fn shared() -> Result<CudaHuge> {
        CudaHuge::new(CudaEngine::shared()?)
    }

    /// The engine on `eng`, built once per device engine and kept (its
    /// tables stay on the device).
    pub fn for_engine(eng: &Arc<CudaEngine>) -> Result<Arc<CudaHuge>> {
        type Cache = Mutex<Vec<(usize, Arc<CudaHuge>)>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let key = Arc::as_ptr(eng) as usize;
        let mut c = CACHE
            .get_or_init(|| Mutex::new(Vec::new()))
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((_, h)) = c.iter().find(|(k, _)| *k == key) {
            return Ok(h.clone());
        }
        let h = Arc::new(CudaHuge::new(eng.clone())?);
        c.push((key, h.clone()));
        Ok(h)
    }

    /// Sets the device memory (bytes) one transform product may use; larger
    /// products are split.
    pub fn with_mem_limit(mut self, bytes: usize) -> CudaHuge {
        self.mem_limit = bytes;
        self
    }

    /// Limits global transform passes to `2^logr`-point groups (1..=6;
    /// default 6), for measurements.
    pub fn with_max_radix_log(mut self, logr: u32) -> CudaHuge {
        self.max_logr = logr.clamp(1, MAX_LOGR);
        self
    }

    /// Counts and times every primitive call (synchronizing around each,
    /// so the times include the device work each one queued).
    pub fn with_profile(mut self) -> CudaHuge {
        self.prof = Some(Mutex::new(Vec::new()));
        self
    }

    /// The profile so far: one line per primitive (calls, total ms, us per
    /// call), most expensive first.
    pub fn profile_report(&self) -> String {
        let Some(p) = &self.prof else {
            return "profiling is off".into();
        };
        let mut v = p.lock().unwrap_or_else(|e| e.into_inner()).clone();
        v.sort_by(|a, b| b.2.total_cmp(&a.2));
        v.iter()
            .map(|(n, c, t)| {
                format!(
                    "{n:<15} {c:>8} calls {:>10.1} ms {:>9.1} us/call\n",
                    t * 1e3,
                    t * 1e6 / *c as f64
                )
            })
            .collect()
    }

    fn timed<T>(&self, name: &'static str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(p) = &self.prof else {
            return f();
        };
        self.eng.synchronize()?;
        let t = std::time::Instant::now();
        let r = f();
        self.eng.synchronize()?;
        let dt = t.elapsed().as_secs_f64();
        let mut v = p.lock().unwrap_or_else(|e| e.into_inner());
        match v.iter_mut().find(|x| x.0 == name) {
            Some(x) => {
                x.1 += 1;
                x.2 += dt;
            }
            None => v.push((name, 1, dt)),
        }
        r
    }

    pub fn mem_limit(&self) -> usize {
        self.mem_limit
    }

    pub fn engine(&self) -> &Arc<CudaEngine> {
        &self.eng
    }

    /// Waits for all queued work (for timing).
    pub fn synchronize(&self) -> Result<()> {
        self.eng.synchronize()
    }

    fn f(&self, ntt: bool, name: &'static str) -> Result<CudaFunction> {
        let mut c = self.funcs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, f)) = c.iter().find(|(n, _)| *n == name) {
            return Ok(f.clone());
        }
        let inst = if ntt { inst_ntt() } else { inst_linear() };
        let f = self.eng.function(&inst, name)?;
        c.push((name, f.clone()));
        Ok(f)
    }

    fn alloc_zeros<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<CudaSlice<T>> {
        crate::engine::cuda::memory::alloc_zeros(&self.eng, n)
    }

    fn alloc<T: cudarc::driver::DeviceRepr>(&self, n: usize) -> Result<CudaSlice<T>> {
        // Every caller hands the buffer to kernels that write all of it
        // before it is read.
        crate::engine::cuda::memory::alloc(&self.eng, n)
    }

    /// One limb back to the host (waits for the queued work), through a
    /// page-locked word: small pageable copies cost more.
    fn read1(&self, buf: &CudaSlice<u64>, i: usize) -> Result<u64> {
        let mut guard = self.word_host.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            // SAFETY: read only after a copy into it completes.
            let p = unsafe { self.eng.context().alloc_pinned_with_flags::<u64>(1, 0) }
                .map_err(Error::driver("allocating page-locked host memory"))?;
            *guard = Some(p);
        }
        let host = guard
            .as_mut()
            .expect("set above")
            .as_mut_slice()
            .map_err(Error::driver("page-locked host memory"))?;
        // The copy into page-locked memory is asynchronous (and the engine
        // tracks no events): synchronize before reading.
        self.eng
            .stream()
            .memcpy_dtoh(&buf.slice(i..i + 1), &mut host[..1])
            .map_err(Error::driver("reading a limb back"))?;
        self.eng.synchronize()?;
        Ok(host[0])
    }

    fn word(&self, v: u64) -> Result<CudaSlice<u64>> {
        crate::engine::cuda::memory::upload(&self.eng, &[v])
    }

    /// Longest transform (log2) whose product fits in the memory limit.
    fn max_logn(&self) -> u32 {
        let mut l = LOG_MAX;
        while l > LOG_TILE && BYTES_PER_POINT << l > self.mem_limit {
            l -= 1;
        }
        l
    }

    // ---- linear primitives ----

    /// `acc[off..off+n] -/+= b[0..n]`; the carry or borrow out of the
    /// region when `want` (a read-back), else false.
    fn scan(
        &self,
        acc: &mut CudaSlice<u64>,
        off: usize,
        n: usize,
        b: &CudaSlice<u64>,
        sub: bool,
        want: bool,
    ) -> Result<bool> {
        if n == 0 {
            return Ok(false);
        }
        let tiles = n.div_ceil(SCAN_TILE);
        let n64 = n as u64;
        let cfg = LaunchConfig {
            grid_dim: (tiles as u32, 1, 1),
            block_dim: (TPB, 1, 1),
            shared_mem_bytes: 0,
        };
        let (f1, f3) = if sub {
            ("hl_sub1", "hl_sub3")
        } else {
            ("hl_add1", "hl_add3")
        };
        if tiles == 1 {
            // One tile: pass 3 alone, with carry-in 0, reports the carry out.
            let mut cout = self.alloc::<u64>(1)?;
            let f = self.f(false, f3)?;
            {
                let zero = 0u64;
                let mut view = acc.slice_mut(off..off + n);
                let mut bld = self.eng.stream().launch_builder(&f);
                bld.arg(&mut view).arg(b).arg(&n64).arg(&n64).arg(&zero);
                if want {
                    bld.arg(&mut cout);
                } else {
                    bld.arg(&zero);
                }
                // SAFETY: one block over the n <= 2048 limbs of the view and b.
                launched(unsafe { bld.launch(cfg) }, f3)?;
            }
            return Ok(want && self.read1(&cout, 0)? != 0);
        }
        let mut st = self.alloc::<u8>(tiles)?;
        let mut cout = self.alloc::<u64>(1)?;
        let t64 = tiles as u64;
        let f = self.f(false, f1)?;
        {
            let view = acc.slice(off..off + n);
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&view).arg(b).arg(&n64).arg(&n64).arg(&mut st);
            // SAFETY: the view and b hold n limbs, st one byte per tile.
            launched(unsafe { bld.launch(cfg) }, f1)?;
        }
        let f = self.f(false, "hl_scan2")?;
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(&mut st).arg(&t64).arg(&mut cout);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: st holds `tiles` bytes, cout one word.
        launched(unsafe { bld.launch(one) }, "hl_scan2")?;
        let f = self.f(false, f3)?;
        {
            let zero = 0u64;
            let mut view = acc.slice_mut(off..off + n);
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&mut view)
                .arg(b)
                .arg(&n64)
                .arg(&n64)
                .arg(&st)
                .arg(&zero);
            // SAFETY: as for pass 1; each limb is read and written by one thread.
            launched(unsafe { bld.launch(cfg) }, f3)?;
        }
        if !want {
            return Ok(false);
        }
        Ok(self.read1(&cout, 0)? != 0)
    }

    /// Carries (or borrows) one unit into `acc[from..n]`; true when it
    /// leaves the top limb. Windows grow geometrically, so a short run costs
    /// one small launch.
    fn propagate(
        &self,
        acc: &mut CudaSlice<u64>,
        from: usize,
        n: usize,
        sub: bool,
    ) -> Result<bool> {
        let (skip, fill, delta) = if sub {
            (0u64, u64::MAX, u64::MAX)
        } else {
            (u64::MAX, 0u64, 1u64)
        };
        let mut lo = from;
        let mut w = 4096usize;
        let find = self.f(false, "hl_find")?;
        let fillk = self.f(false, "hl_fill")?;
        while lo < n {
            let hi = n.min(lo + w);
            let mut res = self.word(u64::MAX)?;
            let (l64, h64, n64) = (lo as u64, hi as u64, n as u64);
            let mut bld = self.eng.stream().launch_builder(&find);
            bld.arg(&*acc).arg(&l64).arg(&h64).arg(&skip).arg(&mut res);
            // SAFETY: reads acc[lo..hi], writes res.
            launched(unsafe { bld.launch(grid((hi - lo) as u64)) }, "hl_find")?;
            let r = self.read1(&res, 0)?;
            if r != u64::MAX {
                let mut bld = self.eng.stream().launch_builder(&fillk);
                bld.arg(&mut *acc)
                    .arg(&l64)
                    .arg(&r)
                    .arg(&fill)
                    .arg(&res)
                    .arg(&n64)
                    .arg(&delta);
                // SAFETY: writes acc[lo..r] and acc[r] with r < n.
                launched(unsafe { bld.launch(grid((r - l64).max(1))) }, "hl_fill")?;
                return Ok(false);
            }
            let zero = 0u64;
            let mut bld = self.eng.stream().launch_builder(&fillk);
            bld.arg(&mut *acc)
                .arg(&l64)
                .arg(&h64)
                .arg(&fill)
                .arg(&zero)
                .arg(&n64)
                .arg(&delta);
            // SAFETY: writes acc[lo..hi]; a null stop pointer skips the increment.
            launched(unsafe { bld.launch(grid(h64 - l64)) }, "hl_fill")?;
            lo = hi;
            w = w.saturating_mul(8);
        }
        Ok(true)
    }

    /// 1 + the highest index where a and b (or zero) differ; 0 if equal.
    fn top(
        &self,
        a: &CudaSlice<u64>,
        na: usize,
        b: Option<(&CudaSlice<u64>, usize)>,
    ) -> Result<usize> {
        let nb = b.map_or(0, |x| x.1);
        if na.max(nb) == 0 {
            return Ok(0);
        }
        let mut res = self.alloc_zeros::<u64>(1)?;
        let f = self.f(false, "hl_top")?;
        let (na64, nb64, zero) = (na as u64, nb as u64, 0u64);
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(a).arg(&na64);
        match b {
            Some((b, _)) => bld.arg(b),
            None => bld.arg(&zero),
        };
        bld.arg(&nb64).arg(&mut res);
        // SAFETY: reads a[..na], b[..nb]; writes res.
        launched(unsafe { bld.launch(grid(na.max(nb) as u64)) }, "hl_top")?;
        Ok(self.read1(&res, 0)? as usize)
    }

    fn add_sub_at(&self, acc: &mut CudaBuf, b: &CudaBuf, shift: usize, sub: bool) -> Result<bool> {
        let n = acc.len;
        let m = b.len;
        let m_eff = if shift >= n { 0 } else { m.min(n - shift) };
        if m > m_eff {
            let rest = b.data.slice(m_eff..m);
            let (nr, zero, res0) = ((m - m_eff) as u64, 0u64, 0u64);
            let mut res = self.word(res0)?;
            let f = self.f(false, "hl_top")?;
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&rest).arg(&nr).arg(&zero).arg(&zero).arg(&mut res);
            // SAFETY: reads the m - m_eff limbs of the view.
            launched(unsafe { bld.launch(grid(nr)) }, "hl_top")?;
            if self.read1(&res, 0)? != 0 {
                return Err(Error::Invalid(format!(
                    "{}: the operand ({m} limbs, shifted by {shift}) does not fit in the {n}-limb accumulator",
                    if sub { "sub_at" } else { "add_at" }
                )));
            }
        }
        if m_eff == 0 {
            return Ok(false);
        }
        let c = self.scan(&mut acc.data, shift, m_eff, &b.data, sub, true)?;
        if c && shift + m_eff < n {
            return self.propagate(&mut acc.data, shift + m_eff, n, sub);
        }
        Ok(c)
    }

    fn limb_op(&self, acc: &mut CudaBuf, v: u64, at: usize, sub: bool) -> Result<bool> {
        if v == 0 {
            return Ok(false);
        }
        if at >= acc.len {
            return Err(Error::Invalid(format!(
                "{}: limb {at} is past the {}-limb accumulator",
                if sub { "sub_limb" } else { "add_limb" },
                acc.len
            )));
        }
        let mut flag = self.alloc_zeros::<u64>(1)?;
        let f = self.f(false, "hl_limb")?;
        let (at64, s) = (at as u64, sub as u32);
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(&mut acc.data)
            .arg(&at64)
            .arg(&v)
            .arg(&s)
            .arg(&mut flag);
        // SAFETY: one thread updates acc[at] (at < len) and the flag.
        launched(unsafe { bld.launch(grid(1)) }, "hl_limb")?;
        if self.read1(&flag, 0)? == 0 {
            return Ok(false);
        }
        self.propagate(&mut acc.data, at + 1, acc.len, sub)
    }

    // ---- transforms ----

    /// Residues of limbs `lo..lo+n` of `src` after the global forward stages
    /// of a length-2^logn transform.
    fn forward(
        &self,
        src: &CudaSlice<u64>,
        lo: usize,
        n: usize,
        logn: u32,
    ) -> Result<CudaSlice<u32>> {
        let len = 1usize << logn;
        let mut x = self.alloc::<u32>(3 * len)?;
        if logn == LOG_TILE {
            // No global pass to fuse the load into.
            let f = self.f(true, "hn_load")?;
            let (lo64, np, ln) = (lo as u64, 2 * n as u64, logn);
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&mut x).arg(src).arg(&lo64).arg(&np).arg(&ln);
            // SAFETY: writes 3 * 2^logn residues; reads 2n words from limb lo.
            launched(
                unsafe { bld.launch(grid3((len as u64 / TPB as u64).min(4096))) },
                "hn_load",
            )?;
        } else {
            self.passes(&mut x, logn, false, Some((src, lo, n)))?;
        }
        Ok(x)
    }

    /// The global stages (h >= 4096), up to `max_logr` at a time: forward
    /// from the top (the first pass reading the limbs src[lo..lo+n] when
    /// given), inverse from the bottom.
    fn passes(
        &self,
        x: &mut CudaSlice<u32>,
        logn: u32,
        inv: bool,
        src: Option<(&CudaSlice<u64>, usize, usize)>,
    ) -> Result<()> {
        let g = logn - LOG_TILE;
        // As few passes as possible, their sizes balanced.
        let npass = g.div_ceil(self.max_logr);
        let mut done = 0;
        for i in 0..npass {
            let r = (g - done) / (npass - i);
            let logs = if inv {
                LOG_TILE + done
            } else {
                logn - done - r
            };
            const NAMES: [[&str; 6]; 2] = [
                [
                    "hn_fwd1", "hn_fwd2", "hn_fwd3", "hn_fwd4", "hn_fwd5", "hn_fwd6",
                ],
                [
                    "hn_inv1", "hn_inv2", "hn_inv3", "hn_inv4", "hn_inv5", "hn_inv6",
                ],
            ];
            let name = NAMES[inv as usize][r as usize - 1];
            let f = self.f(true, name)?;
            let zero = 0u64;
            let (lo64, np) = match (i, src) {
                (0, Some((_, lo, n))) => (lo as u64, 2 * n as u64),
                _ => (0, 0),
            };
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&mut *x).arg(&self.tab).arg(&logn).arg(&logs);
            if !inv {
                match (i, src) {
                    (0, Some((s, _, _))) => bld.arg(s),
                    _ => bld.arg(&zero),
                };
                bld.arg(&lo64).arg(&np);
            }
            // SAFETY: 2^(logn - r) threads each own 2^r residues per prime;
            // the first forward pass reads 2n words of src from limb lo.
            launched(
                unsafe { bld.launch(grid3((1u64 << (logn - r)) / TPB as u64)) },
                name,
            )?;
            done += r;
        }
        Ok(())
    }

    /// Finishes the product of two forward-transformed operands (`y` None:
    /// the square of x) into `limbs` limbs (2 limbs <= 2^logn).
    fn finish(
        &self,
        x: &mut CudaSlice<u32>,
        y: Option<&CudaSlice<u32>>,
        logn: u32,
        limbs: usize,
    ) -> Result<CudaBuf> {
        let s: Vec<u32> = P
            .iter()
            .map(|&p| {
                let r64 = ((1u128 << 64) % p as u128) as u64;
                mulmod(r64, inv(powmod(2, logn as u64, p), p), p) as u32
            })
            .collect();
        let tiles = 1u64 << (logn - LOG_TILE);
        let name = if y.is_some() {
            "hn_tile_mul"
        } else {
            "hn_tile_sqr"
        };
        let f = self.f(true, name)?;
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(&mut *x);
        if let Some(y) = y {
            bld.arg(y);
        }
        bld.arg(&self.tab)
            .arg(&logn)
            .arg(&s[0])
            .arg(&s[1])
            .arg(&s[2]);
        // SAFETY: one block per 4096-residue tile and prime.
        launched(unsafe { bld.launch(grid3(tiles)) }, name)?;
        self.passes(x, logn, true, None)?;
        let c1 = mont(inv(P[0] % P[1], P[1]), P[1]);
        let c2 = mont(inv(mulmod(P[0], P[1], P[2]), P[2]), P[2]);
        let r2 = ((1u128 << 64) % P[2] as u128) as u32;
        let mut lo = self.alloc::<u64>(limbs)?;
        let mut hi = self.alloc::<u64>(limbs)?;
        let f = self.f(true, "hn_crt_limbs")?;
        let nl = limbs as u64;
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(&mut lo)
            .arg(&mut hi)
            .arg(&*x)
            .arg(&logn)
            .arg(&nl)
            .arg(&c1)
            .arg(&c2)
            .arg(&r2);
        // SAFETY: writes lo and hi[..limbs]; reads residues 0..2 limbs < 2^logn.
        launched(unsafe { bld.launch(grid(nl)) }, "hn_crt_limbs")?;
        // lo += hi one limb up; the top hi limb is zero (the product fits).
        self.scan(&mut lo, 1, limbs - 1, &hi, false, false)?;
        Ok(CudaBuf {
            data: lo,
            len: limbs,
        })
    }

    /// a[alo..alo+la] * b[blo..blo+lb] (or the square) by one transform.
    fn direct(
        &self,
        a: &CudaSlice<u64>,
        alo: usize,
        la: usize,
        b: Option<(&CudaSlice<u64>, usize, usize)>,
    ) -> Result<CudaBuf> {
        let lb = b.map_or(la, |x| x.2);
        let limbs = la + lb;
        let logn = ceil_log2(2 * limbs).max(LOG_TILE);
        let mut x = self.forward(a, alo, la, logn)?;
        match b {
            Some((b, blo, lb)) => {
                let y = self.forward(b, blo, lb, logn)?;
                self.finish(&mut x, Some(&y), logn, limbs)
            }
            None => self.finish(&mut x, None, logn, limbs),
        }
    }

    /// out[at..] += a[alo..alo+la] * b[blo..blo+lb] for la >= lb >= 1, by
    /// transforms of at most 2^max_logn points.
    #[allow(clippy::too_many_arguments)]
    fn mul_split(
        &self,
        out: &mut CudaBuf,
        at: usize,
        a: &CudaSlice<u64>,
        alo: usize,
        la: usize,
        b: &CudaSlice<u64>,
        blo: usize,
        lb: usize,
    ) -> Result<()> {
        let maxl = self.max_logn();
        let pmax = 1usize << (maxl - 1);
        if lb > pmax / 2 {
            // b too long as well: its pieces one by one.
            let s = pmax / 2;
            let mut j = 0;
            while j < lb {
                let n = s.min(lb - j);
                self.mul_split(out, at + j, a, alo, la, b, blo + j, n)?;
                j += n;
            }
            return Ok(());
        }
        let logn = ceil_log2(2 * (la + lb)).clamp(LOG_TILE, maxl);
        let half = 1usize << (logn - 1);
        let ca = half - lb;
        let y = self.forward(b, blo, lb, logn)?;
        let mut k = 0;
        while k < la {
            let n = ca.min(la - k);
            let mut x = self.forward(a, alo + k, n, logn)?;
            let p = self.finish(&mut x, Some(&y), logn, n + lb)?;
            drop(x);
            if self.add_sub_at(out, &p, at + k, false)? {
                return Err(Error::Invalid(
                    "internal error: carry out of a split product".into(),
                ));
            }
            k += n;
        }
        Ok(())
    }
}

impl HugeEngine for CudaHuge {
    type Buf = CudaBuf;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn upload(&self, limbs: &[u64]) -> Result<CudaBuf> {
        self.timed("upload", || {
            if limbs.is_empty() {
                return self.zeros(0);
            }
            let data = crate::engine::cuda::memory::upload(&self.eng, limbs)?;
            Ok(CudaBuf {
                data,
                len: limbs.len(),
            })
        })
    }

    fn download(&self, a: &CudaBuf) -> Result<Vec<u64>> {
        self.timed("download", || {
            if a.len > STAGE {
                return self.download_staged(a);
            }
            let mut v = self
                .eng
                .stream()
                .clone_dtoh(&a.data)
                .map_err(Error::driver("copying from the device"))?;
            v.truncate(a.len);
            Ok(v)
        })
    }

    fn len(&self, a: &CudaBuf) -> usize {
        a.len
    }

    fn zeros(&self, n: usize) -> Result<CudaBuf> {
        self.timed("zeros", || {
            Ok(CudaBuf {
                data: self.alloc_zeros::<u64>(n)?,
                len: n,
            })
        })
    }

    fn slice(&self, a: &CudaBuf, lo: usize, hi: usize) -> Result<CudaBuf> {
        self.timed("slice", || {
            if lo > hi {
                return Err(Error::Invalid(format!("slice: {lo} > {hi}")));
            }
            let end = hi.min(a.len);
            // Zero-filled only where the slice reaches past a.
            let mut out = if end == hi && lo < hi {
                CudaBuf {
                    data: self.alloc::<u64>(hi - lo)?,
                    len: hi - lo,
                }
            } else {
                self.zeros(hi - lo)?
            };
            if lo < end {
                let src = a.data.slice(lo..end);
                let mut dst = out.data.slice_mut(0..end - lo);
                self.eng
                    .stream()
                    .memcpy_dtod(&src, &mut dst)
                    .map_err(Error::driver("copying on the device"))?;
            }
            Ok(out)
        })
    }

    fn normalized_len(&self, a: &CudaBuf) -> Result<usize> {
        self.timed("normalized_len", || self.top(&a.data, a.len, None))
    }

    fn cmp(&self, a: &CudaBuf, b: &CudaBuf) -> Result<Ordering> {
        self.timed("cmp", || {
            let n = a.len.max(b.len);
            if n == 0 {
                return Ok(Ordering::Equal);
            }
            let mut top = self.alloc_zeros::<u64>(1)?;
            let mut out = self.alloc::<u64>(1)?;
            let (na, nb) = (a.len as u64, b.len as u64);
            let f = self.f(false, "hl_top")?;
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&a.data)
                .arg(&na)
                .arg(&b.data)
                .arg(&nb)
                .arg(&mut top);
            // SAFETY: reads a[..na], b[..nb]; writes top[0].
            launched(unsafe { bld.launch(grid(n as u64)) }, "hl_top")?;
            let f = self.f(false, "hl_cmp")?;
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&a.data)
                .arg(&na)
                .arg(&b.data)
                .arg(&nb)
                .arg(&top)
                .arg(&mut out);
            // SAFETY: one thread reads top and one limb of each, writes out.
            launched(unsafe { bld.launch(grid(1)) }, "hl_cmp")?;
            Ok(match self.read1(&out, 0)? {
                0 => Ordering::Less,
                1 => Ordering::Equal,
                _ => Ordering::Greater,
            })
        })
    }

    fn mul(&self, a: &CudaBuf, b: &CudaBuf) -> Result<CudaBuf> {
        self.timed("mul", || {
            let (a, b) = if a.len >= b.len { (a, b) } else { (b, a) };
            let (la, lb) = (a.len, b.len);
            if lb == 0 {
                return self.zeros(la);
            }
            let pmax = 1usize << (self.max_logn() - 1);
            if la + lb <= pmax {
                return self.direct(&a.data, 0, la, Some((&b.data, 0, lb)));
            }
            let mut out = self.zeros(la + lb)?;
            self.mul_split(&mut out, 0, &a.data, 0, la, &b.data, 0, lb)?;
            Ok(out)
        })
    }

    fn sqr(&self, a: &CudaBuf) -> Result<CudaBuf> {
        self.timed("sqr", || {
            let la = a.len;
            if la == 0 {
                return self.zeros(0);
            }
            let pmax = 1usize << (self.max_logn() - 1);
            if 2 * la <= pmax {
                return self.direct(&a.data, 0, la, None);
            }
            let mut out = self.zeros(2 * la)?;
            self.mul_split(&mut out, 0, &a.data, 0, la, &a.data, 0, la)?;
            Ok(out)
        })
    }

    fn mul_limb(&self, a: &CudaBuf, v: u64) -> Result<CudaBuf> {
        self.timed("mul_limb", || {
            let n = a.len;
            if n == 0 {
                return self.zeros(1);
            }
            let mut lo = self.alloc::<u64>(n + 1)?;
            let mut hi = self.alloc::<u64>(n)?;
            let f = self.f(false, "hl_mul_limb")?;
            let n64 = n as u64;
            let mut bld = self.eng.stream().launch_builder(&f);
            bld.arg(&mut lo).arg(&mut hi).arg(&a.data).arg(&n64).arg(&v);
            // SAFETY: writes lo[..=n] and hi[..n], reads a[..n].
            launched(unsafe { bld.launch(grid(n64 + 1)) }, "hl_mul_limb")?;
            self.scan(&mut lo, 1, n, &hi, false, false)?;
            Ok(CudaBuf {
                data: lo,
                len: n + 1,
            })
        })
    }

    fn add_at(&self, acc: &mut CudaBuf, b: &CudaBuf, shift: usize) -> Result<bool> {
        self.timed("add_at", || self.add_sub_at(acc, b, shift, false))
    }

    fn sub_at(&self, acc: &mut CudaBuf, b: &CudaBuf, shift: usize) -> Result<bool> {
        self.timed("sub_at", || self.add_sub_at(acc, b, shift, true))
    }

    fn add_limb(&self, acc: &mut CudaBuf, v: u64, at: usize) -> Result<bool> {
        self.timed("add_limb", || self.limb_op(acc, v, at, false))
    }

    fn sub_limb(&self, acc: &mut CudaBuf, v: u64, at: usize) -> Result<bool> {
        self.timed("sub_limb", || self.limb_op(acc, v, at, true))
    }

    fn shl_bits(&self, a: &CudaBuf, bits: u32) -> Result<CudaBuf> {
        self.timed("shl_bits", || self.shift(a, bits, true))
    }

    fn shr_bits(&self, a: &CudaBuf, bits: u32) -> Result<CudaBuf> {
        self.timed("shr_bits", || self.shift(a, bits, false))
    }
}

impl CudaHuge {
    /// A large download in chunks through page-locked memory, each chunk
    /// copied out by all cores.
    fn download_staged(&self, a: &CudaBuf) -> Result<Vec<u64>> {
        let mut guard = self.staging.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            // SAFETY: the buffer is only read after a copy into it completes.
            let p = unsafe { self.eng.context().alloc_pinned_with_flags::<u64>(STAGE, 0) }
                .map_err(Error::driver("allocating page-locked host memory"))?;
            *guard = Some(p);
        }
        let pinned = guard.as_mut().expect("set above");
        let mut out = vec![0u64; 0];
        out.try_reserve_exact(a.len)
            .map_err(|_| Error::Invalid(format!("cannot allocate {} limbs on the host", a.len)))?;
        let spare = &mut out.spare_capacity_mut()[..a.len];
        let mut lo = 0;
        while lo < a.len {
            let hi = a.len.min(lo + STAGE);
            let buf = &mut pinned
                .as_mut_slice()
                .map_err(Error::driver("page-locked host memory"))?[..hi - lo];
            // A plain slice as destination, so the copy is exactly its
            // length; it is asynchronous (page-locked memory) and the engine
            // tracks no events: synchronize before reading.
            self.eng
                .stream()
                .memcpy_dtoh(&a.data.slice(lo..hi), buf)
                .map_err(Error::driver("copying from the device"))?;
            self.eng.synchronize()?;
            spare[lo..hi]
                .par_chunks_mut(1 << 16)
                .zip(buf.par_chunks(1 << 16))
                .for_each(|(d, s)| {
                    for (x, y) in d.iter_mut().zip(s) {
                        x.write(*y);
                    }
                });
            lo = hi;
        }
        // SAFETY: every limb of 0..a.len was written above.
        unsafe { out.set_len(a.len) };
        Ok(out)
    }

    fn shift(&self, a: &CudaBuf, bits: u32, left: bool) -> Result<CudaBuf> {
        if bits >= 64 {
            return Err(Error::Invalid(format!("shift by {bits} bits: at most 63")));
        }
        let n = a.len;
        let out_len = if left { n + 1 } else { n };
        if n == 0 {
            return self.zeros(out_len);
        }
        let mut r = self.alloc::<u64>(out_len)?;
        let name = if left { "hl_shl" } else { "hl_shr" };
        let f = self.f(false, name)?;
        let n64 = n as u64;
        let mut bld = self.eng.stream().launch_builder(&f);
        bld.arg(&mut r).arg(&a.data).arg(&n64).arg(&bits);
        // SAFETY: writes r[..out_len], reads a[..n].
        launched(unsafe { bld.launch(grid(out_len as u64)) }, name)?;
        Ok(CudaBuf {
            data: r,
            len: out_len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_limit_parsing() {
        assert_eq!(parse_mem_limit("1234").unwrap(), 1234);
        assert_eq!(parse_mem_limit(" 64K ").unwrap(), 64 << 10);
        assert_eq!(parse_mem_limit("256m").unwrap(), 256 << 20);
        assert_eq!(parse_mem_limit("2G").unwrap(), 2 << 30);
        for bad in ["", "G", "12x", "-5", "99999999999999999999G"] {
            assert!(parse_mem_limit(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tables_are_roots() {
        // ROOT[q] has order exactly 2^q; TT and the two-level table agree.
        let t = tables();
        for d in 0..2 {
            for q in 0..3 {
                let p = P[q];
                let tq = &t[(d * 3 + q) * TAB..];
                let plain = |m: u32| mulmod(m as u64, inv((1u64 << 32) % p, p), p);
                for k in 1..=LOG_MAX as usize {
                    let r = plain(tq[OFF_ROOT + k]);
                    assert_eq!(powmod(r, 1 << k, p), 1);
                    assert_eq!(powmod(r, 1 << (k - 1), p), p - 1);
                }
                // w_(2h)^j from TT equals W^(j 2^27 / 2h) from TL/TH.
                for &(h, j) in &[(1usize, 0usize), (2, 1), (64, 33), (2048, 2047)] {
                    let e = (j as u64) << (LOG_MAX as u64 - 1 - h.trailing_zeros() as u64);
                    let lo = plain(tq[(e & ((1 << TL_BITS) - 1)) as usize]);
                    let hi = plain(tq[OFF_TH + (e >> TL_BITS) as usize]);
                    assert_eq!(plain(tq[OFF_TT + h + j]), mulmod(lo, hi, p));
                }
            }
        }
        // The CRT bound at the longest transform.
        let prod = P.iter().map(|&p| p as f64).product::<f64>().log2();
        assert!(prod > 26.0 + 64.0 + 1.0);
    }
}

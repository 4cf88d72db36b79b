//! Shared harness of the float kernel tests (float_cuda, float_cuda_wide):
//! where the kernels run (the device or a host emulator), the CPU engine's
//! reference, array building and the comparisons.

use std::cmp::Ordering;
use std::io::Write;
use std::process::{Command, Stdio};

use malachite_float::{ComparableFloatRef, Float};
use mparray::float::cuda::{self, DevOp};
use mparray::float::{self, EMIN, TernaryArray};
use mparray::{Engine, FloatArray, Result, Round};

use super::Rng;

/// Where the kernels run: the device, or the host emulation (the test
/// files add their constructors).
pub enum Dev {
    /// A CUDA engine (`Engine::Cuda`).
    Cuda(Engine),
    /// The emulator's path, with a forced group size (None: the library's
    /// rule; the wide emulator only).
    Emu(String, Option<u32>),
}

impl Dev {
    /// `op` of the host arrays `args` where the kernels run, the result and
    /// ternary values back on the host. On CUDA: the operands copied to the
    /// device, the operation of [`apply`] there (its result and ternary
    /// values must stay on the device), both read back.
    pub fn run(
        &self,
        op: DevOp,
        args: &[&FloatArray],
        p: u64,
        rnd: Round,
    ) -> (FloatArray, Vec<i8>) {
        match self {
            Dev::Cuda(eng) => {
                let dev: Vec<FloatArray> = args
                    .iter()
                    .map(|a| a.to_engine(eng).expect("upload"))
                    .collect();
                let refs: Vec<&FloatArray> = dev.iter().collect();
                let (r, t) = apply(op, &refs, p, rnd).expect("cuda op");
                assert!(
                    r.engine().same_as(eng) && t.engine().same_as(eng),
                    "{op:?}: the result left the device"
                );
                (
                    r.to_host().expect("download"),
                    t.to_vec().expect("download"),
                )
            }
            Dev::Emu(path, gs) => emu_run(path, *gs, op.code(), op, args, p, rnd),
        }
    }
}

/// The heads (`exp << 8 | tag`) of a host array.
pub fn heads(a: &FloatArray) -> Vec<u64> {
    a.tags()
        .expect("a host array")
        .iter()
        .zip(a.exps().expect("a host array"))
        .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
        .collect()
}

thread_local! {
    static IN_PLACE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread's emulator calls writing each result over an
/// operand (MPARRAY_FLOAT_EMU_INPLACE), as the expression kernels' slots do.
pub fn in_place<T>(f: impl FnOnce() -> T) -> T {
    IN_PLACE.with(|c| c.set(true));
    let r = f();
    IN_PLACE.with(|c| c.set(false));
    r
}

/// Runs operation `code` (`op` gives `k` for mul_2si) on the emulator at
/// `path` (`gs`: a forced group size, as FW_GS); code 13 (cmp) returns
/// only the ternary values, with an empty array.
pub fn emu_run(
    path: &str,
    gs: Option<u32>,
    code: u32,
    op: DevOp,
    args: &[&FloatArray],
    p: u64,
    rnd: Round,
) -> (FloatArray, Vec<i8>) {
    let len = args[0].len();
    let n = float::limbs_for_prec(p);
    let l = |i: usize| args.get(i).map_or(0, |a| a.limbs_per_element() as u64);
    let k = match op {
        DevOp::Mul2si(k) => k,
        _ => 0,
    };
    let mut job: Vec<u64> = vec![
        code as u64,
        cuda::round_code(rnd) as u64,
        p,
        n as u64,
        l(0),
        l(1),
        l(2),
        k as u64,
        len as u64,
    ];
    for i in 0..3 {
        match args.get(i) {
            Some(a) => {
                job.extend(heads(a));
                job.extend_from_slice(a.limbs().expect("a host array"));
            }
            None => job.extend(std::iter::repeat_n(0, len)),
        }
    }
    let bytes: Vec<u8> = job.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut cmd = Command::new(path);
    if let Some(g) = gs {
        cmd.env("FW_GS", g.to_string());
    }
    if IN_PLACE.with(|c| c.get()) {
        cmd.env("MPARRAY_FLOAT_EMU_INPLACE", "1");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the emulator");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "emulator failed");
    let w: Vec<u64> = out
        .stdout
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w.len(), len * (n + 2));
    let (h, rest) = w.split_at(len);
    let (lm, t) = rest.split_at(len * n);
    let tern: Vec<i8> = t.iter().map(|&v| v as i64 as i8).collect();
    if code == 13 {
        return (FloatArray::zeros(&Engine::Cpu, 0, 1).unwrap(), tern);
    }
    let r = FloatArray::from_raw(
        p,
        h.iter().map(|&v| v as u8).collect(),
        h.iter().map(|&v| (v as i64) >> 8).collect(),
        lm.to_vec(),
    )
    .expect("a valid result");
    (r, tern)
}

/// `op` of `a` (one operand, two, or three for fma/fms) on the operands'
/// engine through the public `FloatArray` methods.
pub fn apply(
    op: DevOp,
    a: &[&FloatArray],
    p: u64,
    rnd: Round,
) -> Result<(FloatArray, TernaryArray)> {
    assert_eq!(a.len(), op.arity(), "{op:?}: operands");
    let x = a[0];
    match op {
        DevOp::Add => x.add_ternary(a[1], p, rnd),
        DevOp::Sub => x.sub_ternary(a[1], p, rnd),
        DevOp::Mul => x.mul_ternary(a[1], p, rnd),
        DevOp::Div => x.div_ternary(a[1], p, rnd),
        DevOp::Sqrt => x.sqrt_ternary(p, rnd),
        DevOp::Fma => x.fma_ternary(a[1], a[2], p, rnd),
        DevOp::Fms => x.fms_ternary(a[1], a[2], p, rnd),
        DevOp::Neg => x.neg_ternary(p, rnd),
        DevOp::Abs => x.abs_ternary(p, rnd),
        DevOp::SetPrec => x.set_prec_ternary(p, rnd),
        DevOp::Mul2si(k) => x.mul_2si_ternary(k, p, rnd),
        DevOp::Min => x.min_ternary(a[1], p, rnd),
        DevOp::Max => x.max_ternary(a[1], p, rnd),
    }
}

/// The CPU engine's result (the operands are host arrays).
pub fn cpu(op: DevOp, a: &[&FloatArray], p: u64, rnd: Round) -> (FloatArray, Vec<i8>) {
    assert!(a.iter().all(|x| !x.engine().is_cuda()), "host operands");
    let (r, t) = apply(op, a, p, rnd).expect("cpu op");
    (r, t.into_vec().expect("host ternary values"))
}

/// One element: (tag, exponent, limbs) of precision p.
pub type El = (u8, i64, Vec<u64>);

pub fn array(p: u64, els: Vec<El>) -> FloatArray {
    let mut tags = Vec::new();
    let mut exps = Vec::new();
    let mut limbs = Vec::new();
    for (t, e, m) in els {
        tags.push(t);
        exps.push(e);
        limbs.extend(m);
    }
    FloatArray::from_raw(p, tags, exps, limbs).expect("valid array")
}

/// Operands of `len` elements with precisions `ps` drawn by `element(r, p,
/// e0)`, exponents correlated with the first operand's.
pub fn operands(
    r: &mut Rng,
    len: usize,
    ps: &[u64],
    element: impl Fn(&mut Rng, u64, i64) -> El,
) -> Vec<FloatArray> {
    let base: Vec<i64> = (0..len)
        .map(|_| match r.below(4) {
            0 => r.range(float::EMIN, float::EMAX),
            _ => r.range(-40, 40),
        })
        .collect();
    ps.iter()
        .map(|&p| array(p, base.iter().map(|&e| element(r, p, e)).collect()))
        .collect()
}

pub fn same(
    what: &str,
    got: &(FloatArray, Vec<i8>),
    want: &(FloatArray, Vec<i8>),
    ins: &[&FloatArray],
) {
    if got.0 == want.0 && got.1 == want.1 {
        return;
    }
    for i in 0..want.0.len() {
        let (g, w) = (got.0.to_float(i).unwrap(), want.0.to_float(i).unwrap());
        if ComparableFloatRef(&g) != ComparableFloatRef(&w) || got.1[i] != want.1[i] {
            let args: Vec<String> = ins
                .iter()
                .map(|a| format!("{:#x}", a.to_float(i).unwrap()))
                .collect();
            panic!(
                "{what}: element {i} of {args:?}: device {g:#x} ({}), cpu {w:#x} ({})",
                got.1[i], want.1[i]
            );
        }
    }
    panic!("{what}: arrays differ in raw bits but not in value");
}

/// Every `ops` on every pair (triple for fma/fms) of `vals` at precision
/// `p`, into precisions `p`, 1 and `2p + 1`, every mode, against the CPU
/// engine.
pub fn every_tuple(dev: &Dev, ops: &[DevOp], vals: &[El], p: u64) {
    let k = vals.len();
    for &op in ops {
        let ar = op.arity();
        let total = k.pow(ar as u32);
        let cols: Vec<FloatArray> = (0..ar)
            .map(|j| {
                array(
                    p,
                    (0..total)
                        .map(|i| vals[(i / k.pow(j as u32)) % k].clone())
                        .collect(),
                )
            })
            .collect();
        let args: Vec<&FloatArray> = cols.iter().collect();
        for rnd in Round::ALL {
            for q in [p, 1, 2 * p + 1] {
                let got = dev.run(op, &args, q, rnd);
                let want = cpu(op, &args, q, rnd);
                same(
                    &format!("specials {op:?} p={p}->{q} {rnd:?}"),
                    &got,
                    &want,
                    &args,
                );
            }
        }
    }
}

/// add, sub, mul, div, sqrt and fma of `xs` (three operands of precision
/// `p`) on `dev` against malachite-float directly.
pub fn against_malachite(dev: &Dev, xs: &[FloatArray], p: u64, rnd: Round) {
    let (x, y, z) = (&xs[0], &xs[1], &xs[2]);
    let m = float::to_rounding_mode(rnd);
    for (op, ar) in [
        (DevOp::Add, 2),
        (DevOp::Sub, 2),
        (DevOp::Mul, 2),
        (DevOp::Div, 2),
        (DevOp::Sqrt, 1),
        (DevOp::Fma, 3),
    ] {
        let args = [x, y, z];
        let (g, t) = dev.run(op, &args[..ar], p, rnd);
        for (i, &ti) in t.iter().enumerate().take(x.len()) {
            let (a, b, c) = (
                x.to_float(i).unwrap(),
                y.to_float(i).unwrap(),
                z.to_float(i).unwrap(),
            );
            // malachite's add_mul misrounds in the underflow range
            // (notes/float.md): skip fma there.
            if op == DevOp::Fma
                && (x.exps().unwrap()[i] < EMIN / 2 || y.exps().unwrap()[i] < EMIN / 2)
            {
                continue;
            }
            let (w, o): (Float, Ordering) = match op {
                DevOp::Add => a.add_prec_round_ref_ref(&b, p, m),
                DevOp::Sub => a.sub_prec_round_ref_ref(&b, p, m),
                DevOp::Mul => a.mul_prec_round_ref_ref(&b, p, m),
                DevOp::Div => a.div_prec_round_ref_ref(&b, p, m),
                DevOp::Sqrt => a.sqrt_prec_round_ref(p, m),
                _ => c.add_mul_prec_round_ref_ref_ref(&a, &b, p, m),
            };
            let gi = g.to_float(i).unwrap();
            assert!(
                ComparableFloatRef(&gi) == ComparableFloatRef(&w) && ti.cmp(&0) == o,
                "{op:?} p={p} {rnd:?} element {i}: {a:#x} {b:#x} {c:#x}: device {gi:#x} \
                 ({ti}), malachite {w:#x} ({o:?})"
            );
        }
    }
}

/// `len` pairs `(x, y)` of precision `p` that nearly cancel in `x - y` (or
/// `x + y`): `x` from `element`, `y` a perturbed copy (a low limb flipped,
/// one limb redrawn, or a fresh `mantissa`) with the exponent within one
/// and either sign.
pub fn cancel_pairs(
    r: &mut Rng,
    p: u64,
    len: usize,
    element: impl Fn(&mut Rng, u64, i64) -> El,
    mantissa: impl Fn(&mut Rng, u64) -> Vec<u64>,
) -> (FloatArray, FloatArray) {
    let n = float::limbs_for_prec(p);
    let mut xe = Vec::new();
    let mut ye = Vec::new();
    for _ in 0..len {
        let e0 = r.range(-30, 30);
        let (t, e, m) = element(r, p, e0);
        let mut m2 = m.clone();
        match r.below(4) {
            0 => {}
            1 => m2[0] ^= r.next(),
            2 => {
                let k = r.index(n);
                m2[k] = r.next();
            }
            _ => m2 = mantissa(r, p),
        }
        m2[n - 1] |= 1 << 63;
        let low = 64 * n as u64 - p;
        if low > 0 {
            m2[0] &= !((1u64 << low) - 1);
        }
        let normal = t & 3 == 1;
        let e2 = if normal {
            (e + r.range(-1, 1)).clamp(EMIN, float::EMAX)
        } else {
            e
        };
        let t2 = if normal {
            1 | (r.below(2) as u8 * 4)
        } else {
            t
        };
        xe.push((t, e, m));
        ye.push((t2, e2, if normal { m2 } else { vec![0; n] }));
    }
    (array(p, xe), array(p, ye))
}

//! GEMM across ranks: `alpha*A*B + beta*C` on a `pr x pc` grid of ranks
//! with a 2-D block distribution (as Elemental's `[MC,MR]`), SUMMA-style
//! panel broadcasts, and the local product on each rank's engine through
//! [`Matrix::gemm`].
//!
//! Exactness: every element of [`Matrix::gemm`] is the exact value of
//! `alpha*sum_k a_ik b_kj + beta*c_ij` rounded once, which cannot be
//! assembled from partial results that were each rounded. So the reduction
//! over K never leaves a rank: rank `(i, j)` receives the whole row panel
//! `A_i` (its block row of A, all K, broadcast block by block along its
//! process row) and the whole column panel `B_j` (broadcast along its
//! process column), and computes its block `C_ij` with the full K. Each
//! element is then computed from exactly the same operands as on one
//! process, and the exact rounding makes it the same bits whatever the
//! engine and tiling. The broadcast volume is SUMMA's (each rank receives
//! `(m/pr + n/pc) * k` elements); the memory per rank is the two panels
//! instead of one K-slice of them at a time.

use super::{Comm, block};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::FloatArray;
use crate::linalg::{Gemm, Matrix, Op};

/// The process grid for `p` ranks: `(pr, pc)` with `pr * pc = p`, `pr <=
/// pc`, as square as the divisors of `p` allow.
pub fn grid(p: usize) -> (usize, usize) {
    let mut pr = (p as f64).sqrt() as usize;
    while pr > 1 && !p.is_multiple_of(pr) {
        pr -= 1;
    }
    let pr = pr.max(1);
    (pr, p / pr)
}

/// Rank 0's operands of [`gemm`]: `op(A)`, `op(B)` applied by `o`.
pub struct GemmJob<'a> {
    pub a: &'a Matrix<FloatArray>,
    pub b: &'a Matrix<FloatArray>,
    pub alpha: &'a FloatArray,
    pub beta_c: Option<(&'a FloatArray, &'a Matrix<FloatArray>)>,
}

/// Words per element on the wire: tag, exponent, limbs.
fn words(prec: u64) -> usize {
    2 + prec.div_ceil(64) as usize
}

/// Packs the elements `(i, j)` for `i` in `rows`, `j` in `cols` of a host
/// array, element `(i, j)` being element `at(i, j)` of `x`.
fn pack(
    x: &FloatArray,
    rows: (usize, usize),
    cols: (usize, usize),
    at: impl Fn(usize, usize) -> usize,
) -> Result<Vec<u64>> {
    let (tags, exps, limbs) = (x.tags()?, x.exps()?, x.limbs()?);
    let l = x.limbs_per_element();
    let mut v = Vec::with_capacity((rows.1 - rows.0) * (cols.1 - cols.0) * (2 + l));
    for i in rows.0..rows.1 {
        for j in cols.0..cols.1 {
            let e = at(i, j);
            v.push(tags[e] as u64);
            v.push(exps[e] as u64);
            v.extend_from_slice(&limbs[e * l..(e + 1) * l]);
        }
    }
    Ok(v)
}

/// The `rows x cols` matrix (on the CPU) of packed words.
fn unpack(prec: u64, rows: usize, cols: usize, w: &[u64]) -> Result<Matrix<FloatArray>> {
    let s = words(prec);
    let n = rows * cols;
    if w.len() != n * s {
        return Err(Error::Shape(format!(
            "a {rows} x {cols} block needs {} words, {} arrived",
            n * s,
            w.len()
        )));
    }
    let mut tags = Vec::with_capacity(n);
    let mut exps = Vec::with_capacity(n);
    let mut limbs = Vec::with_capacity(n * (s - 2));
    for e in w.chunks(s) {
        tags.push(e[0] as u8);
        exps.push(e[1] as i64);
        limbs.extend_from_slice(&e[2..]);
    }
    Matrix::from_array(FloatArray::from_raw(prec, tags, exps, limbs)?, rows, cols)
}

/// Row-major index of `(i, j)` in a matrix with leading dimension `ld`,
/// transposed when `op` says so.
fn index(op: Op, ld: usize) -> impl Fn(usize, usize) -> usize {
    move |i, j| {
        if op == Op::None {
            i * ld + j
        } else {
            j * ld + i
        }
    }
}

type Prepared = (Vec<u64>, Vec<u64>, Vec<Vec<u64>>);

/// Rank 0: the shape word (m, n, k, has C, 1), the packed scalars and every
/// rank's blocks of op(A), op(B) and C.
fn prepare(j: &GemmJob, o: &Gemm, p: usize, pc: usize, pr: usize) -> Result<Prepared> {
    let (a, b) = (j.a.to_host()?, j.b.to_host()?);
    let (m, k) = match o.op_a {
        Op::None => (a.rows(), a.cols()),
        _ => (a.cols(), a.rows()),
    };
    let (kb, n) = match o.op_b {
        Op::None => (b.rows(), b.cols()),
        _ => (b.cols(), b.rows()),
    };
    if k != kb {
        return Err(Error::Shape(format!(
            "gemm: op(A) is {m} x {k} but op(B) is {kb} x {n}"
        )));
    }
    if j.alpha.len() != 1 || a.prec() != o.prec || b.prec() != o.prec {
        return Err(Error::Shape(format!(
            "gemm across ranks: alpha must have one element and A, B the precision {}",
            o.prec
        )));
    }
    let c = match j.beta_c {
        Some((beta, c)) => {
            if c.rows() != m || c.cols() != n || beta.len() != 1 || c.prec() != o.prec {
                return Err(Error::Shape(format!(
                    "gemm: C must be {m} x {n} at precision {} and beta one element",
                    o.prec
                )));
            }
            Some((beta.to_host()?, c.to_host()?))
        }
        None => None,
    };
    let shape = vec![m as u64, n as u64, k as u64, u64::from(c.is_some()), 1];
    let al = j.alpha.to_host()?;
    let mut scalars = pack(&al, (0, 1), (0, 1), |_, _| 0)?;
    if let Some((beta, _)) = &c {
        scalars.extend(pack(beta, (0, 1), (0, 1), |_, _| 0)?);
    }
    let (ia, ib) = (index(o.op_a, a.ld()), index(o.op_b, b.ld()));
    let mut parts = Vec::with_capacity(p);
    for r in 0..p {
        let (ri, rj) = (r / pc, r % pc);
        let mut v = pack(a.data(), block(m, pr, ri), block(k, pc, rj), &ia)?;
        v.extend(pack(b.data(), block(k, pr, ri), block(n, pc, rj), &ib)?);
        if let Some((_, c)) = &c {
            let ic = index(Op::None, c.ld());
            v.extend(pack(c.data(), block(m, pr, ri), block(n, pc, rj), ic)?);
        }
        parts.push(v);
    }
    Ok((shape, scalars, parts))
}

/// `alpha*op(A)*op(B) + beta*C` across the ranks of `comm`, the same bits
/// as [`Matrix::gemm`] on one process (see the module notes). Rank 0 passes
/// the operands (`job`), the others `None`; `o` must agree on every rank;
/// each rank computes its block on `engine`. Returns the result on rank 0,
/// `None` elsewhere; an error on any rank is every rank's error.
pub fn gemm(
    comm: &Comm,
    engine: &Engine,
    job: Option<GemmJob>,
    o: &Gemm,
) -> Result<Option<Matrix<FloatArray>>> {
    let (p, me) = (comm.size(), comm.rank());
    let (pr, pc) = grid(p);
    let (gi, gj) = (me / pc, me % pc);
    // Shapes first: (m, n, k, has C, ok), then the scalars.
    let mut shape = vec![0u64; 5];
    let mut scalars = Vec::new();
    let mut parts: Vec<Vec<u64>> = Vec::new();
    let mut failed = None;
    if let Some(j) = &job {
        match prepare(j, o, p, pc, pr) {
            Ok((sh, sc, pa)) => (shape, scalars, parts) = (sh, sc, pa),
            Err(e) => failed = Some(e),
        }
    }
    let shape = comm.bcast_u64(0, shape);
    if let Some(e) = failed {
        return Err(e);
    }
    if shape[4] != 1 {
        return Err(Error::Remote {
            rank: 0,
            message: "rank 0 could not start the gemm".into(),
        });
    }
    let (m, n, k, has_c) = (
        shape[0] as usize,
        shape[1] as usize,
        shape[2] as usize,
        shape[3] == 1,
    );
    let prec = o.prec;
    let s = words(prec);
    let scalars = comm.bcast_u64(0, scalars);
    let mine = comm.scatter_u64(parts)?;
    // The blocks this rank owns.
    let (ar, ac) = (block(m, pr, gi), block(k, pc, gj));
    let (br, bc) = (block(k, pr, gi), block(n, pc, gj));
    let (mi, nj) = (ar.1 - ar.0, bc.1 - bc.0);
    let a_len = mi * (ac.1 - ac.0) * s;
    let b_len = (br.1 - br.0) * nj * s;
    // SUMMA's broadcasts: the blocks of the row panel A_i along the process
    // row, those of the column panel B_j along the process column.
    let row = comm.split(gi, gj);
    let col = comm.split(gj + pr, gi);
    let mut a_pieces = Vec::with_capacity(pc);
    for q in 0..pc {
        let data = if q == gj {
            mine.get(..a_len).unwrap_or(&[]).to_vec()
        } else {
            Vec::new()
        };
        a_pieces.push(row.bcast_u64(q, data));
    }
    let mut b_panel = Vec::with_capacity(k * nj * s);
    for q in 0..pr {
        let data = if q == gi {
            mine.get(a_len..a_len + b_len).unwrap_or(&[]).to_vec()
        } else {
            Vec::new()
        };
        b_panel.extend(col.bcast_u64(q, data));
    }
    let c_words = mine.get(a_len + b_len..).unwrap_or(&[]);
    // A_i row by row from its column blocks.
    let mut a_panel = Vec::with_capacity(mi * k * s);
    for i in 0..mi {
        for (q, piece) in a_pieces.iter().enumerate() {
            let (c0, c1) = block(k, pc, q);
            let w = (c1 - c0) * s;
            a_panel.extend_from_slice(piece.get(i * w..(i + 1) * w).unwrap_or(&[]));
        }
    }
    let local = (|| -> Result<Vec<u64>> {
        super::injected_failure(me).map_err(Error::Invalid)?;
        if mi == 0 || nj == 0 {
            return Ok(Vec::new());
        }
        let a = unpack(prec, mi, k, &a_panel)?.into_engine(engine)?;
        let b = unpack(prec, k, nj, &b_panel)?.into_engine(engine)?;
        let alpha = unpack(prec, 1, 1, scalars.get(..s).unwrap_or(&[]))?
            .into_data()
            .into_engine(engine)?;
        let bc = if has_c {
            let beta = unpack(prec, 1, 1, scalars.get(s..2 * s).unwrap_or(&[]))?
                .into_data()
                .into_engine(engine)?;
            Some((beta, unpack(prec, mi, nj, c_words)?.into_engine(engine)?))
        } else {
            None
        };
        let g = Gemm {
            op_a: Op::None,
            op_b: Op::None,
            ..*o
        };
        let (r, _) = a.gemm(&b, &alpha, bc.as_ref().map(|(x, y)| (x, y)), &g)?;
        let r = r.to_host()?;
        pack(r.data(), (0, mi), (0, nj), index(Op::None, r.ld()))
    })();
    let local = match local {
        Ok(v) => Ok(v),
        Err(e) => Err(e.to_string()),
    };
    let status = comm.agree(local.as_ref().map(|_| ()).map_err(|e| e.clone()));
    if let Err((r, msg)) = status {
        return Err(Error::Remote {
            rank: r,
            message: msg,
        });
    }
    let blocks = comm.gather_u64(local.unwrap_or_default())?;
    let Some(blocks) = blocks else {
        return Ok(None);
    };
    // C from its blocks, row by row.
    let mut c = vec![0u64; m * n * s];
    for (r, v) in blocks.iter().enumerate() {
        let ((r0, r1), (c0, c1)) = (block(m, pr, r / pc), block(n, pc, r % pc));
        let w = (c1 - c0) * s;
        for i in r0..r1 {
            let src = v.get((i - r0) * w..(i - r0 + 1) * w).unwrap_or(&[]);
            c[(i * n + c0) * s..(i * n + c1) * s].copy_from_slice(src);
        }
    }
    Ok(Some(unpack(prec, m, n, &c)?))
}

//! The batch calculators across MPI ranks (`mpirun -np P mparray int|float
//! ...`): rank 0 reads the files and checks their line counts, every rank
//! gets a contiguous block of lines of every file, parses and computes it on
//! its own engine and formats its results; rank 0 gathers the texts in rank
//! order and writes them, so the output is the one of a single process.
//! Errors (a bad line, a failing engine) travel to rank 0 with the line
//! numbers of the whole file and the exit status of their kind.

use rayon::prelude::*;

use super::{CommandError, Input};
use crate::dist::{Comm, block};

/// A job's outcome on the wire: a kind byte (0 ok, 1 other error, 2 input
/// error) and the text (the results, or the message).
fn encode(r: &Result<Vec<u8>, CommandError>) -> Vec<u8> {
    let (k, body) = match r {
        Ok(b) => (0u8, b.as_slice()),
        Err(CommandError::Other(m)) => (1, m.as_bytes()),
        Err(CommandError::Input(m)) => (2, m.as_bytes()),
    };
    let mut v = Vec::with_capacity(body.len() + 1);
    v.push(k);
    v.extend_from_slice(body);
    v
}

fn decode(v: &[u8]) -> Result<Vec<u8>, CommandError> {
    let text = || String::from_utf8_lossy(v.get(1..).unwrap_or(&[])).into_owned();
    match v.first() {
        Some(0) => Ok(v[1..].to_vec()),
        Some(2) => Err(CommandError::Input(text())),
        _ => Err(CommandError::Other(text())),
    }
}

/// Rank 0 tells every rank whether the job goes ahead: `Ok(header)`, or its
/// own error (then the other ranks stop quietly: rank 0 reports it). On
/// the other ranks `job` is not called. Returns `Err(None)` on a rank that
/// must stop quietly.
pub(crate) fn start(
    comm: &Comm,
    job: impl FnOnce() -> Result<Vec<u8>, CommandError>,
) -> Result<Vec<u8>, Option<CommandError>> {
    let mine = if comm.rank() == 0 {
        job()
    } else {
        Ok(Vec::new())
    };
    let wire = comm.bcast_bytes(0, encode(&mine));
    match (comm.rank(), decode(&wire)) {
        (_, Ok(h)) => Ok(h),
        (0, Err(e)) => Err(Some(e)),
        (_, Err(_)) => Err(None),
    }
}

/// Rank 0 collects every rank's outcome: the concatenated texts in rank
/// order, or the error of the lowest failing rank (device and other
/// failures name the rank). `None` on the other ranks.
pub(crate) fn finish(
    comm: &Comm,
    mine: Result<Vec<u8>, CommandError>,
) -> Result<Option<Vec<u8>>, CommandError> {
    let mine = match crate::dist::injected_failure(comm.rank()) {
        Err(m) => Err(CommandError::Other(m)),
        Ok(()) => mine,
    };
    let all = comm.gather_bytes(encode(&mine))?;
    let Some(all) = all else { return Ok(None) };
    let mut out = Vec::new();
    for (r, w) in all.iter().enumerate() {
        match decode(w) {
            Ok(b) => out.extend_from_slice(&b),
            Err(CommandError::Other(m)) if r > 0 => {
                return Err(CommandError::Other(format!("rank {r}: {m}")));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Some(out))
}

/// Packs strings (length, bytes) into one byte vector.
fn pack(items: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::new();
    for it in items {
        v.extend_from_slice(&(it.len() as u64).to_le_bytes());
        v.extend_from_slice(it);
    }
    v
}

fn unpack(mut v: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while v.len() >= 8 {
        let n = u64::from_le_bytes(v[..8].try_into().unwrap_or([0; 8])) as usize;
        let n = n.min(v.len() - 8);
        out.push(v[8..8 + n].to_vec());
        v = &v[8 + n..];
    }
    out
}

fn to_words(b: &[u8]) -> Vec<u64> {
    let mut w = vec![b.len() as u64];
    w.extend(b.chunks(8).map(|c| {
        let mut x = [0u8; 8];
        x[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(x)
    }));
    w
}

fn from_words(w: &[u64]) -> Vec<u8> {
    let n = w.first().copied().unwrap_or(0) as usize;
    let mut b: Vec<u8> = w.iter().skip(1).flat_map(|x| x.to_le_bytes()).collect();
    b.truncate(n);
    b
}

/// Runs a batch over the ranks. On rank 0, `read` reads the files (their
/// line counts must agree, checked by `same`) and returns them with a
/// header for every rank; `compute` turns one rank's share (the files cut
/// to its lines, and the header) into its output text. Rank 0 writes the
/// gathered output with `write`.
pub(crate) fn run_lines(
    comm: &Comm,
    read: impl FnOnce() -> Result<(Vec<Input>, Vec<u8>), CommandError>,
    compute: impl FnOnce(Vec<Input>, &[u8]) -> Result<Vec<u8>, CommandError>,
    write: impl FnOnce(&[u8]) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    let p = comm.size();
    let mut shares: Vec<Vec<u64>> = Vec::new();
    let go = start(comm, || {
        let (files, header) = read()?;
        let lines: Vec<Vec<&str>> = files.iter().map(|f| f.lines()).collect();
        let lens: Vec<usize> = lines.iter().map(|l| l.len()).collect();
        super::float::same_lines(&files, &lens)?;
        let n = lens.first().copied().unwrap_or(0);
        for r in 0..p {
            let (s, e) = block(n, p, r);
            let mut items: Vec<Vec<u8>> = vec![header.clone(), (s as u64).to_le_bytes().to_vec()];
            for (f, l) in files.iter().zip(&lines) {
                let mut t = l[s..e].join("\n");
                if e > s {
                    t.push('\n');
                }
                items.push(f.name.as_bytes().to_vec());
                items.push(t.into_bytes());
            }
            let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
            shares.push(to_words(&pack(&refs)));
        }
        Ok(Vec::new())
    });
    match go {
        Ok(_) => {}
        Err(Some(e)) => return Err(e),
        Err(None) => return Ok(()),
    }
    let mine = from_words(&comm.scatter_u64(shares)?);
    let items = unpack(&mine);
    let result = (|| {
        let bad = || CommandError::Other("a malformed share of the batch arrived".into());
        let header = items.first().ok_or_else(bad)?;
        let first = items
            .get(1)
            .and_then(|b| b.as_slice().try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(bad)? as usize;
        let files = items[2..]
            .chunks(2)
            .map(|c| {
                Ok(Input {
                    name: String::from_utf8_lossy(&c[0]).into_owned(),
                    text: String::from_utf8(c.get(1).ok_or_else(bad)?.clone())
                        .map_err(|_| bad())?,
                    first,
                })
            })
            .collect::<Result<Vec<_>, CommandError>>()?;
        compute(files, header)
    })();
    match finish(comm, result)? {
        Some(out) => write(&out),
        None => Ok(()),
    }
}

/// Writes rank 0's gathered output to standard output (a closed pipe is no
/// error).
pub(crate) fn write_stdout(out: &[u8]) -> Result<(), CommandError> {
    use std::io::Write;
    let mut w = std::io::stdout().lock();
    match w.write_all(out).and_then(|_| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Other(format!("writing the results: {e}"))),
    }
}

/// Every rank's possible error with its key (the smallest key wins: the
/// error one process would have met first); `Ok` when no rank failed.
/// Rank 0 gets the winner's error (`rank R: ` in front of other errors of
/// a rank R > 0), the other ranks `Err(None)`.
fn agree_min(comm: &Comm, mine: Option<(u64, CommandError)>) -> Result<(), Option<CommandError>> {
    let key = mine.as_ref().map_or(u64::MAX, |m| m.0);
    let keys = comm.all_gather_u64(&[key]);
    let (w, &k) = keys
        .iter()
        .enumerate()
        .min_by_key(|(_, k)| **k)
        .unwrap_or((0, &u64::MAX));
    if k == u64::MAX {
        return Ok(());
    }
    let bytes = match mine {
        Some((_, e)) if comm.rank() == w => encode(&Err(e)),
        _ => Vec::new(),
    };
    let got = comm.bcast_bytes(w, bytes);
    if comm.rank() != 0 {
        return Err(None);
    }
    Err(Some(match decode(&got) {
        Err(CommandError::Other(m)) if w > 0 => CommandError::Other(format!("rank {w}: {m}")),
        Err(e) => e,
        Ok(_) => CommandError::Other(format!("rank {w} failed")),
    }))
}

/// Where the hex digits of one operand lie in its file (after `0x`), and
/// the line and line start of the number (for the messages).
#[derive(Clone, Copy, Debug, Default)]
struct Digits {
    start: u64,
    end: u64,
    line: u64,
    line_start: u64,
}

impl Digits {
    fn to_words(self) -> [u64; 4] {
        [self.start, self.end, self.line, self.line_start]
    }
    fn from_words(w: &[u64]) -> Digits {
        Digits {
            start: w[0],
            end: w[1],
            line: w[2],
            line_start: w[3],
        }
    }
}

/// `len` bytes of `f` at `off` (fewer at the end of the file).
fn read_at(f: &std::fs::File, off: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut v = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match f.read_at(&mut v[got..], off + got as u64) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    v.truncate(got);
    Ok(v)
}

/// The digits of a file holding `0x` and at least one more character, as
/// one process trims it (white space and a byte-order mark around it), read
/// from its two ends only; `None` for anything else (decimal, empty, an
/// unreadable file: rank 0 then reads it whole and reports as one process).
fn hex_digits(path: &std::path::Path) -> Option<Digits> {
    const CH: usize = 1 << 16;
    let f = std::fs::File::open(path).ok()?;
    let size = f.metadata().ok()?.len();
    // The first non-white byte at or after `from`, and the newlines before.
    let skip = |from: u64, lines: &mut u64, last_nl: &mut u64| -> Option<u64> {
        let mut off = from;
        while off < size {
            let b = read_at(&f, off, CH).ok()?;
            if b.is_empty() {
                break;
            }
            for (i, &c) in b.iter().enumerate() {
                if !c.is_ascii_whitespace() {
                    return Some(off + i as u64);
                }
                if c == b'\n' {
                    *lines += 1;
                    *last_nl = off + i as u64 + 1;
                }
            }
            off += b.len() as u64;
        }
        Some(size)
    };
    let (mut lines, mut line_start) = (0u64, 0u64);
    let mut start = skip(0, &mut lines, &mut line_start)?;
    if read_at(&f, start, 3).ok()? == [0xef, 0xbb, 0xbf] {
        start = skip(start + 3, &mut lines, &mut line_start)?;
    }
    // The last non-white byte.
    let mut end = start;
    let mut hi = size;
    while hi > start {
        let lo = hi.saturating_sub(CH as u64).max(start);
        let b = read_at(&f, lo, (hi - lo) as usize).ok()?;
        if let Some(i) = b.iter().rposition(|c| !c.is_ascii_whitespace()) {
            end = lo + i as u64 + 1;
            break;
        }
        hi = lo;
    }
    let head = read_at(&f, start, 2).ok()?;
    (end >= start + 3 && head.len() == 2 && head[0] == b'0' && (head[1] | 0x20) == b'x').then_some(
        Digits {
            start: start + 2,
            end,
            line: lines + 1,
            line_start,
        },
    )
}

/// The message of one process for a bad byte at `p` of a number on line
/// `d.line` (every byte of the number before `p` is a hex digit).
fn bad_char(name: &str, d: &Digits, p: u64, bytes: &[u8]) -> String {
    let col = p - d.line_start + 1;
    let ch = String::from_utf8_lossy(&bytes[..bytes.len().min(4)])
        .chars()
        .next()
        .unwrap_or('?');
    let line = d.line;
    if ch.is_whitespace() {
        format!(
            "{name}: white space inside the number at byte {p} (line {line}, column {col}): a \
             file holds one number"
        )
    } else {
        format!("{name}: bad character {ch:?} at byte {p} (line {line}, column {col})")
    }
}

/// This rank's block of the limbs of a hex operand: the bytes of its
/// digits only. `Err((byte, message))` for a bad byte or a read error.
fn read_hex_block(
    comm: &Comm,
    path: &std::path::Path,
    d: &Digits,
) -> Result<(Vec<u64>, usize), (u64, CommandError)> {
    let name = path.display().to_string();
    let nd = (d.end - d.start) as usize;
    let nl = nd.div_ceil(16);
    let (la, lb) = block(nl, comm.size(), comm.rank());
    let io = |e: std::io::Error| (0, CommandError::Input(format!("cannot read {name}: {e}")));
    // Limb i holds the digits [end - 16 (i + 1), end - 16 i).
    let hi = d.end - 16 * la as u64;
    let lo = d.end.saturating_sub(16 * lb as u64).max(d.start);
    if la == lb {
        return Ok((Vec::new(), nl));
    }
    let f = std::fs::File::open(path).map_err(io)?;
    let bytes = read_at(&f, lo, (hi - lo) as usize).map_err(io)?;
    if bytes.len() as u64 != hi - lo {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the file is shorter than when rank 0 looked at it",
        )));
    }
    if let Some(i) = bytes.par_iter().position_first(|c| !c.is_ascii_hexdigit()) {
        let p = lo + i as u64;
        let mut tail = bytes[i..].to_vec();
        if tail.len() < 4 {
            tail.extend(read_at(&f, hi, 4 - tail.len()).unwrap_or_default());
        }
        return Err((p, CommandError::Input(bad_char(&name, d, p, &tail))));
    }
    let val = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    } as u64;
    let n = bytes.len();
    let mut limbs = vec![0u64; lb - la];
    limbs.par_iter_mut().enumerate().for_each(|(k, x)| {
        let e = n - 16 * k;
        let s = e.saturating_sub(16);
        *x = bytes[s..e].iter().fold(0u64, |a, &c| (a << 4) | val(c));
    });
    Ok((limbs, nl))
}

/// Hex digits of this rank's block `[s, s + limbs.len())` of a number whose
/// limbs below `top` may be non-zero (the top one without leading zeros and
/// after `0x`), most significant first; the number zero is `0x0` on rank 0.
fn hex_piece(limbs: &[u64], s: usize, top: usize, rank: usize) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let e = (s + limbs.len()).min(top);
    if top == 0 {
        return if rank == 0 {
            b"0x0".to_vec()
        } else {
            Vec::new()
        };
    }
    if e <= s {
        return Vec::new();
    }
    let mut head = Vec::new();
    let mut full = e - s;
    if e == top {
        head = format!("0x{:x}", limbs[e - 1 - s]).into_bytes();
        full -= 1;
    }
    let mut out = vec![0u8; head.len() + 16 * full];
    out[..head.len()].copy_from_slice(&head);
    let body = &mut out[head.len()..];
    body.par_chunks_mut(16).enumerate().for_each(|(k, o)| {
        let x = limbs[full - 1 - k];
        for (i, c) in o.iter_mut().enumerate() {
            *c = HEX[((x >> (60 - 4 * i)) & 15) as usize];
        }
    });
    out
}

/// `mpirun -np P mparray huge mul A B`: hex operands (`0x...`, the usual
/// case for huge numbers) are read by every rank, its block of limbs from
/// its byte range of each file; the product is computed block to block
/// ([`crate::dist::huge::mul_blocks`]) and, in hex, formatted by every rank
/// for its block and written by rank 0 piece by piece in order, so that no
/// rank holds a whole operand or the whole product. A decimal operand
/// cannot be cut by bytes: then rank 0 reads both files whole (`read`)
/// and scatters the limbs, and a decimal product is gathered on rank 0 and
/// converted there. The bytes and the messages are those of one process.
pub(crate) fn huge_mul(
    comm: &Comm,
    paths: (&std::path::Path, &std::path::Path),
    radix_flag: Option<crate::int::Radix>,
    read: impl FnOnce() -> Result<(Vec<u64>, Vec<u64>, crate::int::Radix), CommandError>,
    out: &mut dyn FnMut(&[u8]) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    use crate::int::Radix;
    let (p, me) = (comm.size(), comm.rank());
    let mut whole = None;
    // Header: [mode (1: hex by every rank), output radix (1: hex), then
    // A's and B's digits (mode 1) or limb counts (mode 0)].
    let go = start(comm, || {
        let da = hex_digits(paths.0);
        let db = da.and_then(|_| hex_digits(paths.1));
        let mut h = Vec::new();
        match (da, db) {
            (Some(da), Some(db)) => {
                let hex = radix_flag.unwrap_or(Radix::Hex) == Radix::Hex;
                h.extend([1, u64::from(hex)]);
                h.extend(da.to_words());
                h.extend(db.to_words());
            }
            _ => {
                let (x, y, ra) = read()?;
                let hex = radix_flag.unwrap_or(ra) == Radix::Hex;
                h.extend([0, u64::from(hex), x.len() as u64, y.len() as u64]);
                whole = Some((x, y));
            }
        }
        Ok(h.iter().flat_map(|w| w.to_le_bytes()).collect())
    });
    let h: Vec<u64> = match go {
        Ok(b) => b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        Err(Some(e)) => return Err(e),
        Err(None) => return Ok(()),
    };
    let stop = |r: Result<(), Option<CommandError>>| match r {
        Ok(()) => Ok(true),
        Err(Some(e)) => Err(e),
        Err(None) => Ok(false),
    };
    let hex = h.get(1) == Some(&1);
    let (a, an, b, bn) = if h.first() == Some(&1) && h.len() >= 10 {
        let (da, db) = (Digits::from_words(&h[2..6]), Digits::from_words(&h[6..10]));
        let ra = read_hex_block(comm, paths.0, &da);
        let rb = read_hex_block(comm, paths.1, &db);
        let (mine, blocks) = match (ra, rb) {
            (Err((pos, e)), _) => (Some((pos, e)), None),
            (_, Err((pos, e))) => (Some(((1 << 62) | pos, e)), None),
            (Ok(a), Ok(b)) => (None, Some((a, b))),
        };
        if !stop(agree_min(comm, mine))? {
            return Ok(());
        }
        match blocks {
            Some(((a, an), (b, bn))) => (a, an, b, bn),
            None => return Err(CommandError::Other("a rank's read went wrong".into())),
        }
    } else {
        let (an, bn) = (
            h.get(2).copied().unwrap_or(0) as usize,
            h.get(3).copied().unwrap_or(0) as usize,
        );
        let cut = |x: &[u64], n: usize| -> Vec<Vec<u64>> {
            (0..p)
                .map(|r| {
                    let (s, e) = block(n, p, r);
                    x[s..e].to_vec()
                })
                .collect()
        };
        let (pa, pb) = match whole.take() {
            Some((x, y)) => (cut(&x, an), cut(&y, bn)),
            None => (Vec::new(), Vec::new()),
        };
        (comm.scatter_u64(pa)?, an, comm.scatter_u64(pb)?, bn)
    };
    // The local step (a test hook may fail or kill a rank here).
    let fail = crate::dist::injected_failure(me)
        .err()
        .map(|m| (1u64 << 63, CommandError::Other(m)));
    if !stop(agree_min(comm, fail))? {
        return Ok(());
    }
    let prod = crate::dist::huge::mul_blocks(comm, &a, an, &b, bn);
    let prod = match prod {
        Ok(v) => v,
        Err(e) if me == 0 => return Err(e.into()),
        Err(_) => return Ok(()),
    };
    drop((a, b));
    if !hex {
        let Some(all) = comm.gather_u64(prod)? else {
            return Ok(());
        };
        let x = crate::huge::HugeInt::from_limbs(&crate::engine::Engine::Cpu, &all.concat())?;
        let mut text = x.to_string_radix(Radix::Dec)?.into_bytes();
        text.push(b'\n');
        return out(&text);
    }
    let (s, _) = block(an + bn, p, me);
    let top_here = prod
        .iter()
        .rposition(|&x| x != 0)
        .map_or(0, |i| (s + i + 1) as u64);
    let top = comm
        .all_gather_u64(&[top_here])
        .into_iter()
        .max()
        .unwrap_or(0) as usize;
    let mut piece = hex_piece(&prod, s, top, me);
    drop(prod);
    const MSG: usize = 1 << 28;
    if me > 0 {
        for c in piece.chunks(MSG) {
            comm.send_bytes(0, c);
        }
        comm.send_bytes(0, &[]);
        return Ok(());
    }
    // Rank 0 writes the pieces from the top down; a failed write keeps
    // receiving (the other ranks must not wait) and is reported after.
    let mut res = Ok(());
    for r in (1..p).rev() {
        loop {
            let c = comm.recv_bytes(r);
            if c.is_empty() {
                break;
            }
            if res.is_ok() {
                res = out(&c);
            }
        }
    }
    piece.push(b'\n');
    res?;
    out(&piece)
}

//! The batch calculators across MPI ranks (`mpirun -np P mparray int|float
//! ...`): rank 0 reads the files and checks their line counts, every rank
//! gets a contiguous block of lines of every file, parses and computes it on
//! its own engine and formats its results; rank 0 gathers the texts in rank
//! order and writes them, so the output is the one of a single process.
//! Errors (a bad line, a failing engine) travel to rank 0 with the line
//! numbers of the whole file and the exit status of their kind.

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

//! Work across processes with MPI (cargo feature `mpi`, rsmpi over the
//! system's OpenMPI): GEMM on a 2-D grid of ranks ([`gemm`]), huge products
//! by a distributed NTT ([`huge`]), and the collectives the CLI uses to
//! split batches by rows.
//!
//! MPI is initialised only when the process was started by an MPI launcher
//! (`mpirun`, `srun`); otherwise [`world`] is `None` and everything runs in
//! one process as without the feature. Rank 0 reads the input files and
//! writes the results; the other ranks receive their shares.
//!
//! Failures: an error on any rank travels to rank 0 in the collective that
//! ends the step (every rank keeps taking part in the collectives, with
//! empty data, so that none waits forever), and rank 0 reports it with the
//! rank's number. MPI's own errors keep MPI's default handler
//! (`MPI_ERRORS_ARE_FATAL`): the job ends with MPI's message. A rank that
//! dies makes `mpirun` end the job; `MPARRAY_MPI_TIMEOUT` (seconds) bounds
//! the whole run on every rank as a last resort.

pub mod gemm;
pub mod huge;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use mpi::Count;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::error::{Error, Result};

static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Bytes this rank received in the collectives of [`Comm`] (for benches).
static RECEIVED: AtomicU64 = AtomicU64::new(0);
/// Bytes this rank sent.
static SENT: AtomicU64 = AtomicU64::new(0);

/// Whether an MPI launcher started this process (OpenMPI's, PMI's or PMIx's
/// environment variables are set).
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// MPI for the life of the process: finalised when dropped.
pub struct Session {
    _universe: mpi::environment::Universe,
}

/// Initialises MPI when [`launched`] (and starts the `MPARRAY_MPI_TIMEOUT`
/// watchdog); `None` in a plain process or when MPI cannot start. The
/// ranks on one node share its cores: unless `RAYON_NUM_THREADS` is set,
/// each runs `cores / ranks on the node` threads.
pub fn init() -> Option<Session> {
    if !launched() {
        return None;
    }
    let universe = mpi::initialize()?;
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let local: usize = std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // (Fails only if the pool exists already: then it stays as it is.)
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads((cores / local.max(1)).max(1))
            .build_global();
    }
    ACTIVE.store(true, Ordering::SeqCst);
    let rank = universe.world().rank();
    if let Some(secs) = std::env::var("MPARRAY_MPI_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
    {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs_f64(secs));
            eprintln!(
                "mparray: error: rank {rank}: still running after MPARRAY_MPI_TIMEOUT={secs} s \
                 (another rank died or hangs); ending this rank"
            );
            unsafe extern "C" {
                fn _exit(code: i32) -> !;
            }
            // SAFETY: ends the process at once (no destructors, no MPI
            // finalisation that could wait for the dead rank).
            unsafe { _exit(124) }
        });
    }
    Some(Session {
        _universe: universe,
    })
}

/// The world communicator while MPI is initialised.
pub fn world() -> Option<Comm> {
    ACTIVE
        .load(Ordering::SeqCst)
        .then(|| Comm(SimpleCommunicator::world()))
}

/// This process's rank, 0 without MPI.
pub fn rank() -> usize {
    world().map_or(0, |c| c.rank())
}

/// The bytes this rank has sent and received through [`Comm`] so far.
pub fn traffic() -> (u64, u64) {
    (
        SENT.load(Ordering::Relaxed),
        RECEIVED.load(Ordering::Relaxed),
    )
}

/// A communicator with the collectives mparray needs, on whole vectors of
/// `u64` or bytes (counts and displacements computed here).
pub struct Comm(pub(crate) SimpleCommunicator);

fn count(n: usize) -> Result<Count> {
    Count::try_from(n).map_err(|_| {
        Error::Invalid(format!(
            "a message of {n} elements is more than MPI's count ({} at most)",
            Count::MAX
        ))
    })
}

fn displs(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |s, &c| {
            let d = *s;
            *s += c;
            Some(d)
        })
        .collect()
}

fn account<T>(sent: usize, received: usize) {
    let sz = std::mem::size_of::<T>() as u64;
    SENT.fetch_add(sent as u64 * sz, Ordering::Relaxed);
    RECEIVED.fetch_add(received as u64 * sz, Ordering::Relaxed);
}

impl Comm {
    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.0.rank() as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.0.size() as usize
    }

    /// Splits into sub-communicators by `color`, ranked by `key`.
    pub fn split(&self, color: usize, key: usize) -> Comm {
        let c = self
            .0
            .split_by_color_with_key(mpi::topology::Color::with_value(color as i32), key as i32)
            .expect("every rank gives a colour");
        Comm(c)
    }

    /// Root `root`'s `data` on every rank (`data` is ignored elsewhere).
    pub fn bcast_u64(&self, root: usize, data: Vec<u64>) -> Vec<u64> {
        let mut n = [data.len() as u64];
        self.0.process_at_rank(root as i32).broadcast_into(&mut n);
        let mut v = if self.rank() == root {
            data
        } else {
            vec![0u64; n[0] as usize]
        };
        self.0
            .process_at_rank(root as i32)
            .broadcast_into(&mut v[..]);
        if self.rank() == root {
            account::<u64>(v.len() * (self.size() - 1), 0);
        } else {
            account::<u64>(0, v.len());
        }
        v
    }

    /// Root `root`'s bytes on every rank.
    pub fn bcast_bytes(&self, root: usize, data: Vec<u8>) -> Vec<u8> {
        let mut n = [data.len() as u64];
        self.0.process_at_rank(root as i32).broadcast_into(&mut n);
        let mut v = if self.rank() == root {
            data
        } else {
            vec![0u8; n[0] as usize]
        };
        self.0
            .process_at_rank(root as i32)
            .broadcast_into(&mut v[..]);
        v
    }

    /// Root 0 gives part `r` of `parts` (one per rank) to rank `r`; every
    /// rank returns its part (`parts` is ignored off rank 0).
    pub fn scatter_u64(&self, parts: Vec<Vec<u64>>) -> Result<Vec<u64>> {
        let root = self.0.process_at_rank(0);
        let mut n = [0u64];
        if self.rank() == 0 {
            let lens: Vec<u64> = parts.iter().map(|p| p.len() as u64).collect();
            root.scatter_into_root(&lens[..], &mut n);
            let counts = lens
                .iter()
                .map(|&l| count(l as usize))
                .collect::<Result<Vec<_>>>()?;
            let mut parts = parts;
            let mine = std::mem::take(&mut parts[0]);
            // Rank 0's own part stays here (an empty slot in the message).
            let flat: Vec<u64> = parts.concat();
            let mut counts = counts;
            counts[0] = 0;
            let d = displs(&counts);
            let part = Partition::new(&flat[..], &counts[..], &d[..]);
            let mut none: [u64; 0] = [];
            root.scatter_varcount_into_root(&part, &mut none[..]);
            account::<u64>(flat.len(), 0);
            Ok(mine)
        } else {
            root.scatter_into(&mut n);
            let mut v = vec![0u64; n[0] as usize];
            root.scatter_varcount_into(&mut v[..]);
            account::<u64>(0, v.len());
            Ok(v)
        }
    }

    /// Every rank's `mine` on rank 0 (one vector per rank, in rank order);
    /// `None` elsewhere.
    pub fn gather_u64(&self, mine: Vec<u64>) -> Result<Option<Vec<Vec<u64>>>> {
        let root = self.0.process_at_rank(0);
        let n = [mine.len() as u64];
        if self.rank() == 0 {
            let mut lens = vec![0u64; self.size()];
            root.gather_into_root(&n[..], &mut lens[..]);
            let mut counts = lens
                .iter()
                .map(|&l| count(l as usize))
                .collect::<Result<Vec<_>>>()?;
            counts[0] = 0;
            let d = displs(&counts);
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            let mut flat = vec![0u64; total];
            {
                let mut part = PartitionMut::new(&mut flat[..], &counts[..], &d[..]);
                let none: [u64; 0] = [];
                root.gather_varcount_into_root(&none[..], &mut part);
            }
            account::<u64>(0, total);
            let mut out = vec![mine];
            for r in 1..self.size() {
                let s = d[r] as usize;
                out.push(flat[s..s + counts[r] as usize].to_vec());
            }
            Ok(Some(out))
        } else {
            root.gather_into(&n[..]);
            root.gather_varcount_into(&mine[..]);
            account::<u64>(mine.len(), 0);
            Ok(None)
        }
    }

    /// Every rank's bytes on rank 0, in rank order; `None` elsewhere.
    pub fn gather_bytes(&self, mine: Vec<u8>) -> Result<Option<Vec<Vec<u8>>>> {
        // Bytes travel as u64 words with the length in front.
        let mut w = vec![mine.len() as u64];
        w.extend(
            mine.chunks(8)
                .map(|c| c.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64)),
        );
        Ok(self.gather_u64(w)?.map(|all| {
            all.into_iter()
                .map(|w| {
                    let n = w[0] as usize;
                    let mut b: Vec<u8> = w[1..].iter().flat_map(|x| x.to_le_bytes()).collect();
                    b.truncate(n);
                    b
                })
                .collect()
        }))
    }

    /// All-to-all: `parts[s]` goes to rank `s`; returns what every rank sent
    /// here, one vector per source rank.
    pub fn all_to_all_u64(&self, parts: &[Vec<u64>]) -> Result<Vec<Vec<u64>>> {
        let p = self.size();
        let lens: Vec<u64> = parts.iter().map(|v| v.len() as u64).collect();
        let mut rlens = vec![0u64; p];
        self.0.all_to_all_into(&lens[..], &mut rlens[..]);
        let sc = lens
            .iter()
            .map(|&l| count(l as usize))
            .collect::<Result<Vec<_>>>()?;
        let rc = rlens
            .iter()
            .map(|&l| count(l as usize))
            .collect::<Result<Vec<_>>>()?;
        let (sd, rd) = (displs(&sc), displs(&rc));
        let flat: Vec<u64> = parts.concat();
        let total: usize = rc.iter().map(|&c| c as usize).sum();
        let mut recv = vec![0u64; total];
        {
            let s = Partition::new(&flat[..], &sc[..], &sd[..]);
            let mut r = PartitionMut::new(&mut recv[..], &rc[..], &rd[..]);
            self.0.all_to_all_varcount_into(&s, &mut r);
        }
        let me = self.rank();
        account::<u64>(flat.len() - lens[me] as usize, total - rlens[me] as usize);
        Ok((0..p)
            .map(|r| {
                let s = rd[r] as usize;
                recv[s..s + rc[r] as usize].to_vec()
            })
            .collect())
    }

    /// All-to-all on one flat buffer: `send[off_s..off_s + counts[s]]`
    /// (the parts in rank order) goes to rank `s`; returns what arrived,
    /// flat in source-rank order, and the count from every rank. One copy
    /// fewer than [`Comm::all_to_all_u64`] each way.
    pub fn all_to_all_flat(
        &self,
        send: &[u64],
        counts: &[usize],
    ) -> Result<(Vec<u64>, Vec<usize>)> {
        let p = self.size();
        let lens: Vec<u64> = counts.iter().map(|&c| c as u64).collect();
        let mut rlens = vec![0u64; p];
        self.0.all_to_all_into(&lens[..], &mut rlens[..]);
        let sc = counts
            .iter()
            .map(|&l| count(l))
            .collect::<Result<Vec<_>>>()?;
        let rc = rlens
            .iter()
            .map(|&l| count(l as usize))
            .collect::<Result<Vec<_>>>()?;
        let (sd, rd) = (displs(&sc), displs(&rc));
        let total: usize = rc.iter().map(|&c| c as usize).sum();
        let mut recv = crate::huge::cpu::take_buffer(total);
        {
            let s = Partition::new(send, &sc[..], &sd[..]);
            let mut r = PartitionMut::new(&mut recv[..], &rc[..], &rd[..]);
            self.0.all_to_all_varcount_into(&s, &mut r);
        }
        let me = self.rank();
        let sent: usize = counts.iter().sum();
        account::<u64>(sent - counts[me], total - rlens[me] as usize);
        Ok((recv, rlens.iter().map(|&l| l as usize).collect()))
    }

    /// Every rank's `mine` (the same length on every rank) on every rank,
    /// concatenated in rank order.
    pub fn all_gather_u64(&self, mine: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; mine.len() * self.size()];
        self.0.all_gather_into(mine, &mut out[..]);
        account::<u64>(
            mine.len() * (self.size() - 1),
            mine.len() * (self.size() - 1),
        );
        out
    }

    /// Sends bytes to rank `to` (a matching [`Comm::recv_bytes`] there).
    pub fn send_bytes(&self, to: usize, data: &[u8]) {
        self.0.process_at_rank(to as i32).send(data);
        account::<u8>(data.len(), 0);
    }

    /// Receives the bytes that rank `from` sends with [`Comm::send_bytes`].
    pub fn recv_bytes(&self, from: usize) -> Vec<u8> {
        let (v, _) = self.0.process_at_rank(from as i32).receive_vec::<u8>();
        account::<u8>(0, v.len());
        v
    }

    /// Waits for every rank.
    pub fn barrier(&self) {
        self.0.barrier();
    }

    /// Ends a step on every rank: `Ok` when no rank failed; otherwise every
    /// rank gets the first failure (lowest rank) as `(rank, message)`.
    pub fn agree(&self, local: std::result::Result<(), String>) -> Result<(), (usize, String)> {
        let bytes = match &local {
            Ok(()) => Vec::new(),
            Err(m) => m.as_bytes().to_vec(),
        };
        let mut flag = [i32::from(local.is_err())];
        let mut any = [0i32];
        self.0.all_reduce_into(
            &flag[..],
            &mut any[..],
            mpi::collective::SystemOperation::max(),
        );
        if any[0] == 0 {
            return Ok(());
        }
        // The lowest failing rank tells everyone.
        let me = if local.is_err() {
            self.rank() as i32
        } else {
            i32::MAX
        };
        flag[0] = me;
        let mut first = [0i32];
        self.0.all_reduce_into(
            &flag[..],
            &mut first[..],
            mpi::collective::SystemOperation::min(),
        );
        let r = first[0] as usize;
        let msg = self.bcast_bytes(r, bytes);
        Err((r, String::from_utf8_lossy(&msg).into_owned()))
    }
}

/// The rows `[start, end)` of rank `r` when `n` rows are split over `p`
/// ranks as evenly as possible (the first `n % p` ranks get one more).
pub fn block(n: usize, p: usize, r: usize) -> (usize, usize) {
    let (q, e) = (n / p, n % p);
    let s = r * q + r.min(e);
    (s, s + q + usize::from(r < e))
}

/// For tests of the failure paths: `MPARRAY_MPI_TEST_FAIL=R:error` makes
/// rank R fail its local work with an error, `R:kill` kills rank R by
/// SIGKILL at that point.
pub(crate) fn injected_failure(rank: usize) -> std::result::Result<(), String> {
    let Ok(v) = std::env::var("MPARRAY_MPI_TEST_FAIL") else {
        return Ok(());
    };
    let Some((r, what)) = v.split_once(':') else {
        return Ok(());
    };
    if r.trim().parse::<usize>().ok() != Some(rank) {
        return Ok(());
    }
    match what.trim() {
        "kill" => {
            unsafe extern "C" {
                fn getpid() -> i32;
                fn kill(pid: i32, sig: i32) -> i32;
            }
            // SAFETY: signals this process itself.
            unsafe { kill(getpid(), 9) };
            Ok(())
        }
        _ => Err(format!(
            "injected failure (MPARRAY_MPI_TEST_FAIL={v}) on rank {rank}"
        )),
    }
}

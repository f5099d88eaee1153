//! The SMs of a timed run on several threads, with the results of one.
//!
//! An SM touches what the others touch only through global memory, L2 and
//! DRAM, and the block dispatcher. Run alone on a worker thread, an SM runs
//! every instruction that touches none of them, and stops before any other
//! (a global load, store or atomic through L2, an `EXIT`: [`Info::turn`]),
//! which the chip's loop runs later, in its turn, exactly as a run on one
//! thread does. The exception is the commonest of them in tuned code, the
//! read-only load (`LDG`): the SM records it ([`Request`]) and runs on, with
//! its registers left as they were; the loop reads its data and times its
//! lines in turn ([`resolve`]) and hands the result back ([`Sm::apply`]).
//! The SM runs no cycle in which such a load could land before it is back:
//! the load's `due` cycle (its issue plus the least latency it can have)
//! bounds how far the SM runs ([`Sm::horizon`]).
//!
//! The order of everything shared is the single-threaded run's: requests
//! are resolved, and instructions that take their turn run, in (cycle, SM)
//! order, then in the SM's issue order; a request is resolved only when
//! every SM has run past its cycle (each SM's `front`, below which it will
//! issue nothing), and an instruction takes its turn only when its SM's
//! front is the chip's lowest. So cycles, counters, buffers and errors are
//! the same at any thread count.
//!
//! [`Info::turn`]: super::pipes::Info::turn
//! [`Request`]: super::sm::Request
//! [`resolve`]: super::sm::resolve

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use crate::func::SimError;
use crate::mem::GlobalMem;

use super::events::Nobody;
use super::gpu::{stuck, Grid, Partial};
use super::l2::{Memory, Slots};
use super::sm::{resolve, Launch, Ran, Request, Resolved, Sm, Turn, NEVER};

/// How far past the chip's lowest front an SM may be run ahead, in cycles,
/// and how many cycles a worker runs an SM before it hands it back if the
/// lock is free: long enough that handing SMs out costs little, short
/// enough that every SM's front moves often and its loads are resolved soon
/// (the fastest of 96 to 512 cycles on the tuned SGEMM, and as fast as any
/// of 128 to 768 on the tiled one). Neither changes a result.
const WINDOW: u64 = 1024;
const CHUNK: u64 = 192;

/// One SM as the chip's loop sees it.
struct Place {
    /// The SM, when no worker runs it.
    sm: Option<Box<Sm>>,
    /// Below this cycle the SM issues nothing more: its next turn or the due
    /// cycle of a load not yet applied (while a worker runs it, the value
    /// when it was taken).
    front: u64,
    /// Its next turn, as last seen, and whether it stopped before an
    /// instruction that waits for it.
    next: u64,
    paused: bool,
    /// Its accesses not yet resolved, in issue order, and their due cycles;
    /// the earliest of those, and the first's (cycle, SM), kept here so
    /// that the chip's loop finds them without reading the queues (each
    /// read of another core's line costs).
    queue: VecDeque<Request>,
    dues: VecDeque<u64>,
    due: u64,
    head: Turn,
    /// Accesses resolved, for the worker that runs the SM next to apply
    /// (the SM's state stays in that worker's caches), and the earliest
    /// cycle one of them lands in.
    mailbox: Vec<Resolved>,
    lands: u64,
    /// Its read-only and L2 request slots.
    slots: Slots,
    ld_slots: Slots,
    /// The error it stopped at, and its cycle.
    failed: Option<(u64, SimError)>,
    /// The worker that ran it last (which runs it again when it can: its
    /// state is in that worker's caches).
    home: usize,
}

impl Place {
    /// Its front from its SM's state.
    fn settle(&mut self) {
        let sm = self.sm.as_ref().expect("settled at home");
        (self.next, self.paused) = (sm.next_turn().0, sm.paused());
        self.refront();
    }

    /// Its front from what is known of the SM: its next turn, its accesses
    /// not yet resolved, and those resolved but not applied.
    fn refront(&mut self) {
        self.front = match &self.failed {
            Some((t, _)) => *t,
            None => self.next.min(self.due).min(self.lands),
        };
    }

    /// Takes `requests` (issued in order) into its queue.
    fn enqueue(&mut self, requests: impl Iterator<Item = Request>) {
        for r in requests {
            self.due = self.due.min(r.due);
            self.dues.push_back(r.due);
            self.queue.push_back(r);
        }
        self.rehead();
    }

    /// Its oldest access not yet resolved, taken off the queue.
    fn dequeue(&mut self) -> Option<Request> {
        let r = self.queue.pop_front()?;
        if self.dues.pop_front() == Some(self.due) {
            self.due = self.dues.iter().copied().min().unwrap_or(NEVER);
        }
        self.rehead();
        Some(r)
    }

    fn rehead(&mut self) {
        self.head = self
            .queue
            .front()
            .map_or((NEVER, u32::MAX), |r| (r.cycle, r.sm));
    }
}

/// The chip's shared state, behind the one lock.
struct Chip<'a, 'g, 'p> {
    places: Vec<Place>,
    global: &'g mut GlobalMem,
    mem: &'g mut Memory,
    grid: &'g mut Grid<'p>,
    block_at: &'a (dyn Fn(u64) -> [u32; 3] + Sync),
    tpb: u32,
    stop: Option<&'a std::sync::atomic::AtomicBool>,
    partial: Option<Partial>,
    /// Set when the run is over: every worker then returns.
    end: Option<Result<(), SimError>>,
    finished: Vec<[u32; 3]>,
    /// The workers.
    threads: usize,
    /// Emptied mailboxes, for reuse: a buffer allocated on one thread and
    /// freed on another costs both.
    emptied: Vec<Vec<Resolved>>,
}

/// An SM handed to a worker: run it up to `horizon` (and `CHUNK` cycles
/// past its next turn at a time), after applying what was resolved for it.
struct Job {
    i: usize,
    sm: Box<Sm>,
    resolved: Vec<Resolved>,
    horizon: u64,
}

impl Job {
    /// Its SM's index, the SM with what was resolved for it applied, the
    /// emptied mailbox, and the horizon.
    fn open(self, l: &Launch) -> (usize, Box<Sm>, Vec<Resolved>, u64) {
        let Job {
            i,
            mut sm,
            mut resolved,
            horizon,
        } = self;
        if !resolved.is_empty() {
            sm.apply(l, &resolved);
            resolved.clear();
        }
        (i, sm, resolved, horizon)
    }
}

/// What a worker does next.
enum Next {
    /// Run an SM, and a spare to run instead of waiting for the lock.
    Run(Job, Option<Job>),
    Wait,
    Done,
}

/// A worker's run of an SM: what it gives back.
struct Back {
    i: usize,
    sm: Box<Sm>,
    /// Its next turn and whether it stopped before an instruction that
    /// waits for it (so that the chip's loop need not read the SM).
    next: u64,
    paused: bool,
    resident: usize,
    ran: Result<Ran, (u64, SimError)>,
    requests: Vec<Request>,
    /// The mailbox it was given, applied and emptied.
    applied: Vec<Resolved>,
}

impl Back {
    /// SM `i` given back, `resident` its blocks when it was taken, with
    /// what it ran, its requests and its emptied mailbox.
    fn new(
        i: usize,
        sm: Box<Sm>,
        resident: usize,
        ran: Result<Ran, (u64, SimError)>,
        requests: Vec<Request>,
        applied: Vec<Resolved>,
    ) -> Back {
        Back {
            i,
            next: sm.next_turn().0,
            paused: sm.paused(),
            sm,
            resident,
            ran,
            requests,
            applied,
        }
    }
}

/// Runs `sms` (their first blocks placed) to the grid's end (`grid`) on
/// `threads` threads, with the chip's memory `global` and `mem`; returns
/// why the run ended early if it did.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    threads: usize,
    l: &Launch,
    sms: &mut Vec<Sm>,
    global: &mut GlobalMem,
    mem: &mut Memory,
    grid: &mut Grid,
    block_at: &(dyn Fn(u64) -> [u32; 3] + Sync),
    tpb: u32,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Result<Option<Partial>, SimError> {
    let places = std::mem::take(sms)
        .into_iter()
        .enumerate()
        .map(|(i, mut sm)| {
            let (slots, ld_slots) = sm.deferring(&l.config.timing);
            let mut p = Place {
                sm: Some(Box::new(sm)),
                front: 0,
                next: 0,
                paused: false,
                queue: VecDeque::new(),
                dues: VecDeque::new(),
                due: NEVER,
                head: (NEVER, u32::MAX),
                mailbox: Vec::new(),
                lands: NEVER,
                slots,
                ld_slots,
                failed: None,
                home: i % threads,
            };
            p.settle();
            p
        })
        .collect();
    let chip = Mutex::new(Chip {
        places,
        global,
        mem,
        grid,
        block_at,
        tpb,
        stop,
        partial: None,
        end: None,
        finished: Vec::with_capacity(16),
        emptied: Vec::new(),
        threads,
    });
    let news = News {
        count: AtomicU64::new(0),
        broken: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        for me in 1..threads {
            let (chip, news) = (&chip, &news);
            scope.spawn(move || work(chip, news, l, me));
        }
        work(&chip, &news, l, 0);
    });
    let mut chip = chip.into_inner().unwrap_or_else(|e| e.into_inner());
    sms.extend(
        chip.places
            .iter_mut()
            .map(|p| *p.sm.take().expect("every SM is back")),
    );
    let end = chip.end.take().expect("the run ended");
    end.map(|()| chip.partial)
}

/// Whether the SM of `p` is at home and can run below `cap`.
fn runnable(p: &Place, cap: u64) -> bool {
    p.sm.is_some()
        && p.failed.is_none()
        && !p.paused
        && (p.next < p.due.min(cap) || !p.mailbox.is_empty())
}

/// Takes the lock: tries for it a while first, pausing between tries (the
/// other worker holds it for microseconds, and a worker put to sleep on it
/// waits far longer to wake: tens of microseconds on a virtual machine).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    for _ in 0..1 << 10 {
        match m.try_lock() {
            Ok(g) => return g,
            Err(TryLockError::Poisoned(e)) => return e.into_inner(),
            Err(TryLockError::WouldBlock) => {
                for _ in 0..8 {
                    std::hint::spin_loop();
                }
            }
        }
    }
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the workers hear of each other without the lock: how many times an
/// SM was given back (a worker with nothing to do waits for the count to
/// change), and whether a worker panicked (the others then stop, and the
/// panic goes on to the caller).
struct News {
    count: AtomicU64,
    broken: AtomicBool,
}

/// Tells the other workers when this one unwinds from a panic.
struct Unwinding<'a>(&'a News);

impl Drop for Unwinding<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.broken.store(true, Ordering::Release);
            self.0.count.fetch_add(1, Ordering::Release);
        }
    }
}

/// A worker: takes an SM the chip's loop gives it (and a spare), runs it
/// alone, gives it back, until the run is over. Every worker is also the
/// chip's loop, in turn, while it holds the lock. It waits for the lock
/// only when it has nothing left to run: an SM it holds ends its run when
/// the lock is free ([`Side::run`]); while another worker holds it, the
/// worker runs its spare, or the SM on to its horizon, instead.
fn work(chip: &Mutex<Chip>, news: &News, l: &Launch, me: usize) {
    let _unwinding = Unwinding(news);
    let mut no_global = GlobalMem::new();
    let mut no_mem = Memory::new(&l.config.timing);
    let mut backs: Vec<Back> = Vec::with_capacity(2);
    let mut lists: Vec<Vec<Request>> = Vec::new();
    let mut held = None;
    loop {
        if news.broken.load(Ordering::Acquire) {
            return;
        }
        let seen = news.count.load(Ordering::Acquire);
        let next = {
            let mut c = held.take().unwrap_or_else(|| lock(chip));
            if !backs.is_empty() {
                for b in backs.drain(..) {
                    lists.push(c.absorb(b));
                }
                news.count.fetch_add(1, Ordering::Release);
            }
            c.next(l, me)
        };
        match next {
            Next::Run(first, spare) => {
                let requests = lists.pop().unwrap_or_default();
                let mut side = Side {
                    chip,
                    held: &mut held,
                    no_global: &mut no_global,
                    no_mem: &mut no_mem,
                };
                backs.push(side.run(l, first, requests, spare.is_some()));
                if let Some(spare) = spare {
                    let requests = lists.pop().unwrap_or_default();
                    backs.push(if side.held.is_some() {
                        // The lock is this worker's: the spare goes back
                        // as it came.
                        Side::unrun(l, spare, requests)
                    } else {
                        side.run(l, spare, requests, false)
                    });
                }
            }
            Next::Wait => {
                // Nothing to do until a worker gives an SM back (or the run
                // is stopped): wait for that without taking the lock.
                let mut spins = 0u32;
                while news.count.load(Ordering::Acquire) == seen {
                    spins += 1;
                    if spins < 1 << 12 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                        if spins > 1 << 14 {
                            // A stop request changes no news.
                            break;
                        }
                    }
                }
            }
            Next::Done => return,
        }
    }
}

/// What a worker runs an SM with: the lock (to hand it back when it is
/// free), and the memory an SM run alone never touches (a global access or
/// an L2 request waits for its turn).
struct Side<'w, 'c, 'a, 'g, 'p> {
    chip: &'c Mutex<Chip<'a, 'g, 'p>>,
    held: &'w mut Option<MutexGuard<'c, Chip<'a, 'g, 'p>>>,
    no_global: &'w mut GlobalMem,
    no_mem: &'w mut Memory,
}

impl Side<'_, '_, '_, '_, '_> {
    /// Runs `job` `CHUNK` cycles at a time up to its horizon, with its
    /// accesses into `requests`. After a chunk, or at the horizon when a
    /// spare is left (`spare`), it stops if the lock is free (and keeps
    /// it); while another worker holds it, the SM runs on, or stops for the
    /// spare, rather than wait.
    fn run(&mut self, l: &Launch, job: Job, mut requests: Vec<Request>, spare: bool) -> Back {
        let (i, mut sm, applied, horizon) = job.open(l);
        let resident = sm.resident();
        let mut finished = Vec::new();
        // The last tick of all the chunks run, not only the last chunk's
        // (which may run none): how long the SM had work must not depend on
        // how many chunks the lock's traffic let it run.
        let mut quiet = NEVER;
        let ran = loop {
            let limit = horizon.min(sm.requests_due());
            let chunk = sm.next_turn().0.saturating_add(CHUNK);
            sm.horizon = limit.min(chunk);
            let ran = sm.run(
                l,
                self.no_global,
                self.no_mem,
                &mut Nobody,
                &mut finished,
                (0, 0),
            );
            if let Ok(r) = &ran {
                if r.quiet != NEVER {
                    quiet = r.quiet;
                }
            }
            let chunked = ran.is_ok()
                && chunk < limit
                && sm.horizon == chunk
                && !sm.paused()
                && sm.next_turn().0 >= chunk;
            if !chunked && !spare {
                break ran;
            }
            match self.chip.try_lock() {
                Ok(c) => *self.held = Some(c),
                Err(TryLockError::Poisoned(e)) => *self.held = Some(e.into_inner()),
                Err(TryLockError::WouldBlock) if !spare => continue,
                Err(TryLockError::WouldBlock) => {}
            }
            break ran;
        };
        debug_assert!(finished.is_empty(), "a block ends only at an EXIT, in turn");
        let ran = ran.map(|r| Ran { quiet, ..r });
        sm.take_requests(&mut requests);
        Back::new(i, sm, resident, ran, requests, applied)
    }

    /// Gives `job` back not run (what was resolved for it applied).
    fn unrun(l: &Launch, job: Job, requests: Vec<Request>) -> Back {
        let (i, sm, applied, _) = job.open(l);
        let resident = sm.resident();
        let ran = Ok(Ran {
            quiet: NEVER,
            finished: NEVER,
        });
        Back::new(i, sm, resident, ran, requests, applied)
    }
}

impl Chip<'_, '_, '_> {
    /// Takes back an SM a worker ran; gives back its emptied request list.
    fn absorb(&mut self, mut b: Back) -> Vec<Request> {
        let p = &mut self.places[b.i];
        match b.ran {
            Ok(r) => {
                if r.quiet != NEVER && b.resident > 0 {
                    self.grid.busy[b.i] = r.quiet + 1;
                }
            }
            Err((t, e)) => p.failed = Some((t, e)),
        }
        p.enqueue(b.requests.drain(..));
        p.sm = Some(b.sm);
        (p.next, p.paused) = (b.next, b.paused);
        p.refront();
        if b.applied.capacity() > 0 {
            self.emptied.push(b.applied);
        }
        b.requests
    }

    /// The chip's loop, as far as it can go now: resolves the loads every
    /// SM has run past, runs the instructions whose turn has come, and finds
    /// the calling worker an SM to run.
    fn next(&mut self, l: &Launch, me: usize) -> Next {
        loop {
            if self.end.is_some() {
                return Next::Done;
            }
            if self
                .stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                let low = self.places.iter().map(|p| p.front).min().unwrap_or(NEVER);
                if self.places.iter().all(|p| p.sm.is_some()) {
                    self.partial = Some(Partial::Stopped);
                    self.grid.end = self.grid.end.max(low.saturating_sub(1));
                    self.end = Some(Ok(()));
                    return Next::Done;
                }
                return Next::Wait;
            }
            // Every SM's front, and the lowest.
            let (low, m) = self.lowest(usize::MAX);
            // Loads below every front are resolved.
            match self.resolve_below((low, m as u32), l) {
                Err(e) => {
                    self.end = Some(Err(e));
                    return Next::Done;
                }
                Ok(true) => continue,
                Ok(false) => {}
            }
            if low == NEVER {
                // Nothing left to do, unless a worker still runs an SM.
                if self.places.iter().any(|p| p.sm.is_none()) {
                    return Next::Wait;
                }
                let stuck_now = self.grid.done < self.grid.total;
                self.end = Some(if stuck_now {
                    let sms: Vec<&Sm> =
                        self.places.iter().filter_map(|p| p.sm.as_deref()).collect();
                    Err(stuck(l.prog, &sms))
                } else {
                    Ok(())
                });
                return Next::Done;
            }
            let p = &mut self.places[m];
            if let Some((_, e)) = p.failed.take() {
                // The first error in turn is the run's.
                self.end = Some(Err(e));
                return Next::Done;
            }
            if p.paused && !p.mailbox.is_empty() {
                if let Some(sm) = p.sm.as_mut() {
                    // Waiting for its turn: what it waits behind is
                    // applied here.
                    sm.apply(l, &p.mailbox);
                    p.mailbox.clear();
                    p.lands = NEVER;
                    p.settle();
                    continue;
                }
            }
            if p.sm.is_some() && p.paused && p.next == low {
                // Its turn.
                if let Err(e) = self.turn(m, l) {
                    self.end = Some(Err(e));
                    return Next::Done;
                }
                continue;
            }
            // An SM for the worker: the one furthest behind that can run of
            // those it ran last, else of any (its state then moves caches).
            let cap = low.saturating_add(WINDOW);
            let pick = self
                .places
                .iter()
                .enumerate()
                .filter(|(_, p)| runnable(p, cap))
                .min_by_key(|(i, p)| (p.home != me, p.next, *i))
                .map(|(i, _)| i);
            let Some(i) = pick else {
                return Next::Wait;
            };
            let first = self.job(i, me, cap);
            // A spare, when enough SMs are left for the other workers.
            let (mut count, mut best) = (0, None);
            for (j, p) in self.places.iter().enumerate() {
                if runnable(p, cap) {
                    count += 1;
                    let key = (p.home != me, p.next, j);
                    if best.is_none_or(|b| key < b) {
                        best = Some(key);
                    }
                }
            }
            let spare = match best {
                Some((_, _, j)) if count >= self.threads => Some(self.job(j, me, cap)),
                _ => None,
            };
            return Next::Run(first, spare);
        }
    }

    /// Hands SM `i` to worker `me`, to run below `cap`.
    fn job(&mut self, i: usize, me: usize, cap: u64) -> Job {
        let p = &mut self.places[i];
        p.home = me;
        let sm = p.sm.take().expect("picked at home");
        let resolved = std::mem::replace(&mut p.mailbox, self.emptied.pop().unwrap_or_default());
        p.lands = NEVER;
        Job {
            i,
            sm,
            resolved,
            horizon: p.due.min(cap),
        }
    }

    /// The lowest front, (cycle, SM), of the SMs but `but`.
    fn lowest(&self, but: usize) -> (u64, usize) {
        self.places
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != but)
            .map(|(i, p)| (p.front, i))
            .min()
            .unwrap_or((NEVER, usize::MAX))
    }

    /// Resolves, in order, every access whose (cycle, SM) comes before
    /// `below`, into its SM's mailbox; true when it resolved any (fronts may
    /// have moved).
    fn resolve_below(&mut self, below: Turn, l: &Launch) -> Result<bool, SimError> {
        let mut any = false;
        loop {
            let head = self
                .places
                .iter()
                .enumerate()
                .map(|(i, p)| (p.head, i))
                .min()
                .filter(|h| h.0 .0 != NEVER);
            let Some((key, i)) = head else { break };
            if key >= below {
                break;
            }
            let p = &mut self.places[i];
            let r = p.dequeue().expect("its head");
            let done = resolve(&r, l, self.global, self.mem, &mut p.slots, &mut p.ld_slots)?;
            p.lands = p.lands.min(done.lands());
            p.mailbox.push(done);
            if p.sm.is_some() || p.failed.is_some() {
                // A front taken with the SM keeps its value until it is back.
                p.refront();
            }
            any = true;
        }
        Ok(any)
    }

    /// Runs the rest of SM `m`'s cycle, its turn come: first every load
    /// before it (its own of this cycle too), then its tick, with the chip's
    /// memory.
    fn turn(&mut self, m: usize, l: &Launch) -> Result<(), SimError> {
        let t = self.places[m].next;
        loop {
            // Accesses of cycle `t` from lower SMs and from this one come
            // first.
            self.resolve_below((t, m as u32 + 1), l)?;
            let (other, j) = self.lowest(m);
            let allow = (other, j as u32);
            let p = &mut self.places[m];
            let mut sm = p.sm.take().expect("at home");
            if !p.mailbox.is_empty() {
                sm.apply(l, &p.mailbox);
                p.mailbox.clear();
                p.lands = NEVER;
            }
            self.finished.clear();
            let resident = sm.resident();
            // An instruction that takes its turn times its lines through
            // the SM's L2 slots.
            sm.lend(&mut p.ld_slots);
            let r = sm.tick(
                t,
                l,
                self.global,
                self.mem,
                &mut Nobody,
                &mut self.finished,
                allow,
            );
            sm.lend(&mut p.ld_slots);
            let mut requests = Vec::new();
            sm.take_requests(&mut requests);
            p.enqueue(requests.into_iter());
            if let Ok(true) = r {
                if !self.finished.is_empty() {
                    let finished = std::mem::take(&mut self.finished);
                    self.grid.ran(
                        m,
                        &mut sm,
                        t,
                        &finished,
                        &self.block_at,
                        self.tpb,
                        &mut Nobody,
                    );
                    self.finished = finished;
                } else if resident > 0 {
                    self.grid.busy[m] = t + 1;
                }
            }
            p.sm = Some(sm);
            match r {
                Err(e) => {
                    p.failed = Some((t, e));
                    p.settle();
                    return Ok(());
                }
                Ok(false) => {
                    // It stopped before another instruction that waits for
                    // its turn, behind a load of this cycle: resolve, go on.
                    assert!(!p.queue.is_empty(), "a turn stops only behind a load");
                    p.settle();
                    continue;
                }
                Ok(true) => {
                    p.settle();
                    return Ok(());
                }
            }
        }
    }
}

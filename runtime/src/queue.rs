//! Command queues: ordering commands and handing them to the device's workers.
//!
//! Enqueuing creates the command's event and computes what it waits for: its wait list, plus
//! the previous command on an in-order queue, plus the last barrier on an out-of-order one.
//! When the last of those finishes, the command is submitted to the device's pool; if any of
//! them failed, the command does not run and completes with
//! `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`, which propagates to what waits on it.
//! Only wait lists propagate failures: the queue's ordering (in-order predecessor, barrier)
//! makes a command wait, not fail, so a failed command does not poison its queue.
//!
//! A short command that is ready when it is enqueued on an in-order queue is not handed to
//! the pool at once: it is *deferred* (see [`flusher`]). The application nearly always waits
//! for it next (`clFinish`, `clWaitForEvents`, a blocking read), and the waiting thread then
//! runs it itself, with the commands chained behind it; a hand-off would cost a wake-up
//! system call and a second core's time for nothing (and rayon's wake-up looks at every
//! worker, so its cost grew with the core count). "clFlush only guarantees that all queued
//! commands ... will eventually be submitted": a deferred command goes to the pool when its
//! queue is flushed or released, when a command of another queue waits for it, when a
//! callback is set on it or its status is asked, and in any case within one tick of the
//! flusher thread.

mod batch;
#[cfg(test)]
pub(crate) use batch::tests as batch_tests;
mod eventless;
mod flusher;
mod work;

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use khronos_headers::*;
use parking_lot::Mutex;

use crate::context::Context;
use crate::device::Device;
use crate::error::ClResult;
use crate::event::{Dependent, Event, Link, Unfinished};
use crate::object::{ClObject, Header, ObjectKind, handle_of};

pub(crate) use work::Nothing;
pub(crate) use work::Slot;
pub use work::{Job, Work, work};
#[cfg(test)]
pub(crate) use work::{fits as fits_in_event, fits_in};

/// How a command that is ready when enqueued starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Handed to the pool.
    Now,
    /// On the enqueuing thread, which waits for it (a blocking command).
    Blocking,
    /// Deferred on an in-order queue (a command of microseconds, which the application
    /// most likely waits for next); handed to the pool on an out-of-order queue.
    Short,
}

/// How a command is enqueued: what its event reports, how it is ordered and how it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    pub command_type: cl_command_type,
    pub order: QueueOrder,
    pub start: Start,
}

/// How a command relates to the others of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueOrder {
    /// An ordinary command.
    Command,
    /// Waits for every command enqueued before it (a marker without a wait list).
    AfterAll,
    /// Every later command waits for it (`clEnqueueBarrier*`, `clEnqueueWaitForEvents`);
    /// with `after_all` it also waits for every earlier command, else only its wait list.
    Barrier { after_all: bool },
}

impl QueueOrder {
    fn waits_for_all(self) -> bool {
        matches!(
            self,
            QueueOrder::AfterAll | QueueOrder::Barrier { after_all: true }
        )
    }
}

struct QueueState {
    /// The last command enqueued in order: every command enqueued while the queue was
    /// in-order waits for the one before it, so this one finishing means they all have
    /// (`clFinish` waits for it first).
    last: Option<Arc<Event>>,
    /// The last barrier of an out-of-order queue.
    barrier: Option<Arc<Event>>,
    /// Commands not known to be finished, in order or not (for `clFinish` and barriers).
    /// On an in-order queue `last` already stands for them all; they are listed so that the
    /// enqueuing thread, pruning the list, drops the last reference of finished events and
    /// frees them where the next events are allocated. Left to whichever thread drops last
    /// (mostly a worker), the enqueuer's `malloc` took glibc's slow path and its arena's
    /// lock moved between cores: unlisted, the burst of tiny kernels ran 15–25% slower on
    /// the 2-core machine although each enqueue ran ~200 fewer instructions. Finished ones
    /// are removed when the list has doubled since the last pruning, so that a burst of
    /// enqueues costs amortized constant time each (pruning on every enqueue made a burst
    /// of n commands cost n²/2 scans); a finished event left in the list is harmless.
    unfinished: Vec<Arc<Event>>,
    /// The length of `unfinished` at which it is pruned next.
    prune_at: usize,
    /// The deferred command of this in-order queue (the first of a chain, if later commands
    /// were enqueued behind it), with the flusher's tick when it was deferred. It may have
    /// run already (a waiting thread ran it): then it is merely stale.
    deferred: Option<(Arc<Event>, u64)>,
    /// The plain in-order commands handed to the chain's runner in one exchange (see
    /// [`batch`]).
    batch: batch::Batch,
}

impl QueueState {
    /// Adds a command, first dropping finished ones if the list has grown enough.
    #[inline(always)]
    fn track(&mut self, event: Arc<Event>) {
        if self.unfinished.len() >= self.prune_at {
            self.unfinished.retain(|e| !e.is_finished());
            self.prune_at = (self.unfinished.len() * 2).max(MIN_PRUNE_AT);
        }
        self.unfinished.push(event);
    }
}

/// The smallest list [`QueueState::track`] prunes.
const MIN_PRUNE_AT: usize = 64;

/// Aligned to 128 bytes (two cache lines, the unit adjacent-line prefetch pulls), so that
/// the reference counts of its `Arc`, which every command takes at enqueue and a worker
/// drops when it has run, do not share a line with the fields each enqueue reads and locks:
/// otherwise every drop on a worker made the enqueuing thread's next lock of `state` a
/// cache miss (measured: a quarter of `enqueue` on that one instruction).
#[repr(C, align(128))]
pub struct Queue {
    header: Header,
    context: Arc<Context>,
    device: Arc<Device>,
    properties: AtomicU64,
    /// Whether plain in-order commands join batches ([`batch`]; `CLIFT_BATCH`).
    batching: bool,
    /// Whether the batch was open when the queue's lock was last released (written under
    /// the lock; read without it as a hint): a command without an event is built for the
    /// batch only then, so that a chain's leader (every launch of an enqueue-and-wait
    /// loop) is built in its event at once, not built for the batch and moved.
    batch_open: AtomicBool,
    state: Mutex<QueueState>,
}

const _: () = assert!(align_of::<Queue>() == 128);

// SAFETY: `Queue` is `#[repr(C)]` with its `Header` first (the alignment adds no padding
// before the first field).
unsafe impl ClObject for Queue {
    const KIND: ObjectKind = ObjectKind::CommandQueue;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Queue {
    /// A queue on `device` of `context` (both validated by the caller).
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: cl_command_queue_properties,
    ) -> ClResult<Arc<Queue>> {
        let queue = Self::unflushed(context, device, properties, batch::enabled())?;
        flusher::register(&queue);
        Ok(queue)
    }

    /// A queue that the flusher does not look at (its deferred commands run only when
    /// waited for or flushed; the tests of deferral use it, to be independent of timing).
    fn unflushed(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: cl_command_queue_properties,
        batching: bool,
    ) -> ClResult<Arc<Queue>> {
        // Start the device's workers now, so the first command does not pay for it.
        device.executor()?;
        Ok(Arc::new(Queue {
            header: Header::new(ObjectKind::CommandQueue),
            context,
            device,
            properties: AtomicU64::new(properties),
            batching,
            batch_open: AtomicBool::new(false),
            state: Mutex::new(QueueState {
                last: None,
                barrier: None,
                unfinished: Vec::new(),
                prune_at: MIN_PRUNE_AT,
                deferred: None,
                batch: batch::Batch::default(),
            }),
        }))
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    pub fn properties(&self) -> cl_command_queue_properties {
        self.properties.load(Ordering::Acquire)
    }

    /// `clSetCommandQueueProperty` (1.0): sets or clears `bits`, returning the old value.
    pub fn change_properties(&self, bits: cl_command_queue_properties, enable: bool) -> u64 {
        if enable {
            self.properties.fetch_or(bits, Ordering::AcqRel)
        } else {
            self.properties.fetch_and(!bits, Ordering::AcqRel)
        }
    }

    pub fn is_out_of_order(&self) -> bool {
        self.properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }

    pub fn profiling(&self) -> bool {
        self.properties() & CL_QUEUE_PROFILING_ENABLE != 0
    }

    /// Enqueues a command that runs `work` once `wait_list` (validated by the caller) and
    /// the queue's ordering allow; returns its event.
    ///
    /// A `Blocking` command whose dependencies have all finished runs at once on the calling
    /// thread, which is about to wait for it anyway; a `Short` one on an in-order queue is
    /// deferred (see the module's documentation).
    #[inline]
    pub fn enqueue<J: Job + 'static>(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        order: QueueOrder,
        start: Start,
        job: J,
    ) -> Arc<Event> {
        let how = Enqueued {
            command_type,
            order,
            start,
        };
        let write = |at: *mut J| {
            // SAFETY: `enqueue_with` hands a place valid for writes of a `J`.
            unsafe { at.write(job) };
            Ok(())
        };
        match self.enqueue_with(wait_list, write, |_| how) {
            Ok(event) => event,
            Err(_) => unreachable!("writing a job does not fail"),
        }
    }

    /// [`Queue::enqueue`] with the job built in place by `build` (see [`Job`]): the event
    /// is allocated first and the job written straight into it (a kernel launch's ~350
    /// bytes are copied once, from the kernel), then `describe` tells from the job how it
    /// is enqueued. Everything is written before the queue is locked; what depends on the
    /// queue's state is filled in under the lock. If `build` fails, nothing is enqueued.
    ///
    /// `build` must write a whole `J` into the place it is given when it succeeds, and
    /// nothing that needs dropping when it fails.
    #[inline(always)]
    pub fn enqueue_with<J: Job + 'static>(
        self: &Arc<Self>,
        wait_list: Vec<Arc<Event>>,
        build: impl FnOnce(*mut J) -> ClResult<()>,
        describe: impl FnOnce(&J) -> Enqueued,
    ) -> ClResult<Arc<Event>> {
        let event = self.enqueue_returning(wait_list, true, build, describe)?;
        Ok(event.expect("the event is returned when asked for"))
    }

    /// [`Queue::enqueue_with`], returning the event only if `returned`: an application
    /// that passes no event pointer (a burst of launches) then costs the new event no
    /// reference count taken and dropped at once, two locked instructions.
    #[inline(always)]
    pub fn enqueue_returning<J: Job + 'static>(
        self: &Arc<Self>,
        wait_list: Vec<Arc<Event>>,
        returned: bool,
        build: impl FnOnce(*mut J) -> ClResult<()>,
        describe: impl FnOnce(&J) -> Enqueued,
    ) -> ClResult<Option<Arc<Event>>> {
        // (A job too large for a batch's slot, a launch built for its event, keeps one.)
        if !returned
            && work::fits_in::<J, { work::BATCH_WORDS }>()
            && self.may_be_eventless(&wait_list)
        {
            return self.enqueue_eventless(wait_list, build, describe);
        }
        let (event, how) = Event::command(&self.context, self, self.profiling(), build, describe)?;
        Ok(self.enqueue_event(event, wait_list, how.order, how.start, returned))
    }

    /// The part of [`Queue::enqueue`] that does not depend on the job's type.
    fn enqueue_event(
        self: &Arc<Self>,
        event: Unfinished,
        wait_list: Vec<Arc<Event>>,
        ordering: QueueOrder,
        start: Start,
        returned: bool,
    ) -> Option<Arc<Event>> {
        let mut deps = wait_list;
        // Only the wait list's failures propagate: the queue's own ordering (the previous
        // command, a barrier, what a marker waits for) does not, so that a command that
        // failed (a faulting kernel) leaves its queue usable.
        let explicit = deps.len();
        // The command the queue's order adds (kept apart from `deps`, which would allocate
        // for it in the common case of an empty wait list).
        let out_of_order = self.is_out_of_order();
        let mut replaced_leader = None;
        let (event, previous, defer) = {
            let mut state = self.state.lock();
            // A plain in-order command behind a runner joins its batch ([`batch`]): it
            // touches no other event (no continuation, no count on the command before it).
            let plain = self.batching
                && !out_of_order
                && ordering == QueueOrder::Command
                && start != Start::Blocking;
            if plain
                && let Some(leader) = state.batch.joinable()
                && deps.iter().all(|d| d.status() == CL_COMPLETE)
            {
                let event = event.finish(Link {
                    leader: Some(Arc::clone(leader)),
                    ..Link::default()
                });
                state.last = Some(Arc::clone(&event));
                state.batch.join(Arc::clone(&event));
                let returned = returned.then(|| Arc::clone(&event));
                state.track(event);
                let spent = state.batch.pickup();
                drop(state);
                self.drop_spent(spent);
                return returned;
            }
            // What the command may wait for below (`last`, `unfinished`) must stand for
            // every command so far, bare ones included.
            self.mark_tail(&mut state);
            if ordering.waits_for_all() {
                state.unfinished.retain(|e| !e.is_finished());
                // Every command not known to be finished, in order or not (`last` is
                // among them).
                deps.extend(state.unfinished.iter().cloned());
            }
            let previous = if out_of_order {
                state.barrier.clone()
            } else {
                state.last.take()
            };
            // A finished command is no dependency.
            let previous = previous.filter(|p| !p.is_finished());
            // Ready now, and stays so (a finished event does not change): nobody else can
            // count it down, so whether it is deferred is decided here, before it is seen.
            let defer = start == Start::Short
                && !out_of_order
                && previous.is_none()
                && deps.iter().all(|d| d.status() == CL_COMPLETE);
            // A command that does not join closes the batch; with no runner holding the
            // in-order chain, it leads a new one (a blocking command runs alone).
            let leads = self.batching
                && state
                    .batch
                    .close_or_lead(!out_of_order && start != Start::Blocking);
            self.batch_open
                .store(state.batch.joinable_after_lead(), Ordering::Relaxed);
            // The event is completed here, with the command it follows known, so that it
            // is complete before anyone else can see it.
            let before = previous.as_ref().filter(|_| !out_of_order);
            let event = event.finish(Link {
                queue: Some(Arc::clone(self)),
                before: before.map(Arc::downgrade),
                deferred: defer,
                leads,
                leader: None,
            });
            if leads {
                replaced_leader = state.batch.set_leader(Arc::clone(&event));
            }
            if !out_of_order {
                state.last = Some(Arc::clone(&event));
            } else if matches!(ordering, QueueOrder::Barrier { .. }) {
                state.barrier = Some(Arc::clone(&event));
            }
            if defer {
                state.deferred = Some((Arc::clone(&event), flusher::tick()));
            }
            state.track(Arc::clone(&event));
            (event, previous, defer)
        };
        drop(replaced_leader);
        if defer {
            flusher::deferred();
        }
        submit_when_ready(self, &event, deps, previous, explicit);
        returned.then_some(event)
    }

    /// `clFlush`: hands the deferred command (and so what is chained behind it) to the pool.
    pub fn flush(&self) {
        let deferred = self.state.lock().deferred.take();
        if let Some((event, _)) = deferred {
            hand_to_pool(&event);
        }
    }

    /// The deferred command, if it has not run: a thread about to wait for a command of this
    /// queue runs it (and what follows) itself. It stays recorded until it has run, so
    /// that a flush still finds it if that thread cannot take it.
    fn deferred(&self) -> Option<Arc<Event>> {
        let state = self.state.lock();
        let (event, _) = state.deferred.as_ref()?;
        (!event.is_finished()).then(|| Arc::clone(event))
    }

    /// `clFinish`: blocks until every command enqueued so far has finished.
    ///
    /// The last in-order command is waited for first: it finishes after every earlier
    /// in-order one, so on an in-order queue nothing else is left to wait for (and no list
    /// is copied); then those enqueued while the queue was out-of-order.
    pub fn finish(&self) {
        let last = {
            let mut state = self.state.lock();
            self.mark_tail(&mut state);
            state.last.clone()
        };
        if let Some(last) = last {
            last.wait();
        }
        let pending: Vec<Arc<Event>> = {
            let mut state = self.state.lock();
            state.unfinished.retain(|e| !e.is_finished());
            state.unfinished.clone()
        };
        for event in pending {
            event.wait();
        }
        self.state.lock().unfinished.retain(|e| !e.is_finished());
    }
}

/// A command's part of its event: its work, and what it still waits for. It holds its
/// queue until it has run: "After the command_queue reference count becomes zero and all
/// commands queued to command_queue have finished, the command-queue is deleted."
pub(crate) struct Pending {
    /// The queue, taken by whoever runs the command (or gives it up unrun), so that a
    /// finished event does not hold it (the queue holds its last event). Taking it is the
    /// right to use `work`.
    queue: Mutex<Option<Arc<Queue>>>,
    /// The work, run (or dropped) in place by the thread that took `queue`, and by no
    /// other; then dropped with the event.
    work: UnsafeCell<Slot>,
    remaining: AtomicUsize,
    failed: AtomicBool,
    /// Submitted and not started: a thread about to wait for the event may run it.
    offered: AtomicBool,
    /// Ready at enqueue and not handed to the pool yet (see the module's documentation):
    /// cleared by whoever hands it over.
    deferred: AtomicBool,
    blocking: bool,
    /// When the command was enqueued, kept only for `CLIFT_LOG=launch`.
    enqueued_at: Option<std::time::Instant>,
    /// Whoever runs it then runs the queue's batch ([`batch`]).
    leads: bool,
    /// A command in a batch (its `queue` is `None`: the runner has it): the command whose
    /// runner runs it, which a waiting thread may run itself, and which holds the queue
    /// for a flush while it has not run.
    leader: Option<Arc<Event>>,
}

impl Pending {
    /// Writes the job of a pending command into uninitialised memory, by `build` (see
    /// [`Slot::write_with`]); returns its place.
    ///
    /// # Safety
    /// `dst` is valid for writes of a `Pending` and holds no job; `build` writes a whole
    /// `J` when it succeeds and nothing that needs dropping when it fails.
    #[inline(always)]
    pub(crate) unsafe fn write_job<J: Job + 'static>(
        dst: *mut Pending,
        build: impl FnOnce(*mut J) -> ClResult<()>,
    ) -> ClResult<*mut J> {
        // SAFETY: the caller's contract.
        unsafe { Slot::write_with(UnsafeCell::raw_get(&raw mut (*dst).work), build) }
    }

    /// Writes a job built already (in its slot) as the job of a pending command.
    ///
    /// # Safety
    /// `dst` is valid for writes of a `Pending` and holds no job.
    #[inline(always)]
    pub(crate) unsafe fn write_slot(dst: *mut Pending, work: Slot) {
        // SAFETY: the caller's contract.
        unsafe { UnsafeCell::raw_get(&raw mut (*dst).work).write(work) }
    }

    /// Writes the pending part of a command but its job ([`Pending::write_job`]) into
    /// uninitialised memory, with no queue and no place in a chain: [`Pending::link`] adds
    /// them (a user event's stays without).
    ///
    /// # Safety
    /// `dst` is valid for writes of a `Pending` and holds none (a live one would leak).
    #[inline(always)]
    pub(crate) unsafe fn write(dst: *mut Pending, blocking: bool) {
        let enqueued_at =
            crate::log::enabled(crate::log::Category::Launch, crate::log::Level::Info)
                .then(std::time::Instant::now);
        // SAFETY: the caller's contract; every field is written once.
        unsafe {
            (&raw mut (*dst).queue).write(Mutex::new(None));
            // One count, released by `submit_when_ready`, so the command cannot start while
            // its dependencies are still being registered.
            (&raw mut (*dst).remaining).write(AtomicUsize::new(1));
            (&raw mut (*dst).failed).write(AtomicBool::new(false));
            (&raw mut (*dst).offered).write(AtomicBool::new(false));
            (&raw mut (*dst).deferred).write(AtomicBool::new(false));
            (&raw mut (*dst).blocking).write(blocking);
            (&raw mut (*dst).enqueued_at).write(enqueued_at);
            (&raw mut (*dst).leads).write(false);
            (&raw mut (*dst).leader).write(None);
        }
    }

    /// Gives a command written by [`Pending::write`] its queue and its place in the
    /// queue's chain (decided under the queue's lock, before anyone else sees the event).
    ///
    /// # Safety
    /// `dst` holds a `Pending` written by [`Pending::write`] that no other thread sees.
    #[inline(always)]
    pub(crate) unsafe fn link(dst: *mut Pending, link: Link) {
        // SAFETY: the caller's contract: this thread alone has the value.
        unsafe {
            let pending = &mut *dst;
            *pending.queue.get_mut() = link.queue;
            *pending.deferred.get_mut() = link.deferred;
            pending.leads = link.leads;
            pending.leader = link.leader;
        }
    }

    /// The command whose runner runs this one, if it is in a batch.
    pub(crate) fn leader(&self) -> Option<&Arc<Event>> {
        self.leader.as_ref()
    }

    /// Withdraws the offer to waiters; whether it was open.
    pub(crate) fn take_offer(&self) -> bool {
        self.offered.load(Ordering::Relaxed) && self.offered.swap(false, Ordering::AcqRel)
    }

    /// The queue, which only the first taker gets: the right to run the work. The work is
    /// then run without any lock held (`run_work`), so a second taker (a worker and a
    /// waiting thread both try) finds the queue gone at once instead of waiting for the run,
    /// which may need that very worker (a large copy is split over the pool).
    fn take_queue(&self) -> Option<Arc<Queue>> {
        self.queue.lock().take()
    }

    /// The queue, while the command has not run (a command in a batch: while its leader
    /// has not run).
    pub(crate) fn queue(&self) -> Option<Arc<Queue>> {
        match &self.leader {
            Some(leader) => leader.pending()?.queue(),
            None => self.queue.lock().clone(),
        }
    }

    /// Runs the work for `queue` (`None`: drops it unrun).
    ///
    /// # Safety
    /// The caller has taken the queue ([`Pending::take_queue`]): it alone uses the work.
    unsafe fn run_work(&self, queue: Option<&Queue>) -> ClResult<()> {
        // SAFETY: the caller's contract makes this the only access.
        unsafe { (*self.work.get()).run(queue) }
    }

    /// Drops the work without running it, and the queue, unless someone has taken the
    /// queue (and so the work) already. A leader's queue is returned: its batch still
    /// runs, once the caller has set the command's final status.
    #[must_use]
    fn give_up(&self) -> Option<Arc<Queue>> {
        let queue = self.take_queue()?;
        // SAFETY: this thread took the queue.
        let _ = unsafe { self.run_work(None) };
        self.leads.then_some(queue)
    }
}

/// The pending part of a command's event (every command's event has one).
pub(crate) fn pending(event: &Event) -> &Pending {
    event
        .pending()
        .expect("a command's event carries its command")
}

fn submit_when_ready(
    queue: &Queue,
    event: &Arc<Event>,
    deps: Vec<Arc<Event>>,
    previous: Option<Arc<Event>>,
    explicit: usize,
) {
    // Nobody else counts down before the dependencies are registered below.
    pending(event).remaining.fetch_add(
        deps.len() + usize::from(previous.is_some()),
        Ordering::AcqRel,
    );
    for (i, dep) in deps.into_iter().enumerate() {
        let dependent = Arc::clone(event) as Arc<dyn Dependent>;
        if i < explicit {
            // A command of another queue may be deferred: this one waits for it now. (One
            // of this queue runs before this one anyway.)
            if dep.queue_handle() != handle_of(queue) {
                dep.flush();
            }
            dep.notify(dependent);
        } else {
            dep.notify_order(dependent);
        }
    }
    if let Some(previous) = previous {
        previous.notify_order(Arc::clone(event) as Arc<dyn Dependent>);
    }
    dependency_done(event, CL_COMPLETE, true);
}

impl Dependent for Event {
    fn dependency_finished(self: Arc<Self>, status: cl_int) {
        dependency_done(&self, status, false);
    }
}

thread_local! {
    /// On a thread running commands (a worker, or a thread waiting for a command): a command
    /// that became ready meanwhile (the next one of an in-order queue, typically), which the
    /// thread runs next itself instead of handing it to the pool, so a chain of commands
    /// costs no wake-up per command.
    static NEXT: std::cell::RefCell<Option<Arc<Event>>> = const { std::cell::RefCell::new(None) };
    /// Whether this thread keeps the commands it makes ready in [`NEXT`].
    static RUNNER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// One dependency of `event`'s command has finished (`on_enqueuing_thread`: the final count
/// released by `submit_when_ready` itself); the last one submits the command.
fn dependency_done(event: &Arc<Event>, status: cl_int, on_enqueuing_thread: bool) {
    let pending = pending(event);
    if status < 0 {
        pending.failed.store(true, Ordering::Release);
    }
    if pending.remaining.fetch_sub(1, Ordering::AcqRel) != 1 {
        return;
    }
    if pending.failed.load(Ordering::Acquire) {
        let batch = pending.give_up();
        event.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        if let Some(queue) = batch {
            batch::hand_over(queue);
        }
        return;
    }
    event.set_status(CL_SUBMITTED);
    if pending.blocking && on_enqueuing_thread {
        return run(event, None);
    }
    // Sequentially consistent with `hand_to_pool`'s swap and load: either it sees the
    // offer, or this sees that it is no longer deferred (and hands it over itself).
    pending.offered.store(true, Ordering::SeqCst);
    if pending.deferred.load(Ordering::SeqCst) {
        // Its first waiter runs it, or a flush hands it over (see the module's doc).
        return;
    }
    // A thread that has just finished this command's last dependency runs it next.
    let kept = RUNNER.with(|on| on.get())
        && NEXT.with(|next| {
            let mut next = next.borrow_mut();
            next.is_none() && {
                *next = Some(Arc::clone(event));
                true
            }
        });
    if !kept {
        spawn(event);
    }
}

/// Hands a deferred command to the pool, if it still is deferred and nobody has run it.
pub(crate) fn hand_to_pool(event: &Arc<Event>) {
    let pending = pending(event);
    if pending.deferred.load(Ordering::Relaxed)
        && pending.deferred.swap(false, Ordering::SeqCst)
        && pending.offered.load(Ordering::SeqCst)
    {
        spawn(event);
    }
}

/// Spawns a submitted command on its device's pool (a waiting thread may still run it
/// first: whoever takes the queue runs it).
fn spawn(event: &Arc<Event>) {
    let pending = pending(event);
    let failed = {
        // The queue is reached through the job, which a waiting thread may have run (and
        // taken) already.
        let queue = pending.queue.lock();
        let Some(queue) = queue.as_ref() else {
            return;
        };
        match queue.device.executor() {
            Ok(executor) => {
                let event = Arc::clone(event);
                executor.spawn(move || on_worker(|| run(&event, None)));
                None
            }
            Err(e) => Some(e),
        }
    };
    if let Some(e) = failed
        && pending.take_offer()
    {
        let batch = pending.give_up();
        event.set_status(e.code());
        if let Some(queue) = batch {
            batch::hand_over(queue);
        }
    }
}

/// Runs `f` (a command, or a queue's batches) on a worker, then the commands it made ready
/// that the worker kept.
fn on_worker(f: impl FnOnce()) {
    let runner = RUNNER.with(|on| on.replace(true));
    f();
    if !runner {
        while let Some(next) = NEXT.with(|next| next.borrow_mut().take()) {
            run(&next, None);
        }
    }
    RUNNER.with(|on| on.set(runner));
}

/// Runs `first` (whose offer this thread has taken) on a thread waiting for `target`, then
/// the commands that makes ready (the rest of an in-order chain) until `target` has
/// finished; a command made ready after that goes to the pool.
pub(crate) fn run_here_until(first: &Event, target: &Event) {
    let runner = RUNNER.with(|on| on.replace(true));
    run(first, Some(target));
    if !runner {
        while let Some(next) = NEXT.with(|next| next.borrow_mut().take()) {
            if target.is_finished() {
                spawn(&next);
            } else {
                run(&next, Some(target));
            }
        }
    }
    RUNNER.with(|on| on.set(runner));
}

/// The deferred command of `event`'s queue when `event` has not run: the first of the chain
/// `event` is in (or `event` itself).
pub(crate) fn deferred_before(event: &Event) -> Option<Arc<Event>> {
    event.pending()?.queue()?.deferred()
}

/// Runs `event`'s command, once: a worker and a waiting thread may both try. If it leads a
/// batch, its items follow (`until`: see [`batch::run_batches`]).
pub(crate) fn run(event: &Event, until: Option<&Event>) {
    let pending = pending(event);
    // Whoever runs it withdraws the offer to waiters.
    pending.offered.store(false, Ordering::Release);
    let Some(queue) = pending.take_queue() else {
        return;
    };
    execute(event, &queue);
    if pending.leads {
        batch::run_batches(queue, until);
    }
    // Otherwise the queue may go once its last command has finished.
}

/// Runs the work of `event`'s command for `queue`, with its status moving to running and
/// then to its result.
///
/// The caller alone has the right to run it: it took the command's queue, or the command
/// is in a batch it took.
fn execute(event: &Event, queue: &Queue) {
    let pending = pending(event);
    event.set_status(CL_RUNNING);
    let started = pending.enqueued_at.map(|t| (t, std::time::Instant::now()));
    // Only this thread, which has the right to, runs the work, outside any lock.
    // SAFETY: the caller's contract.
    let status = unsafe { pending.run_work(Some(queue)) };
    let status = match status {
        Ok(()) => CL_COMPLETE,
        Err(e) => e.code(),
    };
    if let Some((enqueued, started)) = started {
        crate::clift_log!(
            Launch,
            Info,
            "{}: waited {:.1} us, ran {:.1} us -> {}",
            crate::log::command_name(event.command_type()),
            (started - enqueued).as_secs_f64() * 1e6,
            started.elapsed().as_secs_f64() * 1e6,
            if status == CL_COMPLETE {
                "CL_COMPLETE".to_string()
            } else {
                crate::log::status_name(status)
            }
        );
    }
    event.set_status(status);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::context::ContextProperties;
    use crate::platform::Platform;

    /// A failed command fails the commands whose wait list holds it, not the next command
    /// of its in-order queue: the queue goes on after a faulting kernel.
    #[test]
    fn only_wait_lists_propagate_a_failure() {
        let device = Arc::clone(&Platform::get().devices()[0]);
        let context = Context::new(
            vec![Arc::clone(&device)],
            ContextProperties::default(),
            None,
        );
        let queue = Queue::new(context, device, 0).unwrap();
        let ok = || -> Work { work(|_| Ok(())) };
        let failed = queue.enqueue(
            CL_COMMAND_NDRANGE_KERNEL,
            Vec::new(),
            QueueOrder::Command,
            Start::Now,
            work(|_| Err(crate::ClError(CL_OUT_OF_RESOURCES))),
        );
        let next = queue.enqueue(
            CL_COMMAND_MARKER,
            Vec::new(),
            QueueOrder::Command,
            Start::Now,
            ok(),
        );
        let waiting = queue.enqueue(
            CL_COMMAND_MARKER,
            vec![Arc::clone(&failed)],
            QueueOrder::Command,
            Start::Now,
            ok(),
        );
        let after_all = queue.enqueue(
            CL_COMMAND_MARKER,
            Vec::new(),
            QueueOrder::AfterAll,
            Start::Now,
            ok(),
        );
        assert_eq!(failed.wait(), CL_OUT_OF_RESOURCES);
        assert_eq!(next.wait(), CL_COMPLETE);
        assert_eq!(waiting.wait(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        assert_eq!(after_all.wait(), CL_COMPLETE);
        queue.finish();
    }

    /// A long burst keeps the list of unfinished commands short (it is pruned as it
    /// doubles), in order or not; `clFinish` still waits for every command.
    #[test]
    fn a_burst_keeps_the_unfinished_list_bounded() {
        for (properties, bound) in [(0, 64), (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 64)] {
            let queue = queue(properties);
            let done = Arc::new(AtomicUsize::new(0));
            let mut longest = 0;
            for _ in 0..5_000 {
                let done = Arc::clone(&done);
                let work: Work = work(move |_| {
                    done.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                });
                // Blocking: each command has finished before the next is enqueued.
                let event = queue.enqueue(
                    CL_COMMAND_MARKER,
                    Vec::new(),
                    QueueOrder::Command,
                    Start::Blocking,
                    work,
                );
                assert_eq!(event.wait(), CL_COMPLETE);
                longest = longest.max(queue.state.lock().unfinished.len());
            }
            assert_eq!(MIN_PRUNE_AT, 64);
            assert!(longest <= bound, "{longest} commands tracked");
            queue.finish();
            assert_eq!(done.load(Ordering::Relaxed), 5_000);
            assert!(queue.state.lock().unfinished.is_empty());
        }
    }

    /// On an in-order queue the last command stands for the earlier ones: after the queue
    /// is switched to out-of-order (`clSetCommandQueueProperty`), a marker and `clFinish`
    /// still wait for them, and for the out-of-order ones.
    #[test]
    fn markers_and_finish_wait_for_commands_enqueued_before_a_switch_to_out_of_order() {
        let queue = queue(0);
        let gate = Event::user(Arc::clone(queue.context()));
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = |queue: &Arc<Queue>, waits: Vec<Arc<Event>>| {
            let ran = Arc::clone(&ran);
            queue.enqueue(
                CL_COMMAND_MARKER,
                waits,
                QueueOrder::Command,
                Start::Now,
                work(move |_| {
                    ran.fetch_add(1, Ordering::AcqRel);
                    Ok(())
                }),
            )
        };
        let in_order: Vec<_> = (0..3)
            .map(|i| {
                counted(
                    &queue,
                    if i == 0 {
                        vec![Arc::clone(&gate)]
                    } else {
                        Vec::new()
                    },
                )
            })
            .collect();
        assert_eq!(queue.state.lock().unfinished.len(), 3);
        queue.change_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, true);
        let second_gate = Event::user(Arc::clone(queue.context()));
        let out_of_order = counted(&queue, vec![Arc::clone(&second_gate)]);
        assert_eq!(queue.state.lock().unfinished.len(), 4);
        let marker = queue.enqueue(
            CL_COMMAND_MARKER,
            Vec::new(),
            QueueOrder::AfterAll,
            Start::Now,
            work(|_| Ok(())),
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(marker.status(), CL_QUEUED);
        second_gate.set_status(CL_COMPLETE);
        assert_eq!(out_of_order.wait(), CL_COMPLETE);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            marker.status(),
            CL_QUEUED,
            "the marker waits for the in-order ones"
        );
        let opener = open_later(&gate);
        queue.finish();
        assert_eq!(ran.load(Ordering::Acquire), 4);
        assert!(in_order.iter().all(|e| e.status() == CL_COMPLETE));
        assert_eq!(marker.wait(), CL_COMPLETE);
        opener.join().unwrap();
    }

    /// Completes the user event `gate` from another thread, 20 ms from now.
    fn open_later(gate: &Arc<Event>) -> std::thread::JoinHandle<()> {
        let gate = Arc::clone(gate);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            gate.set_status(CL_COMPLETE);
        })
    }

    pub(crate) fn queue(properties: cl_command_queue_properties) -> Arc<Queue> {
        let device = Arc::clone(&Platform::get().devices()[0]);
        let context = Context::new(
            vec![Arc::clone(&device)],
            ContextProperties::default(),
            None,
        );
        Queue::new(context, device, properties).unwrap()
    }

    /// Workers hand each command of an in-order chain to themselves; the order holds, and
    /// `clFinish` (which waits for the newest command first) returns after all of them.
    #[test]
    fn an_in_order_chain_runs_in_order_and_finish_waits_for_all() {
        let queue = queue(0);
        let order = Arc::new(Mutex::new(Vec::new()));
        let events: Vec<_> = (0..2_000)
            .map(|i| {
                let order = Arc::clone(&order);
                let work: Work = work(move |_| {
                    order.lock().push(i);
                    Ok(())
                });
                queue.enqueue(
                    CL_COMMAND_MARKER,
                    Vec::new(),
                    QueueOrder::Command,
                    Start::Now,
                    work,
                )
            })
            .collect();
        queue.finish();
        assert!(events.iter().all(|e| e.status() == CL_COMPLETE));
        assert_eq!(*order.lock(), (0..2_000).collect::<Vec<_>>());
    }

    /// On an out-of-order queue the newest command may finish first: `clFinish` still waits
    /// for the others.
    #[test]
    fn finish_on_an_out_of_order_queue_waits_for_every_command() {
        let queue = queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        let gate = Event::user(Arc::clone(queue.context()));
        let slow = queue.enqueue(
            CL_COMMAND_MARKER,
            vec![Arc::clone(&gate)],
            QueueOrder::Command,
            Start::Now,
            work(|_| Ok(())),
        );
        let fast = queue.enqueue(
            CL_COMMAND_MARKER,
            Vec::new(),
            QueueOrder::Command,
            Start::Now,
            work(|_| Ok(())),
        );
        assert_eq!(fast.wait(), CL_COMPLETE);
        let opener = open_later(&gate);
        queue.finish();
        assert_eq!(slow.status(), CL_COMPLETE);
        opener.join().unwrap();
    }

    /// A thread waiting for a command runs the ready command before it too, when every
    /// worker is busy (a kernel followed by a blocking read needs no worker).
    #[test]
    fn a_waiting_thread_runs_the_command_before_its_own() {
        let busy = queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        let workers = busy.device().executor().unwrap().threads();
        let started = Arc::new(AtomicUsize::new(0));
        let sleepers: Vec<_> = (0..workers)
            .map(|_| {
                let started = Arc::clone(&started);
                let work: Work = work(move |_| {
                    started.fetch_add(1, Ordering::AcqRel);
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    Ok(())
                });
                busy.enqueue(
                    CL_COMMAND_MARKER,
                    Vec::new(),
                    QueueOrder::Command,
                    Start::Now,
                    work,
                )
            })
            .collect();
        while started.load(Ordering::Acquire) < workers {
            std::thread::yield_now();
        }
        let queue = queue(0);
        let ran_on = Arc::new(Mutex::new(Vec::new()));
        let events: Vec<_> = (0..2)
            .map(|_| {
                let ran_on = Arc::clone(&ran_on);
                let work: Work = work(move |_| {
                    ran_on.lock().push(std::thread::current().id());
                    Ok(())
                });
                queue.enqueue(
                    CL_COMMAND_MARKER,
                    Vec::new(),
                    QueueOrder::Command,
                    Start::Now,
                    work,
                )
            })
            .collect();
        assert_eq!(events[1].wait(), CL_COMPLETE);
        let here = std::thread::current().id();
        assert_eq!(*ran_on.lock(), [here, here]);
        assert!(sleepers.iter().all(|e| e.status() > CL_COMPLETE));
        busy.finish();
    }
    /// A command holds its queue until it has run, not as long as its event lives: the
    /// queue holds its last event, and an application may keep events after releasing the
    /// queue.
    #[test]
    fn a_finished_command_does_not_keep_its_queue_alive() {
        let queue = queue(0);
        let gate = Event::user(Arc::clone(queue.context()));
        let events: Vec<_> = [vec![Arc::clone(&gate)], Vec::new()]
            .into_iter()
            .map(|waits| {
                queue.enqueue(
                    CL_COMMAND_MARKER,
                    waits,
                    QueueOrder::Command,
                    Start::Now,
                    work(|_| Ok(())),
                )
            })
            .collect();
        let weak = Arc::downgrade(&queue);
        drop(queue);
        assert!(
            weak.upgrade().is_some(),
            "waiting commands hold their queue"
        );
        gate.set_status(CL_COMPLETE);
        assert_eq!(events[1].wait(), CL_COMPLETE);
        // The worker that ran the last command lets go of the queue right after.
        let start = std::time::Instant::now();
        while weak.upgrade().is_some() {
            assert!(start.elapsed().as_secs() < 10, "the queue is never dropped");
            std::thread::yield_now();
        }
        assert!(events.iter().all(|e| e.status() == CL_COMPLETE));
    }

    /// A command whose wait list failed gives up its work (and queue) without running.
    #[test]
    fn a_failed_wait_list_drops_the_work_unrun() {
        let queue = queue(0);
        let gate = Event::user(Arc::clone(queue.context()));
        let ran = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&ran);
        let event = queue.enqueue(
            CL_COMMAND_MARKER,
            vec![Arc::clone(&gate)],
            QueueOrder::Command,
            Start::Now,
            work(move |_| {
                flag.store(true, Ordering::Release);
                Ok(())
            }),
        );
        let weak = Arc::downgrade(&queue);
        drop(queue);
        gate.set_status(CL_INVALID_VALUE);
        assert_eq!(event.wait(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        assert!(!ran.load(Ordering::Acquire));
        assert!(weak.upgrade().is_none());
    }

    fn unflushed_queue() -> Arc<Queue> {
        let device = Arc::clone(&Platform::get().devices()[0]);
        let context = Context::new(
            vec![Arc::clone(&device)],
            ContextProperties::default(),
            None,
        );
        Queue::unflushed(context, device, 0, true).unwrap()
    }

    /// A short command recording the thread that ran it.
    fn recorder(queue: &Arc<Queue>, log: &Arc<Mutex<Vec<String>>>) -> Arc<Event> {
        let log = Arc::clone(log);
        queue.enqueue(
            CL_COMMAND_MARKER,
            Vec::new(),
            QueueOrder::Command,
            Start::Short,
            work(move |_| {
                let name = std::thread::current().name().unwrap_or("").to_string();
                log.lock().push(name);
                Ok(())
            }),
        )
    }

    /// A short command ready at enqueue waits for its waiter, which runs it and the commands
    /// chained behind it: no worker takes part.
    #[test]
    fn a_deferred_chain_runs_on_the_waiting_thread() {
        let queue = unflushed_queue();
        let log = Arc::new(Mutex::new(Vec::new()));
        let events: Vec<_> = (0..3).map(|_| recorder(&queue, &log)).collect();
        assert_eq!(events[0].status(), CL_SUBMITTED);
        assert!(pending(&events[0]).deferred.load(Ordering::Relaxed));
        // The later ones wait for the first, not deferred themselves.
        assert_eq!(events[2].status(), CL_QUEUED);
        assert_eq!(events[2].wait(), CL_COMPLETE);
        let here = std::thread::current().name().unwrap_or("").to_string();
        assert_eq!(*log.lock(), vec![here; 3]);
    }

    /// `clFlush` hands a deferred command to a worker; so does the flusher, within ticks,
    /// when nobody waits or flushes.
    #[test]
    fn a_deferred_command_starts_when_flushed_or_within_ticks() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let flushed = recorder(&unflushed_queue(), &log);
        assert!(pending(&flushed).deferred.load(Ordering::Relaxed));
        pending(&flushed).queue().unwrap().flush();
        let started = std::time::Instant::now();
        while !flushed.is_finished() {
            assert!(
                started.elapsed().as_secs() < 10,
                "the flushed command never ran"
            );
            std::thread::yield_now();
        }
        let unflushed = recorder(&queue(0), &log);
        while !unflushed.is_finished() {
            assert!(
                started.elapsed().as_secs() < 10,
                "the deferred command never ran"
            );
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        let log = log.lock();
        assert_eq!(log.len(), 2);
        assert!(
            log.iter().all(|name| name.starts_with("clift-worker-")),
            "{log:?}"
        );
    }

    /// A command of another queue that waits for a deferred command starts it; on an
    /// out-of-order queue a short command is not deferred.
    #[test]
    fn other_queues_and_out_of_order_queues_do_not_wait_for_a_waiter() {
        let first = unflushed_queue();
        let log = Arc::new(Mutex::new(Vec::new()));
        let deferred = recorder(&first, &log);
        let other = Queue::new(
            Arc::clone(first.context()),
            Arc::clone(first.device()),
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        )
        .unwrap();
        let log2 = Arc::clone(&log);
        let after = other.enqueue(
            CL_COMMAND_MARKER,
            vec![Arc::clone(&deferred)],
            QueueOrder::Command,
            Start::Short,
            work(move |_| {
                log2.lock().push("after".to_string());
                Ok(())
            }),
        );
        let started = std::time::Instant::now();
        while !after.is_finished() {
            assert!(started.elapsed().as_secs() < 10, "the chain never ran");
            std::thread::yield_now();
        }
        assert_eq!(deferred.status(), CL_COMPLETE);
        let log = log.lock();
        assert!(log[0].starts_with("clift-worker-"), "{log:?}");
        assert_eq!(log[1], "after");
    }
}

//! Events: the status of one command (or a user event), and what waits for it.
//!
//! Status only moves forward: QUEUED → SUBMITTED → RUNNING → COMPLETE, or to a negative
//! error code, which is final like COMPLETE. A waiting thread first runs the command itself
//! if no worker has started it (and a deferred command its in-order chain starts with,
//! see `crate::queue`), then spins briefly (a command running elsewhere often ends
//! within microseconds), then blocks on a condition variable; application callbacks and
//! internal continuations (commands whose wait lists this event is in) run after the lock
//! is released, so a callback may call back into the API.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use khronos_headers::*;
use parking_lot::{Condvar, Mutex};

use crate::context::Context;
use crate::error::ClResult;
use crate::object::handle_of;
use crate::object::{ClObject, Header, ObjectKind};
use crate::queue::{Enqueued, Job, Nothing, Pending, Queue, Slot, Start};

/// A `clSetEventCallback` callback, wrapped by the C layer (which knows the event's handle
/// and the application's data): called with the status the spec says it receives.
pub type EventCallback = Box<dyn FnOnce(cl_int) + Send>;

/// Work to do once an event has finished (successfully or not), inside the runtime.
pub type Continuation = Box<dyn FnOnce(cl_int) + Send>;

/// A command waiting for events: told when each has finished, without a closure allocated
/// per wait.
pub trait Dependent: Send + Sync {
    fn dependency_finished(self: Arc<Self>, status: cl_int);
}

/// What runs once an event has finished.
enum Then {
    Closure(Continuation),
    Dependent(Arc<dyn Dependent>),
    /// A command that waits for this one only because of its queue's order: it is told
    /// "complete" whatever the status, so a failed command does not fail its successors.
    Ordering(Arc<dyn Dependent>),
}

impl Then {
    fn call(self, status: cl_int) {
        match self {
            Then::Closure(f) => f(status),
            Then::Dependent(d) => d.dependency_finished(status),
            Then::Ordering(d) => d.dependency_finished(CL_COMPLETE),
        }
    }
}

/// How long a waiting thread spins before it sleeps.
const SPIN: Duration = Duration::from_micros(10);

struct State {
    status: cl_int,
    callbacks: Vec<(cl_int, EventCallback)>,
    /// The first continuation, kept apart: most events have exactly one (the next command
    /// of an in-order queue), which then costs no allocation.
    first: Option<Then>,
    continuations: Vec<Then>,
}

/// The nanosecond clock of profiling info: monotonic, shared by every event of the process.
pub fn now_ns() -> u64 {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    // Start at 1 so that a recorded 0 can mean "not reached".
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64 + 1
}

/// The four profiling timestamps of a command.
#[derive(Default)]
struct Times {
    queued: AtomicU64,
    submit: AtomicU64,
    start: AtomicU64,
    end: AtomicU64,
}

#[repr(C)]
pub struct Event {
    header: Header,
    context: Arc<Context>,
    /// The queue's handle value (`CL_EVENT_COMMAND_QUEUE`); NULL for user events. Only the
    /// address is kept: an event must not keep its queue alive.
    queue_handle: *mut c_void,
    command_type: cl_command_type,
    /// Whether the queue had `CL_QUEUE_PROFILING_ENABLE` when the command was enqueued.
    profiled: bool,
    state: Mutex<State>,
    /// `state.status`, readable without the lock (written under it).
    status: AtomicI32,
    changed: Condvar,
    /// The command of this event (nothing to run for a user event): its work, what it
    /// still waits for, and whether a thread about to wait for this event may run it
    /// itself instead of waiting for a worker to pick it up (the short path of
    /// enqueue-then-finish). Part of the event, work included, so that a command costs one
    /// allocation, not two.
    pending: Pending,
    /// The command before this one on an in-order queue, while it had not finished at
    /// enqueue: a thread waiting for this event runs that one too if no worker has started
    /// it (a kernel followed by a blocking read then costs no hand-off at all).
    before: Option<std::sync::Weak<Event>>,
    times: Times,
}

// SAFETY: `queue_handle` is only an address reported back to the application.
unsafe impl Send for Event {}
// SAFETY: as above; all mutable state is behind the mutex or atomics.
unsafe impl Sync for Event {}

// SAFETY: `Event` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Event {
    const KIND: ObjectKind = ObjectKind::Event;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Event {
    /// The event of a command being enqueued on `queue`, written in place with its job in
    /// it, which `build` writes where it stays (status QUEUED; the queued time is taken now
    /// if the command is profiled, as are its other times: no clock is read otherwise).
    /// `describe` tells, from the job, how the command is enqueued. [`Unfinished::finish`]
    /// completes the event. If `build` fails, nothing else is written and the allocation
    /// is freed.
    #[inline(always)]
    pub(crate) fn command<J: Job + 'static>(
        context: &Arc<Context>,
        queue: &Queue,
        profiled: bool,
        build: impl FnOnce(*mut J) -> ClResult<()>,
        describe: impl FnOnce(&J) -> Enqueued,
    ) -> ClResult<(Unfinished, Enqueued)> {
        let event = Unfinished::new();
        // SAFETY: a fresh event: the job is written first (on failure, `event` is dropped
        // with nothing in it), then every other field once.
        unsafe {
            let job = Pending::write_job(&raw mut (*event.at).pending, build)?;
            let how = describe(&*job);
            Self::write_command(event.at, context, queue, profiled, how);
            Ok((event, how))
        }
    }

    /// [`Event::command`] with the job already written in its slot (`work`, enqueued as
    /// `how`): a command built for a batch that it could not join after all
    /// (`crate::queue::eventless`).
    #[inline(always)]
    pub(crate) fn command_with(
        context: &Arc<Context>,
        queue: &Queue,
        profiled: bool,
        work: Slot,
        how: Enqueued,
    ) -> Unfinished {
        let event = Unfinished::new();
        // SAFETY: a fresh event: the job, then every other field, written once.
        unsafe {
            Pending::write_slot(&raw mut (*event.at).pending, work);
            Self::write_command(event.at, context, queue, profiled, how);
        }
        event
    }

    /// Writes every field of a command's event but its job and its place in the queue.
    ///
    /// # Safety
    /// `dst` is valid for writes of an `Event`, holds none, and its job is written.
    #[inline(always)]
    unsafe fn write_command(
        dst: *mut Event,
        context: &Arc<Context>,
        queue: &Queue,
        profiled: bool,
        how: Enqueued,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            Self::write(
                dst,
                Arc::clone(context),
                handle_of(queue),
                how.command_type,
                CL_QUEUED,
                profiled,
            );
            Pending::write(&raw mut (*dst).pending, how.start == Start::Blocking);
        }
    }

    /// `clCreateUserEvent`: status CL_SUBMITTED until the application sets it.
    pub fn user(context: Arc<Context>) -> Arc<Event> {
        let event = Unfinished::new();
        // SAFETY: a fresh event, written once here.
        unsafe {
            Self::write(
                event.at,
                context,
                std::ptr::null_mut(),
                CL_COMMAND_USER,
                CL_SUBMITTED,
                false,
            );
            let pending = &raw mut (*event.at).pending;
            let nothing = Pending::write_job(pending, |at: *mut Nothing| {
                at.write(Nothing);
                Ok(())
            });
            debug_assert!(nothing.is_ok());
            Pending::write(pending, false);
        }
        event.finish(Link::default())
    }

    /// Writes every field but `pending` and `before` (see [`Unfinished`]).
    ///
    /// # Safety
    /// `dst` is valid for writes of an `Event` and holds none.
    #[inline(always)]
    unsafe fn write(
        dst: *mut Event,
        context: Arc<Context>,
        queue_handle: *mut c_void,
        command_type: cl_command_type,
        status: cl_int,
        profiled: bool,
    ) {
        let queued = if profiled && status == CL_QUEUED {
            now_ns()
        } else {
            0
        };
        // SAFETY: the caller's contract; each field is written once.
        unsafe {
            (&raw mut (*dst).header).write(Header::new(ObjectKind::Event));
            (&raw mut (*dst).context).write(context);
            (&raw mut (*dst).queue_handle).write(queue_handle);
            (&raw mut (*dst).command_type).write(command_type);
            (&raw mut (*dst).profiled).write(profiled);
            (&raw mut (*dst).state).write(Mutex::new(State {
                status,
                callbacks: Vec::new(),
                first: None,
                continuations: Vec::new(),
            }));
            (&raw mut (*dst).status).write(AtomicI32::new(status));
            (&raw mut (*dst).changed).write(Condvar::new());
            (&raw mut (*dst).times).write(Times {
                queued: AtomicU64::new(queued),
                ..Times::default()
            });
        }
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    pub fn queue_handle(&self) -> *mut c_void {
        self.queue_handle
    }

    pub fn command_type(&self) -> cl_command_type {
        self.command_type
    }

    /// Whether profiling timestamps were recorded for this command.
    pub fn profiled(&self) -> bool {
        self.profiled
    }

    pub fn is_user_event(&self) -> bool {
        self.command_type == CL_COMMAND_USER
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`.
    pub fn status(&self) -> cl_int {
        self.status.load(Ordering::Acquire)
    }

    /// Whether the event has finished: complete, or failed.
    pub fn is_finished(&self) -> bool {
        self.status() <= CL_COMPLETE
    }

    /// The profiling timestamps (queued, submit, start, end) in nanoseconds; 0 where not
    /// reached.
    pub fn profiling(&self) -> [u64; 4] {
        let t = &self.times;
        [&t.queued, &t.submit, &t.start, &t.end].map(|v| v.load(Ordering::Acquire))
    }

    /// Moves the event to `status` (ignored if that is not forward), recording the
    /// profiling time, then wakes waiters and runs what was waiting for that status.
    pub fn set_status(&self, status: cl_int) {
        let now = if self.profiled { now_ns() } else { 0 };
        let (callbacks, continuations) = {
            let mut state = self.state.lock();
            if state.status <= CL_COMPLETE || status >= state.status {
                return;
            }
            state.status = status;
            // Each stage reached records its time, and the ones it skipped (a command that
            // runs as soon as it is submitted has submit == start).
            let stages = [
                (CL_SUBMITTED, &self.times.submit),
                (CL_RUNNING, &self.times.start),
                (CL_COMPLETE, &self.times.end),
            ];
            for (stage, time) in stages {
                if self.profiled && status <= stage && time.load(Ordering::Relaxed) == 0 {
                    time.store(now, Ordering::Release);
                }
            }
            // Published after the times, so that whoever sees the status sees them too.
            self.status.store(status, Ordering::Release);
            // "pfn_event_notify ... is called when the command's execution status reaches
            // command_exec_callback_type"; a failed command reaches CL_COMPLETE with its
            // error as the status.
            let due = |&(wanted, _): &(cl_int, EventCallback)| wanted >= status.max(CL_COMPLETE);
            let ready = if state.callbacks.is_empty() {
                Vec::new()
            } else {
                let (ready, later): (Vec<_>, Vec<_>) = state.callbacks.drain(..).partition(due);
                state.callbacks = later;
                ready
            };
            let continuations = if status <= CL_COMPLETE {
                let rest = std::mem::take(&mut state.continuations);
                state.first.take().into_iter().chain(rest)
            } else {
                None.into_iter().chain(Vec::new())
            };
            (ready, continuations)
        };
        if status <= CL_COMPLETE {
            self.changed.notify_all();
        }
        for (wanted, callback) in callbacks {
            callback(reported_status(wanted, status));
        }
        for continuation in continuations {
            continuation.call(status);
        }
    }

    /// `clSetEventCallback`: runs now if the status was already reached (and a deferred
    /// command goes to the pool, so that it does reach it).
    pub fn add_callback(self: &Arc<Self>, wanted: cl_int, callback: EventCallback) {
        let status = {
            let mut state = self.state.lock();
            let reached = state.status <= wanted;
            if !reached {
                state.callbacks.push((wanted, callback));
                drop(state);
                self.flush();
                return;
            }
            state.status
        };
        callback(reported_status(wanted, status));
    }

    /// Hands the command to the pool if it, or the command its in-order chain starts with,
    /// is deferred (`crate::queue`): someone other than a waiting thread needs it to run
    /// (a command of another queue, a callback, an application polling its status).
    pub fn flush(&self) {
        if self.is_finished() {
            return;
        }
        if let Some(queue) = self.pending().and_then(Pending::queue) {
            queue.flush();
        }
    }

    /// Runs `then` once the event has finished (at once, on this thread, if it has).
    pub fn on_finish(&self, then: Continuation) {
        self.then(Then::Closure(then));
    }

    /// Tells `dependent` once the event has finished (at once, on this thread, if it has).
    pub fn notify(&self, dependent: Arc<dyn Dependent>) {
        self.then(Then::Dependent(dependent));
    }

    /// Tells `dependent` once the event has finished, as a success whatever its status: the
    /// queue's own order makes a command wait for this one, not fail with it (only wait
    /// lists pass a failure on).
    pub fn notify_order(&self, dependent: Arc<dyn Dependent>) {
        self.then(Then::Ordering(dependent));
    }

    fn then(&self, then: Then) {
        let status = self.status();
        if status > CL_COMPLETE {
            let mut state = self.state.lock();
            if state.status > CL_COMPLETE {
                if state.first.is_none() {
                    state.first = Some(then);
                } else {
                    state.continuations.push(then);
                }
                return;
            }
        }
        then.call(self.status());
    }

    /// The command's part of the event (`None` for a user event).
    pub(crate) fn pending(&self) -> Option<&Pending> {
        (!self.is_user_event()).then_some(&self.pending)
    }

    /// Runs the command here if it is ready and no one has started it; whether it did.
    fn run_if_offered(&self) -> bool {
        let offered = self.pending().is_some_and(Pending::take_offer);
        if offered {
            crate::queue::run(self, Some(self));
        }
        offered
    }

    /// Blocks until the event has finished; returns its final status. If the command is
    /// ready but no worker has started it yet, the calling thread runs it.
    pub fn wait(&self) -> cl_int {
        let status = self.status();
        if status <= CL_COMPLETE {
            return status;
        }
        if self.run_if_offered() {
            // Ran here.
        } else if let Some(first) = crate::queue::deferred_before(self) {
            // The chain this command is in starts with a deferred command: it runs here, and
            // what follows it up to this one.
            if first.pending().is_some_and(Pending::take_offer) {
                crate::queue::run_here_until(&first, self);
            }
        } else if let Some(leader) = self.pending().and_then(Pending::leader)
            && leader.pending().is_some_and(Pending::take_offer)
        {
            // In a batch whose leader was ready and waited for a worker: the leader runs
            // here, then the batch up to this command.
            crate::queue::run_here_until(leader, self);
        } else if let Some(previous) = self.before.as_ref().and_then(std::sync::Weak::upgrade)
            && previous.run_if_offered()
        {
            // The command before was ready and waited for a worker: it ran here, and so does
            // this one if that made it ready.
            drop(previous);
            self.run_if_offered();
        }
        if let Some(status) = spin_until(SPIN, || {
            let status = self.status();
            (status <= CL_COMPLETE).then_some(status)
        }) {
            return status;
        }
        // A command still deferred here (this thread could not take it: it was being
        // enqueued by another thread) goes to the pool before this thread sleeps.
        self.flush();
        let mut state = self.state.lock();
        while state.status > CL_COMPLETE {
            self.changed.wait(&mut state);
        }
        state.status
    }
}

/// An event being written in place: allocated uninitialised, so that the command's work is
/// written straight into it (a kernel launch's ~350 bytes are copied once, not built on
/// the stack and moved into the allocation). Everything but `before` is written before the
/// queue is locked; [`Unfinished::finish`] writes `before` under the lock, where the
/// previous command is known, and makes it an event. Dropped unfinished (which nothing
/// does), it would leak, never drop uninitialised memory.
pub(crate) struct Unfinished {
    slot: Arc<MaybeUninit<Event>>,
    /// The event's address in `slot`.
    at: *mut Event,
}

impl Unfinished {
    #[inline(always)]
    fn new() -> Unfinished {
        let slot = Arc::<Event>::new_uninit();
        // Not `Arc::get_mut`: its uniqueness check is a locked compare-and-swap on the
        // weak count, which waits for every store before it (session 11: one of the
        // burst's locked instructions per enqueue).
        // SAFETY: a fresh allocation that nothing else references: this pointer is the
        // only access to its contents until the event is published.
        let at = Arc::as_ptr(&slot).cast_mut().cast::<Event>();
        Unfinished { slot, at }
    }

    /// The event, with its place in its queue (see [`Link`]).
    #[inline(always)]
    pub(crate) fn finish(self, mut link: Link) -> Arc<Event> {
        // SAFETY: `at` points into `slot`, which nothing else references yet; `command` or
        // `user` wrote every other field.
        unsafe {
            (&raw mut (*self.at).before).write(link.before.take());
            Pending::link(&raw mut (*self.at).pending, link);
            self.slot.assume_init()
        }
    }
}

/// A command's place in its queue, known under the queue's lock ([`Unfinished::finish`]).
#[derive(Default)]
pub(crate) struct Link {
    /// The queue, held until the command runs (`None`: a user event, or a command in a
    /// batch, whose runner holds the queue).
    pub queue: Option<Arc<Queue>>,
    /// See [`Event`]'s `before`.
    pub before: Option<Weak<Event>>,
    /// Whether the command is deferred (`crate::queue`).
    pub deferred: bool,
    /// Whether whoever runs it then runs the queue's batch (`crate::queue::batch`).
    pub leads: bool,
    /// In a batch: the command whose runner runs it.
    pub leader: Option<Arc<Event>>,
}

/// Names every field of [`Event`], so that a field added to it without a line in
/// `Event::write`, `Event::command` or [`Unfinished::finish`] (which write an event in
/// place, field by field) is noticed here: a new field must be added to this pattern.
#[allow(dead_code)]
fn every_field_is_written(event: Event) {
    let Event {
        header: _,       // write
        context: _,      // write
        queue_handle: _, // write
        command_type: _, // write
        profiled: _,     // write
        state: _,        // write
        status: _,       // write
        changed: _,      // write
        pending: _,      // command, user (Pending::write_job, Pending::write)
        before: _,       // finish
        times: _,        // write
    } = event;
}

/// Polls `ready` until it answers or `limit` has passed (the clock is read only every few
/// dozen polls).
pub fn spin_until<T>(limit: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        for _ in 0..32 {
            if let Some(value) = ready() {
                return Some(value);
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= limit {
            return ready();
        }
    }
}

/// The status a callback registered for `wanted` is called with once the event is at
/// `status`: the status it waited for, or the error code of a failed command.
fn reported_status(wanted: cl_int, status: cl_int) -> cl_int {
    if status < CL_COMPLETE { status } else { wanted }
}

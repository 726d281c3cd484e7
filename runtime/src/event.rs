//! Events: the status of one command (or a user event), and what waits for it.
//!
//! Status only moves forward: QUEUED → SUBMITTED → RUNNING → COMPLETE, or to a negative
//! error code, which is final like COMPLETE. Waiting threads block on a condition variable;
//! application callbacks and internal continuations (commands whose wait lists this event
//! is in) run after the lock is released, so a callback may call back into the API.

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use khronos_headers::*;
use parking_lot::{Condvar, Mutex};

use crate::context::Context;
use crate::object::{ClObject, Header, ObjectKind};

/// A `clSetEventCallback` callback, wrapped by the C layer (which knows the event's handle
/// and the application's data): called with the status the spec says it receives.
pub type EventCallback = Box<dyn FnOnce(cl_int) + Send>;

/// Work to do once an event has finished (successfully or not), inside the runtime.
pub type Continuation = Box<dyn FnOnce(cl_int) + Send>;

struct State {
    status: cl_int,
    callbacks: Vec<(cl_int, EventCallback)>,
    continuations: Vec<Continuation>,
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
    changed: Condvar,
    /// A submitted command not yet started, which a thread about to wait for this event may
    /// run itself instead of waiting for a worker to pick it up (the short path of
    /// enqueue-then-finish).
    runner: Mutex<Option<Box<dyn FnOnce() + Send>>>,
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
    /// The event of a command just enqueued (status QUEUED, queued time taken now).
    pub fn for_command(
        context: Arc<Context>,
        queue_handle: *mut c_void,
        command_type: cl_command_type,
        profiled: bool,
    ) -> Arc<Event> {
        let event = Self::with_status(context, queue_handle, command_type, CL_QUEUED, profiled);
        event.times.queued.store(now_ns(), Ordering::Relaxed);
        event
    }

    /// `clCreateUserEvent`: status CL_SUBMITTED until the application sets it.
    pub fn user(context: Arc<Context>) -> Arc<Event> {
        Self::with_status(
            context,
            std::ptr::null_mut(),
            CL_COMMAND_USER,
            CL_SUBMITTED,
            false,
        )
    }

    fn with_status(
        context: Arc<Context>,
        queue_handle: *mut c_void,
        command_type: cl_command_type,
        status: cl_int,
        profiled: bool,
    ) -> Arc<Event> {
        Arc::new(Event {
            header: Header::new(ObjectKind::Event),
            context,
            queue_handle,
            command_type,
            profiled,
            state: Mutex::new(State {
                status,
                callbacks: Vec::new(),
                continuations: Vec::new(),
            }),
            changed: Condvar::new(),
            runner: Mutex::new(None),
            times: Times::default(),
        })
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
        self.state.lock().status
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
    pub fn set_status(self: &Arc<Self>, status: cl_int) {
        let now = now_ns();
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
                if status <= stage && time.load(Ordering::Relaxed) == 0 {
                    time.store(now, Ordering::Release);
                }
            }
            // "pfn_event_notify ... is called when the command's execution status reaches
            // command_exec_callback_type"; a failed command reaches CL_COMPLETE with its
            // error as the status.
            let due = |&(wanted, _): &(cl_int, EventCallback)| wanted >= status.max(CL_COMPLETE);
            let (ready, later): (Vec<_>, Vec<_>) = state.callbacks.drain(..).partition(due);
            state.callbacks = later;
            let continuations = if status <= CL_COMPLETE {
                std::mem::take(&mut state.continuations)
            } else {
                Vec::new()
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
            continuation(status);
        }
    }

    /// `clSetEventCallback`: runs now if the status was already reached.
    pub fn add_callback(self: &Arc<Self>, wanted: cl_int, callback: EventCallback) {
        let status = {
            let mut state = self.state.lock();
            let reached = state.status <= wanted;
            if !reached {
                state.callbacks.push((wanted, callback));
                return;
            }
            state.status
        };
        callback(reported_status(wanted, status));
    }

    /// Runs `then` once the event has finished (at once, on this thread, if it has).
    pub fn on_finish(&self, then: Continuation) {
        let status = {
            let mut state = self.state.lock();
            if state.status > CL_COMPLETE {
                state.continuations.push(then);
                return;
            }
            state.status
        };
        then(status);
    }

    /// Offers the command behind this event to a thread that will wait for it.
    pub fn set_runner(&self, run: Box<dyn FnOnce() + Send>) {
        *self.runner.lock() = Some(run);
    }

    /// Withdraws that offer (the command has been started elsewhere).
    pub fn take_runner(&self) -> Option<Box<dyn FnOnce() + Send>> {
        self.runner.lock().take()
    }

    /// Blocks until the event has finished; returns its final status. If the command is
    /// ready but no worker has started it yet, the calling thread runs it.
    pub fn wait(&self) -> cl_int {
        if let Some(run) = self.take_runner() {
            run();
        }
        let mut state = self.state.lock();
        while state.status > CL_COMPLETE {
            self.changed.wait(&mut state);
        }
        state.status
    }
}

/// The status a callback registered for `wanted` is called with once the event is at
/// `status`: the status it waited for, or the error code of a failed command.
fn reported_status(wanted: cl_int, status: cl_int) -> cl_int {
    if status < CL_COMPLETE { status } else { wanted }
}

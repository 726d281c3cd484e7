//! Batched hand-off of an in-order queue's commands to the thread that runs its chain.
//!
//! Without batches, each command of an in-order burst registered itself as a continuation
//! of the command before it (a lock on that event's state, a count on it, a count on the
//! queue) and the worker, finishing that command, counted the next one down, submitted it
//! and dropped the counts. Each of those is a locked instruction on a line the other core
//! wrote last: the enqueuing thread stalled on every enqueue whenever a worker was close
//! behind it (session 10's profile: a third of `enqueue_event` on such instructions).
//!
//! With batches, the command that starts a chain (the *leader*: a command enqueued when no
//! runner holds the queue's chain) is submitted as before; the plain commands enqueued
//! behind it (no unfinished wait list, not blocking, in order) join [`Batch::items`] under
//! the queue's lock, which then only application threads take, and touch no other event
//! and no worker's line. Whoever runs the leader (a worker, or a thread waiting for one of
//! the commands) then takes the whole list in one exchange under that lock, runs it, and
//! takes the next list, until it finds none: the hand-off costs one lock per batch, not
//! a continuation per command. A command that cannot join (its wait list has not finished,
//! it blocks, it is a marker or barrier) closes the batch and waits for the newest command
//! as before; once the runner has found no more items, the next command leads a new chain.
//!
//! `CLIFT_BATCH=0` ([`enabled`]) turns batches off (every command is linked to the one
//! before it), for A/B measurements and for telling a batch bug from another.

use std::mem::MaybeUninit;
use std::sync::{Arc, OnceLock};

use super::work::BatchSlot;
use super::{Job, Queue};
use crate::error::ClResult;
use crate::event::Event;

/// `CLIFT_BATCH`: `0` turns batched hand-off off (see the module's documentation).
pub const BATCH_VAR: &str = "CLIFT_BATCH";

/// Whether queues made from now on batch their in-order commands (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| parse(std::env::var(BATCH_VAR).ok().as_deref()))
}

/// Everything but a `0` (after trimming) leaves batches on.
fn parse(value: Option<&str>) -> bool {
    value.is_none_or(|v| v.trim() != "0")
}

/// A command of a batch: the work of a command nobody can name (see
/// [`super::eventless`]), or an [`Ordered`] command with an event. Held by value, in one
/// vector of slots: boxing a bare command's work would cost the allocation that leaving
/// out its event saves, and an enum of the two cost the burst's enqueue ~150 instructions
/// of copies of its 400 bytes.
pub(super) type Item = BatchSlot;

/// A command with an event in a batch (the application asked for it, or the queue needs
/// one to wait for: see [`super::eventless`]): running it runs the event's command.
struct Ordered(Arc<Event>);

impl Job for Ordered {
    fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
        if let Some(queue) = queue {
            super::execute(&self.0, queue);
        }
        Ok(())
    }
}

/// How many spent items an enqueue lets pile up before it takes them to drop
/// ([`Batch::pickup`]): taking them costs the enqueuing thread a second lock of the queue
/// (to give the emptied vector back), paid once per this many commands.
const PICKUP: usize = 16;

/// The most items an idle batch's empty vectors keep room for (once the runner has let go
/// of the chain): a burst of 10,000 launches left megabytes behind otherwise.
const KEPT_ITEMS: usize = 256;

/// The batch of an in-order queue, under the queue's lock.
///
/// Three vectors go round without a `malloc`: the enqueuing thread fills `items`; the
/// runner takes them and runs them in place; what it ran goes to `spent`, where the
/// enqueuing thread picks it up and drops it (so that the counts a command took at enqueue,
/// on its kernel's code, its memory objects and its event, are dropped by the thread that
/// took them, and those cache lines stay in its core: dropped by the runner, each was a
/// line the two cores passed back and forth for every command); the emptied vector comes
/// back as `free`, and the runner hands it out as the next `items`.
#[derive(Default)]
pub(super) struct Batch {
    /// Commands enqueued behind the chain's runner, in order, not taken by it yet.
    items: Vec<Item>,
    /// Commands the runner has run, holding what they held, for the enqueuing thread to
    /// drop; the runner drops them itself when it lets go of the chain.
    spent: Vec<Item>,
    /// An empty vector (with its capacity) for the runner's next exchange.
    free: Vec<Item>,
    /// Bare commands joined since the newest command with an event (`QueueState::last`
    /// does not stand for them: see [`super::eventless`]).
    pub(super) unmarked: bool,
    /// A runner (the thread that runs the leader, then the items it takes) will look at
    /// `items` again before it lets go of the chain.
    runner: bool,
    /// A plain command may join `items`: the newest in-order command is the runner's.
    open: bool,
    /// The command whose runner takes `items`: a thread waiting for an item, or flushing
    /// it, runs or flushes the leader.
    leader: Option<Arc<Event>>,
}

/// What a runner lets go of with its chain, dropped after the queue's lock is released
/// (dropping a memory object may call the application's destructor callback).
pub(super) struct Released {
    _leader: Option<Arc<Event>>,
    _spent: Vec<Item>,
}

impl Batch {
    /// The leader a joining command records, if a plain command may join now.
    pub(super) fn joinable(&self) -> Option<&Arc<Event>> {
        if self.open {
            self.leader.as_ref()
        } else {
            None
        }
    }

    /// Adds a command that [`Batch::joinable`] allowed (it becomes the queue's last).
    pub(super) fn join(&mut self, event: Arc<Event>) {
        let mut work = MaybeUninit::<Item>::uninit();
        // SAFETY: a fresh slot; the job is written whole.
        let written = unsafe {
            Item::write_with(work.as_mut_ptr(), |at: *mut Ordered| {
                at.write(Ordered(event));
                Ok(())
            })
        };
        debug_assert!(written.is_ok());
        // SAFETY: `work` holds the job, and is not used again.
        unsafe { self.join_bare(&work) };
        self.unmarked = false;
    }

    /// Adds the work of a command without an event, which [`Batch::joinable`] allowed:
    /// `work`'s bytes are moved into the batch (one copy, in place).
    ///
    /// # Safety
    /// `work` holds a job (written by `Slot::write_with`), which the caller neither uses
    /// nor drops again.
    pub(super) unsafe fn join_bare(&mut self, work: &MaybeUninit<Item>) {
        debug_assert!(self.open);
        self.items.reserve(1);
        // SAFETY: room for one more was reserved; the slot's bytes move, the caller's
        // contract makes this the only copy that is used.
        unsafe {
            let len = self.items.len();
            std::ptr::copy_nonoverlapping(work.as_ptr(), self.items.as_mut_ptr().add(len), 1);
            self.items.set_len(len + 1);
        }
        self.unmarked = true;
    }

    /// A command that does not join: closes the batch (later commands are linked to the
    /// one before them until the runner lets go). Returns whether it leads a new batch
    /// instead (no runner holds the chain, and it may: `may_lead`).
    pub(super) fn close_or_lead(&mut self, may_lead: bool) -> bool {
        self.open = false;
        let leads = may_lead && !self.runner;
        if leads {
            self.runner = true;
            self.open = true;
        }
        leads
    }

    /// Whether a plain command may join now (after [`Batch::close_or_lead`]).
    pub(super) fn joinable_after_lead(&self) -> bool {
        self.open
    }

    /// Records the new leader (after [`Batch::close_or_lead`] said it leads); returns the
    /// one it replaces, to be dropped after the queue's lock is released.
    pub(super) fn set_leader(&mut self, leader: Arc<Event>) -> Option<Arc<Event>> {
        self.leader.replace(leader)
    }

    /// The runner hands in what it ran (`ran`) and takes every item in its place. With
    /// none, it lets go of the chain: the batch closes (every bare command has run), and
    /// the leader and the spent items are returned, to be dropped outside the lock.
    fn take(&mut self, ran: &mut Vec<Item>) -> Option<Released> {
        debug_assert!(self.runner);
        self.hand_in(ran);
        if ran.capacity() < self.free.capacity() {
            std::mem::swap(ran, &mut self.free);
        }
        std::mem::swap(&mut self.items, ran);
        if ran.is_empty() {
            self.runner = false;
            self.open = false;
            self.unmarked = false;
            // A long burst's vectors (400 bytes an item) are not kept for the queue's life.
            for kept in [&mut self.items, &mut self.free] {
                if kept.capacity() > KEPT_ITEMS {
                    *kept = Vec::new();
                }
            }
            return Some(Released {
                _leader: self.leader.take(),
                _spent: std::mem::take(&mut self.spent),
            });
        }
        None
    }

    /// Adds what the runner ran to `spent`, leaving `ran` empty.
    fn hand_in(&mut self, ran: &mut Vec<Item>) {
        if self.spent.is_empty() {
            std::mem::swap(&mut self.spent, ran);
        } else {
            self.spent.append(ran);
        }
    }

    /// Items the runner took and did not run go back in front of the others.
    fn give_back(&mut self, rest: Vec<Item>) {
        self.items.splice(0..0, rest);
    }

    /// The spent items, for the enqueuing thread to drop after it has released the
    /// queue's lock, once [`PICKUP`] have piled up.
    pub(super) fn pickup(&mut self) -> Option<Vec<Item>> {
        // The free vector takes the spent one's place, so that the runner's next exchange
        // hands the enqueuing thread a vector with room (growing one from nothing copied
        // every item again at each doubling).
        (self.spent.len() >= PICKUP)
            .then(|| std::mem::replace(&mut self.spent, std::mem::take(&mut self.free)))
    }

    /// A vector that [`Batch::pickup`] returned, emptied, for the runner's next exchange.
    pub(super) fn recycle(&mut self, emptied: Vec<Item>) {
        debug_assert!(emptied.is_empty());
        if emptied.capacity() > self.free.capacity() {
            self.free = emptied;
        }
    }

    #[cfg(test)]
    pub(super) fn items(&self) -> usize {
        self.items.len()
    }
}

/// Runs the queue's batches after its leader has run, until no item is left; `until`: the
/// event a waiting thread runs them for, after which the rest goes to the pool.
pub(super) fn run_batches(queue: Arc<Queue>, until: Option<&Event>) {
    run_from(queue, Vec::new(), until);
}

/// [`run_batches`] with `items` taken already. Each item is run in place and kept: it goes
/// back to the batch as spent, for the enqueuing thread to drop ([`Batch::pickup`]).
fn run_from(queue: Arc<Queue>, mut items: Vec<Item>, until: Option<&Event>) {
    loop {
        for (i, item) in items.iter_mut().enumerate() {
            if until.is_some_and(Event::is_finished) {
                let rest = items.split_off(i);
                let mut state = queue.state.lock();
                state.batch.give_back(rest);
                state.batch.hand_in(&mut items);
                drop(state);
                return hand_over(queue);
            }
            // A bare command's status nobody can see: a fault in it was told to the
            // context's notify callback (and stderr) where it happened.
            let _ = item.run_kept(&queue);
        }
        if take(&queue, &mut items).is_some() {
            return;
        }
    }
}

/// [`Batch::take`] under the queue's lock; a runner that lets go closes the batch for
/// `Queue::batch_open` too.
fn take(queue: &Queue, items: &mut Vec<Item>) -> Option<Released> {
    let mut state = queue.state.lock();
    let released = state.batch.take(items);
    if released.is_some() {
        queue
            .batch_open
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }
    released
}

/// Hands the running of the queue's batches to the pool (a waiting thread has what it
/// waited for; a leader failed without running), if there is any item: otherwise the
/// runner lets go of the chain here, and the queue may go at once. Without a pool (it
/// failed to start), the items run here.
pub(super) fn hand_over(queue: Arc<Queue>) {
    let mut items = Vec::new();
    if take(&queue, &mut items).is_some() {
        return;
    }
    match queue.device.executor() {
        Ok(executor) => {
            let held = Arc::clone(&queue);
            executor.spawn(move || super::on_worker(|| run_from(held, items, None)));
        }
        Err(_) => run_from(queue, items, None),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use khronos_headers::*;
    use parking_lot::Mutex;

    use super::*;
    use crate::context::{Context, ContextProperties};
    use crate::platform::Platform;
    use crate::queue::{QueueOrder, Start, pending, work};

    /// Only `0` turns batches off.
    #[test]
    fn only_zero_turns_batches_off() {
        assert!(parse(None));
        assert!(parse(Some("1")));
        assert!(parse(Some("")));
        assert!(!parse(Some("0")));
        assert!(!parse(Some(" 0 ")));
    }

    /// A batch opens with its leader, closes when a command does not join, and a new
    /// command leads only once the runner has let go.
    #[test]
    fn a_batch_opens_with_its_leader_and_closes_for_a_command_that_does_not_join() {
        let mut batch = Batch::default();
        assert!(batch.joinable().is_none());
        assert!(batch.close_or_lead(true));
        assert!(batch.runner && batch.open);
        // A command that does not join while the runner holds the chain does not lead.
        assert!(!batch.close_or_lead(true));
        assert!(batch.runner && !batch.open);
        let mut spare = Vec::new();
        assert!(batch.take(&mut spare).is_some());
        assert!(spare.is_empty() && !batch.runner && !batch.open);
        // Not allowed to lead (a blocking command): no batch opens.
        assert!(!batch.close_or_lead(false));
        assert!(!batch.runner && !batch.open);
    }

    /// What the runner ran is spent until an enqueue picks it up (16 or more); the
    /// emptied vector comes back as the runner's next `items`; an idle batch keeps room
    /// for at most `KEPT_ITEMS`.
    #[test]
    fn spent_items_go_to_the_enqueuer_and_their_vector_comes_back() {
        let queue = queue(true, 0);
        let event = || Event::user(Arc::clone(queue.context()));
        let mut batch = Batch::default();
        assert!(batch.close_or_lead(true));
        for _ in 0..300 {
            batch.join(event());
        }
        let mut ran = Vec::new();
        assert!(batch.take(&mut ran).is_none());
        assert_eq!(ran.len(), 300);
        assert!(batch.pickup().is_none());
        batch.join(event());
        assert!(batch.take(&mut ran).is_none());
        assert_eq!((ran.len(), batch.spent.len()), (1, 300));
        batch.free = Vec::with_capacity(8);
        let mut spent = batch.pickup().expect("300 spent");
        // The free vector takes the place of the spent one.
        assert_eq!((spent.len(), batch.spent.len()), (300, 0));
        assert_eq!((batch.spent.capacity(), batch.free.capacity()), (8, 0));
        let capacity = spent.capacity();
        spent.clear();
        batch.recycle(spent);
        assert_eq!(batch.free.capacity(), capacity);
        // The runner hands in its one item and takes the recycled vector as `items`.
        batch.join(event());
        assert!(batch.take(&mut ran).is_none());
        assert_eq!((ran.len(), batch.spent.len()), (1, 1));
        assert_eq!(batch.items.capacity(), capacity);
        assert!(batch.pickup().is_none());
        // With nothing left, it lets go: the spent items are its to drop, and the empty
        // vectors keep room for at most `KEPT_ITEMS` (a larger one was recycled).
        batch.free = Vec::with_capacity(KEPT_ITEMS + 1);
        let released = batch.take(&mut ran).expect("lets go");
        assert_eq!(released._spent.len(), 2);
        assert!(!batch.runner && batch.spent.is_empty());
        assert!(batch.items.capacity() <= KEPT_ITEMS && batch.free.capacity() <= KEPT_ITEMS);
    }

    /// An in-order queue that no flusher looks at, batching or not, with `properties`.
    pub(crate) fn queue(batching: bool, properties: cl_command_queue_properties) -> Arc<Queue> {
        let device = Arc::clone(&Platform::get().devices()[0]);
        let context = Context::new(
            vec![Arc::clone(&device)],
            ContextProperties::default(),
            None,
        );
        Queue::unflushed(context, device, properties, batching).unwrap()
    }

    /// What the commands of a test did: (index, thread name), in the order they ran.
    type Log = Arc<Mutex<Vec<(usize, String)>>>;

    /// Enqueues a command that records `index` in `log`, after `waits`.
    fn record(
        queue: &Arc<Queue>,
        log: &Log,
        index: usize,
        waits: Vec<Arc<Event>>,
        start: Start,
    ) -> Arc<Event> {
        let log = Arc::clone(log);
        queue.enqueue(
            CL_COMMAND_MARKER,
            waits,
            QueueOrder::Command,
            start,
            work(move |_| {
                let name = std::thread::current().name().unwrap_or("").to_string();
                log.lock().push((index, name));
                Ok(())
            }),
        )
    }

    fn order(log: &Log) -> Vec<usize> {
        log.lock().iter().map(|(i, _)| *i).collect()
    }

    /// Behind a leader that waits for a user event, plain commands join its batch (queued,
    /// linked to nothing but the leader); they run in order once it has run, and the
    /// runner then lets go of the chain. With batches off, none joins.
    #[test]
    fn plain_commands_behind_a_leader_join_its_batch_and_run_in_order() {
        for batching in [true, false] {
            let queue = queue(batching, 0);
            let log = Log::default();
            let gate = Event::user(Arc::clone(queue.context()));
            let mut events = vec![record(&queue, &log, 0, vec![Arc::clone(&gate)], Start::Now)];
            events.extend((1..6).map(|i| record(&queue, &log, i, Vec::new(), Start::Now)));
            let joined = if batching { 5 } else { 0 };
            assert_eq!(queue.state.lock().batch.items(), joined);
            assert_eq!(pending(&events[0]).leads, batching);
            for event in &events[1..] {
                assert_eq!(event.status(), CL_QUEUED);
                assert_eq!(pending(event).leader().is_some(), batching);
            }
            gate.set_status(CL_COMPLETE);
            queue.finish();
            assert_eq!(order(&log), [0, 1, 2, 3, 4, 5]);
            assert!(events.iter().all(|e| e.status() == CL_COMPLETE));
            let state = queue.state.lock();
            assert_eq!(state.batch.items(), 0);
            assert!(!state.batch.runner && !state.batch.open);
        }
    }

    /// A command whose wait list has not finished closes the batch: it waits for the
    /// batch's last command, and the commands after it wait for it, not joining.
    #[test]
    fn a_command_with_an_unfinished_wait_list_closes_the_batch() {
        let queue = queue(true, 0);
        let log = Log::default();
        let (first, second) = (
            Event::user(Arc::clone(queue.context())),
            Event::user(Arc::clone(queue.context())),
        );
        let mut events = vec![record(
            &queue,
            &log,
            0,
            vec![Arc::clone(&first)],
            Start::Now,
        )];
        events.extend((1..3).map(|i| record(&queue, &log, i, Vec::new(), Start::Now)));
        events.push(record(
            &queue,
            &log,
            3,
            vec![Arc::clone(&second)],
            Start::Now,
        ));
        events.extend((4..6).map(|i| record(&queue, &log, i, Vec::new(), Start::Now)));
        assert_eq!(queue.state.lock().batch.items(), 2);
        assert!(pending(&events[4]).leader().is_none());
        first.set_status(CL_COMPLETE);
        assert_eq!(events[2].wait(), CL_COMPLETE);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(order(&log), [0, 1, 2]);
        assert_eq!(events[5].status(), CL_QUEUED);
        second.set_status(CL_COMPLETE);
        queue.finish();
        assert_eq!(order(&log), [0, 1, 2, 3, 4, 5]);
    }

    /// A leader whose wait list failed does not run, and its batch still does (the
    /// queue's order makes a command wait, not fail).
    #[test]
    fn the_batch_of_a_failed_leader_still_runs() {
        let queue = queue(true, 0);
        let log = Log::default();
        let gate = Event::user(Arc::clone(queue.context()));
        let leader = record(&queue, &log, 0, vec![Arc::clone(&gate)], Start::Now);
        let items: Vec<_> = (1..3)
            .map(|i| record(&queue, &log, i, Vec::new(), Start::Now))
            .collect();
        gate.set_status(CL_INVALID_VALUE);
        assert_eq!(items[1].wait(), CL_COMPLETE);
        assert_eq!(items[0].status(), CL_COMPLETE);
        assert_eq!(
            leader.status(),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        );
        assert_eq!(order(&log), [1, 2]);
    }

    /// A thread waiting for a command of a batch whose leader is deferred runs the leader
    /// and the batch up to its command; the rest goes to a worker.
    #[test]
    fn a_waiting_thread_runs_a_batch_up_to_its_command_and_hands_on_the_rest() {
        let queue = queue(true, 0);
        let log = Log::default();
        let events: Vec<_> = (0..4)
            .map(|i| record(&queue, &log, i, Vec::new(), Start::Short))
            .collect();
        assert!(
            pending(&events[0])
                .deferred
                .load(std::sync::atomic::Ordering::Relaxed)
        );
        assert_eq!(events[1].wait(), CL_COMPLETE);
        assert_eq!(events[3].wait(), CL_COMPLETE);
        let here = std::thread::current().name().unwrap_or("").to_string();
        let log = log.lock();
        assert_eq!(
            log.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!([&log[0].1, &log[1].1], [&here, &here]);
        for (_, name) in &log[2..] {
            assert!(name.starts_with("clift-worker-"), "{name}");
        }
    }

    /// A command of a batch records its four profiling times, in order (submitted and
    /// started at once, when its runner reaches it).
    #[test]
    fn a_batched_command_records_its_profiling_times() {
        let queue = queue(true, CL_QUEUE_PROFILING_ENABLE);
        let log = Log::default();
        let gate = Event::user(Arc::clone(queue.context()));
        let _leader = record(&queue, &log, 0, vec![Arc::clone(&gate)], Start::Now);
        let item = record(&queue, &log, 1, Vec::new(), Start::Now);
        assert!(pending(&item).leader().is_some());
        let [queued, submit, start, end] = item.profiling();
        assert!(queued > 0);
        assert_eq!([submit, start, end], [0, 0, 0]);
        gate.set_status(CL_COMPLETE);
        assert_eq!(item.wait(), CL_COMPLETE);
        let [queued, submit, start, end] = item.profiling();
        assert!(
            queued <= submit && submit == start && start <= end,
            "{:?}",
            item.profiling()
        );
    }
}

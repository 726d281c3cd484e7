//! Commands without an event: a burst of kernel launches whose event the application did
//! not ask for.
//!
//! A command enqueued with a NULL event pointer can never be named: no wait list holds it,
//! no application thread waits for it, nothing asks its status. If it joins its queue's
//! batch ([`super::batch`]), nothing needs an `Event` for it either: its work alone goes
//! into the batch, by value (a `Slot` in `Batch::items`), and the runner runs it in turn. That saves
//! the event's allocation (memory last written by the worker that ran an earlier command,
//! so its first stores missed), its reference counts (the batch's, `last`'s, the list of
//! unfinished commands'), the count on its leader, and the worker's two status changes on
//! it: every one a cache line that moved between the enqueuing core and the worker's for
//! each launch.
//!
//! What still needs to wait for such commands waits for an event that stands for them:
//! `QueueState::last` stays the newest command *with* an event, and while bare commands
//! have joined after it (`Batch::unmarked`), whatever needs `last` to stand for every
//! command so far (`clFinish`, a command that does not join the batch: a marker, a barrier,
//! a blocking command, one with an unfinished wait list) first adds an internal marker to
//! the batch ([`Queue::mark_tail`]), which completes after them, in order. Once the runner
//! has let go of the chain, every bare command has run, and nothing needs marking.
//!
//! A bare command's failure (a faulting kernel) is reported as it was with an event that
//! nobody held: on stderr and to the context's notify callback; as before, the queue's
//! order passes no failure on to the commands after it.

use std::mem::MaybeUninit;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use khronos_headers::*;

use super::batch::Item;
use super::{Enqueued, Job, Nothing, Queue, QueueOrder, QueueState, Start};
use crate::error::ClResult;
use crate::event::{Event, Link};

impl Queue {
    /// Whether a command enqueued with no event returned, after `wait_list`, may go into
    /// the batch without one (if the batch is open when the queue is locked): batching on,
    /// the batch open a moment ago (`Queue::batch_open`), in order, a finished wait list,
    /// and no `CLIFT_LOG=launch` (whose line tells how long each command waited, from its
    /// event).
    #[inline(always)]
    pub(super) fn may_be_eventless(&self, wait_list: &[Arc<Event>]) -> bool {
        self.batch_looks_open()
            && wait_list.iter().all(|e| e.status() == CL_COMPLETE)
            && !crate::log::enabled(crate::log::Category::Launch, crate::log::Level::Info)
    }

    /// Whether a command without an event would likely join the batch now (batching on,
    /// in order, the batch open a moment ago): what a launch is built for.
    pub fn batch_looks_open(&self) -> bool {
        self.batching && self.batch_open.load(Ordering::Relaxed) && !self.is_out_of_order()
    }

    /// Enqueues a command whose event is not returned and that
    /// [`Queue::may_be_eventless`] allowed: built where it is (`build`, `describe`: as
    /// [`Queue::enqueue_with`]), then moved into the open batch, or, if the batch is not
    /// open (the command leads a new chain) or the command is not a plain one, into an
    /// event enqueued as any other.
    #[inline(always)]
    pub(super) fn enqueue_eventless<J: Job + 'static>(
        self: &Arc<Self>,
        wait_list: Vec<Arc<Event>>,
        build: impl FnOnce(*mut J) -> ClResult<()>,
        describe: impl FnOnce(&J) -> Enqueued,
    ) -> ClResult<Option<Arc<Event>>> {
        let mut work = MaybeUninit::<Item>::uninit();
        // SAFETY: a fresh slot, holding no job; `build` writes a whole `J` or nothing (the
        // caller's contract), and a failed build leaves nothing to drop.
        let how = unsafe {
            let job = Item::write_with(work.as_mut_ptr(), build)?;
            describe(&*job)
        };
        if how.order == QueueOrder::Command && how.start != Start::Blocking {
            let mut state = self.state.lock();
            if state.batch.joinable().is_some() {
                // SAFETY: `write_with` succeeded: the slot holds the job, which moves
                // into the batch (`work` is not used again).
                unsafe { state.batch.join_bare(&work) };
                let spent = state.batch.pickup();
                drop(state);
                drop(wait_list);
                self.drop_spent(spent);
                return Ok(None);
            }
        }
        // SAFETY: `write_with` succeeded: the slot holds the job.
        let work = unsafe { work.assume_init() }.widen();
        let event = Event::command_with(&self.context, self, self.profiling(), work, how);
        Ok(self.enqueue_event(event, wait_list, how.order, how.start, false))
    }

    /// Drops what `Batch::pickup` took (outside the queue's lock: a memory object
    /// dropped last calls its destructor callbacks) and gives the vector back.
    pub(super) fn drop_spent(&self, spent: Option<Vec<Item>>) {
        if let Some(mut spent) = spent {
            spent.clear();
            self.state.lock().batch.recycle(spent);
        }
    }

    /// Makes `state.last` stand for every command enqueued so far: if bare commands joined
    /// the batch after it, an internal marker joins behind them and becomes the last.
    pub(super) fn mark_tail(&self, state: &mut QueueState) {
        if !state.batch.unmarked {
            return;
        }
        let leader = Arc::clone(
            state
                .batch
                .joinable()
                .expect("a batch with bare commands is open until its runner lets go"),
        );
        let how = Enqueued {
            command_type: CL_COMMAND_MARKER,
            order: QueueOrder::Command,
            start: Start::Now,
        };
        let nothing = |at: *mut Nothing| {
            // SAFETY: `Event::command` hands a place valid for writes of a `Nothing`.
            unsafe { at.write(Nothing) };
            Ok(())
        };
        let (marker, _) = Event::command(&self.context, self, self.profiling(), nothing, |_| how)
            .expect("writing a marker does not fail");
        let marker = marker.finish(Link {
            leader: Some(leader),
            ..Link::default()
        });
        state.last = Some(Arc::clone(&marker));
        state.batch.join(Arc::clone(&marker));
        state.track(marker);
    }
}

#[cfg(test)]
mod tests {
    use parking_lot::Mutex;

    use super::*;
    use crate::queue::{Work, pending, work};

    /// An in-order queue that no flusher looks at, batching or not.
    fn queue(batching: bool) -> Arc<Queue> {
        crate::queue::batch::tests::queue(batching, 0)
    }

    type Log = Arc<Mutex<Vec<usize>>>;

    /// The work of a command that records `index` in `log`, or fails with `status`.
    fn recorder(log: &Log, index: usize, status: cl_int) -> Work {
        let log = Arc::clone(log);
        work(move |_| {
            log.lock().push(index);
            if status == CL_COMPLETE {
                Ok(())
            } else {
                Err(crate::ClError(status))
            }
        })
    }

    /// Enqueues `work` after `waits` as a plain command, its event returned or not.
    fn enqueue(
        queue: &Arc<Queue>,
        work: Work,
        waits: Vec<Arc<Event>>,
        returned: bool,
    ) -> Option<Arc<Event>> {
        let how = Enqueued {
            command_type: CL_COMMAND_NDRANGE_KERNEL,
            order: QueueOrder::Command,
            start: Start::Now,
        };
        let build = |at: *mut Work| {
            // SAFETY: the queue hands a place valid for writes of a `Work`.
            unsafe { at.write(work) };
            Ok(())
        };
        queue
            .enqueue_returning(waits, returned, build, |_| how)
            .unwrap()
    }

    /// A leader held back by a user event, with `count` bare commands behind it recording
    /// 1..=count; returns the user event and the leader.
    fn gated_burst(queue: &Arc<Queue>, log: &Log, count: usize) -> (Arc<Event>, Arc<Event>) {
        let gate = Event::user(Arc::clone(queue.context()));
        let leader = enqueue(
            queue,
            recorder(log, 0, CL_COMPLETE),
            vec![Arc::clone(&gate)],
            true,
        )
        .expect("returned");
        for i in 1..=count {
            assert!(enqueue(queue, recorder(log, i, CL_COMPLETE), Vec::new(), false).is_none());
        }
        (gate, leader)
    }

    /// Commands whose event is not returned join the batch without one (nothing tracked,
    /// `last` is still the leader) and run in order; with batches off they have events.
    #[test]
    fn eventless_commands_join_the_batch_without_an_event_and_run_in_order() {
        for batching in [true, false] {
            let queue = queue(batching);
            let log = Log::default();
            let (gate, leader) = gated_burst(&queue, &log, 5);
            {
                let state = queue.state.lock();
                let (items, tracked) = if batching { (5, 1) } else { (0, 6) };
                assert_eq!(state.batch.items(), items);
                assert_eq!(state.unfinished.len(), tracked);
                assert_eq!(state.batch.unmarked, batching);
                assert_eq!(
                    state.last.as_ref().is_some_and(|l| Arc::ptr_eq(l, &leader)),
                    batching
                );
            }
            gate.set_status(CL_COMPLETE);
            queue.finish();
            assert_eq!(*log.lock(), [0, 1, 2, 3, 4, 5]);
            let state = queue.state.lock();
            assert!(!state.batch.unmarked && state.batch.items() == 0);
        }
    }

    /// `clFinish` after bare commands waits for them: it adds a marker behind them (the
    /// queue's last), and returns once they have all run.
    #[test]
    fn finish_after_eventless_commands_waits_for_them() {
        let queue = queue(true);
        let log = Log::default();
        let (gate, _leader) = gated_burst(&queue, &log, 3);
        let opener = open_later(&gate);
        queue.finish();
        assert_eq!(*log.lock(), [0, 1, 2, 3]);
        opener.join().unwrap();
    }

    /// A marker, a barrier, a blocking command and a command with an unfinished wait list
    /// after bare commands each wait for them (an internal marker stands for them), and
    /// commands after those still run in order.
    #[test]
    fn commands_that_do_not_join_wait_for_the_eventless_ones_before_them() {
        let orders = [
            (QueueOrder::AfterAll, Start::Now),
            (QueueOrder::Barrier { after_all: true }, Start::Now),
            (QueueOrder::Command, Start::Blocking),
        ];
        for (order, start) in orders {
            let queue = queue(true);
            let log = Log::default();
            let (gate, _leader) = gated_burst(&queue, &log, 3);
            let opener = open_later(&gate);
            let event = queue.enqueue(CL_COMMAND_MARKER, Vec::new(), order, start, {
                let log = Arc::clone(&log);
                work(move |_| {
                    log.lock().push(10);
                    Ok(())
                })
            });
            assert!(!queue.state.lock().batch.unmarked);
            assert_eq!(event.wait(), CL_COMPLETE);
            assert_eq!(*log.lock(), [0, 1, 2, 3, 10], "{order:?} {start:?}");
            opener.join().unwrap();
            queue.finish();
        }
        // A wait list not finished at enqueue: the command closes the batch and waits for
        // the bare commands and its wait list; a bare command after it runs after it.
        let queue = queue(true);
        let log = Log::default();
        let (gate, _leader) = gated_burst(&queue, &log, 2);
        let other = Event::user(Arc::clone(queue.context()));
        let waiting = enqueue(
            &queue,
            recorder(&log, 10, CL_COMPLETE),
            vec![Arc::clone(&other)],
            true,
        )
        .expect("returned");
        assert!(enqueue(&queue, recorder(&log, 11, CL_COMPLETE), Vec::new(), false).is_none());
        gate.set_status(CL_COMPLETE);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(waiting.status(), CL_QUEUED);
        other.set_status(CL_COMPLETE);
        queue.finish();
        assert_eq!(*log.lock(), [0, 1, 2, 10, 11]);
    }

    /// A bare command that fails passes nothing on, as a command whose event nobody held:
    /// the evented command after it completes, and the bare ones after that run.
    #[test]
    fn a_failed_eventless_command_fails_nothing_after_it() {
        let queue = queue(true);
        let log = Log::default();
        let (gate, _leader) = gated_burst(&queue, &log, 1);
        assert!(
            enqueue(
                &queue,
                recorder(&log, 2, CL_OUT_OF_RESOURCES),
                Vec::new(),
                false
            )
            .is_none()
        );
        let after =
            enqueue(&queue, recorder(&log, 3, CL_COMPLETE), Vec::new(), true).expect("returned");
        assert!(pending(&after).leader().is_some());
        assert!(enqueue(&queue, recorder(&log, 4, CL_COMPLETE), Vec::new(), false).is_none());
        gate.set_status(CL_COMPLETE);
        assert_eq!(after.wait(), CL_COMPLETE);
        queue.finish();
        assert_eq!(*log.lock(), [0, 1, 2, 3, 4]);
    }

    /// A thread waiting for an evented command behind bare ones, whose leader is deferred,
    /// runs the leader and the bare commands itself, in order.
    #[test]
    fn a_waiting_thread_runs_the_eventless_commands_before_its_own() {
        let queue = queue(true);
        let ran_on = Arc::new(Mutex::new(Vec::new()));
        let named = |index: usize| -> Work {
            let ran_on = Arc::clone(&ran_on);
            work(move |_| {
                let name = std::thread::current().name().unwrap_or("").to_string();
                ran_on.lock().push((index, name));
                Ok(())
            })
        };
        let short = Enqueued {
            command_type: CL_COMMAND_NDRANGE_KERNEL,
            order: QueueOrder::Command,
            start: Start::Short,
        };
        let enqueue_short = |index: usize, returned: bool| {
            let work = named(index);
            let build = |at: *mut Work| {
                // SAFETY: a place valid for writes of a `Work`.
                unsafe { at.write(work) };
                Ok(())
            };
            queue
                .enqueue_returning(Vec::new(), returned, build, |_| short)
                .unwrap()
        };
        // The leader cannot be eventless: it is deferred, waiting for its waiter.
        let leader = enqueue_short(0, false);
        assert!(leader.is_none());
        assert!(enqueue_short(1, false).is_none());
        assert!(enqueue_short(2, false).is_none());
        let waited = enqueue_short(3, true).expect("returned");
        assert_eq!(queue.state.lock().batch.items(), 3);
        assert_eq!(waited.wait(), CL_COMPLETE);
        let here = std::thread::current().name().unwrap_or("").to_string();
        let ran_on = ran_on.lock();
        assert_eq!(
            *ran_on,
            (0..4).map(|i| (i, here.clone())).collect::<Vec<_>>()
        );
    }

    /// Completes the user event `gate` from another thread, 20 ms from now.
    fn open_later(gate: &Arc<Event>) -> std::thread::JoinHandle<()> {
        let gate = Arc::clone(gate);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            gate.set_status(CL_COMPLETE);
        })
    }
}

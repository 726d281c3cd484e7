//! Many host threads using one context at once (the CTS `multiple_device_context` /
//! `thread safety` area): "OpenCL API calls are thread-safe" (OpenCL 1.2 Appendix A.2: "All
//! OpenCL API calls are thread-safe except clSetKernelArg"), and events synchronise
//! commands across command-queues (Appendix A.1).
//!
//! Every thread checks its results exactly; every object is released at the end, which the
//! buffers' destructor callbacks confirm. A watchdog aborts the process if a test has not
//! finished within a minute (a lost wake-up would otherwise hang it), and every wait for
//! another thread has a timeout.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

const THREADS: usize = 8;
const ROUNDS: usize = 2000;
/// `u32`s per buffer.
const WORDS: usize = 1024;
const BYTES: usize = WORDS * 4;
/// How long a thread waits for a message from another before giving up.
const PATIENCE: Duration = Duration::from_secs(20);

/// A handle carried to another thread. OpenCL objects may be used from any thread; the
/// handle travels as its address.
#[derive(Clone, Copy, Debug)]
struct Handle(usize);

impl Handle {
    fn of(handle: *mut c_void) -> Handle {
        Handle(handle as usize)
    }

    fn get(self) -> *mut c_void {
        self.0 as *mut c_void
    }
}

fn ok(status: cl_int, what: &str) {
    assert_eq!(status, CL_SUCCESS, "{what}");
}

fn receive(from: &Receiver<Handle>, what: &str) -> *mut c_void {
    from.recv_timeout(PATIENCE)
        .unwrap_or_else(|e| panic!("no {what} from the other thread within {PATIENCE:?}: {e}"))
        .get()
}

/// The words thread `thread` writes in round `round`.
fn words(thread: usize, round: usize) -> Vec<u32> {
    (0..WORDS)
        .map(|k| {
            ((thread as u32) << 28)
                ^ ((round as u32) << 12)
                ^ (k as u32).wrapping_mul(2_654_435_761)
        })
        .collect()
}

fn tag(thread: usize, round: usize) -> u32 {
    0xa5a5_0000 ^ ((thread as u32) << 12) ^ round as u32
}

fn as_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// Counts destructor callbacks (`user_data` is a leaked counter).
extern "C" fn count_destruction(_mem: cl_mem, user_data: *mut c_void) {
    // SAFETY: `user_data` is a leaked `AtomicUsize`.
    unsafe { &*user_data.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

fn count_destruction_of(mem: cl_mem, counter: &'static AtomicUsize) {
    // SAFETY: the counter is leaked, valid whenever the callback runs.
    let status = unsafe {
        api().set_mem_object_destructor_callback(
            mem,
            Some(count_destruction),
            (counter as *const AtomicUsize).cast_mut().cast(),
        )
    };
    ok(status, "clSetMemObjectDestructorCallback");
}

/// The mailboxes of one thread.
struct Mail {
    /// Copy events for the next thread to wait on.
    to_next: Sender<Handle>,
    from_previous: Receiver<Handle>,
    /// User events for the thread two ahead to set.
    to_setter: Sender<Handle>,
    /// User events of the thread two behind, which this thread sets.
    to_set: Receiver<Handle>,
}

/// One thread's work: `ROUNDS` rounds of write → copy → fill → read on its own queue and
/// buffers, the read also waiting for the previous thread's copy (another queue) and for a
/// user event set by the thread two ahead.
fn worker(thread: usize, context: Handle, mail: Mail, destroyed: &'static AtomicUsize) {
    let api = api();
    let context = context.get();
    let properties = match thread % 4 {
        0 => 0,
        1 => CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        2 => CL_QUEUE_PROFILING_ENABLE,
        _ => CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
    };
    let queue = api
        .create_command_queue(context, device(), properties)
        .expect("clCreateCommandQueue");
    let a = api
        .create_buffer(context, 0, BYTES)
        .expect("clCreateBuffer");
    let b = api
        .create_buffer(context, 0, BYTES)
        .expect("clCreateBuffer");
    count_destruction_of(a, destroyed);
    count_destruction_of(b, destroyed);
    for round in 0..ROUNDS {
        // A user event the thread two ahead will set.
        let gate = api.create_user_event(context).expect("clCreateUserEvent");
        ok(api.retain_event(gate), "clRetainEvent");
        mail.to_setter.send(Handle::of(gate)).unwrap();

        // Write, then copy a → b, then tag b's last word: explicit wait lists, so the
        // out-of-order queues keep the order too.
        let source = as_bytes(&words(thread, round));
        let (mut written, mut copied, mut tagged, mut read) =
            (null_mut(), null_mut(), null_mut(), null_mut());
        // SAFETY: `source` lives until the end of the round, after the read (which waits,
        // through the copy, for the write) has completed.
        let status = unsafe {
            api.enqueue_write_buffer_raw(
                queue,
                a,
                false,
                0,
                BYTES,
                source.as_ptr().cast(),
                Waits::NONE,
                Some(&mut written),
            )
        };
        ok(status, "clEnqueueWriteBuffer");
        let status = api.enqueue_copy_buffer(
            queue,
            a,
            b,
            0,
            0,
            BYTES,
            Waits::on(&[written]),
            Some(&mut copied),
        );
        ok(status, "clEnqueueCopyBuffer");
        let status = api.enqueue_fill_buffer(
            queue,
            b,
            Some(&tag(thread, round).to_ne_bytes()),
            4,
            BYTES - 4,
            4,
            Waits::on(&[copied]),
            Some(&mut tagged),
        );
        ok(status, "clEnqueueFillBuffer");
        ok(api.retain_event(copied), "clRetainEvent");
        mail.to_next.send(Handle::of(copied)).unwrap();

        // Set the user event of the thread two behind.
        let theirs = receive(&mail.to_set, "user event");
        ok(
            api.set_user_event_status(theirs, CL_COMPLETE),
            "clSetUserEventStatus",
        );
        ok(api.release_event(theirs), "clReleaseEvent (user event)");

        // Read b once our fill, the previous thread's copy and our user event are done.
        let neighbour = receive(&mail.from_previous, "copy event");
        let mut out = vec![0u8; BYTES];
        // SAFETY: `out` is read only after the read's event has completed, below.
        let status = unsafe {
            api.enqueue_read_buffer_raw(
                queue,
                b,
                false,
                0,
                BYTES,
                out.as_mut_ptr().cast(),
                Waits::on(&[tagged, neighbour, gate]),
                Some(&mut read),
            )
        };
        ok(status, "clEnqueueReadBuffer");
        ok(api.release_event(neighbour), "clReleaseEvent (neighbour)");
        if round % 16 == 15 {
            ok(api.flush(queue), "clFlush");
        }
        ok(api.wait_for_events(&[read]), "clWaitForEvents");
        assert_eq!(api.event_status(gate), CL_COMPLETE);
        let mut expected = words(thread, round);
        expected[WORDS - 1] = tag(thread, round);
        assert!(
            out == as_bytes(&expected),
            "thread {thread} round {round}: wrong data"
        );
        for event in [written, copied, tagged, read, gate] {
            ok(api.release_event(event), "clReleaseEvent");
        }
        if round % 32 == 31 {
            ok(api.finish(queue), "clFinish");
        }
    }
    ok(api.finish(queue), "clFinish");
    ok(api.release_mem_object(a), "clReleaseMemObject");
    ok(api.release_mem_object(b), "clReleaseMemObject");
    ok(api.release_command_queue(queue), "clReleaseCommandQueue");
}

#[test]
fn eight_threads_with_their_own_queues_wait_across_queues_and_threads() {
    let _watchdog = Watchdog::arm("the multiple-host-threads test", Duration::from_secs(60));
    let start = Instant::now();
    let api = api();
    let context = api
        .create_context(None, &[device()])
        .expect("clCreateContext");
    let destroyed: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));

    // Thread i sends copy events to i + 1 and user events to i + 2.
    let (next_senders, next_receivers): (Vec<_>, Vec<_>) =
        (0..THREADS).map(|_| channel::<Handle>()).unzip();
    let (set_senders, set_receivers): (Vec<_>, Vec<_>) =
        (0..THREADS).map(|_| channel::<Handle>()).unzip();
    let mut next_receivers: Vec<Option<Receiver<Handle>>> =
        next_receivers.into_iter().map(Some).collect();
    let mut set_receivers: Vec<Option<Receiver<Handle>>> =
        set_receivers.into_iter().map(Some).collect();
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let mail = Mail {
                to_next: next_senders[(thread + 1) % THREADS].clone(),
                from_previous: next_receivers[thread].take().unwrap(),
                to_setter: set_senders[(thread + 2) % THREADS].clone(),
                to_set: set_receivers[thread].take().unwrap(),
            };
            let context = Handle::of(context);
            std::thread::Builder::new()
                .name(format!("host-{thread}"))
                .spawn(move || worker(thread, context, mail, destroyed))
                .unwrap()
        })
        .collect();
    drop(next_senders);
    drop(set_senders);
    let mut failures = Vec::new();
    for (thread, handle) in handles.into_iter().enumerate() {
        if let Err(panic) = handle.join() {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("thread {thread}: {message}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");

    // Every buffer was deleted (its destructor callbacks ran), and the context is held by
    // the application alone.
    let all = eventually(Duration::from_secs(10), || {
        destroyed.load(Ordering::SeqCst) == 2 * THREADS
    });
    assert!(
        all,
        "{} of {} buffers were deleted",
        destroyed.load(Ordering::SeqCst),
        2 * THREADS
    );
    assert_eq!(api.context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 1);
    assert_eq!(api.release_context(context), CL_SUCCESS);
    println!(
        "{THREADS} threads × {ROUNDS} rounds in {:?}",
        start.elapsed()
    );
}

#[test]
fn threads_sharing_one_queue_and_one_buffer_write_and_read_their_own_parts() {
    // One out-of-order queue and one buffer shared by every thread; each thread writes and
    // reads back its own part, and retains and releases the shared objects as it goes.
    const CHUNK: usize = 4096;
    const REPEATS: usize = 1000;
    let _watchdog = Watchdog::arm("the shared-queue test", Duration::from_secs(60));
    let api = api();
    let context = api
        .create_context(None, &[device()])
        .expect("clCreateContext");
    let queue = api
        .create_command_queue(context, device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        .expect("clCreateCommandQueue");
    let mem = api
        .create_buffer(context, 0, THREADS * CHUNK)
        .expect("clCreateBuffer");
    let (context_h, queue_h, mem_h) = (Handle::of(context), Handle::of(queue), Handle::of(mem));
    let threads: Vec<_> = (0..THREADS)
        .map(|thread| {
            std::thread::spawn(move || {
                let api = clift();
                let (context, queue, mem) = (context_h.get(), queue_h.get(), mem_h.get());
                for repeat in 0..REPEATS {
                    ok(api.retain_command_queue(queue), "clRetainCommandQueue");
                    ok(api.retain_mem_object(mem), "clRetainMemObject");
                    ok(api.retain_context(context), "clRetainContext");
                    let data: Vec<u8> = (0..CHUNK)
                        .map(|k| (k as u8) ^ (thread as u8).wrapping_mul(37) ^ repeat as u8)
                        .collect();
                    let mut written = null_mut();
                    // SAFETY: `data` outlives the write: the blocking read below waits for
                    // it.
                    let status = unsafe {
                        api.enqueue_write_buffer_raw(
                            queue,
                            mem,
                            false,
                            thread * CHUNK,
                            CHUNK,
                            data.as_ptr().cast(),
                            Waits::NONE,
                            Some(&mut written),
                        )
                    };
                    ok(status, "clEnqueueWriteBuffer");
                    let mut out = vec![0u8; CHUNK];
                    let status = api.read_buffer(
                        queue,
                        mem,
                        thread * CHUNK,
                        &mut out,
                        Waits::on(&[written]),
                        None,
                    );
                    ok(status, "clEnqueueReadBuffer");
                    assert!(out == data, "thread {thread} repeat {repeat}: wrong data");
                    ok(api.release_event(written), "clReleaseEvent");
                    ok(api.release_context(context), "clReleaseContext");
                    ok(api.release_mem_object(mem), "clReleaseMemObject");
                    ok(api.release_command_queue(queue), "clReleaseCommandQueue");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a thread failed");
    }
    assert_eq!(api.finish(queue), CL_SUCCESS);
    assert_eq!(
        api.command_queue_scalar::<cl_uint>(queue, CL_QUEUE_REFERENCE_COUNT),
        1
    );
    assert_eq!(
        api.mem_object_scalar::<cl_uint>(mem, CL_MEM_REFERENCE_COUNT),
        1
    );
    assert_eq!(api.context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 1);
    assert_eq!(api.release_mem_object(mem), CL_SUCCESS);
    assert_eq!(api.release_command_queue(queue), CL_SUCCESS);
    assert_eq!(api.release_context(context), CL_SUCCESS);
}

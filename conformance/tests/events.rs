//! Events, user events, callbacks, profiling, markers, barriers and native kernels
//! (OpenCL 1.2 §5.8–§5.12; the deprecated `clEnqueueMarker`, `clEnqueueBarrier` and
//! `clEnqueueWaitForEvents` from OpenCL 1.1 §5.10), as an application sees them through the
//! ICD loader.
//!
//! Commands are held back with user events, so that "not yet" can be observed: a test that
//! checks a command has not run sleeps briefly first, and checks it again after releasing
//! it. Tests in which a mistake could leave a thread waiting forever arm a [`Watchdog`].

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

const OUT_OF_ORDER: cl_command_queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;

/// A context over the device and a queue on it, released on drop.
struct Fixture {
    context: cl_context,
    queue: cl_command_queue,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::with(0)
    }

    fn with(properties: cl_command_queue_properties) -> Fixture {
        let context = api()
            .create_context(None, &[device()])
            .expect("clCreateContext");
        let queue = api()
            .create_command_queue(context, device(), properties)
            .expect("clCreateCommandQueue");
        Fixture { context, queue }
    }

    fn buffer(&self, size: usize) -> cl_mem {
        api()
            .create_buffer_from(self.context, 0, &vec![0; size])
            .expect("clCreateBuffer")
    }

    fn user_event(&self) -> cl_event {
        api()
            .create_user_event(self.context)
            .expect("clCreateUserEvent")
    }

    /// A non-blocking one-byte fill of `mem` at `offset` after `waits`; its event.
    fn fill(&self, mem: cl_mem, offset: usize, value: u8, waits: &[cl_event]) -> cl_event {
        let mut event = null_mut();
        let status = api().enqueue_fill_buffer(
            self.queue,
            mem,
            Some(&[value]),
            1,
            offset,
            1,
            if waits.is_empty() {
                Waits::NONE
            } else {
                Waits::on(waits)
            },
            Some(&mut event),
        );
        assert_eq!(status, CL_SUCCESS, "clEnqueueFillBuffer");
        event
    }

    fn read(&self, mem: cl_mem, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        let status = api().read_buffer(self.queue, mem, 0, &mut out, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "clEnqueueReadBuffer");
        out
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let statuses = [
            api().finish(self.queue),
            api().release_command_queue(self.queue),
            api().release_context(self.context),
        ];
        if !std::thread::panicking() {
            assert_eq!(
                statuses, [CL_SUCCESS; 3],
                "finish / release queue / context"
            );
        }
    }
}

fn release_event(event: cl_event) {
    assert_eq!(api().release_event(event), CL_SUCCESS);
}

fn release_mem(mem: cl_mem) {
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

fn complete(event: cl_event) {
    assert_eq!(api().set_user_event_status(event, CL_COMPLETE), CL_SUCCESS);
}

fn status(event: cl_event) -> cl_int {
    api().event_status(event)
}

fn command_type(event: cl_event) -> cl_command_type {
    api().event_scalar(event, CL_EVENT_COMMAND_TYPE)
}

/// Long enough for a command that is free to run to have run.
fn settle() {
    std::thread::sleep(Duration::from_millis(30));
}

fn watchdog(what: &str) -> Watchdog {
    Watchdog::arm(what, Duration::from_secs(60))
}

// Native kernels that record what ran.

/// A flag a native kernel raises (leaked: the command may outlive a failing test).
fn new_flag() -> &'static AtomicBool {
    Box::leak(Box::new(AtomicBool::new(false)))
}

/// The argument block of `raise_flag`.
#[repr(C)]
#[derive(Clone, Copy)]
struct FlagArgs {
    flag: *const AtomicBool,
}

extern "C" fn raise_flag(args: *mut c_void) {
    // SAFETY: the block is a copy of a `FlagArgs` whose flag is leaked.
    let args = unsafe { args.cast::<FlagArgs>().read_unaligned() };
    // SAFETY: as above.
    unsafe { &*args.flag }.store(true, Ordering::SeqCst);
}

/// An order log native kernels append their ids to (leaked).
fn new_log() -> &'static Mutex<Vec<u32>> {
    Box::leak(Box::new(Mutex::new(Vec::new())))
}

/// The argument block of `log_id`.
#[repr(C)]
#[derive(Clone, Copy)]
struct LogArgs {
    log: *const Mutex<Vec<u32>>,
    id: u32,
}

extern "C" fn log_id(args: *mut c_void) {
    // SAFETY: the block is a copy of a `LogArgs` whose log is leaked.
    let args = unsafe { args.cast::<LogArgs>().read_unaligned() };
    // SAFETY: as above.
    unsafe { &*args.log }.lock().unwrap().push(args.id);
}

/// Enqueues a native kernel with a plain argument block (no memory objects).
fn enqueue_native<T: Copy>(
    queue: cl_command_queue,
    func: unsafe extern "C" fn(*mut c_void),
    args: T,
    waits: Waits<'_>,
    event: Option<&mut cl_event>,
) -> cl_int {
    let mut args = args;
    // SAFETY: the block is `size_of::<T>()` bytes, copied by the call; the functions passed
    // read only leaked objects through it.
    unsafe {
        api().enqueue_native_kernel(
            queue,
            Some(func),
            (&raw mut args).cast(),
            size_of::<T>(),
            0,
            std::ptr::null(),
            null_mut(),
            waits,
            event,
        )
    }
}

/// A native kernel raising `flag` after `waits`; its event.
fn raise_after(queue: cl_command_queue, flag: &'static AtomicBool, waits: &[cl_event]) -> cl_event {
    let mut event = null_mut();
    let waits = if waits.is_empty() {
        Waits::NONE
    } else {
        Waits::on(waits)
    };
    let args = FlagArgs { flag };
    let status = enqueue_native(queue, raise_flag, args, waits, Some(&mut event));
    assert_eq!(status, CL_SUCCESS, "clEnqueueNativeKernel");
    event
}

/// A native kernel logging `id` after `waits`; its event.
fn log_after(
    queue: cl_command_queue,
    log: &'static Mutex<Vec<u32>>,
    id: u32,
    waits: &[cl_event],
) -> cl_event {
    let mut event = null_mut();
    let waits = if waits.is_empty() {
        Waits::NONE
    } else {
        Waits::on(waits)
    };
    let status = enqueue_native(queue, log_id, LogArgs { log, id }, waits, Some(&mut event));
    assert_eq!(status, CL_SUCCESS, "clEnqueueNativeKernel");
    event
}

fn logged(log: &Mutex<Vec<u32>>) -> Vec<u32> {
    log.lock().unwrap().clone()
}

// clGetEventInfo

#[test]
fn event_of_a_command_reports_its_queue_context_and_type() {
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    let event = fx.fill(mem, 0, 1, &[]);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let api = api();
    assert_eq!(
        api.event_scalar::<cl_command_queue>(event, CL_EVENT_COMMAND_QUEUE),
        fx.queue
    );
    assert_eq!(
        api.event_scalar::<cl_context>(event, CL_EVENT_CONTEXT),
        fx.context
    );
    assert_eq!(command_type(event), CL_COMMAND_FILL_BUFFER);
    assert_eq!(status(event), CL_COMPLETE);
    // "Commands that return an event perform an implicit retain."
    assert_eq!(
        api.event_scalar::<cl_uint>(event, CL_EVENT_REFERENCE_COUNT),
        1
    );
    release_event(event);
    release_mem(mem);
}

#[test]
fn event_info_answers_have_the_sizes_of_their_types() {
    let fx = Fixture::new();
    let event = fx.user_event();
    let size = |param| api().event_info(event, param).unwrap().len();
    assert_eq!(size(CL_EVENT_COMMAND_QUEUE), size_of::<cl_command_queue>());
    assert_eq!(size(CL_EVENT_CONTEXT), size_of::<cl_context>());
    assert_eq!(size(CL_EVENT_COMMAND_TYPE), size_of::<cl_command_type>());
    assert_eq!(size(CL_EVENT_COMMAND_EXECUTION_STATUS), size_of::<cl_int>());
    assert_eq!(size(CL_EVENT_REFERENCE_COUNT), size_of::<cl_uint>());
    complete(event);
    release_event(event);
}

#[test]
fn retain_and_release_track_the_event_reference_count() {
    let fx = Fixture::new();
    let event = fx.user_event();
    let count = || api().event_scalar::<cl_uint>(event, CL_EVENT_REFERENCE_COUNT);
    assert_eq!(count(), 1);
    assert_eq!(api().retain_event(event), CL_SUCCESS);
    assert_eq!(count(), 2);
    release_event(event);
    assert_eq!(count(), 1);
    complete(event);
    release_event(event);
}

#[test]
fn event_info_unknown_param_or_too_small_buffer_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not valid, or if size in bytes specified by
    // param_value_size is < size of return type ... and param_value is not NULL."
    let fx = Fixture::new();
    let event = fx.user_event();
    let mut size = 0;
    for param in [0, CL_EVENT_CONTEXT + 1, CL_PROFILING_COMMAND_END] {
        let status = api().query_event_info(event, param, 0, None, Some(&mut size));
        assert_eq!(status, CL_INVALID_VALUE, "param {param:#x}");
    }
    let mut value = [0u8; 8];
    for (param, size) in [
        (CL_EVENT_COMMAND_EXECUTION_STATUS, 2),
        (CL_EVENT_CONTEXT, 4),
        (CL_EVENT_COMMAND_TYPE, 3),
    ] {
        let status = api().query_event_info(event, param, size, Some(&mut value), None);
        assert_eq!(
            status, CL_INVALID_VALUE,
            "param {param:#x} into {size} bytes"
        );
    }
    complete(event);
    release_event(event);
}

#[test]
fn event_calls_on_a_non_event_are_invalid_event() {
    // "CL_INVALID_EVENT if event is not a valid event object."
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    for bad in [mem, fx.queue, foreign.handle()] {
        let mut size = 0;
        let api = api();
        let status = api.query_event_info(bad, CL_EVENT_CONTEXT, 0, None, Some(&mut size));
        assert_eq!(status, CL_INVALID_EVENT);
        assert_eq!(api.retain_event(bad), CL_INVALID_EVENT);
        assert_eq!(api.release_event(bad), CL_INVALID_EVENT);
        assert_eq!(
            api.set_user_event_status(bad, CL_COMPLETE),
            CL_INVALID_EVENT
        );
        assert_eq!(
            api.event_profiling_info(bad, CL_PROFILING_COMMAND_END),
            Err(CL_INVALID_EVENT)
        );
        // SAFETY: the callback is never called: the handle is not an event.
        let status =
            unsafe { api.set_event_callback(bad, CL_COMPLETE, Some(record_callback), null_mut()) };
        assert_eq!(status, CL_INVALID_EVENT);
    }
    release_mem(mem);
}

/// Every kind of command, for the tests that go over all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    Read,
    Write,
    Copy,
    ReadRect,
    WriteRect,
    CopyRect,
    Fill,
    Map,
    Unmap,
    Migrate,
    Marker,
    Barrier,
    NativeKernel,
}

const COMMANDS: [Command; 13] = [
    Command::Read,
    Command::Write,
    Command::Copy,
    Command::ReadRect,
    Command::WriteRect,
    Command::CopyRect,
    Command::Fill,
    Command::Map,
    Command::Unmap,
    Command::Migrate,
    Command::Marker,
    Command::Barrier,
    Command::NativeKernel,
];

impl Command {
    /// The `CL_EVENT_COMMAND_TYPE` its event reports.
    fn command_type(self) -> cl_command_type {
        match self {
            Command::Read => CL_COMMAND_READ_BUFFER,
            Command::Write => CL_COMMAND_WRITE_BUFFER,
            Command::Copy => CL_COMMAND_COPY_BUFFER,
            Command::ReadRect => CL_COMMAND_READ_BUFFER_RECT,
            Command::WriteRect => CL_COMMAND_WRITE_BUFFER_RECT,
            Command::CopyRect => CL_COMMAND_COPY_BUFFER_RECT,
            Command::Fill => CL_COMMAND_FILL_BUFFER,
            Command::Map => CL_COMMAND_MAP_BUFFER,
            Command::Unmap => CL_COMMAND_UNMAP_MEM_OBJECT,
            Command::Migrate => CL_COMMAND_MIGRATE_MEM_OBJECTS,
            Command::Marker => CL_COMMAND_MARKER,
            Command::Barrier => CL_COMMAND_BARRIER,
            Command::NativeKernel => CL_COMMAND_NATIVE_KERNEL,
        }
    }

    /// Whether the spec lists "CL_INVALID_CONTEXT if context associated with command_queue
    /// and events in event_wait_list are not the same" for it (clEnqueueMarkerWithWaitList
    /// and clEnqueueBarrierWithWaitList do not).
    fn checks_wait_list_context(self) -> bool {
        !matches!(self, Command::Marker | Command::Barrier)
    }

    /// Enqueues the command on `fx.queue` with `waits`: reads and writes are blocking, so
    /// every host pointer is only used during the call. Buffers of 256 bytes.
    fn enqueue(self, fx: &Fixture, waits: Waits<'_>, event: Option<&mut cl_event>) -> cl_int {
        let api = api();
        let q = fx.queue;
        let a = fx.buffer(256);
        let b = fx.buffer(256);
        let mut host = vec![0u8; 256];
        let (origin, region) = ([0, 0, 0], [4, 4, 1]);
        let status = match self {
            Command::Read => api.read_buffer(q, a, 0, &mut host, waits, event),
            Command::Write => api.write_buffer(q, a, 0, &host, waits, event),
            Command::Copy => api.enqueue_copy_buffer(q, a, b, 0, 0, 64, waits, event),
            // SAFETY: blocking; the 4 x 4 host rectangle lies inside `host`.
            Command::ReadRect => unsafe {
                api.enqueue_read_buffer_rect_raw(
                    q,
                    a,
                    true,
                    Some(&origin),
                    Some(&origin),
                    Some(&region),
                    [0, 0],
                    [0, 0],
                    host.as_mut_ptr().cast(),
                    waits,
                    event,
                )
            },
            // SAFETY: as above.
            Command::WriteRect => unsafe {
                api.enqueue_write_buffer_rect_raw(
                    q,
                    a,
                    true,
                    Some(&origin),
                    Some(&origin),
                    Some(&region),
                    [0, 0],
                    [0, 0],
                    host.as_ptr().cast(),
                    waits,
                    event,
                )
            },
            Command::CopyRect => api.enqueue_copy_buffer_rect(
                q,
                a,
                b,
                Some(&origin),
                Some(&origin),
                Some(&region),
                [0, 0],
                [0, 0],
                waits,
                event,
            ),
            Command::Fill => api.enqueue_fill_buffer(q, a, Some(&[1]), 1, 0, 64, waits, event),
            Command::Map => {
                let (ptr, status) =
                    api.enqueue_map_buffer(q, a, true, CL_MAP_READ, 0, 64, waits, event);
                if status == CL_SUCCESS {
                    let unmap = api.enqueue_unmap_mem_object(q, a, ptr, Waits::NONE, None);
                    assert_eq!(unmap, CL_SUCCESS);
                }
                status
            }
            Command::Unmap => {
                let (ptr, status) =
                    api.enqueue_map_buffer(q, a, true, CL_MAP_READ, 0, 64, Waits::NONE, None);
                assert_eq!(status, CL_SUCCESS);
                let status = api.enqueue_unmap_mem_object(q, a, ptr, waits, event);
                if status != CL_SUCCESS {
                    let unmap = api.enqueue_unmap_mem_object(q, a, ptr, Waits::NONE, None);
                    assert_eq!(unmap, CL_SUCCESS);
                }
                status
            }
            Command::Migrate => {
                api.enqueue_migrate_mem_objects(q, 2, Some(&[a, b]), 0, waits, event)
            }
            Command::Marker => api.enqueue_marker_with_wait_list(q, waits, event),
            Command::Barrier => api.enqueue_barrier_with_wait_list(q, waits, event),
            Command::NativeKernel => {
                let flag = new_flag();
                enqueue_native(q, raise_flag, FlagArgs { flag }, waits, event)
            }
        };
        assert_eq!(api.finish(q), CL_SUCCESS);
        release_mem(a);
        release_mem(b);
        status
    }
}

#[test]
fn each_command_reports_its_command_type() {
    // CL_EVENT_COMMAND_TYPE: "Return the command associated with event."
    let fx = Fixture::new();
    for command in COMMANDS {
        let mut event = null_mut();
        assert_eq!(
            command.enqueue(&fx, Waits::NONE, Some(&mut event)),
            CL_SUCCESS,
            "{command:?}"
        );
        assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
        assert_eq!(command_type(event), command.command_type(), "{command:?}");
        assert_eq!(status(event), CL_COMPLETE, "{command:?}");
        assert_eq!(
            api().event_scalar::<cl_command_queue>(event, CL_EVENT_COMMAND_QUEUE),
            fx.queue,
            "{command:?}"
        );
        release_event(event);
    }
    // The OpenCL 1.1 marker.
    let mut event = null_mut();
    assert_eq!(api().enqueue_marker(fx.queue, Some(&mut event)), CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(command_type(event), CL_COMMAND_MARKER);
    release_event(event);
}

#[test]
fn each_command_accepts_a_wait_list_of_completed_events() {
    let fx = Fixture::new();
    let done = fx.user_event();
    complete(done);
    let other = fx.user_event();
    complete(other);
    for command in COMMANDS {
        let status = command.enqueue(&fx, Waits::on(&[done, other]), None);
        assert_eq!(status, CL_SUCCESS, "{command:?}");
    }
    release_event(done);
    release_event(other);
}

#[test]
fn wait_list_null_with_a_count_is_invalid_event_wait_list() {
    // "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list >
    // 0".
    let fx = Fixture::new();
    for command in COMMANDS {
        let status = command.enqueue(&fx, Waits::raw(1, None), None);
        assert_eq!(status, CL_INVALID_EVENT_WAIT_LIST, "{command:?}");
    }
}

#[test]
fn wait_list_with_a_zero_count_is_invalid_event_wait_list() {
    // "... or event_wait_list is not NULL and num_events_in_wait_list is 0".
    let fx = Fixture::new();
    let done = fx.user_event();
    complete(done);
    for command in COMMANDS {
        let status = command.enqueue(&fx, Waits::raw(0, Some(&[done])), None);
        assert_eq!(status, CL_INVALID_EVENT_WAIT_LIST, "{command:?}");
    }
    release_event(done);
}

#[test]
fn wait_list_with_an_invalid_event_is_invalid_event_wait_list() {
    // "... or if event objects in event_wait_list are not valid events."
    let fx = Fixture::new();
    let done = fx.user_event();
    complete(done);
    let mem = fx.buffer(16);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    for bad in [null_mut(), mem, fx.queue, foreign.handle()] {
        for command in COMMANDS {
            let status = command.enqueue(&fx, Waits::on(&[done, bad]), None);
            assert_eq!(status, CL_INVALID_EVENT_WAIT_LIST, "{command:?}");
        }
    }
    release_mem(mem);
    release_event(done);
}

#[test]
fn wait_list_event_of_another_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context associated with command_queue and events in
    // event_wait_list are not the same."
    let fx = Fixture::new();
    let other = Fixture::new();
    let theirs = other.user_event();
    complete(theirs);
    let mine = fx.user_event();
    complete(mine);
    for command in COMMANDS
        .into_iter()
        .filter(|c| c.checks_wait_list_context())
    {
        let status = command.enqueue(&fx, Waits::on(&[mine, theirs]), None);
        assert_eq!(status, CL_INVALID_CONTEXT, "{command:?}");
    }
    release_event(theirs);
    release_event(mine);
}

// User events

#[test]
fn user_event_starts_submitted_with_no_queue() {
    // "The execution status of the user event object created is set to CL_SUBMITTED."
    // CL_EVENT_COMMAND_QUEUE: "For user event objects, a NULL value is returned."
    let fx = Fixture::new();
    let event = fx.user_event();
    assert_eq!(status(event), CL_SUBMITTED);
    assert_eq!(command_type(event), CL_COMMAND_USER);
    assert!(
        api()
            .event_scalar::<cl_command_queue>(event, CL_EVENT_COMMAND_QUEUE)
            .is_null()
    );
    assert_eq!(
        api().event_scalar::<cl_context>(event, CL_EVENT_CONTEXT),
        fx.context
    );
    complete(event);
    assert_eq!(status(event), CL_COMPLETE);
    release_event(event);
}

#[test]
fn create_user_event_on_a_non_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid context."
    let fx = Fixture::new();
    assert_eq!(
        api().create_user_event(fx.queue).unwrap_err(),
        CL_INVALID_CONTEXT
    );
}

#[test]
fn command_waiting_on_a_user_event_completes_only_after_it_is_set() {
    let fx = Fixture::with(OUT_OF_ORDER);
    let gate = fx.user_event();
    let flag = new_flag();
    let event = raise_after(fx.queue, flag, &[gate]);
    assert_eq!(api().flush(fx.queue), CL_SUCCESS);
    settle();
    assert!(
        !flag.load(Ordering::SeqCst),
        "ran before its user event was set"
    );
    assert!(status(event) > CL_RUNNING, "status {}", status(event));
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert!(flag.load(Ordering::SeqCst));
    assert_eq!(status(event), CL_COMPLETE);
    release_event(event);
    release_event(gate);
}

#[test]
fn setting_a_user_event_status_twice_is_invalid_operation() {
    // "CL_INVALID_OPERATION if the execution_status for event has already been changed by a
    // previous call to clSetUserEventStatus."
    let fx = Fixture::new();
    let event = fx.user_event();
    complete(event);
    assert_eq!(
        api().set_user_event_status(event, CL_COMPLETE),
        CL_INVALID_OPERATION
    );
    assert_eq!(api().set_user_event_status(event, -1), CL_INVALID_OPERATION);
    release_event(event);
    let failed = fx.user_event();
    assert_eq!(api().set_user_event_status(failed, -7), CL_SUCCESS);
    assert_eq!(
        api().set_user_event_status(failed, CL_COMPLETE),
        CL_INVALID_OPERATION
    );
    assert_eq!(status(failed), -7);
    release_event(failed);
}

#[test]
fn user_event_status_neither_complete_nor_negative_is_invalid_value() {
    // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer
    // value."
    let fx = Fixture::new();
    let event = fx.user_event();
    for value in [CL_RUNNING, CL_SUBMITTED, CL_QUEUED, 5, 1000] {
        assert_eq!(
            api().set_user_event_status(event, value),
            CL_INVALID_VALUE,
            "{value}"
        );
    }
    // The event is still unset.
    assert_eq!(status(event), CL_SUBMITTED);
    complete(event);
    release_event(event);
}

#[test]
fn setting_the_status_of_a_command_event_is_invalid_event() {
    // "CL_INVALID_EVENT if event is not a valid user event object."
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    let event = fx.fill(mem, 0, 1, &[]);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(
        api().set_user_event_status(event, CL_COMPLETE),
        CL_INVALID_EVENT
    );
    release_event(event);
    release_mem(mem);
}

#[test]
fn negative_user_event_status_terminates_the_commands_waiting_on_it() {
    // clSetUserEventStatus: "A negative integer value causes all enqueued commands that wait
    // on this user event to be terminated." A terminated command's status is "a negative
    // integer value", and the termination propagates along wait lists, across queues.
    let _watchdog = watchdog("negative user event status");
    let fx = Fixture::with(OUT_OF_ORDER);
    let second_queue = api().create_command_queue(fx.context, device(), 0).unwrap();
    let gate = fx.user_event();
    let (first_ran, second_ran, third_ran) = (new_flag(), new_flag(), new_flag());
    let first = raise_after(fx.queue, first_ran, &[gate]);
    let second = raise_after(fx.queue, second_ran, &[first]);
    let third = raise_after(second_queue, third_ran, &[second]);
    assert_eq!(api().set_user_event_status(gate, -42), CL_SUCCESS);
    assert_eq!(status(gate), -42);
    for event in [first, second, third] {
        // clWaitForEvents: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
        // status of any of the events in event_list is a negative integer value."
        assert_eq!(
            api().wait_for_events(&[event]),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        );
        assert!(status(event) < 0, "status {}", status(event));
    }
    for ran in [first_ran, second_ran, third_ran] {
        assert!(!ran.load(Ordering::SeqCst), "a terminated command ran");
    }
    for event in [gate, first, second, third] {
        release_event(event);
    }
    assert_eq!(api().release_command_queue(second_queue), CL_SUCCESS);
}

#[test]
fn blocking_read_after_a_failed_event_is_exec_status_error_for_events_in_wait_list() {
    // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the read and write operations are
    // blocking and the execution status of any of the events in event_wait_list is a
    // negative integer value." Once already failed, and once failing while the read waits.
    let _watchdog = watchdog("blocking read on a failed event");
    for set_later in [false, true] {
        let fx = Fixture::new();
        let mem = fx.buffer(64);
        let gate = fx.user_event();
        let setter = if set_later {
            let gate = gate as usize;
            Some(std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                api().set_user_event_status(gate as cl_event, -3)
            }))
        } else {
            assert_eq!(api().set_user_event_status(gate, -3), CL_SUCCESS);
            None
        };
        let mut out = [0u8; 64];
        let status = api().read_buffer(fx.queue, mem, 0, &mut out, Waits::on(&[gate]), None);
        assert_eq!(
            status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            "set later: {set_later}"
        );
        if let Some(setter) = setter {
            assert_eq!(setter.join().unwrap(), CL_SUCCESS);
        }
        release_event(gate);
        release_mem(mem);
    }
}

#[test]
fn blocking_write_and_map_after_a_failed_event_are_exec_status_error() {
    // The same rule for blocking writes, and clEnqueueMapBuffer:
    // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the map operation is blocking and the
    // execution status of any of the events in event_wait_list is a negative integer value."
    let _watchdog = watchdog("blocking write/map on a failed event");
    let fx = Fixture::with(OUT_OF_ORDER);
    let mem = fx.buffer(64);
    let gate = fx.user_event();
    assert_eq!(api().set_user_event_status(gate, -5), CL_SUCCESS);
    let data = [1u8; 64];
    assert_eq!(
        api().write_buffer(fx.queue, mem, 0, &data, Waits::on(&[gate]), None),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    let (ptr, status) = api().enqueue_map_buffer(
        fx.queue,
        mem,
        true,
        CL_MAP_READ,
        0,
        64,
        Waits::on(&[gate]),
        None,
    );
    assert_eq!(status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert!(ptr.is_null());
    release_event(gate);
    release_mem(mem);
}

// clWaitForEvents

#[test]
fn wait_for_events_returns_once_the_events_complete() {
    let _watchdog = watchdog("clWaitForEvents");
    let fx = Fixture::with(OUT_OF_ORDER);
    let gate = fx.user_event();
    let flag = new_flag();
    let event = raise_after(fx.queue, flag, &[gate]);
    let setter = {
        let gate = gate as usize;
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            api().set_user_event_status(gate as cl_event, CL_COMPLETE)
        })
    };
    assert_eq!(api().wait_for_events(&[event, gate]), CL_SUCCESS);
    assert!(flag.load(Ordering::SeqCst));
    assert_eq!(status(event), CL_COMPLETE);
    assert_eq!(setter.join().unwrap(), CL_SUCCESS);
    release_event(event);
    release_event(gate);
}

#[test]
fn wait_for_no_events_is_invalid_value() {
    // "CL_INVALID_VALUE if num_events is zero or event_list is NULL."
    let fx = Fixture::new();
    let event = fx.user_event();
    complete(event);
    assert_eq!(
        api().wait_for_events_raw(0, Some(&[event])),
        CL_INVALID_VALUE
    );
    assert_eq!(api().wait_for_events_raw(1, None), CL_INVALID_VALUE);
    assert_eq!(api().wait_for_events_raw(0, None), CL_INVALID_VALUE);
    release_event(event);
}

#[test]
fn wait_for_events_of_two_contexts_is_invalid_context() {
    // "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same
    // context."
    let fx = Fixture::new();
    let other = Fixture::new();
    let (mine, theirs) = (fx.user_event(), other.user_event());
    complete(mine);
    complete(theirs);
    assert_eq!(api().wait_for_events(&[mine, theirs]), CL_INVALID_CONTEXT);
    assert_eq!(api().wait_for_events(&[theirs, mine]), CL_INVALID_CONTEXT);
    release_event(mine);
    release_event(theirs);
}

#[test]
fn wait_for_a_non_event_is_invalid_event() {
    // "CL_INVALID_EVENT if event objects specified in event_list are not valid event
    // objects."
    let fx = Fixture::new();
    let event = fx.user_event();
    complete(event);
    let mem = fx.buffer(16);
    assert_eq!(api().wait_for_events(&[event, mem]), CL_INVALID_EVENT);
    assert_eq!(api().wait_for_events(&[mem]), CL_INVALID_EVENT);
    assert_eq!(
        api().wait_for_events(&[event, null_mut()]),
        CL_INVALID_EVENT
    );
    release_mem(mem);
    release_event(event);
}

#[test]
fn wait_for_a_failed_event_is_exec_status_error_for_events_in_wait_list() {
    let fx = Fixture::new();
    let (ok, failed) = (fx.user_event(), fx.user_event());
    complete(ok);
    assert_eq!(api().set_user_event_status(failed, -9), CL_SUCCESS);
    assert_eq!(
        api().wait_for_events(&[ok, failed]),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    assert_eq!(api().wait_for_events(&[ok]), CL_SUCCESS);
    release_event(ok);
    release_event(failed);
}

// clSetEventCallback

/// What callbacks recorded: (type registered, status passed, event).
type CallbackCalls = Mutex<Vec<(cl_int, cl_int, usize)>>;

/// One callback's `user_data`.
struct CallbackSlot {
    registered: cl_int,
    calls: &'static CallbackCalls,
}

extern "C" fn record_callback(event: cl_event, status: cl_int, user_data: *mut c_void) {
    // SAFETY: `user_data` is a leaked `CallbackSlot` (see `on`).
    let slot = unsafe { &*user_data.cast::<CallbackSlot>() };
    slot.calls
        .lock()
        .unwrap()
        .push((slot.registered, status, event as usize));
}

fn new_calls() -> &'static CallbackCalls {
    Box::leak(Box::new(Mutex::new(Vec::new())))
}

/// Registers `record_callback` for `callback_type` on `event`.
fn on(event: cl_event, callback_type: cl_int, calls: &'static CallbackCalls) -> cl_int {
    let slot: &'static CallbackSlot = Box::leak(Box::new(CallbackSlot {
        registered: callback_type,
        calls,
    }));
    // SAFETY: the slot is leaked, valid whenever the callback runs.
    unsafe {
        api().set_event_callback(
            event,
            callback_type,
            Some(record_callback),
            (slot as *const CallbackSlot).cast_mut().cast(),
        )
    }
}

/// The recorded calls once there are `n` (callbacks "may be called asynchronously"), sorted.
fn wait_for_callbacks(calls: &CallbackCalls, n: usize) -> Vec<(cl_int, cl_int, usize)> {
    eventually(Duration::from_secs(10), || calls.lock().unwrap().len() >= n);
    let mut recorded = calls.lock().unwrap().clone();
    recorded.sort_unstable();
    recorded
}

#[test]
fn callbacks_for_submitted_running_and_complete_are_all_called_with_their_status() {
    // "The registered callback function will be called when the execution status of command
    // associated with event changes to an execution status equal to or past the status
    // specified by command_exec_status." "All callbacks registered for an event object must
    // be called."
    let fx = Fixture::with(OUT_OF_ORDER);
    let calls = new_calls();
    let gate = fx.user_event();
    let flag = new_flag();
    let event = raise_after(fx.queue, flag, &[gate]);
    for kind in [CL_COMPLETE, CL_RUNNING, CL_SUBMITTED] {
        assert_eq!(on(event, kind, calls), CL_SUCCESS);
    }
    settle();
    assert!(
        calls
            .lock()
            .unwrap()
            .iter()
            .all(|&(kind, _, _)| kind == CL_SUBMITTED),
        "a running or complete callback came before the command could run"
    );
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let e = event as usize;
    assert_eq!(
        wait_for_callbacks(calls, 3),
        [
            (CL_COMPLETE, CL_COMPLETE, e),
            (CL_RUNNING, CL_RUNNING, e),
            (CL_SUBMITTED, CL_SUBMITTED, e)
        ]
    );
    release_event(event);
    release_event(gate);
}

#[test]
fn callback_registered_on_a_finished_event_is_called() {
    // The status "equal to or past" the one registered has been reached already.
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    let event = fx.fill(mem, 0, 1, &[]);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let calls = new_calls();
    for kind in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE] {
        assert_eq!(on(event, kind, calls), CL_SUCCESS);
    }
    let e = event as usize;
    assert_eq!(
        wait_for_callbacks(calls, 3),
        [
            (CL_COMPLETE, CL_COMPLETE, e),
            (CL_RUNNING, CL_RUNNING, e),
            (CL_SUBMITTED, CL_SUBMITTED, e)
        ]
    );
    release_event(event);
    release_mem(mem);
}

#[test]
fn callbacks_on_a_user_event_are_called_when_it_is_set() {
    let fx = Fixture::new();
    let event = fx.user_event();
    let calls = new_calls();
    assert_eq!(on(event, CL_COMPLETE, calls), CL_SUCCESS);
    // A user event starts CL_SUBMITTED: its SUBMITTED callback is due at once.
    assert_eq!(on(event, CL_SUBMITTED, calls), CL_SUCCESS);
    let e = event as usize;
    assert_eq!(
        wait_for_callbacks(calls, 1),
        [(CL_SUBMITTED, CL_SUBMITTED, e)]
    );
    complete(event);
    assert_eq!(
        wait_for_callbacks(calls, 2),
        [
            (CL_COMPLETE, CL_COMPLETE, e),
            (CL_SUBMITTED, CL_SUBMITTED, e)
        ]
    );
    release_event(event);
}

#[test]
fn callback_of_a_terminated_command_receives_an_error_code() {
    // "If the callback is called as the result of the command associated with event being
    // abnormally terminated, an appropriate error code for the error that caused the
    // termination will be passed to event_command_exec_status instead." (CL_COMPLETE
    // callbacks: "the callback function ... will be called when the command has completed
    // successfully or is abnormally terminated".)
    let fx = Fixture::with(OUT_OF_ORDER);
    let gate = fx.user_event();
    let event = raise_after(fx.queue, new_flag(), &[gate]);
    let calls = new_calls();
    assert_eq!(on(event, CL_COMPLETE, calls), CL_SUCCESS);
    let user_calls = new_calls();
    assert_eq!(on(gate, CL_COMPLETE, user_calls), CL_SUCCESS);
    assert_eq!(api().set_user_event_status(gate, -11), CL_SUCCESS);
    let recorded = wait_for_callbacks(calls, 1);
    assert_eq!(recorded.len(), 1);
    assert!(recorded[0].1 < 0, "status {}", recorded[0].1);
    assert_eq!(
        wait_for_callbacks(user_calls, 1),
        [(CL_COMPLETE, -11, gate as usize)]
    );
    release_event(event);
    release_event(gate);
}

#[test]
fn callbacks_are_called_before_the_event_is_destroyed() {
    // "All callbacks registered for an event object must be called before the event object
    // is destroyed": releasing the application's last reference does not cancel them.
    let fx = Fixture::with(OUT_OF_ORDER);
    let gate = fx.user_event();
    let event = raise_after(fx.queue, new_flag(), &[gate]);
    let calls = new_calls();
    assert_eq!(on(event, CL_COMPLETE, calls), CL_SUCCESS);
    release_event(event);
    complete(gate);
    assert_eq!(
        wait_for_callbacks(calls, 1),
        [(CL_COMPLETE, CL_COMPLETE, event as usize)]
    );
    release_event(gate);
}

#[test]
fn callback_type_other_than_submitted_running_complete_is_invalid_value() {
    // "CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is not
    // CL_SUBMITTED, CL_RUNNING or CL_COMPLETE."
    let fx = Fixture::new();
    let event = fx.user_event();
    let calls = new_calls();
    for kind in [CL_QUEUED, 4, -1, 100] {
        assert_eq!(on(event, kind, calls), CL_INVALID_VALUE, "type {kind}");
    }
    // SAFETY: no callback.
    let status = unsafe { api().set_event_callback(event, CL_COMPLETE, None, null_mut()) };
    assert_eq!(status, CL_INVALID_VALUE);
    complete(event);
    settle();
    assert!(calls.lock().unwrap().is_empty());
    release_event(event);
}

/// What `query_and_release` saw: how many calls, and whether every query succeeded.
struct ReentrantLog {
    calls: AtomicUsize,
    queries_ok: AtomicBool,
}

extern "C" fn query_and_release(event: cl_event, _status: cl_int, user_data: *mut c_void) {
    // SAFETY: `user_data` is a leaked `ReentrantLog`.
    let log = unsafe { &*user_data.cast::<ReentrantLog>() };
    // The callback calls back into the API on the event it is called for: the driver must
    // not hold a lock of that event (or its queue) while calling.
    let api = clift();
    let status: Result<Vec<u8>, cl_int> = api.event_info(event, CL_EVENT_COMMAND_EXECUTION_STATUS);
    let context = api.event_info(event, CL_EVENT_CONTEXT);
    if status.is_err() || context.is_err() {
        log.queries_ok.store(false, Ordering::SeqCst);
    }
    // The test retained the event once for this callback.
    if api.release_event(event) != CL_SUCCESS {
        log.queries_ok.store(false, Ordering::SeqCst);
    }
    log.calls.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn callbacks_may_query_and_release_their_event() {
    // The callback's event is valid during the call; clGetEventInfo and clReleaseEvent are
    // not among the calls a callback may not make.
    let _watchdog = watchdog("callbacks calling back into the API");
    let fx = Fixture::with(OUT_OF_ORDER);
    let log: &'static ReentrantLog = Box::leak(Box::new(ReentrantLog {
        calls: AtomicUsize::new(0),
        queries_ok: AtomicBool::new(true),
    }));
    let user_data = (log as *const ReentrantLog).cast_mut().cast();
    let gate = fx.user_event();
    let event = raise_after(fx.queue, new_flag(), &[gate]);
    for target in [gate, event] {
        for kind in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE] {
            assert_eq!(api().retain_event(target), CL_SUCCESS);
            // SAFETY: `log` is leaked; the callback releases the reference retained above.
            let status = unsafe {
                api().set_event_callback(target, kind, Some(query_and_release), user_data)
            };
            assert_eq!(status, CL_SUCCESS);
        }
    }
    // The gate's SUBMITTED callback may run at once; the rest run as the gate is set (on
    // this thread or another) and as the command runs.
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert!(
        eventually(Duration::from_secs(10), || log.calls.load(Ordering::SeqCst)
            == 6),
        "{} of 6 callbacks ran",
        log.calls.load(Ordering::SeqCst)
    );
    assert!(log.queries_ok.load(Ordering::SeqCst));
    for target in [gate, event] {
        assert_eq!(
            api().event_scalar::<cl_uint>(target, CL_EVENT_REFERENCE_COUNT),
            1
        );
        release_event(target);
    }
}

// clGetEventProfilingInfo

const PROFILING: [cl_profiling_info; 4] = [
    CL_PROFILING_COMMAND_QUEUED,
    CL_PROFILING_COMMAND_SUBMIT,
    CL_PROFILING_COMMAND_START,
    CL_PROFILING_COMMAND_END,
];

fn profile(event: cl_event) -> [cl_ulong; 4] {
    PROFILING.map(|param| {
        let bytes = api()
            .event_profiling_info(event, param)
            .unwrap_or_else(|e| panic!("clGetEventProfilingInfo({param:#x}) failed: {e}"));
        scalar::<cl_ulong>(&bytes)
    })
}

#[test]
fn profiled_commands_report_ordered_non_zero_times() {
    // Table 5.19: QUEUED "when the command ... is enqueued", SUBMIT "when the command ...
    // that has been enqueued is submitted by the host to the device", START "when the
    // command ... starts execution on the device", END "when the command ... has finished
    // execution on the device": in that order.
    let fx = Fixture::with(CL_QUEUE_PROFILING_ENABLE);
    let profiled = [
        Command::Read,
        Command::Write,
        Command::Copy,
        Command::ReadRect,
        Command::WriteRect,
        Command::CopyRect,
        Command::Fill,
        Command::Map,
        Command::Unmap,
        Command::NativeKernel,
    ];
    for command in profiled {
        let mut event = null_mut();
        assert_eq!(
            command.enqueue(&fx, Waits::NONE, Some(&mut event)),
            CL_SUCCESS
        );
        assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
        let times = profile(event);
        assert!(times.iter().all(|&t| t != 0), "{command:?}: {times:?}");
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{command:?}: {times:?}"
        );
        release_event(event);
    }
}

#[test]
fn profiled_command_held_by_a_user_event_reports_the_wait() {
    // The command is queued at once but starts only once its wait list completes.
    let fx = Fixture::with(CL_QUEUE_PROFILING_ENABLE | OUT_OF_ORDER);
    let gate = fx.user_event();
    let event = raise_after(fx.queue, new_flag(), &[gate]);
    std::thread::sleep(Duration::from_millis(20));
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let [queued, submit, start, end] = profile(event);
    assert!(queued <= submit && submit <= start && start <= end);
    assert!(
        start - queued >= 15_000_000,
        "started {} ns after being queued, though held for 20 ms",
        start - queued
    );
    release_event(event);
    release_event(gate);
}

#[test]
fn profiling_info_without_a_profiling_queue_is_not_available() {
    // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for
    // the command-queue".
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    let event = fx.fill(mem, 0, 1, &[]);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    for param in PROFILING {
        assert_eq!(
            api().event_profiling_info(event, param),
            Err(CL_PROFILING_INFO_NOT_AVAILABLE)
        );
    }
    release_event(event);
    release_mem(mem);
}

#[test]
fn profiling_info_of_a_user_event_is_not_available() {
    // "... or if event is a user event object."
    let fx = Fixture::with(CL_QUEUE_PROFILING_ENABLE);
    let event = fx.user_event();
    complete(event);
    for param in PROFILING {
        assert_eq!(
            api().event_profiling_info(event, param),
            Err(CL_PROFILING_INFO_NOT_AVAILABLE)
        );
    }
    release_event(event);
}

#[test]
fn profiling_info_before_completion_is_not_available() {
    // "... if the execution status of the command identified by event is not CL_COMPLETE".
    let fx = Fixture::with(CL_QUEUE_PROFILING_ENABLE | OUT_OF_ORDER);
    let gate = fx.user_event();
    let event = raise_after(fx.queue, new_flag(), &[gate]);
    for param in PROFILING {
        assert_eq!(
            api().event_profiling_info(event, param),
            Err(CL_PROFILING_INFO_NOT_AVAILABLE)
        );
    }
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    profile(event);
    release_event(event);
    release_event(gate);
}

#[test]
fn profiling_info_unknown_param_or_too_small_buffer_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not valid, or if size in bytes specified by
    // param_value_size is < size of return type ... and param_value is not NULL."
    let fx = Fixture::with(CL_QUEUE_PROFILING_ENABLE);
    let mem = fx.buffer(16);
    let event = fx.fill(mem, 0, 1, &[]);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    for param in [0, CL_PROFILING_COMMAND_END + 1, CL_EVENT_CONTEXT] {
        assert_eq!(
            api().event_profiling_info(event, param),
            Err(CL_INVALID_VALUE),
            "param {param:#x}"
        );
    }
    let api = api();
    let query = entry!(api.clGetEventProfilingInfo);
    let mut value = 0u32;
    // SAFETY: `value` holds 4 bytes, the size passed (less than a cl_ulong).
    let status = unsafe {
        query(
            event,
            CL_PROFILING_COMMAND_START,
            4,
            (&raw mut value).cast(),
            null_mut(),
        )
    };
    assert_eq!(status, CL_INVALID_VALUE);
    release_event(event);
    release_mem(mem);
}

// Markers and barriers

#[test]
fn marker_without_a_wait_list_completes_after_every_earlier_command() {
    // clEnqueueMarkerWithWaitList: "If event_wait_list is NULL, then this particular command
    // waits until all previous enqueued commands to command_queue have completed."
    for properties in [0, OUT_OF_ORDER] {
        let fx = Fixture::with(properties);
        let gate = fx.user_event();
        let held = raise_after(fx.queue, new_flag(), &[gate]);
        let free_ran = new_flag();
        let free = raise_after(fx.queue, free_ran, &[]);
        let mut marker = null_mut();
        assert_eq!(
            api().enqueue_marker_with_wait_list(fx.queue, Waits::NONE, Some(&mut marker)),
            CL_SUCCESS
        );
        assert_eq!(api().flush(fx.queue), CL_SUCCESS);
        settle();
        assert_ne!(status(marker), CL_COMPLETE, "properties {properties:#x}");
        complete(gate);
        assert_eq!(api().wait_for_events(&[marker]), CL_SUCCESS);
        assert_eq!(status(held), CL_COMPLETE);
        assert_eq!(status(free), CL_COMPLETE);
        for event in [gate, held, free, marker] {
            release_event(event);
        }
    }
}

#[test]
fn marker_with_a_wait_list_waits_for_the_list_only() {
    // "enqueues a marker command which waits for either a list of events to complete, or if
    // the list is empty it waits for all commands previously enqueued" — on an out-of-order
    // queue, a command outside the list does not hold the marker.
    let fx = Fixture::with(OUT_OF_ORDER);
    let (gate_a, gate_b) = (fx.user_event(), fx.user_event());
    let a = raise_after(fx.queue, new_flag(), &[gate_a]);
    let b = raise_after(fx.queue, new_flag(), &[gate_b]);
    let mut marker = null_mut();
    assert_eq!(
        api().enqueue_marker_with_wait_list(fx.queue, Waits::on(&[b]), Some(&mut marker)),
        CL_SUCCESS
    );
    complete(gate_b);
    assert!(
        eventually(Duration::from_secs(10), || status(marker) == CL_COMPLETE),
        "the marker waited for a command outside its list"
    );
    assert_ne!(status(a), CL_COMPLETE);
    complete(gate_a);
    assert_eq!(api().wait_for_events(&[a]), CL_SUCCESS);
    for event in [gate_a, gate_b, a, b, marker] {
        release_event(event);
    }
}

#[test]
fn barrier_on_an_out_of_order_queue_orders_later_commands_after_earlier_ones() {
    // clEnqueueBarrierWithWaitList: "If event_wait_list is NULL, then this particular command
    // waits until all previous enqueued commands to command_queue have completed. ... This
    // command blocks command execution, that is, any following commands enqueued after it
    // do not execute until it completes."
    let fx = Fixture::with(OUT_OF_ORDER);
    let log = new_log();
    let gate = fx.user_event();
    let early = log_after(fx.queue, log, 1, &[gate]);
    let mut barrier = null_mut();
    assert_eq!(
        api().enqueue_barrier_with_wait_list(fx.queue, Waits::NONE, Some(&mut barrier)),
        CL_SUCCESS
    );
    let late = log_after(fx.queue, log, 2, &[]);
    assert_eq!(api().flush(fx.queue), CL_SUCCESS);
    settle();
    assert!(
        logged(log).is_empty(),
        "ran past the barrier: {:?}",
        logged(log)
    );
    assert_ne!(status(barrier), CL_COMPLETE);
    complete(gate);
    assert_eq!(api().wait_for_events(&[late]), CL_SUCCESS);
    assert_eq!(logged(log), [1, 2]);
    assert_eq!(status(barrier), CL_COMPLETE);
    for event in [gate, early, barrier, late] {
        release_event(event);
    }
}

#[test]
fn barrier_with_a_wait_list_waits_for_the_list_only() {
    // "enqueues a barrier command which waits for either a list of events to complete, or if
    // the list is empty it waits for all commands previously enqueued in command_queue to
    // complete before it completes": with a list, a command outside it does not hold the
    // barrier; later commands still wait for the barrier.
    let _watchdog = watchdog("barrier with a wait list");
    let fx = Fixture::with(OUT_OF_ORDER);
    let log = new_log();
    let (gate_a, gate_b) = (fx.user_event(), fx.user_event());
    let a = log_after(fx.queue, log, 1, &[gate_a]);
    let b = log_after(fx.queue, log, 2, &[gate_b]);
    let mut barrier = null_mut();
    assert_eq!(
        api().enqueue_barrier_with_wait_list(fx.queue, Waits::on(&[b]), Some(&mut barrier)),
        CL_SUCCESS
    );
    let late = log_after(fx.queue, log, 3, &[]);
    assert_eq!(api().flush(fx.queue), CL_SUCCESS);
    settle();
    assert!(
        logged(log).is_empty(),
        "ran past the barrier: {:?}",
        logged(log)
    );
    complete(gate_b);
    let barrier_done = eventually(Duration::from_secs(2), || status(barrier) == CL_COMPLETE);
    // Release everything before judging, so that a failure leaves nothing waiting.
    complete(gate_a);
    assert_eq!(api().wait_for_events(&[a, late]), CL_SUCCESS);
    assert!(
        barrier_done,
        "the barrier waited for a command outside its wait list"
    );
    let order = logged(log);
    assert_eq!(order.len(), 3);
    let position = |id| order.iter().position(|&x| x == id).unwrap();
    assert!(position(2) < position(3), "{order:?}");
    for event in [gate_a, gate_b, a, b, barrier, late] {
        release_event(event);
    }
}

#[test]
fn opencl_1_1_marker_waits_for_every_earlier_command() {
    // OpenCL 1.1 clEnqueueMarker: "The marker command is not completed until all commands
    // enqueued before it have completed."
    let fx = Fixture::with(OUT_OF_ORDER);
    let gate = fx.user_event();
    let held = raise_after(fx.queue, new_flag(), &[gate]);
    let mut marker = null_mut();
    assert_eq!(
        api().enqueue_marker(fx.queue, Some(&mut marker)),
        CL_SUCCESS
    );
    settle();
    assert_ne!(status(marker), CL_COMPLETE);
    complete(gate);
    assert_eq!(api().wait_for_events(&[marker]), CL_SUCCESS);
    assert_eq!(status(held), CL_COMPLETE);
    for event in [gate, held, marker] {
        release_event(event);
    }
}

#[test]
fn opencl_1_1_marker_without_an_event_is_invalid_value() {
    // OpenCL 1.1 clEnqueueMarker: "CL_INVALID_VALUE if event is a NULL value."
    let fx = Fixture::new();
    assert_eq!(api().enqueue_marker(fx.queue, None), CL_INVALID_VALUE);
}

#[test]
fn opencl_1_1_barrier_orders_an_out_of_order_queue() {
    // OpenCL 1.1 clEnqueueBarrier: "a synchronization point that ensures that all queued
    // commands in command_queue have finished execution before the next batch of commands
    // can begin execution."
    let fx = Fixture::with(OUT_OF_ORDER);
    let log = new_log();
    let gate = fx.user_event();
    let early = log_after(fx.queue, log, 1, &[gate]);
    assert_eq!(api().enqueue_barrier(fx.queue), CL_SUCCESS);
    let late = log_after(fx.queue, log, 2, &[]);
    assert_eq!(api().flush(fx.queue), CL_SUCCESS);
    settle();
    assert!(
        logged(log).is_empty(),
        "ran past the barrier: {:?}",
        logged(log)
    );
    complete(gate);
    assert_eq!(api().wait_for_events(&[late]), CL_SUCCESS);
    assert_eq!(logged(log), [1, 2]);
    for event in [gate, early, late] {
        release_event(event);
    }
}

#[test]
fn opencl_1_1_wait_for_events_holds_back_later_commands() {
    // OpenCL 1.1 clEnqueueWaitForEvents: "Enqueues a wait for a specific event or a list of
    // events to complete before any future commands queued in the command-queue are
    // executed." On an out-of-order queue too.
    let _watchdog = watchdog("clEnqueueWaitForEvents");
    for properties in [0, OUT_OF_ORDER] {
        let fx = Fixture::with(properties);
        let gate = fx.user_event();
        assert_eq!(
            api().enqueue_wait_for_events(fx.queue, 1, Some(&[gate])),
            CL_SUCCESS
        );
        let ran = new_flag();
        let later = raise_after(fx.queue, ran, &[]);
        assert_eq!(api().flush(fx.queue), CL_SUCCESS);
        settle();
        let early = ran.load(Ordering::SeqCst);
        complete(gate);
        assert_eq!(api().wait_for_events(&[later]), CL_SUCCESS);
        assert!(
            !early,
            "a later command ran before the awaited event (properties {properties:#x})"
        );
        release_event(gate);
        release_event(later);
    }
}

#[test]
fn opencl_1_1_wait_for_events_errors() {
    // OpenCL 1.1 clEnqueueWaitForEvents: "CL_INVALID_VALUE if num_events is zero or
    // event_list is NULL"; "CL_INVALID_CONTEXT if the context associated with command_queue
    // and events in event_list are not the same"; "CL_INVALID_EVENT if event objects
    // specified in event_list are not valid events."
    let fx = Fixture::new();
    let other = Fixture::new();
    let (mine, theirs) = (fx.user_event(), other.user_event());
    complete(mine);
    complete(theirs);
    let mem = fx.buffer(16);
    let api = api();
    assert_eq!(
        api.enqueue_wait_for_events(fx.queue, 0, Some(&[mine])),
        CL_INVALID_VALUE
    );
    assert_eq!(
        api.enqueue_wait_for_events(fx.queue, 1, None),
        CL_INVALID_VALUE
    );
    assert_eq!(
        api.enqueue_wait_for_events(fx.queue, 2, Some(&[mine, theirs])),
        CL_INVALID_CONTEXT
    );
    assert_eq!(
        api.enqueue_wait_for_events(fx.queue, 2, Some(&[mine, mem])),
        CL_INVALID_EVENT
    );
    release_mem(mem);
    release_event(mine);
    release_event(theirs);
}

#[test]
fn marker_and_barrier_calls_on_a_non_queue_are_invalid_command_queue() {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue."
    let fx = Fixture::new();
    let api = api();
    let bad = fx.context;
    let mut event = null_mut();
    assert_eq!(
        api.enqueue_marker_with_wait_list(bad, Waits::NONE, None),
        CL_INVALID_COMMAND_QUEUE
    );
    assert_eq!(
        api.enqueue_barrier_with_wait_list(bad, Waits::NONE, None),
        CL_INVALID_COMMAND_QUEUE
    );
    assert_eq!(
        api.enqueue_marker(bad, Some(&mut event)),
        CL_INVALID_COMMAND_QUEUE
    );
    assert_eq!(api.enqueue_barrier(bad), CL_INVALID_COMMAND_QUEUE);
    let done = fx.user_event();
    complete(done);
    assert_eq!(
        api.enqueue_wait_for_events(bad, 1, Some(&[done])),
        CL_INVALID_COMMAND_QUEUE
    );
    release_event(done);
}

// Out-of-order execution

#[test]
fn out_of_order_commands_complete_in_the_order_their_user_events_are_set() {
    // §5.11: "If the CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE property of a command-queue is
    // set, then there is no guarantee that kernel A will finish before kernel B starts
    // execution": commands that do not wait for each other run as their wait lists allow.
    let fx = Fixture::with(OUT_OF_ORDER);
    let log = new_log();
    let (gate_1, gate_2) = (fx.user_event(), fx.user_event());
    let first = log_after(fx.queue, log, 1, &[gate_1]);
    let second = log_after(fx.queue, log, 2, &[gate_2]);
    complete(gate_2);
    assert_eq!(api().wait_for_events(&[second]), CL_SUCCESS);
    assert_ne!(status(first), CL_COMPLETE);
    assert_eq!(logged(log), [2]);
    complete(gate_1);
    assert_eq!(api().wait_for_events(&[first]), CL_SUCCESS);
    assert_eq!(logged(log), [2, 1]);
    for event in [gate_1, gate_2, first, second] {
        release_event(event);
    }
}

// clEnqueueNativeKernel

#[test]
fn device_can_execute_native_kernels() {
    // CL_DEVICE_EXECUTION_CAPABILITIES: "CL_EXEC_NATIVE_KERNEL – The OpenCL device can
    // execute native kernels."
    let capabilities = api().device_ulong(device(), CL_DEVICE_EXECUTION_CAPABILITIES);
    assert_ne!(
        capabilities & CL_EXEC_NATIVE_KERNEL,
        0,
        "capabilities {capabilities:#x}"
    );
}

/// The argument block of `record_args`: a value, and where to report it.
#[repr(C)]
#[derive(Clone, Copy)]
struct ValueArgs {
    value: u64,
    seen: *const Mutex<Option<(u64, usize)>>,
}

extern "C" fn record_args(args: *mut c_void) {
    // SAFETY: the block is a copy of a `ValueArgs` whose `seen` is leaked.
    let block = unsafe { args.cast::<ValueArgs>().read_unaligned() };
    // SAFETY: as above.
    *unsafe { &*block.seen }.lock().unwrap() = Some((block.value, args as usize));
}

#[test]
fn native_kernel_receives_a_copy_of_the_argument_block() {
    // "The data pointed to by args and cb_args bytes in size will be copied and a pointer to
    // this copied region will be passed to user_func. ... Once clEnqueueNativeKernel returns,
    // the memory region pointed to by args can be reused by the application."
    let fx = Fixture::with(OUT_OF_ORDER);
    let seen: &'static Mutex<Option<(u64, usize)>> = Box::leak(Box::new(Mutex::new(None)));
    let gate = fx.user_event();
    let mut args = ValueArgs {
        value: 0x0123_4567_89ab_cdef,
        seen,
    };
    let mut event = null_mut();
    // SAFETY: the block is read during the call only; `record_args` reads a leaked object.
    let status = unsafe {
        api().enqueue_native_kernel(
            fx.queue,
            Some(record_args),
            (&raw mut args).cast(),
            size_of::<ValueArgs>(),
            0,
            std::ptr::null(),
            null_mut(),
            Waits::on(&[gate]),
            Some(&mut event),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    args.value = 7;
    complete(gate);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let (value, address) = seen.lock().unwrap().expect("the native kernel ran");
    assert_eq!(value, 0x0123_4567_89ab_cdef);
    assert_ne!(address, (&raw const args) as usize, "not a copy");
    release_event(event);
    release_event(gate);
}

/// The argument block of `scale_into`: two buffers (handles replaced by pointers) and a
/// length.
#[repr(C)]
#[derive(Clone, Copy)]
struct TwoBuffers {
    src: *mut c_void,
    count: usize,
    dst: *mut c_void,
}

extern "C" fn scale_into(args: *mut c_void) {
    // SAFETY: the block is a copy of a `TwoBuffers` whose handles the implementation
    // replaced with pointers to buffers of `count` u32s.
    unsafe {
        let block = args.cast::<TwoBuffers>().read_unaligned();
        let src = block.src.cast::<u32>();
        let dst = block.dst.cast::<u32>();
        for i in 0..block.count {
            dst.add(i)
                .write_unaligned(src.add(i).read_unaligned() * 3 + 1);
        }
    }
}

#[test]
fn native_kernel_memory_objects_are_replaced_by_pointers_to_their_memory() {
    // "args_mem_loc is a pointer to appropriate locations that args points to where memory
    // object handles (cl_mem values) are stored. Before the user function is executed, the
    // memory object handles are replaced by pointers to global memory."
    let fx = Fixture::new();
    let input: Vec<u32> = (0..256).map(|i| i * 17 + 3).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let src = api().create_buffer_from(fx.context, 0, &bytes).unwrap();
    let dst = fx.buffer(bytes.len());
    let mut args = TwoBuffers {
        src,
        count: input.len(),
        dst,
    };
    let mem_list = [src, dst];
    let mut locations: [*const c_void; 2] =
        [(&raw const args.src).cast(), (&raw const args.dst).cast()];
    let mut event = null_mut();
    // SAFETY: the block holds the two handles at the locations given; `scale_into` writes
    // `count` u32s through the second pointer, which the buffer holds.
    let status = unsafe {
        api().enqueue_native_kernel(
            fx.queue,
            Some(scale_into),
            (&raw mut args).cast(),
            size_of::<TwoBuffers>(),
            2,
            mem_list.as_ptr(),
            locations.as_mut_ptr(),
            Waits::NONE,
            Some(&mut event),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let out = fx.read(dst, bytes.len());
    let values: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    let expected: Vec<u32> = input.iter().map(|v| v * 3 + 1).collect();
    assert_eq!(values, expected);
    // The application's block still holds the handles.
    assert_eq!(args.src, src);
    release_event(event);
    release_mem(src);
    release_mem(dst);
}

/// Counts calls of `count_call`.
static NO_ARGS_CALLS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_call(_args: *mut c_void) {
    NO_ARGS_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn native_kernel_without_arguments_runs() {
    // args NULL with cb_args 0 and no memory objects breaks none of the rules.
    let fx = Fixture::new();
    let mut event = null_mut();
    // SAFETY: no argument block; `count_call` touches a static only.
    let status = unsafe {
        api().enqueue_native_kernel(
            fx.queue,
            Some(count_call),
            null_mut(),
            0,
            0,
            std::ptr::null(),
            null_mut(),
            Waits::NONE,
            Some(&mut event),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(NO_ARGS_CALLS.load(Ordering::SeqCst), 1);
    release_event(event);
}

/// One `clEnqueueNativeKernel` call of the argument tests, built from pieces: the argument
/// block (when `with_args`) is [`NativeBlock`], whose memory-object slot every location
/// points to. The functions the tests pass do not read the block.
#[derive(Clone, Copy)]
struct NativeCall<'a> {
    func: NativeKernel,
    with_args: bool,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: Option<&'a [cl_mem]>,
    with_locations: bool,
}

#[repr(C)]
struct NativeBlock {
    mem: *mut c_void,
    value: u64,
}

extern "C" fn do_nothing(_args: *mut c_void) {}

impl<'a> NativeCall<'a> {
    /// A correct call: a block of one memory object, `mem_list` holding it.
    fn valid(mem_list: &'a [cl_mem]) -> NativeCall<'a> {
        NativeCall {
            func: Some(do_nothing),
            with_args: true,
            cb_args: size_of::<NativeBlock>(),
            num_mem_objects: 1,
            mem_list: Some(mem_list),
            with_locations: true,
        }
    }

    /// The call's status (the queue is finished before returning).
    fn status(self, fx: &Fixture) -> cl_int {
        let mut block = NativeBlock {
            mem: null_mut(),
            value: 0,
        };
        let mut locations: [*const c_void; 2] = [(&raw const block.mem).cast(); 2];
        assert!(self.cb_args <= size_of::<NativeBlock>());
        assert!(self.num_mem_objects as usize <= locations.len());
        if let Some(list) = self.mem_list {
            assert!(self.num_mem_objects as usize <= list.len());
        }
        let args: *mut c_void = if self.with_args {
            (&raw mut block).cast()
        } else {
            null_mut()
        };
        // SAFETY: each pointer is NULL or valid for what the counts describe (checked above:
        // at most two memory objects, each location inside the block, `cb_args` at most the
        // block's size); the function does not read the block.
        let status = unsafe {
            api().enqueue_native_kernel(
                fx.queue,
                self.func,
                args,
                self.cb_args,
                self.num_mem_objects,
                self.mem_list.map_or(std::ptr::null(), <[cl_mem]>::as_ptr),
                if self.with_locations {
                    locations.as_mut_ptr()
                } else {
                    null_mut()
                },
                Waits::NONE,
                None,
            )
        };
        assert_eq!(api().finish(fx.queue), CL_SUCCESS);
        status
    }
}

#[test]
fn native_kernel_argument_errors_are_invalid_value() {
    let fx = Fixture::new();
    let mem = fx.buffer(64);
    let list = [mem];
    let valid = NativeCall::valid(&list);
    let cases = [
        // "CL_INVALID_VALUE if user_func is NULL."
        (
            "user_func NULL",
            NativeCall {
                func: None,
                ..valid
            },
        ),
        // "CL_INVALID_VALUE if args is a NULL value and cb_args > 0, or if args is a NULL
        // value and num_mem_objects > 0."
        (
            "args NULL, cb_args > 0",
            NativeCall {
                with_args: false,
                num_mem_objects: 0,
                mem_list: None,
                with_locations: false,
                ..valid
            },
        ),
        (
            "args NULL, memory objects",
            NativeCall {
                with_args: false,
                cb_args: 0,
                ..valid
            },
        ),
        // "CL_INVALID_VALUE if args is not NULL and cb_args is 0."
        (
            "cb_args 0",
            NativeCall {
                cb_args: 0,
                num_mem_objects: 0,
                mem_list: None,
                with_locations: false,
                ..valid
            },
        ),
        // "CL_INVALID_VALUE if num_mem_objects > 0 and mem_list or args_mem_loc are NULL."
        (
            "mem_list NULL",
            NativeCall {
                mem_list: None,
                ..valid
            },
        ),
        (
            "args_mem_loc NULL",
            NativeCall {
                with_locations: false,
                ..valid
            },
        ),
        // "CL_INVALID_VALUE if num_mem_objects = 0 and mem_list or args_mem_loc are not
        // NULL."
        (
            "mem_list without a count",
            NativeCall {
                num_mem_objects: 0,
                with_locations: false,
                ..valid
            },
        ),
        (
            "args_mem_loc without a count",
            NativeCall {
                num_mem_objects: 0,
                mem_list: None,
                ..valid
            },
        ),
    ];
    for (what, call) in cases {
        assert_eq!(call.status(&fx), CL_INVALID_VALUE, "{what}");
    }
    // The same block, correctly described, is accepted.
    assert_eq!(valid.status(&fx), CL_SUCCESS);
    release_mem(mem);
}

#[test]
fn native_kernel_with_a_non_buffer_in_mem_list_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if one or more memory objects specified in mem_list are not
    // valid or are not buffer objects."
    let fx = Fixture::new();
    for bad in [fx.queue, fx.context] {
        let list = [bad];
        assert_eq!(NativeCall::valid(&list).status(&fx), CL_INVALID_MEM_OBJECT);
    }
}

#[test]
fn native_kernel_accepts_null_in_mem_list() {
    // "mem_list is a list of valid buffer objects, if num_mem_objects > 0. The buffer object
    // values specified in mem_list are memory object handles (cl_mem values) returned by
    // clCreateBuffer or NULL."
    let fx = Fixture::new();
    let list = [null_mut()];
    assert_eq!(NativeCall::valid(&list).status(&fx), CL_SUCCESS);
}

#[test]
fn native_kernel_on_a_non_queue_is_invalid_command_queue() {
    let fx = Fixture::new();
    let status = enqueue_native(
        fx.context,
        raise_flag,
        FlagArgs { flag: new_flag() },
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_INVALID_COMMAND_QUEUE);
}

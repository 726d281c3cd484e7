//! The `profiling` suite (5.9, clGetEventProfilingInfo) on a profiling queue: kernel
//! launches, transfers, copies, maps and markers report four non-zero, ordered times; a
//! kernel that runs longer reports a longer start-to-end span; events of queues without
//! profiling, and user events, answer CL_PROFILING_INFO_NOT_AVAILABLE.

use std::ptr::null_mut;

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

const TIMES: [cl_profiling_info; 4] = [
    CL_PROFILING_COMMAND_QUEUED,
    CL_PROFILING_COMMAND_SUBMIT,
    CL_PROFILING_COMMAND_START,
    CL_PROFILING_COMMAND_END,
];

fn times(event: cl_event) -> Result<[u64; 4], cl_int> {
    let mut out = [0u64; 4];
    for (slot, param) in out.iter_mut().zip(TIMES) {
        *slot = scalar(&api().event_profiling_info(event, param)?);
    }
    Ok(out)
}

/// A profiling queue on the fixture's context (released by the caller).
fn profiling_queue(fx: &Fixture) -> cl_command_queue {
    api()
        .create_command_queue(fx.context, api().device(), CL_QUEUE_PROFILING_ENABLE)
        .expect("clCreateCommandQueue")
}

/// Runs `k` over `n` items on `queue` and returns the launch's times.
fn timed_launch(queue: cl_command_queue, k: &Kernel, n: usize) -> [u64; 4] {
    let mut event = null_mut();
    let status = api().enqueue_nd_range_kernel(
        queue,
        k.kernel,
        1,
        None,
        Some(&[n]),
        None,
        Waits::NONE,
        Some(&mut event),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let t = times(event).expect("profiling info");
    assert_eq!(api().release_event(event), CL_SUCCESS);
    t
}

#[test]
fn kernel_launches_report_ordered_times_that_grow_with_the_work() {
    // "CL_PROFILING_COMMAND_QUEUED ... SUBMIT ... START ... END: a 64-bit value that
    // describes the current device time counter in nanoseconds"; a kernel doing 64 times
    // the work spans a longer start-to-end interval.
    let fx = Fixture::new();
    let queue = profiling_queue(&fx);
    let k = fx.kernel(
        "kernel void spin(global float *out, int rounds) {
            float x = get_global_id(0);
            for (int i = 0; i < rounds; i++) x = x * 0.999f + 1.0f;
            out[get_global_id(0)] = x;
        }",
        c"spin",
        c"",
    );
    let out = fx.filled(0u32, 4096);
    k.mem(0, &out).arg(1, 16i32);
    // The first launch waits for the kernel's vectorized row, which the build left to
    // compile after it returned (`late.rs` in the compiler): its start-to-end holds that
    // compile (2-16 ms with a debug build), not only the work compared here.
    timed_launch(queue, &k, 4096);
    let short = timed_launch(queue, &k, 4096);
    k.arg(1, 16 * 4096i32);
    let long = timed_launch(queue, &k, 4096);
    for t in [short, long] {
        assert!(t.iter().all(|&v| v != 0), "{t:?}");
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
    }
    let (short_span, long_span) = (short[3] - short[2], long[3] - long[2]);
    assert!(
        long_span > 8 * short_span.max(1),
        "start-to-end: {short_span} ns for 16 rounds, {long_span} ns for 65536 rounds"
    );
    assert!(
        long[0] >= short[3],
        "the second launch was queued after the first ended"
    );
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
}

#[test]
fn transfers_copies_maps_and_markers_are_profiled() {
    let fx = Fixture::new();
    let queue = profiling_queue(&fx);
    let (a, b) = (fx.filled(1u32, 1 << 16), fx.filled(0u32, 1 << 16));
    let mut host = vec![0u8; 1 << 18];
    let api = api();
    let mut events = Vec::new();
    let mut event = null_mut();
    assert_eq!(
        api.read_buffer(queue, a.0, 0, &mut host, Waits::NONE, Some(&mut event)),
        CL_SUCCESS
    );
    events.push(("read", event));
    let copy = entry!(api.clEnqueueCopyBuffer);
    let mut event = null_mut();
    // SAFETY: both buffers hold 256 KiB; `event` is a valid out-parameter.
    let status = unsafe {
        copy(
            queue,
            a.0,
            b.0,
            0,
            0,
            1 << 18,
            0,
            std::ptr::null(),
            &mut event,
        )
    };
    assert_eq!(status, CL_SUCCESS);
    events.push(("copy", event));
    let marker = entry!(api.clEnqueueMarkerWithWaitList);
    let mut event = null_mut();
    // SAFETY: an empty wait list and a valid out-parameter.
    let status = unsafe { marker(queue, 0, std::ptr::null(), &mut event) };
    assert_eq!(status, CL_SUCCESS);
    events.push(("marker", event));
    for (what, event) in events {
        assert_eq!(api.wait_for_events(&[event]), CL_SUCCESS);
        let t = times(event).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            t.iter().all(|&v| v != 0) && t.windows(2).all(|w| w[0] <= w[1]),
            "{what}: {t:?}"
        );
        assert_eq!(api.release_event(event), CL_SUCCESS);
    }
    assert_eq!(api.release_command_queue(queue), CL_SUCCESS);
}

#[test]
fn profiling_info_is_not_available_without_a_profiling_queue_or_for_user_events() {
    // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for
    // the command-queue, if the execution status of the command identified by event is not
    // CL_COMPLETE or if event is a user event object."
    let fx = Fixture::new();
    let k = fx.kernel("kernel void k(global int *o) { o[0] = 1; }", c"k", c"");
    let out = fx.filled(0i32, 1);
    k.mem(0, &out);
    let mut event = null_mut();
    let status = api().enqueue_nd_range_kernel(
        fx.queue,
        k.kernel,
        1,
        None,
        Some(&[1]),
        None,
        Waits::NONE,
        Some(&mut event),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(times(event), Err(CL_PROFILING_INFO_NOT_AVAILABLE));
    assert_eq!(api().release_event(event), CL_SUCCESS);
    let user = api()
        .create_user_event(fx.context)
        .expect("clCreateUserEvent");
    assert_eq!(times(user), Err(CL_PROFILING_INFO_NOT_AVAILABLE));
    assert_eq!(api().release_event(user), CL_SUCCESS);
}

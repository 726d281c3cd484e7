//! Kernel faults become errors (x86-64 Linux): a kernel that writes far out of bounds,
//! stores through NULL, overflows its stack, writes past the end of its buffer or (with
//! `CLIFT_KERNEL_TIMEOUT`) never ends fails its event with `CL_OUT_OF_RESOURCES`, tells the
//! context's callback which kernel and address, and the process, the queue and every other
//! command go on. Faults outside JIT code still reach the host's own handler.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::ffi::{CStr, c_void};
use std::ptr::null_mut;

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

/// The status of a kernel stopped by a fault (documented in docs/CONFORMANCE.md).
const FAULT_STATUS: cl_int = CL_OUT_OF_RESOURCES;

/// Enqueues `kernel` over `global` items and waits for it; returns its event's status.
fn run_status(fx: &Fixture, kernel: &Kernel, global: usize) -> cl_int {
    run_status_in_groups(fx, kernel, global, None)
}

/// [`run_status`] with a local size (`None`: the driver's choice).
fn run_status_in_groups(
    fx: &Fixture,
    kernel: &Kernel,
    global: usize,
    local: Option<usize>,
) -> cl_int {
    let mut event = null_mut();
    let local = local.map(|l| [l]);
    let status = api().enqueue_nd_range_kernel(
        fx.queue,
        kernel.kernel,
        1,
        None,
        Some(&[global]),
        local.as_ref().map(|l| &l[..]),
        Waits::NONE,
        Some(&mut event),
    );
    assert_eq!(status, CL_SUCCESS, "clEnqueueNDRangeKernel");
    let waited = api().wait_for_events(&[event]);
    let status = api().event_status(event);
    assert_eq!(api().release_event(event), CL_SUCCESS);
    if status < 0 {
        // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the
        // events in event_list is a negative integer value."
        assert_eq!(waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    status
}

const SQUARES: &str = "kernel void squares(global int *out) {
    int i = get_global_id(0);
    for (int k = 0; k < 3; k++) out[i] = i * i;
}";

/// The same queue then runs a correct kernel correctly, and a read on it succeeds.
fn queue_still_works(fx: &Fixture) {
    let out = fx.filled(-1i32, 1000);
    let k = fx.kernel(SQUARES, c"squares", c"");
    k.mem(0, &out);
    assert_eq!(run_status(fx, &k, 1000), CL_COMPLETE);
    let expected: Vec<i32> = (0..1000).map(|i| i * i).collect();
    assert_same(
        &fx.read::<i32>(&out, 1000),
        &expected,
        "squares after a fault",
    );
    // A loop around barriers (its back edge is the work-group function's).
    let k = fx.kernel(BARRIER_LOOP, c"rounds", c"");
    k.mem(0, &out).local(1, 16 * 4);
    let mut event = null_mut();
    let status = api().enqueue_nd_range_kernel(
        fx.queue,
        k.kernel,
        1,
        None,
        Some(&[64]),
        Some(&[16]),
        Waits::NONE,
        Some(&mut event),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(api().release_event(event), CL_SUCCESS);
    let expected: Vec<i32> = (0..64).map(|i| 6 + 4 * ((i % 16 + 1) % 16)).collect();
    assert_same(
        &fx.read::<i32>(&out, 64),
        &expected,
        "barrier loop after a fault",
    );
}

const BARRIER_LOOP: &str = "kernel void rounds(global int *out, local int *tmp) {
    int l = get_local_id(0), acc = 0;
    for (int r = 0; r < 4; r++) {
        tmp[l] = r + l;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += tmp[(l + 1) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc;
}";

/// The address a kernel sees for `buffer`.
fn device_address(fx: &Fixture, buffer: &Mem) -> u64 {
    let out = fx.filled(0u64, 1);
    let k = fx.kernel(
        "kernel void where(global int *p, global ulong *out) { out[0] = (ulong)p; }",
        c"where",
        c"",
    );
    k.mem(0, buffer).mem(1, &out);
    fx.run(&k, None, &[1], None);
    fx.read::<u64>(&out, 1)[0]
}

/// Builds `source`, runs its kernel `name` (one buffer argument of `len` ints) over
/// `global` items, expects the fault status and a message naming the kernel and what
/// `what` says given the buffer's address; then checks the queue goes on.
fn expect_fault(
    tag: usize,
    source: &str,
    name: &CStr,
    len: usize,
    global: usize,
    what: impl Fn(u64) -> String,
) {
    let fx = recording_fixture(tag);
    let buffer = fx.filled(0i32, len);
    let what = what(device_address(&fx, &buffer));
    let k = fx.kernel(source, name, c"");
    k.mem(0, &buffer);
    assert_eq!(run_status(&fx, &k, global), FAULT_STATUS);
    let messages = notify_messages(tag);
    let name = name.to_str().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m.contains(&format!("kernel '{name}'")) && m.contains(&what)),
        "no message naming '{name}' and '{what}': {messages:?}"
    );
    queue_still_works(&fx);
    assert_eq!(api().finish(fx.queue), CL_SUCCESS);
}

#[test]
fn a_far_out_of_bounds_write_fails_its_event() {
    // One TiB below the buffer: nothing is mapped there. The message names the address
    // of the first store, work-item 0's.
    expect_fault(
        1,
        "kernel void far(global int *p) { if (get_global_id(0) == 0) p[-(1L << 38)] = 1; }",
        c"far",
        16,
        16,
        |base| {
            format!(
                "invalid memory access at address {:#x} (SIGSEGV",
                base - (1 << 40)
            )
        },
    );
}

#[test]
fn a_store_through_null_fails_its_event_and_names_address_zero() {
    expect_fault(
        2,
        "kernel void null_store(global int *p) {
            global int *q = 0;
            if (get_global_id(0) == 0) q[0] = p[0];
        }",
        c"null_store",
        4,
        4,
        |_| "invalid memory access at address 0x0 (SIGSEGV".to_string(),
    );
}

#[test]
fn a_stack_overflow_fails_its_event() {
    // Each helper keeps ~1 MB of private memory (within the device's per-kernel private
    // limit), and nine nested calls need more than the worker's 8 MiB stack: the stack
    // probes reach the guard page below it.
    let mut source = String::new();
    source.push_str("int f9(int x) { int a[250000]; a[x] = x; return a[x / 2]; }\n");
    for i in (1..9).rev() {
        source.push_str(&format!(
            "int f{i}(int x) {{ int a[250000]; a[x] = x; return a[x / 2] + f{}(x + 1); }}\n",
            i + 1
        ));
    }
    source.push_str(
        "kernel void deep(global int *p) { p[get_global_id(0)] = f1(get_global_id(0)); }\n",
    );
    expect_fault(3, &source, c"deep", 2, 2, |_| "stack overflow".to_string());
}

#[test]
fn a_write_one_element_past_a_buffer_faults_on_its_guard_page() {
    // 1024 ints: the buffer ends exactly at its guard page.
    expect_fault(
        4,
        "kernel void past(global int *p) { p[get_global_id(0)] = 7; }",
        c"past",
        1024,
        1025,
        |base| {
            format!(
                "invalid memory access at address {:#x} (SIGSEGV",
                base + 4096
            )
        },
    );
}

#[test]
fn a_write_a_few_elements_past_an_odd_sized_buffer_faults_and_the_heap_is_intact() {
    // 1000 ints end 96 bytes before the guard (the base keeps its 128-byte alignment):
    // 64 elements past the end reach it.
    expect_fault(
        5,
        "kernel void few_past(global int *p) { p[get_global_id(0)] = 7; }",
        c"few_past",
        1000,
        1064,
        |base| {
            format!(
                "invalid memory access at address {:#x} (SIGSEGV",
                base + 4096
            )
        },
    );
    // The host heap still works (it used to say "corrupted size vs. prev_size").
    let v: Vec<Vec<u8>> = (0..1000).map(|i| vec![i as u8; i]).collect();
    assert_eq!(v[999].len(), 999);
}

#[test]
fn a_command_waiting_for_a_faulted_kernel_is_exec_status_error_and_others_run() {
    let fx = recording_fixture(6);
    let buffer = fx.filled(0i32, 4);
    let k = fx.kernel(
        "kernel void null_store2(global int *p) { global int *q = 0; q[get_global_id(0)] = 1; }",
        c"null_store2",
        c"",
    );
    k.mem(0, &buffer);
    let mut faulted = null_mut();
    assert_eq!(
        api().enqueue_nd_range_kernel(
            fx.queue,
            k.kernel,
            1,
            None,
            Some(&[4]),
            None,
            Waits::NONE,
            Some(&mut faulted),
        ),
        CL_SUCCESS
    );
    // A read that waits for it fails; a kernel that does not runs.
    let mut out = [0u8; 16];
    assert_eq!(
        api().read_buffer(fx.queue, buffer.0, 0, &mut out, Waits::on(&[faulted]), None),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    assert_eq!(api().event_status(faulted), FAULT_STATUS);
    assert_eq!(api().release_event(faulted), CL_SUCCESS);
    queue_still_works(&fx);
}

#[test]
fn an_endless_kernel_is_stopped_by_the_watchdog() {
    let text = child("watchdog_child", &[("CLIFT_KERNEL_TIMEOUT", "0.5")]);
    // The message goes to stderr too.
    assert!(
        text.contains("kernel 'spin' ran past CLIFT_KERNEL_TIMEOUT=0.5 s"),
        "{text}"
    );
}

/// Run by `an_endless_kernel_is_stopped_by_the_watchdog` with a timeout of 0.5 s.
#[test]
#[ignore = "run in a child process with CLIFT_KERNEL_TIMEOUT set"]
fn watchdog_child() {
    let fx = recording_fixture(7);
    let flag = fx.filled(0i32, 2);
    let k = fx.kernel(
        "kernel void spin(global int *p) { while (p[0] != 7) p[1]++; }",
        c"spin",
        c"",
    );
    k.mem(0, &flag);
    let started = std::time::Instant::now();
    assert_eq!(run_status(&fx, &k, 4), FAULT_STATUS);
    let took = started.elapsed();
    assert!(
        took.as_secs_f64() >= 0.5 && took.as_secs_f64() < 5.0,
        "stopped after {took:?}"
    );
    assert!(
        notify_messages(7)
            .iter()
            .any(|m| m.contains("kernel 'spin' ran past CLIFT_KERNEL_TIMEOUT")),
        "{:?}",
        notify_messages(7)
    );
    // A loop around a barrier (run by the work-group function) and a goto loop stop too.
    for (source, name) in [
        (
            "kernel void spin_barrier(global int *p) {
                for (;;) { barrier(CLK_GLOBAL_MEM_FENCE); if (p[0] == 7) break; }
            }",
            c"spin_barrier",
        ),
        (
            "kernel void spin_goto(global int *p) { again: p[1]++; if (p[0] != 7) goto again; }",
            c"spin_goto",
        ),
        // A goto makes the kernel a resumable function; its loop resumes after a barrier.
        (
            "kernel void spin_resumable(global int *p) {
                if (p[1] < 0) goto out;
                while (p[0] != 7) { p[1]++; barrier(CLK_GLOBAL_MEM_FENCE); }
                out: p[1] = 0;
            }",
            c"spin_resumable",
        ),
    ] {
        let k = fx.kernel(source, name, c"");
        k.mem(0, &flag);
        assert_eq!(run_status(&fx, &k, 4), FAULT_STATUS, "{name:?}");
    }
    // Kernels with loops that end are untouched by the watchdog.
    queue_still_works(&fx);
}

#[test]
fn the_hosts_own_fault_handler_still_sees_its_faults() {
    child("host_handler_child", &[]);
}

/// How many faults the host's handler saw.
static HOST_FAULTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// The page the host protects, and its size.
static HOST_PAGE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The host's handler: counts the fault and makes its page writable, so the faulting
/// store runs again and succeeds.
extern "C" fn host_handler(_signal: i32, info: *mut libc::siginfo_t, _context: *mut c_void) {
    // SAFETY: the kernel's siginfo; `mprotect` is async-signal-safe.
    unsafe {
        let page = HOST_PAGE.load(std::sync::atomic::Ordering::SeqCst);
        let at = (*info).si_addr() as usize;
        if at >= page && at < page + 4096 {
            HOST_FAULTS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            libc::mprotect(
                page as *mut c_void,
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
            );
        } else {
            libc::abort();
        }
    }
}

/// Run by `the_hosts_own_fault_handler_still_sees_its_faults`: the host installs its
/// SIGSEGV handler first, clift installs its own at the first launch (a faulting one), and a
/// fault in the host's code still reaches the host's handler.
#[test]
#[ignore = "run in a child process: it installs a process-wide signal handler"]
fn host_handler_child() {
    // SAFETY: a fresh anonymous page, and a handler installed with valid structures.
    let page = unsafe {
        let page = libc::mmap(
            null_mut(),
            4096,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(page, libc::MAP_FAILED);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = host_handler as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGSEGV, &action, null_mut()), 0);
        page.cast::<u32>()
    };
    HOST_PAGE.store(page as usize, std::sync::atomic::Ordering::SeqCst);
    // A faulting kernel: clift handles its fault and leaves the host's handler alone.
    let fx = recording_fixture(8);
    let buffer = fx.filled(0i32, 4);
    let k = fx.kernel(
        "kernel void null_store3(global int *p) { global int *q = 0; q[get_global_id(0)] = 1; }",
        c"null_store3",
        c"",
    );
    k.mem(0, &buffer);
    assert_eq!(run_status(&fx, &k, 4), FAULT_STATUS);
    assert_eq!(HOST_FAULTS.load(std::sync::atomic::Ordering::SeqCst), 0);
    // A fault in the host's own code goes to the host's handler.
    // SAFETY: the page is mapped; the handler makes it writable when the store faults.
    unsafe { std::ptr::write_volatile(page, 42) };
    // SAFETY: as above, now writable.
    assert_eq!(unsafe { std::ptr::read_volatile(page) }, 42);
    assert_eq!(HOST_FAULTS.load(std::sync::atomic::Ordering::SeqCst), 1);
    queue_still_works(&fx);
}

/// The message names the work-group that faulted (the groups of a chunk run inside one
/// guarded call; the fault must still be pinned to its own group).
#[test]
fn a_fault_names_the_work_group_it_happened_in() {
    let fx = recording_fixture(9);
    let buffer = fx.filled(0i32, 8);
    let k = fx.kernel(
        "kernel void fifth(global int *p) {
            global int *q = 0;
            if (get_group_id(0) == 5) q[0] = p[0];
            p[get_group_id(0)] = 1;
        }",
        c"fifth",
        c"",
    );
    k.mem(0, &buffer);
    assert_eq!(run_status_in_groups(&fx, &k, 8, Some(1)), FAULT_STATUS);
    let messages = notify_messages(9);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("kernel 'fifth'") && m.contains("in work-group [5, 0, 0]")),
        "no message naming work-group [5, 0, 0]: {messages:?}"
    );
    // The groups before it ran (the launching thread runs the first groups in order).
    assert_eq!(fx.read::<i32>(&buffer, 5), [1, 1, 1, 1, 1]);
    queue_still_works(&fx);
}

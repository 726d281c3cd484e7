//! Safe mode (`-cl-clift-safe`, or `CLIFT_SAFE=1` for every build): every access through a
//! pointer or an index is bounds-checked against its object, and the first violation fails
//! the kernel's event with `CL_OUT_OF_RESOURCES` and a message naming the kernel, the
//! access's file:line:col, the address and the object. Correct kernels give the same
//! results as without it. (x86-64 Linux, where kernel faults are recovered.)
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::ffi::CStr;
use std::ptr::null_mut;

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

const SAFE: &CStr = c"-cl-clift-safe";

/// Enqueues `kernel` over `global` items (groups of `local`) and waits; returns its
/// event's status.
fn run_status(fx: &Fixture, kernel: &Kernel, global: usize, local: Option<usize>) -> cl_int {
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
    api().wait_for_events(&[event]);
    let status = api().event_status(event);
    assert_eq!(api().release_event(event), CL_SUCCESS);
    status
}

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

/// `<source>:line:col` of the first occurrence of `needle` in `source`.
fn position(source: &str, needle: &str) -> String {
    let at = source.find(needle).expect("needle in source");
    let line = source[..at].matches('\n').count() + 1;
    let column = at - source[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    format!("<source>:{line}:{column}")
}

/// Runs `kernel` (arguments set) over `global` items, expects the fault status and one
/// message containing each of `parts`; then the same queue runs a correct kernel.
fn expect_violation(
    fx: &Fixture,
    tag: usize,
    kernel: &Kernel,
    global: usize,
    local: Option<usize>,
    parts: &[String],
) {
    assert_eq!(
        run_status(fx, kernel, global, local),
        CL_OUT_OF_RESOURCES,
        "expected a violation: {parts:?}"
    );
    let messages = notify_messages(tag);
    assert!(
        messages
            .iter()
            .any(|m| parts.iter().all(|p| m.contains(p.as_str()))),
        "no message with {parts:?}: {messages:?}"
    );
    // The queue goes on.
    let out = fx.filled(-1i32, 64);
    let k = fx.kernel(
        "kernel void fine(global int *o) { o[get_global_id(0)] = 3; }",
        c"fine",
        SAFE,
    );
    k.mem(0, &out);
    assert_eq!(run_status(fx, &k, 64, None), CL_COMPLETE);
    assert_eq!(fx.read::<i32>(&out, 64), vec![3; 64]);
}

#[test]
fn a_one_element_global_write_overrun_names_its_source_line() {
    let fx = recording_fixture(1);
    // 1000 ints: the element past the end is inside the buffer's guard padding, where a
    // write does not fault without safe mode.
    let source = "kernel void past(global int *p) {\n    p[get_global_id(0)] = 7;\n}";
    let buffer = fx.filled(0i32, 1000);
    let base = device_address(&fx, &buffer);
    let k = fx.kernel(source, c"past", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        1,
        &k,
        1001,
        Some(1),
        &[
            "kernel 'past'".into(),
            format!(
                "out-of-bounds write of 4 bytes at address {:#x} ({}",
                base + 4000,
                position(source, "p[get")
            ),
            format!("at offset 4000 of argument 0 'p', an object of 4000 bytes at {base:#x}"),
        ],
    );
    // (Which elements were written first is the workers' order: the groups not started
    // when the violation stopped the launch are skipped.)
}

#[test]
fn a_one_element_global_read_overrun_is_a_read() {
    let fx = recording_fixture(2);
    let source = "kernel void shift(global const float *in, global float *out) {
    size_t i = get_global_id(0);
    out[i] = in[i + 1];
}";
    let input = fx.filled(1.0f32, 64);
    let out = fx.filled(0.0f32, 64);
    let base = device_address(&fx, &input);
    let k = fx.kernel(source, c"shift", SAFE);
    k.mem(0, &input).mem(1, &out);
    expect_violation(
        &fx,
        2,
        &k,
        64,
        None,
        &[
            format!(
                "out-of-bounds read of 4 bytes at address {:#x} ({}",
                base + 256,
                position(source, "in[i + 1]")
            ),
            "argument 0 'in', an object of 256 bytes".into(),
        ],
    );
}

#[test]
fn local_overruns_are_caught_for_arguments_and_kernel_scope_arrays() {
    let fx = recording_fixture(3);
    let source = "kernel void loc(global int *out, local int *tmp) {
    size_t l = get_local_id(0);
    tmp[l + 1] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[l];
}";
    let out = fx.filled(0i32, 32);
    let k = fx.kernel(source, c"loc", SAFE);
    k.mem(0, &out).local(1, 16 * 4);
    expect_violation(
        &fx,
        3,
        &k,
        32,
        Some(16),
        &[
            "out-of-bounds write of 4 bytes at address 0x".to_string(),
            format!("({}", position(source, "tmp[l + 1]")),
            "at offset 64 of argument 1 'tmp', an object of 64 bytes".into(),
        ],
    );
    let source = "kernel void loc2(global int *out) {
    local int tmp[16];
    size_t l = get_local_id(0);
    tmp[l] = (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[l + 1];
}";
    let k = fx.kernel(source, c"loc2", SAFE);
    k.mem(0, &out);
    expect_violation(
        &fx,
        3,
        &k,
        16,
        Some(16),
        &[
            "out-of-bounds read of 4 bytes at address 0x".to_string(),
            format!("({}", position(source, "tmp[l + 1]")),
            "at offset 64 of an object of 64 bytes".into(),
        ],
    );
}

#[test]
fn a_private_array_overrun_is_caught() {
    let fx = recording_fixture(4);
    let source = "kernel void priv(global int *out, int n) {
    int a[8];
    for (int k = 0; k < n; k++)
        a[k] = k;
    out[get_global_id(0)] = a[3];
}";
    let out = fx.filled(0i32, 4);
    let k = fx.kernel(source, c"priv", SAFE);
    k.mem(0, &out).arg(1, 8i32);
    assert_eq!(run_status(&fx, &k, 4, None), CL_COMPLETE);
    assert_eq!(fx.read::<i32>(&out, 4), vec![3; 4]);
    k.arg(1, 9i32);
    expect_violation(
        &fx,
        4,
        &k,
        4,
        None,
        &[
            "out-of-bounds write of 4 bytes at address 0x".to_string(),
            format!("({}", position(source, "a[k]")),
            "at offset 32 of an object of 32 bytes".into(),
        ],
    );
}

#[test]
fn constant_overruns_are_caught_for_arguments_and_program_scope_arrays() {
    let fx = recording_fixture(5);
    let source = "kernel void cst(constant int *c, global int *out) {
    out[get_global_id(0)] = c[get_global_id(0)];
}";
    let c = fx.buffer(&[1i32, 2, 3, 4]);
    let base = device_address(&fx, &c);
    let out = fx.filled(0i32, 5);
    let k = fx.kernel(source, c"cst", SAFE);
    k.mem(0, &c).mem(1, &out);
    expect_violation(
        &fx,
        5,
        &k,
        5,
        Some(1),
        &[format!(
            "out-of-bounds read of 4 bytes at address {:#x} ({}, safe mode): at offset 16 of \
             argument 0 'c', an object of 16 bytes",
            base + 16,
            position(source, "c[get")
        )],
    );
    let source = "constant int table[4] = {10, 20, 30, 40};
kernel void tbl(global int *out) {
    out[get_global_id(0)] = table[get_global_id(0)];
}";
    let k = fx.kernel(source, c"tbl", SAFE);
    k.mem(0, &out);
    expect_violation(
        &fx,
        5,
        &k,
        5,
        Some(1),
        &[
            format!("({}", position(source, "table[get")),
            "at offset 16 of an object of 16 bytes".into(),
        ],
    );
}

#[test]
fn pointer_arithmetic_keeps_the_object_and_helpers_look_it_up() {
    let fx = recording_fixture(6);
    let source = "kernel void arith(global int *p) {
    global int *q = p + 10;
    q += get_global_id(0);
    *q = 1;
}";
    let buffer = fx.filled(0i32, 16);
    let base = device_address(&fx, &buffer);
    let k = fx.kernel(source, c"arith", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        6,
        &k,
        7,
        Some(1),
        &[format!(
            "out-of-bounds write of 4 bytes at address {:#x} ({}, safe mode): at offset 64 of \
             argument 0 'p'",
            base + 64,
            position(source, "*q = 1")
        )],
    );
    // A helper function's pointer parameter: its object is found in the launch's table.
    let source = "void put(global int *q, size_t i) { q[i] = 2; }
kernel void helper(global int *p, global int *other) {
    put(p, get_global_id(0));
}";
    let other = fx.filled(0i32, 64);
    let k = fx.kernel(source, c"helper", SAFE);
    k.mem(0, &buffer).mem(1, &other);
    expect_violation(
        &fx,
        6,
        &k,
        17,
        Some(1),
        &[format!(
            "out-of-bounds write of 4 bytes at address {:#x} ({}",
            base + 64,
            position(source, "q[i]")
        )],
    );
}

#[test]
fn null_pointers_are_caught() {
    let fx = recording_fixture(7);
    let source = "kernel void null_store(global int *p) {
    global int *q = 0;
    q[get_global_id(0)] = p[0];
}";
    let buffer = fx.filled(0i32, 4);
    let k = fx.kernel(source, c"null_store", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        7,
        &k,
        4,
        None,
        &[format!(
            "out-of-bounds write of 4 bytes at address 0x0 ({}, safe mode): through a NULL \
             pointer",
            position(source, "q[get")
        )],
    );
    // A NULL buffer argument.
    let source = "kernel void null_arg(global int *p, global int *out) {
    out[0] = p[1];
}";
    let k = fx.kernel(source, c"null_arg", SAFE);
    assert_eq!(
        api().set_kernel_arg_raw(k.kernel, 0, size_of::<cl_mem>(), None),
        CL_SUCCESS
    );
    k.mem(1, &buffer);
    expect_violation(
        &fx,
        7,
        &k,
        1,
        None,
        &[format!(
            "out-of-bounds read of 4 bytes at address 0x4 ({}, safe mode): through a NULL \
             pointer",
            position(source, "p[1]")
        )],
    );
}

#[test]
fn builtins_that_access_memory_are_checked() {
    let fx = recording_fixture(10);
    let buffer = fx.filled(0.0f32, 64);
    let base = device_address(&fx, &buffer);
    // vload4 of the last four floats and one more.
    let source = "kernel void vl(global float *p) {
    float4 v = vload4(get_global_id(0), p + 1);
    p[0] = v.x;
}";
    let k = fx.kernel(source, c"vl", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        10,
        &k,
        16,
        Some(1),
        &[format!(
            "out-of-bounds read of 16 bytes at address {:#x} ({}",
            base + 244,
            position(source, "p + 1")
        )],
    );
    // An output pointer of a math function, one element past a private array.
    let source = "kernel void fr(global float *p) {
    float whole[2];
    p[get_global_id(0)] = fract(1.5f, whole + get_global_id(0));
}";
    let k = fx.kernel(source, c"fr", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        10,
        &k,
        3,
        Some(1),
        &[
            "out-of-bounds write of 4 bytes".to_string(),
            format!("({}", position(source, "whole + get")),
            "at offset 8 of an object of 8 bytes".into(),
        ],
    );
    // async_work_group_copy of one element more than the local array holds.
    let source = "kernel void ac(global float *p) {
    local float tile[16];
    event_t e = async_work_group_copy(tile, p, 17, 0);
    wait_group_events(1, &e);
    p[get_global_id(0)] = tile[get_local_id(0)];
}";
    let k = fx.kernel(source, c"ac", SAFE);
    k.mem(0, &buffer);
    expect_violation(
        &fx,
        10,
        &k,
        16,
        Some(16),
        &[
            "out-of-bounds write of 4 bytes".to_string(),
            format!("({}", position(source, "tile, p")),
            "at offset 64 of an object of 64 bytes".into(),
        ],
    );
}

/// Kernels that stay in bounds, covering what the checks follow: indexing, pointer
/// arithmetic and variables, helpers, private and local arrays, structs, vload/vstore,
/// atomics, barriers, program-scope constants.
const CORRECT: &str = "
typedef struct { int a; float b[3]; } S;
constant float weights[3] = {0.25f, 0.5f, 0.25f};
float blur(global const float *x, size_t i, size_t n) {
    float s = 0.0f;
    for (int k = -1; k <= 1; k++) {
        size_t j = clamp((long)i + k, 0L, (long)n - 1);
        s += weights[k + 1] * x[j];
    }
    return s;
}
float total(constant float *w) { return w[0] + w[1] + w[2]; }
kernel void mixer(global const float *x, global float *y, global int *count,
                local float *tile, global S *structs) {
    size_t i = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
    float priv[4];
    for (int k = 0; k < 4; k++) priv[k] = x[(i + k) % n];
    tile[l] = blur(x, i, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    float t = tile[(l + 1) % get_local_size(0)];
    global float *yp = y + i;
    *yp = t + priv[3] * total(weights);
    if ((i & 3) == 0) {
        float4 v = vload4(i / 4, x);
        vstore4(v * 2.0f, i / 4, y + n);
    }
    atomic_add(count, 1);
    global S *s = &structs[i];
    s->a = (int)i;
    for (int k = 0; k < 3; k++) s->b[k] = priv[k];
}";

#[test]
fn correct_kernels_give_identical_results_with_safe_mode() {
    let fx = recording_fixture(8);
    let n = 256usize;
    let mut rng = Rng(7);
    let x = rng.floats(n, -1.0, 1.0);
    let run = |options: &CStr| {
        let xb = fx.buffer(&x);
        let y = fx.filled(0.0f32, 2 * n);
        let count = fx.filled(0i32, 1);
        let structs = fx.filled(0u8, 16 * n);
        let k = fx.kernel(CORRECT, c"mixer", options);
        k.mem(0, &xb).mem(1, &y).mem(2, &count).local(3, 32 * 4);
        k.mem(4, &structs);
        assert_eq!(run_status(&fx, &k, n, Some(32)), CL_COMPLETE);
        (
            fx.read::<f32>(&y, 2 * n),
            fx.read::<i32>(&count, 1),
            fx.read::<u8>(&structs, 16 * n),
        )
    };
    let plain = run(c"");
    let safe = run(SAFE);
    assert_eq!(plain.1, vec![n as i32]);
    assert_eq!(safe.0, plain.0);
    assert_eq!(safe.1, plain.1);
    assert_eq!(safe.2, plain.2);
    assert!(notify_messages(8).is_empty(), "{:?}", notify_messages(8));
}

#[test]
fn clift_safe_turns_safe_mode_on_for_every_build() {
    let text = child("clift_safe_child", &[("CLIFT_SAFE", "1")]);
    assert!(text.contains("kernel 'past_env'"), "{text}");
    assert!(text.contains("out-of-bounds write of 4 bytes"), "{text}");
}

/// Run by `clift_safe_turns_safe_mode_on_for_every_build` with `CLIFT_SAFE=1`.
#[test]
#[ignore = "run in a child process with CLIFT_SAFE=1"]
fn clift_safe_child() {
    let fx = recording_fixture(9);
    let buffer = fx.filled(0i32, 10);
    let k = fx.kernel(
        "kernel void past_env(global int *p) { p[get_global_id(0)] = 7; }",
        c"past_env",
        c"",
    );
    k.mem(0, &buffer);
    assert_eq!(run_status(&fx, &k, 11, Some(1)), CL_OUT_OF_RESOURCES);
}

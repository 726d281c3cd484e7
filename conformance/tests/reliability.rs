//! Reliability: application-given sizes that would overflow the driver's arithmetic get the
//! spec's error code instead of wrapping (and crashing the host at launch).

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

const TWO_LOCALS: &str = "__kernel void k(__local int *a, __local int *b, __global int *out) {
    a[0] = 1; b[0] = 2; out[0] = a[0] + b[0];
}";

/// `CL_KERNEL_LOCAL_MEM_SIZE` of `kernel` on clift's device.
fn local_mem_size(kernel: &Kernel) -> u64 {
    let bytes = api()
        .kernel_work_group_info(kernel.kernel, api().device(), CL_KERNEL_LOCAL_MEM_SIZE)
        .expect("clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
    u64::from_ne_bytes(bytes[..8].try_into().unwrap())
}

fn launch(fx: &Fixture, kernel: &Kernel) -> cl_int {
    api().enqueue_nd_range_kernel(
        fx.queue,
        kernel.kernel,
        1,
        None,
        Some(&[1]),
        Some(&[1]),
        Waits::NONE,
        None,
    )
}

#[test]
fn local_argument_near_size_max_is_refused_at_launch_not_wrapped() {
    let fx = Fixture::new();
    let out = fx.filled(0i32, 1);
    let kernel = fx.kernel(TWO_LOCALS, c"k", c"");
    kernel.mem(2, &out);
    // clSetKernelArg takes any nonzero size for a __local argument (5.7.2 lists no error
    // for a size beyond the device's local memory); the launch is what cannot be queued.
    kernel.local(0, usize::MAX - 3).local(1, 16);
    // The size saturates instead of wrapping to a small number.
    assert_eq!(local_mem_size(&kernel), u64::MAX);
    assert_eq!(launch(&fx, &kernel), CL_OUT_OF_RESOURCES);
}

#[test]
fn two_local_arguments_whose_sum_overflows_are_refused_at_launch() {
    let fx = Fixture::new();
    let out = fx.filled(0i32, 1);
    let kernel = fx.kernel(TWO_LOCALS, c"k", c"");
    kernel.mem(2, &out);
    kernel.local(0, 1 << 63).local(1, 1 << 63);
    assert_eq!(local_mem_size(&kernel), u64::MAX);
    assert_eq!(launch(&fx, &kernel), CL_OUT_OF_RESOURCES);
}

#[test]
fn local_memory_beyond_the_device_limit_is_refused_and_within_it_runs() {
    let fx = Fixture::new();
    let out = fx.filled(0i32, 1);
    let kernel = fx.kernel(TWO_LOCALS, c"k", c"");
    kernel.mem(2, &out);
    let limit = api()
        .device_info(api().device(), CL_DEVICE_LOCAL_MEM_SIZE)
        .map(|b| u64::from_ne_bytes(b[..8].try_into().unwrap()))
        .expect("CL_DEVICE_LOCAL_MEM_SIZE") as usize;
    kernel.local(0, limit).local(1, 16);
    assert_eq!(local_mem_size(&kernel), (limit + 16) as u64);
    assert_eq!(launch(&fx, &kernel), CL_OUT_OF_RESOURCES);
    kernel.local(0, 16).local(1, 16);
    assert_eq!(local_mem_size(&kernel), 32);
    fx.run(&kernel, None, &[1], Some(&[1]));
    assert_eq!(fx.read::<i32>(&out, 1), [3]);
}

/// A kernel with a private array of `N` ints that it fills and reads back in an order set
/// by its argument (so the array cannot be optimized away).
fn private_array_kernel(n: usize) -> String {
    format!(
        "__kernel void p(__global int *out, int step) {{
    int a[{n}];
    for (int i = 0; i < {n}; i++) a[i] = i ^ step;
    long sum = 0;
    for (int i = 0; i < {n}; i += step) sum += a[i];
    out[get_global_id(0)] = (int)(sum & 0x7fffffff);
}}"
    )
}

fn private_mem_size(kernel: &Kernel) -> u64 {
    let bytes = api()
        .kernel_work_group_info(kernel.kernel, api().device(), CL_KERNEL_PRIVATE_MEM_SIZE)
        .expect("clGetKernelWorkGroupInfo(CL_KERNEL_PRIVATE_MEM_SIZE)");
    u64::from_ne_bytes(bytes[..8].try_into().unwrap())
}

#[test]
fn a_private_array_beyond_the_limit_is_refused_at_launch() {
    // 16 MiB of private memory per work-item: more than clift's 1 MiB per work-item (and
    // than a worker's stack). The build succeeds (the spec has no build-time limit on
    // private memory); the launch cannot be queued: CL_OUT_OF_RESOURCES.
    let fx = Fixture::new();
    let out = fx.filled(0i32, 4);
    let kernel = fx.kernel(&private_array_kernel(4 << 20), c"p", c"");
    assert!(private_mem_size(&kernel) >= 16 << 20);
    kernel.mem(0, &out).arg(1, 1i32);
    let status = api().enqueue_nd_range_kernel(
        fx.queue,
        kernel.kernel,
        1,
        None,
        Some(&[4]),
        Some(&[1]),
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_OUT_OF_RESOURCES);
    assert_eq!(fx.read::<i32>(&out, 4), [0; 4]);
}

#[test]
fn a_private_array_within_the_limit_runs_on_every_worker() {
    // 768 KiB per work-item, under the 1 MiB limit but far beyond a default 2 MiB stack
    // shared with the driver's own frames on several threads at once.
    let n = 192 << 10;
    let fx = Fixture::new();
    let items = 16;
    let out = fx.filled(0i32, items);
    let kernel = fx.kernel(&private_array_kernel(n), c"p", c"");
    let size = private_mem_size(&kernel);
    assert!(
        size >= (n * 4) as u64 && size <= 1 << 20,
        "private size {size}"
    );
    let step = 3i32;
    kernel.mem(0, &out).arg(1, step);
    fx.run(&kernel, None, &[items], Some(&[1]));
    let expected: i64 = (0..n as i64)
        .step_by(step as usize)
        .map(|i| i ^ step as i64)
        .sum();
    assert_eq!(
        fx.read::<i32>(&out, items),
        vec![(expected & 0x7fff_ffff) as i32; items]
    );
}

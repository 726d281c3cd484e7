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

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

// ---------------------------------------------------------------------------------------
// Sizes near SIZE_MAX in the commands: every sum and product of application sizes is
// checked, so each gets the spec's code (never a wrapped small offset, a crash or a hang).

const MAX: usize = usize::MAX;

#[test]
fn linear_transfers_whose_offset_plus_size_wraps_are_invalid_values() {
    let fx = Fixture::new();
    let buf = fx.filled(0u8, 64);
    let other = fx.filled(0u8, 64);
    let mut host = [0u8; 16];
    let out: *mut std::ffi::c_void = host.as_mut_ptr().cast();
    let read = |offset, size| {
        // SAFETY: the call is refused before `host` would be written.
        unsafe {
            api().enqueue_read_buffer_raw(
                fx.queue,
                buf.0,
                true,
                offset,
                size,
                out,
                Waits::NONE,
                None,
            )
        }
    };
    // offset + size wraps past SIZE_MAX to a small number.
    assert_eq!(read(MAX - 3, 8), CL_INVALID_VALUE);
    assert_eq!(read(8, MAX - 3), CL_INVALID_VALUE);
    // SAFETY: refused before `host` would be read.
    let write = unsafe {
        api().enqueue_write_buffer_raw(
            fx.queue,
            buf.0,
            true,
            MAX,
            2,
            host.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    assert_eq!(write, CL_INVALID_VALUE);
    let copy = |src_offset, dst_offset, size| {
        api().enqueue_copy_buffer(
            fx.queue,
            buf.0,
            other.0,
            src_offset,
            dst_offset,
            size,
            Waits::NONE,
            None,
        )
    };
    assert_eq!(copy(MAX, 0, 2), CL_INVALID_VALUE);
    assert_eq!(copy(0, MAX - 1, 4), CL_INVALID_VALUE);
    // A fill whose offset and size are multiples of the pattern, summing past SIZE_MAX.
    let fill = api().enqueue_fill_buffer(
        fx.queue,
        buf.0,
        Some(&[1, 2, 3, 4]),
        4,
        MAX - 3,
        8,
        Waits::NONE,
        None,
    );
    assert_eq!(fill, CL_INVALID_VALUE);
    let (mapped, status) = api().enqueue_map_buffer(
        fx.queue,
        buf.0,
        true,
        CL_MAP_READ,
        MAX - 7,
        16,
        Waits::NONE,
        None,
    );
    assert_eq!((mapped.is_null(), status), (true, CL_INVALID_VALUE));
    // The buffer is untouched and the queue still works.
    assert_eq!(fx.read::<u8>(&buf, 64), vec![0; 64]);
    assert_eq!(api().finish(fx.queue), CL_SUCCESS);
}

#[test]
fn a_sub_buffer_whose_origin_plus_size_wraps_is_an_invalid_value() {
    let fx = Fixture::new();
    let buf = fx.filled(0u8, 256);
    // An origin aligned to every CL_DEVICE_MEM_BASE_ADDR_ALIGN, so only the sum is wrong.
    let region = cl_buffer_region {
        origin: MAX - 127,
        size: 256,
    };
    let (sub, status) =
        api().create_sub_buffer_raw(buf.0, 0, CL_BUFFER_CREATE_TYPE_REGION, Some(&region));
    assert_eq!((sub.is_null(), status), (true, CL_INVALID_VALUE));
}

#[test]
fn rectangles_whose_pitches_or_origins_overflow_are_invalid_values() {
    let fx = Fixture::new();
    let buf = fx.filled(0u8, 256);
    let mut host = [0u8; 256];
    let out: *mut std::ffi::c_void = host.as_mut_ptr().cast();
    let read_rect = |origin: [usize; 3], host_origin: [usize; 3], region: [usize; 3], b, h| {
        // SAFETY: every call here is refused before `host` would be written.
        unsafe {
            api().enqueue_read_buffer_rect_raw(
                fx.queue,
                buf.0,
                true,
                Some(&origin),
                Some(&host_origin),
                Some(&region),
                b,
                h,
                out,
                Waits::NONE,
                None,
            )
        }
    };
    let zero = [0; 3];
    // region[1] * buffer_row_pitch.
    assert_eq!(
        read_rect(zero, zero, [1, 2, 1], [MAX, 0], [0, 0]),
        CL_INVALID_VALUE
    );
    // buffer_origin[2] * buffer_slice_pitch.
    let slice = (MAX / 2 + 1) & !15;
    assert_eq!(
        read_rect([0, 0, 2], zero, [1, 1, 1], [16, slice], [0, 0]),
        CL_INVALID_VALUE
    );
    // The sum of the origin's terms.
    assert_eq!(
        read_rect([MAX, 1, 0], zero, [1, 1, 1], [1, 0], [0, 0]),
        CL_INVALID_VALUE
    );
    // The host side: region[1] * host_row_pitch, and an end past the address space.
    assert_eq!(
        read_rect(zero, zero, [1, 2, 1], [0, 0], [MAX, 0]),
        CL_INVALID_VALUE
    );
    assert_eq!(
        read_rect(zero, zero, [1, 1, 3], [0, 0], [1, slice]),
        CL_INVALID_VALUE
    );
    assert_eq!(
        read_rect(zero, [MAX - 1, 0, 0], [2, 1, 1], [0, 0], [0, 0]),
        CL_INVALID_VALUE
    );
    // SAFETY: refused before `host` would be read.
    let write = unsafe {
        api().enqueue_write_buffer_rect_raw(
            fx.queue,
            buf.0,
            true,
            Some(&[0, 0, MAX]),
            Some(&zero),
            Some(&[1, 1, 1]),
            [0, 0],
            [0, 0],
            host.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    assert_eq!(write, CL_INVALID_VALUE);
    let copy = api().enqueue_copy_buffer_rect(
        fx.queue,
        buf.0,
        buf.0,
        Some(&[MAX, 0, 0]),
        Some(&[0, 0, 0]),
        Some(&[2, 1, 1]),
        [0, 0],
        [0, 0],
        Waits::NONE,
        None,
    );
    assert_eq!(copy, CL_INVALID_VALUE);
    assert_eq!(fx.read::<u8>(&buf, 256), vec![0; 256]);
}

fn rgba8() -> cl_image_format {
    cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    }
}

fn image_desc(
    image_type: cl_mem_object_type,
    size: [usize; 3],
    pitches: [usize; 2],
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: 0,
        image_row_pitch: pitches[0],
        image_slice_pitch: pitches[1],
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

/// `clCreateImage`: the image (NULL on error) and the code.
fn create_image(
    fx: &Fixture,
    flags: cl_mem_flags,
    desc: &cl_image_desc,
    host: *mut std::ffi::c_void,
) -> (cl_mem, cl_int) {
    let create = {
        let api = api();
        entry!(api.clCreateImage)
    };
    let mut status = 0;
    // SAFETY: a valid format and descriptor; `host` is only used on success, which the
    // callers here expect only for images that fit it.
    let mem = unsafe { create(fx.context, flags, &rgba8(), desc, host, &mut status) };
    (mem, status)
}

#[test]
fn images_whose_pitches_overflow_are_too_large() {
    let fx = Fixture::new();
    let mut host = [0u8; 64];
    let host_ptr = host.as_mut_ptr().cast();
    // image_row_pitch * image_height does not fit a size_t.
    let rows = image_desc(CL_MEM_OBJECT_IMAGE2D, [4, 3, 0], [(MAX / 2) & !3, 0]);
    // (image_depth - 1) * image_slice_pitch does not fit.
    let slices = image_desc(CL_MEM_OBJECT_IMAGE3D, [4, 3, 3], [16, (MAX / 2) & !15]);
    for desc in [rows, slices] {
        for flags in [CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR] {
            let (mem, status) = create_image(&fx, flags, &desc, host_ptr);
            assert_eq!((mem.is_null(), status), (true, CL_INVALID_IMAGE_SIZE));
        }
    }
}

#[test]
fn image_commands_with_sizes_near_size_max_are_invalid_values() {
    let fx = Fixture::new();
    let desc = image_desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 4], [0, 0]);
    let (image, status) = create_image(&fx, 0, &desc, std::ptr::null_mut());
    assert_eq!(status, CL_SUCCESS);
    let image = Mem(image);
    let buf = fx.filled(0u8, 256);
    let api = api();
    let read = entry!(api.clEnqueueReadImage);
    let mut host = [0u8; 1024];
    let out: *mut std::ffi::c_void = host.as_mut_ptr().cast();
    let read_image = |origin: [usize; 3], region: [usize; 3], row, slice| {
        // SAFETY: each call here is refused before `host` would be written.
        unsafe {
            read(
                fx.queue,
                image.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                row,
                slice,
                out,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        }
    };
    // origin + region wraps.
    assert_eq!(read_image([MAX, 0, 0], [2, 1, 1], 0, 0), CL_INVALID_VALUE);
    // region[1] * row_pitch does not fit.
    assert_eq!(read_image([0; 3], [4, 4, 1], MAX / 2, 0), CL_INVALID_VALUE);
    // The pitches fit; the host rectangle's end does not.
    assert_eq!(read_image([0; 3], [4, 1, 4], 16, MAX / 2), CL_INVALID_VALUE);
    // The same image read with sane pitches still works.
    assert_eq!(read_image([0; 3], [4, 4, 4], 0, 0), CL_SUCCESS);
    let to_buffer = entry!(api.clEnqueueCopyImageToBuffer);
    let copy_to = |offset| {
        // SAFETY: valid handles, three-element arrays, no wait list.
        unsafe {
            to_buffer(
                fx.queue,
                image.0,
                buf.0,
                [0usize; 3].as_ptr(),
                [4usize, 4, 1].as_ptr(),
                offset,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        }
    };
    // dst_offset + the region's 64 bytes wraps.
    assert_eq!(copy_to(MAX - 3), CL_INVALID_VALUE);
    assert_eq!(copy_to(0), CL_SUCCESS);
    assert_eq!(api.finish(fx.queue), CL_SUCCESS);
}

#[test]
fn ndranges_whose_sizes_overflow_get_the_spec_codes() {
    let fx = Fixture::new();
    let out = fx.filled(0i32, 1);
    let kernel = fx.kernel(
        "__kernel void k(__global int *out) { if (get_global_id(0) == 0) out[0] = 1; }",
        c"k",
        c"",
    );
    kernel.mem(0, &out);
    let launch =
        |dims: u32, offset: Option<&[usize]>, global: &[usize], local: Option<&[usize]>| {
            api().enqueue_nd_range_kernel(
                fx.queue,
                kernel.kernel,
                dims,
                offset,
                Some(global),
                local,
                Waits::NONE,
                None,
            )
        };
    // "CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the
    // corresponding values in global_work_offset for any dimensions is greater than the
    // maximum value representable by size_t".
    assert_eq!(
        launch(1, Some(&[MAX - 7]), &[16], None),
        CL_INVALID_GLOBAL_OFFSET
    );
    assert_eq!(
        launch(2, Some(&[0, MAX]), &[1, 2], None),
        CL_INVALID_GLOBAL_OFFSET
    );
    // The number of work-items, global[0] * global[1] * global[2], does not fit a size_t:
    // with the local size left to the driver and with one given.
    let huge = [1usize << 32, 1 << 32];
    assert_eq!(launch(2, None, &huge, None), CL_INVALID_GLOBAL_WORK_SIZE);
    assert_eq!(
        launch(2, None, &huge, Some(&[1, 1])),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    // Each local size within CL_DEVICE_MAX_WORK_ITEM_SIZES, their product beyond the
    // work-group limit.
    assert_eq!(
        launch(3, None, &[4096, 4096, 4096], Some(&[4096, 4096, 4096])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    // The kernel still runs.
    assert_eq!(launch(1, None, &[1], None), CL_SUCCESS);
    assert_eq!(fx.read::<i32>(&out, 1), vec![1]);
}

extern "C" fn never_called(_: *mut std::ffi::c_void) {
    panic!("a refused native kernel ran");
}

#[test]
fn native_kernel_locations_outside_the_block_are_invalid_values() {
    let fx = Fixture::new();
    let buf = fx.filled(0u8, 16);
    let mut block = [0usize; 2];
    let args: *mut std::ffi::c_void = block.as_mut_ptr().cast();
    let mem_list = [buf.0];
    // Locations whose offset from `args` plus a pointer's size wraps or leaves the block:
    // one byte before it (the offset wraps to SIZE_MAX), at SIZE_MAX, and half inside.
    for location in [
        (args as usize).wrapping_sub(1),
        MAX,
        args as usize + 2 * size_of::<usize>() - 4,
    ] {
        let mut locs = [location as *const std::ffi::c_void];
        // SAFETY: the block and both lists are valid for the call, which refuses them
        // before `never_called` could run.
        let status = unsafe {
            api().enqueue_native_kernel(
                fx.queue,
                Some(never_called),
                args,
                size_of_val(&block),
                1,
                mem_list.as_ptr(),
                locs.as_mut_ptr(),
                Waits::NONE,
                None,
            )
        };
        assert_eq!(status, CL_INVALID_VALUE, "location {location:#x}");
    }
    assert_eq!(api().finish(fx.queue), CL_SUCCESS);
}

//! Kernels launched with Rust work-group functions standing in for compiled code.

use super::*;
use crate::context::{Context, ContextProperties};
use crate::memory::Storage;
use crate::platform::Platform;
use crate::queue::{Queue, QueueOrder, Start};
use clift_compiler::kernel::{KernelParam, ParamInfo};

fn param(kind: ParamKind, offset: usize) -> KernelParam {
    let info = ParamInfo {
        name: String::new(),
        type_name: String::new(),
        address_qualifier: 0,
        access_qualifier: 0,
        type_qualifier: 0,
    };
    KernelParam { kind, offset, info }
}

fn code(
    entry: clift_compiler::kernel::WorkGroupFn,
    params: Vec<KernelParam>,
    args_size: usize,
) -> Arc<KernelCode> {
    Arc::new(KernelCode {
        execution: clift_compiler::kernel::Execution::WorkItemLoop,
        vectorized: Err("a test kernel".into()),
        name: "test".into(),
        params,
        args_size,
        static_local_size: 0,
        reqd_work_group_size: None,
        attributes: String::new(),
        private_mem_size: 0,
        frame_size: 0,
        arg_info: false,
        entry,
        code_owner: None,
        safe_sites: None,
    })
}

struct Setup {
    device: Arc<Device>,
    context: Arc<Context>,
    queue: Arc<Queue>,
    program: Arc<Program>,
}

fn setup() -> Setup {
    let device = Arc::clone(&Platform::get().devices()[0]);
    let context = Context::new(
        vec![Arc::clone(&device)],
        ContextProperties::default(),
        None,
    );
    let queue = Queue::new(Arc::clone(&context), Arc::clone(&device), 0).unwrap();
    let program = Program::with_source(Arc::clone(&context), b"".to_vec());
    Setup {
        device,
        context,
        queue,
        program,
    }
}

fn buffer(context: &Arc<Context>, bytes: &[u8]) -> Arc<Mem> {
    let storage = Storage::allocate(bytes.len()).unwrap();
    // SAFETY: a fresh allocation of `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), storage.as_ptr(), bytes.len()) };
    Mem::buffer(
        Arc::clone(context),
        CL_MEM_READ_WRITE,
        storage,
        std::ptr::null_mut(),
    )
}

/// Reads the `u64` slot at `offset` of an argument block.
///
/// # Safety
/// `args` must hold 8 bytes at `offset`.
unsafe fn slot(args: *const u8, offset: usize) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { args.add(offset).cast::<u64>().read_unaligned() }
}

/// c[i] = a[i] + b[i] for i < n: pointers at 0, 8, 16; n (uint) at 24.
unsafe extern "C" fn vector_add(args: *const u8, group: *const WorkGroup) {
    // SAFETY: the launch passes the block `prepare` built and a valid group.
    let (a, b, c, n, g) = unsafe {
        (
            slot(args, 0) as *const f32,
            slot(args, 8) as *const f32,
            slot(args, 16) as *mut f32,
            args.add(24).cast::<u32>().read_unaligned() as u64,
            &*group,
        )
    };
    for lid in 0..g.local_size[0] {
        let gid = g.group_id[0] * g.local_size[0] + lid + g.global_offset[0];
        if gid < n {
            // SAFETY: gid < n, the buffers' length.
            unsafe { *c.add(gid as usize) = *a.add(gid as usize) + *b.add(gid as usize) };
        }
    }
}

/// Each group sums its items into local memory (a __local arg at slot 8), then writes the
/// group's sum to out[group] (out at slot 0). Input is the global id.
unsafe extern "C" fn group_sums(args: *const u8, group: *const WorkGroup) {
    // SAFETY: as above; the local slot holds an offset into the group's local memory.
    let (out, scratch, g) = unsafe {
        let g = &*group;
        (
            slot(args, 0) as *mut u64,
            g.local_memory.add(slot(args, 8) as usize).cast::<u64>(),
            g,
        )
    };
    let items = g.local_size[0] as usize;
    for lid in 0..items {
        // SAFETY: the local argument was set to `items` u64s.
        unsafe { *scratch.add(lid) = g.group_id[0] * g.local_size[0] + lid as u64 };
    }
    // (the "barrier": the next loop runs after every item's write)
    // SAFETY: as above.
    let sum: u64 = (0..items).map(|i| unsafe { *scratch.add(i) }).sum();
    // SAFETY: out holds one u64 per group.
    unsafe { *out.add(g.group_id[0] as usize) = sum };
}

#[test]
fn vector_add_runs_over_every_group_with_an_offset() {
    let s = setup();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let (ma, mb, mc) = (
        buffer(&s.context, &bytes(&a)),
        buffer(&s.context, &bytes(&b)),
        buffer(&s.context, &vec![0; 4000]),
    );
    let params = vec![
        param(ParamKind::Buffer { constant: false }, 0),
        param(ParamKind::Buffer { constant: false }, 8),
        param(ParamKind::Buffer { constant: false }, 16),
        param(ParamKind::Value { size: 4 }, 24),
    ];
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 28));
    assert_eq!(
        kernel.prepare(&s.device).err(),
        Some(crate::ClError(CL_INVALID_KERNEL_ARGS))
    );
    kernel
        .set_arg(0, ArgValue::Buffer(Some(Arc::clone(&ma))))
        .unwrap();
    kernel
        .set_arg(1, ArgValue::Buffer(Some(Arc::clone(&mb))))
        .unwrap();
    kernel
        .set_arg(2, ArgValue::Buffer(Some(Arc::clone(&mc))))
        .unwrap();
    kernel
        .set_arg(3, ArgValue::Bytes(n.to_ne_bytes().to_vec()))
        .unwrap();
    assert_eq!(
        kernel.set_arg(4, ArgValue::Local(4)).err(),
        Some(crate::ClError(CL_INVALID_ARG_INDEX))
    );
    // Items 100..1000 in groups of 100 (9 groups), offset 100: the first 100 stay 0.
    let range = kernel
        .ndrange(
            &s.device,
            1,
            Some([100, 0, 0]),
            Some([900, 1, 1]),
            Some([100, 1, 1]),
        )
        .unwrap();
    let launch = kernel.prepare(&s.device).unwrap();
    let device = Arc::clone(&s.device);
    let event = s.queue.enqueue(
        CL_COMMAND_NDRANGE_KERNEL,
        Vec::new(),
        QueueOrder::Command,
        Start::Blocking,
        crate::queue::work(move |q| launch.run(&device, q.context(), range)),
    );
    assert_eq!(event.wait(), CL_COMPLETE);
    // SAFETY: the buffer holds 1000 floats and the command has completed.
    let c = unsafe { std::slice::from_raw_parts(mc.base().cast::<f32>(), 1000) };
    assert!(c[..100].iter().all(|&x| x == 0.0));
    assert!((100..1000).all(|i| c[i] == 3.0 * i as f32));
}

/// `clEnqueueNDRangeKernel` builds the launch in its event: a launch refused at enqueue
/// (sizes, then arguments) holds nothing, one accepted holds its buffers until it has run
/// and computes what the kernel says.
#[test]
fn a_launch_built_in_its_event_holds_its_buffers_until_it_has_run() {
    use crate::command::launch::Launch;
    let s = setup();
    let n = 1000u32;
    let bytes = |v: Vec<f32>| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let (ma, mb, mc) = (
        buffer(&s.context, &bytes((0..n).map(|i| i as f32).collect())),
        buffer(&s.context, &bytes((0..n).map(|i| (2 * i) as f32).collect())),
        buffer(&s.context, &vec![0; 4000]),
    );
    let params = (0..3)
        .map(|i| param(ParamKind::Buffer { constant: false }, 8 * i))
        .chain([param(ParamKind::Value { size: 4 }, 24)])
        .collect();
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 28));
    for (i, mem) in [&ma, &mb, &mc].into_iter().enumerate() {
        let value = ArgValue::Buffer(Some(Arc::clone(mem)));
        kernel.set_arg(i as u32, value).unwrap();
    }
    let launch = |dims, global| {
        let (offset, local) = (Some([100, 0, 0]), Some([100, 1, 1]));
        Launch::enqueue_ndrange(
            &s.queue,
            &kernel,
            dims,
            offset,
            global,
            local,
            Vec::new(),
            true,
        )
    };
    let code = |r: ClResult<Option<Arc<crate::event::Event>>>| r.err().map(|e| e.code());
    assert_eq!(
        code(launch(0, Some([900, 1, 1]))),
        Some(CL_INVALID_WORK_DIMENSION)
    );
    assert_eq!(
        code(launch(1, Some([900, 1, 1]))),
        Some(CL_INVALID_KERNEL_ARGS)
    );
    assert_eq!(Arc::strong_count(&ma), 1);
    kernel
        .set_arg(3, ArgValue::Bytes(n.to_ne_bytes().to_vec()))
        .unwrap();
    let event = launch(1, Some([900, 1, 1])).unwrap().unwrap();
    assert_eq!(event.command_type(), CL_COMMAND_NDRANGE_KERNEL);
    assert_eq!(event.wait(), CL_COMPLETE);
    assert_eq!([&ma, &mb, &mc].map(Arc::strong_count), [1; 3]);
    // SAFETY: the buffer holds 1000 floats and the command has completed.
    let c = unsafe { std::slice::from_raw_parts(mc.base().cast::<f32>(), 1000) };
    assert!(c[..100].iter().all(|&x| x == 0.0));
    assert!((100..1000).all(|i| c[i] == 3.0 * i as f32));
}

#[test]
fn local_arguments_get_their_own_memory_per_group() {
    let s = setup();
    let groups = 37usize;
    let items = 64usize;
    let out = buffer(&s.context, &vec![0; groups * 8]);
    let params = vec![
        param(ParamKind::Buffer { constant: false }, 0),
        param(ParamKind::Local, 8),
    ];
    let kernel = Kernel::new(Arc::clone(&s.program), code(group_sums, params, 16));
    kernel
        .set_arg(0, ArgValue::Buffer(Some(Arc::clone(&out))))
        .unwrap();
    kernel.set_arg(1, ArgValue::Local(items * 8)).unwrap();
    assert_eq!(kernel.local_mem_size(), items * 8);
    let range = kernel
        .ndrange(
            &s.device,
            1,
            None,
            Some([groups * items, 1, 1]),
            Some([items, 1, 1]),
        )
        .unwrap();
    let launch = kernel.prepare(&s.device).unwrap();
    launch.run(&s.device, &s.context, range).unwrap();
    // SAFETY: one u64 per group, written by the completed run.
    let sums = unsafe { std::slice::from_raw_parts(out.base().cast::<u64>(), groups) };
    for (g, &sum) in sums.iter().enumerate() {
        let first = (g * items) as u64;
        assert_eq!(sum, (first..first + items as u64).sum::<u64>(), "group {g}");
    }
}

/// A launch with the sizes of the last accepted one gets its range again; other sizes, and
/// sizes that are refused, are checked (a refusal is not remembered, nor does it forget).
#[test]
fn a_launch_with_the_last_sizes_gets_the_same_range() {
    let s = setup();
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, Vec::new(), 0));
    let d = &s.device;
    let range = |global: [usize; 3], local: Option<[usize; 3]>| {
        kernel
            .ndrange(d, 2, Some([5, 0, 0]), Some(global), local)
            .map(|r| (r.offset, r.global, r.local))
            .map_err(|e| e.code())
    };
    let first = Ok(([5, 0, 0], [12, 4, 1], [3, 4, 1]));
    assert_eq!(range([12, 4, 1], Some([3, 4, 1])), first);
    assert_eq!(range([12, 4, 1], Some([3, 4, 1])), first);
    assert_eq!(
        range([12, 4, 1], Some([5, 4, 1])),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    let remembered = || {
        kernel
            .args
            .lock()
            .last_range
            .map(|(key, range)| (key.local, range.local))
    };
    assert_eq!(remembered(), Some((Some([3, 4, 1]), [3, 4, 1])));
    assert_eq!(range([12, 4, 1], Some([3, 4, 1])), first);
    assert_eq!(
        range([12, 4, 1], Some([6, 2, 1])),
        Ok(([5, 0, 0], [12, 4, 1], [6, 2, 1]))
    );
    // A NULL local size: 48 items make groups of at least 16, found along dimension 0
    // first (12 × 1), on any number of workers.
    let chosen = Ok(([5, 0, 0], [12, 4, 1], [12, 1, 1]));
    assert_eq!(range([12, 4, 1], None), chosen);
    assert_eq!(range([12, 4, 1], None), chosen);
    assert_eq!(range([0, 4, 1], None), Err(CL_INVALID_GLOBAL_WORK_SIZE));
    assert_eq!(
        kernel
            .ndrange(d, 1, Some([5, 0, 0]), Some([12, 4, 1]), None)
            .map(|r| r.global),
        Ok([12, 1, 1])
    );
}

#[test]
fn work_size_rules() {
    let s = setup();
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, Vec::new(), 0));
    let err = |r: ClResult<NdRange>| r.err().map(|e| e.code());
    let d = &s.device;
    assert_eq!(
        err(kernel.ndrange(d, 0, None, Some([8, 1, 1]), None)),
        Some(CL_INVALID_WORK_DIMENSION)
    );
    assert_eq!(
        err(kernel.ndrange(d, 4, None, Some([8, 1, 1]), None)),
        Some(CL_INVALID_WORK_DIMENSION)
    );
    assert_eq!(
        err(kernel.ndrange(d, 1, None, None, None)),
        Some(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    assert_eq!(
        err(kernel.ndrange(d, 2, None, Some([8, 0, 1]), None)),
        Some(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    assert_eq!(
        err(kernel.ndrange(d, 1, Some([usize::MAX, 0, 0]), Some([8, 1, 1]), None)),
        Some(CL_INVALID_GLOBAL_OFFSET)
    );
    // A range of more work-items than a size_t counts (found by fuzzing: the product
    // overflowed choosing the local size).
    assert_eq!(
        err(kernel.ndrange(d, 2, None, Some([1 << 40, 1 << 40, 1]), None)),
        Some(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    assert_eq!(
        err(kernel.ndrange(d, 3, None, Some([1 << 32, 1, 1 << 32]), Some([1, 1, 1]))),
        Some(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    let local = choose_local_size([usize::MAX, usize::MAX, 1], 2, 2, 1024);
    assert_eq!(usize::MAX % local[0], 0, "{local:?}");
    assert!(local[0] * local[1] <= 1024, "{local:?}");
    assert_eq!(
        err(kernel.ndrange(d, 1, None, Some([10, 1, 1]), Some([3, 1, 1]))),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert_eq!(
        err(kernel.ndrange(d, 1, None, Some([8192, 1, 1]), Some([8192, 1, 1]))),
        Some(CL_INVALID_WORK_ITEM_SIZE)
    );
    assert_eq!(
        err(kernel.ndrange(d, 2, None, Some([128, 128, 1]), Some([128, 64, 1]))),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
    // Unused dimensions are ignored (and reported as 1).
    let r = kernel
        .ndrange(d, 1, None, Some([12, 0, 0]), Some([4, 0, 0]))
        .unwrap();
    assert_eq!(
        (r.global, r.local, r.groups()),
        ([12, 1, 1], [4, 1, 1], [3, 1, 1])
    );
}

#[test]
fn reqd_work_group_size_is_enforced() {
    let s = setup();
    let mut c = (*code(vector_add, Vec::new(), 0)).clone();
    c.reqd_work_group_size = Some([8, 2, 1]);
    let kernel = Kernel::new(Arc::clone(&s.program), Arc::new(c));
    assert_eq!(kernel.max_work_group_size(), 16);
    let d = &s.device;
    assert!(
        kernel
            .ndrange(d, 2, None, Some([16, 4, 1]), Some([8, 2, 1]))
            .is_ok()
    );
    assert_eq!(
        kernel
            .ndrange(d, 2, None, Some([16, 4, 1]), Some([4, 4, 1]))
            .err()
            .map(|e| e.code()),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
    // No local size: the required one (as OpenCL 2.0+ and the CTS have it).
    assert_eq!(
        kernel
            .ndrange(d, 2, None, Some([16, 4, 1]), None)
            .map(|r| r.local),
        Ok([8, 2, 1])
    );
    // ... which must still divide the global size.
    assert_eq!(
        kernel
            .ndrange(d, 2, None, Some([12, 4, 1]), None)
            .err()
            .map(|e| e.code()),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
}

/// A range of at most MIN_CHOSEN_GROUP items is one group (the shortcut that skips the
/// divisor search), and the search itself picks the same group for each such range.
#[test]
fn a_range_of_at_most_sixteen_items_is_one_group_as_the_search_picks() {
    let mut ranges = 0;
    for dims in 1..=3 {
        for x in 1..=16 {
            for y in 1..=16 {
                for z in 1..=16 {
                    let global = [
                        x,
                        if dims > 1 { y } else { 1 },
                        if dims > 2 { z } else { 1 },
                    ];
                    let total: usize = global.iter().product();
                    if total > MIN_CHOSEN_GROUP || (dims < 2 && y > 1) || (dims < 3 && z > 1) {
                        continue;
                    }
                    for (workers, max_items) in [(1, 4096), (2, 4096), (16, 4096), (64, 16)] {
                        let local = choose_local_size(global, dims, workers, max_items);
                        assert_eq!(local, global, "{global:?} {dims} {workers}");
                        let searched = search_local_size(global, dims, workers, max_items, total);
                        assert_eq!(searched, global, "{global:?} {dims} {workers}");
                    }
                    ranges += 1;
                }
            }
        }
    }
    // 16 one-dimensional, 50 two-dimensional, 110 three-dimensional ranges (product <= 16).
    assert_eq!(ranges, 16 + 50 + 110);
    // A kernel that allows fewer items than the range has is not one group.
    assert_eq!(choose_local_size([16, 1, 1], 1, 1, 8), [8, 1, 1]);
    assert_eq!(choose_local_size([12, 1, 1], 1, 1, 8), [6, 1, 1]);
}

#[test]
fn the_driver_picks_divisors_that_keep_every_worker_busy() {
    assert_eq!(
        choose_local_size([1 << 20, 1, 1], 1, 16, 4096),
        [1024, 1, 1]
    );
    assert_eq!(choose_local_size([1000, 1, 1], 1, 2, 4096), [50, 1, 1]);
    assert_eq!(choose_local_size([997, 1, 1], 1, 2, 4096), [1, 1, 1]);
    // A small range is not cut into groups smaller than MIN_CHOSEN_GROUP items.
    assert_eq!(choose_local_size([7, 1, 1], 1, 16, 4096), [7, 1, 1]);
    assert_eq!(choose_local_size([64, 1, 1], 1, 16, 4096), [16, 1, 1]);
    assert_eq!(choose_local_size([64, 1, 1], 1, 1, 4096), [16, 1, 1]);
    assert_eq!(choose_local_size([8, 8, 1], 2, 16, 4096), [8, 2, 1]);
    assert_eq!(choose_local_size([512, 512, 1], 2, 2, 4096), [512, 2, 1]);
    assert_eq!(choose_local_size([64, 64, 64], 3, 4, 4096), [64, 16, 1]);
    for (global, dims) in [([96, 40, 7], 3), ([1 << 16, 3, 1], 2)] {
        let local = choose_local_size(global, dims, 2, 256);
        assert!((0..3).all(|d| global[d] % local[d] == 0));
        assert!(local.iter().product::<usize>() <= 256);
    }
}

#[test]
fn the_largest_divisor_is_found_without_searching_down_from_the_limit() {
    // Against the plain search (every divisor tried, largest first).
    let plain = |n: usize, limit: usize| (1..=limit.min(n)).rev().find(|d| n.is_multiple_of(*d));
    for n in 1..3000 {
        for limit in [1, 2, 3, 7, 16, 30, 64, 100, 255, 256, 997, 1000, 1024] {
            assert_eq!(
                Some(largest_divisor_at_most(n, limit)),
                plain(n, limit),
                "{n} {limit}"
            );
        }
    }
    // Primes and products of primes on either side of 1024.
    assert_eq!(largest_divisor_at_most(1_000_003, 1024), 1);
    assert_eq!(largest_divisor_at_most(2 * 1_000_003, 1024), 2);
    assert_eq!(largest_divisor_at_most(1021 * 1019, 1024), 1021);
    assert_eq!(largest_divisor_at_most(1021 * 1019, 1020), 1019);
    assert_eq!(largest_divisor_at_most(3 * 7 * 1021, 1024), 1021);
    assert_eq!(largest_divisor_at_most(3 * 7 * 1031, 1024), 21);
    assert_eq!(largest_divisor_at_most(3 << 10, 1000), 768);
    assert_eq!(largest_divisor_at_most(usize::MAX, 1024), 771);
    assert_eq!(largest_divisor_at_most(0, 16), 1);
    assert_eq!(SMALL_PRIMES[171], 1021);
}

#[test]
fn local_total_rounds_each_argument_and_refuses_overflow() {
    assert_eq!(local_total(16, [1, 16, 17], 16), Some(16 + 16 + 16 + 32));
    assert_eq!(
        local_total(128, [1, 128, 129], 128),
        Some(128 + 128 + 128 + 256)
    );
    assert_eq!(local_total(0, [], 16), Some(0));
    // Rounding SIZE_MAX - 3 up to 16 does not fit: no wrap to 0.
    assert_eq!(local_total(0, [usize::MAX - 3], 16), None);
    // Two arguments of 2^63 bytes each: the sum does not fit.
    assert_eq!(local_total(0, [1 << 63, 1 << 63], 16), None);
    assert_eq!(local_total(16, [usize::MAX - 15], 16), None);
    assert_eq!(local_total(0, [usize::MAX - 100], 128), None);
}

#[test]
fn huge_local_arguments_saturate_the_query_and_refuse_the_launch() {
    let s = setup();
    let params = vec![param(ParamKind::Local, 0), param(ParamKind::Local, 8)];
    let kernel = Kernel::new(Arc::clone(&s.program), code(group_sums, params, 16));
    kernel.set_arg(0, ArgValue::Local(usize::MAX - 3)).unwrap();
    kernel.set_arg(1, ArgValue::Local(16)).unwrap();
    assert_eq!(kernel.local_mem_size(), usize::MAX);
    assert_eq!(
        kernel.prepare(&s.device).err(),
        Some(crate::ClError(CL_OUT_OF_RESOURCES))
    );
    kernel.set_arg(0, ArgValue::Local(1 << 63)).unwrap();
    kernel.set_arg(1, ArgValue::Local(1 << 63)).unwrap();
    assert_eq!(kernel.local_mem_size(), usize::MAX);
    assert_eq!(
        kernel.prepare(&s.device).err(),
        Some(crate::ClError(CL_OUT_OF_RESOURCES))
    );
}

/// The 8-byte slot at `offset` of a launch's argument block.
fn block_slot(launch: &PreparedLaunch, offset: usize) -> u64 {
    // SAFETY: every block in these tests holds 8 bytes at `offset`.
    unsafe { slot(launch.0.block.as_ptr(), offset) }
}

/// `clSetKernelArg` packs the block: a launch copies it as it was at enqueue, later
/// arguments do not reach it, and each `__local` argument's offset follows the sizes of the
/// local arguments before it (each rounded up to 128 bytes).
#[test]
fn arguments_are_packed_when_set_and_copied_at_enqueue() {
    let s = setup();
    let (a, b) = (buffer(&s.context, &[0; 16]), buffer(&s.context, &[0; 16]));
    let params = vec![
        param(ParamKind::Local, 0),
        param(ParamKind::Buffer { constant: false }, 8),
        param(ParamKind::Local, 16),
        param(ParamKind::Value { size: 4 }, 24),
    ];
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 28));
    kernel.set_arg(0, ArgValue::Local(100)).unwrap();
    kernel
        .set_arg(1, ArgValue::Buffer(Some(Arc::clone(&a))))
        .unwrap();
    kernel.set_arg(2, ArgValue::Local(8)).unwrap();
    kernel
        .set_arg(3, ArgValue::Bytes(7u32.to_ne_bytes().to_vec()))
        .unwrap();
    let first = kernel.prepare(&s.device).unwrap();
    assert_eq!(block_slot(&first, 0), 0);
    assert_eq!(block_slot(&first, 8), a.base() as u64);
    assert_eq!(block_slot(&first, 16), 128);
    assert_eq!(block_slot(&first, 24) as u32, 7);
    assert_eq!(first.0.local_size, 256);
    // A larger first local argument moves the second; the earlier launch keeps its copy.
    kernel.set_arg(0, ArgValue::Local(200)).unwrap();
    kernel
        .set_arg(1, ArgValue::Buffer(Some(Arc::clone(&b))))
        .unwrap();
    kernel
        .set_arg(3, ArgValue::Bytes(9u32.to_ne_bytes().to_vec()))
        .unwrap();
    let second = kernel.prepare(&s.device).unwrap();
    assert_eq!(block_slot(&second, 16), 256);
    assert_eq!(block_slot(&second, 8), b.base() as u64);
    assert_eq!(block_slot(&second, 24) as u32, 9);
    assert_eq!(second.0.local_size, 384);
    assert_eq!(block_slot(&first, 16), 128);
    assert_eq!(block_slot(&first, 8), a.base() as u64);
    // A NULL buffer is a zero address; a value of the wrong kind is refused when set.
    kernel.set_arg(1, ArgValue::Buffer(None)).unwrap();
    assert_eq!(block_slot(&kernel.prepare(&s.device).unwrap(), 8), 0);
    assert_eq!(
        kernel.set_arg(3, ArgValue::Local(4)).err(),
        Some(crate::ClError(CL_INVALID_ARG_VALUE))
    );
    assert_eq!(
        kernel.set_arg(3, ArgValue::Bytes(vec![0; 8])).err(),
        Some(crate::ClError(CL_INVALID_ARG_VALUE))
    );
}

/// A launch holds its buffers; a buffer released before the launch is no argument.
#[test]
fn a_launch_holds_its_buffers_and_refuses_released_ones() {
    let s = setup();
    let params = vec![param(ParamKind::Buffer { constant: false }, 0)];
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 8));
    let a = buffer(&s.context, &[0; 16]);
    kernel
        .set_arg(0, ArgValue::Buffer(Some(Arc::clone(&a))))
        .unwrap();
    let launch = kernel.prepare(&s.device).unwrap();
    let weak = Arc::downgrade(&a);
    drop(a);
    assert!(weak.upgrade().is_some(), "the launch keeps the buffer");
    drop(launch);
    assert!(weak.upgrade().is_none());
    assert_eq!(
        kernel.prepare(&s.device).err(),
        Some(crate::ClError(CL_INVALID_KERNEL_ARGS))
    );
}

/// Launches share the kernel's snapshot of its arguments while they do not change; after
/// `clSetKernelArg` the next launch gets a new one and the earlier launches keep theirs;
/// the kernel itself keeps no buffer alive; a snapshot holding a buffer the application
/// has released is not reused (the launch is refused).
#[test]
fn launches_share_the_arguments_snapshot_until_an_argument_changes() {
    let s = setup();
    let (a, b) = (buffer(&s.context, &[0; 16]), buffer(&s.context, &[0; 16]));
    let params = vec![
        param(ParamKind::Buffer { constant: false }, 0),
        param(ParamKind::Value { size: 4 }, 8),
    ];
    let kernel = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 12));
    kernel
        .set_arg(0, ArgValue::Buffer(Some(Arc::clone(&a))))
        .unwrap();
    kernel
        .set_arg(1, ArgValue::Bytes(5u32.to_ne_bytes().to_vec()))
        .unwrap();
    let first = kernel.prepare(&s.device).unwrap();
    let second = kernel.prepare(&s.device).unwrap();
    assert!(first.shares_arguments_with(&second));
    // Holding a buffer, the snapshot is not the kernel's to keep.
    assert!(kernel.args.lock().kept.is_none());
    // One count on the buffer for both launches.
    assert_eq!(Arc::strong_count(&a), 2);
    kernel
        .set_arg(1, ArgValue::Bytes(6u32.to_ne_bytes().to_vec()))
        .unwrap();
    let third = kernel.prepare(&s.device).unwrap();
    assert!(!third.shares_arguments_with(&second));
    assert_eq!(block_slot(&first, 8) as u32, 5);
    assert_eq!(block_slot(&third, 8) as u32, 6);
    assert_eq!(Arc::strong_count(&a), 3);
    // A launch in its event shares the live snapshot, or copies the arguments (no
    // allocation, nothing recorded) when none is live.
    let in_event = |kernel: &Kernel| InEvent::prepare(kernel, &mut kernel.args.lock(), &s.device);
    assert!(
        matches!(in_event(&kernel).unwrap().0, Captured::Shared(ref shared) if Arc::ptr_eq(shared, &third.0))
    );
    drop((first, second, third));
    assert_eq!(Arc::strong_count(&a), 1, "the kernel holds no buffer");
    let own = in_event(&kernel).unwrap();
    assert!(matches!(own.0, Captured::Own(_)));
    assert_eq!(Arc::strong_count(&a), 2);
    assert!(kernel.args.lock().snapshot.upgrade().is_none());
    drop(own);
    assert_eq!(Arc::strong_count(&a), 1);
    // The application releases `b` while a launch's snapshot holds it: the next launch
    // does not reuse that snapshot, and is refused.
    kernel
        .set_arg(0, ArgValue::Buffer(Some(Arc::clone(&b))))
        .unwrap();
    let holding = kernel.prepare(&s.device).unwrap();
    assert!(b.header().api_release());
    assert_eq!(
        kernel.prepare(&s.device).err(),
        Some(crate::ClError(CL_INVALID_KERNEL_ARGS))
    );
    drop(holding);
    // A kernel without memory objects keeps its snapshot: a launch after the last one
    // was dropped reuses it.
    let params = vec![param(ParamKind::Value { size: 4 }, 0)];
    let plain = Kernel::new(Arc::clone(&s.program), code(vector_add, params, 4));
    plain
        .set_arg(0, ArgValue::Bytes(5u32.to_ne_bytes().to_vec()))
        .unwrap();
    drop(plain.prepare(&s.device).unwrap());
    let kept = plain.args.lock().kept.clone().expect("kept");
    let again = plain.prepare(&s.device).unwrap();
    assert!(Arc::ptr_eq(&kept, &again.0));
}

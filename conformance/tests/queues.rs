//! Command-queues (OpenCL 1.2 §5.1, §5.13; `clSetCommandQueueProperty` from OpenCL 1.0
//! §5.1), as an application sees them through the ICD loader.
//!
//! ocl-icd answers calls on a NULL queue or context itself; where an invalid handle must
//! reach clift, the tests pass a live handle of another type.

use std::ptr::null_mut;
use std::time::Duration;

use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

const ALL_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// A context over the device, released on drop.
struct Context(cl_context);

impl Context {
    fn new() -> Context {
        Context(
            api()
                .create_context(None, &[device()])
                .expect("clCreateContext"),
        )
    }

    fn queue(&self, properties: cl_command_queue_properties) -> cl_command_queue {
        api()
            .create_command_queue(self.0, device(), properties)
            .unwrap_or_else(|e| panic!("clCreateCommandQueue({properties:#x}) failed: {e}"))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let status = api().release_context(self.0);
        if !std::thread::panicking() {
            assert_eq!(status, CL_SUCCESS, "clReleaseContext");
        }
    }
}

fn release(queue: cl_command_queue) {
    assert_eq!(api().finish(queue), CL_SUCCESS);
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
}

fn properties_of(queue: cl_command_queue) -> cl_command_queue_properties {
    api().command_queue_scalar(queue, CL_QUEUE_PROPERTIES)
}

fn reference_count(queue: cl_command_queue) -> cl_uint {
    api().command_queue_scalar(queue, CL_QUEUE_REFERENCE_COUNT)
}

/// The error of a `clCreateCommandQueue` expected to fail (releasing a queue it made).
fn create_error(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
) -> cl_int {
    match api().create_command_queue(context, device, properties) {
        Ok(queue) => {
            release(queue);
            CL_SUCCESS
        }
        Err(status) => status,
    }
}

// clCreateCommandQueue

#[test]
fn device_supports_both_queue_properties() {
    // Table 4.3, CL_DEVICE_QUEUE_PROPERTIES: "Describes the command-queue properties
    // supported by the device"; clift supports out-of-order execution and profiling.
    let supported: cl_command_queue_properties =
        api().device_ulong(device(), CL_DEVICE_QUEUE_PROPERTIES);
    assert_eq!(supported, ALL_PROPERTIES);
}

#[test]
fn queue_with_each_property_combination_reports_its_creation() {
    let context = Context::new();
    for properties in [
        0,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_PROFILING_ENABLE,
        ALL_PROPERTIES,
    ] {
        let queue = context.queue(properties);
        // CL_QUEUE_PROPERTIES: "Return the currently specified properties for the
        // command-queue. These properties are specified by the properties argument in
        // clCreateCommandQueue".
        assert_eq!(properties_of(queue), properties);
        assert_eq!(
            api().command_queue_scalar::<cl_context>(queue, CL_QUEUE_CONTEXT),
            context.0
        );
        assert_eq!(
            api().command_queue_scalar::<cl_device_id>(queue, CL_QUEUE_DEVICE),
            device()
        );
        assert_eq!(reference_count(queue), 1);
        release(queue);
    }
}

#[test]
fn queue_info_answers_have_the_sizes_of_their_types() {
    let context = Context::new();
    let queue = context.queue(0);
    let size = |param| api().command_queue_info(queue, param).unwrap().len();
    assert_eq!(size(CL_QUEUE_CONTEXT), size_of::<cl_context>());
    assert_eq!(size(CL_QUEUE_DEVICE), size_of::<cl_device_id>());
    assert_eq!(size(CL_QUEUE_REFERENCE_COUNT), size_of::<cl_uint>());
    assert_eq!(
        size(CL_QUEUE_PROPERTIES),
        size_of::<cl_command_queue_properties>()
    );
    release(queue);
}

#[test]
fn undefined_property_bit_is_invalid_value() {
    // "CL_INVALID_VALUE if values specified in properties are not valid." OpenCL 1.2 defines
    // the two bits of table 5.1 only (CL_QUEUE_ON_DEVICE is OpenCL 2.0's).
    let context = Context::new();
    for properties in [
        CL_QUEUE_ON_DEVICE,
        1 << 3,
        1 << 40,
        CL_QUEUE_PROFILING_ENABLE | 1 << 7,
    ] {
        let status = create_error(context.0, device(), properties);
        assert_eq!(status, CL_INVALID_VALUE, "properties {properties:#x}");
    }
}

#[test]
fn device_not_in_the_context_is_invalid_device() {
    // "CL_INVALID_DEVICE if device is not a valid device or is not associated with
    // context." A sub-device of the context's device is not associated with the context.
    let schemes: Vec<cl_device_partition_property> =
        api().device_array(device(), CL_DEVICE_PARTITION_PROPERTIES);
    let units = api().device_uint(device(), CL_DEVICE_MAX_COMPUTE_UNITS);
    if !schemes.contains(&CL_DEVICE_PARTITION_EQUALLY) || units < 2 {
        println!("skipped: the device cannot be partitioned equally ({units} compute units)");
        return;
    }
    let subs = api()
        .create_sub_devices(device(), &[CL_DEVICE_PARTITION_EQUALLY, 1, 0])
        .expect("clCreateSubDevices");
    let context = Context::new();
    assert_eq!(
        create_error(context.0, subs[0], 0),
        CL_INVALID_DEVICE,
        "a sub-device outside the context"
    );
    // The other way: a context of a sub-device does not hold the root device.
    let sub_context = api().create_context(None, &subs[..1]).unwrap();
    assert_eq!(create_error(sub_context, device(), 0), CL_INVALID_DEVICE);
    assert_eq!(create_error(sub_context, subs[0], 0), CL_SUCCESS);
    assert_eq!(api().release_context(sub_context), CL_SUCCESS);
    for sub in subs {
        assert_eq!(api().release_device(sub), CL_SUCCESS);
    }
}

#[test]
fn non_device_handle_is_invalid_device() {
    let context = Context::new();
    assert_eq!(create_error(context.0, null_mut(), 0), CL_INVALID_DEVICE);
    assert_eq!(create_error(context.0, context.0, 0), CL_INVALID_DEVICE);
    // SAFETY: the device handle is live (root devices are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(device()) };
    assert_eq!(
        create_error(context.0, foreign.handle(), 0),
        CL_INVALID_DEVICE
    );
}

#[test]
fn non_context_handle_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid context."
    assert_eq!(create_error(device(), device(), 0), CL_INVALID_CONTEXT);
    // SAFETY: the device handle is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(device()) };
    assert_eq!(
        create_error(foreign.handle(), device(), 0),
        CL_INVALID_CONTEXT
    );
}

#[test]
fn errcode_ret_may_be_null() {
    let context = Context::new();
    let api = api();
    let create = entry!(api.clCreateCommandQueue);
    // SAFETY: valid context and device, NULL errcode_ret.
    let queue = unsafe { create(context.0, device(), 0, null_mut()) };
    assert!(!queue.is_null());
    release(queue);
    // SAFETY: as above, with an invalid property (the error under test).
    let queue = unsafe { create(context.0, device(), 1 << 9, null_mut()) };
    assert!(queue.is_null());
}

// clGetCommandQueueInfo

#[test]
fn queue_info_unknown_param_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not one of the supported values".
    let context = Context::new();
    let queue = context.queue(0);
    let mut size = 0;
    for param in [0, CL_QUEUE_PROPERTIES + 1, CL_CONTEXT_DEVICES] {
        let status = api().query_command_queue_info(queue, param, 0, None, Some(&mut size));
        assert_eq!(status, CL_INVALID_VALUE, "param {param:#x}");
    }
    release(queue);
}

#[test]
fn queue_info_into_a_too_small_buffer_is_invalid_value() {
    // "... or if size in bytes specified by param_value_size is < size of return type ...
    // and param_value is not a NULL value."
    let context = Context::new();
    let queue = context.queue(0);
    let mut value = [0u8; 8];
    for (param, size) in [
        (CL_QUEUE_PROPERTIES, 7),
        (CL_QUEUE_CONTEXT, 4),
        (CL_QUEUE_REFERENCE_COUNT, 3),
    ] {
        let status = api().query_command_queue_info(queue, param, size, Some(&mut value), None);
        assert_eq!(status, CL_INVALID_VALUE, "param {param:#x}");
    }
    release(queue);
}

#[test]
fn queue_info_of_a_non_queue_is_invalid_command_queue() {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue."
    let context = Context::new();
    let mut size = 0;
    let status =
        api().query_command_queue_info(context.0, CL_QUEUE_CONTEXT, 0, None, Some(&mut size));
    assert_eq!(status, CL_INVALID_COMMAND_QUEUE);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(context.0) };
    let status = api().query_command_queue_info(
        foreign.handle(),
        CL_QUEUE_CONTEXT,
        0,
        None,
        Some(&mut size),
    );
    assert_eq!(status, CL_INVALID_COMMAND_QUEUE);
}

// clRetainCommandQueue / clReleaseCommandQueue

#[test]
fn retain_and_release_track_the_reference_count() {
    // "clCreateCommandQueue performs an implicit retain."
    let context = Context::new();
    let queue = context.queue(0);
    assert_eq!(reference_count(queue), 1);
    assert_eq!(api().retain_command_queue(queue), CL_SUCCESS);
    assert_eq!(reference_count(queue), 2);
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
    assert_eq!(reference_count(queue), 1);
    release(queue);
}

#[test]
fn retain_or_release_of_a_non_queue_is_invalid_command_queue() {
    let context = Context::new();
    assert_eq!(
        api().retain_command_queue(context.0),
        CL_INVALID_COMMAND_QUEUE
    );
    assert_eq!(
        api().release_command_queue(device()),
        CL_INVALID_COMMAND_QUEUE
    );
}

#[test]
fn released_queue_still_completes_its_commands() {
    // "After the command_queue reference count becomes zero and all commands queued to
    // command_queue have finished (eg. kernel executions, memory object updates, etc.), the
    // command-queue is deleted." "clReleaseCommandQueue performs an implicit flush to issue
    // any previously queued OpenCL commands in command_queue."
    let context = Context::new();
    let queue = context.queue(0);
    let gate = api().create_user_event(context.0).unwrap();
    let data: Vec<u8> = (0..=255).collect();
    let mem = api().create_buffer_from(context.0, 0, &data).unwrap();
    let mut filled = null_mut();
    let status = api().enqueue_fill_buffer(
        queue,
        mem,
        Some(&[0x33]),
        1,
        0,
        128,
        Waits::on(&[gate]),
        Some(&mut filled),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[filled]), CL_SUCCESS);
    assert_eq!(api().event_status(filled), CL_COMPLETE);
    // Read back through a new queue.
    let reader = context.queue(0);
    let mut out = vec![0u8; 256];
    assert_eq!(
        api().read_buffer(reader, mem, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert!(out[..128].iter().all(|&b| b == 0x33));
    assert_eq!(out[128..], data[128..]);
    release(reader);
    for event in [gate, filled] {
        assert_eq!(api().release_event(event), CL_SUCCESS);
    }
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

// clSetCommandQueueProperty (OpenCL 1.0)

#[test]
fn set_command_queue_property_returns_the_old_properties() {
    // OpenCL 1.0: "old_properties returns the command-queue properties before they were
    // changed by clSetCommandQueueProperty. If old_properties is NULL, it is ignored."
    let context = Context::new();
    let queue = context.queue(0);
    let mut old = 0xdead;
    let api = api();
    let status =
        api.set_command_queue_property(queue, CL_QUEUE_PROFILING_ENABLE, true, Some(&mut old));
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(old, 0);
    assert_eq!(properties_of(queue), CL_QUEUE_PROFILING_ENABLE);
    let status = api.set_command_queue_property(
        queue,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        true,
        Some(&mut old),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(old, CL_QUEUE_PROFILING_ENABLE);
    assert_eq!(properties_of(queue), ALL_PROPERTIES);
    let status =
        api.set_command_queue_property(queue, CL_QUEUE_PROFILING_ENABLE, false, Some(&mut old));
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(old, ALL_PROPERTIES);
    assert_eq!(properties_of(queue), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let status =
        api.set_command_queue_property(queue, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, false, None);
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(properties_of(queue), 0);
    release(queue);
}

#[test]
fn set_command_queue_property_with_undefined_bits_is_invalid_value() {
    // OpenCL 1.0: "CL_INVALID_VALUE if the values specified in properties are not valid."
    let context = Context::new();
    let queue = context.queue(CL_QUEUE_PROFILING_ENABLE);
    for properties in [1 << 2, 1 << 30, CL_QUEUE_PROFILING_ENABLE | 1 << 5] {
        let status = api().set_command_queue_property(queue, properties, true, None);
        assert_eq!(status, CL_INVALID_VALUE, "properties {properties:#x}");
    }
    assert_eq!(properties_of(queue), CL_QUEUE_PROFILING_ENABLE);
    release(queue);
}

#[test]
fn set_command_queue_property_on_a_non_queue_is_invalid_command_queue() {
    let context = Context::new();
    let status = api().set_command_queue_property(context.0, CL_QUEUE_PROFILING_ENABLE, true, None);
    assert_eq!(status, CL_INVALID_COMMAND_QUEUE);
}

// clFlush / clFinish

/// Enqueues `n` non-blocking fills of one byte each of `mem`, returning their events.
fn fills(queue: cl_command_queue, mem: cl_mem, n: usize) -> Vec<cl_event> {
    (0..n)
        .map(|i| {
            let mut event = null_mut();
            let status = api().enqueue_fill_buffer(
                queue,
                mem,
                Some(&[i as u8]),
                1,
                i,
                1,
                Waits::NONE,
                Some(&mut event),
            );
            assert_eq!(status, CL_SUCCESS);
            event
        })
        .collect()
}

#[test]
fn finish_returns_once_every_enqueued_command_has_completed() {
    // "clFinish blocks until all previously queued OpenCL commands in command_queue are
    // issued to the associated device and have completed."
    let context = Context::new();
    for properties in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let queue = context.queue(properties);
        let mem = api().create_buffer(context.0, 0, 256).unwrap();
        let events = fills(queue, mem, 200);
        assert_eq!(api().finish(queue), CL_SUCCESS);
        for &event in &events {
            assert_eq!(api().event_status(event), CL_COMPLETE);
            assert_eq!(api().release_event(event), CL_SUCCESS);
        }
        let mut out = vec![0u8; 200];
        assert_eq!(
            api().read_buffer(queue, mem, 0, &mut out, Waits::NONE, None),
            CL_SUCCESS
        );
        assert!(out.iter().enumerate().all(|(i, &b)| b == i as u8));
        assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
        release(queue);
    }
}

#[test]
fn flushed_commands_complete_without_finish() {
    // "clFlush ... issues all previously queued OpenCL commands in command_queue to the
    // device": they then complete with nothing else being called on the queue.
    let context = Context::new();
    let queue = context.queue(0);
    let mem = api().create_buffer(context.0, 0, 64).unwrap();
    let events = fills(queue, mem, 16);
    assert_eq!(api().flush(queue), CL_SUCCESS);
    let done = eventually(Duration::from_secs(10), || {
        events.iter().all(|&e| api().event_status(e) == CL_COMPLETE)
    });
    assert!(done, "flushed commands did not complete");
    for event in events {
        assert_eq!(api().release_event(event), CL_SUCCESS);
    }
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
    release(queue);
}

#[test]
fn flush_and_finish_of_an_empty_queue_succeed() {
    let context = Context::new();
    let queue = context.queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_eq!(api().flush(queue), CL_SUCCESS);
    assert_eq!(api().finish(queue), CL_SUCCESS);
    release(queue);
}

#[test]
fn flush_or_finish_of_a_non_queue_is_invalid_command_queue() {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue."
    let context = Context::new();
    assert_eq!(api().flush(context.0), CL_INVALID_COMMAND_QUEUE);
    assert_eq!(api().finish(context.0), CL_INVALID_COMMAND_QUEUE);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(context.0) };
    assert_eq!(api().flush(foreign.handle()), CL_INVALID_COMMAND_QUEUE);
    assert_eq!(api().finish(foreign.handle()), CL_INVALID_COMMAND_QUEUE);
}

// In-order execution

#[test]
fn in_order_queue_starts_a_command_only_after_the_previous_one_completed() {
    // §5.11: "If the CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE property of a command-queue is
    // not set, the commands enqueued to a command-queue execute in order."
    let context = Context::new();
    let queue = context.queue(0);
    let mem = api().create_buffer(context.0, 0, 64).unwrap();
    let gate = api().create_user_event(context.0).unwrap();
    let (mut first, mut second) = (null_mut(), null_mut());
    let status = api().enqueue_fill_buffer(
        queue,
        mem,
        Some(&[1]),
        1,
        0,
        64,
        Waits::on(&[gate]),
        Some(&mut first),
    );
    assert_eq!(status, CL_SUCCESS);
    // No wait list: only the queue's order holds it back.
    let status = api().enqueue_fill_buffer(
        queue,
        mem,
        Some(&[2]),
        1,
        32,
        32,
        Waits::NONE,
        Some(&mut second),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().flush(queue), CL_SUCCESS);
    std::thread::sleep(Duration::from_millis(30));
    assert_ne!(api().event_status(second), CL_COMPLETE, "ran out of order");
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[second]), CL_SUCCESS);
    assert_eq!(api().event_status(first), CL_COMPLETE);
    let mut out = vec![0u8; 64];
    assert_eq!(
        api().read_buffer(queue, mem, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert_eq!(out, [[1u8; 32], [2u8; 32]].concat());
    for event in [gate, first, second] {
        assert_eq!(api().release_event(event), CL_SUCCESS);
    }
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
    release(queue);
}

#[test]
fn commands_of_different_queues_wait_for_each_others_events() {
    // §5.1: "If there are multiple command-queues, the application must ... synchronize" —
    // through events: a command of one queue may wait for a command of another.
    let context = Context::new();
    let producer = context.queue(0);
    let consumer = context.queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let src = api().create_buffer(context.0, 0, 128).unwrap();
    let dst = api().create_buffer(context.0, 0, 128).unwrap();
    let gate = api().create_user_event(context.0).unwrap();
    let (mut filled, mut copied) = (null_mut(), null_mut());
    let status = api().enqueue_fill_buffer(
        producer,
        src,
        Some(&[0x4d, 0x5e]),
        2,
        0,
        128,
        Waits::on(&[gate]),
        Some(&mut filled),
    );
    assert_eq!(status, CL_SUCCESS);
    let status = api().enqueue_copy_buffer(
        consumer,
        src,
        dst,
        0,
        0,
        128,
        Waits::on(&[filled]),
        Some(&mut copied),
    );
    assert_eq!(status, CL_SUCCESS);
    std::thread::sleep(Duration::from_millis(20));
    assert_ne!(api().event_status(copied), CL_COMPLETE);
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    let mut out = vec![0u8; 128];
    assert_eq!(
        api().read_buffer(consumer, dst, 0, &mut out, Waits::on(&[copied]), None),
        CL_SUCCESS
    );
    assert_eq!(out, [0x4d, 0x5e].repeat(64));
    for event in [gate, filled, copied] {
        assert_eq!(api().release_event(event), CL_SUCCESS);
    }
    for mem in [src, dst] {
        assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
    }
    release(producer);
    release(consumer);
}

// clCreateCommandQueueWithProperties (OpenCL 2.0, answered for OpenCL 1.2 properties)

/// The queue or error of `clCreateCommandQueueWithProperties` with `properties` (a
/// zero-terminated list, or NULL for `None`).
fn create_with_properties(
    context: cl_context,
    device: cl_device_id,
    properties: Option<&[cl_queue_properties]>,
) -> Result<cl_command_queue, cl_int> {
    let api = api();
    let create = entry!(api.clCreateCommandQueueWithProperties);
    let list = properties.map_or(std::ptr::null(), |p| p.as_ptr());
    let mut status = CL_SUCCESS - 1;
    // SAFETY: handles are live or NULL; `list` is NULL or zero-terminated.
    let queue = unsafe { create(context, device, list, &mut status) };
    if queue.is_null() {
        Err(status)
    } else {
        assert_eq!(status, CL_SUCCESS);
        Ok(queue)
    }
}

#[test]
fn queue_with_properties_list_reports_its_bits() {
    let context = Context::new();
    let queue = create_with_properties(context.0, device(), None).expect("NULL list");
    assert_eq!(properties_of(queue), 0);
    release(queue);
    let list = [
        CL_QUEUE_PROPERTIES as cl_queue_properties,
        ALL_PROPERTIES,
        0,
    ];
    let queue = create_with_properties(context.0, device(), Some(&list)).expect("both bits");
    assert_eq!(properties_of(queue), ALL_PROPERTIES);
    assert_eq!(reference_count(queue), 1);
    // The queue works: a fill and a read through it.
    let mut out = [0u8; 4];
    let buffer = api()
        .create_buffer(context.0, CL_MEM_READ_WRITE, 4)
        .expect("clCreateBuffer");
    assert_eq!(
        api().enqueue_fill_buffer(queue, buffer, Some(&[7]), 1, 0, 4, Waits::NONE, None),
        CL_SUCCESS
    );
    // Out of order: the read may not start before the fill has finished.
    assert_eq!(api().finish(queue), CL_SUCCESS);
    assert_eq!(
        api().read_buffer(queue, buffer, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert_eq!(out, [7; 4]);
    assert_eq!(api().release_mem_object(buffer), CL_SUCCESS);
    release(queue);
}

#[test]
fn queue_with_properties_errors() {
    let context = Context::new();
    // "CL_INVALID_CONTEXT if context is not a valid context", "CL_INVALID_DEVICE if device
    // is not a valid device".
    assert_eq!(
        create_with_properties(device(), device(), None),
        Err(CL_INVALID_CONTEXT)
    );
    assert_eq!(
        create_with_properties(context.0, context.0, None),
        Err(CL_INVALID_DEVICE)
    );
    // "CL_INVALID_VALUE if values specified in properties are not valid": an unknown name
    // (what the CTS's negative test passes), a name given twice, unknown bits.
    let key = CL_QUEUE_PROPERTIES as cl_queue_properties;
    for list in [
        vec![u64::MAX, u64::MAX, 0, 0, 0],
        vec![key, 0, key, 0, 0],
        vec![key, 1 << 9, 0],
    ] {
        assert_eq!(
            create_with_properties(context.0, device(), Some(&list)),
            Err(CL_INVALID_VALUE),
            "{list:x?}"
        );
    }
    // "CL_INVALID_QUEUE_PROPERTIES if values specified in properties are valid but are not
    // supported by the device": CL_QUEUE_ON_DEVICE (1 << 2), CL_QUEUE_SIZE (0x1094).
    for list in [vec![key, 1 << 2, 0], vec![0x1094, 16, 0]] {
        assert_eq!(
            create_with_properties(context.0, device(), Some(&list)),
            Err(CL_INVALID_QUEUE_PROPERTIES),
            "{list:x?}"
        );
    }
}

/// A thread waiting for a command may run it itself while the device's worker, handed the
/// same command, tries to as well. The worker must find it taken and go on, not wait for the
/// run: a large copy is split over the device's workers, so on a device of one compute unit
/// a run that waited for that worker while the worker waited for the run never ended (seen as
/// a hang of `clift-bench --only transfer` under `CLIFT_MAX_COMPUTE_UNITS=1`).
#[test]
fn a_large_copy_finished_on_a_one_unit_sub_device_does_not_wait_for_its_own_worker() {
    let units = api().device_uint(device(), CL_DEVICE_MAX_COMPUTE_UNITS);
    assert!(
        units >= 2,
        "clift's CPU device has a compute unit per core ({units})"
    );
    let subs = api()
        .create_sub_devices(device(), &[CL_DEVICE_PARTITION_EQUALLY, 1, 0])
        .expect("clCreateSubDevices");
    assert_eq!(
        api().device_uint(subs[0], CL_DEVICE_MAX_COMPUTE_UNITS),
        1,
        "a sub-device of one compute unit"
    );
    let context = api().create_context(None, &subs[..1]).unwrap();
    let queue = api().create_command_queue(context, subs[0], 0).unwrap();
    // Large enough to be split over the pool (2 MiB or more), small enough to be quick.
    const SIZE: usize = 8 << 20;
    let data: Vec<u8> = (0..SIZE).map(|i| (i * 7 + 3) as u8).collect();
    let src = api().create_buffer_from(context, 0, &data).unwrap();
    let dst = api().create_buffer(context, 0, SIZE).unwrap();
    let (queue_addr, src_addr, dst_addr) = (queue as usize, src as usize, dst as usize);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let queue = queue_addr as cl_command_queue;
        for _ in 0..200 {
            let status = api().enqueue_copy_buffer(
                queue,
                src_addr as cl_mem,
                dst_addr as cl_mem,
                0,
                0,
                SIZE,
                Waits::NONE,
                None,
            );
            assert_eq!(status, CL_SUCCESS, "clEnqueueCopyBuffer");
            assert_eq!(api().finish(queue), CL_SUCCESS, "clFinish");
        }
        done_tx.send(()).unwrap();
    });
    done_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("200 copies and clFinish on a one-unit sub-device did not end: a deadlock");
    let mut out = vec![0u8; SIZE];
    assert_eq!(
        api().read_buffer(queue, dst, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert!(out == data, "the copy's bytes");
    for mem in [src, dst] {
        assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
    }
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
    assert_eq!(api().release_context(context), CL_SUCCESS);
    for sub in subs {
        assert_eq!(api().release_device(sub), CL_SUCCESS);
    }
}

/// `x[0] = x[0] * 3 + v`: the result of a run of launches depends on their order and on
/// the `v` each one was enqueued with.
const STEP: &str = "kernel void advance(global uint *x, uint v) { x[0] = x[0] * 3u + v; }";

/// What [`STEP`] launched with `v` = each of `values`, in order, leaves in `x[0]`.
fn stepped(values: impl IntoIterator<Item = u32>) -> u32 {
    values
        .into_iter()
        .fold(0u32, |x, v| x.wrapping_mul(3).wrapping_add(v))
}

/// A burst of launches without events (no event pointer: the queue needs none for them)
/// behind a launch held back by a user event: they run in order, each with the argument
/// set before its enqueue (`clSetKernelArg` after an enqueue does not change it), after
/// the held one; a marker enqueued after them completes only once they have run, and so
/// does `clFinish`.
#[test]
fn launches_without_events_run_in_order_with_their_own_arguments() {
    use clift_conformance::kernel_fixture::Fixture;
    let fx = Fixture::new();
    let k = fx.kernel(STEP, c"advance", c"");
    // The application's memory (`CL_MEM_USE_HOST_PTR`), read here without a command after
    // the marker's wait.
    let host = Box::new(std::sync::atomic::AtomicU32::new(0));
    // SAFETY: `host` outlives the buffer, released at the end.
    let (mem, status) = unsafe {
        api().create_buffer_raw(fx.context, CL_MEM_USE_HOST_PTR, 4, host.as_ptr().cast())
    };
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().set_kernel_arg_mem(k.kernel, 0, mem), CL_SUCCESS);
    let gate = api().create_user_event(fx.context).unwrap();
    k.arg(1, 1u32);
    assert_eq!(launch_one(&fx, &k, Waits::on(&[gate]), None), CL_SUCCESS);
    for v in 2..=300u32 {
        k.arg(1, v);
        fx.enqueue(&k, None, &[1], None);
    }
    k.arg(1, 1000u32);
    let mut marker = null_mut();
    assert_eq!(
        api().enqueue_marker_with_wait_list(fx.queue, Waits::NONE, Some(&mut marker)),
        CL_SUCCESS
    );
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(host.load(std::sync::atomic::Ordering::Acquire), 0);
    assert!(api().event_status(marker) > CL_COMPLETE);
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[marker]), CL_SUCCESS);
    let expected = stepped(1..=300);
    assert_eq!(host.load(std::sync::atomic::Ordering::Acquire), expected);
    // More of them, and `clFinish`.
    for v in [7u32, 8, 9] {
        k.arg(1, v);
        fx.enqueue(&k, None, &[1], None);
    }
    assert_eq!(api().finish(fx.queue), CL_SUCCESS);
    let finished = host.load(std::sync::atomic::Ordering::Acquire);
    assert_eq!(finished, stepped((1..=300).chain([7, 8, 9])));
    assert_eq!(
        [marker, gate].map(|event| api().release_event(event)),
        [CL_SUCCESS; 2]
    );
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

/// Enqueues `k` over one work-item after `waits`, returning its event into `event`.
fn launch_one(
    fx: &clift_conformance::kernel_fixture::Fixture,
    k: &clift_conformance::kernel_fixture::Kernel,
    waits: Waits<'_>,
    event: Option<&mut cl_event>,
) -> cl_int {
    api().enqueue_nd_range_kernel(fx.queue, k.kernel, 1, None, Some(&[1]), None, waits, event)
}

/// A blocking read and a launch with an event after a burst of launches without events
/// see every one of them; a launch that faults among them fails nothing after it.
#[test]
fn a_faulting_launch_without_an_event_fails_nothing_after_it() {
    use clift_conformance::kernel_fixture::Fixture;
    let fx = Fixture::new();
    let k = fx.kernel(STEP, c"advance", c"");
    let x = fx.buffer(&[0u32]);
    k.mem(0, &x);
    let null = k.sibling("advance");
    // A NULL buffer: the launch faults (CL_OUT_OF_RESOURCES for its event, had it one).
    assert_eq!(
        api().set_kernel_arg_raw(null.kernel, 0, size_of::<cl_mem>(), Some(&[0u8; 8])),
        CL_SUCCESS
    );
    null.arg(1, 0u32);
    for v in 1..=10u32 {
        k.arg(1, v);
        fx.enqueue(&k, None, &[1], None);
        if v == 5 {
            fx.enqueue(&null, None, &[1], None);
        }
    }
    k.arg(1, 11u32);
    let mut last = null_mut();
    assert_eq!(
        launch_one(&fx, &k, Waits::NONE, Some(&mut last)),
        CL_SUCCESS
    );
    assert_eq!(api().wait_for_events(&[last]), CL_SUCCESS);
    assert_eq!(api().event_status(last), CL_COMPLETE);
    assert_eq!(fx.read::<u32>(&x, 1), [stepped(1..=11)]);
    assert_eq!(api().release_event(last), CL_SUCCESS);
}

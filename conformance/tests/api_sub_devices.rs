//! Device partitioning (OpenCL 1.2 §4.3), as an application sees it through the ICD loader.
//!
//! Partitioning is optional and depends on the machine: a test that needs a scheme the root
//! device does not list in `CL_DEVICE_PARTITION_PROPERTIES`, or more compute units than it
//! has, prints why it is skipped and passes. Every sub-device a test creates is released.

use std::ptr::null_mut;

use clift_conformance::*;

/// The affinity domains, in the order `CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE` tries
/// them.
const DOMAINS: [cl_device_affinity_domain; 5] = [
    CL_DEVICE_AFFINITY_DOMAIN_NUMA,
    CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
];

fn root() -> cl_device_id {
    clift().device()
}

fn compute_units(device: cl_device_id) -> cl_uint {
    clift().device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS)
}

fn partition_type(device: cl_device_id) -> Vec<cl_device_partition_property> {
    clift().device_array(device, CL_DEVICE_PARTITION_TYPE)
}

fn affinity_domains(device: cl_device_id) -> cl_device_affinity_domain {
    clift().device_ulong(device, CL_DEVICE_PARTITION_AFFINITY_DOMAIN)
}

/// The root's compute units when it lists `scheme` and has at least `units` compute units;
/// otherwise prints why the calling test is skipped.
fn root_with(scheme: cl_device_partition_property, units: cl_uint) -> Option<cl_uint> {
    let schemes: Vec<cl_device_partition_property> =
        clift().device_array(root(), CL_DEVICE_PARTITION_PROPERTIES);
    let available = compute_units(root());
    if !schemes.contains(&scheme) {
        println!("skipped: the root device does not list partition scheme {scheme:#x}");
        None
    } else if available < units {
        println!("skipped: needs {units} compute units, the root device has {available}");
        None
    } else {
        Some(available)
    }
}

/// Partitions `device`, panicking on error.
fn partition(
    device: cl_device_id,
    properties: &[cl_device_partition_property],
) -> Vec<cl_device_id> {
    clift()
        .create_sub_devices(device, properties)
        .unwrap_or_else(|e| panic!("clCreateSubDevices({properties:?}) failed: {e}"))
}

/// The error of a partition expected to fail (releasing what it created if it did not).
fn partition_error(device: cl_device_id, properties: &[cl_device_partition_property]) -> cl_int {
    match clift().create_sub_devices(device, properties) {
        Ok(devices) => {
            release_all(&devices);
            CL_SUCCESS
        }
        Err(status) => status,
    }
}

fn release_all(devices: &[cl_device_id]) {
    for &device in devices {
        assert_eq!(clift().release_device(device), CL_SUCCESS);
    }
}

const EQUALLY_BY_ONE: [cl_device_partition_property; 3] = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];

// Partition schemes

#[test]
fn equally_by_one_makes_one_single_unit_device_per_compute_unit() {
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let devices = partition(root(), &EQUALLY_BY_ONE);
    assert_eq!(devices.len(), units as usize);
    for &device in &devices {
        assert_eq!(compute_units(device), 1);
    }
    release_all(&devices);
}

#[test]
fn count_query_reports_the_number_of_sub_devices() {
    // "num_devices_ret returns the number of sub-devices that device may be partitioned into
    // according to the partitioning scheme specified in properties."
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let mut count = 0;
    let status =
        clift().create_sub_devices_raw(root(), Some(&EQUALLY_BY_ONE), 0, None, Some(&mut count));
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(count, units);
}

#[test]
fn sub_device_parent_is_the_device_partitioned() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let devices = partition(root(), &EQUALLY_BY_ONE);
    for &device in &devices {
        let parent = clift().device_scalar::<cl_device_id>(device, CL_DEVICE_PARENT_DEVICE);
        assert_eq!(parent, root());
    }
    release_all(&devices);
}

#[test]
fn sub_device_partition_type_is_the_properties_given() {
    // CL_DEVICE_PARTITION_TYPE: "Returns the properties argument specified in
    // clCreateSubDevices if device is a subdevice."
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let devices = partition(root(), &EQUALLY_BY_ONE);
    for &device in &devices {
        assert_eq!(partition_type(device), EQUALLY_BY_ONE);
    }
    release_all(&devices);
}

#[test]
fn sub_device_shares_the_platform_and_type_of_its_parent() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let api = clift();
    let devices = partition(root(), &EQUALLY_BY_ONE);
    for &device in &devices {
        let platform = api.device_scalar::<cl_platform_id>(device, CL_DEVICE_PLATFORM);
        assert_eq!(platform, api.platform());
        let device_type = api.device_ulong(device, CL_DEVICE_TYPE);
        assert_eq!(device_type, api.device_ulong(root(), CL_DEVICE_TYPE));
    }
    release_all(&devices);
}

#[test]
fn sub_device_reference_count_starts_at_one_and_tracks_retain_and_release() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let api = clift();
    let devices = partition(root(), &EQUALLY_BY_ONE);
    let device = devices[0];
    assert_eq!(api.device_uint(device, CL_DEVICE_REFERENCE_COUNT), 1);
    assert_eq!(api.retain_device(device), CL_SUCCESS);
    assert_eq!(api.device_uint(device, CL_DEVICE_REFERENCE_COUNT), 2);
    assert_eq!(api.release_device(device), CL_SUCCESS);
    assert_eq!(api.device_uint(device, CL_DEVICE_REFERENCE_COUNT), 1);
    release_all(&devices);
}

#[test]
fn by_counts_one_and_one_makes_two_single_unit_devices() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_BY_COUNTS, 2) else {
        return;
    };
    let properties = [
        CL_DEVICE_PARTITION_BY_COUNTS,
        1,
        1,
        CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
        0,
    ];
    let devices = partition(root(), &properties);
    assert_eq!(devices.len(), 2);
    for &device in &devices {
        assert_eq!(compute_units(device), 1);
        assert_eq!(partition_type(device), properties);
    }
    release_all(&devices);
}

#[test]
fn next_partitionable_domain_reports_the_domain_it_used() {
    // NEXT_PARTITIONABLE: "find the first level along which the device or sub-device may be
    // further subdivided in the order NUMA, L4, L3, L2, L1". The sub-devices report that
    // level, not NEXT_PARTITIONABLE.
    let Some(units) = root_with(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, 2) else {
        return;
    };
    let supported = affinity_domains(root());
    if supported & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE == 0 {
        println!("skipped: the root device does not list NEXT_PARTITIONABLE");
        return;
    }
    let next = CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE as cl_device_partition_property;
    let devices = partition(root(), &[CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, next, 0]);
    assert!(devices.len() >= 2, "{} sub-devices", devices.len());
    let used = partition_type(devices[0]);
    let [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, domain, 0] = used[..] else {
        panic!("partition type {used:?}");
    };
    let domain = domain as cl_device_affinity_domain;
    assert!(
        DOMAINS.contains(&domain),
        "{domain:#x} is not a single domain"
    );
    assert_ne!(
        supported & domain,
        0,
        "{domain:#x} is not listed by the root"
    );
    let mut total = 0;
    for &device in &devices {
        assert_eq!(partition_type(device), used);
        total += compute_units(device);
    }
    assert!(total <= units);
    release_all(&devices);
}

#[test]
fn each_listed_affinity_domain_partitions_along_that_domain() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, 2) else {
        return;
    };
    let supported = affinity_domains(root());
    for domain in DOMAINS.into_iter().filter(|d| supported & d != 0) {
        let properties = [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, domain as _, 0];
        let devices = partition(root(), &properties);
        assert!(!devices.is_empty(), "domain {domain:#x}");
        for &device in &devices {
            assert_eq!(partition_type(device), properties, "domain {domain:#x}");
        }
        release_all(&devices);
    }
}

#[test]
fn sub_device_of_a_sub_device_has_it_as_parent() {
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    if units == 2 {
        // Two units (a 2-core machine): the sub-devices of one unit have the root as parent,
        // and one unit cannot be partitioned again ("in_device could not be further
        // partitioned": CL_DEVICE_PARTITION_FAILED, as the Khronos CTS expects).
        let ones = partition(root(), &EQUALLY_BY_ONE);
        assert_eq!(ones.len(), 2);
        for &device in &ones {
            let parent = clift().device_scalar::<cl_device_id>(device, CL_DEVICE_PARENT_DEVICE);
            assert_eq!(parent, root());
        }
        assert_eq!(
            partition_error(ones[0], &EQUALLY_BY_ONE),
            CL_DEVICE_PARTITION_FAILED
        );
        release_all(&ones);
        return;
    }
    // Three or more: sub-devices of two units, the first split again into ones.
    let pairs = partition(root(), &[CL_DEVICE_PARTITION_EQUALLY, 2, 0]);
    assert_eq!(compute_units(pairs[0]), 2);
    let ones = partition(pairs[0], &EQUALLY_BY_ONE);
    assert_eq!(ones.len(), 2);
    for &device in &ones {
        let parent = clift().device_scalar::<cl_device_id>(device, CL_DEVICE_PARENT_DEVICE);
        assert_eq!(parent, pairs[0]);
        assert_eq!(compute_units(device), 1);
    }
    release_all(&ones);
    release_all(&pairs);
}

#[test]
fn context_over_sub_devices_holds_them() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let api = clift();
    let devices = partition(root(), &EQUALLY_BY_ONE);
    let context = api.create_context(None, &devices).expect("clCreateContext");
    let count = api.context_uint(context, CL_CONTEXT_NUM_DEVICES);
    assert_eq!(count as usize, devices.len());
    assert_eq!(
        api.context_array::<cl_device_id>(context, CL_CONTEXT_DEVICES),
        devices
    );
    assert_eq!(api.release_context(context), CL_SUCCESS);
    release_all(&devices);
}

#[test]
fn building_for_a_device_builds_for_its_sub_devices_only() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let api = clift();
    let subs = partition(root(), &EQUALLY_BY_ONE);
    let (first, second) = (subs[0], subs[1]);
    let context = api
        .create_context(None, &[first, second, root()])
        .expect("clCreateContext");
    let source = "kernel void k(global int *x) { x[get_global_id(0)] += 1; }";
    let build_for = |device: cl_device_id| {
        let program = api
            .create_program_with_source(context, &[source])
            .expect("clCreateProgramWithSource");
        // SAFETY: one live device, no callback.
        let status =
            unsafe { api.build_program_raw(program, 1, Some(&[device]), None, None, null_mut()) };
        assert_eq!(status, CL_SUCCESS);
        program
    };
    // A sub-device runs its parent's code: the CTS's device_partition builds for the
    // parent alone, then expects CL_BUILD_SUCCESS for every device of the program.
    let program = build_for(root());
    for device in [first, second, root()] {
        assert_eq!(api.build_status(program, device), CL_BUILD_SUCCESS);
    }
    // ... and runs the kernel on a sub-device's queue.
    let kernel = api.create_kernel(program, c"k").expect("clCreateKernel");
    let queue = api
        .create_command_queue(context, second, 0)
        .expect("clCreateCommandQueue");
    let buffer = api
        .create_buffer_from(context, CL_MEM_READ_WRITE, bytes_of(&[5i32; 4]))
        .expect("clCreateBuffer");
    assert_eq!(api.set_kernel_arg_mem(kernel, 0, buffer), CL_SUCCESS);
    assert_eq!(
        api.enqueue_nd_range_kernel(queue, kernel, 1, None, Some(&[4]), None, Waits::NONE, None),
        CL_SUCCESS
    );
    let mut out = [0u8; 16];
    assert_eq!(
        api.read_buffer(queue, buffer, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert_eq!(array::<i32>(&out), [6; 4]);
    // A sibling is no descendant: building for one sub-device leaves the other unbuilt.
    let sibling_only = build_for(first);
    assert_eq!(api.build_status(sibling_only, first), CL_BUILD_SUCCESS);
    assert_eq!(api.build_status(sibling_only, second), CL_BUILD_NONE);
    assert_eq!(api.build_status(sibling_only, root()), CL_BUILD_NONE);
    for status in [
        api.release_mem_object(buffer),
        api.release_command_queue(queue),
        api.release_kernel(kernel),
        api.release_program(program),
        api.release_program(sibling_only),
        api.release_context(context),
    ] {
        assert_eq!(status, CL_SUCCESS);
    }
    release_all(&subs);
}

// Errors

#[test]
fn null_properties_is_invalid_value() {
    // "CL_INVALID_VALUE if values specified in properties are not valid"
    let mut count = 0;
    let status = clift().create_sub_devices_raw(root(), None, 0, None, Some(&mut count));
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn unknown_partition_name_is_invalid_value() {
    for name in [0x4242, -1] {
        let status = partition_error(root(), &[name, 1, 0]);
        assert_eq!(status, CL_INVALID_VALUE, "partition name {name:#x}");
    }
}

#[test]
fn equally_zero_is_invalid_value() {
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let status = partition_error(root(), &[CL_DEVICE_PARTITION_EQUALLY, 0, 0]);
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn equally_more_than_the_compute_units_is_invalid_partition_count() {
    // The Khronos CTS (negative_create_sub_devices) expects
    // CL_INVALID_DEVICE_PARTITION_COUNT, "the total number of compute units requested
    // exceeds CL_DEVICE_MAX_COMPUTE_UNITS for in_device", for max + 1 per sub-device.
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    for more in [units as isize + 1, 1 << 20] {
        let properties = [CL_DEVICE_PARTITION_EQUALLY, more, 0];
        assert_eq!(
            partition_error(root(), &properties),
            CL_INVALID_DEVICE_PARTITION_COUNT,
            "{more}"
        );
    }
}

#[test]
fn equally_by_all_compute_units_is_partition_failed() {
    // A single sub-device holding every compute unit is no partition: the Khronos CTS
    // (negative_create_sub_devices) expects CL_DEVICE_PARTITION_FAILED, "in_device could not
    // be further partitioned".
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let properties = [CL_DEVICE_PARTITION_EQUALLY, units as isize, 0];
    assert_eq!(
        partition_error(root(), &properties),
        CL_DEVICE_PARTITION_FAILED
    );
}

#[test]
fn by_counts_above_the_compute_units_is_invalid_partition_count() {
    // "CL_INVALID_DEVICE_PARTITION_COUNT if the partition name specified in properties is
    // CL_DEVICE_PARTITION_BY_COUNTS and ... the total number of compute units requested
    // exceeds CL_DEVICE_PARTITION_MAX_COMPUTE_UNITS for in_device"
    let Some(units) = root_with(CL_DEVICE_PARTITION_BY_COUNTS, 2) else {
        return;
    };
    let end = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
    let properties = [CL_DEVICE_PARTITION_BY_COUNTS, units as isize, 1, end, 0];
    assert_eq!(
        partition_error(root(), &properties),
        CL_INVALID_DEVICE_PARTITION_COUNT
    );
}

#[test]
fn by_counts_with_more_entries_than_max_sub_devices_is_invalid_partition_count() {
    // "... the number of sub-devices requested exceeds CL_DEVICE_PARTITION_MAX_SUB_DEVICES"
    let Some(_) = root_with(CL_DEVICE_PARTITION_BY_COUNTS, 2) else {
        return;
    };
    let max = clift().device_uint(root(), CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    let mut properties = vec![CL_DEVICE_PARTITION_BY_COUNTS];
    properties.extend(std::iter::repeat_n(1, max as usize + 1));
    properties.extend([CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0]);
    assert_eq!(
        partition_error(root(), &properties),
        CL_INVALID_DEVICE_PARTITION_COUNT
    );
}

#[test]
fn by_counts_with_a_negative_count_is_invalid_partition_count() {
    // "... or the number of compute units requested for one or more sub-devices is less than
    // zero"
    let Some(_) = root_with(CL_DEVICE_PARTITION_BY_COUNTS, 2) else {
        return;
    };
    let end = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
    let properties = [CL_DEVICE_PARTITION_BY_COUNTS, 1, -1, end, 0];
    assert_eq!(
        partition_error(root(), &properties),
        CL_INVALID_DEVICE_PARTITION_COUNT
    );
}

#[test]
fn fewer_entries_than_sub_devices_is_invalid_value() {
    // "CL_INVALID_VALUE if out_devices is not NULL and num_devices is less than the number
    // of sub-devices created by the partition scheme."
    let Some(units) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let sentinel = 0x5a5a_usize as cl_device_id;
    let mut devices = vec![sentinel; units as usize];
    let status = clift().create_sub_devices_raw(
        root(),
        Some(&EQUALLY_BY_ONE),
        units - 1,
        Some(&mut devices),
        None,
    );
    assert_eq!(status, CL_INVALID_VALUE);
    assert!(
        devices.iter().all(|&d| d == sentinel),
        "sub-devices were returned"
    );
}

#[test]
fn partitioning_a_single_unit_device_is_partition_failed() {
    // "CL_DEVICE_PARTITION_FAILED if the partition name is supported by the implementation
    // but in_device could not be further partitioned."
    if compute_units(root()) == 1 {
        assert_eq!(
            partition_error(root(), &EQUALLY_BY_ONE),
            CL_DEVICE_PARTITION_FAILED
        );
        return;
    }
    let Some(_) = root_with(CL_DEVICE_PARTITION_EQUALLY, 2) else {
        return;
    };
    let devices = partition(root(), &EQUALLY_BY_ONE);
    let status = partition_error(devices[0], &EQUALLY_BY_ONE);
    assert_eq!(status, CL_DEVICE_PARTITION_FAILED);
    release_all(&devices);
}

#[test]
fn unlisted_affinity_domain_is_invalid_value() {
    // "CL_INVALID_VALUE if ... values specified in properties are valid but not supported by
    // the device."
    let Some(_) = root_with(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, 2) else {
        return;
    };
    let supported = affinity_domains(root());
    let Some(domain) = DOMAINS.into_iter().find(|d| supported & d == 0) else {
        println!("skipped: the root device lists every affinity domain");
        return;
    };
    let properties = [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, domain as _, 0];
    assert_eq!(partition_error(root(), &properties), CL_INVALID_VALUE);
}

#[test]
fn handles_that_are_not_devices_are_invalid_device() {
    // "CL_INVALID_DEVICE if in_device is not valid."
    let api = clift();
    let context = api
        .create_context(None, &[root()])
        .expect("clCreateContext");
    // SAFETY: the device handle is live (root devices are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(root()) };
    for handle in [null_mut(), api.platform(), context, foreign.handle()] {
        let mut count = 0;
        let status =
            api.create_sub_devices_raw(handle, Some(&EQUALLY_BY_ONE), 0, None, Some(&mut count));
        assert_eq!(status, CL_INVALID_DEVICE, "handle {handle:?}");
    }
    assert_eq!(api.release_context(context), CL_SUCCESS);
}

//! The CPU device: the root device (every CPU the process may use) and its sub-devices.
//!
//! A device is a set of CPUs plus the facts of the machine they belong to. Everything
//! `clGetDeviceInfo` reports is derived here from the live [`Topology`], so the numbers are
//! the machine's, not a table's.

use std::sync::{Arc, OnceLock};

use khronos_headers::*;

use crate::error::{ClResult, fail};
use crate::object::{ClObject, Header, ObjectKind};
use crate::scheduler::Executor;
use crate::topology::{AffinityDomain, CpuSet, Topology};

/// Fixed limits of the execution model (the same for every CPU).
pub mod limits {
    /// Work-items of one work-group. Work-groups run as loops on one thread, so the bound is
    /// set by the per-work-item storage for values live across barriers, not by hardware.
    pub const MAX_WORK_GROUP_SIZE: usize = 4096;
    pub const MAX_WORK_ITEM_DIMENSIONS: u32 = 3;
    pub const MAX_WORK_ITEM_SIZES: [usize; 3] = [4096, 4096, 4096];
    /// Bytes of kernel arguments (the spec's minimum for the full profile is 1024).
    pub const MAX_PARAMETER_SIZE: usize = 4096;
    /// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bits: the size of `long16`, the largest built-in type.
    pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;
    /// `CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE` in bytes (the same `long16`).
    pub const MIN_DATA_TYPE_ALIGN_BYTES: u32 = 128;
    /// `__constant` memory is ordinary memory on a CPU; 1 MiB is generous for lookup tables
    /// while keeping a kernel's constant data in cache-sized territory.
    pub const MAX_CONSTANT_BUFFER_SIZE: u64 = 1 << 20;
    pub const MAX_CONSTANT_ARGS: u32 = 16;
    /// The spec's minimum for the full profile.
    pub const PRINTF_BUFFER_SIZE: usize = 1 << 20;
    /// The least local memory the full profile requires.
    pub const MIN_LOCAL_MEM_SIZE: u64 = 32 << 10;
    /// Local memory is carved out of each worker's arena; beyond a few MiB it no longer
    /// behaves like a near memory, so the reported size stops there.
    pub const MAX_LOCAL_MEM_SIZE: u64 = 4 << 20;
    /// The spec's lower bound for `CL_DEVICE_MAX_MEM_ALLOC_SIZE` (full profile).
    pub const MIN_MAX_MEM_ALLOC: u64 = 128 << 20;
    /// Image limits: the full profile's minimums or more. Images are host memory, so the
    /// bounds only keep sizes and pitches far from overflow.
    pub const IMAGE2D_MAX_SIDE: usize = 16384;
    pub const IMAGE3D_MAX_SIDE: usize = 2048;
    /// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE`: elements of a 1D buffer image.
    pub const IMAGE_MAX_BUFFER_SIZE: usize = 1 << 27;
    pub const IMAGE_MAX_ARRAY_SIZE: usize = 2048;
    pub const MAX_READ_IMAGE_ARGS: u32 = 128;
    pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
    pub const MAX_SAMPLERS: u32 = 16;
    /// Private memory one work-item may use (`CL_KERNEL_PRIVATE_MEM_SIZE`): a kernel whose
    /// private variables exceed it gets CL_OUT_OF_RESOURCES at launch. Private variables of
    /// a kernel without barriers live on the worker's stack, so the stack is sized from it.
    pub const MAX_PRIVATE_MEM_SIZE: usize = 1 << 20;
    /// Worker stacks: the private limit plus room for the frames of called functions,
    /// builtins and the driver itself. The JIT emits stack probes, so code that still
    /// runs past the stack hits the guard page instead of another thread's stack.
    pub const WORKER_STACK_SIZE: usize = MAX_PRIVATE_MEM_SIZE + (7 << 20);
    /// Timestamps come from a monotonic nanosecond clock.
    pub const PROFILING_TIMER_RESOLUTION_NS: usize = 1;
}

/// The OpenCL C extensions clift's compiler implements (each also a preprocessor macro).
pub const OPENCL_C_EXTENSIONS: &[&str] = &[
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_byte_addressable_store",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_3d_image_writes",
];

/// How a sub-device was made: the request of `clCreateSubDevices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionRequest {
    /// `CL_DEVICE_PARTITION_EQUALLY`: as many sub-devices of this many compute units as fit.
    Equally(u32),
    /// `CL_DEVICE_PARTITION_BY_COUNTS`: one sub-device per count.
    ByCounts(Vec<u32>),
    /// `CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN`: one sub-device per group of CPUs sharing the
    /// domain (a `CL_DEVICE_AFFINITY_DOMAIN_*` value, possibly `NEXT_PARTITIONABLE`).
    ByAffinityDomain(cl_device_affinity_domain),
}

/// The OpenCL bit of an affinity domain.
pub fn domain_bit(domain: AffinityDomain) -> cl_device_affinity_domain {
    match domain {
        AffinityDomain::Numa => CL_DEVICE_AFFINITY_DOMAIN_NUMA,
        AffinityDomain::L4Cache => CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
        AffinityDomain::L3Cache => CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
        AffinityDomain::L2Cache => CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
        AffinityDomain::L1Cache => CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
    }
}

fn domain_of_bit(bit: cl_device_affinity_domain) -> Option<AffinityDomain> {
    [
        AffinityDomain::Numa,
        AffinityDomain::L4Cache,
        AffinityDomain::L3Cache,
        AffinityDomain::L2Cache,
        AffinityDomain::L1Cache,
    ]
    .into_iter()
    .find(|&d| domain_bit(d) == bit)
}

/// A CPU device: the root device or a sub-device.
#[repr(C)]
pub struct Device {
    header: Header,
    cpus: CpuSet,
    parent: Option<Arc<Device>>,
    /// The property list `CL_DEVICE_PARTITION_TYPE` reports (empty for the root device).
    partition_type: Vec<cl_device_partition_property>,
    machine: Arc<Topology>,
    /// The device's workers, started by its first queue.
    executor: OnceLock<Executor>,
}

// SAFETY: `Device` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Device {
    const KIND: ObjectKind = ObjectKind::Device;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Device {
    /// The root device over `cpus` of the machine described by `machine`.
    pub fn root(machine: Arc<Topology>, cpus: CpuSet) -> Arc<Device> {
        Arc::new(Device {
            header: Header::new(ObjectKind::Device),
            cpus,
            parent: None,
            partition_type: Vec::new(),
            machine,
            executor: OnceLock::new(),
        })
    }

    pub fn is_root(&self) -> bool {
        self.parent.is_none()
    }

    pub fn parent(&self) -> Option<&Arc<Device>> {
        self.parent.as_ref()
    }

    /// Whether this device was split, directly or not, from `ancestor`.
    pub fn descends_from(&self, ancestor: &Device) -> bool {
        let mut parent = self.parent.as_deref();
        while let Some(p) = parent {
            if std::ptr::eq(p, ancestor) {
                return true;
            }
            parent = p.parent.as_deref();
        }
        false
    }

    /// The CPUs this device runs on; one compute unit (worker thread) each.
    pub fn cpus(&self) -> &CpuSet {
        &self.cpus
    }

    pub fn compute_units(&self) -> u32 {
        self.cpus.len() as u32
    }

    /// The device's workers: one thread per compute unit (a sub-device uses its share).
    pub fn executor(&self) -> ClResult<&Executor> {
        if let Some(executor) = self.executor.get() {
            return Ok(executor);
        }
        let executor = Executor::new(self.cpus.len())?;
        Ok(self.executor.get_or_init(|| executor))
    }

    pub fn topology(&self) -> &Topology {
        &self.machine
    }

    pub fn partition_type(&self) -> &[cl_device_partition_property] {
        &self.partition_type
    }

    /// `CL_DEVICE_NAME`: the CPU model as the kernel reports it.
    pub fn name(&self) -> &str {
        self.machine.model_name.trim()
    }

    pub fn vendor(&self) -> &str {
        &self.machine.vendor
    }

    /// `CL_DEVICE_VENDOR_ID`: the PCI vendor id of the CPU maker where there is one.
    pub fn vendor_id(&self) -> u32 {
        match self.machine.vendor.as_str() {
            v if v.starts_with("Intel") => 0x8086,
            v if v.starts_with("Advanced Micro Devices") => 0x1022,
            _ => 0,
        }
    }

    /// `CL_DEVICE_EXTENSIONS`: the OpenCL C extensions the compiler implements, and the
    /// platform's (which "must be supported by all devices associated with this platform").
    pub fn extensions(&self) -> String {
        let mut list: Vec<&str> = OPENCL_C_EXTENSIONS.to_vec();
        list.push(crate::platform::EXTENSIONS);
        list.join(" ")
    }

    /// `CL_DEVICE_IMAGE_SUPPORT`: every image type, the formats of
    /// `clift_builtins::image::format::Format::supported`, and samplers.
    pub fn image_support(&self) -> bool {
        true
    }

    pub fn max_clock_mhz(&self) -> u32 {
        self.machine.max_clock_mhz
    }

    /// `CL_DEVICE_GLOBAL_MEM_SIZE`: the machine's memory (or the cgroup's limit).
    pub fn global_mem_size(&self) -> u64 {
        self.machine.total_memory_bytes
    }

    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`: a quarter of memory, and at least the spec's minimum.
    pub fn max_mem_alloc_size(&self) -> u64 {
        (self.global_mem_size() / 4).max(limits::MIN_MAX_MEM_ALLOC)
    }

    /// The last-level cache these CPUs share: (size in bytes, line size in bytes).
    pub fn global_mem_cache(&self) -> (u64, u32) {
        self.machine
            .last_level_cache(&self.cpus)
            .map_or((0, 64), |c| (c.size_bytes, c.line_bytes))
    }

    /// `CL_DEVICE_LOCAL_MEM_SIZE`: a core's L2 (where a work-group's local data stays hot),
    /// as PoCL reports it, or `CLIFT_LOCAL_MEM_SIZE`; within the spec's minimum and
    /// [`limits::MAX_LOCAL_MEM_SIZE`].
    pub fn local_mem_size(&self) -> u64 {
        let size = crate::config::local_mem_size().unwrap_or_else(|| {
            self.machine
                .cache(2, &self.cpus)
                .map_or(0, |c| c.size_bytes)
        });
        size.clamp(limits::MIN_LOCAL_MEM_SIZE, limits::MAX_LOCAL_MEM_SIZE)
    }

    /// `CL_DEVICE_SINGLE_FP_CONFIG`: IEEE denormals, infinities and NaN, round to nearest;
    /// fused multiply-add where the CPU has it in hardware.
    pub fn single_fp_config(&self) -> cl_device_fp_config {
        let mut config = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST;
        if self.machine.simd.fma {
            config |= CL_FP_FMA;
        }
        config
    }

    /// `CL_DEVICE_PARTITION_MAX_SUB_DEVICES`: one sub-device per compute unit at most.
    pub fn max_sub_devices(&self) -> u32 {
        self.compute_units()
    }

    /// Whether the device can be split at all (it needs two CPUs).
    pub fn partitionable(&self) -> bool {
        self.compute_units() >= 2
    }

    /// The affinity domains that split this device into at least two groups.
    pub fn partition_domains(&self) -> Vec<AffinityDomain> {
        self.machine
            .available_domains()
            .into_iter()
            .filter(|&d| {
                self.machine
                    .split_by_domain(&self.cpus, d)
                    .is_some_and(|g| g.len() >= 2)
            })
            .collect()
    }

    /// `CL_DEVICE_PARTITION_AFFINITY_DOMAIN`: the domains above, plus NEXT_PARTITIONABLE
    /// when there is any.
    pub fn partition_affinity_domains(&self) -> cl_device_affinity_domain {
        let domains = self.partition_domains();
        let mut bits = domains.iter().fold(0, |acc, &d| acc | domain_bit(d));
        if !domains.is_empty() {
            bits |= CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
        }
        bits
    }

    /// `clCreateSubDevices`: splits this device as `request` says.
    pub fn partition(self: &Arc<Self>, request: &PartitionRequest) -> ClResult<Vec<Arc<Device>>> {
        if !self.partitionable() {
            // "CL_DEVICE_PARTITION_FAILED if the partition name is supported by the
            // implementation but in_device could not be further partitioned."
            return fail(CL_DEVICE_PARTITION_FAILED);
        }
        let (groups, partition_type) = match request {
            PartitionRequest::Equally(units) => (self.split_equally(*units)?, {
                vec![
                    CL_DEVICE_PARTITION_EQUALLY,
                    *units as cl_device_partition_property,
                    0,
                ]
            }),
            PartitionRequest::ByCounts(counts) => (self.split_by_counts(counts)?, {
                let mut t = vec![CL_DEVICE_PARTITION_BY_COUNTS];
                t.extend(counts.iter().map(|&c| c as cl_device_partition_property));
                t.extend([CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0]);
                t
            }),
            PartitionRequest::ByAffinityDomain(bit) => {
                let (domain, groups) = self.split_by_affinity(*bit)?;
                let t = vec![
                    CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                    domain_bit(domain) as cl_device_partition_property,
                    0,
                ];
                (groups, t)
            }
        };
        Ok(groups
            .into_iter()
            .map(|cpus| {
                Arc::new(Device {
                    header: Header::new(ObjectKind::Device),
                    cpus,
                    parent: Some(Arc::clone(self)),
                    partition_type: partition_type.clone(),
                    machine: Arc::clone(&self.machine),
                    executor: OnceLock::new(),
                })
            })
            .collect())
    }

    fn split_equally(&self, units: u32) -> ClResult<Vec<CpuSet>> {
        if units == 0 {
            return fail(CL_INVALID_VALUE);
        }
        let units = units as usize;
        // "CL_INVALID_DEVICE_PARTITION_COUNT if ... the total number of compute units
        // requested exceeds CL_DEVICE_PARTITION_MAX_COMPUTE_UNITS for in_device": more units
        // per sub-device than the device has (the Khronos CTS expects this code).
        if units > self.cpus.len() {
            return fail(CL_INVALID_DEVICE_PARTITION_COUNT);
        }
        // One sub-device holding every compute unit is no partition: "in_device could not be
        // further partitioned" (the Khronos CTS expects CL_DEVICE_PARTITION_FAILED too).
        if units == self.cpus.len() {
            return fail(CL_DEVICE_PARTITION_FAILED);
        }
        let ids = self.cpus.ids();
        let groups = ids.len() / units;
        Ok((0..groups)
            .map(|g| CpuSet::from_ids(ids[g * units..(g + 1) * units].iter().copied()))
            .collect())
    }

    fn split_by_counts(&self, counts: &[u32]) -> ClResult<Vec<CpuSet>> {
        if counts.is_empty() {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_INVALID_DEVICE_PARTITION_COUNT if ... the number of sub-devices requested
        // exceeds CL_DEVICE_PARTITION_MAX_SUB_DEVICES or the total number of compute units
        // requested exceeds CL_DEVICE_PARTITION_MAX_COMPUTE_UNITS for in_device, or the
        // number of compute units requested for one or more sub-devices is less than zero".
        // A sub-device of zero compute units could run nothing, so it is refused alike.
        let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        if counts.len() > self.max_sub_devices() as usize
            || total > u64::from(self.compute_units())
            || counts.contains(&0)
        {
            return fail(CL_INVALID_DEVICE_PARTITION_COUNT);
        }
        let ids = self.cpus.ids();
        let mut start = 0;
        Ok(counts
            .iter()
            .map(|&c| {
                let group = CpuSet::from_ids(ids[start..start + c as usize].iter().copied());
                start += c as usize;
                group
            })
            .collect())
    }

    fn split_by_affinity(
        &self,
        bit: cl_device_affinity_domain,
    ) -> ClResult<(AffinityDomain, Vec<CpuSet>)> {
        let domain = if bit == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE {
            self.machine.next_partitionable(&self.cpus)
        } else {
            domain_of_bit(bit)
        };
        // "CL_INVALID_VALUE if values specified in properties are not valid or if values
        // specified in properties are valid but not supported by the device."
        let Some(domain) = domain.filter(|d| self.partition_domains().contains(d)) else {
            return fail(CL_INVALID_VALUE);
        };
        let groups = self
            .machine
            .split_by_domain(&self.cpus, domain)
            .unwrap_or_default();
        Ok((domain, groups))
    }
}

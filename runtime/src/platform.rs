//! The one clift platform and its root device.
//!
//! The platform is created at first use and lives as long as the library. Its root device
//! spans every CPU of the process's affinity mask (capped by `CLIFT_MAX_COMPUTE_UNITS`).

use std::sync::{Arc, OnceLock};

use crate::config;
use crate::device::Device;
use crate::object::{ClObject, Header, ObjectKind};
use crate::topology::{CpuSet, Topology};

/// `CL_PLATFORM_NAME`.
pub const NAME: &str = "clift";
/// `CL_PLATFORM_VENDOR`.
pub const VENDOR: &str = "The clift developers";
/// The crate version, as `CL_DRIVER_VERSION` and in `CL_PLATFORM_VERSION`.
pub const DRIVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// `CL_PLATFORM_PROFILE` and `CL_DEVICE_PROFILE`.
pub const PROFILE: &str = "FULL_PROFILE";
/// `CL_PLATFORM_ICD_SUFFIX_KHR`: the suffix of our extension functions' names.
pub const ICD_SUFFIX: &str = "clift";
/// Platform extensions that work today.
pub const EXTENSIONS: &str = "cl_khr_icd";

/// `CL_PLATFORM_VERSION`: "OpenCL<space><major.minor><space><platform-specific information>".
pub fn version() -> String {
    format!("OpenCL 1.2 clift {DRIVER_VERSION}")
}

#[repr(C)]
pub struct Platform {
    header: Header,
    devices: Vec<Arc<Device>>,
}

// SAFETY: `Platform` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Platform {
    const KIND: ObjectKind = ObjectKind::Platform;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Platform {
    /// The platform, created (and the machine inspected) at the first call.
    pub fn get() -> &'static Platform {
        static PLATFORM: OnceLock<Platform> = OnceLock::new();
        PLATFORM.get_or_init(|| Platform::new(Topology::detect(), config::max_compute_units()))
    }

    fn new(topology: Topology, cap: Option<usize>) -> Platform {
        let cpus = root_cpus(&topology.allowed, cap);
        let root = Device::root(Arc::new(topology), cpus);
        Platform {
            header: Header::new(ObjectKind::Platform),
            devices: vec![root],
        }
    }

    /// The root devices (one CPU device).
    pub fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }
}

/// The CPUs of the root device: the affinity mask, the first `cap` of them if capped.
fn root_cpus(allowed: &CpuSet, cap: Option<usize>) -> CpuSet {
    let ids = allowed.ids();
    let take = cap.map_or(ids.len(), |c| c.min(ids.len()));
    CpuSet::from_ids(ids[..take].iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_takes_the_first_cpus_of_the_mask() {
        let mask = CpuSet::from_ids([2, 3, 5, 7]);
        assert_eq!(root_cpus(&mask, None).ids(), &[2, 3, 5, 7]);
        assert_eq!(root_cpus(&mask, Some(2)).ids(), &[2, 3]);
        assert_eq!(root_cpus(&mask, Some(9)).ids(), &[2, 3, 5, 7]);
    }

    #[test]
    fn the_platform_has_one_root_cpu_device() {
        let p = Platform::get();
        assert_eq!(p.devices().len(), 1);
        assert!(p.devices()[0].is_root());
        assert!(p.devices()[0].compute_units() >= 1);
    }
}

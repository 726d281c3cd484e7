//! One OpenCL driver under measurement: its library, platform, device, context and queue.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};

use clift_conformance::{Api, entry};
use opencl_sys::*;

pub struct Driver {
    pub name: &'static str,
    pub api: Api,
    pub context: cl_context,
    pub queue: cl_command_queue,
    /// The device's name, for the report.
    pub device_name: String,
    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`: the largest buffer the bench may ask for.
    pub max_alloc: u64,
}

/// The libclift.so to measure: `CLIFT_LIBRARY`, else the one built beside this binary.
pub fn clift_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CLIFT_LIBRARY") {
        return Ok(path.into());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("no directory for the executable")?;
    let lib = dir.join("libclift.so");
    if lib.exists() {
        Ok(lib)
    } else {
        Err(format!(
            "{} is missing: run `cargo build --release -p clift-icd`",
            lib.display()
        ))
    }
}

/// PoCL, reached through the system's ICD loader with only PoCL's ICD file visible
/// (Debian builds PoCL as an ICD whose library exports no API names of its own). Returns the
/// loader's library name; `POCL_ICD` overrides the ICD file.
pub fn pocl_library() -> Result<PathBuf, String> {
    let icd = std::env::var_os("POCL_ICD").map_or_else(
        || PathBuf::from("/etc/OpenCL/vendors/pocl.icd"),
        PathBuf::from,
    );
    if !icd.exists() {
        return Err(format!(
            "{} is missing (install Debian's pocl-opencl-icd)",
            icd.display()
        ));
    }
    if !loader_takes_as_only_icd(&icd) {
        return Err(format!(
            "{}: POCL_ICD must name a file ending in .icd",
            icd.display()
        ));
    }
    // SAFETY: set once, before the loader is loaded, while no other thread of this program
    // reads the environment. ocl-icd loads only the ICD of an `OCL_ICD_VENDORS` that names
    // an .icd file (libOpenCL(7)), so no folder of ICD files is needed (the bench made one
    // in the temporary folder until session 18, and left it there).
    // PoCL's kernel cache is turned off so that its build times are
    // builds, not cache lookups (clift's is turned off in `main`).
    // With CLIFT_MAX_COMPUTE_UNITS, PoCL gets the same number of threads, so that a scaling
    // run compares equals.
    unsafe {
        std::env::set_var("OCL_ICD_VENDORS", &icd);
        std::env::set_var("POCL_KERNEL_CACHE", "0");
        if let Ok(n) = std::env::var("CLIFT_MAX_COMPUTE_UNITS") {
            std::env::set_var("POCL_MAX_PTHREAD_COUNT", n);
        }
    }
    Ok(PathBuf::from("libOpenCL.so.1"))
}

/// Whether ocl-icd, given `path` as `OCL_ICD_VENDORS`, loads it as the only ICD file: a
/// path that ends in `.icd` (any other is taken as a folder or a library name).
fn loader_takes_as_only_icd(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "icd") && path.is_file()
}

fn check(status: cl_int, what: &str) -> Result<(), String> {
    if status == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {status}"))
    }
}

impl Driver {
    /// Loads the library and sets up its first CPU device with an in-order queue.
    pub fn open(name: &'static str, path: &Path) -> Result<Driver, String> {
        let api = Api::load(path)?;
        let platform = api.platforms().first().copied().ok_or("no platform")?;
        let mut device = null_mut();
        // SAFETY: one device handle is written to `device`.
        let status = unsafe {
            entry!(api.clGetDeviceIDs)(platform, CL_DEVICE_TYPE_CPU, 1, &mut device, null_mut())
        };
        check(status, "clGetDeviceIDs")?;
        let mut status = CL_SUCCESS;
        // SAFETY: one valid device; no callback.
        let context = unsafe {
            entry!(api.clCreateContext)(null(), 1, &device, None, null_mut(), &mut status)
        };
        check(status, "clCreateContext")?;
        // SAFETY: a valid context and device.
        let queue = unsafe { entry!(api.clCreateCommandQueue)(context, device, 0, &mut status) };
        check(status, "clCreateCommandQueue")?;
        let device_name = api.device_string(device, CL_DEVICE_NAME);
        let max_alloc = api.device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        Ok(Driver {
            name,
            api,
            context,
            queue,
            device_name,
            max_alloc,
        })
    }

    pub fn label(&self) -> String {
        self.name.to_string()
    }

    /// A read-write buffer of `size` bytes.
    pub fn buffer(&self, size: usize) -> Result<cl_mem, String> {
        let api = &self.api;
        let mut status = CL_SUCCESS;
        // SAFETY: a valid context; no host pointer.
        let mem = unsafe {
            entry!(api.clCreateBuffer)(
                self.context,
                CL_MEM_READ_WRITE,
                size,
                null_mut(),
                &mut status,
            )
        };
        check(status, "clCreateBuffer").map(|()| mem)
    }

    /// A read-write buffer holding a copy of `data`.
    pub fn buffer_from(&self, data: &[f32]) -> Result<cl_mem, String> {
        let api = &self.api;
        let mut status = CL_SUCCESS;
        // SAFETY: a valid context; `data` holds size_of_val(data) bytes, copied now.
        let mem = unsafe {
            entry!(api.clCreateBuffer)(
                self.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                size_of_val(data),
                data.as_ptr().cast_mut().cast(),
                &mut status,
            )
        };
        check(status, "clCreateBuffer").map(|()| mem)
    }

    pub fn release(&self, mem: cl_mem) {
        let api = &self.api;
        // SAFETY: a buffer this driver created.
        unsafe { entry!(api.clReleaseMemObject)(mem) };
    }

    pub fn release_kernel(&self, kernel: cl_kernel) {
        let api = &self.api;
        // SAFETY: a kernel of a program this driver built.
        unsafe { entry!(api.clReleaseKernel)(kernel) };
    }

    pub fn flush(&self) {
        self.api.flush(self.queue);
    }

    pub fn finish(&self) {
        let api = &self.api;
        // SAFETY: the driver's queue.
        unsafe { entry!(api.clFinish)(self.queue) };
    }

    /// `clEnqueueWriteBuffer` of `bytes` at offset 0.
    pub fn write(&self, mem: cl_mem, bytes: &[u8], blocking: bool) -> cl_int {
        let api = &self.api;
        // SAFETY: `bytes` outlives the command: blocking calls return after the copy, and
        // callers of non-blocking writes finish the queue before `bytes` goes away.
        unsafe {
            entry!(api.clEnqueueWriteBuffer)(
                self.queue,
                mem,
                cl_bool::from(blocking),
                0,
                bytes.len(),
                bytes.as_ptr().cast::<c_void>(),
                0,
                null(),
                null_mut(),
            )
        }
    }

    /// Blocking `clEnqueueReadBuffer` of `out.len()` bytes at offset 0.
    pub fn read(&self, mem: cl_mem, out: &mut [u8]) -> cl_int {
        let api = &self.api;
        // SAFETY: blocking: the copy is done when the call returns.
        unsafe {
            entry!(api.clEnqueueReadBuffer)(
                self.queue,
                mem,
                CL_TRUE,
                0,
                out.len(),
                out.as_mut_ptr().cast::<c_void>(),
                0,
                null(),
                null_mut(),
            )
        }
    }

    /// `clEnqueueCopyBuffer` of `size` bytes, then `clFinish`.
    pub fn copy(&self, src: cl_mem, dst: cl_mem, size: usize) -> cl_int {
        let api = &self.api;
        // SAFETY: two valid buffers of at least `size` bytes.
        let status = unsafe {
            entry!(api.clEnqueueCopyBuffer)(self.queue, src, dst, 0, 0, size, 0, null(), null_mut())
        };
        self.finish();
        status
    }

    /// A blocking map of `size` bytes for writing, then its unmap and `clFinish`.
    pub fn map_unmap(&self, mem: cl_mem, size: usize) -> cl_int {
        let api = &self.api;
        let mut status = CL_SUCCESS;
        // SAFETY: a valid buffer of at least `size` bytes.
        let ptr = unsafe {
            entry!(api.clEnqueueMapBuffer)(
                self.queue,
                mem,
                CL_TRUE,
                CL_MAP_WRITE,
                0,
                size,
                0,
                null(),
                null_mut(),
                &mut status,
            )
        };
        if status != CL_SUCCESS {
            return status;
        }
        // SAFETY: `ptr` was just mapped from `mem`.
        let status = unsafe {
            entry!(api.clEnqueueUnmapMemObject)(self.queue, mem, ptr, 0, null(), null_mut())
        };
        self.finish();
        status
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let api = &self.api;
        // SAFETY: objects this driver created, released once.
        unsafe {
            entry!(api.clReleaseCommandQueue)(self.queue);
            entry!(api.clReleaseContext)(self.context);
        }
    }
}

/// `f` measured on each driver; a driver whose measurement fails gets `None` and a line on
/// stderr saying why.
pub fn per_driver(
    drivers: &[Driver],
    f: &dyn Fn(&Driver) -> Result<f64, String>,
) -> Vec<Option<f64>> {
    drivers
        .iter()
        .map(|d| {
            f(d).map_err(|e| eprintln!("clift-bench: {}: {e}", d.name))
                .ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_icd_file_is_given_to_the_loader_as_its_only_icd() {
        let dir = std::env::temp_dir().join(format!("clift-bench-icd-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("folder.icd")).unwrap();
        std::fs::write(dir.join("pocl.icd"), "libpocl.so.2\n").unwrap();
        std::fs::write(dir.join("pocl.txt"), "libpocl.so.2\n").unwrap();
        assert!(loader_takes_as_only_icd(&dir.join("pocl.icd")));
        assert!(!loader_takes_as_only_icd(&dir.join("pocl.txt")));
        assert!(!loader_takes_as_only_icd(&dir.join("folder.icd")));
        assert!(!loader_takes_as_only_icd(&dir.join("missing.icd")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

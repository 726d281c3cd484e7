//! CPU slices for the full-size shards.
//!
//! The CTS sizes its thread pool from the CPUs in its affinity mask (`ThreadPool_Init` in
//! test_common/harness/ThreadPool.cpp counts them with `sched_getaffinity`). Its `-t N`
//! option does not cap that pool: `ThreadPool_Init` then returns before it starts any
//! thread, and `ThreadPool_Do` runs every job on the calling thread, so a multi-threaded
//! function's reference runs on one thread while the log still says "Worker threads: N"
//! (perf on `cosh double -w -t 2`: 80% of the samples in one thread). A shard is capped
//! instead by running it on N CPUs of its own: the CTS starts N threads, and clift's workers
//! share those CPUs with them, so shards side by side do not crowd each other.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// The CPUs this process may run on, ascending; empty when the mask cannot be read.
pub fn available() -> Vec<usize> {
    // SAFETY: a zeroed `cpu_set_t` is a valid empty set; `sched_getaffinity` writes at most
    // `size_of::<cpu_set_t>()` bytes into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; pid 0 is this thread.
    let status =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if status != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE, the set's size.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// The CPUs of job slot `slot` when every slot gets `n` of `cpus`: consecutive slices,
/// wrapping around when the slots need more CPUs than there are (then slices overlap);
/// never more than all of them, never none while `cpus` has one.
pub fn slice(cpus: &[usize], slot: usize, n: usize) -> Vec<usize> {
    if cpus.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, cpus.len());
    let start = slot * n % cpus.len();
    (0..n).map(|i| cpus[(start + i) % cpus.len()]).collect()
}

/// Makes `command`'s process (and what it starts) run only on `cpus`; an empty list leaves
/// it unrestricted.
pub fn restrict(command: &mut Command, cpus: &[usize]) {
    if cpus.is_empty() {
        return;
    }
    // SAFETY: a zeroed `cpu_set_t` is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
        // SAFETY: `cpu` is below CPU_SETSIZE.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: it makes one system call on a set built before
    // the fork, and allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_get_consecutive_slices_that_wrap_around() {
        let cpus: Vec<usize> = (0..8).collect();
        assert_eq!(slice(&cpus, 0, 3), [0, 1, 2]);
        assert_eq!(slice(&cpus, 1, 3), [3, 4, 5]);
        assert_eq!(slice(&cpus, 2, 3), [6, 7, 0]);
        assert_eq!(slice(&cpus, 3, 4), [4, 5, 6, 7]);
        assert_eq!(slice(&cpus, 4, 4), [0, 1, 2, 3]);
        // The CPU ids of the mask, not positions: a process limited to 2, 5, 9.
        assert_eq!(slice(&[2, 5, 9], 1, 2), [9, 2]);
        // More than there are: all of them; a cap of 0 still runs on one.
        assert_eq!(slice(&cpus, 1, 20), cpus);
        assert_eq!(slice(&cpus, 5, 0), [5]);
        assert!(slice(&[], 0, 4).is_empty());
    }

    /// The `Cpus_allowed_list` a child started by `command` reports.
    fn child_cpu_list(mut command: Command) -> String {
        command.args(["-c", "grep Cpus_allowed_list /proc/self/status"]);
        let out = command.output().expect("sh runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn a_restricted_child_sees_only_its_cpus() {
        let cpus = available();
        assert!(!cpus.is_empty(), "this process's affinity mask");
        let last = *cpus.last().expect("one CPU");
        let mut command = Command::new("sh");
        restrict(&mut command, &[last]);
        assert_eq!(child_cpu_list(command), last.to_string());
        // Unrestricted, the child inherits this process's whole mask (read from the kernel,
        // not `nproc`, which `OMP_NUM_THREADS` changes).
        let own = std::fs::read_to_string("/proc/self/status").expect("status");
        let own = own
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .expect("Cpus_allowed_list")
            .trim();
        assert_eq!(child_cpu_list(Command::new("sh")), own);
    }
}

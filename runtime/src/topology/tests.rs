//! Parsers on literal strings, `detect_in` on fake `/proc` + `/sys` trees, and one smoke test of
//! the live machine.

use super::*;
use AffinityDomain::*;

fn set(list: &str) -> CpuSet {
    CpuSet::parse_list(list).expect("valid cpu list")
}

fn sets(lists: &[&str]) -> Vec<CpuSet> {
    lists.iter().map(|list| set(list)).collect()
}

#[test]
fn cpu_lists_parse_and_print() {
    assert_eq!(set("0-3,8,10-11").ids(), &[0, 1, 2, 3, 8, 10, 11]);
    assert_eq!(set(" 5\n").ids(), &[5]);
    assert_eq!(set("7,1-2,2").ids(), &[1, 2, 7]);
    assert!(set("").is_empty());
    assert!(set("\n").is_empty());
    for bad in ["3-1", "a", "1,,2", "-1", "1-", "+1", "1 2", "0-99999999"] {
        assert_eq!(CpuSet::parse_list(bad), None, "{bad:?}");
    }
    assert_eq!(set("0-3,8,10-11").to_list_string(), "0-3,8,10-11");
    assert_eq!(CpuSet::from_ids([9, 0, 1, 9, 2]).to_list_string(), "0-2,9");
    assert_eq!(CpuSet::default().to_list_string(), "");
}

#[test]
fn cpu_set_operations() {
    let a = set("0-7");
    assert_eq!(a.intersection(&set("2,4,9")), set("2,4"));
    assert_eq!(a.intersection(&CpuSet::default()), CpuSet::default());
    assert_eq!((a.len(), a.first()), (8, Some(0)));
    assert!(a.contains(7) && !a.contains(8));
}

#[test]
fn cache_fields_parse() {
    assert_eq!(parse_cache_size("32K\n"), Some(32 << 10));
    assert_eq!(parse_cache_size("1024K"), Some(1 << 20));
    assert_eq!(parse_cache_size("32M"), Some(32 << 20));
    assert_eq!(parse_cache_size("1G"), Some(1 << 30));
    assert_eq!(parse_cache_size("32768"), Some(32768));
    for bad in ["", "K", "12X", "-1K", "1.5M"] {
        assert_eq!(parse_cache_size(bad), None, "{bad:?}");
    }
    assert_eq!(parse_cache_kind("Unified\n"), Some(CacheKind::Unified));
    assert_eq!(
        parse_cache_kind("Instruction"),
        Some(CacheKind::Instruction)
    );
    assert_eq!(parse_cache_kind("Trace"), None);
}

#[test]
fn proc_files_parse() {
    let status =
        "Name:\tcat\nCpus_allowed:\tff\nCpus_allowed_list:\t0-2,4\nMems_allowed_list:\t0\n";
    assert_eq!(status_allowed_cpus(status), Some(set("0-2,4")));
    assert_eq!(status_allowed_cpus("Name:\tcat\n"), None);

    let meminfo = "MemTotal:       16384000 kB\nMemFree:         1000 kB\n";
    assert_eq!(meminfo_total_bytes(meminfo), Some(16_384_000 * 1024));
    assert_eq!(meminfo_total_bytes("MemFree: 1 kB\n"), None);

    let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) \
                   Gold 6338 CPU @ 2.00GHz\ncpu MHz\t\t: 2000.000\n\nprocessor\t: 1\nmodel name\t: other\n";
    assert_eq!(
        cpuinfo_field(cpuinfo, "model name"),
        Some("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
    );
    assert_eq!(cpuinfo_field(cpuinfo, "cpu MHz"), Some("2000.000"));
    assert_eq!(cpuinfo_field("model name\t:\n", "model name"), None);
    assert_eq!(vendor_name("GenuineIntel"), "Intel(R) Corporation");
    assert_eq!(vendor_name("AuthenticAMD"), "Advanced Micro Devices, Inc.");
    assert_eq!(vendor_name("HygonGenuine"), "HygonGenuine");

    assert_eq!(
        cgroup_v2_path("4:memory:/x\n0::/user.slice/job\n"),
        Some("/user.slice/job")
    );
    assert_eq!(memory_max("8589934592\n"), Some(8 << 30));
    assert_eq!(memory_max("max\n"), None);
}

/// A fake root directory in the system temp dir, removed when dropped.
struct FakeRoot(PathBuf);

impl FakeRoot {
    /// Unique per call: tests run in parallel threads of one process.
    fn new(name: &str) -> FakeRoot {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let pid = std::process::id();
        let dir = std::env::temp_dir().join(format!("clift-topology-{pid}-{n}-{name}"));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create fake root");
        FakeRoot(dir)
    }

    fn write(&self, relative: &str, contents: &str) {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("create fake dir");
        fs::write(path, format!("{contents}\n")).expect("write fake file");
    }

    fn cache(&self, cpu: u32, index: u32, level: u32, kind: &str, size: &str, shared: &str) {
        let dir = format!("sys/devices/system/cpu/cpu{cpu}/cache/index{index}");
        self.write(&format!("{dir}/level"), &level.to_string());
        self.write(&format!("{dir}/type"), kind);
        self.write(&format!("{dir}/size"), size);
        self.write(&format!("{dir}/coherency_line_size"), "64");
        self.write(&format!("{dir}/shared_cpu_list"), shared);
    }
}

impl Drop for FakeRoot {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// 2 NUMA nodes × 4 CPUs (plus a memory-only node 2), private L1d/L1i, L2 per CPU pair, L3
/// per node; the affinity mask leaves out CPUs 3 and 6; a cgroup limit below `MemTotal` on
/// the parent of this process's cgroup.
fn two_node_machine() -> FakeRoot {
    let root = FakeRoot::new("two-node");
    root.write(
        "proc/self/status",
        "Name:\ttest\nCpus_allowed_list:\t0-2,4-5,7",
    );
    root.write("proc/self/cgroup", "0::/user.slice/job");
    root.write("proc/meminfo", "MemTotal:       16384000 kB\nMemFree: 1 kB");
    root.write(
        "proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Fake CPU 9000\ncpu MHz\t\t: 1200.4",
    );
    root.write(
        "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
        "3500000",
    );
    root.write("sys/fs/cgroup/memory.max", "max");
    root.write("sys/fs/cgroup/user.slice/memory.max", "8589934592");
    root.write("sys/fs/cgroup/user.slice/job/memory.max", "max");
    root.write("sys/devices/system/node/node0/cpulist", "0-3");
    root.write("sys/devices/system/node/node1/cpulist", "4-7");
    root.write("sys/devices/system/node/node2/cpulist", "");
    for cpu in 0..8 {
        let pair = cpu / 2 * 2;
        let node = if cpu < 4 { "0-3" } else { "4-7" };
        root.cache(cpu, 0, 1, "Data", "32K", &cpu.to_string());
        root.cache(cpu, 1, 1, "Instruction", "32K", &cpu.to_string());
        root.cache(
            cpu,
            2,
            2,
            "Unified",
            "1024K",
            &format!("{pair}-{}", pair + 1),
        );
        root.cache(cpu, 3, 3, "Unified", "32M", node);
    }
    root
}

#[test]
fn detect_in_reads_fake_machine() {
    let root = two_node_machine();
    let simd = SimdFeatures {
        sse2: true,
        avx: true,
        ..SimdFeatures::default()
    };
    let topo = Topology::detect_in(&root.0, simd.clone());

    assert_eq!(topo.allowed, set("0-2,4-5,7"));
    assert_eq!(topo.numa_nodes, sets(&["0-2", "4-5,7"]));
    assert_eq!(topo.caches.len(), 6 + 6 + 4 + 2);
    assert_eq!(topo.model_name, "Fake CPU 9000");
    assert_eq!(topo.vendor, "Intel(R) Corporation");
    assert_eq!(topo.max_clock_mhz, 3500);
    assert_eq!(topo.total_memory_bytes, 8 << 30);
    assert_eq!(topo.simd, simd);

    let l1 = topo.cache(1, &set("4-5")).expect("L1");
    let l1_expected = CacheInfo {
        level: 1,
        kind: CacheKind::Data,
        size_bytes: 32 << 10,
        line_bytes: 64,
        shared_with: set("4"),
    };
    assert_eq!(l1, &l1_expected);
    assert_eq!(
        topo.cache(2, &set("5"))
            .map(|c| (c.size_bytes, &c.shared_with)),
        Some((1 << 20, &set("4-5")))
    );
    let llc = topo.last_level_cache(&set("7")).expect("LLC");
    assert_eq!(
        (llc.level, llc.size_bytes, &llc.shared_with),
        (3, 32 << 20, &set("4-5,7"))
    );
    assert_eq!(topo.cache(3, &set("3")), None, "CPU 3 is not allowed");
    assert_eq!(topo.cache(4, &set("0")), None);
    assert_eq!(topo.last_level_cache(&CpuSet::default()), None);
}

#[test]
fn fake_machine_partitions() {
    let root = two_node_machine();
    let topo = Topology::detect_in(&root.0, SimdFeatures::default());
    let all = topo.allowed.clone();

    assert_eq!(
        topo.available_domains(),
        vec![Numa, L3Cache, L2Cache, L1Cache]
    );
    assert_eq!(
        topo.split_by_domain(&all, Numa),
        Some(sets(&["0-2", "4-5,7"]))
    );
    assert_eq!(
        topo.split_by_domain(&all, L3Cache),
        Some(sets(&["0-2", "4-5,7"]))
    );
    assert_eq!(
        topo.split_by_domain(&all, L2Cache),
        Some(sets(&["0-1", "2", "4-5", "7"]))
    );
    assert_eq!(
        topo.split_by_domain(&all, L1Cache),
        Some(sets(&["0", "1", "2", "4", "5", "7"]))
    );
    assert_eq!(topo.split_by_domain(&all, L4Cache), None);
    assert_eq!(
        topo.split_by_domain(&set("1-2,5"), L2Cache),
        Some(sets(&["1", "2", "5"]))
    );
    assert_eq!(
        topo.split_by_domain(&set("0-1"), Numa),
        Some(sets(&["0-1"]))
    );

    assert_eq!(topo.next_partitionable(&all), Some(Numa));
    assert_eq!(topo.next_partitionable(&set("0-2")), Some(L2Cache));
    assert_eq!(topo.next_partitionable(&set("0-1")), Some(L1Cache));
    assert_eq!(topo.next_partitionable(&set("0")), None);
}

#[test]
fn detect_in_falls_back_on_bare_tree() {
    let root = FakeRoot::new("bare");
    root.write(
        "proc/cpuinfo",
        "vendor_id\t: SomeVendor\ncpu MHz\t\t: 2695.946",
    );
    let topo = Topology::detect_in(&root.0, SimdFeatures::default());

    assert!(!topo.allowed.is_empty());
    assert_eq!(topo.allowed.first(), Some(0));
    assert_eq!(topo.numa_nodes, vec![topo.allowed.clone()]);
    assert!(topo.caches.is_empty());
    assert_eq!(topo.model_name, "Generic CPU");
    assert_eq!(topo.vendor, "SomeVendor");
    assert_eq!(topo.max_clock_mhz, 2696);
    assert_eq!(topo.total_memory_bytes, 0);
    assert_eq!(topo.available_domains(), vec![Numa]);
    assert_eq!(topo.split_by_domain(&topo.allowed, L1Cache), None);
    assert_eq!(topo.last_level_cache(&topo.allowed), None);
}

#[test]
fn meminfo_wins_when_below_cgroup_limit() {
    let root = FakeRoot::new("mem");
    root.write("proc/meminfo", "MemTotal:       1024 kB");
    root.write("sys/fs/cgroup/memory.max", "8589934592");
    assert_eq!(
        Topology::detect_in(&root.0, SimdFeatures::default()).total_memory_bytes,
        1 << 20
    );
}

#[test]
fn detects_live_machine() {
    let topo = Topology::detect();
    assert!(!topo.allowed.is_empty());
    assert!(topo.total_memory_bytes > 0);
    assert!(!topo.model_name.is_empty());
    assert!(!topo.numa_nodes.is_empty());
    let grouped: usize = topo.numa_nodes.iter().map(CpuSet::len).sum();
    assert!(grouped <= topo.allowed.len());
}

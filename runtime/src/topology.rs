//! Machine topology discovery for the CPU device.
//!
//! `clGetDeviceInfo` must report truthful values (compute units, cache sizes, memory, clock) and
//! `clCreateSubDevices` must partition the device along real NUMA nodes and shared caches, so
//! everything here is read from the live machine (Linux `/proc` and `/sys`). Every reader falls
//! back to a sensible value instead of failing: a missing file must never stop the driver from
//! exposing a device. The text parsers are small pure functions so they can be tested on literal
//! strings, and all file access goes through a root directory so tests can use a fake tree.

use std::fs;
use std::path::{Path, PathBuf};

/// The largest CPU id accepted from a list. Linux supports at most 8192 CPUs, so anything far
/// beyond comes from a corrupt file and must not make us allocate gigabytes for one range.
const MAX_CPU_ID: u32 = 1 << 16;

/// A set of logical CPU ids, sorted, no duplicates.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CpuSet(Vec<u32>);

impl CpuSet {
    /// Parses the kernel's list format (`0-3,8,10-11`); an empty string is the empty set (a
    /// memory-only NUMA node has an empty `cpulist`). `None` when malformed.
    pub fn parse_list(s: &str) -> Option<CpuSet> {
        let s = s.trim();
        if s.is_empty() {
            return Some(CpuSet::default());
        }
        let mut ids = Vec::new();
        for part in s.split(',') {
            let (lo, hi) = match part.split_once('-') {
                Some((lo, hi)) => (parse_cpu_id(lo)?, parse_cpu_id(hi)?),
                None => (parse_cpu_id(part)?, parse_cpu_id(part)?),
            };
            if lo > hi {
                return None;
            }
            ids.extend(lo..=hi);
        }
        Some(CpuSet::from_ids(ids))
    }

    /// Builds a set from ids in any order, dropping duplicates.
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> CpuSet {
        let mut ids: Vec<u32> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        CpuSet(ids)
    }

    /// The ids in increasing order.
    pub fn ids(&self) -> &[u32] {
        &self.0
    }

    /// The number of CPUs in the set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set holds no CPU.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The lowest id, which stands for the whole set in per-CPU lookups.
    pub fn first(&self) -> Option<u32> {
        self.0.first().copied()
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        self.0.binary_search(&id).is_ok()
    }

    /// The CPUs in both sets.
    pub fn intersection(&self, other: &CpuSet) -> CpuSet {
        CpuSet(
            self.0
                .iter()
                .copied()
                .filter(|&id| other.contains(id))
                .collect(),
        )
    }

    /// The kernel's list format again (`0-3,8`), with runs folded into ranges.
    pub fn to_list_string(&self) -> String {
        let mut parts = Vec::new();
        let mut ids = self.0.iter().copied().peekable();
        while let Some(lo) = ids.next() {
            let mut hi = lo;
            while ids.next_if_eq(&(hi + 1)).is_some() {
                hi += 1;
            }
            parts.push(if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            });
        }
        parts.join(",")
    }
}

/// One CPU id of a list: plain decimal digits (no sign, no spaces inside) up to `MAX_CPU_ID`.
fn parse_cpu_id(s: &str) -> Option<u32> {
    let s = s.trim();
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&id| id <= MAX_CPU_ID)
}

/// What a cache holds, from sysfs `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheKind {
    /// Data only (an L1d).
    Data,
    /// Instructions only (an L1i): never holds kernel data.
    Instruction,
    /// Both data and instructions (L2 and beyond, usually).
    Unified,
}

/// One hardware cache and the allowed CPUs sharing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// 1 for L1, 2 for L2, ...
    pub level: u32,
    /// What it holds.
    pub kind: CacheKind,
    /// 0 when sysfs does not say.
    pub size_bytes: u64,
    /// 0 when sysfs does not say.
    pub line_bytes: u32,
    /// Already intersected with [`Topology::allowed`].
    pub shared_with: CpuSet,
}

/// The SIMD extensions the JIT may use and the device may advertise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimdFeatures {
    /// SSE2 (the x86_64 baseline).
    pub sse2: bool,
    /// SSE4.1 (rounding, blends, `pmulld`).
    pub sse41: bool,
    /// AVX (256-bit float vectors).
    pub avx: bool,
    /// AVX2 (256-bit integer vectors).
    pub avx2: bool,
    /// Fused multiply-add (FMA3).
    pub fma: bool,
    /// AVX-512 Foundation (512-bit vectors).
    pub avx512f: bool,
    /// Half-float conversions (`vcvtph2ps`).
    pub f16c: bool,
}

impl SimdFeatures {
    /// Asks the running CPU (CPUID through std), so the answer matches what this process can
    /// execute rather than what the binary was compiled for.
    #[cfg(target_arch = "x86_64")]
    pub fn detect() -> SimdFeatures {
        SimdFeatures {
            sse2: std::is_x86_feature_detected!("sse2"),
            sse41: std::is_x86_feature_detected!("sse4.1"),
            avx: std::is_x86_feature_detected!("avx"),
            avx2: std::is_x86_feature_detected!("avx2"),
            fma: std::is_x86_feature_detected!("fma"),
            avx512f: std::is_x86_feature_detected!("avx512f"),
            f16c: std::is_x86_feature_detected!("f16c"),
        }
    }

    /// None of these x86 extensions exist on other architectures.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn detect() -> SimdFeatures {
        SimdFeatures::default()
    }
}

/// What the CPU device is made of, as far as this process can use it.
#[derive(Clone, Debug)]
pub struct Topology {
    /// CPUs this process may use (affinity mask).
    pub allowed: CpuSet,
    /// Each already intersected with `allowed`, empty ones dropped; one node holding all of
    /// `allowed` when the machine reports no NUMA information.
    pub numa_nodes: Vec<CpuSet>,
    /// The distinct caches of all allowed CPUs, sorted by level, kind and first CPU.
    pub caches: Vec<CacheInfo>,
    /// `CL_DEVICE_NAME`: the first `model name` of `/proc/cpuinfo`, else "Generic CPU".
    pub model_name: String,
    /// `CL_DEVICE_VENDOR`, from the CPUID vendor id.
    pub vendor: String,
    /// `CL_DEVICE_MAX_CLOCK_FREQUENCY`; 0 when unknown.
    pub max_clock_mhz: u32,
    /// Physical memory, capped by the cgroup v2 limit; 0 when unknown.
    pub total_memory_bytes: u64,
    /// The SIMD extensions of the running CPU.
    pub simd: SimdFeatures,
}

/// The partition domains of `CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AffinityDomain {
    /// CPUs of one NUMA node.
    Numa,
    /// CPUs sharing an L4 cache.
    L4Cache,
    /// CPUs sharing an L3 cache.
    L3Cache,
    /// CPUs sharing an L2 cache.
    L2Cache,
    /// CPUs sharing an L1 data cache.
    L1Cache,
}

/// The order OpenCL lists affinity domains in, from the coarsest to the finest.
const DOMAIN_ORDER: [AffinityDomain; 5] = [
    AffinityDomain::Numa,
    AffinityDomain::L4Cache,
    AffinityDomain::L3Cache,
    AffinityDomain::L2Cache,
    AffinityDomain::L1Cache,
];

impl AffinityDomain {
    /// The cache level a cache domain stands for; `None` for NUMA.
    fn cache_level(self) -> Option<u32> {
        match self {
            AffinityDomain::Numa => None,
            AffinityDomain::L4Cache => Some(4),
            AffinityDomain::L3Cache => Some(3),
            AffinityDomain::L2Cache => Some(2),
            AffinityDomain::L1Cache => Some(1),
        }
    }
}

impl Topology {
    /// Reads the live machine. Never panics: anything unreadable falls back to a sensible value.
    pub fn detect() -> Topology {
        Topology::detect_in(Path::new("/"), SimdFeatures::detect())
    }

    /// Reads from a root directory instead of "/" (so tests can use a fake /proc and /sys
    /// tree), with the given SIMD features.
    pub fn detect_in(root: &Path, simd: SimdFeatures) -> Topology {
        let allowed = detect_allowed(root);
        let cpuinfo = read(root, "proc/cpuinfo").unwrap_or_default();
        Topology {
            numa_nodes: detect_numa_nodes(root, &allowed),
            caches: detect_caches(root, &allowed),
            model_name: cpuinfo_field(&cpuinfo, "model name")
                .unwrap_or("Generic CPU")
                .to_string(),
            vendor: vendor_name(cpuinfo_field(&cpuinfo, "vendor_id").unwrap_or("Unknown")),
            max_clock_mhz: detect_max_clock_mhz(root, &allowed, &cpuinfo),
            total_memory_bytes: detect_memory(root),
            simd,
            allowed,
        }
    }

    /// The data (or unified) cache of that level seen by the first CPU of `cpus`, if any.
    pub fn cache(&self, level: u32, cpus: &CpuSet) -> Option<&CacheInfo> {
        self.data_caches_of(cpus).find(|c| c.level == level)
    }

    /// The highest-level data (or unified) cache seen by the first CPU of `cpus`: what
    /// `CL_DEVICE_GLOBAL_MEM_CACHE_SIZE` describes.
    pub fn last_level_cache(&self, cpus: &CpuSet) -> Option<&CacheInfo> {
        self.data_caches_of(cpus).max_by_key(|c| c.level)
    }

    /// The data and unified caches the first CPU of `cpus` reads through (instruction caches
    /// never hold kernel data, so they play no part in the device's cache info or partitions).
    fn data_caches_of(&self, cpus: &CpuSet) -> impl Iterator<Item = &CacheInfo> {
        let cpu = cpus.first();
        self.caches.iter().filter(move |c| {
            c.kind != CacheKind::Instruction && cpu.is_some_and(|cpu| c.shared_with.contains(cpu))
        })
    }

    /// Splits `cpus` into the groups of the given affinity domain (CPUs sharing the same NUMA
    /// node or the same cache of that level), ordered by first CPU. Every CPU of `cpus` lands
    /// in exactly one group, so no compute unit is lost: a CPU that shares nothing at that
    /// level (outside every node, or without such a cache) forms a group of its own. Returns
    /// the groups even if just one (the caller decides what that means); `None` only when the
    /// domain does not exist on this machine (no cache of that level).
    pub fn split_by_domain(&self, cpus: &CpuSet, domain: AffinityDomain) -> Option<Vec<CpuSet>> {
        if !self.available_domains().contains(&domain) {
            return None;
        }
        let mut groups: Vec<(CpuSet, Vec<u32>)> = Vec::new();
        for &cpu in cpus.ids() {
            let key = self.domain_of(cpu, domain);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(cpu),
                None => groups.push((key, vec![cpu])),
            }
        }
        // `cpus` is walked in increasing order, so groups are already ordered by first CPU
        // and each member list is sorted.
        Some(
            groups
                .into_iter()
                .map(|(_, members)| CpuSet(members))
                .collect(),
        )
    }

    /// The CPUs that share `cpu`'s node or cache of that domain (just `cpu` if none).
    fn domain_of(&self, cpu: u32, domain: AffinityDomain) -> CpuSet {
        let alone = CpuSet(vec![cpu]);
        let shared = match domain.cache_level() {
            None => self.numa_nodes.iter().find(|node| node.contains(cpu)),
            Some(level) => self.cache(level, &alone).map(|c| &c.shared_with),
        };
        shared.cloned().unwrap_or(alone)
    }

    /// For `CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE`: the first domain in the order NUMA,
    /// L4, L3, L2, L1 that splits `cpus` into at least 2 groups.
    pub fn next_partitionable(&self, cpus: &CpuSet) -> Option<AffinityDomain> {
        DOMAIN_ORDER.into_iter().find(|&domain| {
            self.split_by_domain(cpus, domain)
                .is_some_and(|groups| groups.len() >= 2)
        })
    }

    /// All domains that exist on the machine (for `CL_DEVICE_PARTITION_AFFINITY_DOMAIN`), in
    /// the order NUMA, L4, L3, L2, L1. NUMA always exists: a machine without NUMA information
    /// is one node.
    pub fn available_domains(&self) -> Vec<AffinityDomain> {
        DOMAIN_ORDER
            .into_iter()
            .filter(|domain| match domain.cache_level() {
                None => true,
                Some(level) => self
                    .caches
                    .iter()
                    .any(|c| c.level == level && c.kind != CacheKind::Instruction),
            })
            .collect()
    }
}

/// A file under `root`, `None` if unreadable.
fn read(root: &Path, relative: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(root.join(relative)).ok()
}

/// The affinity mask, or else every CPU std says we may use (numbered from 0, the best guess
/// without the mask).
fn detect_allowed(root: &Path) -> CpuSet {
    read(root, "proc/self/status")
        .and_then(|status| status_allowed_cpus(&status))
        .filter(|cpus| !cpus.is_empty())
        .unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            CpuSet::from_ids(0..u32::try_from(n).unwrap_or(MAX_CPU_ID))
        })
}

/// The NUMA nodes' CPUs within `allowed`, in node order; one node of all `allowed` if sysfs
/// has none (non-NUMA kernels have no node directory).
fn detect_numa_nodes(root: &Path, allowed: &CpuSet) -> Vec<CpuSet> {
    let nodes: Vec<CpuSet> = numbered_entries(&root.join("sys/devices/system/node"), "node")
        .into_iter()
        .filter_map(|(_, dir)| CpuSet::parse_list(&fs::read_to_string(dir.join("cpulist")).ok()?))
        .map(|node| node.intersection(allowed))
        .filter(|node| !node.is_empty())
        .collect();
    if nodes.is_empty() {
        vec![allowed.clone()]
    } else {
        nodes
    }
}

/// The distinct caches of all allowed CPUs; each cache appears in every sharer's directory, so
/// duplicates are dropped by level, kind and sharers.
fn detect_caches(root: &Path, allowed: &CpuSet) -> Vec<CacheInfo> {
    let mut caches: Vec<CacheInfo> = Vec::new();
    for &cpu in allowed.ids() {
        let dir = root.join(format!("sys/devices/system/cpu/cpu{cpu}/cache"));
        for (_, index) in numbered_entries(&dir, "index") {
            let Some(cache) = read_cache(&index, cpu, allowed) else {
                continue;
            };
            let duplicate = caches.iter().any(|c| {
                (c.level, c.kind, &c.shared_with) == (cache.level, cache.kind, &cache.shared_with)
            });
            if !duplicate {
                caches.push(cache);
            }
        }
    }
    caches.sort_by_key(|c| (c.level, c.kind as u8, c.shared_with.first()));
    caches
}

/// One `index<K>` directory of `cpu`. Level and type are required; size and line size are 0
/// when absent, and a missing sharer list means the cache is private to `cpu`.
fn read_cache(dir: &Path, cpu: u32, allowed: &CpuSet) -> Option<CacheInfo> {
    let field = |name: &str| fs::read_to_string(dir.join(name)).ok();
    let shared_with = field("shared_cpu_list")
        .and_then(|list| CpuSet::parse_list(&list))
        .unwrap_or_else(|| CpuSet(vec![cpu]));
    Some(CacheInfo {
        level: field("level")?.trim().parse().ok()?,
        kind: parse_cache_kind(&field("type")?)?,
        size_bytes: field("size")
            .and_then(|s| parse_cache_size(&s))
            .unwrap_or(0),
        line_bytes: field("coherency_line_size")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0),
        shared_with: shared_with.intersection(allowed),
    })
}

/// The entries `<prefix><N>` of `dir`, sorted by N (so `node10` comes after `node2`).
fn numbered_entries(dir: &Path, prefix: &str) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let n = entry
                .file_name()
                .to_str()?
                .strip_prefix(prefix)?
                .parse()
                .ok()?;
            Some((n, entry.path()))
        })
        .collect();
    found.sort();
    found
}

/// The maximum frequency of the first allowed CPU from cpufreq (kHz), or else the `cpu MHz`
/// of `/proc/cpuinfo` (the current frequency, the best left), or else 0 (unknown).
fn detect_max_clock_mhz(root: &Path, allowed: &CpuSet, cpuinfo: &str) -> u32 {
    let cpu = allowed.first().unwrap_or(0);
    let cpufreq = format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/cpuinfo_max_freq");
    let from_cpufreq = read(root, cpufreq)
        .and_then(|khz| khz.trim().parse::<u64>().ok())
        .map(|khz| khz / 1000);
    let from_cpuinfo = || {
        let mhz: f64 = cpuinfo_field(cpuinfo, "cpu MHz")?.parse().ok()?;
        (mhz.is_finite() && mhz >= 0.0).then(|| mhz.round() as u64)
    };
    from_cpufreq
        .or_else(from_cpuinfo)
        .map_or(0, |mhz| u32::try_from(mhz).unwrap_or(u32::MAX))
}

/// `MemTotal`, lowered to the cgroup limit when one is set and smaller: allocating past it
/// would get the process killed. 0 if neither is readable.
fn detect_memory(root: &Path) -> u64 {
    let total = read(root, "proc/meminfo").and_then(|text| meminfo_total_bytes(&text));
    match (total, cgroup_memory_limit(root)) {
        (Some(total), Some(limit)) => total.min(limit),
        (total, limit) => total.or(limit).unwrap_or(0),
    }
}

/// The tightest cgroup v2 `memory.max` on the path from this process's cgroup up to the root
/// of the mounted hierarchy (a parent's limit binds its children too).
fn cgroup_memory_limit(root: &Path) -> Option<u64> {
    let path = read(root, "proc/self/cgroup")
        .and_then(|text| cgroup_v2_path(&text).map(str::to_string))
        .unwrap_or_default();
    let mut dir = root
        .join("sys/fs/cgroup")
        .join(path.trim_start_matches('/'));
    let top = root.join("sys/fs/cgroup");
    let mut tightest: Option<u64> = None;
    loop {
        let limit = fs::read_to_string(dir.join("memory.max"))
            .ok()
            .and_then(|t| memory_max(&t));
        tightest = match (tightest, limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if dir == top || !dir.pop() {
            return tightest;
        }
    }
}

/// The `Cpus_allowed_list:` of `/proc/self/status`.
fn status_allowed_cpus(status: &str) -> Option<CpuSet> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .and_then(CpuSet::parse_list)
}

/// A sysfs cache `type`.
fn parse_cache_kind(s: &str) -> Option<CacheKind> {
    match s.trim() {
        "Data" => Some(CacheKind::Data),
        "Instruction" => Some(CacheKind::Instruction),
        "Unified" => Some(CacheKind::Unified),
        _ => None,
    }
}

/// A sysfs cache `size`: bytes, or with a binary `K`/`M`/`G` suffix (`32K`, `32M`).
fn parse_cache_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().last()? {
        (i, 'K' | 'k') => (&s[..i], 1 << 10),
        (i, 'M' | 'm') => (&s[..i], 1 << 20),
        (i, 'G' | 'g') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// `MemTotal` of `/proc/meminfo` in bytes (the kernel writes `kB`, meaning KiB).
fn meminfo_total_bytes(meminfo: &str) -> Option<u64> {
    let rest = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))?;
    let mut words = rest.split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// The value of the first `key : value` line of `/proc/cpuinfo` with that key, if not empty.
fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim() == key)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The `CL_DEVICE_VENDOR` string for a CPUID vendor id.
fn vendor_name(vendor_id: &str) -> String {
    match vendor_id {
        "GenuineIntel" => "Intel(R) Corporation".to_string(),
        "AuthenticAMD" => "Advanced Micro Devices, Inc.".to_string(),
        other => other.to_string(),
    }
}

/// This process's cgroup v2 path from `/proc/self/cgroup` (the `0::/path` line).
fn cgroup_v2_path(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|line| line.strip_prefix("0::"))
        .map(str::trim)
}

/// A cgroup v2 `memory.max`: a byte count, or `max` for no limit.
fn memory_max(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests;

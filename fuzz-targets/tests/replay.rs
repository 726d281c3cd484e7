//! The fuzz targets on stable Rust: every kept corpus input (`fuzz/corpora/<target>/`), then
//! generated mutations of them for a few seconds per target (`CLIFT_FUZZ_SECONDS`, default
//! 2; the seed is printed and `CLIFT_FUZZ_SEED` replays it). Any panic fails, including
//! one that clift's C boundary caught and turned into an error code.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clift_fuzz_targets::generate::{Rng, mutate};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Counts every panic, caught or not, before the default hook reports it.
fn count_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            report(info);
        }));
    });
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpora")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a corpus entry").path())
        .map(|p| {
            let data = std::fs::read(&p).expect("a corpus file");
            (p, data)
        })
        .collect();
    inputs.sort();
    inputs
}

/// One target at a time: the panic count is the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn replay(target: &str) {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    count_panics();
    let run = clift_fuzz_targets::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target")
        .1;
    let inputs = corpus(target);
    assert!(!inputs.is_empty(), "the {target} corpus is empty");
    for (path, data) in &inputs {
        let before = PANICS.load(Ordering::SeqCst);
        run(data);
        assert_eq!(
            PANICS.load(Ordering::SeqCst),
            before,
            "{} panicked",
            path.display()
        );
    }
    let seconds: f64 = std::env::var("CLIFT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let seed = std::env::var("CLIFT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let mut rng = Rng::new(seed);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let mut runs = 0;
    while Instant::now() < end {
        let a = &inputs[rng.below(inputs.len())].1;
        let b = &inputs[rng.below(inputs.len())].1;
        let input = mutate(a, b, &mut rng);
        let before = PANICS.load(Ordering::SeqCst);
        run(&input);
        assert_eq!(
            PANICS.load(Ordering::SeqCst),
            before,
            "a generated input panicked (CLIFT_FUZZ_SEED={seed}, input {runs}): {:?}",
            String::from_utf8_lossy(&input)
        );
        runs += 1;
    }
    eprintln!(
        "{target}: {} corpus inputs, {runs} generated (CLIFT_FUZZ_SEED={seed})",
        inputs.len()
    );
}

#[test]
fn preprocess() {
    replay("preprocess");
}

#[test]
fn parse() {
    replay("parse");
}

#[test]
fn sema() {
    replay("sema");
}

#[test]
fn compile() {
    replay("compile");
}

#[test]
fn api() {
    replay("api");
}

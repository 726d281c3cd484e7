//! `cargo fuzz` target: [`clift_fuzz_targets::sema`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| clift_fuzz_targets::sema(data));

//! float → int and float → uint over every float, in each rounding mode, extern function
//! against reference. The full run takes minutes (see `every_float_to_int_and_uint`), so it
//! is ignored by default: `cargo test --release -p clift-builtins --test convert_exhaustive
//! -- --ignored`. A strided sample of the same check runs always.

use std::time::Instant;

use clift_builtins::convert::{self, Extern, Value, convert};
use clift_builtins::types::Scalar;

/// The `_sat` float → int/uint functions, one per mode. The non-`_sat` ones are the same
/// functions under other names (checked below), so these cover them.
fn functions() -> Vec<Extern> {
    let all = convert::externs();
    for e in all
        .iter()
        .filter(|e| e.src == Scalar::Float && !e.sat && e.dst.is_integer())
    {
        let sat = all
            .iter()
            .find(|s| s.sat && s.src == e.src && s.dst == e.dst && s.rounding == e.rounding)
            .expect("every non-_sat function has a _sat twin");
        assert_eq!(e.ptr, sat.ptr, "{} is {}", e.name, sat.name);
    }
    let chosen: Vec<Extern> = all
        .into_iter()
        .filter(|e| e.src == Scalar::Float && e.sat && matches!(e.dst, Scalar::Int | Scalar::UInt))
        .collect();
    assert_eq!(chosen.len(), 8);
    chosen
}

/// Checks the floats with bits `start, start + stride, ...` below 2^32, on every core.
fn check_floats(stride: u64) -> u64 {
    // Without the addresses, which are not Sync.
    let functions: Vec<_> = functions()
        .into_iter()
        .map(|e| (e.name, e.dst, e.rounding, e.call))
        .collect();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()) as u64;
    let total = 1u64 << 32;
    let chunk = total.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let functions = &functions;
                scope.spawn(move || {
                    let mut checked = 0u64;
                    let mut bits = (t * chunk).div_ceil(stride) * stride;
                    let end = ((t + 1) * chunk).min(total);
                    while bits < end {
                        let v = Value::Float(f32::from_bits(bits as u32));
                        for &(name, dst, rounding, call) in functions {
                            let got = call(v);
                            let expected = convert(v, dst, true, rounding);
                            assert!(
                                got.same(expected),
                                "{name}({v:?}) = {got:?}, reference {expected:?}"
                            );
                        }
                        checked += 1;
                        bits += stride;
                    }
                    checked
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

#[test]
fn a_sample_of_floats_to_int_and_uint() {
    let checked = check_floats(4099);
    assert_eq!(checked, (1u64 << 32).div_ceil(4099));
}

#[test]
#[ignore = "every float: minutes (run with --release --ignored)"]
fn every_float_to_int_and_uint() {
    let start = Instant::now();
    assert_eq!(check_floats(1), 1 << 32);
    eprintln!(
        "all 2^32 floats x 8 conversions: {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

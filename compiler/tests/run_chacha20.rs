//! The corpus's ChaCha20 program (`tests/corpus/crypto_chacha20.cl`) run through codegen: its
//! uint4 kernel calls `rotate(uint4, uint)` (a scalar count repeated into every lane), its
//! scalar kernel `rotate(uint, uint)`; both must give RFC 7539's keystream.

mod common;

use common::{compile, run_1d, run_1d_bytes};

const SOURCE: &str = include_str!("corpus/crypto_chacha20.cl");

/// RFC 7539's ChaCha20 block function: the 16 output words for `key`, `counter`, `nonce`.
fn chacha20_block(key: &[u32; 8], counter: u32, nonce: &[u32; 3]) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&[0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
    s[4..12].copy_from_slice(key);
    s[12] = counter;
    s[13..].copy_from_slice(nonce);
    let mut x = s;
    let qr = |x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize| {
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(16);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(12);
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(8);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(7);
    };
    for _ in 0..10 {
        qr(&mut x, 0, 4, 8, 12);
        qr(&mut x, 1, 5, 9, 13);
        qr(&mut x, 2, 6, 10, 14);
        qr(&mut x, 3, 7, 11, 15);
        qr(&mut x, 0, 5, 10, 15);
        qr(&mut x, 1, 6, 11, 12);
        qr(&mut x, 2, 7, 8, 13);
        qr(&mut x, 3, 4, 9, 14);
    }
    std::array::from_fn(|i| x[i].wrapping_add(s[i]))
}

/// RFC 7539 section 2.3.2's key: the bytes 00..1f, as little-endian words.
fn rfc_key() -> [u32; 8] {
    std::array::from_fn(|i| u32::from_le_bytes(std::array::from_fn(|b| (4 * i + b) as u8)))
}

/// RFC 7539 section 2.3.2's nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
const RFC_NONCE: [u32; 3] = [0x0900_0000, 0x4a00_0000, 0];

/// RFC 7539 section 2.3.2's block 1 (key 00..1f, `RFC_NONCE`).
const RFC_BLOCK: [u32; 16] = [
    0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
    0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
];

#[test]
fn the_reference_gives_the_rfc_block() {
    assert_eq!(chacha20_block(&rfc_key(), 1, &RFC_NONCE), RFC_BLOCK);
}

#[test]
fn the_uint4_kernel_xors_the_keystream() {
    let kernels = compile(SOURCE);
    let kernel = kernels.iter().find(|k| k.name == "chacha20_xor").unwrap();
    // chacha_params { uint key[8]; uint nonce[3]; uint counter; } by value.
    let key = rfc_key();
    let params: Vec<u8> = key
        .iter()
        .chain(&RFC_NONCE)
        .chain(&[1u32])
        .flat_map(|w| w.to_le_bytes())
        .collect();
    // Three blocks of data; the fourth work-item is past `nblocks` and writes nothing.
    let plain: Vec<u8> = (0..4 * 64).map(|i| (i * 7) as u8).collect();
    let mut data = plain.clone();
    run_1d_bytes(
        kernel,
        4,
        2,
        &[
            (data.as_mut_ptr() as u64).to_ne_bytes().to_vec(),
            params,
            3u32.to_ne_bytes().to_vec(),
        ],
        0,
    );
    for blk in 0..3 {
        let stream = chacha20_block(&key, 1 + blk as u32, &RFC_NONCE);
        let bytes: Vec<u8> = stream.iter().flat_map(|w| w.to_le_bytes()).collect();
        for (i, b) in bytes.iter().enumerate() {
            let at = blk * 64 + i;
            assert_eq!(data[at], plain[at] ^ b, "block {blk} byte {i}");
        }
    }
    assert_eq!(data[3 * 64..], plain[3 * 64..]);
    // The first block is RFC 7539's.
    assert_eq!(data[0] ^ plain[0], 0x10);
    assert_eq!(data[3] ^ plain[3], 0xe4);
}

#[test]
fn the_scalar_kernel_writes_the_keystream() {
    let kernels = compile(SOURCE);
    let kernel = kernels
        .iter()
        .find(|k| k.name == "chacha20_scalar")
        .unwrap();
    let key = rfc_key();
    let mut out = vec![0u32; 4 * 16];
    // nonce0 is the only nonce word this kernel takes (the others are 0).
    run_1d(
        kernel,
        4,
        4,
        &[out.as_mut_ptr() as u64, key.as_ptr() as u64, 0x0900_0000, 1],
        0,
    );
    for item in 0..4 {
        let expect = chacha20_block(&key, 1 + item as u32, &[0x0900_0000, 0, 0]);
        assert_eq!(out[item * 16..item * 16 + 16], expect, "item {item}");
    }
}

//! The decoder on arbitrary words: decoding, printing, lowering and
//! re-encoding never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::decode(data);
});

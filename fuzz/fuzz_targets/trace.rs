//! Trace files on arbitrary bytes: decoding never panics, and a trace that
//! decodes exports to Perfetto and opens in the viewer, which draws and
//! takes every key without a panic or an allocation past libFuzzer's limit.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::trace(data);
});

//! Random programs: instruction sequences drawn from the bytes, assembled into
//! a kernel and run functionally and timed under an instruction limit; neither
//! panics or hangs, and both leave the same values (or fail alike).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::program(data);
});

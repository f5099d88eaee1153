//! The SASS assembler on arbitrary text: assembling and writing the cubin
//! never panic, and what it writes reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::asm(data);
});

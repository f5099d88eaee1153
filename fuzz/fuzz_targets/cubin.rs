//! The cubin reader on arbitrary bytes: parsing, the listing, and loading every
//! kernel never panic; corrupt input is an error value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::cubin(data);
});

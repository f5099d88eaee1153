//! Machine configurations on arbitrary text: parsing and validation never
//! panic, and a valid configuration can run a small kernel timed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::config(data);
});

//! Launch files on arbitrary text: parsing and resolving (every expression,
//! every buffer filled) never panic and never allocate past the device's
//! memory budget.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    keplersim_fuzz::launch(data);
});

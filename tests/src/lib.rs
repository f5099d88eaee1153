//! keplersim's end-to-end tests, across its crates: this crate holds no code,
//! only the tests under `tests/` (golden timing reports of real kernels, and
//! the `keplersim` binary called as a user calls it).

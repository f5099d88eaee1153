//! keplersim's workloads: the kernels the model is checked on, how to load and
//! run them from their launch files, and their golden timing reports. The
//! command-line front end, the tests and the benchmarks all call this crate;
//! it decides what a workload is, they only ask for it.

pub mod golden;
pub mod study;
pub mod workload;

/// Why a workload could not be loaded, run or compared.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {msg}")]
    File { path: String, msg: String },
    /// A launch file, cubin or run failed; the message names the file.
    #[error("{0}")]
    Run(String),
}

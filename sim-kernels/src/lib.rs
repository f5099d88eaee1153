//! keplersim's workloads: the kernels the model is checked on, how to load
//! (assemble) and run them from their launch files, and what they are held
//! to: the tuned-SGEMM generator and its ladder, the microbenchmark suite and
//! its K20m figures and the kit that runs it on a real card, sampled simulation of large grids, the speed
//! benchmark's launch, the profiling study and the golden timing reports.
//! The command-line front end, the tests and the benchmarks all call this
//! crate; it decides what a workload is, they only ask for it and print.

pub mod golden;
pub mod kit;
pub mod ladder;
pub mod micro;
pub mod sample;
pub mod sgemm;
pub mod speed;
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
    /// An assembler file included at `at` (`FILE:LINE`) failed to load.
    #[error("included at {at}: {error}")]
    Included { at: String, error: Box<Error> },
}

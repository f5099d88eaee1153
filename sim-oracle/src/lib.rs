//! Everything that runs NVIDIA's own sm_35 tools: locating them in `.oracle/`,
//! running nvdisasm in raw mode on batches of words, compiling PTX with ptxas and
//! CUDA C with NVRTC (loaded at run time), generating the PTX corpus, and the
//! bit-flip crack that derives the ISA table.
//!
//! Architecture invariant: nothing outside this crate spawns NVIDIA tools; `sim-isa`
//! only ever reads the table this crate writes.

pub mod corpus;
pub mod crack;
pub mod nvrtc;
pub mod tools;
pub use nvrtc::{Nvrtc, NvrtcError};
pub use tools::{OracleError, Tools, Verdict};

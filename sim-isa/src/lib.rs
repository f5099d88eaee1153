//! The sm_35 instruction set.
//!
//! One generated table (`sm35_table.rs`, written by `keplersim isa crack`) describes
//! every instruction form; the decoder, printer, parser and encoder are all driven by
//! it. This crate knows nothing of simulation.
//!
//! Architecture invariant: decoding never panics; an unknown word is an error value.

pub mod asm;
pub mod control;
pub mod cubin;
pub mod decode;
pub mod encode;
pub mod fmtfloat;
pub mod listing;
pub mod render;
#[rustfmt::skip]
pub mod sm35_table;
pub mod table;

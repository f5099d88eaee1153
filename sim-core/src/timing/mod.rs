//! The cycle-level model of the K20m (issue 4), one module per hardware block.
//! So far: the register banks and the operand collector's reuse (`collector`),
//! the rule the scheduler will charge bank conflicts by and that `keplersim
//! check` will report.

pub mod collector;

//! The model of the K20m: functional execution of warps and, later, the cycle-level
//! timing model. Empty until the functional-execution issue; it exists now so the
//! workspace has its final shape and `sim-cli` can depend on it.

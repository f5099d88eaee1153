//! The model of the K20m: functional execution of sm_35 warps (this crate's
//! `func`), and the cycle-level timing model on top of it (`timing`).
//!
//! Data flow: a cubin's kernel is loaded into a [`program::Program`] (each
//! instruction's nvdisasm text lowered once to an [`op::Op`]), a launch gives it
//! a grid, parameters and device memory ([`mem::GlobalMem`]), and
//! [`func::run`] executes every block with [`exec::exec`].
//!
//! This crate does no terminal or file I/O: it is handed bytes and text.

pub mod check;
pub mod config;
pub mod exec;
pub mod fp;
pub mod func;
pub mod launch;
pub mod lower;
pub mod mem;
pub mod op;
pub mod program;
pub mod reference;
pub mod ron_text;
pub mod sass;
pub mod timing;
pub mod warp;

/// What a collection holds, for an error that names what was not found in
/// it: `it has: a, b`, or `it has none`.
pub fn it_has<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        "it has none".into()
    } else {
        format!("it has: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_has_names_them_or_says_none() {
        assert_eq!(super::it_has(["a", "b"]), "it has: a, b");
        assert_eq!(super::it_has([]), "it has none");
    }
}

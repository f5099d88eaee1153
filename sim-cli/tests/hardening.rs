//! End-to-end: what real kernels and careless use found in the command line, each
//! held to the fixed behaviour: listings where ptxas puts an instruction in a
//! control word's slot, commands whose output is closed early, launch files that
//! name their kernel, refuse what cannot work before any simulation and number
//! arguments from 1, NVRTC options, the driver-like memory mode and resource limits.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::{cuobjdump, keplersim, root};

/// ptxas ends these kernels with their `BRA` self-loop in the slot where the
/// next group's control word would be; cuobjdump prints it as an instruction.
#[test]
fn an_instruction_in_a_control_slot_prints_as_cuobjdump_prints_it() {
    for name in ["widths", "scan"] {
        let f = root().join(format!("traces/kernels/{name}.cubin"));
        let (ok, out, err) = keplersim(&["disasm", f.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        assert_eq!(out, cuobjdump(&f), "{name}");
    }
}

/// `keplersim disasm x.cubin | head -1`: the reader goes away after one line;
/// keplersim ends without a panic or an error message.
#[test]
fn a_closed_output_ends_the_command_quietly() {
    let f = root().join("traces/sgemm/sgemm.cubin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_keplersim"))
        .args(["disasm", f.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here, with most of the listing unwritten.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "stderr: {err}");
}

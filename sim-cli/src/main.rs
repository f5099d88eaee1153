//! The `keplersim` binary: everything is in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    sim_cli::main()
}

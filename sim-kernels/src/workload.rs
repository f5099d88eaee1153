//! A workload: a kernel's launch file, resolved with its variables, its cubin,
//! and a timed run of it on a configuration.

use std::path::{Path, PathBuf};

use sim_core::config::Config;
use sim_core::launch::{self, Mode, Outcome, Resolved};
use sim_core::timing::Stepping;
use sim_isa::cubin::Cubin;

use crate::Error;

/// The workspace's root (where `traces/` and `configs/` are).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// Reads a file keplersim is given (a cubin, a source, a launch file, a
/// configuration, a buffer's starting data, a check's reference). Only a
/// regular file no larger than the device's memory is read: a device such
/// as `/dev/zero`, or a file larger than anything keplersim reads, is
/// refused before a byte is, not read until the host runs out of memory.
/// The error is the reason alone; the caller names the file.
pub fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let meta = regular_file(path)?;
    let most = sim_core::launch::Limits::default().device_bytes;
    if meta.len() > most {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} bytes, more than the device's {most} bytes of memory hold",
                meta.len()
            ),
        ));
    }
    std::fs::read(path)
}

/// The metadata of `path` if it is a regular file: a folder, a device or a
/// pipe (whose open would block) is refused before it is opened. The error
/// is the reason alone; the caller names the file.
pub fn regular_file(path: &Path) -> std::io::Result<std::fs::Metadata> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file, which is what keplersim reads",
        ));
    }
    Ok(meta)
}

/// Reads the files a launch file in `dir` names, with [`read_input`].
pub fn reader(dir: &Path) -> impl Fn(&str) -> Result<Vec<u8>, String> + '_ {
    move |f: &str| {
        let p = dir.join(f);
        read_input(&p).map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// Parses the launch file `path` and resolves it with `sets`.
pub fn resolve(path: &Path, sets: &[(String, i64)]) -> Result<Resolved, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::File {
        path: path.display().to_string(),
        msg: e.to_string(),
    })?;
    let spec = launch::parse(&text).map_err(|e| Error::Run(format!("{}:{e}", path.display())))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = reader(&dir);
    let r = launch::resolve(&spec, sets, &read)
        .map_err(|e| Error::Run(format!("{}: {e}", path.display())));
    r
}

/// The cubin a resolved launch file at `path` runs: the one it names, else
/// the file of its name (`X.launch.ron` -> `X.cubin`) beside it.
pub fn cubin_of(path: &Path, r: &Resolved) -> Result<(PathBuf, Cubin), Error> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().replace(".launch.ron", ".cubin"))
        .unwrap_or_default();
    let cubin_path = dir.join(r.cubin.clone().unwrap_or(name));
    let bytes = std::fs::read(&cubin_path).map_err(|e| Error::File {
        path: cubin_path.display().to_string(),
        msg: e.to_string(),
    })?;
    let cubin =
        Cubin::parse(&bytes).map_err(|e| Error::Run(format!("{}: {e}", cubin_path.display())))?;
    Ok((cubin_path, cubin))
}

/// Runs the launch file `path`, resolved with `sets`, timed (the SMs by
/// turns) on `config`.
pub fn run_timed(path: &Path, sets: &[(String, i64)], config: &Config) -> Result<Outcome, Error> {
    let r = resolve(path, sets)?;
    let (cubin_path, cubin) = cubin_of(path, &r)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = reader(&dir);
    let out = launch::execute_as(&cubin, &r, Mode::Timed(Stepping::Turns), config, &read)
        .map_err(|e| Error::Run(format!("{}: {e}", cubin_path.display())));
    out
}

/// Reads and parses the cubin at `path`.
pub fn read_cubin(path: &Path) -> Result<Cubin, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::File {
        path: path.display().to_string(),
        msg: e.to_string(),
    })?;
    Cubin::parse(&bytes).map_err(|e| Error::Run(format!("{}: {e}", path.display())))
}

/// The FP32 peak of `sms` SMs of `config`, GFlop/s: a 32-lane group per
/// scheduler and one shared by each pair of schedulers (6 x 32 lanes on the
/// K20m), an FFMA being two operations.
pub fn peak_gflops(config: &Config, sms: u32) -> f64 {
    let lanes = (config.timing.schedulers as f64 * 1.5).floor() * 32.0;
    sms as f64 * lanes * 2.0 * config.chip.clock_mhz / 1e3
}

/// Assembles the keplersim assembler file `file` into cubin bytes, its
/// `.include "NAME"` lines first replaced by the files they name (relative
/// to the including file). An error names the file and line it comes from.
pub fn assemble(file: &Path) -> Result<Vec<u8>, Error> {
    let mut text = String::new();
    let mut origin: Vec<(PathBuf, usize)> = Vec::new();
    include(file, &mut text, &mut origin, &mut Vec::new())?;
    let kernels = sim_isa::asm::assemble_source(&text).map_err(|e| {
        let (f, l) = origin
            .get(e.line.wrapping_sub(1))
            .cloned()
            .unwrap_or((file.to_path_buf(), e.line));
        Error::Run(format!("{}:{l}: {}", f.display(), e.message))
    })?;
    if kernels.is_empty() {
        return Err(Error::Run(format!(
            "{}: no kernel (start one with `.kernel NAME`)",
            file.display()
        )));
    }
    let mut w = sim_isa::cubin::CubinWriter::new();
    for k in kernels {
        w.add_kernel(k);
    }
    w.to_bytes()
        .map_err(|e| Error::Run(format!("{}: {e}", file.display())))
}

/// Appends `file`'s lines to `text`, each `.include "NAME"` line replaced by
/// the lines of NAME (relative to the including file), recording where each
/// line came from; `stack` holds the files being included, to refuse a cycle.
fn include(
    file: &Path,
    text: &mut String,
    origin: &mut Vec<(PathBuf, usize)>,
    stack: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let bytes = read_input(file).map_err(|e| Error::File {
        path: file.display().to_string(),
        msg: e.to_string(),
    })?;
    let src = String::from_utf8(bytes)
        .map_err(|e| Error::Run(format!("{}: not UTF-8 text ({e})", file.display())))?;
    let canon = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    if stack.contains(&canon) {
        return Err(Error::Run(format!(
            "{}: included from itself",
            file.display()
        )));
    }
    stack.push(canon);
    for (i, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("").trim();
        if let Some(rest) = code.strip_prefix(".include") {
            let name = rest.trim().trim_matches('"');
            if name.is_empty() || !rest.trim().starts_with('"') {
                return Err(Error::Run(format!(
                    "{}:{}: `.include \"FILE\"`",
                    file.display(),
                    i + 1
                )));
            }
            let inc = file.parent().unwrap_or(Path::new(".")).join(name);
            include(&inc, text, origin, stack).map_err(|e| Error::Included {
                at: format!("{}:{}", file.display(), i + 1),
                error: Box::new(e),
            })?;
            continue;
        }
        text.push_str(line);
        text.push('\n');
        origin.push((file.to_path_buf(), i + 1));
    }
    stack.pop();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch file naming a device, a folder or a file larger than the
    /// device's memory gets an error naming it at once; before, `/dev/zero`
    /// was read until the host's memory ran out.
    #[test]
    fn the_reader_refuses_what_no_buffer_is_read_from() {
        let dir = std::env::temp_dir().join(format!("keplersim-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let read = reader(&dir);
        let huge = dir.join("huge.bin");
        // Sparse: no disk is written.
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(6 << 30)
            .unwrap();
        std::fs::write(dir.join("small.bin"), [1u8, 2, 3]).unwrap();
        for (name, want) in [
            ("/dev/zero", "/dev/zero: not a regular file"),
            (".", "not a regular file"),
            (
                "huge.bin",
                "huge.bin: 6442450944 bytes, more than the device's 5368709120 bytes",
            ),
            ("missing.bin", "missing.bin: No such file"),
        ] {
            let e = read(name).unwrap_err();
            assert!(e.contains(want), "{name}: {e}");
        }
        assert_eq!(read("small.bin").unwrap(), [1, 2, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

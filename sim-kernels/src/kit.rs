//! The hardware kits: every kernel `keplersim bench micro` or `bench sgemm`
//! runs, written out as a cubin with how it is launched, and a small C program
//! that runs them on a real sm_35 card; then the card's results, read back so
//! that the suite derives its figures from them exactly as it does from the
//! model's runs (`--kit DIR`, `--card DIR`).
//!
//! A kit directory holds:
//! - `kit.txt`, the manifest: a header (the version, the suite that made it,
//!   the shared bank width), then for each run its label (the template, or the
//!   cubin and size), kernel, cubin, grid, block, parameter bytes, buffers (the
//!   first is the kernel's `out`; each starts zeroed, as a pointer chase, or
//!   from a file of the kit) and the parameters' places (a buffer's address,
//!   or a 32-bit word);
//! - `cubins/NNNN.cubin`, the kernels, as the model ran them;
//! - `inputs/`, the buffers' starting contents where they are not zero;
//! - `model/NNNN.out` and `model/times.txt`, what each kernel stored on the
//!   model and how long it ran there, to set beside the card's;
//! - `run_kit.c`, the program to build and run beside a card (it needs NVIDIA's
//!   driver only), which writes `results/`: `NNNN.out`, `times.txt`,
//!   `device.txt`.

use std::path::{Path, PathBuf};

use crate::workload::read_input;
use crate::Error;

type Result<T> = std::result::Result<T, Error>;

/// The manifest's version; `run_kit.c` refuses any other.
const VERSION: u32 = 2;

/// The suite of `bench micro`'s kits.
pub const MICRO: &str = "micro";
/// The suite of `bench sgemm`'s kits.
pub const SGEMM: &str = "sgemm";

/// The C program written into every kit.
pub const RUN_KIT_C: &str = include_str!("../kit/run_kit.c");

/// A buffer a kernel is launched with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// Its size, bytes, set as `init` says before each launch.
    pub bytes: u64,
    pub init: Init,
}

/// What a buffer holds before each launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Init {
    /// Zeroes.
    Zero,
    /// Zeroes, but for its first word: the low 32 bits of its own address (a
    /// pointer chase).
    Chase,
    /// The bytes of this file of the kit (`inputs/...`).
    File(String),
}

/// A parameter's place in the launch's parameter bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// The 64-bit address of buffer `buffer`, at `offset`.
    Pointer { offset: u32, buffer: usize },
    /// A 32-bit value at `offset`.
    Word { offset: u32, value: u32 },
}

/// One kernel launch of the suite.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The template it was filled from (`issue.sass`).
    pub file: String,
    pub kernel: String,
    pub cubin: Vec<u8>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The kernel's parameter bytes (zero where no parameter says otherwise).
    pub param_size: u32,
    /// Buffer 0 is the kernel's `out`, whose contents are the result.
    pub buffers: Vec<Buffer>,
    pub params: Vec<Param>,
}

impl Launch {
    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }
}

/// A kit being recorded: each launch with what the model's run of it stored
/// and its cycles.
#[derive(Debug, Default)]
pub struct Kit {
    runs: Vec<(Launch, Vec<u8>, u64)>,
    suite: &'static str,
    fast: bool,
    shared_bank_bytes: u32,
    /// The buffers' starting contents, by their name in the kit.
    inputs: std::collections::BTreeMap<String, Vec<u8>>,
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::File {
        path: path.display().to_string(),
        msg: e.to_string(),
    }
}

/// A file of a kit or of a card's results, as text, read as every file
/// keplersim is given is ([`read_input`]).
fn read_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_input(path)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

fn bad(path: &Path, line: usize, msg: impl std::fmt::Display) -> Error {
    Error::File {
        path: format!("{}:{line}", path.display()),
        msg: msg.to_string(),
    }
}

impl Kit {
    /// An empty kit of `suite` ([`MICRO`], [`SGEMM`]) run with `fast` (the
    /// shorter streaming reads) on a model whose shared-memory banks are
    /// `shared_bank_bytes` wide (the card is set to the same).
    pub fn new(suite: &'static str, fast: bool, shared_bank_bytes: u32) -> Kit {
        Kit {
            runs: Vec::new(),
            suite,
            fast,
            shared_bank_bytes,
            inputs: Default::default(),
        }
    }

    /// Keeps `data` as a buffer's starting contents and gives the name its
    /// [`Init::File`] takes: the same bytes, the same file.
    pub fn input(&mut self, data: &[u8]) -> String {
        let name = format!("inputs/{:016x}.bin", crate::golden::fnv64(data));
        self.inputs
            .entry(name.clone())
            .or_insert_with(|| data.to_vec());
        name
    }

    /// Adds a launch, with what the model's run stored in its `out` buffer
    /// and the cycles the run took.
    pub fn push(&mut self, launch: Launch, out: Vec<u8>, cycles: u64) {
        self.runs.push((launch, out, cycles));
    }

    /// The suite that made it ([`MICRO`], [`SGEMM`]).
    pub fn suite(&self) -> &'static str {
        self.suite
    }

    /// The launches, in the suite's order.
    pub fn launches(&self) -> impl Iterator<Item = &Launch> {
        self.runs.iter().map(|r| &r.0)
    }

    /// Writes the kit into `dir` (created if need be): the manifest, the
    /// cubins, the model's results and `run_kit.c`. `clock_mhz` converts the
    /// model's cycles to the milliseconds `model/times.txt` holds.
    pub fn write(&self, dir: &Path, clock_mhz: f64) -> Result<()> {
        use std::fmt::Write;
        for sub in ["cubins", "model", "inputs"] {
            let p = dir.join(sub);
            std::fs::create_dir_all(&p).map_err(|e| io(&p, e))?;
        }
        for (name, data) in &self.inputs {
            let p = dir.join(name);
            std::fs::write(&p, data).map_err(|e| io(&p, e))?;
        }
        let mut manifest = String::new();
        let _ = writeln!(manifest, "keplersim-kit {VERSION}");
        let _ = writeln!(manifest, "suite {}", self.suite);
        let _ = writeln!(manifest, "fast {}", self.fast as u32);
        let _ = writeln!(manifest, "shared_bank_bytes {}", self.shared_bank_bytes);
        let _ = writeln!(manifest, "runs {}", self.runs.len());
        let mut times = String::new();
        for (i, (l, out, cycles)) in self.runs.iter().enumerate() {
            let cubin = format!("cubins/{i:04}.cubin");
            let p = dir.join(&cubin);
            std::fs::write(&p, &l.cubin).map_err(|e| io(&p, e))?;
            let p = dir.join(format!("model/{i:04}.out"));
            std::fs::write(&p, out).map_err(|e| io(&p, e))?;
            let ms = *cycles as f64 / (clock_mhz * 1e3);
            let _ = writeln!(times, "{i:04} {ms:.9e}");
            let _ = writeln!(
                manifest,
                "run {i} {} {} {cubin} {} {} {} {} {} {} {} {} {}",
                l.file,
                l.kernel,
                l.grid[0],
                l.grid[1],
                l.grid[2],
                l.block[0],
                l.block[1],
                l.block[2],
                l.param_size,
                l.buffers.len(),
                l.params.len()
            );
            for b in &l.buffers {
                let _ = match &b.init {
                    Init::Zero => writeln!(manifest, "buffer {} zero", b.bytes),
                    Init::Chase => writeln!(manifest, "buffer {} chase", b.bytes),
                    Init::File(f) => writeln!(manifest, "buffer {} file {f}", b.bytes),
                };
            }
            for p in &l.params {
                let _ = match p {
                    Param::Pointer { offset, buffer } => {
                        writeln!(manifest, "param pointer {offset} {buffer}")
                    }
                    Param::Word { offset, value } => {
                        writeln!(manifest, "param word {offset} {value}")
                    }
                };
            }
        }
        for (name, text) in [
            ("kit.txt", manifest.as_str()),
            ("model/times.txt", times.as_str()),
            ("run_kit.c", RUN_KIT_C),
        ] {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| io(&p, e))?;
        }
        Ok(())
    }
}

/// The index in `r.buffers` of the buffer a kit keeps as a launch's result
/// (its `out`): the one the launch file checks first, else the first.
pub fn out_buffer(r: &sim_core::launch::Resolved) -> usize {
    r.checks
        .first()
        .and_then(|c| r.buffers.iter().position(|b| b.name == c.buffer))
        .unwrap_or(0)
}

/// A launch file's run as a kit launches it: `r` (resolved) of kernel
/// `r.kernel` of `cubin` (its bytes `image`), labelled `label`. The buffer
/// the launch file checks goes first (the kit's `out`); a buffer that starts
/// other than zeroed starts from a file of `kit`. Each parameter is placed
/// where the cubin's parameter table says: a buffer's address, or its value
/// in 32-bit words.
pub fn launch_of(
    kit: &mut Kit,
    label: &str,
    cubin: &sim_isa::cubin::Cubin,
    image: &[u8],
    r: &sim_core::launch::Resolved,
) -> Result<Launch> {
    use sim_core::launch::{pack_params, spec::Arg};
    let fail = |msg: String| Error::Run(format!("{label}: {msg}"));
    let load = sim_core::program::LoadOptions {
        unbounded_stack: r.stack_size,
    };
    let mut global = sim_core::mem::GlobalMem::with_mode(r.memory);
    let prog = sim_core::program::Program::load_with(cubin, &r.kernel, &mut global, &load)
        .map_err(|e| fail(e.to_string()))?;
    // The checked buffer first: its contents after the launch are the result.
    let out = out_buffer(r);
    let mut order: Vec<usize> = (0..r.buffers.len()).collect();
    order.retain(|&i| i != out);
    order.insert(0, out);
    if r.buffers.is_empty() {
        return Err(fail(
            "the launch has no buffer to read a result from".into(),
        ));
    }
    if r.dims.dynamic_shared != 0 {
        return Err(fail(
            "a kit launches with no dynamic shared memory; this launch asks for some".into(),
        ));
    }
    let buffers = order
        .iter()
        .map(|&i| {
            let data = &r.buffers[i].data;
            Buffer {
                bytes: data.len() as u64,
                init: if data.iter().all(|&b| b == 0) {
                    Init::Zero
                } else {
                    Init::File(kit.input(data))
                },
            }
        })
        .collect();
    let bytes =
        pack_params(r, &prog.params, prog.param_size, &|_| 0).map_err(|e| fail(e.to_string()))?;
    let mut params = Vec::new();
    for (a, p) in r.args.iter().zip(&prog.params) {
        let offset = p.offset as u32;
        match a {
            Arg::Buffer(name) => {
                let i = r
                    .buffers
                    .iter()
                    .position(|b| &b.name == name)
                    .ok_or_else(|| fail(format!("no buffer `{name}`")))?;
                let buffer = order.iter().position(|&o| o == i).unwrap_or(0);
                params.push(Param::Pointer { offset, buffer });
            }
            _ => {
                for w in (0..p.size as u32).step_by(4) {
                    let at = (offset + w) as usize;
                    let mut word = [0u8; 4];
                    let end = (at + 4).min(bytes.len());
                    word[..end - at].copy_from_slice(&bytes[at..end]);
                    params.push(Param::Word {
                        offset: offset + w,
                        value: u32::from_le_bytes(word),
                    });
                }
            }
        }
    }
    Ok(Launch {
        file: label.to_string(),
        kernel: r.kernel.clone(),
        cubin: image.to_vec(),
        grid: r.dims.grid,
        block: r.dims.block,
        param_size: prog.param_size,
        buffers,
        params,
    })
}

/// The card a kit ran on, as `results/device.txt` names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub name: String,
    /// Compute capability (3, 5).
    pub cc: (u32, u32),
    pub clock_khz: u32,
    pub sms: u32,
}

/// A kit's manifest and a card's results of it.
#[derive(Debug)]
pub struct CardResults {
    pub dir: PathBuf,
    /// The suite that made the kit ([`MICRO`], [`SGEMM`]).
    pub suite: String,
    pub device: Device,
    /// Whether the kit was made with the shorter streaming reads.
    pub fast: bool,
    /// The shared-memory bank width the card was set to, bytes (4 or 8).
    pub shared_bank_bytes: u32,
    pub launches: Vec<Launch>,
    /// Each run's `out` buffer, as the card left it.
    pub outs: Vec<Vec<u8>>,
    /// Each run's milliseconds on the card (CUDA events around the launch).
    pub ms: Vec<f64>,
    /// Each run's milliseconds on the model, as the kit recorded them.
    pub model_ms: Vec<f64>,
}

impl CardResults {
    /// What run `i` stored on the model (its `out` buffer), as the kit
    /// recorded it.
    pub fn model_out(&self, i: usize) -> Result<Vec<u8>> {
        let p = self.dir.join(format!("model/{i:04}.out"));
        read_input(&p).map_err(|e| io(&p, e))
    }
}

/// A whitespace-separated manifest being read, with its line for messages.
struct Tokens<'a> {
    path: &'a Path,
    lines: Vec<(usize, Vec<&'a str>)>,
    at: usize,
    col: usize,
}

impl<'a> Tokens<'a> {
    fn new(path: &'a Path, text: &'a str) -> Tokens<'a> {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
            .filter(|(_, w)| !w.is_empty())
            .collect();
        Tokens {
            path,
            lines,
            at: 0,
            col: 0,
        }
    }

    fn line(&self) -> usize {
        self.lines
            .get(self.at)
            .map_or(self.lines.last().map_or(1, |l| l.0), |l| l.0)
    }

    fn next(&mut self) -> Result<&'a str> {
        while let Some((_, words)) = self.lines.get(self.at) {
            if let Some(w) = words.get(self.col) {
                self.col += 1;
                return Ok(w);
            }
            self.at += 1;
            self.col = 0;
        }
        Err(self.bad("ends early"))
    }

    /// An error at the line being read.
    fn bad(&self, msg: impl std::fmt::Display) -> Error {
        bad(self.path, self.line(), msg)
    }

    fn expect(&mut self, want: &str) -> Result<()> {
        let w = self.next()?;
        if w != want {
            return Err(self.bad(format!("expected `{want}`, found `{w}`")));
        }
        Ok(())
    }

    fn number<T: std::str::FromStr>(&mut self) -> Result<T> {
        let w = self.next()?;
        w.parse()
            .map_err(|_| self.bad(format!("`{w}` is not a number")))
    }
}

/// A kit's manifest.
struct Manifest {
    suite: String,
    fast: bool,
    shared_bank_bytes: u32,
    launches: Vec<Launch>,
}

/// Reads a kit's manifest and cubins.
fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join("kit.txt");
    if dir.exists() && !dir.is_dir() {
        return Err(Error::File {
            path: dir.display().to_string(),
            msg: "not a kit (a kit is a folder, with kit.txt in it): `keplersim bench micro \
                  --kit DIR` or `bench sgemm --kit DIR` makes one"
                .into(),
        });
    }
    let text = read_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::File {
            path: dir.display().to_string(),
            msg: "not a kit (no kit.txt): `keplersim bench micro --kit DIR` or `bench sgemm \
                  --kit DIR` makes one"
                .into(),
        },
        _ => io(&path, e),
    })?;
    let mut t = Tokens::new(&path, &text);
    t.expect("keplersim-kit")?;
    let version: u32 = t.number()?;
    if version != VERSION {
        return Err(t.bad(format!(
            "a kit of version {version}; this keplersim reads {VERSION}: make it again"
        )));
    }
    t.expect("suite")?;
    let suite = t.next()?.to_string();
    t.expect("fast")?;
    let fast = t.number::<u32>()? != 0;
    t.expect("shared_bank_bytes")?;
    let shared_bank_bytes: u32 = t.number()?;
    if shared_bank_bytes != 4 && shared_bank_bytes != 8 {
        return Err(t.bad(format!(
            "shared banks of {shared_bank_bytes} bytes (4 or 8)"
        )));
    }
    t.expect("runs")?;
    let runs: usize = t.number()?;
    let mut launches = Vec::with_capacity(runs.min(1 << 16));
    for i in 0..runs {
        t.expect("run")?;
        let n: usize = t.number()?;
        if n != i {
            return Err(t.bad(format!("run {n} where run {i} belongs")));
        }
        let file = t.next()?.to_string();
        let kernel = t.next()?.to_string();
        let cubin_path = dir.join(t.next()?);
        let mut dims = [0u32; 6];
        for d in &mut dims {
            *d = t.number()?;
        }
        let param_size: u32 = t.number()?;
        let nbuf: usize = t.number()?;
        let nparam: usize = t.number()?;
        let mut buffers = Vec::new();
        for _ in 0..nbuf {
            t.expect("buffer")?;
            let bytes: u64 = t.number()?;
            let init = match t.next()? {
                "zero" => Init::Zero,
                "chase" => Init::Chase,
                "file" => {
                    let f = t.next()?;
                    if !f.starts_with("inputs/") || f.contains("..") {
                        return Err(t.bad(format!(
                            "`{f}`: a buffer's file is one of the kit's inputs/"
                        )));
                    }
                    Init::File(f.to_string())
                }
                w => return Err(t.bad(format!("buffer init `{w}`"))),
            };
            buffers.push(Buffer { bytes, init });
        }
        let mut params = Vec::new();
        for _ in 0..nparam {
            t.expect("param")?;
            params.push(match t.next()? {
                "pointer" => Param::Pointer {
                    offset: t.number()?,
                    buffer: t.number()?,
                },
                "word" => Param::Word {
                    offset: t.number()?,
                    value: t.number()?,
                },
                w => return Err(t.bad(format!("parameter kind `{w}`"))),
            });
        }
        let cubin = read_input(&cubin_path).map_err(|e| io(&cubin_path, e))?;
        launches.push(Launch {
            file,
            kernel,
            cubin,
            grid: [dims[0], dims[1], dims[2]],
            block: [dims[3], dims[4], dims[5]],
            param_size,
            buffers,
            params,
        });
    }
    Ok(Manifest {
        suite,
        fast,
        shared_bank_bytes,
        launches,
    })
}

/// Reads `results/device.txt`.
fn read_device(path: &Path) -> Result<Device> {
    let text = read_string(path).map_err(|e| io(path, e))?;
    let (mut name, mut cc, mut clock_khz, mut sms) = (None, None, None, None);
    for (i, line) in text.lines().enumerate() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| bad(path, i + 1, format!("`{}` is not a number", s.trim())))
        };
        match key {
            "name" => name = Some(rest.trim().to_string()),
            "cc" => {
                let (a, b) = rest.trim().split_once(' ').unwrap_or((rest, ""));
                cc = Some((num(a)?, num(b)?));
            }
            "clock_khz" => clock_khz = Some(num(rest)?),
            "sms" => sms = Some(num(rest)?),
            _ => {}
        }
    }
    let missing = |what: &str| bad(path, 1, format!("no `{what}` line"));
    let device = Device {
        name: name.ok_or_else(|| missing("name"))?,
        cc: cc.ok_or_else(|| missing("cc"))?,
        clock_khz: clock_khz.ok_or_else(|| missing("clock_khz"))?,
        sms: sms.ok_or_else(|| missing("sms"))?,
    };
    if device.clock_khz == 0 {
        return Err(bad(path, 1, "a clock of 0 kHz"));
    }
    if device.sms == 0 {
        return Err(bad(path, 1, "a card of 0 SMs"));
    }
    // run_kit refuses other cards, but a device.txt can come from elsewhere.
    if device.cc.0 != 3 || device.cc.1 < 5 {
        return Err(bad(
            path,
            1,
            format!(
                "compute capability {}.{} ({}): the kit's cubins are sm_35, which runs on 3.5 \
                 and 3.7 only",
                device.cc.0, device.cc.1, device.name
            ),
        ));
    }
    Ok(device)
}

/// Reads a `times.txt`: a line `NNNN MS` per run.
fn read_times(path: &Path, runs: usize) -> Result<Vec<f64>> {
    let text = read_string(path).map_err(|e| io(path, e))?;
    let mut ms = vec![f64::NAN; runs];
    // The line each run's time came from, to name both of a run timed twice.
    let mut from = vec![0usize; runs];
    for (i, line) in text.lines().enumerate() {
        let mut w = line.split_whitespace();
        let (n, v) = match (w.next(), w.next(), w.next()) {
            (None, ..) => continue,
            (Some(n), Some(v), None) => (n, v),
            _ => {
                return Err(bad(
                    path,
                    i + 1,
                    format!("`{}` is not `RUN MS` (a run and its time)", line.trim()),
                ))
            }
        };
        let n: usize = n
            .parse()
            .map_err(|_| bad(path, i + 1, format!("`{n}` is not a run")))?;
        let v: f64 = v
            .parse()
            .map_err(|_| bad(path, i + 1, format!("`{v}` is not a time")))?;
        if n >= runs {
            return Err(bad(path, i + 1, format!("run {n} is not in the kit")));
        }
        if !(v.is_finite() && v > 0.0) {
            return Err(bad(
                path,
                i + 1,
                format!("run {n:04} took {v} ms: a launch takes a positive, finite time"),
            ));
        }
        if from[n] != 0 {
            return Err(bad(
                path,
                i + 1,
                format!(
                    "run {n:04} has a second time (line {} gave its first): one line a run",
                    from[n]
                ),
            ));
        }
        ms[n] = v;
        from[n] = i + 1;
    }
    if let Some(n) = ms.iter().position(|v| v.is_nan()) {
        return Err(bad(
            path,
            1,
            format!("no time for run {n:04}: did run_kit finish?"),
        ));
    }
    Ok(ms)
}

impl CardResults {
    /// Reads a kit and a card's results of it from `dir/results`.
    pub fn load(dir: &Path) -> Result<CardResults> {
        let Manifest {
            suite,
            fast,
            shared_bank_bytes,
            launches,
        } = read_manifest(dir)?;
        let results = dir.join("results");
        if !results.is_dir() {
            return Err(Error::File {
                path: results.display().to_string(),
                msg: "no results: run the kit on a card first (`cc -std=c99 -O2 -o run_kit \
                      run_kit.c -ldl && ./run_kit` in the kit's directory)"
                    .into(),
            });
        }
        // A run of run_kit that stopped part way leaves some files out.
        let written = |p: PathBuf| -> Result<PathBuf> {
            if p.exists() {
                return Ok(p);
            }
            Err(Error::File {
                path: p.display().to_string(),
                msg: "not there: run_kit did not finish; run it again in the kit's directory"
                    .into(),
            })
        };
        let device = read_device(&written(results.join("device.txt"))?)?;
        let ms = read_times(&written(results.join("times.txt"))?, launches.len())?;
        let model_ms = read_times(&dir.join("model/times.txt"), launches.len())?;
        let mut outs = Vec::with_capacity(launches.len());
        for (i, l) in launches.iter().enumerate() {
            let p = written(results.join(format!("{i:04}.out")))?;
            let data = read_input(&p).map_err(|e| io(&p, e))?;
            let want = l.buffers.first().map_or(0, |b| b.bytes);
            if data.len() as u64 != want {
                return Err(Error::File {
                    path: p.display().to_string(),
                    msg: format!("{} bytes where the kernel's out has {want}", data.len()),
                });
            }
            outs.push(data);
        }
        Ok(CardResults {
            dir: dir.to_path_buf(),
            suite,
            device,
            fast,
            shared_bank_bytes,
            launches,
            outs,
            ms,
            model_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch() -> Launch {
        Launch {
            file: "latency.sass".into(),
            kernel: "latency".into(),
            cubin: vec![0x7f, b'E', b'L', b'F', 1, 2, 3],
            grid: [26, 1, 1],
            block: [512, 1, 1],
            param_size: 0x14,
            buffers: vec![
                Buffer {
                    bytes: 8,
                    init: Init::Zero,
                },
                Buffer {
                    bytes: 256,
                    init: Init::Chase,
                },
            ],
            params: vec![
                Param::Pointer {
                    offset: 0,
                    buffer: 0,
                },
                Param::Pointer {
                    offset: 8,
                    buffer: 1,
                },
                Param::Word {
                    offset: 16,
                    value: 32,
                },
            ],
        }
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("keplersim-kit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// What the model stored, put where a card's results go.
    fn as_card(dir: &Path) {
        let r = dir.join("results");
        std::fs::create_dir_all(&r).unwrap();
        for e in std::fs::read_dir(dir.join("model")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), r.join(e.file_name())).unwrap();
        }
        std::fs::write(
            r.join("device.txt"),
            "name Tesla K20m\ncc 3 5\nclock_khz 705500\nsms 13\n",
        )
        .unwrap();
    }

    #[test]
    fn a_kit_reads_back_as_it_was_written() {
        let dir = scratch("roundtrip");
        let mut kit = Kit::new(MICRO, true, 8);
        kit.push(launch(), vec![1, 0, 0, 0, 9, 0, 0, 0], 705_000);
        kit.write(&dir, 705.0).unwrap();
        as_card(&dir);
        let card = CardResults::load(&dir).unwrap();
        assert!(card.fast);
        assert_eq!(card.shared_bank_bytes, 8);
        assert_eq!(card.launches.len(), 1);
        let (a, b) = (&card.launches[0], launch());
        assert_eq!(
            (&a.file, &a.kernel, &a.cubin, a.grid, a.block, a.param_size),
            (&b.file, &b.kernel, &b.cubin, b.grid, b.block, b.param_size)
        );
        assert_eq!((&a.buffers, &a.params), (&b.buffers, &b.params));
        assert_eq!(card.outs[0], vec![1, 0, 0, 0, 9, 0, 0, 0]);
        assert!((card.ms[0] - 1.0).abs() < 1e-12, "{}", card.ms[0]);
        // Another suite's reader refuses it, naming the one that reads it.
        let e = crate::ladder::card_rows(&card).unwrap_err().to_string();
        assert!(e.contains("a kit of `bench micro`"), "{e}");
        assert_eq!(card.device.cc, (3, 5));
        assert_eq!(card.device.clock_khz, 705_500);
        assert!(std::fs::read_to_string(dir.join("run_kit.c"))
            .unwrap()
            .contains("cuLaunchKernel"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_buffer_from_a_file_is_one_file_of_the_kit_however_many_runs_use_it() {
        let dir = scratch("inputs");
        let mut kit = Kit::new(SGEMM, false, 8);
        let data = vec![7u8; 8];
        for _ in 0..2 {
            let mut l = launch();
            l.buffers[0].init = Init::File(kit.input(&data));
            kit.push(l, data.clone(), 10);
        }
        kit.write(&dir, 705.0).unwrap();
        let files: Vec<_> = std::fs::read_dir(dir.join("inputs")).unwrap().collect();
        assert_eq!(files.len(), 1);
        as_card(&dir);
        let card = CardResults::load(&dir).unwrap();
        assert_eq!(card.suite, SGEMM);
        let Init::File(f) = &card.launches[1].buffers[0].init else {
            panic!("{:?}", card.launches[1].buffers[0]);
        };
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), data);
        assert_eq!(card.model_out(1).unwrap(), data);
        // An SGEMM kit's runs must be kernels of the ladder's table.
        let e = crate::ladder::card_rows(&card).unwrap_err().to_string();
        assert!(e.contains("run 0000 is `latency.sass`, no kernel"), "{e}");
        // A file outside the kit's inputs/ is refused, with its line.
        let m = std::fs::read_to_string(dir.join("kit.txt")).unwrap();
        std::fs::write(dir.join("kit.txt"), m.replace(f.as_str(), "inputs/../../x")).unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(
            e.contains("kit.txt:7") && e.contains("one of the kit's inputs/"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_kit_or_missing_results_say_what_and_where() {
        let dir = scratch("damaged");
        let mut kit = Kit::new(MICRO, false, 4);
        kit.push(launch(), vec![0; 8], 100);
        kit.write(&dir, 705.0).unwrap();
        let e = CardResults::load(&dir.join("model"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a kit (no kit.txt)"), "{e}");
        // A file, or a device, where the kit's folder belongs.
        for f in [dir.join("kit.txt"), PathBuf::from("/dev/zero")] {
            let e = CardResults::load(&f).unwrap_err().to_string();
            assert!(
                e.contains(&f.display().to_string()) && e.contains("a kit is a folder"),
                "{e}"
            );
        }
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("results") && e.contains("run_kit"), "{e}");
        as_card(&dir);
        // A short out buffer.
        std::fs::write(dir.join("results/0000.out"), [0u8; 4]).unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("0000.out") && e.contains("4 bytes"), "{e}");
        std::fs::write(dir.join("results/0000.out"), [0u8; 8]).unwrap();
        // A time missing.
        std::fs::write(dir.join("results/times.txt"), "").unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("no time for run 0000"), "{e}");
        // A time no launch can take.
        for t in ["0", "-1.5", "nan", "inf"] {
            std::fs::write(dir.join("results/times.txt"), format!("0000 {t}\n")).unwrap();
            let e = CardResults::load(&dir).unwrap_err().to_string();
            assert!(
                e.contains("times.txt:1") && e.contains("positive, finite"),
                "{t}: {e}"
            );
        }
        // A line that is not a run and its time, named by its line.
        for line in ["garbage", "0000 1.5 ms"] {
            std::fs::write(dir.join("results/times.txt"), format!("\n{line}\n")).unwrap();
            let e = CardResults::load(&dir).unwrap_err().to_string();
            assert!(
                e.contains("times.txt:2") && e.contains(&format!("`{line}` is not `RUN MS`")),
                "{line}: {e}"
            );
        }
        // A run timed twice: both lines named, not the second taken.
        std::fs::write(dir.join("results/times.txt"), "0000 1.5\n\n0000 2.5\n").unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(
            e.contains("times.txt:3: run 0000 has a second time (line 1 gave its first)"),
            "{e}"
        );
        std::fs::write(dir.join("results/times.txt"), "\n0000 1.5\n\n").unwrap();
        CardResults::load(&dir).unwrap();
        // A card the kit's cubins cannot run on.
        let device = dir.join("results/device.txt");
        let k20m = std::fs::read_to_string(&device).unwrap();
        std::fs::write(
            &device,
            k20m.replace("Tesla K20m\ncc 3 5", "GTX 980\ncc 5 2"),
        )
        .unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(
            e.contains(
                "device.txt:1: compute capability 5.2 (GTX 980): the kit's cubins are sm_35"
            ),
            "{e}"
        );
        // A card of no SMs.
        let sms = k20m.lines().find(|l| l.starts_with("sms ")).unwrap();
        std::fs::write(&device, k20m.replace(sms, "sms 0")).unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("device.txt:1: a card of 0 SMs"), "{e}");
        std::fs::write(&device, k20m.replace("cc 3 5", "cc 3 7")).unwrap();
        CardResults::load(&dir).unwrap();
        // A manifest word out of place, named by its line.
        let m = std::fs::read_to_string(dir.join("kit.txt")).unwrap();
        std::fs::write(dir.join("kit.txt"), m.replace("param word", "param wrd")).unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("kit.txt:11") && e.contains("`wrd`"), "{e}");
        // Another version.
        std::fs::write(
            dir.join("kit.txt"),
            m.replace("keplersim-kit 2", "keplersim-kit 7"),
        )
        .unwrap();
        let e = CardResults::load(&dir).unwrap_err().to_string();
        assert!(e.contains("version 7"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[cfg(unix)]
    fn results_that_are_not_files_are_refused_before_a_byte_is_read() {
        // A device in a result's place used to be read until the host ran
        // out of memory; a folder gave the system's bare "Is a directory".
        let dir = scratch("devices");
        let mut kit = Kit::new(MICRO, false, 4);
        kit.push(launch(), vec![0; 8], 100);
        kit.write(&dir, 705.0).unwrap();
        as_card(&dir);
        std::fs::write(dir.join("results/times.txt"), "0000 1.5\n").unwrap();
        CardResults::load(&dir).unwrap();
        for name in ["0000.out", "device.txt", "times.txt"] {
            let p = dir.join("results").join(name);
            let kept = std::fs::read(&p).unwrap();
            std::fs::remove_file(&p).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
            let e = CardResults::load(&dir).unwrap_err().to_string();
            assert!(
                e.contains(name) && e.contains("not a regular file"),
                "{name}: {e}"
            );
            std::fs::remove_file(&p).unwrap();
            std::fs::create_dir(&p).unwrap();
            let e = CardResults::load(&dir).unwrap_err().to_string();
            assert!(
                e.contains(name) && e.contains("not a regular file"),
                "{name}: {e}"
            );
            std::fs::remove_dir(&p).unwrap();
            std::fs::write(&p, kept).unwrap();
        }
        CardResults::load(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

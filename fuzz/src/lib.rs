//! The fuzz targets' bodies, one function per input keplersim reads. The
//! targets in `fuzz_targets/` call them under libFuzzer; the project's normal
//! test suite replays the committed crashers (`regressions/`) through the same
//! functions, so a crash the fuzzer found stays fixed.
//!
//! Each function takes arbitrary bytes and may only fail by panicking (a bug).

use std::sync::OnceLock;

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_isa::cubin::Cubin;

/// The device memory a fuzzed launch file may ask for, bytes: small, so that
/// the limit, not the host, refuses a huge buffer.
pub const FUZZ_DEVICE_BYTES: u64 = 1 << 20;

/// The cubin reader: parse, list, load and check every kernel.
pub fn cubin(data: &[u8]) {
    let Ok(c) = Cubin::parse(data) else { return };
    for opts in [
        sim_isa::listing::ListingOptions::default(),
        sim_isa::listing::ListingOptions {
            control_fields: true,
            directives: true,
        },
    ] {
        let _ = sim_isa::listing::listing(&c, opts);
    }
    for k in &c.kernels {
        let mut global = sim_core::mem::GlobalMem::new();
        if let Ok(p) = sim_core::program::Program::load(&c, &k.name, &mut global) {
            let _ = sim_core::check::check(&p);
        }
    }
}

/// The assembler: a source that assembles writes a cubin that reads back.
pub fn asm(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(kernels) = sim_isa::asm::assemble_source(text) else {
        return;
    };
    if kernels.is_empty() {
        return;
    }
    let mut w = sim_isa::cubin::CubinWriter::new();
    for k in kernels {
        w.add_kernel(k);
    }
    if let Ok(bytes) = w.to_bytes() {
        let c = Cubin::parse(&bytes).expect("the assembler's cubin reads back");
        let _ = sim_isa::listing::listing(&c, Default::default());
    }
}

/// Files a fuzzed launch file may name: `a.bin` (16 bytes); others are missing.
fn read(name: &str) -> Result<Vec<u8>, String> {
    match name {
        "a.bin" => Ok((0u8..16).collect()),
        _ => Err(format!("{name}: no such file")),
    }
}

/// Launch files: parse and resolve within [`FUZZ_DEVICE_BYTES`].
pub fn launch(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = launch::parse(text) else {
        return;
    };
    let limits = launch::Limits {
        device_bytes: FUZZ_DEVICE_BYTES,
        ..launch::Limits::default()
    };
    let _ = launch::resolve_within(&spec, &[], &read, &limits);
}

/// A one-block kernel the configuration target runs timed.
fn tiny_kernel() -> &'static Cubin {
    static K: OnceLock<Cubin> = OnceLock::new();
    K.get_or_init(|| {
        let src = ".kernel k\n.param 8\n\
            S2R R0, SR_TID.X;\n\
            ISCADD R2.CC, R0, c[0x0][0x140], 0x2;\n\
            IADD.X R3, RZ, c[0x0][0x144];\n\
            ST.E [R2], R0;\n\
            EXIT;\n";
        let specs = sim_isa::asm::assemble_source(src).expect("the tiny kernel assembles");
        let mut w = sim_isa::cubin::CubinWriter::new();
        for k in specs {
            w.add_kernel(k);
        }
        Cubin::parse(&w.to_bytes().expect("writes")).expect("reads back")
    })
}

/// Machine configurations, with `--param` settings over them: parse, set
/// and validate; a valid one runs a small kernel timed.
pub fn config(data: &[u8]) {
    // The file, then (after a 0 byte) `--param` settings, a line each.
    let (file, params) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    let params: Vec<sim_core::config::Param> = String::from_utf8_lossy(params)
        .lines()
        .filter_map(|l| l.parse().ok())
        .collect();
    let parsed = Config::parse_with(Some(text), "fuzz.ron", &params);
    if params.is_empty() {
        assert_eq!(parsed, Config::parse(text, "fuzz.ron"));
    }
    let Ok(config) = parsed else {
        return;
    };
    let Ok(spec) = launch::parse(
        "(kernel: \"k\", grid: (2, 1, 1), block: (64, 1, 1), \
         buffers: [(name: \"o\", elem: U32, len: 128)], args: [Buffer(\"o\")], \
         instruction_limit: 10000)",
    ) else {
        unreachable!("the launch file parses")
    };
    let r = launch::resolve(&spec, &[], &read).expect("the launch file resolves");
    let _ = launch::execute_as(
        tiny_kernel(),
        &r,
        Mode::Timed(sim_core::timing::Stepping::Turns),
        &config,
        &read,
    );
}

/// The decoder on arbitrary words (8 bytes each, little-endian): decode, print,
/// lower, the timing model's view, and the encoder on the printed text.
pub fn decode(data: &[u8]) {
    for (i, c) in data.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        let addr = 8 + 8 * i as u64;
        let Ok(inst) = sim_isa::decode::decode(w) else {
            continue;
        };
        let text = inst.text(addr);
        let _ = sim_isa::encode::assemble(&text, addr);
        let _ = sim_isa::encode::canonical(w);
        let Ok(syn) = sim_core::sass::Syntax::parse(&text) else {
            continue;
        };
        if let Ok(op) = sim_core::lower::lower(&syn, &sim_core::sass::float_fields(&inst, addr)) {
            let _ = sim_core::timing::pipes::info(
                &op,
                0,
                sim_core::timing::ctrl::Reading::K20M,
                || text.clone(),
            );
        }
    }
}

/// Reads the fuzzer's bytes one at a time (zeros once they run out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() as u32 % n
    }
}

/// The kernel text of a random program: a prologue, up to 64 instructions
/// drawn from `data` over R0..R7 and P0..P3 (integer and float arithmetic,
/// logic, shifts, compares, selects, conversions, the SFU, shared memory,
/// guarded branches forward and back, guarded exits, barriers), then an
/// epilogue that stores R0..R7 of each thread to the output buffer.
pub fn program_text(data: &[u8]) -> String {
    let mut b = Bytes(data);
    let n = b.below(64) as usize + 1;
    let mut body: Vec<String> = Vec::new();
    for _ in 0..n {
        let (d, a, c, e) = (b.below(8), b.below(8), b.below(8), b.below(8));
        let p = b.below(4);
        let imm = u32::from_le_bytes([b.next(), b.next(), b.next(), b.next()]);
        let sh = imm % 32;
        let cmp = ["LT", "EQ", "LE", "GT", "NE", "GE"][b.below(6) as usize];
        let guard = match b.below(4) {
            0 => format!("@P{p} "),
            1 => format!("@!P{p} "),
            _ => String::new(),
        };
        let ins = match b.below(34) {
            0 => format!("IADD R{d}, R{a}, R{c};"),
            1 => format!("IADD32I R{d}, R{a}, {:#x};", imm & 0x7fff_ffff),
            2 => format!("ISUB R{d}, R{a}, R{c};"),
            3 => format!("IMUL R{d}, R{a}, R{c};"),
            4 => format!("IMAD R{d}, R{a}, R{c}, R{e};"),
            5 => format!("MOV32I R{d}, {imm:#x};"),
            6 => format!("MOV R{d}, R{a};"),
            7 => format!("FADD R{d}, R{a}, R{c};"),
            8 => format!("FMUL R{d}, R{a}, R{c};"),
            9 => format!("FFMA R{d}, R{a}, R{c}, R{e};"),
            10 => format!("LOP.AND R{d}, R{a}, R{c};"),
            11 => format!("LOP.OR R{d}, R{a}, R{c};"),
            12 => format!("LOP.XOR R{d}, R{a}, R{c};"),
            13 => format!("SHL R{d}, R{a}, {sh:#x};"),
            14 => format!("SHR R{d}, R{a}, {sh:#x};"),
            15 => format!("SHR.U32 R{d}, R{a}, {sh:#x};"),
            16 => format!("ISETP.{cmp}.AND P{p}, PT, R{a}, R{c}, PT;"),
            17 => format!("ISETP.{cmp}.U32.AND P{p}, PT, R{a}, R{c}, PT;"),
            18 => format!("FSETP.{cmp}.AND P{p}, PT, R{a}, R{c}, PT;"),
            19 => format!("SEL R{d}, R{a}, R{c}, P{p};"),
            20 => format!("I2F.F32.S32 R{d}, R{a};"),
            21 => format!("F2I.S32.F32.TRUNC R{d}, R{a};"),
            22 => format!(
                "MUFU.{} R{d}, R{a};",
                ["RCP", "RSQ", "EX2", "LG2", "SIN", "COS"][b.below(6) as usize]
            ),
            23 => format!("POPC R{d}, RZ, R{a};"),
            24 => format!("IMNMX R{d}, R{a}, R{c}, PT;"),
            25 => format!("FMNMX R{d}, R{a}, R{c}, !PT;"),
            26 => format!("S2R R{d}, SR_TID.X;"),
            27 => format!("S2R R{d}, SR_CTAID.X;"),
            // Shared memory: an address masked into the first KiB, word aligned.
            28 => format!("LOP32I.AND R12, R{a}, 0x3fc;\n        STS [R12], R{c};"),
            29 => format!("LOP32I.AND R12, R{a}, 0x3fc;\n        LDS R{d}, [R12];"),
            30 => format!("@P{p} BRA L{};", b.below(8)),
            31 => format!("@!P{p} EXIT;"),
            32 => "BAR.SYNC 0x0;".to_string(),
            _ => format!("IADD R{d}.CC, R{a}, R{c};\n        IADD.X R{e}, R{a}, R{c};"),
        };
        let ins = if ins.starts_with('@') || ins.contains('\n') {
            ins
        } else {
            format!("{guard}{ins}")
        };
        body.push(ins);
    }
    let mut text = String::from(".kernel fuzz\n.param 8\n.shared 1024\n.registers 16\n");
    text.push_str("        S2R R0, SR_TID.X;\n        S2R R1, SR_CTAID.X;\n");
    // Labels L0..L7 at spread positions of the body.
    for (i, ins) in body.iter().enumerate() {
        if i % 8 == 0 && i / 8 < 8 {
            text.push_str(&format!("L{}:\n", i / 8));
        }
        text.push_str(&format!("        {ins}\n"));
    }
    for l in body.len().div_ceil(8)..8 {
        text.push_str(&format!("L{l}:\n"));
    }
    text.push_str(
        "        S2R R13, SR_TID.X;\n        S2R R12, SR_CTAID.X;\n        ISCADD R13, R12, R13, 0x5;\n\
        ISCADD R14.CC, R13, c[0x0][0x140], 0x5;\n        IADD.X R15, RZ, c[0x0][0x144];\n",
    );
    text.push_str("        ST.E [R14], R0;\n");
    for r in 1..8 {
        text.push_str(&format!("        ST.E [R14+{:#x}], R{r};\n", 4 * r));
    }
    text.push_str("        EXIT;\nspin:\n        BRA spin;\n");
    text
}

/// The launch of every random program: four blocks of one warp (warps of one
/// block would race on shared memory, and the two models interleave them
/// differently), an output buffer of 8 words per thread, a limit of 20,000
/// warp-instructions a block.
pub const PROGRAM_LAUNCH: &str = "(kernel: \"fuzz\", grid: (4, 1, 1), block: (32, 1, 1), \
    buffers: [(name: \"out\", elem: U32, len: 1024)], args: [Buffer(\"out\")], \
    instruction_limit: 20000)";

/// Random programs, functional against timed.
pub fn program(data: &[u8]) {
    let text = program_text(data);
    let specs = match sim_isa::asm::assemble_source(&text) {
        Ok(s) => s,
        Err(e) => panic!("a generated program does not assemble: {e}\n{text}"),
    };
    let mut w = sim_isa::cubin::CubinWriter::new();
    for k in specs {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("the cubin writes")).expect("reads back");
    let spec = launch::parse(PROGRAM_LAUNCH).expect("the launch file parses");
    let r = launch::resolve(&spec, &[], &read).expect("resolves");
    let config = Config::default();
    let func = launch::execute_as(
        &cubin,
        &r,
        Mode::Functional(sim_core::func::BlockOrder::Natural),
        &config,
        &read,
    );
    let timed = launch::execute_as(
        &cubin,
        &r,
        Mode::Timed(sim_core::timing::Stepping::Turns),
        &config,
        &read,
    );
    match (func, timed) {
        (Ok(f), Ok(t)) => {
            let (a, b) = (&f.finals[0].data, &t.finals[0].data);
            if let Some(i) = (0..a.len() / 4).find(|i| a[4 * i..4 * i + 4] != b[4 * i..4 * i + 4]) {
                panic!(
                    "functional and timed runs leave different values: thread {} R{}: {:02x?} and {:02x?}\n{text}",
                    i / 8,
                    i % 8,
                    &a[4 * i..4 * i + 4],
                    &b[4 * i..4 * i + 4]
                );
            }
        }
        (Err(_), Err(_)) => {}
        (f, t) => panic!(
            "functional {} but timed {}\n{text}",
            f.map(|_| "ran".to_string())
                .unwrap_or_else(|e| e.to_string()),
            t.map(|_| "ran".to_string())
                .unwrap_or_else(|e| e.to_string())
        ),
    }
}

/// The keys the trace target presses, in order, drawing after each: every
/// step, search and follow of the viewer, both ways, and a typed cycle.
const VIEWER_KEYS: &str = "l]hn[wWnpkksSbBcCdDaAmMwnp";

/// Trace files (`keplersim run --trace`): decode; a trace that decodes
/// exports to Perfetto's JSON, and opens in the viewer, which draws every
/// pane, presses every key (stepping, searches, following warps, changing
/// SM, jumping to typed cycles) and draws again after each.
pub fn trace(data: &[u8]) {
    use ratatui::buffer::Buffer;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;
    use sim_cli::view::App;

    let Ok(t) = sim_cli::trace::Trace::from_bytes(data) else {
        return;
    };
    let _ = sim_cli::perfetto::events(&t);
    let Ok(mut app) = App::new(t) else {
        return;
    };
    let draw = |a: &App| {
        let area = Rect::new(0, 0, 150, 42);
        let mut buf = Buffer::empty(area);
        a.render(area, &mut buf);
    };
    let press = |a: &mut App, c: KeyCode| {
        a.on_key(KeyEvent::new(c, KeyModifiers::NONE));
        draw(a);
    };
    draw(&app);
    for c in VIEWER_KEYS.chars() {
        press(&mut app, KeyCode::Char(c));
    }
    for k in [
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::Home,
        KeyCode::PageDown,
    ] {
        press(&mut app, k);
        for c in "sSbBcCdDaA".chars() {
            press(&mut app, KeyCode::Char(c));
        }
    }
    for typed in ["g150", "g18446744073709551615", "g99999999999999999999"] {
        for c in typed.chars() {
            press(&mut app, KeyCode::Char(c));
        }
        press(&mut app, KeyCode::Enter);
    }
}

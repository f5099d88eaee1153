//! The instructions as the generator builds them (text, control code, the
//! registers read and written), the register pool, the operand spellings,
//! and the stall counts of straight-line code.

use std::collections::BTreeMap;
use std::fmt::Write;

use sim_core::timing::ctrl::{Ctrl, Reading};

/// The bank of a register (bit 0 and 2 x bit 2 of its number).
pub(super) fn bank(r: u8) -> usize {
    ((r & 1) | ((r >> 1) & 2)) as usize
}

/// A register or predicate operand set of one instruction, for the bank and
/// latency bookkeeping of the generator (the checker re-derives all of it from
/// the cubin).
#[derive(Debug, Clone, Default)]
pub(super) struct Ins {
    pub(super) text: String,
    pub(super) ctrl: u8,
    pub(super) reads: Vec<u8>,
    pub(super) writes: Vec<u8>,
    /// A fixed-latency (ALU) result: readers must be 9 cycles away.
    pub(super) alu: bool,
    /// May be the second of a dual-issued pair after an FFMA.
    pub(super) pairs: bool,
    /// A load or store (waits for the ALU results it reads).
    pub(super) lsu: bool,
    pub(super) comment: String,
}

impl Ins {
    pub(super) fn new(text: impl Into<String>) -> Ins {
        let text: String = text.into();
        // The mnemonic, after a guard predicate if there is one.
        let mnemonic = match text.strip_prefix('@') {
            Some(rest) => rest.split_once(' ').map_or(rest, |(_, m)| m.trim()),
            None => text.as_str(),
        };
        let lsu = ["LD", "ST", "LDS", "STS", "LDG"]
            .iter()
            .any(|m| mnemonic.split(['.', ' ']).next() == Some(*m));
        Ins {
            text,
            ctrl: 0x20,
            lsu,
            ..Ins::default()
        }
    }
    pub(super) fn r(mut self, regs: &[u8]) -> Ins {
        self.reads.extend_from_slice(regs);
        self
    }
    pub(super) fn w(mut self, regs: &[u8]) -> Ins {
        self.writes.extend_from_slice(regs);
        self
    }
    pub(super) fn alu(mut self) -> Ins {
        self.alu = true;
        self
    }
    pub(super) fn pairs(mut self) -> Ins {
        self.pairs = true;
        self
    }
    pub(super) fn note(mut self, c: impl Into<String>) -> Ins {
        self.comment = c.into();
        self
    }
}

/// Registers, in the order they are handed out by bank.
pub(super) struct Pool {
    pub(super) free: [Vec<u8>; 4],
    pub(super) max: u8,
}

impl Pool {
    pub(super) fn new(taken: impl Fn(u8) -> bool) -> Pool {
        let mut free: [Vec<u8>; 4] = Default::default();
        for r in (0u8..255).rev() {
            if !taken(r) {
                free[bank(r)].push(r);
            }
        }
        Pool { free, max: 0 }
    }
    pub(super) fn take(&mut self, b: usize) -> u8 {
        let r = self.free[b].pop().expect("registers of a bank run out");
        self.max = self.max.max(r);
        r
    }
    /// The lowest free register.
    pub(super) fn any(&mut self) -> u8 {
        let b = (0..4)
            .filter(|&b| !self.free[b].is_empty())
            .min_by_key(|&b| self.free[b].last().copied())
            .expect("registers run out");
        self.take(b)
    }
    /// A free even-aligned run of `n` registers (a pair or a quad).
    pub(super) fn run(&mut self, n: u8) -> u8 {
        let mut all: Vec<u8> = self.free.iter().flatten().copied().collect();
        all.sort_unstable();
        let base = all
            .iter()
            .copied()
            .find(|&r| r % n == 0 && (0..n).all(|k| all.contains(&(r + k))))
            .expect("no aligned registers left");
        for k in 0..n {
            let r = base + k;
            self.free[bank(r)].retain(|&x| x != r);
            self.max = self.max.max(r);
        }
        base
    }
    pub(super) fn left(&self, b: usize) -> usize {
        self.free[b].len()
    }
}

pub(super) fn hx(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", -v)
    } else {
        format!("{v:#x}")
    }
}

/// `[Rn+off]` as nvdisasm prints it (`[Rn]` at offset 0).
pub(super) fn addr(r: u8, off: i64) -> String {
    if off == 0 {
        format!("[{}]", reg(r))
    } else {
        format!("[{}+{}]", reg(r), hx(off))
    }
}

pub(super) fn reg(r: u8) -> String {
    if r == 255 {
        "RZ".into()
    } else {
        format!("R{r}")
    }
}

/// Parameter offsets in constant bank 0.
pub(super) mod param {
    pub const K: u32 = 0x148;
    pub const ALPHA: u32 = 0x14c;
    pub const A: u32 = 0x150;
    pub const LDA: u32 = 0x158;
    pub const B: u32 = 0x160;
    pub const LDB: u32 = 0x168;
    pub const BETA: u32 = 0x16c;
    pub const C: u32 = 0x170;
    pub const LDC: u32 = 0x178;
}

pub(super) fn cb(off: u32) -> String {
    format!("c[0x0][{off:#x}]")
}

/// An ALU instruction (a fixed-latency result) reading `reads` and writing
/// `writes`.
pub(super) fn arith(text: impl Into<String>, reads: &[u8], writes: &[u8]) -> Ins {
    Ins::new(text).r(reads).w(writes).alu()
}

/// `dst:dst+1 = src:src+1 + b`, a 64-bit address plus a 32-bit `b` (a
/// register, read as `b_reads`, or an immediate): the low word's `IADD .CC`
/// and the high word's `IADD.X`.
pub(super) fn add64(dst: u8, src: u8, b: &str, b_reads: &[u8]) -> [Ins; 2] {
    let mut reads = vec![src];
    reads.extend_from_slice(b_reads);
    [
        Ins::new(format!("IADD {}.CC, {}, {b}", reg(dst), reg(src)))
            .r(&reads)
            .w(&[dst])
            .alu(),
        Ins::new(format!("IADD.X {}, {}, RZ", reg(dst + 1), reg(src + 1)))
            .r(&[src + 1])
            .w(&[dst + 1])
            .alu(),
    ]
}

/// `dst:dst+1` = the 64-bit pointer in the parameter at `param` plus 4 x the
/// 32-bit element offset in `off`: the low word's `ISCADD .CC` and the high
/// word's `IADD.X`.
pub(super) fn element_pointer(dst: u8, off: u8, param: u32) -> [Ins; 2] {
    [
        Ins::new(format!(
            "ISCADD {}.CC, {}, {}, 0x2",
            reg(dst),
            reg(off),
            cb(param)
        ))
        .r(&[off])
        .w(&[dst])
        .alu(),
        Ins::new(format!("IADD.X {}, RZ, {}", reg(dst + 1), cb(param + 4)))
            .w(&[dst + 1])
            .alu(),
    ]
}

pub(super) fn emit(s: &mut String, list: &[Ins]) {
    for ins in list {
        if ins.comment.is_empty() {
            let _ = writeln!(s, "        [{:#04x}] {};", ins.ctrl, ins.text);
        } else {
            let _ = writeln!(
                s,
                "        [{:#04x}] {:<40}// {}",
                ins.ctrl,
                format!("{};", ins.text),
                ins.comment
            );
        }
    }
}

/// The fixed ALU latency the control codes must cover, in cycles (the
/// K20m's, as the checker reads it).
pub(super) const ALU_LATENCY: u64 = sim_core::check::ALU_LATENCY;

/// Cycles from the issue of an instruction coded `ctrl` to its warp's next
/// issue, on the K20m.
pub(super) fn gap(ctrl: u8) -> u64 {
    Ctrl(ctrl).gap(Reading::K20M) as u64
}

/// Sets stall counts in straight-line single-issue code so that no
/// instruction reads an ALU result sooner than its latency (and no ALU writes
/// a register an earlier ALU instruction still writes late).
pub(super) fn fix_stalls(list: &mut [Ins]) {
    let mut ready: BTreeMap<u8, u64> = BTreeMap::new();
    let mut now = 0u64;
    let mut issue = vec![0u64; list.len()];
    for i in 0..list.len() {
        // Loads and stores wait for the ALU results they read (the model's
        // LSU rule); everything else must be spaced by the stall counts.
        let need = if list[i].lsu {
            0
        } else {
            list[i]
                .reads
                .iter()
                .filter_map(|r| ready.get(r))
                .copied()
                .max()
                .unwrap_or(0)
        };
        if need > now && i > 0 {
            // Stretch the gap before i: the byte of i-1 waits `extra` cycles
            // more (a single-issue byte `0x2n` waits `issue_interval` + n).
            let extra = need - now;
            let want = gap(list[i - 1].ctrl) + extra;
            let n = want.saturating_sub(gap(0x20)).min(15);
            list[i - 1].ctrl = 0x20 | n as u8;
            now = issue[i - 1] + gap(list[i - 1].ctrl);
            if now < need {
                // Longer than one byte can stall: NOPs would be needed; the
                // generator's code never gets here.
                now = need;
            }
        }
        issue[i] = now;
        if list[i].alu {
            for &w in &list[i].writes {
                ready.insert(w, now + ALU_LATENCY);
            }
        } else {
            for &w in &list[i].writes {
                ready.remove(&w);
            }
        }
        now += gap(list[i].ctrl);
    }
}

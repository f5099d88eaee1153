//! The Perfetto / Chrome export of a trace (`--perfetto FILE.json`): Chrome's
//! trace-event JSON, which ui.perfetto.dev and chrome://tracing open. Each SM
//! is a process; its warp schedulers are threads 0..3, with every issue a
//! one-cycle slice named by its instruction and every stall a slice named by
//! its reason, and the first of a pair issued alone an instant mark named by
//! why (`pair apart: shared core group taken`); each warp is a thread (1000 +
//! 64 × block slot + warp) with its issues and its barrier waits as slices.
//! One cycle is one microsecond on the time axis.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Value};
use sim_core::timing::Event;

use crate::trace::Trace;
use crate::view::{apart_name, stall_name};

/// A warp (its index in its block) at a barrier since a cycle, at a pc.
type Arrival = (u8, u64, u32);

/// The thread id of warp `warp` of block slot `slot`.
pub fn warp_tid(slot: u8, warp: u8) -> u64 {
    1000 + 64 * slot as u64 + warp as u64
}

/// The trace's events as Chrome trace events, all in memory (what a test
/// looks at; [`write`](fn@write) streams them instead).
pub fn events(trace: &Trace) -> Vec<Value> {
    let mut all = Vec::new();
    for_each_event(trace, |v| all.push(v));
    all
}

/// Hands `each` the trace's events as Chrome trace events, in order, one
/// at a time: a trace of millions of events never has its JSON in memory
/// at once (as `Value`s, hundreds of bytes each, a 70 MB trace of the
/// SGEMM's 13 SMs would take tens of GB).
pub fn for_each_event(trace: &Trace, mut each: impl FnMut(Value)) {
    let h = &trace.header;
    let text = |pc: u32| {
        h.listing
            .get(pc as usize)
            .map_or("?".to_string(), |l| l.text.clone())
    };
    let mut out = Vec::new();
    let mut named: HashMap<(u32, u64), ()> = HashMap::new();
    let mut name = |out: &mut Vec<Value>, sm: u32, tid: u64, what: String| {
        if named.insert((sm, tid), ()).is_none() {
            if tid == u64::MAX {
                out.push(json!({"ph": "M", "name": "process_name", "pid": sm,
                    "args": {"name": format!("SM {sm}")}}));
            } else {
                out.push(
                    json!({"ph": "M", "name": "thread_name", "pid": sm, "tid": tid,
                    "args": {"name": what}}),
                );
                out.push(
                    json!({"ph": "M", "name": "thread_sort_index", "pid": sm, "tid": tid,
                    "args": {"sort_index": tid}}),
                );
            }
        }
    };
    // Barrier arrivals waiting for their release, by (SM, block slot).
    let mut waiting: HashMap<(u32, u8), Vec<Arrival>> = HashMap::new();
    for e in &trace.events {
        let sm = e.sm();
        name(&mut out, sm, u64::MAX, String::new());
        match *e {
            Event::Issue {
                cycle,
                sched,
                slot,
                warp,
                pc,
                dual,
                conflict,
                ..
            } => {
                let mut label = text(pc);
                if dual {
                    label = format!("{label} ‖ {}", text(sim_core::exec::next_slot(pc)));
                }
                let args = json!({"warp": format!("{slot}.{warp}"), "pc": format!("{:#06x}", pc as u64 * 8),
                    "dual": dual, "bank_conflict": conflict});
                name(&mut out, sm, sched as u64, format!("scheduler {sched}"));
                out.push(json!({"ph": "X", "cat": "issue", "name": label, "pid": sm,
                    "tid": sched, "ts": cycle, "dur": 1, "args": args}));
                let tid = warp_tid(slot, warp);
                name(&mut out, sm, tid, format!("warp {slot}.{warp}"));
                out.push(json!({"ph": "X", "cat": "warp", "name": label, "pid": sm,
                    "tid": tid, "ts": cycle, "dur": 1, "args": args}));
            }
            Event::Stall {
                cycle,
                sched,
                why,
                pc,
                cycles,
                ..
            } => {
                name(&mut out, sm, sched as u64, format!("scheduler {sched}"));
                let at = if pc == u32::MAX { String::new() } else { text(pc) };
                out.push(json!({"ph": "X", "cat": "stall", "name": stall_name(why), "pid": sm,
                    "tid": sched, "ts": cycle, "dur": cycles, "args": {"instruction": at}}));
            }
            Event::BarrierArrive {
                cycle,
                slot,
                warp,
                pc,
                ..
            } => waiting.entry((sm, slot)).or_default().push((warp, cycle, pc)),
            Event::BarrierRelease { cycle, slot, .. } => {
                for (warp, since, pc) in waiting.remove(&(sm, slot)).unwrap_or_default() {
                    let tid = warp_tid(slot, warp);
                    name(&mut out, sm, tid, format!("warp {slot}.{warp}"));
                    out.push(json!({"ph": "X", "cat": "barrier", "name": "barrier", "pid": sm,
                        "tid": tid, "ts": since, "dur": cycle.saturating_add(1).saturating_sub(since),
                        "args": {"instruction": text(pc)}}));
                }
            }
            Event::BlockStart {
                cycle, block, slot, ..
            } => out.push(json!({"ph": "i", "s": "p", "cat": "block", "pid": sm, "tid": 0,
                "name": format!("block ({},{},{}) starts in slot {slot}", block[0], block[1], block[2]),
                "ts": cycle})),
            Event::BlockDone { cycle, block, .. } => out.push(json!({"ph": "i", "s": "p",
                "cat": "block", "pid": sm, "tid": 0,
                "name": format!("block ({},{},{}) done", block[0], block[1], block[2]),
                "ts": cycle})),
            // The first of a pair issued alone: a mark on its scheduler's
            // track, at its issue.
            Event::PairApart {
                cycle,
                sched,
                slot,
                warp,
                pc,
                why,
                ..
            } => {
                name(&mut out, sm, sched as u64, format!("scheduler {sched}"));
                out.push(json!({"ph": "i", "s": "t", "cat": "apart",
                    "name": format!("pair apart: {}", apart_name(why)),
                    "pid": sm, "tid": sched, "ts": cycle,
                    "args": {"warp": format!("{slot}.{warp}"), "pc": format!("{:#06x}", pc as u64 * 8),
                        "instruction": text(pc)}}));
            }
            Event::Shared { .. } | Event::Global { .. } => {}
        }
        for v in out.drain(..) {
            each(v);
        }
    }
}

/// Writes the trace's events as a Chrome trace-event JSON file, streaming
/// them: `{"traceEvents": [...], "displayTimeUnit": ..., "otherData": ...}`.
pub fn write(trace: &Trace, path: &Path) -> Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("{}", path.display()))?;
    let mut w = std::io::BufWriter::new(f);
    let mut result = w.write_all(b"{\"traceEvents\":[");
    let mut first = true;
    for_each_event(trace, |v| {
        if result.is_ok() {
            let sep: &[u8] = if first { b"" } else { b"," };
            first = false;
            result = w
                .write_all(sep)
                .and_then(|()| serde_json::to_writer(&mut w, &v).map_err(Into::into));
        }
    });
    let rest = json!({"kernel": trace.header.kernel, "time_unit": "1 us = 1 cycle"});
    result
        .and_then(|()| w.write_all(b"],\"displayTimeUnit\":\"ns\",\"otherData\":"))
        .and_then(|()| serde_json::to_writer(&mut w, &rest).map_err(Into::into))
        .and_then(|()| w.write_all(b"}"))
        .and_then(|()| w.flush())
        .with_context(|| format!("{}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_parses_and_its_slices_match_the_trace() {
        let t = crate::trace::tests::sample();
        let dir = std::env::temp_dir().join(format!("keplersim-perfetto-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.json");
        write(&t, &p).unwrap();
        let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        // The file streams exactly the events the export makes in memory.
        assert_eq!(ev, &events(&t));
        assert_eq!(v["displayTimeUnit"], "ns");
        assert_eq!(v["otherData"]["kernel"], "sample");
        let count = |cat: &str| {
            ev.iter()
                .filter(|e| e["cat"] == cat && e["ph"] == "X")
                .count()
        };
        let issues = t
            .events
            .iter()
            .filter(|e| matches!(e, Event::Issue { .. }))
            .count();
        let stalls = t
            .events
            .iter()
            .filter(|e| matches!(e, Event::Stall { .. }))
            .count();
        assert_eq!(count("issue"), issues);
        assert_eq!(count("warp"), issues);
        assert_eq!(count("stall"), stalls);
        assert_eq!(count("barrier"), 2);
        let stall_cycles: u64 = ev
            .iter()
            .filter(|e| e["cat"] == "stall")
            .map(|e| e["dur"].as_u64().unwrap())
            .sum();
        assert_eq!(
            stall_cycles,
            1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 192 + 292 + 1 + 1
        );
        assert!(ev
            .iter()
            .any(|e| e["name"] == "FFMA R1, R2, R3, R4 ‖ FFMA R5, R6, R7, R8"));
        assert!(ev
            .iter()
            .any(|e| e["name"] == "thread_name" && e["args"]["name"] == "warp 0.1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A pc no kernel has (a damaged trace's, up to `u32::MAX`) exports as
    /// its byte offset and an unknown instruction, even dual-issued; its
    /// offset overflowed a `u32` and panicked (found by the trace fuzzer).
    #[test]
    fn a_pc_past_every_kernel_exports_as_its_offset() {
        let mut t = crate::trace::tests::sample();
        for (pc, offset) in [
            (u32::MAX, "0x7fffffff8"),
            (u32::MAX - 1, "0x7fffffff0"),
            (u32::MAX - 8, "0x7ffffffb8"),
            (1 << 29, "0x100000000"),
        ] {
            t.events = vec![Event::Issue {
                cycle: 5,
                sm: 0,
                sched: 0,
                slot: 0,
                warp: 0,
                pc,
                dual: true,
                conflict: 0,
            }];
            let ev = events(&t);
            let issue = ev.iter().find(|e| e["cat"] == "issue").unwrap();
            assert_eq!(issue["name"], "? ‖ ?");
            assert_eq!(issue["args"]["pc"], offset);
        }
    }
}

//! Golden timing reports: every kernel of the suite, the tuned SGEMM, its
//! optimisation ladder and the 8x8 variant, each run timed at a small size on
//! `configs/k20m.ron`, with the report that run gave committed under
//! `traces/golden/`. A run that gives anything else (one cycle, one counter,
//! one bit of a result) differs from its golden report; a deliberate change of
//! the model re-blesses them all with `keplersim golden --bless`, whose
//! summary (kernel, cycles before -> after, %) goes in the change's commit.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Value};
use sim_core::config::{Config, Param};
use sim_core::launch::Outcome;
use sim_core::timing::events::STALLS;

use crate::{workload, Error};

/// The size (m = n = k) the SGEMM kernels run at: more blocks than the K20m
/// has SMs for either tile size (16 of 192 x 192, 36 of 128 x 128), so a
/// second wave of blocks runs too, and each kernel runs in about a second.
pub const SGEMM_SIZE: i64 = 768;

/// Where the golden reports live, under the workspace's root.
pub const DIR: &str = "traces/golden";

/// The configuration the golden reports are made on, under the root.
pub const CONFIG: &str = "configs/k20m.ron";

/// One run with a golden report.
#[derive(Debug, Clone)]
pub struct Case {
    /// The report's name (its file is `DIR/NAME.json`).
    pub name: String,
    /// The launch file, relative to the root.
    pub launch: String,
    /// Launch-file variables set for this run.
    pub sets: Vec<(String, i64)>,
}

/// Every case, in a fixed order: the suite's launch files (at their own
/// sizes), then the SGEMM ladder from the baseline to the tuned kernel, then
/// the 8x8 variant.
pub fn cases(root: &Path) -> Result<Vec<Case>, Error> {
    let dir = root.join("traces/kernels");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::File {
        path: dir.display().to_string(),
        msg: e.to_string(),
    })?;
    let mut suite: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".launch.ron"))
        .collect();
    suite.sort();
    let mut v: Vec<Case> = suite
        .into_iter()
        .map(|f| Case {
            name: format!("suite.{}", f.trim_end_matches(".launch.ron")),
            launch: format!("traces/kernels/{f}"),
            sets: Vec::new(),
        })
        .collect();
    let size: Vec<(String, i64)> = ["m", "n", "k"]
        .iter()
        .map(|n| (n.to_string(), SGEMM_SIZE))
        .collect();
    for (name, launch) in [
        (
            "sgemm.ladder.baseline",
            "traces/sgemm/ladder/baseline.launch.ron",
        ),
        ("sgemm.ladder.reg", "traces/sgemm/ladder/reg.launch.ron"),
        ("sgemm.ladder.ld128", "traces/sgemm/ladder/ld128.launch.ron"),
        (
            "sgemm.ladder.ldg128",
            "traces/sgemm/ladder/ldg128.launch.ron",
        ),
        ("sgemm.ladder.paper", "traces/sgemm/ladder/paper.launch.ron"),
        ("sgemm.tuned", "traces/sgemm/sgemm.launch.ron"),
        ("sgemm.8x8", "traces/sgemm/sgemm8x8.launch.ron"),
    ] {
        v.push(Case {
            name: format!("{name}-{SGEMM_SIZE}"),
            launch: launch.to_string(),
            sets: size.clone(),
        });
    }
    Ok(v)
}

/// The configuration golden reports are made on: `configs/k20m.ron` as the
/// file says, so a change to the file shows in them.
pub fn config(root: &Path) -> Result<Config, Error> {
    config_with(root, &[])
}

/// [`config`] with `params` set over the file's fields (`--param`): the
/// machine whose runs the reports are set beside.
pub fn config_with(root: &Path, params: &[Param]) -> Result<Config, Error> {
    let p = root.join(CONFIG);
    let text = std::fs::read_to_string(&p).map_err(|e| Error::File {
        path: p.display().to_string(),
        msg: e.to_string(),
    })?;
    Config::parse_with(Some(&text), CONFIG, params).map_err(|e| Error::Run(e.to_string()))
}

/// FNV-1a, 64 bits: a digest of a buffer's bytes, to pin results without
/// committing them.
pub(crate) fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The golden report of a timed run of `case`: every counter of the timing
/// model (stalls and conflicts by name), the memory system's counters, each
/// SM's busy cycles, a digest of every final buffer and whether the checks
/// passed.
pub fn report(case: &Case, out: &Outcome) -> Result<Value, Error> {
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| Error::Run(format!("{}: the run was not timed", case.name)))?;
    let mut stats =
        serde_json::to_value(t.stats).map_err(|e| Error::Run(format!("{}: {e}", case.name)))?;
    if let Value::Object(m) = &mut stats {
        let stall: BTreeMap<String, u64> = STALLS
            .iter()
            .zip(t.stats.stall.iter())
            .map(|(n, &c)| (n.replace(' ', "_"), c))
            .collect();
        m.insert("stall".into(), json!(stall));
        let [two, three, four] = t.stats.conflicts;
        m.insert(
            "conflicts".into(),
            json!({ "two_way": two, "three_way": three, "four_way": four }),
        );
    }
    let buffers: BTreeMap<&str, String> = out
        .finals
        .iter()
        .map(|b| (b.name.as_str(), format!("{:016x}", fnv64(&b.data))))
        .collect();
    let sets: BTreeMap<&str, i64> = case.sets.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Ok(json!({
        "launch": case.launch,
        "sets": sets,
        "cycles": t.cycles,
        "sms": t.sms,
        "occupancy": t.occupancy,
        "stats": stats,
        "mem": t.mem,
        "busy": t.busy,
        "buffers_fnv64": buffers,
        "checks_passed": out.passed(),
    }))
}

/// Runs `case` timed on `config` and gives its report.
pub fn run(root: &Path, case: &Case, config: &Config) -> Result<Value, Error> {
    let out = workload::run_timed(&root.join(&case.launch), &case.sets, config)?;
    report(case, &out)
}

/// A case's golden report file.
pub fn path(root: &Path, case: &Case) -> PathBuf {
    root.join(DIR).join(format!("{}.json", case.name))
}

/// One case's run beside its golden report.
#[derive(Debug, Clone)]
pub struct Compared {
    pub name: String,
    /// The committed report (none: there is none yet).
    pub golden: Option<Value>,
    /// This run's report.
    pub now: Value,
}

impl Compared {
    /// Whether this run gave exactly the golden report.
    pub fn same(&self) -> bool {
        self.golden.as_ref() == Some(&self.now)
    }

    /// Every field (a dotted path) whose value differs, with both values.
    pub fn fields(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        let none = Value::Null;
        diff(
            "",
            self.golden.as_ref().unwrap_or(&none),
            &self.now,
            &mut out,
        );
        out
    }
}

fn diff(at: &str, a: &Value, b: &Value, out: &mut Vec<(String, String, String)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let sub = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                diff(
                    &sub,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ if a != b => out.push((at.to_string(), a.to_string(), b.to_string())),
        _ => {}
    }
}

/// Runs every case of `cases` (on up to `threads` threads; the reports do
/// not depend on it) and sets each beside its golden report.
pub fn compare(
    root: &Path,
    cases: &[Case],
    config: &Config,
    threads: usize,
) -> Result<Vec<Compared>, Error> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Result<Compared, Error>>>> =
        Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        // No more workers than cases: the rest would find nothing to do.
        for _ in 0..threads.clamp(1, cases.len().max(1)) {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("no thread panics holding it");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(case) = cases.get(i) else { break };
                let r = one(root, case, config);
                results.lock().expect("no thread panics holding it")[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .expect("no thread panicked")
        .into_iter()
        .map(|r| r.expect("every case ran"))
        .collect()
}

fn one(root: &Path, case: &Case, config: &Config) -> Result<Compared, Error> {
    let now = run(root, case, config)?;
    let p = path(root, case);
    let golden = match std::fs::read_to_string(&p) {
        Ok(text) => Some(serde_json::from_str(&text).map_err(|e| Error::File {
            path: p.display().to_string(),
            msg: e.to_string(),
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Error::File {
                path: p.display().to_string(),
                msg: e.to_string(),
            })
        }
    };
    Ok(Compared {
        name: case.name.clone(),
        golden,
        now,
    })
}

/// Writes each run's report as its golden report (pretty JSON, so a diff
/// reads line by line); removes golden reports of cases that no longer exist.
pub fn bless(root: &Path, compared: &[Compared]) -> Result<(), Error> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).map_err(|e| Error::File {
        path: dir.display().to_string(),
        msg: e.to_string(),
    })?;
    for c in compared {
        let p = dir.join(format!("{}.json", c.name));
        let mut text = serde_json::to_string_pretty(&c.now).expect("a JSON value prints");
        text.push('\n');
        std::fs::write(&p, text).map_err(|e| Error::File {
            path: p.display().to_string(),
            msg: e.to_string(),
        })?;
    }
    let names: Vec<String> = compared
        .iter()
        .map(|c| format!("{}.json", c.name))
        .collect();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.filter_map(|e| e.ok()) {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.ends_with(".json") && !names.contains(&n) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(())
}

/// The summary of a comparison, a line per case that changed: its cycles
/// before -> after with the change in percent, and how many other fields
/// changed; then a count of the unchanged. With `fields`, each changed field
/// too.
pub fn summary(compared: &[Compared], fields: bool) -> String {
    let mut s = String::new();
    let changed: Vec<&Compared> = compared.iter().filter(|c| !c.same()).collect();
    if !changed.is_empty() {
        let _ = writeln!(
            s,
            "{:<34} {:>12} {:>12} {:>9}  other fields changed",
            "kernel", "cycles before", "after", "change"
        );
    }
    for c in &changed {
        let after = c.now["cycles"].as_u64().unwrap_or(0);
        let before = c.golden.as_ref().and_then(|g| g["cycles"].as_u64());
        let list = c.fields();
        let others = list.iter().filter(|(f, _, _)| f != "cycles").count();
        match before {
            Some(b) => {
                let pct = (after as f64 - b as f64) / (b as f64).max(1.0) * 100.0;
                let _ = writeln!(
                    s,
                    "{:<34} {b:>12} {after:>12} {pct:>+8.2}%  {others}",
                    c.name
                );
            }
            None => {
                let _ = writeln!(s, "{:<34} {:>12} {after:>12} {:>9}  (new)", c.name, "-", "");
            }
        }
        if fields && c.golden.is_some() {
            for (f, a, b) in list {
                let _ = writeln!(s, "    {f}: {a} -> {b}");
            }
        }
    }
    let _ = writeln!(
        s,
        "{} of {} reports as golden, {} changed",
        compared.len() - changed.len(),
        compared.len(),
        changed.len()
    );
    s
}

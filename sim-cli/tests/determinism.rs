//! `keplersim run --json` reports of every suite kernel are the same from one
//! process to the next and whichever way the grid runs: timed, by turns twice
//! and in lockstep, the same cycles and counters; functional, in natural,
//! reversed and shuffled block order, the same report; with the SMs on 1, 2
//! and 3 threads (`--threads`), the same report and the same bytes in every
//! buffer, for every suite kernel and the tuned SGEMM. Only the wall times
//! (`seconds` and the rates per second) may differ.

mod common;

use common::{keplersim, root};
use serde_json::Value;

/// The `--json` report of `keplersim run FILE ARGS`, its wall times taken out.
fn report(file: &str, args: &[&str]) -> Value {
    let mut all = vec!["run", file, "--json"];
    all.extend_from_slice(args);
    let (ok, out, err) = keplersim(&all);
    assert!(ok, "keplersim {}: {err}", all.join(" "));
    let mut v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{file}: {e}: {out}"));
    let executed = v
        .get_mut("executed")
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("{file}: no `executed` in {out}"));
    executed.retain(|k, _| k != "seconds" && !k.ends_with("_per_second"));
    v
}

fn suite() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("traces/kernels"))
        .expect("traces/kernels")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".launch.ron"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    assert!(v.len() >= 20, "the suite's launch files");
    v
}

#[test]
fn timed_reports_are_the_same_run_after_run_and_in_lockstep() {
    for f in suite() {
        let a = report(&f, &[]);
        assert!(
            a["cycles"]["cycles"].as_u64().is_some_and(|c| c > 0),
            "{f}: a timed report: {a}"
        );
        assert_eq!(a, report(&f, &[]), "{f}: run again");
        assert_eq!(a, report(&f, &["--lockstep"]), "{f}: in lockstep");
    }
}

#[test]
fn functional_reports_are_the_same_in_every_block_order() {
    for f in suite() {
        let a = report(&f, &["--functional"]);
        assert_eq!(a["executed"]["mode"], "functional", "{f}: {a}");
        for order in [
            &["--order", "reverse"][..],
            &["--order", "shuffled"],
            &["--order", "shuffled", "--seed", "12345"],
        ] {
            assert_eq!(a, report(&f, order), "{f}: {}", order.join(" "));
        }
    }
}

/// Every buffer and module variable `run --dump` wrote into `dir` (the
/// variables in `variables/`), by name.
fn dumped(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).expect("the dump folder") {
        let p = e.expect("dir entry").path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            for (var, data) in dumped(&p) {
                v.push((format!("{name}/{var}"), data));
            }
        } else {
            v.push((name, std::fs::read(&p).expect("a dumped buffer")));
        }
    }
    v.sort();
    v
}

#[test]
fn reports_and_buffers_are_the_same_on_any_thread_count() {
    let tmp = std::env::temp_dir().join(format!("keplersim-threads-{}", std::process::id()));
    let sgemm = root()
        .join("traces/sgemm/sgemm.cubin")
        .display()
        .to_string();
    let mut cases: Vec<(String, Vec<&str>)> = suite().into_iter().map(|f| (f, vec![])).collect();
    cases.push((
        sgemm,
        vec!["--set", "m=768", "--set", "n=768", "--set", "k=768"],
    ));
    for (f, sets) in &cases {
        let mut first = None;
        for threads in ["1", "2", "3"] {
            let dir = tmp.join(threads);
            let _ = std::fs::remove_dir_all(&dir);
            let dir_s = dir.display().to_string();
            let mut args = sets.clone();
            args.extend(["--threads", threads, "--dump", &dir_s]);
            let r = report(f, &args);
            let bufs = dumped(&dir);
            assert!(!bufs.is_empty(), "{f}: buffers dumped");
            match &first {
                None => first = Some((r, bufs)),
                Some((r1, b1)) => {
                    assert_eq!(r1, &r, "{f}: the report on {threads} threads");
                    for ((n1, d1), (n, d)) in b1.iter().zip(&bufs) {
                        assert_eq!(n1, n, "{f}: buffers");
                        assert!(d1 == d, "{f}: buffer {n} on {threads} threads");
                    }
                    assert_eq!(b1.len(), bufs.len(), "{f}: buffers");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

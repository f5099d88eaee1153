//! The microbenchmark suite on the K20m's configuration: every figure in its
//! band (every throughput of the facts within 2%, 1-2-2-1 the best of the six
//! orders, LDS.64 within 5% of 137 GB/s and above LDS.32 and LDS.128, the
//! streaming reads within 5%, LDS latency within 2 cycles of 28), the rows
//! the table prints, the counts of each kind, and which reading a card's
//! figure is nearer.

use sim_core::config::Config;
use sim_kernels::micro::{
    count, out_of_band, readings_table, suite, table, verdicts, Kind, Reading, Row, APART,
};
use sim_kernels::workload::root;

#[test]
fn the_microbenchmarks_stay_in_their_bands() {
    let rows = suite(&root(), &Config::default(), true).unwrap();
    let out: Vec<_> = rows.iter().filter(|r| !r.ok).collect();
    assert!(out.is_empty(), "out of band: {out:#?}");
    assert_eq!(out_of_band(&rows), 0);
    // The 256-value control sweep, throughput and latency, and the rest.
    assert!(rows.len() > 512, "{} rows", rows.len());
    let kinds = [
        Kind::Checked,
        Kind::Fitted,
        Kind::Property,
        Kind::Prediction,
    ];
    assert_eq!(
        kinds.iter().map(|&k| count(&rows, k)).sum::<usize>(),
        rows.len()
    );
    assert!(count(&rows, Kind::Checked) > 0 && count(&rows, Kind::Fitted) > 0);
    let t = table(&rows);
    assert!(t.starts_with("group    benchmark"), "{t}");
    for row in [
        "FFMA R5, R9, R3, R1",
        "order 1-2-2-1",
        "LDS.64 best",
        "LDG.128 stream",
        "LD.128 stream",
        "latency  LDS",
        "periodic above 0x20",
        "LDG.E.128 in an FFMA loop",
    ] {
        assert!(t.contains(row), "no `{row}` row:\n{t}");
    }
    // The table leaves out most of the control sweep's predictions.
    assert!(t.lines().count() < rows.len(), "{t}");
    assert!(!t.contains("OUT OF BAND"), "{t}");
}

/// The suite's figures of the rows `names` on the K20m with `set` applied
/// to its timing.
fn figures<const N: usize>(set: impl Fn(&mut Config), names: [&str; N]) -> [f64; N] {
    let mut config = Config::default();
    set(&mut config);
    let rows = suite(&root(), &config, true).unwrap();
    names.map(|name| {
        rows.iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no `{name}` row"))
            .simulated
    })
}

/// `LDS.64 beside LD.E` tells apart the two readings of what a global load
/// holds the load/store unit for: a 128-byte line a cycle leaves shared
/// memory most of its bandwidth; a 32-byte sector a cycle (the K20m
/// configuration) holds the unit four cycles per coalesced `LD.E`.
#[test]
fn lds_beside_ld_tells_a_line_a_cycle_from_a_sector_a_cycle() {
    let beside = |bytes: u32| {
        figures(
            |c| c.timing.global_lsu_bytes = bytes,
            ["LDS.64 beside LD.E (1 in 9)", "LDS.64 best"],
        )
    };
    let [line, best] = beside(128);
    let [sector, _] = beside(32);
    assert!(line > 0.9 * best, "a line a cycle: {line} of {best} GB/s");
    assert!(
        sector < 0.8 * line,
        "a sector a cycle: {sector} against {line} GB/s"
    );
}

/// `LD.E, 2 warps/scheduler` tells the load/store unit's turns between the
/// pairs of schedulers on the cycle (the K20m configuration), where a unit
/// held four cycles always frees to the same pair, from turns on the grant,
/// where the pair that took it last goes second: the first leaves one pair
/// behind, as pair 0 always first does, the second neither. `LDS.64 beside
/// LD.E` tells turns on the grant within each pair too (3) from 2, where a
/// pair's second scheduler waits for its first's warps.
#[test]
fn even_holds_of_the_unit_tell_turns_on_the_cycle_from_turns_on_the_grant() {
    let under = |rotation: u32| {
        figures(
            |c| c.timing.pair_rotation = rotation,
            [
                "LD.E, 2 warps/scheduler: slower pair / faster",
                "LDS.64 beside LD.E: fastest warp / slowest",
            ],
        )
    };
    let ([fixed, _], [cycle, _]) = (under(0), under(1));
    let ([pairs, warps], [pairs_each, warps_each]) = (under(2), under(3));
    assert!(fixed > 1.2, "pair 0 always first: {fixed}");
    assert!(cycle > 1.2, "turns on the cycle: {cycle}");
    assert!(pairs < 1.05, "turns on the grant: {pairs}");
    assert!(
        pairs_each < 1.05,
        "turns on the grant, within pairs too: {pairs_each}"
    );
    assert!(warps < 0.6, "a pair's second scheduler waits: {warps}");
    assert!(warps_each > 0.95, "no scheduler waits: {warps_each}");
}

/// `ST.E on 4 lines` tells apart the two readings of a replay: issued again
/// in its scheduler's issue slot (the K20m configuration), or replayed by the
/// load/store unit alone.
#[test]
fn a_store_on_four_lines_tells_a_replayed_issue_from_the_unit_alone() {
    let cost = |cycles: u32| {
        let [st] = figures(
            |c| c.timing.replay_issue_cycles = cycles,
            ["ST.E on 4 lines in an FFMA loop, 1 warp (0x05)"],
        );
        st
    };
    let (issued, unit) = (cost(1), cost(0));
    assert!(
        issued >= unit + 1.5,
        "three replays in issue slots: {issued} against {unit} cycles"
    );
    assert!((1.5..=2.5).contains(&unit), "the unit alone: {unit} cycles");
}

#[test]
fn a_card_is_nearer_every_value_whose_figure_the_row_cannot_tell_apart() {
    // The arbitration row's figures under its three readings.
    let figures = |f: &[(&str, f64)]| f.iter().map(|&(v, x)| (v.to_string(), x)).collect();
    let r = Reading {
        field: "shared_group_arbitration".into(),
        row: "1-2-2-1, 2 warps/scheduler",
        figures: figures(&[("2", 167.77), ("1", 173.87), ("0", 174.92)]),
    };
    // Nearest one figure, far from the others.
    assert_eq!(r.nearer(167.77), ["2"]);
    assert_eq!(r.nearer(160.0), ["2"]);
    assert_eq!(r.nearer(169.0), ["2"]);
    // Nearest one of two figures within 1% of each other: both, nearest first.
    assert_eq!(r.nearer(174.9), ["0", "1"]);
    assert_eq!(r.nearer(173.0), ["1", "0"]);
    assert_eq!(r.nearer(190.0), ["0", "1"]);
    // Two settings 1% apart are told apart only past that.
    let close = Reading {
        figures: figures(&[("3", 100.0), ("2", 100.0 * (1.0 + APART) + 0.01)]),
        ..r.clone()
    };
    assert_eq!(close.nearer(99.0), ["3"]);
    let tied = Reading {
        figures: figures(&[("3", 100.0), ("2", 100.0 * (1.0 + APART) - 0.01)]),
        ..r
    };
    assert_eq!(tied.nearer(99.0), ["3", "2"]);
}

/// A reading's rows (`names`, with each setting's figures in `under`, a row
/// each).
fn readings(field: &str, names: &[&'static str], under: &[Vec<(&str, f64)>]) -> Vec<Reading> {
    names
        .iter()
        .zip(under)
        .map(|(&row, f)| Reading {
            field: field.into(),
            row,
            figures: f.iter().map(|&(s, x)| (s.to_string(), x)).collect(),
        })
        .collect()
}

/// A card's figures for the rows `names`.
fn card_rows(names: &[&str], card: &[f64]) -> Vec<Row> {
    names
        .iter()
        .zip(card)
        .map(|(name, &simulated)| Row {
            group: "test",
            name: name.to_string(),
            kind: Kind::Prediction,
            measured: None,
            simulated,
            unit: "",
            band: None,
            absolute: false,
            ok: true,
        })
        .collect()
}

/// The verdict `--card` prints after a reading's rows, for a card reading
/// `card` on them.
fn verdict(
    field: &str,
    names: &[&'static str],
    under: &[Vec<(&str, f64)>],
    card: &[f64],
) -> String {
    let t = readings_table(
        &readings(field, names, under),
        &card_rows(names, card),
        &Config::default(),
    );
    let together = format!("the {} rows together", names.len());
    let line = t
        .lines()
        .find(|l| l.contains(&together))
        .unwrap_or_else(|| panic!("no verdict: {t}"));
    line.split("nearer ").nth(1).expect("a verdict").to_string()
}

#[test]
fn the_arbitration_rows_together_name_the_one_reading_a_card_is_nearer() {
    // The three rows' figures under shared_group_arbitration 2, 1 and 0.
    let names = [
        "1-2-2-1, 2 warps/scheduler",
        "1-2-2-1, 4 warps/scheduler",
        "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
    ];
    let under = [
        vec![("2", 167.77), ("1", 173.87), ("0", 174.92)],
        vec![("2", 184.27), ("1", 176.31), ("0", 182.89)],
        vec![("2", 120.21), ("1", 120.21), ("0", 111.48)],
    ];
    let field = "shared_group_arbitration";
    // A card that reads as the model does under each value: no single row
    // names one value alone under 1 and 0, the three together do.
    for i in 0..3 {
        let card: Vec<f64> = under.iter().map(|r| r[i].1).collect();
        assert_eq!(verdict(field, &names, &under, &card), under[0][i].0);
    }
    // A card that reads as no one value: said so.
    assert_eq!(
        verdict(field, &names, &under, &[167.77, 176.31, 111.48]),
        "none on every row"
    );
    // A card that ran two of the rows: the two together, said so.
    let two = verdicts(
        &readings(field, &names, &under),
        &card_rows(&names[..2], &[173.87, 176.31]),
    );
    let last = two.last().expect("a verdict");
    assert_eq!((last.row, last.all_rows), (None, false));
    assert_eq!(last.nearer, ["1"]);
}

#[test]
fn the_issue_interval_and_alu_latency_rows_together_name_each_reading_of_the_byte() {
    // The three rows' figures under the four settings bench micro --card
    // reads them with (interval/latency): the model's, the GK110's measured
    // latency, 2 and 10, Mesa's.
    let names = [
        "FFMA R5, R4, R1, R0, 2 warps/scheduler",
        "0x28 latency",
        "0x26 latency",
    ];
    let under = [
        vec![
            ("3/11", 82.29),
            ("3/9", 82.29),
            ("2/10", 121.81),
            ("1/9", 122.27),
        ],
        vec![("3/11", 11.0), ("3/9", 11.0), ("2/10", 10.0), ("1/9", 9.0)],
        vec![("3/11", 41.0), ("3/9", 9.0), ("2/10", 40.0), ("1/9", 39.0)],
    ];
    let field = "issue_interval/alu_latency";
    for i in 0..4 {
        let card: Vec<f64> = under.iter().map(|r| r[i].1).collect();
        assert_eq!(verdict(field, &names, &under, &card), under[0][i].0);
    }
}

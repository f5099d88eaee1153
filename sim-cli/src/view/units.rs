//! The units pane at the cycle shown: this cycle's issue across the
//! schedulers, the shared-memory pipeline's accesses in flight, the global
//! loads outstanding with where their lines were found (read-only cache, L2,
//! DRAM), and each block's barrier.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget};

use super::model::Cell;
use super::timeline::fit;
use super::App;

/// The units pane of an [`App`].
pub struct Units<'a>(pub &'a App);

impl Widget for Units<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let m = &app.model;
        let c = app.cycle;
        let block = Block::bordered().title(" units ");
        let inner = block.inner(area);
        block.render(area, buf);
        let w = inner.width as usize;
        let mut lines = Vec::new();
        let cells: Vec<Cell> = (0..m.sched.len()).map(|s| m.cell(s, c)).collect();
        let issued = cells
            .iter()
            .filter(|c| matches!(c, Cell::Issue { .. }))
            .count();
        let dual = cells
            .iter()
            .filter(|c| matches!(c, Cell::Issue { dual: true, .. }))
            .count();
        let apart = cells
            .iter()
            .filter(|c| matches!(c, Cell::Issue { apart: Some(_), .. }))
            .count();
        let conflicts = cells
            .iter()
            .filter(|c| matches!(c, Cell::Issue { conflict: 2.., .. }))
            .count();
        lines.push(format!(
            "issue     {issued} of {} schedulers, {dual} dual, {apart} apart, {conflicts} conflicts",
            cells.len()
        ));
        let (mut sh, mut tx) = (0, 0);
        let (mut gl, mut lines_out, mut ro, mut l2, mut dram) = (0, 0u32, 0u32, 0u32, 0u32);
        let mut next_back = u64::MAX;
        for a in m.in_flight(c) {
            if a.global {
                gl += 1;
                lines_out += a.count;
                ro += a.cache_hits as u32;
                l2 += a.l2_hits as u32;
                dram += a.l2_misses as u32;
                next_back = next_back.min(a.ready);
            } else {
                sh += 1;
                tx += a.count;
            }
        }
        lines.push(format!(
            "shared    {sh} accesses in flight, {tx} transactions"
        ));
        lines.push(format!(
            "global    {gl} loads outstanding, {lines_out} lines: {ro} read-only cache, {l2} L2, {dram} DRAM"
        ));
        if next_back != u64::MAX {
            lines.push(format!(
                "          first back at {next_back} (in {})",
                next_back - c
            ));
        }
        if let Some(a) = m
            .accesses
            .get(..m.accesses.partition_point(|a| a.cycle <= c))
            .and_then(|v| v.last())
        {
            // An LDG goes down the texture pipeline, the rest the LSU.
            let mnemonic = app.mnemonic(a.pc);
            let unit = if mnemonic.contains("LDG") {
                "tex"
            } else {
                "LSU"
            };
            lines.push(format!(
                "last {unit}  {} at {} by w{}.{}: {} {}",
                mnemonic,
                a.cycle,
                a.warp.0,
                a.warp.1,
                a.count,
                if a.global { "lines" } else { "transactions" }
            ));
        }
        for b in m.blocks.iter().filter(|b| b.start <= c && b.done > c) {
            let waiting = (0..b.warps)
                .filter(|&w| m.at_barrier((b.slot, w), c).is_some())
                .count();
            lines.push(format!(
                "block {:<3} ({},{},{}) barrier: {waiting} of {} warps waiting",
                b.slot, b.block[0], b.block[1], b.block[2], b.warps
            ));
        }
        let text: Vec<Line> = lines
            .into_iter()
            .map(|l| Line::styled(fit(&l, w), Style::default().fg(Color::Reset)))
            .collect();
        Paragraph::new(text).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::tests::{app, lines};

    #[test]
    fn units_show_issue_memory_in_flight_and_barriers() {
        let mut a = app();
        a.jump(5);
        assert_eq!(
            lines(Units(&a), 80, 9),
            [
                "┌ units ───────────────────────────────────────────────────────────────────────┐",
                "│issue     1 of 2 schedulers, 0 dual, 0 apart, 0 conflicts                     │",
                "│shared    0 accesses in flight, 0 transactions                                │",
                "│global    2 loads outstanding, 2 lines: 0 read-only cache, 1 L2, 1 DRAM       │",
                "│          first back at 200 (in 195)                                          │",
                "│last LSU  LD.E at 4 by w0.0: 1 lines                                          │",
                "│block 0   (0,0,0) barrier: 1 of 2 warps waiting                               │",
                "│                                                                              │",
                "└──────────────────────────────────────────────────────────────────────────────┘",
            ]
        );
    }

    #[test]
    fn an_ldg_is_the_texture_pipelines_not_the_lsus() {
        let mut t = crate::trace::tests::sample();
        t.header.listing[4].text = "LDG.E R9, [R10]".into();
        let mut a = App::new(t).unwrap();
        a.jump(5);
        assert_eq!(
            lines(Units(&a), 80, 9)[5],
            "│last tex  LDG.E at 4 by w0.0: 1 lines                                         │"
        );
    }
}

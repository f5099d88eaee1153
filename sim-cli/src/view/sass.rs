//! The SASS pane: the kernel's listing (from the decoder, recorded in the
//! trace) around the instruction in focus, each line with the warps whose pc
//! it is at the cycle shown, its control byte decoded, and its counts over
//! the whole trace on this SM: issues, dual pairs it started, pairs it
//! asked for that issued apart, bank conflicts, and the scheduler-cycles its warps stalled on it (the largest
//! reason named); last, the registers it reads from one bank, the static
//! cause of its conflicts.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget};
use sim_core::timing::ctrl::{Ctrl, Reading};

use super::timeline::fit;
use super::warps::pc_of;
use super::{stall_name, warp_name, App, KINDS};

/// The SASS pane of an [`App`].
pub struct Sass<'a>(pub &'a App);

/// A control byte in words: `dual`, `wait 6`.
pub fn control(byte: u8, reading: Reading) -> String {
    let c = Ctrl(byte);
    if c.dual() {
        "dual".into()
    } else {
        format!("wait {}", c.gap(reading))
    }
}

impl Widget for Sass<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let m = &app.model;
        let h = &app.trace.header;
        let block = Block::bordered().title(format!(" SASS · {} ", h.kernel));
        let inner = block.inner(area);
        block.render(area, buf);
        let width = inner.width as usize;
        // The instructions (not the control words), and the warps at each.
        let slots: Vec<u32> = (0..h.listing.len() as u32).filter(|s| s % 8 != 0).collect();
        let warps = m.warps();
        let at: Vec<(u32, String)> = warps
            .iter()
            .filter(|&&w| m.stay(w, app.cycle).is_some_and(|s| s.done > app.cycle))
            .filter_map(|&w| Some((pc_of(m, w, app.cycle)?, warp_name(w))))
            .collect();
        let focus = app.focus_pc();
        let rows = inner.height.saturating_sub(1) as usize;
        let centre = focus
            .and_then(|f| slots.iter().position(|&s| s == f))
            .unwrap_or(0);
        let first = centre
            .saturating_sub(rows / 2)
            .min(slots.len().saturating_sub(rows));
        let mut lines = vec![Line::styled(
            fit(
                "warps here  addr    control  instruction                    issues  dual  apart  bank  stalled (most)                one bank",
                width,
            ),
            Style::default().add_modifier(Modifier::BOLD),
        )];
        for &s in slots.iter().skip(first).take(rows) {
            let line = &h.listing[s as usize];
            let c = m.counts.get(s as usize).copied().unwrap_or_default();
            let here: Vec<&str> = at
                .iter()
                .filter(|(pc, _)| *pc == s)
                .map(|(_, n)| n.as_str())
                .collect();
            let stalled = c.stall.iter().fold(0u64, |a, &b| a.saturating_add(b));
            let most = KINDS
                .iter()
                .max_by_key(|&&k| (c.stall[k as usize], std::cmp::Reverse(k as u8)))
                .filter(|&&k| c.stall[k as usize] > 0)
                .map_or(String::new(), |&k| stall_name(k).to_string());
            let text = format!(
                "{} /*{:04x}*/ {:<8} {} {:>6} {:>5} {:>6} {:>5} {:>7} {} {}",
                fit(&here.join(","), 10),
                s * 8,
                control(line.ctrl, h.reading()),
                fit(&line.text, 30),
                c.issues,
                c.dual,
                c.apart,
                c.conflicts,
                stalled,
                fit(&most, 14),
                line.banks
            );
            let style = if Some(s) == focus {
                Style::default().add_modifier(Modifier::REVERSED)
            } else if !here.is_empty() {
                Style::default().fg(Color::Green)
            } else if c.issues == 0 {
                Style::default().fg(Color::DarkGray)
            } else {
                Style::default()
            };
            lines.push(Line::styled(fit(&text, width), style));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::tests::{app, lines};

    #[test]
    fn the_listing_shows_warps_control_bytes_and_counts() {
        let mut a = app();
        a.jump(150);
        let l = lines(Sass(&a), 130, 10);
        assert_eq!(
            l,
            [
                "┌ SASS · sample ─────────────────────────────────────────────────────────────────────────────────────────────────────────────────┐",
                "│warps here  addr    control  instruction                    issues  dual  apart  bank  stalled (most)                one bank   │",
                "│           /*0008*/ wait 4   S2R R0, SR_TID.X                    2     0      0     0       0                                   │",
                "│           /*0010*/ dual     FFMA R1, R2, R3, R4                 2     2      0     1       3 control code   R2, R6 on bank 2   │",
                "│           /*0018*/ wait 3   FFMA R5, R6, R7, R8                 0     0      0     0       0                                   │",
                "│           /*0020*/ wait 3   LD.E R9, [R10]                      2     0      0     0       0                                   │",
                "│           /*0028*/ wait 3   BAR.SYNC 0x0                        2     0      0     0       2 control code                      │",
                "│0.0,0.1    /*0030*/ wait 3   FADD R1, R1, R9                     2     0      0     0     487 dependency                        │",
                "│           /*0038*/ wait 3   EXIT                                2     0      0     0       2 control code                      │",
                "└────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┘",
            ]
        );
        let r = Reading::K20M;
        assert_eq!(control(0x04, r), "dual");
        assert_eq!(control(0x00, r), "wait 16");
        assert_eq!(control(0x25, r), "wait 8");
    }
}

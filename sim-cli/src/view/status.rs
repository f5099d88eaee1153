//! The title line (kernel, SM, cycle, window, what is followed) and the help
//! line at the bottom (the keys, or the cycle being typed, or what the last
//! key found).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::timeline::fit;
use super::{stall_name, warp_name, App, HELP};

/// The title line of an [`App`].
pub struct Title<'a>(pub &'a App);

/// The help line of an [`App`].
pub struct Help<'a>(pub &'a App);

impl Widget for Title<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let h = &app.trace.header;
        let follow = app
            .follow
            .map_or(String::new(), |w| format!(" · following {}", warp_name(w)));
        let text = format!(
            "keplersim view · {} · SM {} ({} of {}) · cycle {} of {}..{} · step {} · s finds: {}{}",
            h.kernel,
            app.model.sm,
            app.sm_index + 1,
            app.sms.len(),
            app.cycle,
            app.model.first,
            app.model.end,
            app.step,
            stall_name(app.stall_kind),
            follow
        );
        Line::styled(
            fit(&text, area.width as usize),
            Style::default().add_modifier(Modifier::BOLD),
        )
        .render(area, buf);
    }
}

impl Widget for Help<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let (text, style) = match (&app.input, app.message.is_empty()) {
            (Some(typed), _) => (
                format!("jump to cycle: {typed}▏ (Enter to go, Esc to cancel)"),
                Style::default().fg(Color::Yellow),
            ),
            (None, false) => (
                format!("{}   ({HELP})", app.message),
                Style::default().fg(Color::Yellow),
            ),
            (None, true) => (HELP.to_string(), Style::default().fg(Color::DarkGray)),
        };
        Line::styled(fit(&text, area.width as usize), style).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::tests::{app, lines};

    #[test]
    fn the_title_and_help_lines_say_where_we_are() {
        let mut a = app();
        a.jump(7);
        assert_eq!(
            lines(Title(&a), 110, 1),
            ["keplersim view · sample · SM 0 (1 of 1) · cycle 7 of 0..303 · step 100 · s finds: barrier"]
        );
        assert_eq!(lines(Help(&a), 200, 1), [HELP]);
        a.input = Some("12".into());
        assert_eq!(
            lines(Help(&a), 60, 1),
            ["jump to cycle: 12▏ (Enter to go, Esc to cancel)"]
        );
    }
}

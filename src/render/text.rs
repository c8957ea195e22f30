//! Text helpers for panels: the built-in font is monospaced, so wrapping by character count
//! is exact.

use macroquad::prelude::*;

/// Draws UI text at `size` logical pixels, rasterised at the screen's real resolution so it
/// stays crisp on high-DPI screens (identical to `draw_text` at a scale of 1).
pub fn ui_text(text: &str, x: f32, y: f32, size: f32, color: Color) {
    let dpi = screen_dpi_scale().max(0.25);
    draw_text_ex(
        text,
        x,
        y,
        TextParams {
            font_size: (size * dpi).round() as u16,
            font_scale: 1.0 / dpi,
            color,
            ..Default::default()
        },
    );
}

/// The size of UI text drawn with [`ui_text`], in logical pixels.
pub fn measure(text: &str, size: f32) -> TextDimensions {
    let dpi = screen_dpi_scale().max(0.25);
    measure_text(text, None, (size * dpi).round() as u16, 1.0 / dpi)
}

/// Splits `text` into lines of at most `width` pixels at `size`.
pub fn wrap(text: &str, width: f32, size: u16) -> Vec<String> {
    let char_w = measure("M", size as f32).width.max(1.0);
    let per_line = ((width / char_w) as usize).max(8);
    let mut out = Vec::new();
    for raw in text.lines() {
        let chars: Vec<char> = raw.chars().collect();
        if chars.is_empty() {
            out.push(String::new());
        }
        for chunk in chars.chunks(per_line) {
            out.push(chunk.iter().collect());
        }
    }
    out
}

/// A translucent panel with a title and lines of text; returns the panel's height.
pub fn panel(x: f32, y: f32, width: f32, title: &str, lines: &[String], size: u16) -> f32 {
    let line_h = size as f32 + 3.0;
    let height = 14.0 + line_h * (lines.len() as f32 + 1.0);
    draw_rectangle(
        x,
        y,
        width,
        height,
        Color::from_rgba(0x14, 0x15, 0x1a, 0xe8),
    );
    draw_rectangle_lines(
        x,
        y,
        width,
        height,
        1.0,
        Color::from_rgba(0x55, 0x58, 0x66, 0xff),
    );
    ui_text(
        title,
        x + 8.0,
        y + 6.0 + line_h,
        size as f32 + 2.0,
        Color::from_rgba(0xff, 0xd0, 0x60, 0xff),
    );
    for (i, line) in lines.iter().enumerate() {
        ui_text(
            line,
            x + 8.0,
            y + 8.0 + line_h * (i as f32 + 2.0),
            size as f32,
            Color::from_rgba(0xe6, 0xe6, 0xe6, 0xff),
        );
    }
    height
}

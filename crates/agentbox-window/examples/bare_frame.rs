//! The bare macroquad peer of the window's frame (issue 35, goal 7): the same scene's tile map
//! and agents drawn with plain macroquad and nothing else (no panels, no text, no Lua, no
//! history), timed as the window times its frames with `--frame-stats`.
//!
//! ```text
//! xvfb-run -a -s "-screen 0 1024x768x24" \
//!     cargo run --release -p agentbox-window --example bare_frame -- scenes/chase.yaml 300
//! ```
//!
//! It draws what a lean hand-written loop would: the map baked once into a texture (a pixel a
//! tile, as the window does) with the tile grid over it, and each agent as a filled circle
//! with a heading line, moving in a circle about where the scene puts it. A frame is timed
//! from its start to the GPU batch being handed to OpenGL (the window's `egui_macroquad::draw`
//! does the same), and the last lines printed have the window's `--frame-stats` form, so
//! `frame_bench --bare` reads both the same way: the wall clock of building a frame, and the
//! process's CPU time per whole frame (all threads, so software OpenGL's rasterizing too;
//! `agentbox_window::cpu_clock`).
//!
//! With `--flat-map` after the frame count it draws the map as the window now does on a small
//! map (`map_texture.rs`): a flat, opaque rectangle a run of like tiles, blending off, instead
//! of the blended texture. The window's frame against that peer is what the window adds on
//! top of the same drawing of the map (its bar, legend, tags, timeline, ticks and Lua).

use agentbox_core::scene;
use agentbox_window::cpu_clock::FrameCpu;
use macroquad::prelude::*;
use macroquad::window::get_internal_gl;
use std::path::PathBuf;
use std::time::Instant;

/// The scene, the number of frames and whether the map is drawn flat, from the command line.
fn args() -> Result<(PathBuf, u64, bool), String> {
    let mut args = std::env::args().skip(1);
    let scene = PathBuf::from(args.next().unwrap_or_else(|| "scenes/chase.yaml".into()));
    let frames = match args.next() {
        Some(n) => n.parse().map_err(|e| format!("frames: {e}"))?,
        None => 300,
    };
    let flat = match args.next().as_deref() {
        None => false,
        Some("--flat-map") => true,
        Some(other) => return Err(format!("unknown argument {other}")),
    };
    Ok((scene, frames, flat))
}

/// A colour-only shader with blending off, as the window's `opaque.rs` draws a small map.
fn flat_material() -> Material {
    let vertex = "#version 100
attribute vec3 position;
attribute vec4 color0;
varying lowp vec4 color;
uniform mat4 Model;
uniform mat4 Projection;
void main() {
    gl_Position = Projection * Model * vec4(position, 1);
    color = color0 / 255.0;
}";
    let fragment = "#version 100
varying lowp vec4 color;
void main() {
    gl_FragColor = color;
}";
    let source = macroquad::miniquad::ShaderSource::Glsl { vertex, fragment };
    load_material(source, MaterialParams::default()).expect("a colour-only shader")
}

/// The runs of like pixels along the image's rows: (row, first column, past the last, colour).
fn runs(image: &Image) -> Vec<(u32, u32, u32, Color)> {
    let mut out = Vec::new();
    for y in 0..image.height() as u32 {
        let mut x0 = 0;
        while x0 < image.width() as u32 {
            let colour = image.get_pixel(x0, y);
            let mut x1 = x0 + 1;
            while x1 < image.width() as u32 && image.get_pixel(x1, y) == colour {
                x1 += 1;
            }
            out.push((y, x0, x1, colour));
            x0 = x1;
        }
    }
    out
}

fn main() {
    let (path, frames, flat) = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bare_frame: {e}");
            std::process::exit(2);
        }
    };
    let world = match scene::load(&path) {
        Ok(scene) => scene.world,
        Err(e) => {
            eprintln!("bare_frame: {e}");
            std::process::exit(1);
        }
    };
    let conf = Conf {
        window_title: "bare macroquad frame".to_string(),
        window_width: 1024,
        window_height: 768,
        high_dpi: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, run(world, frames, flat));
}

async fn run(world: agentbox_core::world::World, frames: u64, flat: bool) {
    let grid = world.grid();
    let (w, h) = (grid.width(), grid.height());
    let mut image =
        Image::gen_image_color(w.clamp(1, 65535) as u16, h.clamp(1, 65535) as u16, BLACK);
    for y in 0..h {
        for x in 0..w {
            if let Some(t) = world.terrain_at(glam::IVec2::new(x, y)) {
                let [r, g, b] = t.color;
                image.set_pixel(x as u32, y as u32, Color::from_rgba(r, g, b, 0xff));
            }
        }
    }
    let map = Texture2D::from_image(&image);
    map.set_filter(FilterMode::Nearest);
    let flat = flat.then(|| (flat_material(), runs(&image)));
    let agents: Vec<(Vec2, f32)> = world
        .agents
        .iter()
        .map(|a| (vec2(a.pos.x as f32, a.pos.y as f32), a.radius as f32))
        .collect();
    let colours = [ORANGE, SKYBLUE, GREEN, PINK];
    let mut times = Vec::with_capacity(frames as usize);
    let mut cpu = FrameCpu::default();
    for frame in 0..frames {
        cpu.frame_starts(frame);
        let started = Instant::now();
        clear_background(Color::from_rgba(0x1e, 0x20, 0x26, 0xff));
        let tile = (screen_width() / w as f32).min(screen_height() / h as f32);
        let corner = vec2(
            (screen_width() - tile * w as f32) / 2.0,
            (screen_height() - tile * h as f32) / 2.0,
        );
        if let Some((material, runs)) = &flat {
            gl_use_material(material);
            for &(y, x0, x1, colour) in runs {
                let (x, y) = (corner.x + x0 as f32 * tile, corner.y + y as f32 * tile);
                draw_rectangle(x, y, (x1 - x0) as f32 * tile, tile, colour);
            }
            gl_use_default_material();
        } else {
            draw_texture_ex(
                &map,
                corner.x,
                corner.y,
                WHITE,
                DrawTextureParams {
                    dest_size: Some(vec2(tile * w as f32, tile * h as f32)),
                    ..Default::default()
                },
            );
        }
        let grid_colour = Color::from_rgba(0, 0, 0, 26);
        for x in 0..=w {
            let sx = corner.x + x as f32 * tile;
            draw_line(
                sx,
                corner.y,
                sx,
                corner.y + tile * h as f32,
                1.0,
                grid_colour,
            );
        }
        for y in 0..=h {
            let sy = corner.y + y as f32 * tile;
            draw_line(
                corner.x,
                sy,
                corner.x + tile * w as f32,
                sy,
                1.0,
                grid_colour,
            );
        }
        let angle = frame as f32 * 0.05;
        for (i, (at, radius)) in agents.iter().enumerate() {
            let heading = vec2(angle.cos(), angle.sin());
            let p = corner + (*at + heading + vec2(0.5, 0.5)) * tile;
            let r = radius * tile;
            draw_circle(p.x, p.y, r, colours[i % colours.len()]);
            let tip = p + heading * r * 1.5;
            draw_line(p.x, p.y, tip.x, tip.y, (r * 0.25).max(1.5), BLACK);
        }
        // SAFETY: called on macroquad's thread between frames' drawing, as egui-macroquad does
        // to hand the batch to OpenGL before painting; nothing else holds the context now.
        unsafe { get_internal_gl() }.flush();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        // The window ends on its last frame without presenting it; so does the peer.
        if frame + 1 < frames {
            next_frame().await;
        }
    }
    let median = agentbox_window::cpu_clock::median_after_warm_up(&times)
        .map_or(String::new(), |m| {
            format!(", median after warm-up {m:.3} ms")
        });
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let p95 = times
        .get((times.len() * 95 / 100).min(times.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    eprintln!(
        "frames: {} frames, {} agents, whole frame (bare macroquad): frame build time (wall clock) mean {mean:.2} ms, p95 {p95:.2} ms (before the GPU presents the frame){median}",
        times.len(),
        agents.len()
    );
    if let Some(line) = cpu.line("whole frame (bare macroquad)", agents.len()) {
        eprintln!("{line}");
    }
}

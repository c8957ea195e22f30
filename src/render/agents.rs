//! Agents on the map: a disc per agent in its kind's colour (one shared disc texture, so all
//! discs batch into few draw calls), then their heading lines, then labels when zoomed in.

use super::camera::Camera;
use super::palette::kind_color;
use crate::world::World;
use macroquad::prelude::*;

/// A white anti-aliased disc, tinted per agent.
pub struct Disc(Texture2D);

impl Disc {
    pub fn new() -> Self {
        const N: u16 = 64;
        let mut image = Image::gen_image_color(N, N, Color::new(1.0, 1.0, 1.0, 0.0));
        let c = N as f32 / 2.0;
        for y in 0..N {
            for x in 0..N {
                let d = ((x as f32 + 0.5 - c).powi(2) + (y as f32 + 0.5 - c).powi(2)).sqrt();
                // Solid inside, a dark rim, smooth edge.
                let alpha = (c - d).clamp(0.0, 1.0);
                let rim = if d > c - 4.0 { 0.55 } else { 1.0 };
                image.set_pixel(x as u32, y as u32, Color::new(rim, rim, rim, alpha));
            }
        }
        let texture = Texture2D::from_image(&image);
        texture.set_filter(FilterMode::Linear);
        Disc(texture)
    }
}

/// Where an agent's disc goes and how big it is: a multi-tile body (`size`, top-left cell at
/// its position) is drawn centred on its footprint.
fn body(agent: &crate::world::Agent, camera: &Camera) -> (Vec2, f32) {
    let extra = (agent.size.max(1) - 1) as f64 / 2.0;
    let p = camera.to_screen(agent.pos + ::glam::DVec2::splat(extra));
    let r = (agent.radius.max(agent.size as f64 * 0.42) as f32 * camera.tile).max(2.5);
    (p, r)
}

pub fn draw(world: &World, camera: &Camera, disc: &Disc, selected: Option<&str>) {
    let visible = |p: Vec2, r: f32| {
        p.x + r >= 0.0 && p.y + r >= 0.0 && p.x - r <= screen_width() && p.y - r <= screen_height()
    };
    for agent in &world.agents {
        let (p, r) = body(agent, camera);
        if !visible(p, r) {
            continue;
        }
        draw_texture_ex(
            &disc.0,
            p.x - r,
            p.y - r,
            kind_color(&agent.kind),
            DrawTextureParams {
                dest_size: Some(vec2(2.0 * r, 2.0 * r)),
                ..Default::default()
            },
        );
    }
    for agent in &world.agents {
        let (p, r) = body(agent, camera);
        if !visible(p, r) || r < 4.0 {
            continue;
        }
        let facing = agent.facing();
        let dir = vec2(facing.x as f32, facing.y as f32);
        let tip = p + dir * r * 1.5;
        draw_line(
            p.x,
            p.y,
            tip.x,
            tip.y,
            (r * 0.25).max(1.5),
            Color::from_rgba(0x10, 0x10, 0x10, 230),
        );
        if agent.error.is_some() {
            draw_circle_lines(p.x, p.y, r * 1.45, 2.0, RED);
        }
        if selected == Some(agent.id.as_str()) {
            draw_circle_lines(
                p.x,
                p.y,
                r * 1.7,
                2.5,
                Color::from_rgba(0xff, 0xd0, 0x00, 0xff),
            );
        }
    }
    if camera.tile >= 18.0 {
        for agent in &world.agents {
            let (p, r) = body(agent, camera);
            if !visible(p, r) {
                continue;
            }
            let size = crate::render::text::measure(&agent.id, (16) as f32);
            crate::render::text::ui_text(
                &agent.id,
                p.x - size.width / 2.0,
                p.y - r - 5.0,
                16.0,
                Color::from_rgba(0x10, 0x10, 0x10, 0xff),
            );
        }
    }
}

//! Opaque drawing: what covers its pixels wholly (the map's texture, the bars' flat strips) is
//! drawn with blending off, and flat colour with no texture read. It only chooses how shapes
//! are drawn, never what: the pixels come out the same.
//!
//! Under software OpenGL (Mesa's llvmpipe, the usual case in CI, VMs and remote desktops)
//! every pixel of a blended, textured quad reads the texture and the pixel under it back, and
//! the map alone was about two thirds of a small scene's frame. An opaque quad skips the read
//! back and a flat one the texture; a GPU does not care either way.
//!
//! Each switch of material ends macroquad's batch (one more draw call), so callers put their
//! opaque shapes together in one scope.

use macroquad::miniquad::{PipelineParams, ShaderSource};
use macroquad::prelude::*;
use std::cell::OnceCell;

/// macroquad's own vertex shader (its `quad_gl.rs`), which both materials share.
const VERTEX: &str = r#"#version 100
attribute vec3 position;
attribute vec2 texcoord;
attribute vec4 color0;

varying lowp vec2 uv;
varying lowp vec4 color;

uniform mat4 Model;
uniform mat4 Projection;

void main() {
    gl_Position = Projection * Model * vec4(position, 1);
    color = color0 / 255.0;
    uv = texcoord;
}"#;

/// macroquad's own fragment shader: the texture tinted by the vertex colour.
const TEXTURED: &str = r#"#version 100
varying lowp vec4 color;
varying lowp vec2 uv;

uniform sampler2D Texture;

void main() {
    gl_FragColor = color * texture2D(Texture, uv);
}"#;

/// The vertex colour alone (macroquad's shapes tint a white texture: the same colour).
const FLAT: &str = r#"#version 100
varying lowp vec4 color;
varying lowp vec2 uv;

void main() {
    gl_FragColor = color;
}"#;

struct Materials {
    textured: Material,
    flat: Material,
}

thread_local! {
    /// Made on first use; `None` where the GL refuses them (then shapes draw as usual).
    static MATERIALS: OnceCell<Option<Materials>> = const { OnceCell::new() };
}

fn load(fragment: &str) -> Option<Material> {
    let params = MaterialParams {
        // No blend state: blending off.
        pipeline_params: PipelineParams::default(),
        ..Default::default()
    };
    let source = ShaderSource::Glsl {
        vertex: VERTEX,
        fragment,
    };
    load_material(source, params).ok()
}

fn with(pick: impl FnOnce(&Materials) -> &Material, draw: impl FnOnce()) {
    let used = MATERIALS.with(|m| {
        let materials = m.get_or_init(|| {
            Some(Materials {
                textured: load(TEXTURED)?,
                flat: load(FLAT)?,
            })
        });
        match materials {
            Some(materials) => {
                gl_use_material(pick(materials));
                true
            }
            None => false,
        }
    });
    draw();
    if used {
        gl_use_default_material();
    }
}

/// Runs `draw` with textures drawn opaque: for textures whose every pixel is opaque, tinted
/// with opaque colours.
pub fn textured(draw: impl FnOnce()) {
    with(|m| &m.textured, draw);
}

/// Runs `draw` with shapes drawn as flat, opaque colour: for shapes in opaque colours only
/// (no text, no textures, no alpha below 255).
pub fn flat(draw: impl FnOnce()) {
    with(|m| &m.flat, draw);
}

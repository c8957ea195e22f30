//! The JSON Schema of the scene format, generated from the serde types in `file.rs`, so it
//! cannot drift from what the loader accepts. Editors use it through yaml-language-server
//! (`# yaml-language-server: $schema=agentbox.schema.json` as a scene's first line).

use super::file::SceneFile;

/// Where the committed copy lives, relative to the project root.
pub const COMMITTED: &str = "scenes/agentbox.schema.json";

/// The schema as pretty JSON with a trailing newline (draft-07, which yaml-language-server
/// reads).
pub fn json() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<SceneFile>();
    let mut text = serde_json::to_string_pretty(&schema)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise the schema: {e}\"}}"));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_schema_is_up_to_date() {
        let path =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(COMMITTED);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == json(),
            "{COMMITTED} is out of date with crates/agentbox-core/src/scene/file.rs; regenerate it with\n    cargo run --release -- schema > {COMMITTED}"
        );
    }

    #[test]
    fn the_schema_describes_every_top_level_key() {
        let schema: serde_json::Value = serde_json::from_str(&json()).unwrap();
        let keys: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in [
            "name",
            "seed",
            "tick_rate",
            "map",
            "terrain",
            "agents",
            "spawn",
            "waypoints",
            "expect",
        ] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        assert_eq!(schema["additionalProperties"], false);
    }
}

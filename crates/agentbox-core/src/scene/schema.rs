//! The JSON Schema of the scene format, generated from the serde types in `file.rs`, so it
//! cannot drift from what the loader accepts. Editors use it through yaml-language-server
//! (`# yaml-language-server: $schema=agentbox.schema.json` as a scene's first line).

use super::file::SceneFile;

/// Where the committed copy lives, relative to the project root.
pub const COMMITTED: &str = "scenes/agentbox.schema.json";

/// The formats JSON Schema defines (draft 2020-12, a superset of draft-07's): a validator in
/// strict mode refuses any other, such as the `int64`, `uint32` and `double` schemars writes
/// for Rust's number types (their ranges are said with `minimum`/`maximum` instead).
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops a `format` that is not one of [`STANDARD_FORMATS`].
fn standard_formats_only(schema: &mut schemars::Schema) {
    let standard = schema
        .get("format")
        .and_then(|f| f.as_str())
        .is_none_or(|f| STANDARD_FORMATS.contains(&f));
    if !standard {
        schema.remove("format");
    }
}

/// The schema as pretty JSON with a trailing newline (draft-07, which yaml-language-server
/// reads).
pub fn json() -> String {
    let generator = schemars::generate::SchemaSettings::draft07()
        .with_transform(schemars::transform::RecursiveTransform(
            standard_formats_only,
        ))
        .into_generator();
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

    /// Every `format` in a schema, wherever it sits.
    fn formats(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(f)) = map.get("format") {
                    out.push(f.clone());
                }
                map.values().for_each(|v| formats(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| formats(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_format_is_a_standard_one() {
        let schema: serde_json::Value = serde_json::from_str(&json()).unwrap();
        let mut found = Vec::new();
        formats(&schema, &mut found);
        for f in &found {
            assert!(
                STANDARD_FORMATS.contains(&f.as_str()),
                "non-standard format {f:?}"
            );
        }
        // The numbers keep their ranges instead.
        assert_eq!(schema["properties"]["tick_rate"]["minimum"], 1);
        assert_eq!(
            schema["definitions"]["AgentSpec"]["properties"]["speed"]["minimum"],
            0
        );
    }

    #[test]
    fn the_map_is_required() {
        let schema: serde_json::Value = serde_json::from_str(&json()).unwrap();
        assert_eq!(schema["required"], serde_json::json!(["map"]));
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

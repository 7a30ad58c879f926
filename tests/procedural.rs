//! Procedural memory: realistic tools pass and come out normalized, every
//! malformed input fails with the right code, tool and path, rules select by
//! task and render deterministically, and no JSON value makes `parse` panic.

use agent_memory::procedural::{Procedures, Rule, MAX_DEPTH};
use agent_memory::tokens::chat::tools_tokens;
use agent_memory::tokens::estimate::Family;
use agent_memory::tokens::Counter;
use agent_memory::MemoryError;
use proptest::prelude::*;
use serde_json::{json, Value};

fn weather() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name, e.g. Chengdu"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14}
        }, "required": ["city"]}
    }})
}

fn realistic() -> Vec<Value> {
    vec![
        weather(),
        // Nested objects.
        json!({"type": "function", "function": {"name": "create_event", "parameters": {"type": "object", "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 200},
            "where": {"type": "object", "properties": {
                "geo": {"type": "object", "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}}, "required": ["lat", "lng"]},
                "room": {"type": ["string", "null"]}
            }}
        }, "required": ["title"]}}}),
        // Arrays of objects.
        json!({"type": "function", "function": {"name": "add-line-items", "parameters": {"type": "object", "properties": {
            "items": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"},
                "qty": {"type": "integer", "enum": [1, 2, 3.0]}
            }, "required": ["sku", "qty"], "additionalProperties": false}}
        }}}}),
        // $defs / $ref, including a recursive reference to the root.
        json!({"type": "function", "function": {"name": "save_person", "parameters": {"type": "object",
        "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string"}}}},
        "definitions": {"tag": {"type": "string", "enum": ["vip", "new"]}},
        "properties": {
            "home": {"$ref": "#/$defs/address"},
            "tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}},
            "manager": {"$ref": "#"}
        }}}}),
        // OpenAI structured outputs: strict, anyOf with null, everything required.
        json!({"type": "function", "function": {"name": "search_flights", "strict": true, "parameters": {"type": "object",
            "properties": {
                "from": {"type": "string"},
                "cabin": {"anyOf": [{"type": "string", "enum": ["economy", "business"]}, {"type": "null"}]},
                "when": {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}, "required": ["date"], "additionalProperties": false}
            },
            "required": ["from", "cabin", "when"], "additionalProperties": false}}}),
        // No parameters at all: a tool without arguments.
        json!({"type": "function", "function": {"name": "get_time", "description": "Current UTC time"}}),
    ]
}

#[test]
fn realistic_tools_pass_unchanged() {
    let tools = realistic();
    let p = Procedures::parse(&json!({ "tools": tools })).unwrap();
    assert_eq!(p.tools, tools, "already-normalized tools come out as they went in");
    assert!(p.rules.is_empty());
}

#[test]
fn flat_and_null_fields_are_normalized() {
    let p = Procedures::parse(&json!({"rules": null, "tools": [
        {"type": "function", "name": "lookup", "description": null, "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}, "strict": false},
        {"name": "ping", "parameters": null}
    ]}))
    .unwrap();
    assert_eq!(
        p.tools,
        vec![
            json!({"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}, "strict": false}}),
            json!({"type": "function", "function": {"name": "ping"}}),
        ]
    );
}

#[test]
fn normalization_keeps_what_the_tool_count_sees() {
    let counter = Counter::estimate(Family::Generic.profile());
    let p = Procedures::parse(&json!({ "tools": realistic() })).unwrap();
    assert_eq!(tools_tokens(&counter, &p.tools), tools_tokens(&counter, &realistic()));
    assert!(tools_tokens(&counter, &p.tools) > 0);
}

#[test]
fn serialized_procedures_parse_back_equal() {
    let p =
        Procedures::parse(&json!({"rules": ["Be brief.", {"text": "Cite sources", "task": "research"}], "tools": realistic()})).unwrap();
    let again = Procedures::parse(&serde_json::to_value(&p).unwrap()).unwrap();
    assert_eq!(again, p);
}

/// `{tools: [get_weather with these parameters]}`.
fn weather_with(parameters: Value) -> Value {
    json!({"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": parameters}}]})
}

fn strict_with(parameters: Value) -> Value {
    json!({"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": parameters}}]})
}

fn obj(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// Nests `{type: object, properties: {a: …}}` `levels` deep.
fn nested(levels: usize) -> Value {
    (0..levels).fold(json!({"type": "string"}), |inner, _| obj(json!({ "a": inner })))
}

#[test]
fn every_error_names_code_tool_and_path() {
    let long = "x".repeat(65);
    let cases: Vec<(Value, &str, &str)> = vec![
        // Shape errors: INVALID_INPUT with the path, tool "" (none).
        (json!([]), "INVALID_INPUT", "procedures"),
        (json!({"rulez": []}), "INVALID_INPUT", "rulez"),
        (json!({"rules": "be nice"}), "INVALID_INPUT", "rules"),
        (json!({"rules": ["a", "b", {"text": "  "}]}), "INVALID_INPUT", "rules[2].text"),
        (json!({"rules": ["a", "\n\t"]}), "INVALID_INPUT", "rules[1]"),
        (json!({"rules": [7]}), "INVALID_INPUT", "rules[0]"),
        (json!({"rules": [{"task": "x"}]}), "INVALID_INPUT", "rules[0].text"),
        (json!({"rules": [{"text": "a", "task": ""}]}), "INVALID_INPUT", "rules[0].task"),
        (json!({"rules": [{"text": "a", "when": "x"}]}), "INVALID_INPUT", "rules[0].when"),
        (json!({"tools": {}}), "INVALID_INPUT", "tools"),
        (json!({"tools": [{"type": "function", "function": {"name": "get weather"}}]}), "INVALID_INPUT", "tools[0].function.name"),
        (json!({"tools": [{"type": "function", "function": {"name": long}}]}), "INVALID_INPUT", "tools[0].function.name"),
        (json!({"tools": [{"type": "function", "function": {"name": ""}}]}), "INVALID_INPUT", "tools[0].function.name"),
        (json!({"tools": [{"type": "function", "function": {"description": "no name"}}]}), "INVALID_INPUT", "tools[0].function.name"),
        (json!({"tools": [weather(), {"name": "get_time"}, {"name": "get_weather"}]}), "INVALID_INPUT", "tools[2].name"),
        (json!({"tools": [{"type": "retrieval"}]}), "INVALID_INPUT", "tools[0].type"),
        (
            json!({"tools": [{"type": "function", "function": {"name": "f", "paramters": {}}}]}),
            "INVALID_INPUT",
            "tools[0].function.paramters",
        ),
        (json!({"tools": [{"type": "function", "function": {"name": "f", "strict": "yes"}}]}), "INVALID_INPUT", "tools[0].function.strict"),
        (
            json!({"tools": [{"type": "function", "function": {"name": "f", "description": 3}}]}),
            "INVALID_INPUT",
            "tools[0].function.description",
        ),
        (json!({"tools": [{"type": "function", "function": "f"}]}), "INVALID_INPUT", "tools[0].function"),
        // Schema errors: INVALID_TOOL_SCHEMA naming get_weather and the path.
        (weather_with(json!("object")), "INVALID_TOOL_SCHEMA", "parameters"),
        (weather_with(json!({"properties": {}})), "INVALID_TOOL_SCHEMA", "parameters.type"),
        (weather_with(json!({"type": "array", "items": {}})), "INVALID_TOOL_SCHEMA", "parameters.type"),
        (weather_with(obj(json!({"unit": {"type": "string", "enum": []}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.unit.enum"),
        (
            weather_with(obj(json!({"unit": {"type": "string", "enum": "celsius"}}))),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.unit.enum",
        ),
        (
            weather_with(obj(json!({"unit": {"type": "string", "enum": ["c", 1]}}))),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.unit.enum[1]",
        ),
        (weather_with(obj(json!({"n": {"type": "integer", "enum": [1, 1.5]}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.n.enum[1]"),
        (weather_with(obj(json!({"n": {"type": "integer", "const": "1"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.n.const"),
        (weather_with(obj(json!({"city": {"type": "str"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.city.type"),
        (weather_with(obj(json!({"city": {"type": ["string", "text"]}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.city.type[1]"),
        (weather_with(obj(json!({"city": {"type": ["string", "string"]}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.city.type[1]"),
        (weather_with(obj(json!({"city": {"type": []}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.city.type"),
        (weather_with(obj(json!({"city": "string"}))), "INVALID_TOOL_SCHEMA", "parameters.properties.city"),
        (weather_with(json!({"type": "object", "properties": []})), "INVALID_TOOL_SCHEMA", "parameters.properties"),
        (
            weather_with(json!({"type": "object", "properties": {"a": {}}, "required": ["a", "b"]})),
            "INVALID_TOOL_SCHEMA",
            "parameters.required[1]",
        ),
        (
            weather_with(json!({"type": "object", "properties": {"a": {}}, "required": ["a", "a"]})),
            "INVALID_TOOL_SCHEMA",
            "parameters.required[1]",
        ),
        (weather_with(json!({"type": "object", "properties": {"a": {}}, "required": "a"})), "INVALID_TOOL_SCHEMA", "parameters.required"),
        (weather_with(json!({"type": "object", "required": [1]})), "INVALID_TOOL_SCHEMA", "parameters.required[0]"),
        (weather_with(obj(json!({"c": {"description": ["x"]}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.description"),
        (weather_with(json!({"type": "object", "additionalProperties": "no"})), "INVALID_TOOL_SCHEMA", "parameters.additionalProperties"),
        (weather_with(obj(json!({"c": {"type": "string", "minLength": -1}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.minLength"),
        (weather_with(obj(json!({"c": {"type": "array", "maxItems": 2.5}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.maxItems"),
        (weather_with(obj(json!({"c": {"type": "number", "minimum": "0"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.minimum"),
        (weather_with(obj(json!({"c": {"type": "number", "multipleOf": 0}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.multipleOf"),
        (
            weather_with(obj(json!({"c": {"type": "string", "minLength": 5, "maxLength": 2}}))),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.c.minLength",
        ),
        (weather_with(obj(json!({"c": {"anyOf": []}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.anyOf"),
        (weather_with(obj(json!({"c": {"oneOf": [{"type": "null"}, 3]}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.oneOf[1]"),
        (weather_with(obj(json!({"c": {"allOf": {"type": "null"}}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.allOf"),
        (weather_with(obj(json!({"c": {"type": "array", "items": "string"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.items"),
        (
            weather_with(obj(json!({"c": {"type": "array", "items": [{}, {"type": "bad"}]}}))),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.c.items[1].type",
        ),
        (weather_with(obj(json!({"c": {"$ref": "https://example.com/s.json"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.$ref"),
        (weather_with(obj(json!({"c": {"$ref": "#/$defs/missing"}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.$ref"),
        (
            weather_with(json!({"type": "object", "required": [], "properties": {"c": {"$ref": "#/required"}}})),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.c.$ref",
        ),
        (weather_with(obj(json!({"c": {"$ref": 5}}))), "INVALID_TOOL_SCHEMA", "parameters.properties.c.$ref"),
        (
            weather_with(json!({"type": "object", "$defs": {"zip": {"type": "zipcode"}}})),
            "INVALID_TOOL_SCHEMA",
            "parameters.$defs.zip.type",
        ),
        // Strict mode: OpenAI structured-output rules on every object.
        (
            strict_with(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})),
            "INVALID_TOOL_SCHEMA",
            "parameters.additionalProperties",
        ),
        (
            strict_with(
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"], "additionalProperties": false}),
            ),
            "INVALID_TOOL_SCHEMA",
            "parameters.required",
        ),
        (
            strict_with(
                json!({"type": "object", "properties": {"loc": {"type": "object", "properties": {}}}, "required": ["loc"], "additionalProperties": false}),
            ),
            "INVALID_TOOL_SCHEMA",
            "parameters.properties.loc.additionalProperties",
        ),
    ];
    for (input, code, path) in cases {
        let err = Procedures::parse(&input).expect_err(&format!("{input} must fail at {path}"));
        assert_eq!(err.code(), code, "{input}: {err}");
        match &err {
            MemoryError::InvalidInput { path: p, .. } => assert_eq!(p, path, "{input}: {err}"),
            MemoryError::InvalidToolSchema { tool, path: p, .. } => {
                assert_eq!((tool.as_str(), p.as_str()), ("get_weather", path), "{input}: {err}");
            }
            other => panic!("{input}: unexpected error {other:?}"),
        }
    }
}

#[test]
fn schema_depth_is_bounded() {
    assert!(Procedures::parse(&weather_with(nested(MAX_DEPTH))).is_ok());
    let err = Procedures::parse(&weather_with(nested(MAX_DEPTH + 1))).unwrap_err();
    let MemoryError::InvalidToolSchema { path, reason, .. } = &err else { panic!("{err:?}") };
    assert_eq!(path, &format!("parameters{}", ".properties.a".repeat(MAX_DEPTH + 1)));
    assert!(reason.contains("deeper"), "{reason}");
}

#[test]
fn non_strict_objects_need_no_additional_properties() {
    assert!(Procedures::parse(&weather_with(json!({"type": "object", "properties": {"a": {"type": "string"}}}))).is_ok());
    // Unknown keywords are ignored, known ones of the right type pass.
    let ok =
        obj(json!({"a": {"type": "string", "x-internal": [1], "examples": ["x"], "default": "y", "nullable": true, "format": "email"}}));
    assert!(Procedures::parse(&weather_with(ok)).is_ok());
}

fn rules() -> Procedures {
    Procedures::parse(&json!({"rules": [
        "  Answer in the user's language.  ",
        {"text": "Cite the source of every figure.", "task": "research"},
        {"text": "Never run destructive commands.", "task": "ops"},
        {"text": "Keep answers under 200 words.", "task": null}
    ]}))
    .unwrap()
}

#[test]
fn rules_apply_by_task_in_order() {
    let p = rules();
    let texts = |task| p.rules_for(task).iter().map(|r| r.text.as_str()).collect::<Vec<_>>();
    assert_eq!(texts(None), ["Answer in the user's language.", "Keep answers under 200 words."]);
    assert_eq!(
        texts(Some("research")),
        ["Answer in the user's language.", "Cite the source of every figure.", "Keep answers under 200 words."]
    );
    assert_eq!(texts(Some("ops"))[1], "Never run destructive commands.");
    assert_eq!(texts(Some("other")).len(), 2);
    assert_eq!(p.rules[1], Rule { text: "Cite the source of every figure.".into(), task: Some("research".into()) });
}

#[test]
fn rules_text_is_numbered_and_deterministic() {
    let p = rules();
    let text = p.rules_text(Some("research"));
    assert_eq!(text, "Rules:\n1. Answer in the user's language.\n2. Cite the source of every figure.\n3. Keep answers under 200 words.");
    assert_eq!(rules().rules_text(Some("research")), text, "a fresh parse renders byte-identically");
    assert_eq!(p.rules_text(Some("research")), text, "repeated calls render byte-identically");
    assert_eq!(Procedures::parse(&json!({})).unwrap().rules_text(None), "");
    let only_tagged = Procedures::parse(&json!({"rules": [{"text": "x", "task": "t"}]})).unwrap();
    assert_eq!(only_tagged.rules_text(None), "");
    assert_eq!(only_tagged.rules_text(Some("t")), "Rules:\n1. x");
}

/// Any JSON value, biased towards the keys and shapes `parse` looks at, so
/// that generated inputs reach deep into the schema checker.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "rules",
        "tools",
        "text",
        "task",
        "type",
        "function",
        "name",
        "parameters",
        "strict",
        "properties",
        "required",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "additionalProperties",
        "minLength",
        "maximum",
        "object",
        "x",
    ])
    .prop_map(String::from);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(vec![
            "object",
            "string",
            "integer",
            "null",
            "function",
            "#",
            "#/$defs/a",
            "#/properties",
            "get_weather",
            "",
            " "
        ])
        .prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(8, 256, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn parse_never_panics(v in json_value()) {
        let _ = Procedures::parse(&v);
        let _ = Procedures::parse(&json!({"tools": [{"type": "function", "function": {"name": "f", "parameters": v.clone()}}]}));
        for strict in [false, true] {
            let parameters = json!({"type": "object", "properties": {"a": v.clone()}, "$defs": {"a": v.clone()}});
            let _ = Procedures::parse(&json!({"tools": [{"name": "f", "strict": strict, "parameters": parameters}]}));
        }
    }

    /// About a sixth of the wrapped values are accepted schemas.
    #[test]
    fn accepted_procedures_round_trip(v in json_value(), wrap in any::<bool>()) {
        let input = match wrap {
            true => json!({"tools": [{"name": "f", "parameters": {"type": "object", "properties": {"a": v}}}]}),
            false => v,
        };
        if let Ok(p) = Procedures::parse(&input) {
            prop_assert_eq!(Procedures::parse(&serde_json::to_value(&p).unwrap()).unwrap(), p);
        }
    }
}

package core

import (
	"encoding/json"
	"sort"
	"strconv"
	"testing"
)

// Requests written as the strict variant of the tool (op "schema" with
// "strict":true) makes a model write them: every field present, null for
// the ones left out, the questions always in questions.
const (
	reqStrictOne = `{"questions":[{"header":null,"question":"Deploy now?","options":[` +
		`{"label":"Yes","value":null,"description":null,"preview":null,"recommended":true},` +
		`{"label":"No","value":"no","description":"Wait for the review.","preview":null,"recommended":null}],"allowCustom":null}]}`
	reqStrictOpen  = `{"questions":[{"header":"Name","question":"What should the release be called?","options":null,"allowCustom":null}]}`
	reqStrictBatch = `{"questions":[` +
		`{"header":"Database","question":"Which database should I use?","options":[` +
		`{"label":"PostgreSQL","value":"postgres","description":null,"preview":null,"recommended":null},` +
		`{"label":"SQLite","value":"sqlite","description":"A single file.","preview":"` + "```sh\\nsqlite3 app.db\\n```" + `","recommended":true}],"allowCustom":false},` +
		`{"header":null,"question":"Which features should I enable?","options":[` +
		`{"label":"Auth","value":null,"description":null,"preview":null,"recommended":true},` +
		`{"label":"Search","value":null,"description":null,"preview":null,"recommended":null}],"allowCustom":true,"multiSelect":true},` +
		`{"header":null,"question":"Anything else?","options":null,"allowCustom":null}]}`
)

// schemaConformanceCases are the cases of the tool schema's two variants,
// the calls the strict variant makes a model write (null for every field
// left out, read as absent), and the rules that tie a request's fields
// together, which the plain schema leaves to the core (docs/SPEC.md,
// "Requests").
func schemaConformanceCases() []struct{ name, in string } {
	return []struct{ name, in string }{
		{"schema-strict", `{"op":"schema","strict":true}`},
		{"schema-strict-false", `{"op":"schema","strict":false}`},
		{"schema-strict-null", `{"op":"schema","strict":null}`},
		{"schema-strict-not-bool", `{"op":"schema","strict":"yes"}`},
		{"schema-strict-twice", `{"op":"schema","strict":true,"strict":true}`},

		// What the strict variant makes a model write.
		{"strict-normalize-one", env("normalize", reqStrictOne)},
		{"strict-args-one", argsEnv("normalize", reqStrictOne)},
		{"strict-resolve-one", env("resolve", reqStrictOne, `"inputs":[""]`)},
		{"strict-present-one", env("present", reqStrictOne)},
		{"strict-normalize-open", env("normalize", reqStrictOpen)},
		{"strict-resolve-open", env("resolve", reqStrictOpen, `"inputs":["Aurora"]`)},
		{"strict-normalize-batch", env("normalize", reqStrictBatch)},
		{"strict-args-batch", argsEnv("normalize", reqStrictBatch)},
		{"strict-resolve-batch", env("resolve", reqStrictBatch, `"inputs":["2","1,2","no"]`)},
		{"strict-picker-batch", env("picker", reqStrictBatch)},
		{"strict-elicitation-batch", env("elicitation", reqStrictBatch)},
		{"strict-null-multiselect", env("normalize", `{"questions":[{"question":"Q?","options":null,"allowCustom":null,"multiSelect":null}]}`)},

		// The rules the plain schema cannot state (no combinator at its top
		// level): the core's verdicts.
		{"schema-rule-empty", argsEnv("normalize", `{}`)},
		{"schema-rule-header-only", argsEnv("normalize", `{"header":"Database"}`)},
		{"schema-rule-options-only", argsEnv("normalize", `{"options":[{"label":"A"}]}`)},
		{"schema-rule-question-beside-questions", argsEnv("normalize", `{"question":"Q?","questions":[{"question":"R?"}]}`)},
		{"schema-rule-multiselect-no-options", argsEnv("normalize", `{"question":"Q?","multiSelect":true}`)},
		{"schema-rule-multiselect-empty-options", argsEnv("normalize", `{"question":"Q?","options":[],"multiSelect":true}`)},
		{"schema-rule-multiselect-false-no-options", argsEnv("normalize", `{"question":"Q?","multiSelect":false}`)},
		// Leniencies the core keeps beyond the schema.
		{"schema-leniency-bare-options", argsEnv("normalize", `{"question":"Deploy?","options":["Yes","No"]}`)},
		{"schema-leniency-desc", argsEnv("normalize", `{"question":"Deploy?","options":[{"label":"Yes","desc":"Now."},{"label":"No"}]}`)},
		{"schema-leniency-unknown-field", argsEnv("normalize", `{"question":"Deploy?","urgency":"high","options":[{"label":"Yes","icon":"y"}]}`)},
		{"schema-leniency-null-fields", argsEnv("normalize", `{"header":null,"question":"Deploy?","options":null,"allowCustom":null,"multiSelect":null,"questions":null}`)},
	}
}

// walkSchema calls f on every schema object inside s (s included), with
// its JSON pointer.
func walkSchema(t *testing.T, s map[string]any, path string, f func(path string, s map[string]any)) {
	t.Helper()
	f(path, s)
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := s[k].(map[string]any); ok {
			for name, v := range m {
				sub, ok := v.(map[string]any)
				require.True(t, ok, "%s/%s/%s is not a schema object", path, k, name)
				walkSchema(t, sub, path+"/"+k+"/"+name, f)
			}
		}
	}
	if sub, ok := s["items"].(map[string]any); ok {
		walkSchema(t, sub, path+"/items", f)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if arr, ok := s[k].([]any); ok {
			for i, v := range arr {
				sub, ok := v.(map[string]any)
				require.True(t, ok, "%s/%s/%d is not a schema object", path, k, i)
				walkSchema(t, sub, path+"/"+k+"/"+strconv.Itoa(i), f)
			}
		}
	}
}

func toolParameters(t *testing.T, envelope string) map[string]any {
	t.Helper()
	var e struct {
		OK     bool `json:"ok"`
		Result struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(Handle([]byte(envelope)), &e))
	require.True(t, e.OK)
	require.Equal(t, ToolName, e.Result.Name)
	var p map[string]any
	require.NoError(t, json.Unmarshal(e.Result.Parameters, &p))
	return p
}

// The strict variant keeps OpenAI's strict function-calling rules: every
// object closed and listing all its properties in required, no keyword
// strict mode refuses, a root object that is no union.
func TestStrictSchemaRules(t *testing.T) {
	p := toolParameters(t, `{"op":"schema","strict":true}`)
	require.Equal(t, "object", p["type"])
	require.False(t, has(p, "anyOf"))
	refused := []string{"minLength", "maxLength", "minProperties", "maxProperties", "oneOf", "allOf", "not", "if", "then", "else",
		"dependentRequired", "dependentSchemas", "dependencies", "patternProperties", "uniqueItems", "contains", "default"}
	objects := 0
	walkSchema(t, p, "", func(path string, s map[string]any) {
		for _, k := range refused {
			require.False(t, has(s, k), "%s uses %s", path, k)
		}
		if s["type"] != "object" {
			return
		}
		objects++
		require.Equal(t, false, s["additionalProperties"], "%s is not closed", path)
		props, _ := s["properties"].(map[string]any)
		var req []string
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		sort.Strings(req)
		require.Equal(t, keys(props), req, "%s: required lists every property", path)
	})
	require.Equal(t, 4, objects, "the root, two question shapes, the option")
}

// The plain schema has no combinator at its top level (OpenAI's function
// calling and Anthropic's tools refuse one there) and no keyword zod's
// fromJSONSchema refuses anywhere.
func TestPlainSchemaIsPortable(t *testing.T) {
	p := toolParameters(t, `{"op":"schema"}`)
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "enum"} {
		require.False(t, has(p, k), k)
	}
	require.Equal(t, float64(1), p["minProperties"], "{} is refused by the schema")
	walkSchema(t, p, "", func(path string, s map[string]any) {
		for _, k := range []string{"not", "if", "then", "else", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "$ref"} {
			require.False(t, has(s, k), "%s uses %s", path, k)
		}
	})
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

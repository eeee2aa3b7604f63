// Package core holds every rule of askcore's ask_user_question tool: pure
// Go, standard library only, no I/O, goroutines, clock or randomness. The
// same code runs natively and compiled to a WASI reactor under wazero, Node
// and browsers; for the same input bytes every surface returns the same
// output bytes.
//
// # The envelope
//
// [Handle] takes a JSON object {"op": OP, ...} and returns
// {"ok":true,"result":...} or
// {"ok":false,"error":{"name":"UserInteractionError","code":CODE,"message":TEXT}}.
// Malformed input of any kind is an ok:false envelope, never a panic.
//
//	op                  fields               result
//	normalize           request              {"header"?,"question","options":[{"label","value","description"?,"recommended"?:true}],"allowCustom"}
//	schema              (none)               {"name":"ask_user_question","description","parameters":<JSON Schema>}
//	present             request              {"text","order":[option indices in display order]}
//	resolve             request, input       {"answer","selected"?:{"index","label","value"}}
//	elicitation         request              {"message","requestedSchema":{"type":"object","title"?,"properties","required"}}
//	elicitation_result  request, response    {"answer","selected"?}
//	sanitize            text                 {"text"}: any text (a model's reply) made safe to show, see [SanitizeText]
//
// Ops that take a request normalize it first, so a bad request fails the
// same way in every op. Keys are written in the fixed order shown; unknown
// envelope fields are ignored. The typed API ([Normalize], [Present],
// [Resolve], [Elicitation], [ElicitationResult], [Schema]) applies the same
// rules to Go values, and the JSON methods ([Request.JSON], [Answer.JSON],
// [HarnessError.JSON], ...) write exactly the bytes Handle writes.
//
// # Error codes
//
// Errors are *[HarnessError] values (use errors.As) with Name
// "UserInteractionError" and one of these codes:
//
//	INVALID_REQUEST     the envelope or the request is malformed or ambiguous: not JSON, not an
//	                    object, unknown op, missing or wrongly typed field, duplicate key, empty
//	                    question or label, duplicate labels or values, a limit exceeded (core)
//	INVALID_ANSWER      a typed line or a form answer does not answer the request: empty line with
//	                    no default, unknown option without free text, a choice not offered, an
//	                    accepted form with nothing usable, an answer over MaxAnswerChars (core)
//	ASK_DECLINED        elicitation_result with action "decline" (core)
//	ASK_CANCELLED       elicitation_result with action "cancel" (core)
//	ASK_FAILED          elicitation_result with any other action, or none (core); a surface that
//	                    cannot ask (hosts); an internal panic recovered by Handle (a bug)
//	NO_PROVIDER         nobody is registered to ask a human (interaction service, not the core)
//	DUPLICATE_PROVIDER  a second provider registered while one is active (interaction service)
//	ASK_ABORTED         the asking side gave up: ctx, abort, session cancel, stdin EOF (front doors)
//	ASK_TIMEOUT         an opt-in per-ask timeout expired; nothing was chosen (Go seam only)
//	SESSION_NOT_FOUND   no session can be routed to for the asking agent (ACP front door)
//
// Messages are written for their reader: INVALID_REQUEST tells the model
// exactly what to change ("options[2].label must be a string, got a
// number"); INVALID_ANSWER is the re-prompt shown to the person.
//
// # Limits
//
// Generous, so that only what cannot be shown or answered is rejected.
// Lengths count characters (code points) after sanitization and trimming:
//
//	MaxInputBytes        262144 bytes  a whole envelope (hosts should refuse larger inputs before copying)
//	MaxDepth             64            JSON nesting of arrays and objects
//	MaxHeaderChars       200
//	MaxQuestionChars     4000
//	MaxOptions           64
//	MaxLabelChars        200
//	MaxValueChars        1000
//	MaxDescriptionChars  2000
//	MaxAnswerChars       8000          a typed line, a form's free-text answer
//
// # Request rules
//
//   - question is required; header, options, allowCustom, and each option's
//     value, description and recommended are optional. null counts as
//     absent for every field (a null question is "required").
//   - value defaults to label (an empty value too).
//   - desc is a synonym of description on input; description wins when both
//     are given. Output never contains desc.
//   - An option may be given as a bare string: "Yes" means {"label":"Yes"}.
//   - An optionless question is always free-form: allowCustom becomes true.
//   - Duplicate labels, or duplicate values, are INVALID_REQUEST (compared
//     by key, see below). A label equal to another option's value is
//     allowed; typed input then matches labels before values.
//   - Several options may be recommended: recommended options are displayed
//     first (stable order), and the first recommended one is the default.
//   - Options keep the order given in normalize output; Selected.Index and
//     present's order refer to it.
//
// # Sanitization
//
// Every string that reaches a terminal or a client (header, question,
// labels, values, descriptions, typed and form answers, and the text
// quoted in error messages) is sanitized, then trimmed:
//
//   - Escape sequences are removed whole, not just their ESC: CSI
//     (ESC [ ... final byte, and C1 U+009B), OSC (ESC ] ... BEL or ST, and
//     U+009D; so an OSC 8 hyperlink leaves only its text), DCS/SOS/PM/APC
//     strings (up to ST), and two-character and character-set escapes. An
//     unterminated OSC/DCS string runs to the end of the text, as a terminal
//     would swallow it.
//   - C0 controls (NUL, BEL, BS, ...), DEL and C1 controls are removed; a tab
//     becomes a space.
//   - Bidirectional controls are removed: embeddings and overrides
//     U+202A-U+202E, isolates U+2066-U+2069, and the marks U+200E, U+200F,
//     U+061C.
//   - Line breaks (LF, CR, CRLF, NEL, U+2028, U+2029) become "\n" in the
//     question, descriptions and answers, and fold (with the spaces around
//     them) to one space in header, labels and values.
//   - Trimming removes white space (including NBSP and U+3000) and the
//     zero-width characters U+200B-U+200D, U+2060, U+FEFF at both ends.
//     Inside text, zero-width joiners are kept so emoji sequences display.
//   - Invalid UTF-8 becomes U+FFFD.
//
// # Comparing text
//
// Labels, values and typed answers are compared by a key: case folded
// (unicode.ToLower per code point), trimmed, inner runs of white space
// collapsed to one space, every default-ignorable code point (zero-width
// characters, joiners, variation selectors, soft hyphens, Hangul fillers,
// invisible operators, tag characters: Unicode's
// Default_Ignorable_Code_Point set) ignored, full-width ASCII (U+FF01-U+FF5E)
// read as ASCII, and a Latin letter followed by a combining mark composed
// when the pair is one of about 170 precomposed letters of Latin-1 and Latin
// Extended-A (plus Romanian comma-below letters). So "Café" typed in NFC
// matches a label written in NFD, and the two spellings count as
// duplicates. The standard library has no Unicode normalization and a full
// table would cost the WASM module tens of kilobytes; other decomposable
// text (stacked marks, Vietnamese, Hangul jamo, compatibility forms) is
// compared code point by code point: two such spellings are distinct
// labels, and the person can still answer by number. Case folding does
// not expand (ß is not "ss").
//
// # Typed lines (resolve)
//
// A line is sanitized and trimmed, then: empty is the first recommended
// option, or INVALID_ANSWER without one; a number 1..N (ASCII or full-width
// digits, optionally followed by "." or ")") is that displayed option; a
// label, else a value, with the same key is that option; anything else is
// free text when allowCustom is true, else INVALID_ANSWER. For an
// optionless question any non-empty line is the answer.
//
// # ACP forms (elicitation, elicitation_result)
//
// The form's message is the question and its title the header. Options
// become one string field "choice" with oneOf [{const: value, title: label,
// description?}] in display order and default = the first recommended
// value; with free text a second string field "custom_answer" and no
// required field, without it "choice" is required. An optionless question
// has one required string field "answer". On accept, a non-empty
// custom_answer wins (and selects an option when it matches one's label or
// value); a choice must be one of the offered values (a label or a value
// with the same key is accepted too). decline is ASK_DECLINED, cancel
// ASK_CANCELLED, anything else ASK_FAILED; content fields of other types
// are INVALID_ANSWER; unknown content fields are ignored.
//
// # JSON decisions
//
// All JSON goes through one internal seam (core/internal/jsonx): no
// encoding/json, fmt or reflect in the core, to keep the WASM module small.
//
//   - Strict RFC 8259 input: no BOM, comments, trailing commas, NaN.
//   - Duplicate keys: a key the core reads (op, request, input, response,
//     header, question, options, allowCustom, label, value, description,
//     desc, recommended, action, content, choice, custom_answer, answer)
//     given twice is rejected, as it makes the request ambiguous; duplicates
//     of keys the core ignores are ignored.
//   - Invalid UTF-8 in strings and lone \u surrogates decode as U+FFFD.
//   - Output escapes '"', '\\', control characters (\b \f \n \r \t, others
//     as \u00XX), DEL, U+2028 and U+2029; '<', '>' and '&' are not escaped
//     (as JSON.stringify). Output is always valid UTF-8.
package core

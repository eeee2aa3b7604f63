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
//	op                  fields                                result
//	normalize           request|arguments                     the normalized call: one question
//	                                                          {"header"?,"question","options":[{"label","value","description"?,"recommended"?:true}],"allowCustom","multiSelect"?:true}
//	                                                          or a batch {"questions":[<question>...]}
//	schema              (none)                                {"name":"ask_user_question","description","parameters":<JSON Schema>}
//	present             request|arguments, index?             {"text","order":[option indices in display order]} for question index (default 0)
//	resolve             request|arguments, input, index?      the answer of question index to one input (a typed line or a pick)
//	resolve             request|arguments, inputs             the call's answer: one input per question
//	picker              request|arguments                     what a keyboard picker shows, see "Keyboard picker"
//	summary             request|arguments, answer, index?     {"text"}: what an answer chose, one line per question (with index: question index's own answer)
//	elicitation         request|arguments, for?               the form for ACP (default) or MCP clients ("for":"mcp"): {"message","requestedSchema":{"type":"object","title"?,"properties","required"}}
//	elicitation_result  request|arguments, response           the call's answer to the client's form response
//	fail                situation, detail?, ms?, tool?, tools? the error object of a seam situation, see "Situations"
//	terminal            stdinTTY, stderrTTY, outTTY, term,    {"picker","color"}: what a terminal front door does, see [terminalModeFor]
//	                    noColor, plain, plainFlag
//	sanitize            text, as?                             {"text"}: any text made safe to show, see [sanitizeText] and [sanitizeTitle]
//
// The call an op is about comes either as "request", a JSON object (bytes
// the core wrote, such as a normalized request, or a value the host
// serialized), or as "arguments", a JSON string holding the model's tool
// arguments exactly as the model wrote them. The core parses arguments
// itself, so a syntax error names a byte offset inside the arguments
// ("unexpected end of input at byte 13 of 13") and every host gives the
// same verdict for the same text, valid JSON or not; hosts never paste
// model text into an envelope.
//
// Ops that take a request normalize it first, so a bad request fails the
// same way in every op. Keys are written in the fixed order shown; unknown
// envelope fields are ignored. The typed API ([Normalize], [NormalizeAsk],
// [Present], [Resolve], [ResolvePick], [Elicitation], [ElicitationResult],
// [schemaTool], [failFor], [terminalModeFor], [summaryText]) applies the same rules to
// Go values, and the JSON methods ([request.JSON], [call.JSON],
// [answer.JSON], [batchAnswer.JSON], [harnessError.JSON], ...) write
// exactly the bytes Handle writes.
//
// # Error codes
//
// Errors are *[harnessError] values (use errors.As) with Name
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
// The messages of the codes the core does not decide itself (NO_PROVIDER,
// ASK_ABORTED, ASK_TIMEOUT, a surface that cannot ask, ...) are written by
// the core too, by [failFor] (op "fail"), so that every surface reports the
// same situation with the same bytes. An agent loop's own failures carry
// the name "ToolError" ([ToolErrorName]) and the codes UNKNOWN_TOOL,
// TOOL_FAILED and TOOL_CANCELLED.
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
//	MaxQuestions         10            questions in one batch
//	MaxQuoteChars        40            model text quoted in a message or shown as a title
//	MaxDetailChars       300           host text (an error, a reason) quoted in a failure message
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
//   - multiSelect (default false) lets the person pick one or more options;
//     it needs options. Normalized output carries "multiSelect":true only
//     when it is true, so a v1 request normalizes to the v1 bytes.
//   - A batch {"questions":[...]} holds 1 to MaxQuestions questions, each
//     with the fields above; a request with both questions and a top-level
//     question field (header, question, options, allowCustom, multiSelect)
//     is INVALID_REQUEST, and so are two questions with the same key.
//     Messages name the place: "questions[1].options[0].label ...".
//
// # Answers
//
// What the model receives, written by the core only:
//
//	single-select   {"answer":S,"selected"?:{"index","label","value"}}: answer is the option's value or the typed text
//	multi-select    {"answers":[S...],"selected":[{"index","label","value"}...]}: the chosen values in
//	                request order, then the typed text as one last element; selected lists the options only
//	batch           {"answers":[{"question":TEXT,<that question's answer fields>}...]} in question order
//
// A batch is answered whole or fails whole with one error, whose message
// starts with the question it is about ("Question 2 ("..."): ...").
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
// [Shown] is the rule for a single character (not a control, DEL or bidi
// control): front doors that echo what a person types before the core has
// seen it (the keyboard picker's text entry) keep only those.
//
// # Comparing text
//
// Labels, values and typed answers are compared by a key. To build it,
// every default-ignorable code point (zero-width characters, joiners,
// variation selectors, soft hyphens, Hangul fillers, invisible operators,
// tag characters: Unicode's Default_Ignorable_Code_Point set) is dropped;
// white space is trimmed and inner runs of it collapse to one space;
// full-width ASCII (U+FF01-U+FF5E) is read as ASCII; every other code point
// is replaced by its full canonical decomposition (recursively, a Hangul
// syllable by its jamo) and each code point of that is lower-cased with
// unicode.ToLower; and each run of combining marks is put in canonical
// order (a stable sort by Canonical_Combining_Class; a space or any other
// starter ends a run). The key is the lower-cased NFD of the text, so two
// canonically equivalent spellings are one label, one value, one answer:
// "Café" in NFC or NFD, "Tiếng Việt" precomposed or with its marks in
// either order, 한 or its three jamo, Å or the Ångström sign, ά with tonos
// or with oxia. The data is that of the toolchain's unicode package
// (Unicode 15.0.0), in tables generated from golang.org/x/text/unicode/norm
// (norm_tables.go; the core does not import x/text, and its tests check the
// tables and the key against it for every code point).
//
// The key does not apply compatibility equivalence beyond full-width ASCII:
// ligatures ("ﬁ"), superscripts, circled, half-width and other
// compatibility forms compare code point by code point. Case mapping is
// one code point to one, without expansion or language rules: ß is not
// "ss", the dotless ı stays ı, and İ (U+0130, canonically I + U+0307) keys
// as i + U+0307, not as i. Marks of the same class keep their order: a +
// acute + circumflex and a + circumflex + acute are two labels, as they
// are two spellings in Unicode.
//
// # Typed lines and picks (resolve)
//
// A line is sanitized and trimmed, then: empty is the first recommended
// option, or INVALID_ANSWER without one; a number 1..N (ASCII or full-width
// digits, optionally followed by "." or ")") is that displayed option; a
// label, else a value, with the same key is that option; anything else is
// free text when allowCustom is true, else INVALID_ANSWER. For an
// optionless question any non-empty line is the answer.
//
// A multi-select line holds comma-separated parts, each a displayed
// number, a label or a value (a label that contains commas matches when
// its parts are typed together); parts that match no option become the
// free text, joined by ", ", when allowCustom is true, else INVALID_ANSWER
// names the part. Repeats count once. An empty line is every recommended
// option (INVALID_ANSWER without one).
//
// A terminal asks the questions of a batch one after another: present and
// resolve take "index" (the question's position; required with input for
// a batch), and once every question has a valid input, resolve with
// "inputs" (one per question) writes the batch's answer.
//
// A keyboard picker sends a pick instead of a line: {"options":[positions
// in the request],"text":"own answer"} ([pick]). Single-select: a
// non-empty text wins (and chooses the option it names), else exactly one
// option. Multi-select: the options, then the text as one more answer.
// Text on a question without allowCustom is INVALID_ANSWER.
//
// # Forms (elicitation, elicitation_result)
//
// One mapping serves ACP and MCP clients: every form the core writes uses
// only string fields (with oneOf [{const, title, description?}] for a
// single choice) and string-array fields (items anyOf [{const, title}])
// for multi-select, which both specs accept; MCP clients drop the
// description inside oneOf items, which loses nothing. The one difference
// ("for":"mcp", [formTarget]): MCP's requestedSchema has no title (its
// TypeScript SDK drops it), so for MCP a single question's header is the
// title of its field instead; batches are the same for both.
//
// A single question: the form's message is the question and its title the
// header. Options become one string field "choice" with oneOf [{const:
// value, title: label, description?}] in display order and default = the
// first recommended value; with free text a second string field
// "custom_answer" and no required field, without it "choice" is required.
// A multi-select question has an array field "choices" instead
// ({"type":"array","items":{"anyOf":[{const, title}...]},"minItems":1
// without free text,"default":[recommended values]}). An optionless
// question has one required string field "answer".
//
// A batch is one form: its message says how many questions it holds, and
// each question's fields carry its 1-based position (choice_1,
// custom_answer_1, choices_2, answer_3, ...), with the header (or the
// question) as title and the question as description.
//
// On accept, a non-empty custom answer wins for a single-select question
// (and selects an option when it matches one's label or value) and is one
// more answer for a multi-select one; a choice must be one of the offered
// values (a label or a value with the same key is accepted too). decline
// is ASK_DECLINED, cancel ASK_CANCELLED, anything else ASK_FAILED, and so
// is a response that is not an object (the client's fault, not the
// model's); content fields of other types are INVALID_ANSWER; unknown
// content fields are ignored.
//
// # Keyboard picker (picker)
//
// For each question, in order: "position" ("Question 2 of 3", batches
// only), "header"?, "question", "multiSelect", "entries" (the options in
// display order: {"index": position in the request, "label",
// "description"?, "recommended"?}), "custom" (the label of the own-answer
// entry, drawn after the options, when free text is allowed; for an
// optionless question the text entry's label), "cursor" (the entry the
// cursor starts on), "toggled" (the positions that start toggled on: the
// recommended options of a multi-select question) and "help" (one line of
// key help). Then the texts the picker draws around them: "recommended"
// (the mark after a recommended label), "on" and "off" (the toggle
// marks), "more" (after the count of entries scrolled out of view), and
// "declined" and "interrupted" (the line left in place of the picker after
// Esc or Ctrl-C). A picker only draws these and reads keys; what the keys produce
// is a pick, resolved by op resolve.
//
// # Situations (fail)
//
// [failFor] writes the error of a situation that ends an ask outside the
// request rules ([Situation]: no_provider, aborted, withdrawn, timeout,
// no_answer, provider_failed, engine_fault, interrupted, eof, declined,
// session_not_found, no_form_support, client_error, client_disconnected,
// usage, unknown_tool, ...).
// Host text it quotes (an error, a reason, an agent id) is sanitized to one
// line and cut to MaxDetailChars; a timeout is written for people
// ([FormatMillis]: "2m", "1.5s"). An engine fault's own text is never
// quoted: it differs between runtimes and the situation must read the same
// everywhere. When the engine cannot answer op "fail" (it faulted, or the
// envelope is over MaxInputBytes because a detail is huge), a Go host
// calls [failFor] natively: the same rules, the same bytes.
//
// # JSON decisions
//
// All JSON goes through one internal seam (core/internal/jsonx): no
// encoding/json, fmt or reflect in the core, to keep the WASM module small.
//
//   - Strict RFC 8259 input: no BOM, comments, trailing commas, NaN.
//   - Duplicate keys: a key the core reads (op, request, arguments, input,
//     inputs, index, response, answer, header, question, questions,
//     options, allowCustom, multiSelect, label, value, description, desc,
//     recommended, action, content, text, situation, ...)
//     given twice is rejected, as it makes the request ambiguous; duplicates
//     of keys the core ignores are ignored.
//   - Invalid UTF-8 in strings and lone \u surrogates decode as U+FFFD.
//   - Output escapes '"', '\\', control characters (\b \f \n \r \t, others
//     as \u00XX), DEL, U+2028 and U+2029; '<', '>' and '&' are not escaped
//     (as JSON.stringify). Output is always valid UTF-8.
package core

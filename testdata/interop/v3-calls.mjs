// The calls of vocabulary v3 (previews and notes) that both interop suites
// (cmd/acp/interop, cmd/mcp/interop) put to the real binaries.
export const fence = "```";

export const singleArgs = {
  header: "Layout",
  question: "How should the code be organised?",
  allowCustom: true,
  options: [
    { label: "By feature", value: "by-feature", description: "One folder per feature.", preview: `${fence}text\nservice/\n  orders/\n    api\n    store\n${fence}`, recommended: true },
    { label: "By layer", value: "by-layer", description: "One folder per layer.", preview: `${fence}text\nservice/\n  api/\n    orders\n  store/\n    orders\n${fence}` },
  ],
};
export const multiArgs = {
  header: "Screens",
  question: "Which screens should the first version have?",
  multiSelect: true,
  options: [
    { label: "Search", value: "search", preview: "+----------------+\n| [ query    ] 🔍 |\n+----------------+" },
    { label: "Export", value: "export", preview: "Export\t▸ CSV | JSON" },
    { label: "Sync", value: "sync", description: "no preview: the description says enough" },
  ],
};
export const batchArgs = {
  questions: [
    {
      header: "Database",
      question: "Which database?",
      options: [
        { label: "PostgreSQL", value: "postgres", preview: `${fence}toml\n[db]\nurl = "postgres://localhost/app"\n${fence}` },
        { label: "SQLite", value: "sqlite", recommended: true, preview: `${fence}toml\n[db]\npath = "app.db"\n${fence}` },
      ],
    },
    { header: "Screens", question: "Which screens?", multiSelect: true, allowCustom: true, options: [{ label: "Search", value: "search", preview: "[ query ] 🔍" }, { label: "Export", value: "export" }] },
    { question: "What should the project be called?" },
  ],
};

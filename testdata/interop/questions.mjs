// The questions both interop suites ask (the arguments of
// ask_user_question), so that what the ACP and the MCP client see of one
// question can be compared.

// dbArgs is a choice: options with a description and a recommended one,
// and free text allowed.
export const dbArgs = {
  header: "Database",
  question: "Which database should I use?",
  options: [
    { label: "PostgreSQL", value: "postgres", description: "a server" },
    { label: "SQLite", value: "sqlite", recommended: true },
  ],
  allowCustom: true,
};

// nameArgs is an optionless question: free text only.
export const nameArgs = { question: "What should the project be called?" };

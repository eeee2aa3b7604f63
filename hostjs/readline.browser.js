// @askcore/askcore/readline outside Node (the "default" condition of its
// export): the line-mode provider reads a terminal through node:readline,
// which a browser does not have. Importing this works, so a bundle that
// only mentions the provider on its Node path still builds; using it throws
// an error that says so.

const message =
  '@askcore/askcore/readline needs Node (it reads a terminal through node:readline); ' +
  'in a browser, register a provider that shows core.elicitation(question) as a form and returns {form: response}';

export class ReadlineProvider {
  constructor() {
    throw new Error(message);
  }
}

/** @returns {never} */
export function createReadlineProvider() {
  throw new Error(message);
}

// Shared by the adapters (not exported by the package).

/**
 * The core's strict tool schema (op schema, "strict": true: every field
 * listed and required, null for one left out, which the core reads as
 * absent), for strict function calling. Throws a TypeError naming the cause
 * when this core writes no strict schema.
 * @param {import('../lib/core.js').Core} core
 * @returns {{name: string, description: string, parameters: {[key: string]: unknown}}}
 */
export function strictSchema(core) {
  const strict = /** @type {(o: {strict: boolean}) => any} */ (core.schema)({ strict: true });
  if (JSON.stringify(strict) === JSON.stringify(core.schema())) {
    throw new TypeError('this askcore core writes no strict schema (op schema with "strict": true); a newer @askcore/askcore has it');
  }
  return strict;
}

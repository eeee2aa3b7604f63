// strip is a form's requestedSchema as the MCP SDK's zod schema passes it
// on to the client's handler: the keys of MCP's elicitation schema only (an
// option's description, for one, has no place there).
export function strip(schema) {
  const keep = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
  const props = {};
  for (const [name, p] of Object.entries(schema.properties)) {
    const q = keep(p, ["type", "title", "description", "minLength", "maxLength", "format", "default", "enum", "minItems", "maxItems"]);
    if (p.oneOf) q.oneOf = p.oneOf.map((o) => keep(o, ["const", "title"]));
    if (p.items) q.items = p.items.anyOf ? { anyOf: p.items.anyOf.map((o) => keep(o, ["const", "title"])) } : keep(p.items, ["type", "enum"]);
    props[name] = q;
  }
  return { type: schema.type, properties: props, ...(schema.required ? { required: schema.required } : {}) };
}

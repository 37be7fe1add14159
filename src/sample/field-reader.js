// Reading one named field of many Samples, as the trend maths and the slot history do.

const readers = new Map();

/** True for a field name that can be written as `s.name` in generated code. */
export const isFieldName = (name) => /^[A-Za-z_$][\w$]*$/.test(name);

/**
 * A function reading one field of a sample. A loop reading `s[field]` with a name that changes
 * from call to call is a megamorphic keyed load in V8; a reader per name is a named load its own
 * inline cache keeps fast (at 128 idle workers it was a quarter of the decide step's time).
 * @param {string} field
 * @returns {(s: object) => any}
 */
export function readerOf(field) {
  let read = readers.get(field);
  if (!read) {
    // eslint-disable-next-line no-new-func -- a field name of the Sample, checked to be an identifier
    read = isFieldName(field) ? new Function('s', `return s.${field};`) : (s) => s[field];
    readers.set(field, read);
  }
  return read;
}
